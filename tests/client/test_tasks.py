"""Tools run as tasks (2025-11-25): the state machine's edges, against a scripted server."""

from __future__ import annotations

import threading
from concurrent.futures import Future
from typing import Any, Callable

from mcp_client import Cancelled, Client, MCPClientError, ProtocolError, Timeout, TransportClosed
from mcp_client.testing import Error, FakeTransport

from ..base import ClientCase

TASKS: dict[str, Any] = {"tasks": {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}}
LONG = {"name": "long", "inputSchema": {"type": "object"},
        "execution": {"taskSupport": "required"}}
PLAIN = {"name": "plain", "inputSchema": {"type": "object"}}
DONE = {"content": [{"type": "text", "text": "done"}]}


def task(status: str, **extra: Any) -> dict[str, Any]:
    return {"taskId": "t1", "status": status, "pollInterval": 10, "ttl": 60000,
            "createdAt": "2026-12-01T00:00:00Z", **extra}


def close_ends_a_paused_call(case: ClientCase,
                             connect: Callable[[Callable[[dict[str, Any]], None]], Client]
                             ) -> None:
    """``close()`` ends a blocking task call paused between polls at once, with
    ``TransportClosed`` and no ``tasks/cancel``.

    ``connect(on_task_status)`` makes the client and sets ``case.fake``, whose
    first ``tasks/get`` answer asks for a pause longer than the test.
    """
    polled = threading.Event()   # the tasks/get answer is in: the call now pauses

    def seen(status: dict[str, Any]) -> None:
        if len(fake.requests("tasks/get")) == 1:
            polled.set()

    client = connect(seen)
    fake: FakeTransport = getattr(case, "fake")   # set by connect, before any poll
    raised: list[BaseException] = []

    def call() -> None:
        try:
            client.call_tool("long", timeout=0)
        except BaseException as exc:
            raised.append(exc)

    caller = threading.Thread(target=call)
    caller.start()
    case.assertTrue(polled.wait(10))
    client.close()
    caller.join(5)
    case.assertFalse(caller.is_alive())
    case.assertEqual([type(exc) for exc in raised], [TransportClosed])
    case.assertEqual(fake.requests("tasks/cancel"), [])


class TaskCase(ClientCase):
    def legacy(self, *gets: Any, capabilities: dict[str, Any] | None = None,
               **options: Any) -> Client:
        self.fake = FakeTransport()
        self.fake.on("initialize", {"protocolVersion": "2025-11-25", "capabilities": {
            "tools": {}, **(TASKS if capabilities is None else capabilities)}})
        self.fake.on("tools/list", {"tools": [PLAIN, LONG]})
        self.fake.on("tools/call", {"task": task("working")},
                     when=lambda m: "task" in m["params"])
        self.fake.on("tools/call", DONE, when=lambda m: "task" not in m["params"])
        if gets:
            self.fake.on("tasks/get", *gets)
        self.fake.on("tasks/result", DONE)
        self.fake.on("tasks/cancel", task("cancelled"))
        return self.connect(self.fake, era="legacy", **options)

    def methods(self) -> list[str]:
        return [m["method"] for m in self.fake.requests()
                if m["method"] not in ("initialize", "tools/list")]


class TaskStateTest(TaskCase):
    def test_close_while_a_call_waits_between_polls_ends_the_call_at_once(self) -> None:
        close_ends_a_paused_call(self, lambda seen: self.legacy(
            task("working", pollInterval=10 ** 9), on_task_status=seen))

    def test_polled_until_completed_then_the_result_is_fetched(self) -> None:
        client = self.legacy(task("working"), task("completed"))
        self.assertEqual(client.call_tool("long", {"a": 1}), DONE)
        self.assertEqual(self.methods(), ["tools/call", "tasks/get", "tasks/get", "tasks/result"])
        [call] = self.fake.requests("tools/call")
        self.assertEqual(call["params"]["task"], {"ttl": 300000})
        self.assertEqual(call["params"]["arguments"], {"a": 1})
        self.assertEqual(self.fake.requests("tasks/result")[0]["params"], {"taskId": "t1"})

    def test_a_plain_tool_is_a_plain_call(self) -> None:
        client = self.legacy()
        self.assertEqual(client.call_tool("plain"), DONE)
        self.assertEqual(self.methods(), ["tools/call"])
        self.assertNotIn("task", self.fake.requests("tools/call")[0]["params"])

    def test_a_failed_task_gives_its_result_or_error(self) -> None:
        client = self.legacy(task("failed", statusMessage="boom"))
        self.fake.on("tasks/result", Error(-32603, "the tool crashed"))
        with self.assertRaises(ProtocolError) as caught:
            client.call_tool("long")
        self.assertEqual(caught.exception.code, -32603)

    def test_a_task_the_server_cancelled(self) -> None:
        client = self.legacy(task("cancelled", statusMessage="shutting down"))
        with self.assertRaises(ProtocolError) as caught:
            client.call_tool("long")
        self.assertIn("cancelled task t1: shutting down", str(caught.exception))
        self.assertNotIn("tasks/result", self.methods())

    def test_input_required_is_fetched_through_tasks_result(self) -> None:
        client = self.legacy(task("input_required"))
        self.assertEqual(client.call_tool("long"), DONE)
        self.assertEqual(self.methods(), ["tools/call", "tasks/get", "tasks/result"])

    def test_an_unknown_status_is_a_protocol_error(self) -> None:
        client = self.legacy(task("sleeping"))
        with self.assertRaises(ProtocolError) as caught:
            client.call_tool("long")
        self.assertIn("unknown status 'sleeping'", str(caught.exception))

    def test_a_task_that_never_finishes_is_cancelled_at_the_timeout(self) -> None:
        client = self.legacy(task("working"))
        with self.assertRaises(Timeout) as caught:
            client.call_tool("long", timeout=0.2)
        self.assertEqual(caught.exception.seconds, 0.2)
        self.assertEqual(self.methods()[-1], "tasks/cancel")
        self.assertEqual(self.fake.requests("tasks/cancel")[0]["params"], {"taskId": "t1"})

    def test_cancelled_cancels_the_task(self) -> None:
        stop = threading.Event()
        gets = 0

        def get(message: dict[str, Any]) -> dict[str, Any]:
            nonlocal gets
            gets += 1
            if gets == 2:
                stop.set()
            return task("working")

        client = self.legacy(get)
        with self.assertRaises(Cancelled):
            client.call_tool("long", cancelled=stop)
        self.assertEqual(self.methods()[-1], "tasks/cancel")

    def test_a_create_answer_that_is_no_task(self) -> None:
        client = self.legacy()
        self.fake.on("tools/call", {"task": {"status": "working"}},
                     when=lambda m: "task" in m["params"])
        with self.assertRaises(ProtocolError):
            client.call_tool("long")


class WhereTasksRunTest(TaskCase):
    def test_the_bridge_runs_a_task_tool(self) -> None:
        client = self.legacy(task("completed"))
        self.assertEqual([d["function"]["name"] for d in client.tools_for_llm()],
                         ["plain", "long"])
        [entry] = client.execute_tool_calls([{"id": "1", "function": {"name": "long"}}])
        self.assertEqual((entry["content"], entry["is_error"]), ("done", False))
        self.assertEqual(client.call_tool_async("long").result(10), DONE)

    def test_without_the_servers_task_capability_nothing_is_a_task(self) -> None:
        client = self.legacy(capabilities={})
        self.assertEqual([d["function"]["name"] for d in client.tools_for_llm()], ["plain"])
        client.call_tool("long")   # sent as asked; the server decides
        self.assertNotIn("task", self.fake.requests("tools/call")[0]["params"])


class TaskHandleTest(TaskCase):
    def test_the_handle_knows_its_task_and_gives_the_result(self) -> None:
        client = self.legacy(task("working", statusMessage="half"), task("completed"))
        handle = client.call_tool_task("long", {"a": 1})
        self.assertIsInstance(handle, Future)
        self.assertEqual(handle.task_id, "t1")
        self.assertEqual(handle.result(10), DONE)
        self.assertEqual(handle.status, "completed")
        self.assertIn("TaskHandle t1 completed", repr(handle))

    def test_cancel_cancels_the_task_on_the_server(self) -> None:
        client = self.legacy(task("working"))
        handle = client.call_tool_task("long", timeout=0)
        self.fake.wait_for("tasks/get", 1)
        self.assertTrue(handle.cancel())
        self.assertTrue(handle.cancelled())
        self.fake.wait_for("tasks/cancel", 1)
        self.assertEqual(self.fake.requests("tasks/cancel")[0]["params"], {"taskId": "t1"})
        self.assertFalse(handle.cancel() and not handle.cancelled())

    def test_a_server_without_tasks_is_refused(self) -> None:
        client = self.legacy(capabilities={})
        with self.assertRaises(MCPClientError):
            client.call_tool_task("long")
        self.assertEqual(self.fake.requests("tools/call"), [])


class TaskStatusTest(TaskCase):
    def test_on_task_status_is_told_each_status(self) -> None:
        seen: list[str] = []
        client = self.legacy(task("working", statusMessage="half"), task("completed"),
                             on_task_status=lambda t: seen.append(t["status"]))
        client.call_tool("long")
        self.assertEqual(seen, ["working", "working", "completed"])

    def test_a_status_hook_that_raises_does_not_end_the_task(self) -> None:
        def boom(task: dict[str, Any]) -> None:
            raise RuntimeError("display broke")

        client = self.legacy(task("completed"), on_task_status=boom)
        self.assertEqual(client.call_tool("long"), DONE)

    def test_the_cli_status_line(self) -> None:
        from io import StringIO

        from mcp_client.cli._terminal import ProgressBar

        stream = StringIO()
        bar = ProgressBar(stream)
        bar.task({"taskId": "t1", "status": "working", "statusMessage": "Analyzing"})
        self.assertEqual(stream.getvalue(), "\r\x1b[K[task working] Analyzing")
