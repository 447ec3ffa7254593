"""Tools run as tasks on 2026-07-28 servers (the ``io.modelcontextprotocol/tasks``
extension): the state machine's edges against a scripted server."""

from __future__ import annotations

import threading
from typing import Any

from mcp_client import Cancelled, Client, InputLoopExceeded, MCPClientError, ProtocolError, \
    Timeout, TransportClosed
from mcp_client.testing import Error, FakeTransport

from ..base import ClientCase, discover, fake_server
from .test_tasks import close_ends_a_paused_call

EXT = "io.modelcontextprotocol/tasks"
CAPS = "io.modelcontextprotocol/clientCapabilities"
V = "2026-07-28"
LONG = {"name": "long", "inputSchema": {"type": "object"},
        "execution": {"taskSupport": "required"}}
MAYBE = {"name": "maybe", "inputSchema": {"type": "object"},
         "execution": {"taskSupport": "optional"}}
PLAIN = {"name": "plain", "inputSchema": {"type": "object"}}
DONE = {"content": [{"type": "text", "text": "done"}]}
ASK: dict[str, Any] = {"method": "elicitation/create", "params": {
    "mode": "form", "message": "Name?", "requestedSchema": {
        "type": "object", "properties": {"name": {"type": "string"}}}}}


def task(status: str, **extra: Any) -> dict[str, Any]:
    return {"resultType": "complete", "taskId": "t1", "status": status, "pollIntervalMs": 10,
            "ttlMs": 60000, "createdAt": "2026-12-01T00:00:00Z",
            "lastUpdatedAt": "2026-12-01T00:00:00Z", **extra}


def created(status: str = "working") -> dict[str, Any]:
    return {**task(status), "resultType": "task"}


def declared(message: dict[str, Any]) -> bool:
    caps = message["params"]["_meta"][CAPS]
    return EXT in caps.get("extensions", {})


class ModernCase(ClientCase):
    def modern(self, *gets: Any, extension: bool = True, **options: Any) -> Client:
        self.fake = FakeTransport()
        caps: dict[str, Any] = {"tools": {}}
        if extension:
            caps["extensions"] = {EXT: {}}
        self.fake.on("server/discover", discover(caps))
        self.fake.on("tools/list", {"resultType": "complete", "tools": [PLAIN, MAYBE, LONG]})
        self.fake.on("tools/call", created(), when=declared)
        self.fake.on("tools/call", {"resultType": "complete", **DONE},
                     when=lambda m: not declared(m))
        if gets:
            self.fake.on("tasks/get", *gets)
        self.fake.on("tasks/update", {"resultType": "complete"})
        self.fake.on("tasks/cancel", {"resultType": "complete"})
        return self.connect(self.fake, **options)

    def methods(self) -> list[str]:
        return [m["method"] for m in self.fake.requests()
                if m["method"] not in ("server/discover", "tools/list")]


class ModernTaskStateTest(ModernCase):
    def test_polled_until_completed_the_result_inline(self) -> None:
        client = self.modern(task("working"), task("completed", result={
            "resultType": "complete", **DONE, "_meta": {"x": 1}}))
        self.assertEqual(client.call_tool("long", {"a": 1}), DONE)
        self.assertEqual(self.methods(), ["tools/call", "tasks/get", "tasks/get"])
        call, get = self.fake.requests("tools/call")[0], self.fake.requests("tasks/get")[0]
        self.assertNotIn("task", call["params"])   # the server alone decides
        self.assertEqual(call["params"]["arguments"], {"a": 1})
        self.assertTrue(declared(call) and declared(get))
        self.assertEqual(get["params"]["taskId"], "t1")
        self.assertNotIn(EXT, client.declared_capabilities.get("extensions", {}))

    def test_a_plain_tool_is_a_plain_call_that_declares_nothing(self) -> None:
        client = self.modern()
        self.assertEqual(client.call_tool("plain"), DONE)
        self.assertEqual(client.call_tool("maybe"), DONE)
        self.assertEqual(self.methods(), ["tools/call", "tools/call"])
        self.assertFalse(any(declared(m) for m in self.fake.requests("tools/call")))

    def test_a_server_that_answers_at_once(self) -> None:
        client = self.modern()
        self.fake.on("tools/call", {"resultType": "complete", **DONE}, when=declared)
        self.assertEqual(client.call_tool("long"), DONE)
        self.assertEqual(self.methods(), ["tools/call"])

    def test_a_failed_task_is_its_json_rpc_error(self) -> None:
        client = self.modern(task("failed", statusMessage="boom", error={
            "code": -32603, "message": "the worker crashed", "data": {"at": 3}}))
        with self.assertRaises(ProtocolError) as caught:
            client.call_tool("long")
        self.assertEqual((caught.exception.code, caught.exception.data), (-32603, {"at": 3}))
        self.assertIn("task t1 failed: the worker crashed", str(caught.exception))
        self.assertNotIn("tasks/cancel", self.methods())

    def test_a_failed_task_without_its_error(self) -> None:
        client = self.modern(task("failed", statusMessage="boom"))
        with self.assertRaises(ProtocolError) as caught:
            client.call_tool("long")
        self.assertIn("task t1 failed: boom", str(caught.exception))

    def test_a_task_the_server_cancelled(self) -> None:
        client = self.modern(task("cancelled", statusMessage="shutting down"))
        with self.assertRaises(ProtocolError) as caught:
            client.call_tool("long")
        self.assertIn("cancelled task t1: shutting down", str(caught.exception))

    def test_an_unknown_status_is_a_protocol_error(self) -> None:
        client = self.modern(task("sleeping"))
        with self.assertRaises(ProtocolError) as caught:
            client.call_tool("long")
        self.assertIn("unknown status 'sleeping'", str(caught.exception))

    def test_completed_without_a_result(self) -> None:
        client = self.modern(task("completed"))
        with self.assertRaises(ProtocolError) as caught:
            client.call_tool("long")
        self.assertIn("without a result", str(caught.exception))

    def test_a_create_answer_that_is_no_task(self) -> None:
        client = self.modern()
        self.fake.on("tools/call", {"resultType": "task", "status": "working"}, when=declared)
        with self.assertRaises(ProtocolError):
            client.call_tool("long")

    def test_a_task_nobody_declared_is_invalid(self) -> None:
        client = self.modern()
        self.fake.on("tools/call", created(), when=lambda m: not declared(m))
        with self.assertRaises(ProtocolError) as caught:
            client.call_tool("plain")
        self.assertIn("invalid resultType 'task'", str(caught.exception))

    def test_a_task_that_never_finishes_is_cancelled_at_the_timeout(self) -> None:
        client = self.modern(task("working"))
        with self.assertRaises(Timeout) as caught:
            client.call_tool("long", timeout=0.2)
        self.assertEqual(caught.exception.seconds, 0.2)
        self.assertEqual(self.methods()[-1], "tasks/cancel")
        cancel = self.fake.requests("tasks/cancel")[0]
        self.assertEqual(cancel["params"]["taskId"], "t1")
        self.assertTrue(declared(cancel))
        self.assertEqual(self.fake.notifications("notifications/cancelled"), [])

    def test_cancelled_cancels_the_task(self) -> None:
        stop = threading.Event()

        def get(message: dict[str, Any]) -> dict[str, Any]:
            stop.set()
            return task("working")

        client = self.modern(get)
        with self.assertRaises(Cancelled):
            client.call_tool("long", cancelled=stop)
        self.assertEqual(self.methods()[-1], "tasks/cancel")


class ModernInputTest(ModernCase):
    def test_input_twice_each_key_answered_once(self) -> None:
        asked: list[str] = []

        def on_elicit(request: dict[str, Any]) -> dict[str, Any]:
            asked.append(request["params"]["message"])
            return {"action": "accept", "content": {"name": f"n{len(asked)}"}}

        second = {**ASK, "params": {**ASK["params"], "message": "Again?"}}
        client = self.modern(task("input_required", inputRequests={"a": ASK}),
                             task("input_required", inputRequests={"a": ASK}),   # not yet seen
                             task("input_required", inputRequests={"b": second}),
                             task("completed", result=DONE), on_elicit=on_elicit)
        self.assertEqual(client.call_tool("long"), DONE)
        self.assertEqual(asked, ["Name?", "Again?"])
        updates = [m["params"] for m in self.fake.requests("tasks/update")]
        self.assertEqual([u["inputResponses"] for u in updates], [
            {"a": {"action": "accept", "content": {"name": "n1"}}},
            {"b": {"action": "accept", "content": {"name": "n2"}}}])
        self.assertEqual({u["taskId"] for u in updates}, {"t1"})
        self.assertTrue(all(declared(m) for m in self.fake.requests("tasks/update")))

    def test_without_a_hook_the_elicitation_is_declined(self) -> None:
        client = self.modern(task("input_required", inputRequests={"a": ASK}),
                             task("completed", result=DONE))
        self.assertEqual(client.call_tool("long"), DONE)
        self.assertEqual(self.fake.requests("tasks/update")[0]["params"]["inputResponses"],
                         {"a": {"action": "decline"}})

    def test_a_declined_sampling_request_cancels_the_task(self) -> None:
        sample = {"method": "sampling/createMessage", "params": {"messages": [],
                                                                 "maxTokens": 5}}
        client = self.modern(task("input_required", inputRequests={"s": sample}))
        with self.assertRaises(ProtocolError) as caught:
            client.call_tool("long")
        self.assertIn("declined", str(caught.exception))
        self.assertEqual(self.methods()[-1], "tasks/cancel")

    def test_a_task_that_asks_forever_is_cut_off(self) -> None:
        counter = iter(range(1000))

        def get(message: dict[str, Any]) -> dict[str, Any]:
            return task("input_required", inputRequests={f"k{next(counter)}": ASK})

        client = self.modern(get, max_input_rounds=2)
        with self.assertRaises(InputLoopExceeded) as caught:
            client.call_tool("long")
        self.assertEqual(caught.exception.rounds, 2)
        self.assertEqual(len(self.fake.requests("tasks/update")), 2)
        self.assertEqual(self.methods()[-1], "tasks/cancel")

    def test_input_required_without_requests_is_a_protocol_error(self) -> None:
        client = self.modern(task("input_required"))
        with self.assertRaises(ProtocolError):
            client.call_tool("long")

    def test_input_before_the_task_then_the_task(self) -> None:
        client = self.modern(task("completed", result=DONE),
                             on_elicit=lambda r: {"action": "accept",
                                                  "content": {"name": "Ann"}})
        self.fake.on("tools/call", {"resultType": "input_required",
                                    "inputRequests": {"u": ASK}, "requestState": "s1"},
                     created(), when=declared)
        self.assertEqual(client.call_tool("long"), DONE)
        first, second = self.fake.requests("tools/call")
        self.assertEqual(second["params"]["inputResponses"],
                         {"u": {"action": "accept", "content": {"name": "Ann"}}})
        self.assertTrue(declared(first) and declared(second))


class ModernNegotiationTest(ModernCase):
    def test_a_server_that_asks_for_the_extension_gets_it(self) -> None:
        client = self.modern(task("completed", result=DONE))
        self.fake.on("tools/list", {"resultType": "complete", "tools": [PLAIN]})
        self.fake.on("tools/call", Error(-32021, "Missing required client capability", {
            "requiredCapabilities": {"extensions": {EXT: {}}}}),
            when=lambda m: not declared(m))
        self.assertEqual(client.call_tool("hidden"), DONE)
        self.assertEqual(client.call_tool("hidden"), DONE)
        self.assertEqual([declared(m) for m in self.fake.requests("tools/call")],
                         [False, True, True])

    def pinned_without_discover(self) -> Client:
        """Pinned, and the pin's discover answered -32021: modern, with no DiscoverResult."""
        client = self.modern(task("completed", result=DONE), era=V)
        result = {"resultType": "complete", "supportedVersions": [V],
                  "capabilities": {"tools": {}, "extensions": {EXT: {}}}}
        self.fake.on("server/discover", Error(-32021, "Missing required client capability"),
                     result)
        return client

    def test_an_era_known_without_discover_sends_none_for_a_plain_call(self) -> None:
        client = self.pinned_without_discover()
        self.assertEqual(client.call_tool("plain"), DONE)
        self.assertEqual([m["method"] for m in self.fake.requests()],
                         ["server/discover", "tools/call"])
        self.assertEqual(client.call_tool_task("long").result(10), DONE)   # asks, to know
        self.assertEqual([m["method"] for m in self.fake.requests()][:4],
                         ["server/discover", "tools/call", "server/discover", "tools/call"])

    def test_a_discover_after_a_plain_call_makes_a_task_tool_a_task(self) -> None:
        # with no DiscoverResult, a plain call finds no task capability;
        # what the discover then says is heeded, not the answer kept from before it
        client = self.pinned_without_discover()
        self.assertEqual(client.call_tool("plain"), DONE)
        self.assertIn(EXT, client.capabilities["extensions"])   # sends the discover
        self.assertEqual(client.call_tool("long"), DONE)
        self.assertEqual([m["method"] for m in self.fake.requests()],
                         ["server/discover", "tools/call", "server/discover", "tools/list",
                          "tools/call", "tasks/get"])

    def test_another_missing_capability_is_raised(self) -> None:
        client = self.modern()
        self.fake.on("tools/call", Error(-32021, "needs sampling", {
            "requiredCapabilities": {"sampling": {}}}), when=lambda m: not declared(m))
        with self.assertRaises(ProtocolError) as caught:
            client.call_tool("plain")
        self.assertEqual(caught.exception.code, -32021)
        self.assertEqual(len(self.fake.requests("tools/call")), 1)

    def test_the_tasks_option_declares_the_extension_everywhere(self) -> None:
        client = self.modern(task("completed", result=DONE), tasks=True)
        self.assertEqual(client.declared_capabilities["extensions"][EXT], {})
        self.assertEqual(client.call_tool("maybe"), DONE)   # any call may become a task
        self.assertEqual(self.methods(), ["tools/call", "tasks/get"])
        self.assertTrue(all(declared(m) for m in self.fake.requests()))
        self.assertEqual(client.call_tool_async("maybe").result(10), DONE)

    def test_the_tasks_option_is_checked(self) -> None:
        with self.assertRaises(MCPClientError):
            Client(transport=FakeTransport(), tasks="yes")

    def test_the_bridge_offers_and_runs_a_task_tool(self) -> None:
        client = self.modern(task("completed", result=DONE))
        self.assertEqual([d["function"]["name"] for d in client.tools_for_llm()],
                         ["plain", "maybe", "long"])
        [entry] = client.execute_tool_calls([{"id": "1", "function": {"name": "long"}}])
        self.assertEqual((entry["content"], entry["is_error"]), ("done", False))
        self.assertEqual(client.call_tool_async("long").result(10), DONE)

    def test_without_the_servers_extension_a_task_tool_is_hidden(self) -> None:
        client = self.modern(extension=False)
        self.assertEqual([d["function"]["name"] for d in client.tools_for_llm()],
                         ["plain", "maybe"])
        with self.assertRaises(MCPClientError):
            client.call_tool_task("long")


class ModernHandleTest(ModernCase):
    def test_the_handle_knows_its_task_and_gives_the_result(self) -> None:
        client = self.modern(task("working", statusMessage="half"),
                             task("completed", result=DONE))
        handle = client.call_tool_task("long", {"a": 1})
        self.assertEqual(handle.task_id, "t1")
        self.assertNotIn("resultType", handle.task)
        self.assertEqual(handle.result(10), DONE)
        self.assertEqual(handle.status, "completed")

    def test_an_answer_at_once_is_a_done_handle(self) -> None:
        client = self.modern()
        self.fake.on("tools/call", {"resultType": "complete", **DONE}, when=declared)
        handle = client.call_tool_task("maybe")
        self.assertTrue(handle.done())
        self.assertEqual((handle.task_id, handle.result(0)), ("", DONE))

    def test_cancel_cancels_the_task_on_the_server(self) -> None:
        client = self.modern(task("working"))
        handle = client.call_tool_task("long", timeout=0)
        self.fake.wait_for("tasks/get", 1)
        self.assertTrue(handle.cancel())
        self.fake.wait_for("tasks/cancel", 1)
        self.assertEqual(self.fake.requests("tasks/cancel")[0]["params"]["taskId"], "t1")

    def test_close_while_a_handle_waits_between_polls_settles_it_at_once(self) -> None:
        client = self.modern({**task("working"), "pollIntervalMs": 10 ** 9})   # a 10 s pause
        handle = client.call_tool_task("long", timeout=0)
        self.fake.wait_for("tasks/get", 1)
        client.close()
        with self.assertRaises(TransportClosed):
            handle.result(5)   # not after the pause: the poller is gone with close()
        self.assertEqual(self.fake.requests("tasks/cancel"), [])   # the task is not ours to end

    def test_close_while_a_call_waits_between_polls_ends_the_call_at_once(self) -> None:
        close_ends_a_paused_call(self, lambda seen: self.modern(
            {**task("working"), "pollIntervalMs": 10 ** 9}, on_task_status=seen))

    def test_on_task_status_is_told_each_status(self) -> None:
        tasks: list[dict[str, Any]] = []
        client = self.modern(task("working"), task("completed", result=DONE),
                             on_task_status=tasks.append)
        client.call_tool("long")
        self.assertEqual([t["status"] for t in tasks], ["working", "working", "completed"])
        self.assertFalse(any("resultType" in t for t in tasks))


class ShapeTest(ClientCase):
    def test_a_task_result_is_read_only_where_declared(self) -> None:
        from mcp_client import protocol

        raw = {**created(), "_meta": {"x": 1}}
        shaped = protocol.shape_result("tools/call", raw, tasks=True)
        self.assertEqual(shaped.result_type, "task")
        self.assertEqual(shaped.body, created())   # resultType kept, _meta dropped
        for method, tasks in (("tools/call", False), ("prompts/get", True)):
            with self.subTest(method=method), self.assertRaises(ProtocolError):
                protocol.shape_result(method, raw, tasks=tasks)

    def test_a_tasks_get_result_keeps_the_tasks_own_fields(self) -> None:
        from mcp_client import protocol

        found = task("input_required", inputRequests={"a": ASK}, _meta={"x": 1})
        body = protocol.shape_result("tasks/get", found).body
        self.assertEqual((body["inputRequests"], body["ttlMs"]), ({"a": ASK}, 60000))
        self.assertNotIn("resultType", body)
        self.assertNotIn("_meta", body)


class PollIntervalTest(ClientCase):
    def test_the_servers_interval_within_bounds(self) -> None:
        from mcp_client.client._tasks.extension_2026_07_28 import _interval

        for given, seconds in ((200, 0.2), (10, 0.05), (10 ** 9, 10.0), (None, 1.0),
                               (True, 1.0), (-5, 1.0), ("100", 1.0)):
            with self.subTest(given=given):
                found = {} if given is None else {"pollIntervalMs": given}
                self.assertEqual(_interval(found), seconds)

    def test_a_task_created_finished_is_asked_about_at_once(self) -> None:
        fake = fake_server({"extensions": {EXT: {}}})
        fake.on("tools/call", {**created("completed"), "pollIntervalMs": 60000})
        fake.on("tasks/get", task("completed", result=DONE, pollIntervalMs=60000))
        client = self.connect(fake, tasks=True)
        self.assertEqual(client.call_tool("x", timeout=5), DONE)   # no 10 s pause first


class RoutingHeaderTest(ClientCase):
    def test_tasks_requests_carry_the_task_id_in_mcp_name(self) -> None:
        from mcp_client.http import HTTPTransport

        transport = HTTPTransport("http://127.0.0.1:9/mcp")
        for method in ("tasks/get", "tasks/update", "tasks/cancel"):
            headers = transport._wire_headers(
                {"method": method, "params": {"taskId": "t-9", "_meta": {
                    "io.modelcontextprotocol/protocolVersion": V}}}, None)
            self.assertEqual((headers["Mcp-Method"], headers["Mcp-Name"]), (method, "t-9"))
