"""``mcp_client.adapters.anthropic`` over a real server, against the SDK's own types.

The provider is :class:`tests.adapters.demo.DemoCase`'s: a Registry over
``tests/servers/dual_stdio.py`` under a Policy that denies ``demo_add``.  Every tool entry
and every ``tool_result`` block is validated with pydantic against the ``anthropic``
package's own types, and the calls come in as the SDK's own ``ToolUseBlock`` objects.
"""

from __future__ import annotations

from typing import Any

from anthropic.types import (Message, TextBlock, ThinkingBlock, ToolParam, ToolResultBlockParam,
                             ToolUseBlock, Usage)
from pydantic import TypeAdapter

from mcp_client import MCPClientError
from mcp_client.adapters import anthropic as mcp_anthropic

from ..base import LeakCheckingTestCase
from .demo import DemoCase, ImportChecks

TOOL = TypeAdapter(ToolParam)
RESULT = TypeAdapter(ToolResultBlockParam)


def tool_use(ident: str, name: str, arguments: dict[str, Any]) -> ToolUseBlock:
    """A content block as the SDK hands it over (an object, not a dict)."""
    return ToolUseBlock(type="tool_use", id=ident, name=name, input=arguments)


def message(*content: Any) -> Message:
    """An assistant message as ``client.messages.create`` returns it."""
    return Message(id="msg_1", type="message", role="assistant", model="claude-test",
                   content=list(content), stop_reason="tool_use", stop_sequence=None,
                   usage=Usage(input_tokens=1, output_tokens=1))


class AnthropicTest(DemoCase):
    def test_every_tool_is_a_valid_tool_param(self) -> None:
        entries = mcp_anthropic.tools(self.provider)
        declared = [d["function"] for d in self.provider.tools_for_llm()]
        self.assertEqual([e["name"] for e in entries], [d["name"] for d in declared])
        self.assertIn("demo_echo", [e["name"] for e in entries])
        for entry, function in zip(entries, declared):
            with self.subTest(tool=entry["name"]):
                TOOL.validate_python(entry)
                self.assertLessEqual(set(entry), set(ToolParam.__annotations__))
                self.assertEqual(entry["input_schema"]["type"], "object")
                self.assertEqual(entry["input_schema"], function["parameters"])  # passed through
                self.assertEqual(entry["description"], function["description"])

    def test_a_schema_without_type_is_an_object_and_no_description_is_left_out(self) -> None:
        class Bare:
            def tools_for_llm(self) -> list[dict[str, Any]]:
                return [{"type": "function", "function": {"name": "t", "description": "",
                                                          "parameters": {"properties": {}}}},
                        {"type": "function", "function": {"description": "no name"}}]

            def execute_tool_calls(self, calls: Any) -> list[Any]:
                raise AssertionError("not called")

        self.assertEqual(mcp_anthropic.tools(Bare()),
                         [{"name": "t", "input_schema": {"properties": {}, "type": "object"}}])

    def test_a_provider_that_answers_too_few_calls_is_an_error(self) -> None:
        class Short:
            def tools_for_llm(self) -> list[Any]:
                return []

            def execute_tool_calls(self, calls: Any) -> list[Any]:
                return []

        with self.assertRaises(MCPClientError) as caught:
            mcp_anthropic.run(Short(), [tool_use("toolu_1", "demo_echo", {})])
        self.assertEqual(str(caught.exception), "the provider answered 1 calls with 0 results")

    def test_tool_use_blocks_run_as_one_batch_in_order_with_their_ids(self) -> None:
        reply = message(ThinkingBlock(type="thinking", thinking="hm", signature="sig"),
                        TextBlock(type="text", text="let me see"),
                        tool_use("toolu_1", "demo_echo", {"text": "hi"}),
                        tool_use("toolu_2", "demo_add", {"a": 2, "b": 3}),
                        {"type": "tool_use", "id": "toolu_3", "name": "demo_fail", "input": {}})
        results = mcp_anthropic.run(self.provider, reply.content)
        for result in results:
            RESULT.validate_python(result)
            self.assertLessEqual(set(result), set(ToolResultBlockParam.__annotations__))
        self.assertEqual([r["tool_use_id"] for r in results], ["toolu_1", "toolu_2", "toolu_3"])
        self.assertEqual(results[0], {"type": "tool_result", "tool_use_id": "toolu_1",
                                      "content": "hi", "is_error": False})
        self.assertIs(results[1]["is_error"], True)                  # the policy's refusal
        self.assertIn("refused by policy", results[1]["content"])
        self.assertIs(results[2]["is_error"], True)                  # the server's isError
        self.assertIn("failed: because", results[2]["content"])
        self.assertEqual(self.batches, [["demo_echo", "demo_fail"]])  # one batch, add never sent

    def test_no_tool_use_and_bad_input(self) -> None:
        self.assertEqual(mcp_anthropic.run(self.provider, []), [])
        self.assertEqual(mcp_anthropic.run(self.provider, [TextBlock(type="text", text="done"),
                                                           {"type": "server_tool_use"}]), [])
        whole = message(tool_use("toolu_1", "demo_echo", {"text": "hi"}))
        for bad in (whole, whole.model_dump(), "text", None, 3):
            with self.subTest(bad=type(bad).__name__), self.assertRaises(MCPClientError) as caught:
                mcp_anthropic.run(self.provider, bad)
            self.assertIn("message.content", str(caught.exception))
        for block, words in (({"type": "tool_use", "name": "demo_echo", "input": {}},
                              "content block 1: a tool_use block needs an id and a name (strings)"),
                             ({"type": "tool_use", "id": "toolu_1", "input": {}},
                              "content block 1: a tool_use block needs an id and a name (strings)"),
                             ({"type": "tool_use", "id": "toolu_1", "name": "demo_echo",
                               "input": '{"text": "hi"}'},
                              "content block 1 (demo_echo): a tool_use block's input must be "
                              "an object, not str")):
            with self.subTest(block=block), self.assertRaises(MCPClientError) as caught:
                mcp_anthropic.run(self.provider, [{"type": "text", "text": "x"}, block])
            self.assertEqual(str(caught.exception), words)
        self.assertEqual(self.batches, [])

    def test_an_input_left_out_is_no_arguments(self) -> None:
        results = mcp_anthropic.run(self.provider, [{"type": "tool_use", "id": "toolu_9",
                                                     "name": "demo_fail"}])
        self.assertEqual((results[0]["tool_use_id"], results[0]["is_error"]), ("toolu_9", True))
        self.assertEqual(self.sent, ["demo_fail"])


class ImportTest(ImportChecks, LeakCheckingTestCase):
    adapter, packages, extra = "anthropic", ("anthropic",), None
