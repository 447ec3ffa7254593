"""``mcp_client.adapters.gemini`` over a real server, against the SDK's own types.

The provider is :class:`tests.adapters.demo.DemoCase`'s: a Registry over
``tests/servers/dual_stdio.py`` under a Policy that denies ``demo_add``.  Every declaration
and every answer part is validated with pydantic against ``google.genai.types`` (whose
models forbid unknown keys), and the calls come in as the SDK's own objects.
"""

from __future__ import annotations

from typing import Any

from google.genai import types

from mcp_client import MCPClientError
from mcp_client.adapters import gemini

from ..base import LeakCheckingTestCase
from .demo import DemoCase, ImportChecks


def model_reply(*parts: types.Part) -> types.GenerateContentResponse:
    """A response as ``client.models.generate_content`` returns it."""
    return types.GenerateContentResponse(candidates=[types.Candidate(
        content=types.Content(role="model", parts=list(parts)))])


def called(name: str, args: dict[str, Any] | None = None, ident: str | None = None) -> types.Part:
    return types.Part(function_call=types.FunctionCall(id=ident, name=name, args=args))


class GeminiTest(DemoCase):
    def test_the_tools_are_what_generate_content_config_takes(self) -> None:
        found = gemini.tools(self.provider)
        config = types.GenerateContentConfig.model_validate({"tools": found})
        self.assertEqual(len(found), 1)
        self.assertEqual(list(found[0]), ["function_declarations"])
        tool = types.Tool.model_validate(found[0])
        self.assertEqual(config.tools, [tool])
        declared = [d["function"] for d in self.provider.tools_for_llm()]
        self.assertEqual(found[0]["function_declarations"], gemini.declarations(self.provider))
        self.assertEqual([d.name for d in tool.function_declarations or []],
                         [d["name"] for d in declared])
        for entry, function in zip(found[0]["function_declarations"], declared):
            with self.subTest(tool=entry["name"]):
                checked = types.FunctionDeclaration.model_validate(entry)
                self.assertIsNone(checked.parameters)        # no conversion to the subset
                self.assertEqual(checked.parameters_json_schema, function["parameters"])
                self.assertEqual(entry["parameters_json_schema"]["type"], "object")
                self.assertEqual(checked.description, function["description"])

    def test_no_tools_is_no_tool(self) -> None:
        class Empty:
            def tools_for_llm(self) -> list[Any]:
                return []

            def execute_tool_calls(self, calls: Any) -> list[Any]:
                raise AssertionError("not called")

        self.assertEqual(gemini.tools(Empty()), [])

    def test_function_calls_run_as_one_batch_in_order_with_their_ids(self) -> None:
        response = model_reply(types.Part(text="let me see"),
                               called("demo_echo", {"text": "hi"}, "call-1"),
                               called("demo_add", {"a": 2, "b": 3}, "call-2"),
                               called("demo_fail"))                     # no id, no args
        parts = gemini.run(self.provider, response.function_calls)
        checked = [types.Part.model_validate(part) for part in parts]
        self.assertEqual(checked[0], types.Part(function_response=types.FunctionResponse(
            id="call-1", name="demo_echo", response={"output": "hi"})))
        self.assertEqual(parts[1]["function_response"]["id"], "call-2")
        self.assertEqual(list(parts[1]["function_response"]["response"]), ["error"])  # refused
        self.assertIn("refused by policy", parts[1]["function_response"]["response"]["error"])
        self.assertNotIn("id", parts[2]["function_response"])     # the call had none
        self.assertEqual(checked[2], types.Part.from_function_response(
            name="demo_fail", response={"error": parts[2]["function_response"]["response"]
                                        ["error"]}))
        self.assertIn("failed: because", parts[2]["function_response"]["response"]["error"])
        self.assertEqual(self.batches, [["demo_echo", "demo_fail"]])   # add never sent

    def test_a_contents_parts_and_dicts_are_read_too(self) -> None:
        response = model_reply(types.Part(text="thinking aloud"),
                               called("demo_echo", {"text": "a"}, "p1"))
        model_parts = response.candidates[0].content.parts  # type: ignore[index,union-attr]
        parts = gemini.run(self.provider, [*(model_parts or []),
                                           {"function_call": {"name": "demo_echo",
                                                              "args": {"text": "b"}}},
                                           {"name": "demo_echo", "args": {"text": "c"},
                                            "id": "p3"},
                                           {"text": "a dict part"},
                                           {"function_call": types.FunctionCall(
                                               name="demo_echo", args={"text": "d"})}])
        self.assertEqual([p["function_response"].get("id") for p in parts],
                         ["p1", None, "p3", None])
        self.assertEqual([p["function_response"]["response"] for p in parts],
                         [{"output": "a"}, {"output": "b"}, {"output": "c"}, {"output": "d"}])
        self.assertEqual(self.batches, [["demo_echo"] * 4])

    def test_no_call_and_bad_input(self) -> None:
        self.assertEqual(gemini.run(self.provider, []), [])
        self.assertEqual(gemini.run(self.provider, [types.Part(text="done")]), [])
        whole = model_reply(called("demo_echo", {"text": "hi"}))
        for bad in (whole, whole.model_dump(), called("demo_echo"), "text", None):
            with self.subTest(bad=type(bad).__name__), self.assertRaises(MCPClientError) as caught:
                gemini.run(self.provider, bad)
            self.assertIn("response.function_calls", str(caught.exception))
        for entry, words in (({"args": {}}, "item 0: a function call needs a name (string)"),
                             ({"function_call": {"id": "x"}},
                              "item 0: a function call needs a name (string)"),
                             ({"function_call": "demo_echo"},
                              "item 0: a function_call must be an object, not str"),
                             ({"name": "demo_echo", "args": ["hi"]},
                              "item 0 (demo_echo): a function call's args must be an object, "
                              "not list"),
                             ({"name": "demo_echo", "id": 7},
                              "item 0 (demo_echo): a function call's id must be a non-empty "
                              "string")):
            with self.subTest(entry=entry), self.assertRaises(MCPClientError) as caught:
                gemini.run(self.provider, [entry])
            self.assertEqual(str(caught.exception), words)
        self.assertEqual(self.batches, [])


class ImportTest(ImportChecks, LeakCheckingTestCase):
    adapter, packages, extra = "gemini", ("google",), None
