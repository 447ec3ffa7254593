"""LocalServer and InProcessTransport, and t/13: golden parity with the same server over stdio."""

from __future__ import annotations

import subprocess
import threading
from typing import Any

from mcp_client import Client, MCPClientError, ServerGone, TransportClosed
from mcp_client.local import LocalServer, is_sdk_server
from mcp_client.testing import InProcessTransport, TestKit
from mcp_client.types import ToolDeclaration, ToolMessage, resource_text, text_of

from ..base import PYTHON, LeakCheckingTestCase
from ..client.test_bridge import HAVE_OPENAI, call, openai_calls


def lowlevel_server(crash: bool = False) -> Any:
    """A server written against the SDK's low-level ``Server``."""
    import mcp_types as types
    from mcp.server import Server

    async def list_tools(ctx: Any, params: Any) -> Any:
        return types.ListToolsResult(tools=[
            types.Tool(name="hello", description="Say hello.",
                       input_schema={"type": "object", "properties": {"who": {"type": "string"}}},
                       annotations=types.ToolAnnotations(read_only_hint=True)),
            types.Tool(name="boom", input_schema={"type": "object"})])

    async def call_tool(ctx: Any, params: Any) -> Any:
        if params.name == "boom":
            raise RuntimeError("kaboom")
        who = (params.arguments or {}).get("who", "world")
        return types.CallToolResult(content=[types.TextContent(type="text", text=f"hello {who}")])

    return Server("lowlevel", version="0.1.0", on_list_tools=list_tools,
                  on_call_tool=call_tool)


class InProcessTransportTest(LeakCheckingTestCase):
    def test_a_client_in_front_of_an_sdk_server(self) -> None:
        kit = TestKit(name="kit-one")
        with Client(transport=InProcessTransport(kit.server)) as client:
            self.assertEqual((client.era, client.protocol_version), ("modern", "2026-07-28"))
            self.assertEqual(client.server_info, {"name": "kit-one", "version": "1.0.0"})
            self.assertEqual(client.instructions, "Tools of every shape, for testing agents.")
            self.assertEqual(client.call_tool("echo", {"text": "hi"})["content"],
                             [{"type": "text", "text": "hi"}])
            self.assertEqual(resource_text(client.read_resource("kit://readme")),
                             "# The test kit\nOne tool of every shape.")
            self.assertIn("<InProcessTransport server='kit-one' open>", repr(client))
            names = {t.name for t in threading.enumerate()}
            self.assertTrue({"mcp-inprocess-loop-kit-one", "mcp-inprocess-reader-kit-one"} <= names)
        self.assertEqual(repr(client.transport), "<InProcessTransport server='kit-one' closed>")
        client.transport.close()   # idempotent

    def test_closing_with_a_call_in_flight(self) -> None:
        client = Client(transport=InProcessTransport(TestKit().server))
        client.era
        pending = client.call_tool_async("slow", {"seconds": 60})
        client.call_tool("echo", {"text": "the slow call is running"})
        client.close()
        with self.assertRaises(TransportClosed):
            pending.result(10)
        with self.assertRaises(TransportClosed):
            client.transport.send({"jsonrpc": "2.0", "method": "x"})

    def test_the_same_server_object_serves_two_clients(self) -> None:
        kit = TestKit()
        with Client(transport=InProcessTransport(kit.server)) as one, \
                Client(transport=InProcessTransport(kit.server)) as two:
            self.assertEqual(text_of(one.call_tool("ticket")), "1")
            self.assertEqual(text_of(two.call_tool("ticket")), "2")

    def test_a_low_level_server(self) -> None:
        with LocalServer(lowlevel_server()) as local:
            self.assertEqual(local.tools_for_llm(), [
                {"type": "function", "function": {
                    "name": "hello", "description": "Say hello.",
                    "parameters": {"type": "object", "properties": {"who": {"type": "string"}}}}},
                {"type": "function", "function": {"name": "boom", "description": "",
                                                  "parameters": {"type": "object"}}}])
            self.assertEqual(local.execute_tool_calls([call("hello", '{"who": "you"}')]),
                             [{"role": "tool", "tool_call_id": "c1", "content": "hello you",
                               "is_error": False}])
            self.assertEqual(local.tool_annotations("hello"), {"readOnlyHint": True})

    def test_a_server_that_stops_is_a_dead_wire(self) -> None:
        import logging
        logging.getLogger("mcp").disabled = True
        self.addCleanup(setattr, logging.getLogger("mcp"), "disabled", False)
        transport = InProcessTransport(lowlevel_server(), raise_exceptions=True)
        with Client(transport=transport) as client:
            entries = client.execute_tool_calls([call("boom", "", 1)])
            self.assertTrue(entries[0]["is_error"])
            with self.assertRaises(ServerGone) as caught:
                client.call_tool("hello")
            self.assertIn("the in-process server stopped", str(caught.exception))
            self.assertEqual(client.execute_tool_calls([call("hello", "", 2)])[0],
                             {"role": "tool", "tool_call_id": 2, "is_error": True,
                              "content": "the server is gone; hello could not run"})

    def test_only_sdk_servers(self) -> None:
        for thing in (object(), "server", None):
            with self.subTest(thing), self.assertRaises(MCPClientError):
                InProcessTransport(thing)
            self.assertFalse(is_sdk_server(thing))
        self.assertTrue(is_sdk_server(TestKit().server))
        self.assertTrue(is_sdk_server(lowlevel_server()))

    def test_importing_the_package_does_not_import_the_sdk(self) -> None:
        code = ("import sys, mcp_client, mcp_client.testing, mcp_client.registry, "
                "mcp_client.local, mcp_client.client._bridge, mcp_client.batch, "
                "mcp_client.testing.kits\n"
                "loaded = sorted(m for m in sys.modules if m == 'mcp' or m.startswith('mcp.'))\n"
                "print(loaded)\n")
        done = subprocess.run([PYTHON, "-c", code], capture_output=True, text=True, timeout=60)
        self.assertEqual((done.returncode, done.stdout.strip()), (0, "[]"), done.stderr)


class GoldenParityTest(LeakCheckingTestCase):
    """t/13: the same toolkit behind LocalServer and behind a stdio Client, byte for byte."""

    def batches(self, published: list[str]) -> list[list[Any]]:
        dotted = next(n for n in published if n.startswith("files"))
        long = next(n for n in published if n.startswith("read_the"))
        read_only = [   # widened: overlapped, identical calls merged
            call("echo", {"text": "dict"}, "a1"), call("echo", '{"text": "json"}', "a2"),
            call("echo", ' {"text": "padded"} ', "a3"), call("add", {"a": 1, "b": 2}, "a4"),
            call("add", '{"b": 2, "a": 1}', "a5"), call("ticket", "", "a6"),
            call("ticket", "{}", "a7"), call("weather", '{"city": "Oslo"}', "a8"),
            call(dotted, '{"path": "x"}', "a9"), call(long, "", "a10"),
            call("files.read_text", {"path": "y"}, "a11")]
        every_shape = [   # serial: fail, no_args and write_note are not read-only
            call("no_args", "", "b1"), call("no_args", "   ", "b2"),
            {"id": "b3", "function": {"name": "no_args"}}, call("no_args", None, "b4"),
            call("image", "", "b5"), call("audio", {}, "b6"), call("resource_link", "", "b7"),
            call("embedded_text", "", "b8"), call("embedded_blob", "", "b9"),
            call("mixed", "", "b10"), call("silent", "", "b11"), call("fail", "", "b12"),
            call("fail", '{"reason": "why"}', "b13"), call("write_note", {"text": "n"}, "b14"),
            call("read_notes", "", "b15"), call("ticket", "", "b16"), call("ticket", "", "b17"),
            call("echo", "{bad", "b18"), call("echo", "[1]", "b19"), call("echo", 3, "b20"),
            call("nope", "", "b21"), {"id": "b22"}, "junk", call("add", {"a": "x"}, "b23")]
        batches: list[list[Any]] = [read_only, every_shape]
        if HAVE_OPENAI:
            batches.append(openai_calls(
                {"id": "c1", "type": "function",
                 "function": {"name": "echo", "arguments": '{"text": "openai"}'}},
                {"id": "c2", "type": "function", "function": {"name": dotted, "arguments": ""}},
                {"id": "c3", "type": "custom", "custom": {"name": "echo", "input": "x"}}))
        return batches

    def run_all(self, client: Client) -> tuple[list[ToolDeclaration], list[list[ToolMessage]]]:
        declarations = client.tools_for_llm()
        published = [d["function"]["name"] for d in declarations]
        return declarations, [client.execute_tool_calls(batch)
                              for batch in self.batches(published)]

    def test_local_and_stdio_are_identical(self) -> None:
        with TestKit().local() as local:
            golden = self.run_all(local.client)
        self.assertEqual(golden[1][0][5]["content"], "1")    # merged: the server saw one ticket
        self.assertEqual(golden[1][1][15:17], [
            {"role": "tool", "tool_call_id": "b16", "content": "2", "is_error": False,
             "structured_content": {"result": 2}},
            {"role": "tool", "tool_call_id": "b17", "content": "3", "is_error": False,
             "structured_content": {"result": 3}}])
        for options in ({}, {"era": "legacy"}):
            with self.subTest(options):
                remote = TestKit.connect_stdio(**options)
                self.addCleanup(remote.close)
                self.assertEqual(self.run_all(remote), golden)
