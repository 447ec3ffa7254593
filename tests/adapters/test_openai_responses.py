"""``mcp_client.adapters.openai_responses`` over a real server, against the SDK's own types.

The provider is a Registry over ``tests/servers/dual_stdio.py`` (the official SDK's demo
server, over stdio) under a Policy that denies ``demo_add``; every tool and every output
is validated with pydantic against the ``openai`` package's own Responses types.
"""

from __future__ import annotations

import json
from typing import Any

from openai.types.responses import FunctionToolParam, ResponseFunctionToolCall
from openai.types.responses.response_input_param import FunctionCallOutput
from pydantic import TypeAdapter

from mcp_client import MCPClientError
from mcp_client.adapters import openai_responses

from .demo import DemoCase, ImportChecks
from ..base import LeakCheckingTestCase

TOOL = TypeAdapter(FunctionToolParam)
OUTPUT = TypeAdapter(FunctionCallOutput)


def function_call(call_id: str, name: str, arguments: dict[str, Any]) -> ResponseFunctionToolCall:
    """An output item as the SDK hands it over (an object, not a dict)."""
    return ResponseFunctionToolCall(type="function_call", call_id=call_id, name=name,
                                    arguments=json.dumps(arguments), id=f"fc_{call_id}",
                                    status="completed")


class ResponsesTest(DemoCase):
    def test_every_tool_is_a_valid_responses_function_tool(self) -> None:
        flat = openai_responses.tools(self.provider)
        names = [tool["name"] for tool in flat]
        self.assertEqual(names, [declared["function"]["name"]
                                 for declared in self.provider.tools_for_llm()])
        self.assertIn("demo_echo", names)
        for tool in flat:
            with self.subTest(tool=tool["name"]):
                TOOL.validate_python(tool)
                self.assertEqual((tool["type"], tool["strict"]), ("function", False))
                self.assertNotIn("function", tool)                  # flat, not nested
                self.assertEqual(tool["parameters"]["type"], "object")

    def test_calls_run_in_order_with_their_ids_and_the_policy_judges_each(self) -> None:
        items: list[Any] = [
            {"type": "message", "role": "assistant", "content": []},      # left alone
            function_call("c1", "demo_echo", {"text": "hi"}),
            {"type": "function_call", "call_id": "c2", "name": "demo_add",
             "arguments": json.dumps({"a": 2, "b": 3})},
            {"type": "function_call", "call_id": "c3", "name": "demo_fail", "arguments": ""},
        ]
        outputs = openai_responses.run(self.provider, items)
        for output in outputs:
            OUTPUT.validate_python(output)
        self.assertEqual([o["call_id"] for o in outputs], ["c1", "c2", "c3"])
        self.assertEqual(outputs[0]["output"], "hi")
        self.assertIn("refused by policy", outputs[1]["output"])
        self.assertIn("failed: because", outputs[2]["output"])
        self.assertEqual(self.sent, ["demo_echo", "demo_fail"])  # the denied call never left

    def test_nothing_to_run_and_bad_input(self) -> None:
        self.assertEqual(openai_responses.run(self.provider, []), [])
        self.assertEqual(openai_responses.run(self.provider, [{"type": "reasoning"}]), [])
        for bad in ({"type": "function_call"}, "text", None):
            with self.subTest(bad=bad), self.assertRaises(MCPClientError):
                openai_responses.run(self.provider, bad)  # type: ignore[arg-type]
        with self.assertRaises(MCPClientError) as caught:
            openai_responses.run(self.provider, [{"type": "function_call", "name": "demo_echo",
                                                  "arguments": "{}"}])
        self.assertIn("output item 0", str(caught.exception))
        self.assertEqual(self.sent, [])


class ImportTest(ImportChecks, LeakCheckingTestCase):
    adapter, packages, extra = "openai_responses", ("openai",), None
