"""``cancel_tool_calls(ids)``: a call cancelled from another thread while its batch runs.

Against real servers (official SDK): ``tests/servers/watch_stdio.py`` over stdio and
``tests/servers/http_server.py`` over Streamable HTTP, both with ``watched(tag, seconds)``
(a call that waits until it is cancelled, and remembers that it was), ``wait_started``
and ``outcome``, which let the test see the server's side.  The batch runs on a thread of
the test's; the test waits until the server has the call (``wait_started``), cancels it,
and asserts the entry, the count and that the server's handler was cancelled.
"""

from __future__ import annotations

import threading
from typing import Any, ClassVar, Mapping

from mcp_client import Client, MCPClientError
from mcp_client.local import LocalServer
from mcp_client.policy import Policy
from mcp_client.registry import Registry
from mcp_client.testing import NO_ANSWER
from mcp_client.types import text_of

from ..base import ClientCase, LeakCheckingTestCase, fake_server, server
from ..httpkit import LiveServer

#: Long enough that a call which was not cancelled makes the test fail, not pass late.
HELD = 60
WAIT = 20.0

BAD_IDS: list[Any] = ["c1", b"c1", None, 5, {"c1": 1}, [None], [1.5], [True], [["c1"]]]


def call(ident: Any, name: str, **arguments: Any) -> dict[str, Any]:
    return {"id": ident, "type": "function", "function": {"name": name, "arguments": arguments}}


class Batch:
    """``provider.execute_tool_calls(calls)`` on a thread of its own."""

    def __init__(self, provider: Any, calls: list[dict[str, Any]]) -> None:
        self.entries: list[dict[str, Any]] | None = None
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, args=(provider, calls),
                                       name="test-batch")
        self.thread.start()

    def _run(self, provider: Any, calls: list[dict[str, Any]]) -> None:
        try:
            self.entries = list(provider.execute_tool_calls(calls))
        except BaseException as exc:
            self.error = exc

    def result(self, test: LeakCheckingTestCase) -> list[dict[str, Any]]:
        self.thread.join(WAIT)
        test.assertFalse(self.thread.is_alive(), "the batch did not return")
        test.assertIsNone(self.error)
        assert self.entries is not None
        return self.entries


class CancelCase(ClientCase):
    """Helpers over one client of a server that has ``watched``."""

    client: Client

    def tag(self, name: str = "") -> str:
        return f"{self.id()}-{name}"

    def started(self, tag: str) -> None:
        said = text_of(self.client.call_tool("wait_started", {"tag": tag, "wait": WAIT}))
        self.assertEqual(said, "running")

    def outcome(self, tag: str, wait: float = WAIT) -> str:
        return text_of(self.client.call_tool("outcome", {"tag": tag, "wait": wait}))

    def assert_cancelled(self, entry: Mapping[str, Any], ident: Any, name: str = "watched") -> None:
        self.assertEqual(entry, {"role": "tool", "tool_call_id": ident, "is_error": True,
                                 "content": f"the call to {name} was cancelled"})

    def cancel_one(self, provider: Any, name: str = "watched", **options: Any) -> None:
        """The whole story through ``provider`` (a stack over ``self.client``)."""
        tag = self.tag()
        batch = Batch(provider, [call("c1", name, tag=tag, seconds=HELD)])
        self.started(tag)
        self.assertEqual(provider.cancel_tool_calls(["c1"]), 1)
        [entry] = batch.result(self)
        self.assert_cancelled(entry, "c1")   # a registry passes the server's name down
        self.assertEqual(self.outcome(tag), "cancelled")
        self.assertEqual(provider.cancel_tool_calls(["c1"]), 0)   # the batch is over


class StdioCancelTest(CancelCase):
    script = "watch_stdio.py"

    def setUp(self) -> None:
        super().setUp()
        self.client = self.connect()

    def test_a_call_in_flight_is_cancelled_and_the_server_told(self) -> None:
        self.cancel_one(self.client)

    def test_in_the_handshake_era_too(self) -> None:
        self.client = self.connect(era="legacy")
        self.cancel_one(self.client)

    def test_unknown_ids_cancel_nothing_and_the_call_goes_on(self) -> None:
        tag = self.tag()
        batch = Batch(self.client, [call("c1", "watched", tag=tag, seconds=HELD)])
        self.started(tag)
        self.assertEqual(self.client.cancel_tool_calls(["c2", 1, "C1"]), 0)
        self.assertEqual(self.client.cancel_tool_calls([]), 0)
        self.assertEqual(self.outcome(tag, 0.2), "running")
        self.assertEqual(self.client.cancel_tool_calls(iter(["c1", "c1"])), 1)   # once
        self.assert_cancelled(batch.result(self)[0], "c1")

    def test_bad_ids_are_refused(self) -> None:
        fresh = self.connect()   # before any batch, and after one
        for provider in (fresh, self.client):
            for ids in BAD_IDS:
                with self.subTest(ids=ids), self.assertRaises(MCPClientError):
                    provider.cancel_tool_calls(ids)
            self.client.execute_tool_calls([call("x", "echo", text="hi")])

    def test_a_volley_call_is_cancelled_and_the_others_answered(self) -> None:
        client = self.client = self.connect(parallel_tools=["watched"])
        held, quick = self.tag("held"), self.tag("quick")
        batch = Batch(client, [call("c1", "watched", tag=held, seconds=HELD),
                               call("c2", "watched", tag=quick, seconds=0)])
        self.started(held)
        self.assertEqual(client.cancel_tool_calls(["c1"]), 1)
        first, second = batch.result(self)
        self.assert_cancelled(first, "c1")
        self.assertEqual((second["tool_call_id"], second["content"], second["is_error"]),
                         ("c2", "slept", False))
        self.assertEqual(self.outcome(held), "cancelled")

    def test_a_pipelined_flight_is_cancelled(self) -> None:
        # three distinct calls, two at a time: each is a Flight, not a volley
        client = self.client = self.connect(parallel_tools=["watched"], tool_concurrency=2)
        tags = [self.tag(str(n)) for n in range(3)]
        batch = Batch(client, [call("c0", "watched", tag=tags[0], seconds=HELD),
                               call("c1", "watched", tag=tags[1], seconds=HELD),
                               call("c2", "watched", tag=tags[2], seconds=0)])
        self.started(tags[0])
        self.started(tags[1])
        self.assertEqual(client.cancel_tool_calls(["c1"]), 1)
        self.assertEqual(self.outcome(tags[1]), "cancelled")
        self.assertEqual(self.outcome(tags[2]), "finished")   # it took c1's place
        self.assertEqual(client.cancel_tool_calls(("c0",)), 1)
        entries = batch.result(self)
        self.assert_cancelled(entries[0], "c0")
        self.assert_cancelled(entries[1], "c1")
        self.assertEqual(entries[2]["content"], "slept")
        self.assertEqual(self.outcome(tags[0]), "cancelled")

    def test_a_call_not_sent_yet_is_never_sent(self) -> None:
        held, queued = self.tag("held"), self.tag("queued")   # serial: one after the other
        batch = Batch(self.client, [call("c1", "watched", tag=held, seconds=HELD),
                                    call(7, "watched", tag=queued, seconds=0)])
        self.started(held)
        self.assertEqual(self.client.cancel_tool_calls(["c1", 7]), 2)
        first, second = batch.result(self)
        self.assert_cancelled(first, "c1")
        self.assert_cancelled(second, 7)   # the id as the model gave it
        self.assertEqual(self.outcome(queued, 0.2), "never started")

    def cancelling_hook(self, ids: list[Any], counts: list[int]) -> Any:
        """An ``on_elicit`` that cancels ``ids`` while its call waits, then accepts."""
        def hook(request: dict[str, Any]) -> dict[str, Any]:
            counts.append(self.client.cancel_tool_calls(ids))
            return {"action": "accept", "content": {"ok": True}}
        return hook

    def test_a_call_cancelled_between_rounds_sends_no_more(self) -> None:
        counts: list[int] = []
        self.client = self.connect(on_elicit=self.cancelling_hook(["c1"], counts))
        entries = self.client.execute_tool_calls([call("c1", "confirm", action="go")])
        self.assertEqual(counts, [1])   # no request in flight: the call is cancelled all the same
        self.assert_cancelled(entries[0], "c1", "confirm")

    def test_pipelined_calls_cancelled_between_rounds(self) -> None:
        for concurrency, size in ((4, 2), (2, 3)):   # a volley; Flights
            with self.subTest(concurrency=concurrency):
                counts: list[int] = []
                ids = [f"c{n}" for n in range(size)]
                self.client = self.connect(on_elicit=self.cancelling_hook(ids, counts),
                                           parallel_tools=["confirm"],
                                           tool_concurrency=concurrency)
                entries = self.client.execute_tool_calls(
                    [call(ident, "confirm", action=ident) for ident in ids])
                self.assertEqual(counts[0], size)   # the first question cancels them all
                for entry, ident in zip(entries, ids):
                    self.assert_cancelled(entry, ident, "confirm")

    def test_through_a_registry(self) -> None:
        registry = Registry()
        registry.add(self.client, prefix="srv")
        registry.add(Registry(), prefix="empty")   # a provider with nothing running
        self.cancel_one(registry, "srv_watched")
        for ids in BAD_IDS:
            with self.subTest(ids=ids), self.assertRaises(MCPClientError):
                registry.cancel_tool_calls(ids)

    def test_through_a_policy_over_a_registry(self) -> None:
        registry = Registry()
        registry.add(self.client, prefix="srv")
        stack = Policy(registry, rules=[{"tool": "srv_watched", "decision": "allow"}])
        self.cancel_one(stack, "srv_watched")
        for ids in BAD_IDS:
            with self.subTest(ids=ids), self.assertRaises(MCPClientError):
                stack.cancel_tool_calls(ids)


class HttpCancelTest(CancelCase):
    live: ClassVar[LiveServer]

    @classmethod
    def setUpClass(cls) -> None:
        super().setUpClass()
        cls.live = LiveServer()

    @classmethod
    def tearDownClass(cls) -> None:
        cls.live.stop()
        super().tearDownClass()

    def test_a_call_in_flight_is_cancelled_and_the_server_told(self) -> None:
        self.client = self.connect(url=self.live.url)
        self.cancel_one(self.client)

    def test_in_the_handshake_era_too(self) -> None:
        self.client = self.connect(url=self.live.url, era="legacy")
        self.cancel_one(self.client)


class WireTest(ClientCase):
    """The message itself, over :class:`~mcp_client.testing.FakeTransport`."""

    def test_the_cancel_names_the_request(self) -> None:
        fake = fake_server(uncached=True)
        fake.on("tools/list", {"tools": [{"name": "t", "inputSchema": {"type": "object"}}]})
        fake.on("tools/call", NO_ANSWER)
        client = self.connect(fake)
        batch = Batch(client, [call("c1", "t")])
        sent = fake.wait_for("tools/call")
        self.assertEqual(client.cancel_tool_calls(["c1"]), 1)
        self.assert_entry(batch.result(self))
        cancel = fake.wait_for("notifications/cancelled")
        self.assertEqual(cancel["params"], {"requestId": sent["id"],
                                            "reason": "cancelled by the caller"})
        fake.push({"jsonrpc": "2.0", "id": sent["id"], "result": {"content": []}})   # late
        fake.on("tools/call", {"content": [{"type": "text", "text": "ok"}]})
        [entry] = client.execute_tool_calls([call("c1", "t")])   # the id may come again
        self.assertEqual(entry["content"], "ok")

    def assert_entry(self, entries: list[dict[str, Any]]) -> None:
        self.assertEqual(entries, [{"role": "tool", "tool_call_id": "c1", "is_error": True,
                                    "content": "the call to t was cancelled"}])


class LayerTest(LeakCheckingTestCase):
    """A layer over a provider without the method cancels nothing, and says so with 0."""

    def test_a_provider_without_the_method(self) -> None:
        class Plain:
            def tools_for_llm(self) -> list[Any]:
                return []

            def execute_tool_calls(self, calls: list[Any]) -> list[Any]:
                return []

        stack = Policy(Plain())
        self.assertEqual(stack.cancel_tool_calls(["c1"]), 0)
        with self.assertRaises(MCPClientError):
            stack.cancel_tool_calls("c1")
        registry = Registry()
        registry.add(Plain(), prefix="p")
        self.assertEqual(registry.cancel_tool_calls(["c1"]), 0)


def holding_server(started: threading.Event, cancelled: threading.Event) -> Any:
    """An SDK server whose ``hold`` tool waits until it is cancelled (told by events)."""
    import anyio
    from mcp.server.mcpserver import MCPServer

    async def hold() -> str:
        """Wait until cancelled."""
        started.set()
        try:
            await anyio.Event().wait()
        except anyio.get_cancelled_exc_class():
            cancelled.set()
            raise
        return "never"

    sdk = MCPServer(name="holding", version="1.0")
    sdk.add_tool(hold)
    return sdk


class LocalServerTest(LeakCheckingTestCase):
    def test_the_in_process_handler_is_cancelled(self) -> None:
        started, cancelled = threading.Event(), threading.Event()
        with LocalServer(holding_server(started, cancelled)) as local:
            batch = Batch(local, [call("c1", "hold")])
            self.assertTrue(started.wait(WAIT))
            self.assertEqual(local.cancel_tool_calls(["c1"]), 1)
            self.assertEqual(batch.result(self), [
                {"role": "tool", "tool_call_id": "c1", "is_error": True,
                 "content": "the call to hold was cancelled"}])
            self.assertTrue(cancelled.wait(WAIT))
            self.assertEqual(local.cancel_tool_calls(["c1"]), 0)
            for ids in BAD_IDS:
                with self.subTest(ids=ids), self.assertRaises(MCPClientError):
                    local.cancel_tool_calls(ids)


class TaskCancelTest(ClientCase):
    def test_a_task_the_call_made_is_cancelled(self) -> None:
        working = threading.Event()
        client = self.connect(args=server("tasks_server.py"), tasks=True,
                              on_task_status=lambda task: working.set())
        batch = Batch(client, [call("c1", "slow_compute", seconds=HELD)])
        self.assertTrue(working.wait(WAIT))
        self.assertEqual(client.cancel_tool_calls(["c1"]), 1)
        self.assertEqual(batch.result(self), [
            {"role": "tool", "tool_call_id": "c1", "is_error": True,
             "content": "the call to slow_compute was cancelled"}])
        seen = [method for method, _ in json_list(text_of(client.call_tool("audit")))]
        self.assertIn("tasks/cancel", seen)


def json_list(text: str) -> list[Any]:
    import json

    value = json.loads(text)
    assert isinstance(value, list)
    return value


class RegistryTest(LeakCheckingTestCase):
    def test_a_provider_that_fails_to_cancel_spares_no_other(self) -> None:
        class Counting:
            def __init__(self, count: int) -> None:
                self.count = count

            def tools_for_llm(self) -> list[Any]:
                return []

            def execute_tool_calls(self, calls: list[Any]) -> list[Any]:
                return []

            def cancel_tool_calls(self, ids: Any) -> int:
                if self.count < 0:
                    raise RuntimeError("no")
                return self.count

        warnings: list[str] = []
        registry = Registry(on_warn=warnings.append)
        for prefix, count in (("a", 2), ("b", -1), ("c", 3)):
            registry.add(Counting(count), prefix=prefix)
        self.assertEqual(registry.cancel_tool_calls(["c1", 2]), 5)
        self.assertEqual(len(warnings), 1)
        self.assertIn("RuntimeError: no", warnings[0])


class CallStopTest(LeakCheckingTestCase):
    """What a stop counts: a call cancelled, not one that had its answer."""

    def pending(self) -> Any:
        from mcp_client.correlator import Correlator

        return Correlator().register("tools/call")

    def test_counts(self) -> None:
        from mcp_client.client._cancel import CallStop

        given_up: list[Any] = []

        def give_up(pending: Any) -> bool:
            given_up.append(pending)
            return True

        unsent = CallStop()
        self.assertTrue(unsent.cancel())   # not sent yet: cancelled all the same
        self.assertFalse(unsent.cancel())   # once
        late = self.pending()
        unsent.attach(late, give_up)
        self.assertEqual(given_up, [late])   # attached after the cancel: given up at once
        finished = CallStop()
        finished.finish()
        self.assertFalse(finished.cancel())
        answered = CallStop()
        answered.attach(self.pending(), lambda p: False)   # the answer won the race
        self.assertFalse(answered.cancel())
        flying = CallStop()
        first, second = self.pending(), self.pending()
        flying.attach(first, lambda p: True)
        flying.attach(second, lambda p: True)
        flying.detach(second)
        self.assertTrue(flying.cancel())
        self.assertTrue(flying.is_set())
