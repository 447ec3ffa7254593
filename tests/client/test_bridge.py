"""The LLM bridge: declarations, call shapes, flattening, and every failure as an entry."""

from __future__ import annotations

import importlib.util
import json
import threading
import unittest
from typing import Any

from mcp_client import Client, MCPClientError, provider
from mcp_client.client import _bridge as bridge
from mcp_client.names import LLM_NAME
from mcp_client.testing import NO_ANSWER, Die, Error, ProgressKit, TestKit
from mcp_client.testing.kits import DOTTED_TOOL_NAME, LONG_TOOL_NAME
from mcp_client.types import ToolMessage

from ..base import ClientCase, LeakCheckingTestCase, fake_server

#: The test extra installs openai; its real tool-call types are what a caller hands over.
HAVE_OPENAI = importlib.util.find_spec("openai") is not None

OBJECT = {"type": "object", "properties": {"text": {"type": "string"}}}


def tool(name: str, **extra: Any) -> dict[str, Any]:
    return {"name": name, "inputSchema": OBJECT, **extra}


def call(name: Any, arguments: Any = "", ident: Any = "c1") -> dict[str, Any]:
    return {"id": ident, "type": "function", "function": {"name": name, "arguments": arguments}}


def text_result(text: str) -> dict[str, Any]:
    return {"resultType": "complete", "content": [{"type": "text", "text": text}]}


def openai_calls(*calls: dict[str, Any]) -> list[Any]:
    """Tool calls exactly as the openai package hands them over from an API response."""
    from openai.types.chat import ChatCompletion

    completion = ChatCompletion.model_validate({
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "m",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": None, "tool_calls": list(calls)}}]})
    tool_calls = completion.choices[0].message.tool_calls
    assert tool_calls is not None
    return list(tool_calls)


class FakeBridgeCase(ClientCase):
    def bridge_client(self, *tools: dict[str, Any], **options: Any) -> Client:
        """A client of a fake server (``self.fake``) whose tools are ``tools``."""
        fake = fake_server({"tools": {}})
        fake.on("tools/list", {"resultType": "complete", "tools": list(tools)})
        return self.connect(fake, **options)


class KitCase(LeakCheckingTestCase):
    def kit(self, **options: Any) -> Client:
        local = TestKit().local(**options)
        self.addCleanup(local.close)
        return local.client


class DeclarationTest(FakeBridgeCase):
    def test_openai_style_declarations(self) -> None:
        client = self.bridge_client(tool("echo", description="Echo it."),
                                    {"name": "bare"},
                                    tool("titled", title="A title"),
                                    tool("annotated", annotations={"title": "From annotations"}))
        self.assertEqual(client.tools_for_llm(), [
            {"type": "function", "function": {"name": "echo", "description": "Echo it.",
                                              "parameters": OBJECT}},
            {"type": "function", "function": {"name": "bare", "description": "",
                                              "parameters": {"type": "object",
                                                             "properties": {}}}},
            {"type": "function", "function": {"name": "titled", "description": "A title",
                                              "parameters": OBJECT}},
            {"type": "function", "function": {"name": "annotated",
                                              "description": "From annotations",
                                              "parameters": OBJECT}}])

    def test_declarations_are_copies(self) -> None:
        client = self.bridge_client(tool("echo"))
        first = client.tools_for_llm()
        first[0]["function"]["parameters"]["properties"]["text"]["type"] = "integer"
        self.assertEqual(client.tools_for_llm()[0]["function"]["parameters"], OBJECT)

    def test_names_a_model_api_refuses_are_mapped_and_routed_back(self) -> None:
        client = self.bridge_client(tool(DOTTED_TOOL_NAME), tool(LONG_TOOL_NAME),
                                    tool("files_read_text"))
        names = [d["function"]["name"] for d in client.tools_for_llm()]
        for name in names:
            self.assertRegex(name, LLM_NAME)
        self.assertEqual(names[2], "files_read_text")     # the real name keeps its name
        self.assertEqual(len(set(names)), 3)
        self.fake.on("tools/call", lambda req: text_result(req["params"]["name"]))
        entries = client.execute_tool_calls([call(n, ident=n) for n in names])
        self.assertEqual([e["content"] for e in entries],
                         [DOTTED_TOOL_NAME, LONG_TOOL_NAME, "files_read_text"])
        self.assertEqual(client.execute_tool_calls([call(DOTTED_TOOL_NAME)])[0]["content"],
                         f"unknown tool: {DOTTED_TOOL_NAME}")   # only the published name

    def test_tool_annotations(self) -> None:
        client = self.bridge_client(tool("read", annotations={"readOnlyHint": True}),
                                    tool(LONG_TOOL_NAME, annotations={"readOnlyHint": False}),
                                    tool("plain"))
        self.assertEqual(client.tool_annotations("read"), {"readOnlyHint": True})
        published = client.tools_for_llm()[1]["function"]["name"]
        self.assertEqual(client.tool_annotations(published), {"readOnlyHint": False})
        self.assertIsNone(client.tool_annotations(LONG_TOOL_NAME))   # never published
        self.assertIsNone(client.tool_annotations("plain"))
        self.assertIsNone(client.tool_annotations("missing"))


class CallShapeTest(KitCase):
    def test_every_argument_shape(self) -> None:
        client = self.kit()
        shapes: list[Any] = [{"text": "dict"}, '{"text": "json"}', ' {"text": "padded"} ']
        entries = client.execute_tool_calls([call("echo", a, f"c{n}")
                                             for n, a in enumerate(shapes)])
        self.assertEqual([e["content"] for e in entries], ["dict", "json", "padded"])
        self.assertEqual([e["tool_call_id"] for e in entries], ["c0", "c1", "c2"])
        for no_arguments in ("", "  ", None):
            with self.subTest(no_arguments):
                entry = client.execute_tool_calls([call("no_args", no_arguments)])[0]
                self.assertEqual(entry, {"role": "tool", "tool_call_id": "c1",
                                         "content": "nothing needed", "is_error": False,
                                         "structured_content": {"result": "nothing needed"}})
        missing = {"id": "m", "function": {"name": "no_args"}}
        self.assertEqual(client.execute_tool_calls([missing])[0]["content"],
                         "nothing needed")

    @unittest.skipUnless(HAVE_OPENAI, "the openai package is not installed")
    def test_openai_tool_call_objects(self) -> None:
        client = self.kit()
        calls = openai_calls(
            {"id": "call_a", "type": "function",
             "function": {"name": "echo", "arguments": '{"text": "from openai"}'}},
            {"id": "call_b", "type": "function", "function": {"name": "no_args", "arguments": ""}},
            {"id": "call_c", "type": "custom", "custom": {"name": "echo", "input": "hi"}})
        entries = client.execute_tool_calls(calls)
        self.assertEqual([(e["tool_call_id"], e["content"], e["is_error"]) for e in entries], [
            ("call_a", "from openai", False), ("call_b", "nothing needed", False),
            ("call_c", "malformed tool call: a call of type 'custom' is not a function call",
             True)])

    def test_every_malformed_shape_is_an_entry_and_the_rest_still_run(self) -> None:
        client = self.kit()
        calls: list[Any] = [
            "echo", None, 5, ["echo"],
            {"id": "no-function"},
            {"id": "null-function", "function": None},
            {"id": "no-name", "function": {"arguments": "{}"}},
            {"id": "empty-name", "function": {"name": "", "arguments": "{}"}},
            {"id": "number-name", "function": {"name": 7, "arguments": "{}"}},
            {"id": "wrong-type", "type": "custom", "function": {"name": "echo"}},
            call("echo", "{not json", "bad-json"),
            call("echo", "[1, 2]", "array"),
            call("echo", "null", "null"),
            call("echo", '"text"', "string"),
            call("echo", 42, "number"),
            call("nope", "{}", "unknown"),
            call("echo", {"text": "still runs"}, "fine"),
        ]
        entries = client.execute_tool_calls(calls)
        self.assertEqual(len(entries), len(calls))
        got = [(e["tool_call_id"], e["content"]) for e in entries]
        not_object = "a tool call must be an object with an id and a function, not "
        self.assertEqual(got, [
            (None, "malformed tool call: " + not_object + "str"),
            (None, "malformed tool call: " + not_object + "NoneType"),
            (None, "malformed tool call: " + not_object + "int"),
            (None, "malformed tool call: " + not_object + "list"),
            ("no-function", "malformed tool call: the call has no function"),
            ("null-function", "malformed tool call: the call has no function"),
            ("no-name", "malformed tool call: the call names no function"),
            ("empty-name", "malformed tool call: the call names no function"),
            ("number-name", "malformed tool call: the call names no function"),
            ("wrong-type", "malformed tool call: a call of type 'custom' is not a function call"),
            ("bad-json", "echo: arguments are not valid JSON (Expecting property name enclosed "
                         "in double quotes at position 1)"),
            ("array", "echo: arguments are not a JSON object (got an array)"),
            ("null", "echo: arguments are not a JSON object (got null)"),
            ("string", "echo: arguments are not a JSON object (got a string)"),
            ("number", "echo: arguments must be a JSON object or a string holding one, not int"),
            ("unknown", "unknown tool: nope"),
            ("fine", "still runs")])
        self.assertEqual([e["is_error"] for e in entries], [True] * 16 + [False])

    def test_calls_must_be_a_list(self) -> None:
        client = self.kit()
        bad_calls: list[Any] = [call("echo"), "echo", None, 3]
        for bad in bad_calls:
            with self.subTest(bad), self.assertRaises(MCPClientError):
                client.execute_tool_calls(bad)
        self.assertEqual(client.execute_tool_calls([]), [])
        self.assertEqual(len(client.execute_tool_calls((c for c in [call("no_args")]))), 1)


class FlatteningTest(KitCase):
    def test_every_content_shape(self) -> None:
        client = self.kit()
        names = ["image", "audio", "resource_link", "embedded_text", "embedded_blob", "mixed",
                 "weather", "silent", "fail"]
        entries = client.execute_tool_calls([
            call(n, '{"city": "Oslo"}' if n == "weather" else "", n) for n in names])
        contents = {e["tool_call_id"]: e["content"] for e in entries}
        self.assertEqual(contents, {
            "image": "[image: image/png, 67 bytes]",
            "audio": "[audio: audio/wav, 44 bytes]",
            "resource_link": "[resource link: kit://readme (readme, text/markdown)] "
                             "What the kit is for",
            "embedded_text": "[resource: kit://notes.txt]\nline one\nline two",
            "embedded_blob": "[resource: kit://pixel.png, image/png, 67 bytes]",
            "mixed": "here is everything:\n[image: image/png, 67 bytes]\n"
                     "[resource link: kit://readme (readme)]",
            "weather": '{\n  "temperature": 21.5,\n  "conditions": "sunny in Oslo"\n}',
            "silent": '{"result": null}',
            "fail": "Error executing tool fail: failed: because"})
        by_id = {e["tool_call_id"]: e for e in entries}
        self.assertEqual(by_id["weather"]["structured_content"],
                         {"temperature": 21.5, "conditions": "sunny in Oslo"})
        self.assertNotIn("structured_content", by_id["image"])
        self.assertTrue(by_id["fail"]["is_error"])
        self.assertEqual([e["is_error"] for e in entries], [False] * 8 + [True])
        self.assertNotIn("iVBOR", json.dumps(entries))   # no base64 PNG anywhere

    def test_flatten_content_edge_cases(self) -> None:
        self.assertEqual(provider.flatten_content(None), "")
        self.assertEqual(provider.flatten_content([
            "junk", {"type": "text", "text": 5}, {"type": "video", "data": "AAAA"},
            {"type": "image", "data": "QUJD"}, {"type": "image", "data": None, "mimeType": "x/y"},
            {"type": "resource", "resource": "?"}, {"type": "resource_link", "uri": "u",
                                                    "size": 10}]),
            "[unreadable content block]\n\n[video content omitted]\n"
            "[image: unknown type, 3 bytes]\n[image: x/y, unknown size]\n"
            "[unreadable resource]\n[resource link: u (10 bytes)]")
        self.assertEqual(provider.result_message("x", {"content": [], "isError": True})["content"],
                         "the tool reported an error and said nothing more")


class FailureTest(FakeBridgeCase):
    def run_one(self, client: Client, name: str = "t") -> ToolMessage:
        entries = client.execute_tool_calls([call(name, "{}", "id-1")])
        self.assertEqual(len(entries), 1)
        self.assertEqual(entries[0]["tool_call_id"], "id-1")
        self.assertTrue(entries[0]["is_error"])
        return entries[0]

    def test_a_json_rpc_error(self) -> None:
        client = self.bridge_client(tool("t"))
        self.fake.on("tools/call", Error(-32602, "Unknown tool: t"))
        self.assertEqual(self.run_one(client)["content"],
                         "the server refused the call to t: Unknown tool: t (code -32602)")

    def test_a_capability_the_client_does_not_offer(self) -> None:
        client = self.bridge_client(tool("t"))
        self.fake.on("tools/call", Error(-32021, "Client did not declare it", {
            "requiredCapabilities": {"elicitation": {"form": {}}}}))
        self.assertEqual(self.run_one(client)["content"],
                         "the server needs elicitation, which this client does not offer; "
                         "t could not run")

    def test_a_timeout(self) -> None:
        client = self.bridge_client(tool("t"), request_timeout=0.2)
        self.fake.on("tools/call", NO_ANSWER)
        self.assertEqual(self.run_one(client)["content"], "the call to t timed out after 0.2s")

    def test_an_exhausted_input_loop(self) -> None:
        client = self.bridge_client(tool("t"), max_input_rounds=1)
        self.fake.on("tools/call", {"resultType": "input_required", "requestState": "again"})
        self.assertEqual(self.run_one(client)["content"],
                         "t kept asking for input past 1 rounds; the call was abandoned")

    def test_a_dead_server(self) -> None:
        client = self.bridge_client(tool("t"))
        self.fake.on("tools/call", Die(3, "fatal: secret detail"))
        entry = self.run_one(client)
        self.assertEqual(entry["content"], "the server is gone (exit code 3); t could not run")
        self.assertEqual(self.run_one(client)["content"],
                         "the server is gone (exit code 3); t could not run")

    def test_a_closed_client(self) -> None:
        client = self.bridge_client(tool("t"))
        client.close()
        self.assertEqual(self.run_one(client)["content"],
                         "the connection to the server is closed; t could not run")

    def test_a_bug_inside_the_client_is_an_entry_too(self) -> None:
        def broken(name: str, arguments: Any, tool_call_id: str | None) -> dict[str, Any]:
            raise RuntimeError("oops")

        driven = bridge.Bridge(list_tools=lambda **_: [tool("t")], call=broken)
        with self.assertLogs("mcp_client.client._bridge", "ERROR"):
            entry, = driven.execute_tool_calls([call("t", "{}", "id-1")])
        self.assertEqual(entry["content"], "the call to t failed inside the client: "
                                           "RuntimeError: oops")

    def test_no_catalogue_means_names_go_through_as_given(self) -> None:
        client = self.bridge_client()
        self.fake.on("tools/list", Error(-32603, "broken"))
        self.fake.on("tools/call", lambda req: text_result(req["params"]["name"]))
        entries = client.execute_tool_calls([call("anything")])
        self.assertEqual(entries[0]["content"], "anything")

    def test_an_unknown_name_refetches_the_catalogue_once(self) -> None:
        client = self.bridge_client()
        self.fake.on("tools/list", {"tools": []}, {"tools": [tool("new")]})
        self.fake.on("tools/call", text_result("found"))
        self.assertEqual(client.execute_tool_calls([call("new")])[0]["content"], "found")
        self.assertEqual(len(self.fake.requests("tools/list")), 2)
        self.assertEqual(client.execute_tool_calls([call("gone")])[0]["content"],
                         "unknown tool: gone")
        self.assertEqual(len(self.fake.requests("tools/call")), 1)


class ProgressTest(LeakCheckingTestCase):
    """t/16: progress from a real server reaches on_progress under the right tool_call_id."""

    def check(self, provider_for: Any) -> None:
        reports: list[dict[str, Any]] = []
        lock = threading.Lock()

        def on_progress(report: dict[str, Any]) -> None:
            with lock:
                reports.append(report)

        client = provider_for(on_progress)
        entries = client.execute_tool_calls([
            call("count", '{"n": 3}', "call_a"), call("count", '{"n": 2}', "call_b"),
            call("ticks", '{"n": 2}', "call_c")])
        # The batch has finished when execute_tool_calls returns: every answer
        # and every report is already in, nothing is pending.
        self.assertEqual([e["content"] for e in entries],
                         ["counted to 3", "counted to 2", "ticked 2 times"])
        with lock:
            got = sorted((r["tool_call_id"], r["progress"], r.get("total"), r.get("message"))
                         for r in reports)
        self.assertEqual(got, [("call_a", 1, 3, "step 1/3"), ("call_a", 2, 3, "step 2/3"),
                               ("call_a", 3, 3, "step 3/3"), ("call_b", 1, 2, "step 1/2"),
                               ("call_b", 2, 2, "step 2/2"), ("call_c", 1, None, None),
                               ("call_c", 2, None, None)])
        self.assertEqual(client._connection.pending, 0)

    def test_a_local_server(self) -> None:
        def local(on_progress: Any) -> Client:
            server = ProgressKit().local(on_progress=on_progress)
            self.addCleanup(server.close)
            return server.client
        self.check(local)

    def test_a_stdio_server(self) -> None:
        def stdio(on_progress: Any) -> Client:
            client = ProgressKit.connect_stdio(on_progress=on_progress)
            self.addCleanup(client.close)
            return client
        self.check(stdio)

    def test_the_bridge_hands_the_call_id_to_the_client(self) -> None:
        seen: list[tuple[str, Any]] = []

        def recording(name: str, arguments: Any, tool_call_id: str | None) -> dict[str, Any]:
            seen.append((name, tool_call_id))
            return text_result("ok")

        driven = bridge.Bridge(list_tools=lambda **_: [tool("t")], call=recording)
        entries = driven.execute_tool_calls([
            call("t", "", "call_9"), call("t", "", None), call("t", "", 12)])
        self.assertEqual(seen, [("t", "call_9"), ("t", None), ("t", "12")])
        self.assertEqual([e["tool_call_id"] for e in entries], ["call_9", None, 12])
