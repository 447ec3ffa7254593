"""Pipelined calls: ``call_tool_async`` and widened batches with no thread waiting per call.

Against real servers: the hand-written chaos echo server (fast, counts
cancellations) and the SDK's dual-era demo server (progress, multi round-trip
requests, legacy server requests).  That no thread waits per call is seen in
the client's pool, which a pipelined call never creates.
"""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from concurrent.futures import FIRST_COMPLETED, Future, InvalidStateError, as_completed
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures import wait as futures_wait
from typing import Any
from unittest import mock

from mcp_client import (Client, MCPClientError, ProtocolError, ServerGone, Timeout,
                        TransportClosed)
from mcp_client.client._deadlines import Deadlines
from mcp_client.testing import FakeTransport
from mcp_client.types import CallToolResult, Notification, text_of

from ..base import ClientCase, LeakCheckingTestCase, discover, wait_until
from ..chaoskit import ChaosCase

#: How long a test waits for something that should happen at once.
WAIT = 30.0


def stats(client: Client) -> dict[str, Any]:
    counts: dict[str, Any] = client.call_tool("stats")["structuredContent"]
    return counts


def call(name: str, arguments: dict[str, Any], ident: str | None = None) -> dict[str, Any]:
    """One model tool call (its id: the name and the arguments, unless given)."""
    return {"id": ident or f"{name}-{json.dumps(arguments)}", "type": "function",
            "function": {"name": name, "arguments": json.dumps(arguments)}}


def echo_calls(count: int) -> list[dict[str, Any]]:
    return [call("echo", {"text": f"t{n}"}, f"c{n}") for n in range(count)]


def short_budget(client: Client, seconds: float) -> None:
    """``request_timeout`` from now on (the SDK server's first answers take longer)."""
    client._connection._requests.default_budget = seconds


def sending(client: Client, tool: str) -> threading.Event:
    """Set once requests calling ``tool`` have been written to the server's stdin."""
    sent = threading.Event()
    transport = client.transport
    send_line = transport.send_line

    def written(data: bytes) -> None:
        send_line(data)
        if f'"name":"{tool}"'.encode() in data:
            sent.set()

    transport.send_line = written  # type: ignore[method-assign]
    return sent


class ChaosEchoTest(ChaosCase):
    """The hand-written echo server: pipelining, timeouts, cancellation, deaths."""

    def ready(self, *args: object, **options: Any) -> Client:
        client = self.chaos_client("echo.py", *args, **options)
        client.list_tools()   # the era is known: calls may be pipelined from now on
        return client

    def test_sixty_four_in_flight_without_a_pool(self) -> None:
        client = self.ready()
        futures = [client.call_tool_async("slow", {"ms": (n * 37) % 16 * 5}) for n in range(32)]
        futures += [client.call_tool_async("echo", {"text": f"e{n}"}) for n in range(32)]
        self.assertEqual([text_of(f.result(10)) for f in futures[32:]],
                         [f"e{n}" for n in range(32)])
        for future in futures[:32]:
            future.result(10)
        self.assertIsNone(client._connection._pools._executor,
                          "a pipelined call needed a pool thread")

    def test_the_first_call_negotiates_on_the_pool(self) -> None:
        client = self.chaos_client("echo.py")
        self.assertEqual(text_of(client.call_tool_async("echo", {"text": "a"}).result(10)), "a")
        self.assertIsNotNone(client._connection._pools._executor)

    def test_a_timeout_fails_the_future_and_cancels_on_the_wire(self) -> None:
        client = self.ready()
        started = time.monotonic()
        future = client.call_tool_async("never", timeout=0.3)
        with self.assertRaises(Timeout) as caught:
            future.result(10)
        self.assertGreaterEqual(time.monotonic() - started, 0.3)
        self.assertEqual((caught.exception.method, caught.exception.seconds), ("tools/call", 0.3))
        self.assertEqual(stats(client)["cancels"], 1)
        self.assertEqual(stats(client)["held"], 0)

    def test_an_earlier_deadline_added_later_is_kept(self) -> None:
        client = self.ready()
        late = client.call_tool_async("never", timeout=30)
        early = client.call_tool_async("never", timeout=0.2)
        with self.assertRaises(Timeout):
            early.result(5)
        self.assertFalse(late.done())

    def test_an_endless_timeout_is_no_budget(self) -> None:
        """Regression: timeout=inf overflowed the deadline thread's wait and killed it."""
        client = self.ready()
        for timeout in (float("inf"), 1e300):
            self.assertEqual(text_of(client.call_tool_async("echo", {"text": "a"},
                                                            timeout=timeout).result(10)), "a")
            self.assertEqual(text_of(client.call_tool("echo", {"text": "b"}, timeout=timeout)),
                             "b")
        forever = client.call_tool_async("never", timeout=float("inf"))
        with self.assertRaises(Timeout):
            client.call_tool_async("never", timeout=0.2).result(10)
        self.assertFalse(forever.done())

    def test_no_budget_means_no_deadline(self) -> None:
        client = self.ready()
        future = client.call_tool_async("slow", {"ms": 50}, timeout=0)
        self.assertEqual(text_of(future.result(10)), "slow")
        self.assertIsNone(client._connection._pools._deadlines)

    def test_close_fails_the_calls_in_flight(self) -> None:
        client = self.ready()
        futures = [client.call_tool_async("never") for _ in range(5)]
        client.close()
        for future in futures:
            with self.assertRaises(TransportClosed):
                future.result(5)
        with self.assertRaises(TransportClosed):
            client.call_tool_async("echo", {"text": "x"}).result(5)

    def test_bad_arguments_are_the_futures_exception(self) -> None:
        client = self.ready()
        for name, arguments in (("", {}), ("echo", [1, 2]), (None, {})):
            with self.subTest(name=name, arguments=arguments):
                with self.assertRaises(MCPClientError):
                    client.call_tool_async(name, arguments).result(5)  # type: ignore[arg-type]
        with self.assertRaises(MCPClientError):
            client.call_tool_async("echo", {"text": "x"}, timeout=-1).result(5)
        with self.assertRaises(MCPClientError):
            client.call_tool_async("echo", {"bad": object()}).result(5)

    def test_a_failed_tool_is_a_result(self) -> None:
        client = self.ready()
        result = client.call_tool_async("no-such-tool").result(10)
        self.assertEqual((result["isError"], text_of(result)), (True, "no tool no-such-tool"))

    def test_a_done_callback_may_call_the_client(self) -> None:
        client = self.ready()
        answered: Future[str] = Future()

        def then(future: Future[CallToolResult]) -> None:
            # A blocking call made on the reader thread could never be answered.
            answered.set_result(text_of(client.call_tool("echo", {"text": "from the callback"})))

        client.call_tool_async("echo", {"text": "first"}).add_done_callback(then)
        self.assertEqual(answered.result(10), "from the callback")

    def test_a_pipelined_future_keeps_every_promise_of_a_future(self) -> None:
        # The pipelined call's Future is made and completed by hand (fewer frames per call):
        # what concurrent.futures offers on a Future must all still hold.
        client = self.ready()
        pending = client.call_tool_async("never")
        self.assertIsInstance(pending, Future)
        self.assertTrue(pending.running())
        self.assertFalse(pending.done())
        self.assertFalse(pending.cancel())   # sent already: nothing to cancel
        self.assertFalse(pending.cancelled())
        with self.assertRaises(FutureTimeout):
            pending.result(0.05)
        with self.assertRaises(FutureTimeout):
            pending.exception(0.05)
        self.assertIn("state=running", repr(pending))
        futures = [client.call_tool_async("echo", {"text": f"w{n}"}) for n in range(16)]
        called: list[str] = []
        futures[0].add_done_callback(lambda f: called.append(text_of(f.result())))
        done, not_done = futures_wait(futures + [pending], timeout=10,
                                      return_when=FIRST_COMPLETED)
        self.assertTrue(done and pending in not_done)
        done, not_done = futures_wait(futures, timeout=10)
        self.assertEqual((len(done), not_done), (16, set()))
        self.assertEqual(sorted(text_of(f.result()) for f in as_completed(futures, timeout=10)),
                         sorted(f"w{n}" for n in range(16)))
        self.assertEqual([f.exception() for f in futures], [None] * 16)
        after: list[str] = []
        futures[1].add_done_callback(lambda f: after.append(text_of(f.result())))   # at once
        self.assertEqual(after, ["w1"])
        wait_until(lambda: bool(called), 5)   # the pool runs a callback added before
        self.assertEqual(called, ["w0"])
        self.assertIn("state=finished returned dict", repr(futures[0]))
        with self.assertRaises(InvalidStateError):
            futures[0].set_result({"content": []})
        self.assertEqual(text_of(futures[0].result()), "w0")

    def test_a_failed_pipelined_future_raises_through_every_door(self) -> None:
        client = self.ready()
        future = client.call_tool_async("never", timeout=0.2)
        waiting: list[BaseException | None] = []
        blocked = threading.Thread(target=lambda: waiting.append(future.exception(10)))
        blocked.start()   # waits in exception(): set_exception must wake it
        with self.assertRaises(Timeout):
            future.result(10)
        blocked.join(10)
        [raised] = waiting
        self.assertIsInstance(raised, Timeout)
        self.assertTrue(future.done())
        with self.assertRaises(InvalidStateError):
            future.set_exception(RuntimeError("twice"))

    def test_a_widened_batch_is_pipelined(self) -> None:
        client = self.ready(tool_concurrency=8, parallel_tools=("echo", "slow"))
        calls = [{"id": f"c{n}", "type": "function",
                  "function": {"name": "echo", "arguments": json.dumps({"text": f"t{n}"})}}
                 for n in range(20)]
        calls.append({"id": "dup", "type": "function",
                      "function": {"name": "echo", "arguments": json.dumps({"text": "t3"})}})
        before = stats(client)["requests"]
        entries = client.execute_tool_calls(calls)
        self.assertEqual([e["tool_call_id"] for e in entries], [c["id"] for c in calls])
        self.assertEqual([e["content"] for e in entries], [f"t{n}" for n in range(20)] + ["t3"])
        self.assertFalse(any(e["is_error"] for e in entries))
        # 20 calls (the duplicate was sent once), the batch's tools/list and this stats call
        self.assertEqual(stats(client)["requests"] - before, 20 + 2)
        self.assertIsNone(client._connection._pools._executor)

    def test_a_pipelined_batch_turns_failures_into_entries(self) -> None:
        client = self.ready(tool_concurrency=8, parallel_tools=("echo", "never"),
                            request_timeout=0.3)
        calls = [{"id": name, "type": "function",
                  "function": {"name": name, "arguments": json.dumps({"text": name})}}
                 for name in ("echo", "never", "nope")]
        entries = client.execute_tool_calls(calls)
        self.assertEqual([e["is_error"] for e in entries], [False, True, True])
        self.assertEqual(entries[0]["content"], "echo")
        self.assertIn("timed out", entries[1]["content"])
        self.assertIn("unknown tool", entries[2]["content"])
        self.assertIsNone(client._connection._pools._executor)

    def test_a_bug_in_the_client_is_logged_and_becomes_an_entry(self) -> None:
        client = self.ready(tool_concurrency=8, parallel_tools=("echo",))

        shaped = client._connection._requests.shaped

        def broken(info: Any, method: str, answer: Any, tasks: bool = False) -> Any:
            if method == "tools/call":
                raise RuntimeError("a bug")
            return shaped(info, method, answer, tasks)

        client._connection._requests.shaped = broken  # type: ignore[method-assign]
        calls = [{"id": f"c{n}", "type": "function",
                  "function": {"name": "echo", "arguments": json.dumps({"text": str(n)})}}
                 for n in range(2)]
        with self.assertLogs("mcp_client.client._flights", "ERROR") as logged:
            entries = client.execute_tool_calls(calls)
        self.assertEqual([e["is_error"] for e in entries], [True, True])
        self.assertIn("a bug", entries[0]["content"])
        self.assertIn("failed inside the client", logged.output[0])
        with self.assertRaises(RuntimeError):
            client.call_tool_async("echo", {"text": "x"}).result(10)

    def test_a_batch_within_the_concurrency_keeps_no_deadline_thread(self) -> None:
        # the batch's own thread keeps its timeout while it reads the answers
        client = self.ready(tool_concurrency=8, parallel_tools=("echo",), request_timeout=5)
        entries = client.execute_tool_calls(echo_calls(4))
        self.assertEqual([e["content"] for e in entries], [f"t{n}" for n in range(4)])
        self.assertIsNone(client._connection._pools._deadlines)
        self.assertEqual([t.name for t in threading.enumerate()
                          if t.name.startswith("mcp-deadlines-")], [])

    def test_a_batch_that_times_out_cancels_on_the_wire(self) -> None:
        client = self.ready(tool_concurrency=8, parallel_tools=("echo", "never"),
                            request_timeout=0.3)
        calls = [call("never", {"n": 1}), call("echo", {"text": "kept"}), call("never", {"n": 2})]
        entries = client.execute_tool_calls(calls)
        self.assertEqual([e["is_error"] for e in entries], [True, False, True])
        self.assertEqual(entries[0]["content"], "the call to never timed out after 0.3s")
        self.assertEqual(entries[1]["content"], "kept")
        counts = stats(client)
        self.assertEqual((counts["cancels"], counts["held"]), (2, 0))
        self.assertEqual(client._connection.pending, 0)

    def batch_of_nevers(self) -> tuple[Client, threading.Thread, list[Any]]:
        """A batch of two calls that are never answered, on a thread, once it is sent."""
        client = self.ready(tool_concurrency=8, parallel_tools=("never",), request_timeout=0)
        sent = sending(client, "never")
        entries: list[Any] = []
        batch = threading.Thread(target=lambda: entries.extend(client.execute_tool_calls(
            [call("never", {"n": 1}), call("never", {"n": 2})])), name="batch")
        batch.start()
        self.assertTrue(sent.wait(WAIT))
        return client, batch, entries

    def test_close_ends_a_batch_in_flight(self) -> None:
        client, batch, entries = self.batch_of_nevers()
        client.close()
        batch.join(WAIT)
        self.assertFalse(batch.is_alive())
        self.assertEqual([e["content"] for e in entries],
                         ["the connection to the server is closed; never could not run"] * 2)

    def test_the_server_dies_under_a_batch(self) -> None:
        client, batch, entries = self.batch_of_nevers()
        os.kill(client.transport.pid, signal.SIGKILL)  # type: ignore[attr-defined]
        batch.join(WAIT)
        self.assertFalse(batch.is_alive())
        self.assertEqual([e["content"] for e in entries],
                         ["the server is gone (killed by SIGKILL); never could not run"] * 2)

    def test_the_server_dies_with_calls_in_flight(self) -> None:
        client = self.ready()
        futures = [client.call_tool_async("never") for _ in range(4)]
        os.kill(client.transport.pid, signal.SIGKILL)  # type: ignore[attr-defined]
        for future in futures:
            with self.assertRaises(ServerGone) as caught:
                future.result(10)
            self.assertEqual(caught.exception.exit_code, -9)
        with self.assertRaises(ServerGone):   # at once, as on the pool path
            client.call_tool_async("echo", {"text": "x"})


class RealServerTest(ClientCase):
    """The SDK's demo server: progress, multi round-trip and legacy requests, pipelined."""

    script = "dual_stdio.py"

    def connected(self, era: str, **options: Any) -> Client:
        """A client of the demo server that has listed its tools."""
        client = self.connect(era=era, **options)
        client.list_tools()
        return client

    def test_input_required_completes_off_the_reader(self) -> None:
        for era in ("auto", "legacy"):
            with self.subTest(era=era):
                asked = threading.Event()

                def elicit(request: dict[str, Any]) -> dict[str, Any]:
                    asked.set()
                    return {"action": "accept", "content": {"name": "Ada"}}

                client = self.connected(era, on_elicit=elicit)
                futures = [client.call_tool_async("greet") for _ in range(3)]
                futures.append(client.call_tool_async("echo", {"text": "beside"}))
                self.assertEqual([text_of(f.result(30)) for f in futures],
                                 ["Hello, Ada!"] * 3 + ["beside"])
                self.assertTrue(asked.is_set())
                client.close()

    def test_input_required_in_a_batch(self) -> None:
        for era in ("auto", "legacy"):
            with self.subTest(era=era):
                client = self.connected(era, tool_concurrency=8, parallel_tools=("greet", "echo"),
                                        on_elicit=lambda request: {"action": "accept",
                                                                   "content": {"name": "Ada"}})
                entries = client.execute_tool_calls([call("greet", {}), call("echo", {
                    "text": "beside"}), call("greet", {}, "again")])
                self.assertEqual([(e["tool_call_id"], e["content"]) for e in entries],
                                 [("greet-{}", "Hello, Ada!"), ('echo-{"text": "beside"}',
                                                                "beside"),
                                  ("again", "Hello, Ada!")])
                client.close()

    def test_progress_stretches_a_batchs_timeouts(self) -> None:
        reports: list[dict[str, Any]] = []
        client = self.connected("auto", on_progress=reports.append,
                                reset_timeout_on_progress=True, tool_concurrency=8,
                                parallel_tools=("count",))
        short_budget(client, 0.4)
        entries = client.execute_tool_calls([call("count", {"n": 6}, "six"),
                                             call("count", {"n": 7}, "seven")])
        self.assertEqual([e["content"] for e in entries], ["counted to 6", "counted to 7"])
        self.assertEqual(sorted((r["tool_call_id"], r["progress"]) for r in reports),
                         sorted([("six", n) for n in range(1, 7)] +
                                [("seven", n) for n in range(1, 8)]))

    def test_without_stretching_a_batch_times_out(self) -> None:
        client = self.connected("auto", on_progress=lambda report: None, tool_concurrency=8,
                                parallel_tools=("count", "echo"))
        short_budget(client, 0.4)
        entries = client.execute_tool_calls([call("count", {"n": 8}),
                                             call("echo", {"text": "quick"})])
        self.assertEqual([e["content"] for e in entries],
                         ["the call to count timed out after 0.4s", "quick"])

    def test_max_total_timeout_caps_a_batchs_stretching(self) -> None:
        client = self.connected("auto", on_progress=lambda report: None,
                                reset_timeout_on_progress=True, max_total_timeout=0.35,
                                tool_concurrency=8, parallel_tools=("count", "echo"))
        short_budget(client, 0.25)
        started = time.monotonic()
        entries = client.execute_tool_calls([call("count", {"n": 20}),
                                             call("echo", {"text": "quick"})])
        self.assertEqual([e["content"] for e in entries],
                         ["the call to count timed out after 0.25s", "quick"])
        self.assertLess(time.monotonic() - started, 1.5)

    def test_a_servers_error_in_a_batch_is_its_entry(self) -> None:
        for era in ("auto", "legacy"):
            with self.subTest(era=era):
                client = self.connected(era, on_sample=lambda request: None, tool_concurrency=8,
                                        parallel_tools=("ask_llm", "echo"))
                entries = client.execute_tool_calls([call("ask_llm", {}),
                                                     call("echo", {"text": "beside"})])
                self.assertEqual([e["is_error"] for e in entries], [True, False])
                self.assertIn("ask_llm", entries[0]["content"])
                self.assertEqual(entries[1]["content"], "beside")
                self.assertIsNone(client._connection._pools._executor)
                client.close()

    def test_a_protocol_error_is_raised_from_the_future(self) -> None:
        for era, code in (("auto", None), ("legacy", -1)):
            with self.subTest(era=era):
                client = self.connected(era, on_sample=lambda request: None)
                with self.assertRaises(ProtocolError) as caught:
                    client.call_tool_async("ask_llm").result(30)
                if code is not None:
                    self.assertEqual(caught.exception.code, code)
                self.assertIsNone(client._connection._pools._executor)
                client.close()

    def test_close_returns_while_a_hook_still_answers(self) -> None:
        entered = threading.Event()
        release = threading.Event()
        self.addCleanup(release.set)

        def elicit(request: dict[str, Any]) -> dict[str, Any]:
            entered.set()
            release.wait(WAIT)
            return {"action": "accept", "content": {"name": "Ada"}}

        client = self.connected("auto", on_elicit=elicit, kill_grace=0.5)
        future = client.call_tool_async("greet")
        self.assertTrue(entered.wait(WAIT))
        closer = threading.Thread(target=client.close, name="closer")
        closer.start()
        closer.join(0.5 + 1.5)   # kill_grace, and the hook's half second
        self.assertFalse(closer.is_alive(), "close() waited for the hook")
        rounds = [t for t in threading.enumerate() if t.name.startswith("mcp-client-rounds-")]
        self.assertEqual(len(rounds), 1, "the hook's thread was not still running")
        self.assertFalse(future.done())
        release.set()
        rounds[0].join(WAIT)
        with self.assertRaises(TransportClosed):
            future.result(WAIT)

    def test_progress_stretches_the_timeout(self) -> None:
        reports: list[dict[str, Any]] = []
        client = self.connected("auto", on_progress=reports.append,
                                reset_timeout_on_progress=True)
        future = client.call_tool_async("count", {"n": 8}, timeout=0.4)
        self.assertEqual(text_of(future.result(30)), "counted to 8")
        self.assertEqual(len(reports), 8)

    def test_without_stretching_the_same_call_times_out(self) -> None:
        client = self.connected("auto", on_progress=lambda report: None)
        with self.assertRaises(Timeout):
            client.call_tool_async("count", {"n": 8}, timeout=0.4).result(30)

    def test_max_total_timeout_caps_the_stretching(self) -> None:
        client = self.connected("auto", on_progress=lambda report: None,
                                reset_timeout_on_progress=True, max_total_timeout=0.35)
        started = time.monotonic()
        with self.assertRaises(Timeout):
            client.call_tool_async("count", {"n": 20}, timeout=0.25).result(30)
        self.assertLess(time.monotonic() - started, 1.5)

    def test_a_callers_progress_token(self) -> None:
        client = self.connected("auto")
        notes: list[Notification] = []
        client.notifications.subscribe(notes.append)
        client.call_tool_async("count", {"n": 2}, progress_token="mine").result(30)
        self.assertEqual([n["params"]["progressToken"] for n in notes
                          if n["method"] == "notifications/progress"], ["mine", "mine"])


class FakeTransportTest(LeakCheckingTestCase):
    """A wire that does not pipeline keeps the pool path."""

    def test_a_wire_that_may_block_is_not_pipelined(self) -> None:
        self.assertFalse(FakeTransport.pipelines)
        self.assertTrue(__import__("mcp_client.stdio").stdio.StdioTransport.pipelines)

    def test_close_waits_for_a_round_in_its_backoff(self) -> None:
        fake = FakeTransport()
        fake.pipelines = True   # its send never blocks: answers come from a thread of its own
        fake.on("server/discover", discover({"tools": {}}))
        fake.on("tools/list", {"tools": []})
        fake.on("tools/call", {"resultType": "input_required", "requestState": "busy"})
        client = Client(transport=fake)
        self.addCleanup(client.close)
        client.list_tools()
        future = client.call_tool_async("t")
        fake.wait_for("tools/call", 4, WAIT)   # the retry loop, on its own thread, backs off
        wait_until(lambda: client._connection.pending == 0, WAIT)   # answered: now it waits 250 ms
        client.close()
        self.assertEqual([t.name for t in threading.enumerate()
                          if t.name.startswith("mcp-client-rounds-")], [])
        with self.assertRaises(TransportClosed):
            future.result(WAIT)


class DeadlinesTest(LeakCheckingTestCase):
    def test_due_in_deadline_order_and_stretched(self) -> None:
        keeper = Deadlines("test-deadlines")
        self.addCleanup(keeper.stop)
        fired: list[str] = []
        done = threading.Event()
        now = time.monotonic()
        stretched = [False]

        def due(name: str) -> Any:
            def on_due(at: float) -> float | None:
                fired.append(name)
                if name == "b" and not stretched[0]:
                    stretched[0] = True
                    return at + 0.05
                if len(fired) == 4:
                    done.set()
                return None
            return on_due

        keeper.add("a", now + 0.8, due("a"))
        keeper.add("b", now + 0.05, due("b"))
        keeper.add("c", now + 60, due("c"))
        keeper.add("d", now + 0.5, due("d"))
        keeper.discard("c")
        self.assertTrue(done.wait(5))
        self.assertEqual(fired, ["b", "b", "d", "a"])

    def test_a_thread_that_cannot_start_is_tried_again(self) -> None:
        keeper = Deadlines("test-deadlines")
        self.addCleanup(keeper.stop)
        with mock.patch.object(threading.Thread, "start",
                               side_effect=RuntimeError("can't start new thread")):
            with self.assertRaises(RuntimeError):
                keeper.add("a", time.monotonic(), lambda at: None)
        fired = threading.Event()
        keeper.add("b", time.monotonic() + 0.05, lambda at: fired.set())
        self.assertTrue(fired.wait(5))
        keeper.stop()

    def test_a_stopped_keeper_refuses(self) -> None:
        keeper = Deadlines("test-deadlines")
        keeper.add("a", time.monotonic() + 60, lambda at: None)
        keeper.stop()
        with self.assertRaises(TransportClosed):
            keeper.add("b", time.monotonic() + 1, lambda at: None)
