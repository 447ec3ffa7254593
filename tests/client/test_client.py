"""Client behaviour over FakeTransport: options, pagination, timeouts, cancellation, close."""

from __future__ import annotations

import pickle
import threading
from concurrent.futures import Future
from typing import Any

from mcp_client import (Cancelled, Client, MCPClientError, ProtocolError, ServerGone, Timeout,
                        TransportClosed, UnsupportedVersion)
from mcp_client.testing import NO_ANSWER, Error, FakeTransport, Raw
from mcp_client.transport import Transport
from mcp_client.types import Notification, text_of

from ..base import ClientCase, fake_server


def modern_fake() -> FakeTransport:
    return fake_server(uncached=True)


class ClientTestCase(ClientCase):
    def connect(self, transport: Transport | None = None, **options: Any) -> Client:
        """Over ``transport``, or a new ``modern_fake()`` (``self.fake``)."""
        return super().connect(transport or modern_fake(), **options)


class OptionsTest(ClientTestCase):
    def test_unknown_option_names_the_closest(self) -> None:
        with self.assertRaises(MCPClientError) as caught:
            Client(transport=FakeTransport(), on_elicits=print)
        self.assertEqual(str(caught.exception),
                         "unknown option: on_elicits (did you mean on_elicit?)")
        with self.assertRaises(MCPClientError) as caught:
            Client(transport=FakeTransport(), zzz=1)
        self.assertEqual(str(caught.exception), "unknown option: zzz")

    def test_transport_options_are_refused_beside_a_transport(self) -> None:
        for name, value in [("args", ["x"]), ("on_stderr", print), ("headers", {}),
                            ("kill_grace", 1)]:
            with self.subTest(name), self.assertRaises(MCPClientError) as caught:
                Client(transport=FakeTransport(), **{name: value})
            self.assertIn("nothing is left for it to configure", str(caught.exception))

    def test_legacy_version_in_protocol_versions(self) -> None:
        with self.assertRaises(UnsupportedVersion):
            Client(transport=FakeTransport(), protocol_versions=["2025-11-25"])

    def test_bad_values(self) -> None:
        bad = [("request_timeout", -1), ("request_timeout", "60"), ("probe_timeout", 0),
               ("log_level", "loud"), ("on_elicit", "yes"), ("era", "newest"),
               ("protocol_versions", "2026-07-28"), ("protocol_versions", []),
               ("protocol_versions", ["soon"]), ("max_input_rounds", -1),
               ("tool_concurrency", 0), ("client_capabilities", []), ("parallel_tools", "x"),
               ("client_name", 5)]
        for name, value in bad:
            with self.subTest(name=name, value=value), self.assertRaises(MCPClientError):
                Client(transport=FakeTransport(), **{name: value})

    def test_a_transport_is_required(self) -> None:
        with self.assertRaises(MCPClientError):
            Client()

    def test_declared_capabilities_follow_the_hooks(self) -> None:
        def hook(request: dict[str, Any]) -> dict[str, Any]:
            return {}

        skills: dict[str, Any] = {"extensions": {"io.modelcontextprotocol/skills": {}}}
        self.assertEqual(self.connect().declared_capabilities, skills)
        client = self.connect(on_elicit=hook, on_sample=hook, on_list_roots=hook)
        self.assertEqual(client.declared_capabilities,
                         {"elicitation": {"form": {}}, "sampling": {}, "roots": {}, **skills})
        client = self.connect(on_elicit=hook,
                              client_capabilities={"elicitation": {"form": {}, "url": {}}})
        self.assertEqual(client.declared_capabilities, {"elicitation": {"form": {}, "url": {}}})


class PaginationTest(ClientTestCase):
    def test_three_pages_with_an_empty_string_cursor(self) -> None:
        fake = modern_fake()
        pages = {None: {"tools": [{"name": "a"}], "nextCursor": ""},
                 "": {"tools": [{"name": "b"}], "nextCursor": "p3"},
                 "p3": {"tools": [{"name": "c"}]}}
        fake.on("tools/list", lambda m: pages[m["params"].get("cursor")])
        client = self.connect(fake)
        self.assertEqual([t["name"] for t in client.list_tools()], ["a", "b", "c"])
        cursors = [m["params"].get("cursor", None) for m in fake.requests("tools/list")]
        self.assertEqual(cursors, [None, "", "p3"])

    def test_a_repeated_cursor_stops(self) -> None:
        fake = modern_fake()
        fake.on("resources/list", {"resources": [{"uri": "x"}], "nextCursor": "again"})
        client = self.connect(fake)
        with self.assertRaises(ProtocolError) as caught:
            client.list_resources()
        self.assertIn("repeated cursor", str(caught.exception))
        self.assertEqual(len(fake.requests("resources/list")), 2)

    def test_other_lists(self) -> None:
        fake = modern_fake()
        fake.on("prompts/list", {"prompts": [{"name": "p"}], "ttlMs": 0, "cacheScope": "x"})
        fake.on("resources/templates/list", {"resourceTemplates": [{"uriTemplate": "a/{b}"}]})
        client = self.connect(fake)
        self.assertEqual(client.list_prompts(), [{"name": "p"}])
        self.assertEqual(client.list_resource_templates(), [{"uriTemplate": "a/{b}"}])

    def test_one_list_call_is_bounded_in_entries_across_its_pages(self) -> None:
        fake = modern_fake()
        page = [{"name": f"t{n}"} for n in range(40_000)]
        pages = {None: {"tools": page, "nextCursor": "2"}, "2": {"tools": page, "nextCursor": "3"},
                 "3": {"tools": page}}
        fake.on("tools/list", lambda m: pages[m["params"].get("cursor")])
        client = self.connect(fake)
        with self.assertRaises(ProtocolError) as caught:
            client.list_tools()
        self.assertEqual(caught.exception.message,
                         "tools/list: more than 100000 entries across its pages; giving up")
        self.assertEqual(caught.exception.data, {"limit": 100_000})
        self.assertEqual(len(fake.requests("tools/list")), 3)

    def test_a_page_that_is_not_a_list(self) -> None:
        fake = modern_fake()
        fake.on("tools/list", {"tools": {"name": "a"}})
        with self.assertRaises(ProtocolError):
            self.connect(fake).list_tools()


class CallTest(ClientTestCase):
    def test_arguments_too_deep_to_encode_on_a_fake_wire(self) -> None:
        """Regression: FakeTransport.send let RecursionError out (stdio raises MCPClientError)."""
        fake = modern_fake()
        fake.on("tools/call", {"content": []})
        client = self.connect(fake)
        deep: Any = 0
        for _ in range(5000):
            deep = [deep]
        with self.assertRaises(MCPClientError) as caught:
            client.call_tool("t", {"deep": deep})
        self.assertIn("cannot encode", str(caught.exception))
        self.assertEqual(client.call_tool("t"), {"content": []})

    def test_results_are_shaped_and_errors_raised(self) -> None:
        fake = modern_fake()
        fake.on("tools/call", {"resultType": "complete", "isError": True, "_meta": {},
                               "content": [{"type": "text", "text": "no"}]})
        fake.on("resources/read", Error(-32602, "Unknown resource", {"uri": "res://nope"}))
        fake.on("prompts/get", {"messages": [], "description": "d"})
        client = self.connect(fake)
        self.assertEqual(client.call_tool("t", {"a": 1}),
                         {"content": [{"type": "text", "text": "no"}], "isError": True})
        self.assertEqual(fake.requests("tools/call")[0]["params"]["arguments"], {"a": 1})
        with self.assertRaises(ProtocolError) as caught:
            client.read_resource("res://nope")
        self.assertEqual((caught.exception.code, caught.exception.data),
                         (-32602, {"uri": "res://nope"}))
        self.assertEqual(client.get_prompt("p", {"code": "x"}),
                         {"messages": [], "description": "d"})

    def test_a_protocol_error_names_the_method_it_answered(self) -> None:
        fake = modern_fake()
        fake.on("prompts/get", Error(-32601, "Method not found"))
        client = self.connect(fake)
        with self.assertRaises(ProtocolError) as caught:
            client.get_prompt("p")
        self.assertEqual(caught.exception.method, "prompts/get")
        self.assertEqual(str(caught.exception), "prompts/get: Method not found (code -32601)")
        again = pickle.loads(pickle.dumps(caught.exception))
        self.assertEqual((type(again), str(again), again.method),
                         (ProtocolError, str(caught.exception), "prompts/get"))

    def test_an_unknown_result_type_is_a_protocol_error(self) -> None:
        fake = modern_fake()
        fake.on("tools/call", {"resultType": "task", "taskId": "1"})
        with self.assertRaises(ProtocolError):
            self.connect(fake).call_tool("t")

    def test_bad_arguments_are_refused_before_the_wire(self) -> None:
        client = self.connect()
        for call in (lambda: client.call_tool("", {}),
                     lambda: client.call_tool("t", [1]),  # type: ignore[arg-type]
                     lambda: client.call_tool("t", {"x": object()}),
                     lambda: client.call_tool("t", {"x": float("nan")}),
                     lambda: client.call_tool("t", progress_token=1.5),  # type: ignore[arg-type]
                     lambda: client.call_tool("t", timeout=-1),
                     lambda: client.call_tool("t", cancelled=True),
                     lambda: client.read_resource(None)):  # type: ignore[arg-type]
            with self.assertRaises(MCPClientError):
                call()
        self.assertEqual(self.fake.requests("tools/call"), [])

    def test_progress_token_rides_in_meta(self) -> None:
        fake = modern_fake()
        fake.on("tools/call", {"content": []})
        self.connect(fake).call_tool("t", progress_token="tok-1")
        meta = fake.requests("tools/call")[0]["params"]["_meta"]
        self.assertEqual(meta["progressToken"], "tok-1")

    def test_ping(self) -> None:
        fake = modern_fake()
        fake.on("ping", Error(-32601, "Method not found", "ping"))
        client = self.connect(fake)
        self.assertFalse(client.ping())
        self.assertEqual([m["method"] for m in fake.requests()], ["server/discover", "ping"])
        fake = FakeTransport()
        fake.on("server/discover", Error(-32601, "nope"))
        fake.on("initialize", {"protocolVersion": "2025-11-25", "capabilities": {}})
        fake.on("ping", {})
        self.assertTrue(self.connect(fake).ping())
        fake = modern_fake()
        fake.on("ping", Error(-32603, "internal"))
        with self.assertRaises(ProtocolError):
            self.connect(fake).ping()

    def test_sixty_four_async_calls_answered_out_of_order(self) -> None:
        fake = modern_fake()
        fake.on("tools/call", {"content": []}, hold=True)
        client = self.connect(fake)
        futures = [client.call_tool_async("t", {"n": n}) for n in range(64)]
        fake.wait_for("tools/call", 64)
        calls = fake.requests("tools/call")
        for message in reversed(calls):   # answer in the reverse order
            fake.push({"jsonrpc": "2.0", "id": message["id"],
                       "result": {"content": [{"type": "text",
                                               "text": str(message["params"]["arguments"]["n"])}]}})
        self.assertEqual([text_of(f.result(10)) for f in futures],
                         [str(n) for n in range(64)])
        fake.release()

    def test_an_error_with_a_null_id_and_several_pending_is_reported(self) -> None:
        fake = modern_fake()
        fake.on("tools/call", NO_ANSWER)
        client = self.connect(fake)
        futures = [client.call_tool_async("t", timeout=0.3) for _ in range(2)]
        fake.wait_for("tools/call", 2)
        fake.push({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse"}})
        for future in futures:
            with self.assertRaises(Timeout):
                future.result(10)
        self.assertTrue(any("nobody can be told" in w for w in self.warnings))


class TimeoutAndCancelTest(ClientTestCase):
    def test_a_timeout_cancels_on_the_wire_and_the_connection_survives(self) -> None:
        fake = modern_fake()
        fake.on("tools/call", NO_ANSWER, {"content": [{"type": "text", "text": "ok"}]})
        client = self.connect(fake)
        with self.assertRaises(Timeout) as caught:
            client.call_tool("slow", timeout=0.2)
        self.assertEqual((caught.exception.method, caught.exception.seconds), ("tools/call", 0.2))
        first = fake.requests("tools/call")[0]
        cancel = fake.wait_for("notifications/cancelled")
        self.assertEqual(cancel["params"]["requestId"], first["id"])
        self.assertIn("timed out", cancel["params"]["reason"])
        fake.push({"jsonrpc": "2.0", "id": first["id"], "result": {"content": []}})  # late
        self.assertEqual(text_of(client.call_tool("fast")), "ok")
        self.assertTrue(any("late answer" in w for w in self.warnings), self.warnings)

    def test_request_timeout_is_the_default_and_zero_means_none(self) -> None:
        fake = modern_fake()
        fake.on("tools/call", NO_ANSWER)
        client = self.connect(fake, request_timeout=0.2)
        with self.assertRaises(Timeout) as caught:
            client.call_tool("t")
        self.assertEqual(caught.exception.seconds, 0.2)
        stop = threading.Event()
        future = client.call_tool_async("t", timeout=0, cancelled=stop)
        fake.wait_for("tools/call", 2)
        self.assertFalse(future.done())
        stop.set()
        with self.assertRaises(Cancelled):
            future.result(10)

    def test_cancel_with_an_event(self) -> None:
        fake = modern_fake()
        fake.on("tools/call", NO_ANSWER)
        client = self.connect(fake)
        stop = threading.Event()
        future = client.call_tool_async("crawl", cancelled=stop)
        sent = fake.wait_for("tools/call")
        stop.set()
        with self.assertRaises(Cancelled) as caught:
            future.result(10)
        self.assertEqual(caught.exception.method, "tools/call")
        cancel = fake.wait_for("notifications/cancelled")
        self.assertEqual(cancel["params"], {"requestId": sent["id"],
                                            "reason": "cancelled by the caller"})

    def test_cancel_with_a_future(self) -> None:
        fake = modern_fake()
        fake.on("resources/read", NO_ANSWER)
        client = self.connect(fake)
        stop: Future[bool] = Future()
        future = client.read_resource_async("res://x", cancelled=stop)
        fake.wait_for("resources/read")
        stop.set_result(True)
        with self.assertRaises(Cancelled):
            future.result(10)

    def test_the_probe_and_initialize_are_never_cancelled(self) -> None:
        fake = FakeTransport()
        fake.on("server/discover", NO_ANSWER)
        fake.on("initialize", NO_ANSWER)
        client = self.connect(fake, probe_timeout=0.1, request_timeout=0.2)
        with self.assertRaises(Timeout) as caught:
            client.era   # waits for the negotiation itself, under its own budgets
        self.assertEqual(caught.exception.method, "initialize")
        self.assertEqual(fake.notifications("notifications/cancelled"), [])

    def test_a_call_that_sets_off_the_probe_keeps_its_own_budget(self) -> None:
        fake = FakeTransport()
        fake.on("server/discover", NO_ANSWER)
        fake.on("initialize", NO_ANSWER)
        client = self.connect(fake, probe_timeout=5, request_timeout=60)
        with self.assertRaises(Timeout) as caught:
            client.call_tool("t", timeout=0.2)
        self.assertEqual((caught.exception.method, caught.exception.seconds), ("tools/call", 0.2))
        stop = threading.Event()
        stop.set()
        with self.assertRaises(Cancelled):
            client.call_tool("t", cancelled=stop)
        self.assertEqual([m["method"] for m in fake.requests()], ["server/discover"])


class CloseTest(ClientTestCase):
    def test_close_fails_outstanding_calls_and_is_idempotent(self) -> None:
        fake = modern_fake()
        fake.on("tools/call", NO_ANSWER)
        client = self.connect(fake)
        futures = [client.call_tool_async("t") for _ in range(3)]
        fake.wait_for("tools/call", 3)
        done = threading.Event()
        client.notifications.subscribe(lambda n: None, on_done=done.set)
        client.close()
        client.close()
        for future in futures:
            with self.assertRaises(TransportClosed):
                future.result(10)
        self.assertTrue(done.is_set())
        with self.assertRaises(TransportClosed):
            client.call_tool("t")
        with self.assertRaises(TransportClosed):
            client.call_tool_async("t")
        self.assertIn("closed", repr(client))

    def test_context_manager(self) -> None:
        fake = modern_fake()
        with Client(transport=fake) as client:
            self.assertEqual(client.era, "modern")
        self.assertTrue(client.closed and fake.closed)

    def test_server_death_fails_pending_calls_with_its_last_words(self) -> None:
        fake = modern_fake()
        fake.on("tools/call", NO_ANSWER)
        client = self.connect(fake)
        future = client.call_tool_async("t")
        fake.wait_for("tools/call")
        fake.die(3, "fatal: out of cheese")
        with self.assertRaises(ServerGone) as caught:
            future.result(10)
        self.assertEqual((caught.exception.exit_code, caught.exception.stderr_tail),
                         (3, "fatal: out of cheese"))
        with self.assertRaises(ServerGone):
            client.call_tool("t")
        self.assertIn("dead", repr(client))
        client.close()

    def test_the_connection_state_open_dead_closed(self) -> None:
        fake = modern_fake()
        fake.on("tools/call", NO_ANSWER)
        client = self.connect(fake)
        connection = client._connection
        self.assertEqual(repr(connection), "<Connection unprobed open pending=0>")
        future = client.call_tool_async("t")
        fake.wait_for("tools/call")
        self.assertEqual(repr(connection), "<Connection modern 2026-07-28 open pending=1>")
        self.assertEqual((connection.state, connection.dead), ("open", None))
        fake.die(3)
        with self.assertRaises(ServerGone):
            future.result(10)
        self.assertEqual(connection.state, "dead")
        self.assertIsInstance(connection.dead, ServerGone)
        self.assertEqual(repr(connection), "<Connection modern 2026-07-28 dead pending=0>")
        client.close()
        self.assertEqual((connection.state, connection.dead), ("closed", None))
        self.assertEqual(repr(connection), "<Connection modern 2026-07-28 closed pending=0>")


class NotificationsAndServerRequestsTest(ClientTestCase):
    def test_subscribers_see_what_arrives_after_they_subscribe(self) -> None:
        client = self.connect()
        client.era
        seen: list[Notification] = []
        arrived = threading.Event()

        def record(note: Notification) -> None:
            seen.append(note)
            if note["method"] == "notifications/two":
                arrived.set()

        def broken(note: Notification) -> None:
            raise RuntimeError("subscriber bug")

        client.notifications.subscribe(broken)
        subscription = client.notifications.subscribe(record)
        self.fake.notify("notifications/one", {"a": 1})
        self.fake.notify("notifications/two")
        self.assertTrue(arrived.wait(5))
        self.assertEqual([n["method"] for n in seen], ["notifications/one", "notifications/two"])
        self.assertTrue(any("subscriber raised" in w for w in self.warnings))
        subscription.unsubscribe()
        self.fake.notify("notifications/three")
        self.fake.notify("notifications/sync")
        client.ping()   # ordering: the notifications were delivered before this answer
        self.assertEqual(len(seen), 2)

    def test_server_ping_and_unknown_requests(self) -> None:
        fake = FakeTransport()
        fake.on("server/discover", Error(-32601, "nope"))
        fake.on("initialize", {"protocolVersion": "2025-11-25", "capabilities": {}})
        client = self.connect(fake)
        client.era
        pong = fake.request("ping", ident=1)
        unknown = fake.request("bogus/method", {}, ident=2)
        self.assertEqual(pong.result(5), {"jsonrpc": "2.0", "id": 1, "result": {}})
        self.assertEqual(unknown.result(5)["error"]["code"], -32601)

    def test_invalid_messages_are_reported(self) -> None:
        client = self.connect()
        client.era
        self.fake.push({"jsonrpc": "2.0", "id": [1], "result": {}})
        self.fake.push(Raw({"x": 1}).message)
        client.ping()
        self.assertEqual(sum("not JSON-RPC" in w for w in self.warnings), 2)
