"""Tasks on a 2026-07-28 server over stdio: the ``io.modelcontextprotocol/tasks``
extension end to end, against ``tests/servers/tasks_server.py`` (no official SDK
serves the extension)."""

from __future__ import annotations

import json
from typing import Any

from mcp_client import Client, ProtocolError, Timeout
from mcp_client.types import text_of

from ..base import ClientCase, server
from ..httpkit import LiveServer


def accept(request: dict[str, Any]) -> dict[str, Any]:
    if "confirm" in request["params"]["requestedSchema"]["properties"]:
        return {"action": "accept", "content": {"confirm": True}}
    return {"action": "accept", "content": {"name": request["params"]["message"][:-1]}}


def roses(request: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "model": "m", "content": {"type": "text", "text": "roses"}}


class TasksServerCase(ClientCase):
    def tasks_client(self, **options: Any) -> Client:
        return self.connect(args=server("tasks_server.py"), **options)

    def audit(self, client: Client) -> list[tuple[str, bool]]:
        """(method, declared the extension) of every request the server saw."""
        seen = json.loads(text_of(client.call_tool("audit")))
        return [(method, ext) for method, ext in seen[:-1]
                if method not in ("server/discover", "tools/list")]


class TasksServerTest(TasksServerCase):
    def test_a_task_only_tool_runs_and_is_offered(self) -> None:
        client = self.tasks_client(on_elicit=accept)
        self.assertEqual(client.era, "modern")
        names = [d["function"]["name"] for d in client.tools_for_llm()]
        self.assertIn("confirm_delete", names)
        self.assertEqual(text_of(client.call_tool("confirm_delete", {"filename": "a.txt"})),
                         "deleted")
        self.assertEqual(text_of(client.call_tool("greet", {"name": "Ann"})), "Hello, Ann!")
        methods = self.audit(client)
        self.assertEqual(methods[0], ("tools/call", True))
        self.assertIn(("tasks/update", True), methods)
        self.assertEqual(methods[-1], ("tools/call", False))   # greet declares nothing
        self.assertTrue(all(ext for method, ext in methods if method.startswith("tasks/")))

    def test_an_optional_tool_is_a_plain_call_unless_asked(self) -> None:
        client = self.tasks_client()
        self.assertEqual(text_of(client.call_tool("slow_compute", {"seconds": 0})),
                         "computed after 0s")
        self.assertEqual(self.audit(client), [("tools/call", False)])

    def test_the_tasks_option_lets_the_server_make_a_task_of_it(self) -> None:
        statuses: list[str] = []
        client = self.tasks_client(tasks=True, on_task_status=lambda t: statuses.append(
            t["status"]))
        self.assertEqual(text_of(client.call_tool("slow_compute", {"seconds": 0.2})),
                         "computed after 0.2s")
        self.assertEqual(statuses[0], "working")
        self.assertEqual(statuses[-1], "completed")
        self.assertIn(("tasks/get", True), self.audit(client))

    def test_tool_errors_and_task_failures(self) -> None:
        client = self.tasks_client()
        result = client.call_tool("failing_job")
        self.assertEqual((text_of(result), result.get("isError")), ("the job failed", True))
        with self.assertRaises(ProtocolError) as caught:
            client.call_tool("protocol_error_job")
        self.assertEqual(caught.exception.code, -32603)
        self.assertIn("the worker crashed", str(caught.exception))

    def test_input_in_two_rounds_and_two_at_once(self) -> None:
        client = self.tasks_client(on_elicit=accept, on_sample=roses)
        self.assertEqual(text_of(client.call_tool("two_rounds")), "Your name: roses")
        self.assertEqual(text_of(client.call_tool("multi_input")), "First & Second")
        updates = [m for m, _ in self.audit(client) if m == "tasks/update"]
        self.assertEqual(len(updates), 3)

    def test_input_before_the_task_then_the_task(self) -> None:
        client = self.tasks_client(on_elicit=accept)
        self.assertEqual(text_of(client.call_tool("test_tool_with_task")), "hello Your name")

    def test_a_timeout_cancels_the_task_on_the_server(self) -> None:
        client = self.tasks_client(tasks=True)
        with self.assertRaises(Timeout):
            client.call_tool("slow_compute", {"seconds": 60}, timeout=0.5)
        self.assertEqual(self.audit(client)[-1], ("tasks/cancel", True))

    def test_the_handle_and_its_cancel(self) -> None:
        client = self.tasks_client()
        handle = client.call_tool_task("slow_compute", {"seconds": 60}, timeout=0)
        self.assertTrue(handle.task_id)
        self.assertEqual(handle.status, "working")
        self.assertTrue(handle.cancel())
        quick = client.call_tool_task("slow_compute", {"seconds": 0})
        self.assertEqual(text_of(quick.result(30)), "computed after 0s")
        self.assertIn(("tasks/cancel", True), self.audit(client))

    def test_the_bridge_runs_a_task_tool(self) -> None:
        client = self.tasks_client(on_elicit=accept)
        entries = client.execute_tool_calls([
            {"id": "1", "function": {"name": "confirm_delete",
                                     "arguments": '{"filename": "b.txt"}'}},
            {"id": "2", "function": {"name": "greet", "arguments": '{"name": "Bo"}'}}])
        self.assertEqual([(e["content"], e["is_error"]) for e in entries],
                         [("deleted", False), ("Hello, Bo!", False)])


class TasksOverHTTPTest(TasksServerCase):
    """The same server over Streamable HTTP: it checks ``Mcp-Name`` against ``taskId``."""

    def test_a_task_with_input_over_http(self) -> None:
        self.warnings: list[str] = []
        live = LiveServer("--http", "0", script="tasks_server.py")
        self.addCleanup(live.stop)
        client = Client.connect_http(live.url, on_elicit=accept, tasks=True,
                                     on_warn=self.warnings.append)
        self.addCleanup(client.close)
        self.assertEqual(text_of(client.call_tool("confirm_delete", {"filename": "c.txt"})),
                         "deleted")
        with self.assertRaises(Timeout):
            client.call_tool("slow_compute", {"seconds": 60}, timeout=0.5)
        self.assertEqual(text_of(client.call_tool("slow_compute", {"seconds": 0})),
                         "computed after 0s")
        methods = self.audit(client)
        self.assertIn(("tasks/update", True), methods)
        self.assertIn(("tasks/cancel", True), methods)
        self.assertEqual(self.warnings, [])


class TasksCLITest(TasksServerCase):
    def test_the_cli_calls_a_task_only_tool(self) -> None:
        import io
        import shlex

        from mcp_client.cli import main

        from ..base import PYTHON

        stdout, stderr = io.StringIO(), io.StringIO()
        command = shlex.join([PYTHON, *server("tasks_server.py")])
        code = main(["--stdio", command, "call", "confirm_delete", '{"filename": "d.txt"}'],
                    stdin=io.StringIO(), stdout=stdout, stderr=stderr)
        # without a terminal the elicitation is declined, and the task says so
        self.assertEqual(code, 0)
        self.assertIn("the server asked 'Delete d.txt?'; declined", stderr.getvalue())
        self.assertIn("kept (decline)", stdout.getvalue())
