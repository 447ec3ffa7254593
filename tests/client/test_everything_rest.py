"""The rest of the protocol against ``@modelcontextprotocol/server-everything`` over stdio.

Skipped unless ``MCP_SERVER_EVERYTHING`` names its entry script (``.ci/run`` sets it,
and ``MCP_NODE``, the node binary).
"""

from __future__ import annotations

import os
import unittest
from typing import Any

from mcp_client import Client, Timeout
from mcp_client.types import text_of

from ..base import ClientCase

EVERYTHING = os.environ.get("MCP_SERVER_EVERYTHING")
NODE = os.environ.get("MCP_NODE", "node")
TASK_TOOL = "simulate-research-query"


@unittest.skipUnless(EVERYTHING and os.path.exists(EVERYTHING),
                     "MCP_SERVER_EVERYTHING does not name server-everything's entry script "
                     "(and MCP_NODE the node binary); .ci/run sets both")
class EverythingRestTest(ClientCase):
    def everything(self, **options: Any) -> Client:
        self.warnings = []
        options.setdefault("on_warn", self.warnings.append)
        client = Client.connect_stdio(NODE, args=[str(EVERYTHING), "stdio"],
                                      request_timeout=30, **options)
        self.addCleanup(client.close)
        return client

    def test_a_task_only_tool_runs_as_a_task(self) -> None:
        client = self.everything()
        tools = {tool["name"]: tool for tool in client.list_tools()}
        self.assertEqual(tools[TASK_TOOL]["execution"], {"taskSupport": "required"})
        self.assertIn(TASK_TOOL, [d["function"]["name"] for d in client.tools_for_llm()])
        result = client.call_tool(TASK_TOOL, {"topic": "tides"})
        self.assertIn("# Research Report: tides", text_of(result))
        [entry] = client.execute_tool_calls([{"id": "1", "function": {
            "name": TASK_TOOL, "arguments": {"topic": "moons"}}}])
        self.assertFalse(entry["is_error"])
        self.assertIn("# Research Report: moons", entry["content"])

    def test_the_cli_calls_a_task_only_tool(self) -> None:
        import io

        from mcp_client.cli import main

        stdout, stderr = io.StringIO(), io.StringIO()
        code = main(["--stdio", f"{NODE} {EVERYTHING} stdio", "call", TASK_TOOL,
                     '{"topic": "tides"}'], stdin=io.StringIO(), stdout=stdout, stderr=stderr)
        self.assertEqual((code, stderr.getvalue()), (0, ""))
        self.assertIn("# Research Report: tides", stdout.getvalue())

    def test_call_tool_task_hands_back_the_task(self) -> None:
        client = self.everything()
        handle = client.call_tool_task(TASK_TOOL, {"topic": "reefs"})
        self.assertTrue(handle.task_id)
        self.assertIn("# Research Report: reefs", handle.result(30)["content"][0]["text"])
        self.assertEqual(handle.status, "completed")

    def test_a_task_that_outlives_its_budget_is_cancelled_on_the_server(self) -> None:
        client = self.everything()
        client.list_tools()   # the era and the catalogue first: the budget is the task's alone
        with self.assertRaises(Timeout):
            client.call_tool(TASK_TOOL, {"topic": "x"}, timeout=0.5)
        [task] = client.request("tasks/list")["tasks"]
        self.assertEqual(task["status"], "cancelled")

    def test_completion_logging_structured_output_and_a_raw_request(self) -> None:
        logged: list[dict[str, Any]] = []
        client = self.everything(on_log=logged.append)
        self.assertEqual(client.complete({"type": "ref/prompt", "name": "completable-prompt"},
                                         {"name": "department", "value": "E"}),
                         {"values": ["Engineering"], "total": 1, "hasMore": False})
        client.set_logging_level("error")   # a legacy server: logging/setLevel, accepted
        result = client.call_tool("get-structured-content", {"location": "New York"},
                                  validate=True)
        self.assertIn("temperature", result["structuredContent"])
        raw = client.request("prompts/list")
        self.assertIn("completable-prompt", [p["name"] for p in raw["prompts"]])
        self.assertEqual(self.warnings, [])


@unittest.skipUnless(EVERYTHING and os.path.exists(EVERYTHING),
                     "MCP_SERVER_EVERYTHING does not name server-everything's entry script "
                     "(and MCP_NODE the node binary); .ci/run sets both")
class EverythingHTTPRestTest(ClientCase):
    def test_tasks_and_completion_over_streamable_http(self) -> None:
        from ..transports.test_http_peers import ChildServer, free_port

        port = free_port()
        child = ChildServer([NODE, str(EVERYTHING), "streamableHttp"], port, {"PORT": str(port)})
        self.addCleanup(child.stop)
        child.wait_listening()
        client = Client.connect_http(f"http://127.0.0.1:{port}/mcp", request_timeout=30,
                                     on_warn=self.warnings.append)
        self.addCleanup(client.close)
        result = client.call_tool(TASK_TOOL, {"topic": "tides"})
        self.assertIn("# Research Report: tides", text_of(result))
        self.assertIn(TASK_TOOL, [d["function"]["name"] for d in client.tools_for_llm()])
        self.assertEqual(client.complete({"type": "ref/prompt", "name": "completable-prompt"},
                                         {"name": "department", "value": "M"})["values"],
                         ["Marketing"])
