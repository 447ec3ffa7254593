"""The result types: every public name is a TypedDict or an alias, and the client's
results carry every key their type calls required, and no bookkeeping."""

from __future__ import annotations

import sys
import typing
import unittest
from typing import Any

from mcp_client import types

from ..base import ClientCase, fake_server

#: What the fake server offers: everything these tests ask of it.
CAPABILITIES: dict[str, Any] = {"tools": {}, "prompts": {}, "resources": {}, "completions": {}}
TOOL = {"name": "echo", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": True}}
TEXT = {"type": "text", "text": "hi"}
#: What the fake server answers, by method; each shape is the schema's.
ANSWERS: dict[str, dict[str, Any]] = {
    "tools/list": {"tools": [TOOL]},
    "resources/list": {"resources": [{"uri": "file:///a", "name": "a"}]},
    "resources/templates/list": {"resourceTemplates": [{"uriTemplate": "file:///{p}",
                                                        "name": "files"}]},
    "prompts/list": {"prompts": [{"name": "greet", "arguments": [{"name": "who"}]}]},
    "tools/call": {"content": [TEXT, {"type": "image", "data": "AAAA", "mimeType": "image/png"},
                               {"type": "resource_link", "uri": "file:///a", "name": "a"},
                               {"type": "resource", "resource": {"uri": "file:///a",
                                                                 "text": "A"}}],
                   "structuredContent": {"ok": True}},
    "resources/read": {"contents": [{"uri": "file:///a", "text": "A"},
                                    {"uri": "file:///b", "blob": "AAAA"}]},
    "prompts/get": {"messages": [{"role": "user", "content": TEXT}]},
    "completion/complete": {"completion": {"values": ["python"], "hasMore": False}},
}
BLOCKS = {"text": types.TextContent, "image": types.ImageContent, "audio": types.AudioContent,
          "resource_link": types.ResourceLink, "resource": types.EmbeddedResource}


def required_keys(kind: Any) -> set[str]:
    """The keys ``kind`` does not mark ``NotRequired``."""
    hints = typing.get_type_hints(kind, include_extras=True)
    return {key for key, hint in hints.items()
            if typing.get_origin(hint) is not getattr(typing, "NotRequired", None)}


class SurfaceTest(unittest.TestCase):
    def test_every_public_name_exists_and_every_class_is_public(self) -> None:
        self.assertLessEqual({"text_of", "block_text", "resource_text"}, set(types.__all__))
        for name in types.__all__:
            with self.subTest(name=name):
                self.assertTrue(hasattr(types, name))
        classes = {name for name, value in vars(types).items()
                   if isinstance(value, type) and value.__module__ == types.__name__}
        self.assertEqual(sorted(classes - set(types.__all__)), [])

    def test_the_block_union_is_the_five_blocks(self) -> None:
        self.assertEqual(set(typing.get_args(types.ContentBlock)), set(BLOCKS.values()))

    @unittest.skipIf(sys.version_info < (3, 11), "NotRequired is read at run time from 3.11")
    def test_the_schema_s_required_keys_are_the_required_ones(self) -> None:
        for kind, keys in ((types.Tool, {"name", "inputSchema"}),
                           (types.CallToolResult, {"content"}),
                           (types.TextContent, {"type", "text"}),
                           (types.ResourceLink, {"type", "uri", "name"}),
                           (types.GetPromptResult, {"messages"}),
                           (types.Implementation, set()),
                           (types.ToolMessage, {"role", "tool_call_id", "content", "is_error"})):
            with self.subTest(kind=kind.__name__):
                self.assertEqual(required_keys(kind), keys)


@unittest.skipIf(sys.version_info < (3, 11), "NotRequired is read at run time from 3.11")
class ShapesTest(ClientCase):
    """What the client returns has every key its type requires."""

    def setUp(self) -> None:
        super().setUp()
        fake = fake_server(CAPABILITIES)
        for method, answer in ANSWERS.items():
            fake.on(method, {"resultType": "complete", **answer})
        self.client = self.connect(fake)

    def assert_shaped(self, value: Any, kind: Any) -> None:
        self.assertIsInstance(value, dict)
        self.assertLessEqual(required_keys(kind), set(value), kind.__name__)

    def test_the_lists(self) -> None:
        for entries, kind in ((self.client.list_tools(), types.Tool),
                              (self.client.list_resources(), types.Resource),
                              (self.client.list_resource_templates(), types.ResourceTemplate),
                              (self.client.list_prompts(), types.Prompt)):
            with self.subTest(kind=kind.__name__):
                self.assertEqual(len(entries), 1)
                self.assert_shaped(entries[0], kind)

    def test_a_call_result_and_its_blocks(self) -> None:
        result = self.client.call_tool("echo")
        self.assert_shaped(result, types.CallToolResult)
        self.assertNotIn("resultType", result)
        for block in result["content"]:
            with self.subTest(block=block["type"]):
                self.assert_shaped(block, BLOCKS[block["type"]])

    def test_a_read_result(self) -> None:
        contents = self.client.read_resource("file:///a")["contents"]
        self.assert_shaped(contents[0], types.TextResourceContents)
        self.assert_shaped(contents[1], types.BlobResourceContents)

    def test_a_prompt_and_a_completion(self) -> None:
        prompt = self.client.get_prompt("greet")
        self.assert_shaped(prompt, types.GetPromptResult)
        self.assert_shaped(prompt["messages"][0], types.PromptMessage)
        self.assert_shaped(self.client.complete({"type": "ref/prompt", "name": "greet"},
                                                {"name": "who", "value": "p"}),
                           types.Completion)

    def test_the_bridge(self) -> None:
        declaration = self.client.tools_for_llm()[0]
        self.assert_shaped(declaration, types.ToolDeclaration)
        self.assert_shaped(declaration["function"], types.FunctionDeclaration)
        entry = self.client.execute_tool_calls([{"id": "c1", "type": "function",
                                                 "function": {"name": "echo",
                                                              "arguments": "{}"}}])[0]
        self.assert_shaped(entry, types.ToolMessage)
        self.assertEqual(set(entry) - set(typing.get_type_hints(types.ToolMessage)), set())
        self.assertEqual(self.client.tool_annotations("echo"), {"readOnlyHint": True})

    def test_the_text_of_each_result(self) -> None:
        self.assertEqual(types.text_of(self.client.call_tool("echo")), "hi")
        self.assertEqual(types.resource_text(self.client.read_resource("file:///a")), "A")
        message = self.client.get_prompt("greet")["messages"][0]
        self.assertEqual(types.block_text(message["content"]), "hi")


class TextHelpersTest(unittest.TestCase):
    """text_of, block_text and resource_text: the text a caller would otherwise narrow to."""

    IMAGE: types.ImageContent = {"type": "image", "data": "AAAA", "mimeType": "image/png"}

    def test_text_of_joins_the_text_blocks_and_skips_the_others(self) -> None:
        result: types.CallToolResult = {"content": [
            {"type": "text", "text": "a"}, self.IMAGE, {"type": "text", "text": "b"}]}
        self.assertEqual(types.text_of(result), "ab")
        self.assertEqual(types.text_of({"content": [self.IMAGE]}), "")
        self.assertEqual(types.text_of({"content": []}), "")

    def test_block_text_refuses_a_block_that_is_not_text(self) -> None:
        self.assertEqual(types.block_text({"type": "text", "text": "x"}), "x")
        with self.assertRaises(ValueError) as caught:
            types.block_text(self.IMAGE)
        self.assertEqual(str(caught.exception), "a 'image' block has no text")

    def test_resource_text_joins_the_text_entries_and_skips_the_blobs(self) -> None:
        self.assertEqual(types.resource_text({"contents": [
            {"uri": "u", "text": "a"}, {"uri": "u", "blob": "AAAA"},
            {"uri": "u", "text": "b"}]}), "ab")
        self.assertEqual(types.resource_text({"contents": [{"uri": "u", "blob": "AAAA"}]}), "")


class MissingListsTest(ClientCase):
    """A server that leaves out a list the schema requires: the type still holds."""

    def test_content_contents_and_messages_are_empty_lists_not_absent(self) -> None:
        fake = fake_server(CAPABILITIES)
        fake.on("tools/list", {"resultType": "complete", "tools": [TOOL]})
        fake.on("tools/call", {"resultType": "complete", "structuredContent": {"ok": True}})
        fake.on("resources/read", {"resultType": "complete"})
        fake.on("prompts/get", {"resultType": "complete", "messages": None})
        client = self.connect(fake)
        result = client.call_tool("echo")
        self.assertEqual(result, {"content": [], "structuredContent": {"ok": True}})
        self.assertEqual(client.read_resource("file:///a"), {"contents": []})
        self.assertEqual(client.get_prompt("greet"), {"messages": []})
        self.assertEqual(client.execute_tool_calls([{"id": "1", "function": {
            "name": "echo", "arguments": {}}}])[0]["content"], '{"ok": true}')
