"""The task machinery is an object the client holds, reaching the client only through seams.

:class:`~mcp_client.client._tasks.calls.Tasks` is given the connection, a
catalogue (anything with ``list_tools``) and a caller (anything that sends a
``tools/call``): these tests drive one over a scripted server with recording
stand-ins for the other two, so nothing of the client's own is reached.
"""

from __future__ import annotations

from typing import Any

from mcp_client import TransportClosed
from mcp_client.client._tasks.calls import Tasks
from mcp_client.testing import FakeTransport

from ..base import ClientCase
from .test_tasks import DONE, LONG, PLAIN, TASKS, task


class _Catalogue:
    """A client's catalogue: hands each list to the tasks object, as the client does."""

    def __init__(self, tools: list[dict[str, Any]]) -> None:
        self.tools = tools
        self.asked: list[dict[str, Any]] = []
        self.tasks: Tasks | None = None

    def list_tools(self, *, refresh: bool = False, timeout: float | None = None,
                   cancelled: Any = None) -> list[Any]:
        self.asked.append({"refresh": refresh, "timeout": timeout})
        assert self.tasks is not None
        self.tasks.note_tools(self.tools)
        return list(self.tools)


class _Caller:
    """Sends nothing: records each ``tools/call`` and answers it."""

    def __init__(self) -> None:
        self.calls: list[tuple[dict[str, Any], bool]] = []

    def call(self, params: dict[str, Any], *, timeout: float | None, cancelled: Any,
             progress_token: str | int | None = None, tool_call_id: str | None = None,
             tasks: bool = False) -> dict[str, Any]:
        self.calls.append((params, tasks))
        return dict(DONE)


class TasksSeamTest(ClientCase):
    def tasks(self) -> tuple[Tasks, _Catalogue, _Caller, list[str]]:
        statuses: list[str] = []
        self.fake = FakeTransport()
        self.fake.on("initialize", {"protocolVersion": "2025-11-25",
                                    "capabilities": {"tools": {}, **TASKS}})
        self.fake.on("tools/call", {"task": task("working")}, when=lambda m: "task" in m["params"])
        self.fake.on("tasks/get", task("completed"))
        self.fake.on("tasks/result", DONE)
        client = self.connect(self.fake, era="legacy")
        catalogue, caller = _Catalogue([PLAIN, LONG]), _Caller()
        tasks = Tasks(client._connection, catalogue=catalogue, caller=caller, declared=False,
                      max_rounds=8, on_status=lambda status: statuses.append(status["status"]))
        catalogue.tasks = tasks
        return tasks, catalogue, caller, statuses

    def test_a_plain_tool_is_called_through_the_caller(self) -> None:
        tasks, catalogue, caller, _ = self.tasks()
        result = tasks.call({"name": "plain", "arguments": {"a": 1}}, timeout=5, cancelled=None)
        self.assertEqual(result, DONE)
        self.assertEqual(caller.calls, [({"name": "plain", "arguments": {"a": 1}}, False)])
        self.assertEqual(catalogue.asked, [{"refresh": False, "timeout": 5}])
        self.assertEqual(self.fake.requests("tools/call"), [])

    def test_a_task_tool_is_learnt_from_the_catalogue_once_and_run_as_a_task(self) -> None:
        tasks, catalogue, caller, statuses = self.tasks()
        self.assertTrue(tasks.task_tool("long"))
        self.assertFalse(tasks.task_tool("plain"))
        result = tasks.call({"name": "long", "arguments": {}}, timeout=5, cancelled=None)
        self.assertEqual(result, DONE)
        self.assertEqual(len(catalogue.asked), 1)
        self.assertEqual(caller.calls, [])   # 2025-11-25: the task wire is the connection's
        self.assertEqual([m["params"]["name"] for m in self.fake.requests("tools/call")],
                         ["long"])
        self.assertEqual(statuses, ["working", "completed"])

    def test_stop_refuses_task_requests_and_says_so_in_its_repr(self) -> None:
        tasks, _, _, _ = self.tasks()
        self.assertEqual(repr(tasks), "<Tasks open polling=0>")
        tasks.stop()
        self.assertEqual(repr(tasks), "<Tasks closing polling=0>")
        with self.assertRaises(TransportClosed):
            tasks.call({"name": "long", "arguments": {}}, timeout=5, cancelled=None)
        self.assertEqual(self.fake.requests("tools/call"), [])
