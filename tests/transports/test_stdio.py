"""Real child processes: SDK-built servers of both eras over stdio (tests/servers/)."""

from __future__ import annotations

import threading
from concurrent.futures import Future

from mcp_client import (Client, MCPClientError, ProtocolError, ServerGone, SpawnFailed, Timeout,
                        TransportClosed)
from mcp_client.types import CallToolResult, block_text, resource_text, text_of

from ..base import PYTHON, ClientCase, LeakCheckingTestCase


class StdioTestCase(ClientCase):
    script = "dual_stdio.py"


class DualEraServerTest(StdioTestCase):
    def test_reached_as_modern(self) -> None:
        client = self.connect()
        self.assertEqual((client.era, client.protocol_version), ("modern", "2026-07-28"))
        self.assertEqual(client.supported_versions, ("2026-07-28",))
        self.assertEqual(client.server_info, {"name": "demo-server", "version": "0.1.0"})
        self.assertEqual(client.instructions, "Demo server for protocol tests.")
        self.assertIn("tools", client.capabilities)
        self.exercise(client)
        self.assertFalse(client.ping())   # 2026-07-28 removed ping

    def test_reached_with_era_legacy(self) -> None:
        client = self.connect(era="legacy")
        self.assertEqual((client.era, client.protocol_version), ("legacy", "2025-11-25"))
        self.assertEqual(client.server_info, {"name": "demo-server", "version": "0.1.0"})
        self.exercise(client)
        self.assertTrue(client.ping())

    def exercise(self, client: Client) -> None:
        tools = {tool["name"]: tool for tool in client.list_tools()}
        self.assertIn("echo", tools)
        self.assertTrue(tools["echo"]["annotations"]["readOnlyHint"])
        result = client.call_tool("echo", {"text": "hi"})
        self.assertEqual(result["content"], [{"type": "text", "text": "hi"}])
        self.assertEqual(result["structuredContent"], {"result": "hi"})
        self.assertFalse({"resultType", "_meta", "ttlMs", "cacheScope"} & set(result))
        failed = client.call_tool("fail")
        self.assertTrue(failed["isError"])
        self.assertEqual(client.call_tool("add", {"a": 2, "b": 3})["structuredContent"],
                         {"result": 5})
        self.assertEqual([r["uri"] for r in client.list_resources()], ["res://readme"])
        self.assertEqual(resource_text(client.read_resource("res://readme")),
                         "# Demo\nhello")
        self.assertEqual([p["name"] for p in client.list_prompts()], ["review"])
        prompt = client.get_prompt("review", {"code": "x=1"})
        self.assertEqual(block_text(prompt["messages"][0]["content"]), "Please review:\nx=1")
        self.assertEqual(client.list_resource_templates(), [])

    def test_sixty_four_concurrent_calls_answered_out_of_order(self) -> None:
        client = self.connect()
        client.era
        delays = [(n * 37) % 64 * 10 for n in range(64)]
        order: list[str] = []
        lock = threading.Lock()
        futures = []

        def done(future: Future[CallToolResult]) -> None:
            with lock:
                order.append(text_of(future.result()))

        for n, ms in enumerate(delays):
            future = client.call_tool_async("delay", {"ms": ms, "tag": f"call-{n}"})
            future.add_done_callback(done)
            futures.append(future)
        for n, future in enumerate(futures):
            self.assertEqual(text_of(future.result(30)), f"call-{n}")
        self.assertNotEqual(order, [f"call-{n}" for n in range(64)])

    def test_a_timeout_is_cancelled_on_the_wire_and_the_pipe_stays_usable(self) -> None:
        client = self.connect()
        client.era
        with self.assertRaises(Timeout):
            client.call_tool("slow", {"seconds": 5}, timeout=0.3)
        self.assertEqual(text_of(client.call_tool("echo", {"text": "after"})),
                         "after")
        self.assertEqual([w for w in self.warnings if "late" in w], [])


class LegacyServerTest(StdioTestCase):
    def test_legacy_only_server(self) -> None:
        client = self.connect(script="legacy_stdio.py")
        self.assertEqual(client.era, "legacy")
        self.assertEqual(text_of(client.call_tool("echo", {"text": "legacy"})),
                         "legacy")
        self.assertTrue(client.ping())

    def test_empty_supported_versions(self) -> None:
        client = self.connect(script="legacy_stdio.py", args=["--empty-discover"])
        self.assertEqual(client.era, "legacy")
        self.assertEqual(len(client.list_tools()), 15)

    def test_a_server_that_exits_unless_initialize_comes_first(self) -> None:
        client = self.connect(script="initialize_first.py")
        self.assertEqual(client.era, "legacy")
        self.assertEqual(client.call_tool("add", {"a": 1, "b": 1})["structuredContent"],
                         {"result": 2})
        self.assertTrue(any("restarting" in w for w in self.warnings), self.warnings)


class AsyncTwinsTest(StdioTestCase):
    """Each ``*_async`` twin's Future holds what its blocking method returns or raises."""

    WAIT = 30.0

    def test_list_tools_async(self) -> None:
        client = self.connect()
        future = client.list_tools_async(refresh=True)
        self.assertIsInstance(future, Future)
        names = [tool["name"] for tool in future.result(self.WAIT)]
        self.assertIn("echo", names)
        self.assertEqual(names, [tool["name"] for tool in client.list_tools()])

    def test_list_resources_async(self) -> None:
        client = self.connect(era="legacy")
        resources = client.list_resources_async(timeout=10).result(self.WAIT)
        self.assertEqual([r["uri"] for r in resources], ["res://readme"])

    def test_list_resource_templates_async(self) -> None:
        client = self.connect()
        self.assertEqual(client.list_resource_templates_async(refresh=True).result(self.WAIT), [])
        with self.assertRaises(MCPClientError) as caught:   # the keyword reaches the method
            client.list_resource_templates_async(timeout=-1).result(self.WAIT)
        self.assertIn("timeout must be a number", str(caught.exception))

    def test_list_prompts_async(self) -> None:
        client = self.connect()
        prompts = client.list_prompts_async().result(self.WAIT)
        self.assertEqual([p["name"] for p in prompts], ["review"])
        self.assertEqual(prompts, client.list_prompts())

    def test_get_prompt_async(self) -> None:
        client = self.connect()
        prompt = client.get_prompt_async("review", {"code": "x=1"}).result(self.WAIT)
        self.assertEqual(block_text(prompt["messages"][0]["content"]), "Please review:\nx=1")
        with self.assertRaises(ProtocolError):
            client.get_prompt_async("no-such-prompt", timeout=10).result(self.WAIT)

    def test_ping_async(self) -> None:
        for era, answer in (("auto", False), ("legacy", True)):   # 2026-07-28 removed ping
            with self.subTest(era=era):
                client = self.connect(era=era)
                self.assertIs(client.ping_async(timeout=10).result(self.WAIT), answer)
                client.close()
                with self.assertRaises(TransportClosed):
                    client.ping_async()


class MisbehavingServerTest(StdioTestCase):
    def test_death_mid_request_carries_exit_code_and_last_words(self) -> None:
        lines: list[str] = []
        client = self.connect(on_stderr=lines.append)
        client.era
        slow = client.call_tool_async("slow", {"seconds": 30})
        with self.assertRaises(ServerGone) as caught:
            client.call_tool("die", {"code": 3, "message": "fatal: out of cheese"})
        self.assertEqual(caught.exception.exit_code, 3)
        self.assertTrue(caught.exception.stderr_tail.endswith("fatal: out of cheese"),
                        caught.exception.stderr_tail)
        self.assertIn("fatal: out of cheese", lines)
        with self.assertRaises(ServerGone):
            slow.result(10)
        with self.assertRaises(ServerGone):
            client.call_tool("echo", {"text": "anyone?"})

    def test_garbage_and_blank_lines_between_real_messages(self) -> None:
        client = self.connect(script="garbage_stdio.py")
        self.assertEqual(client.era, "modern")
        for n in range(5):
            self.assertEqual(text_of(client.call_tool("echo", {"text": str(n)})),
                             str(n))
        self.assertTrue(any("not JSON" in w for w in self.warnings), self.warnings)
        self.assertTrue(any("not a JSON-RPC message" in w for w in self.warnings),
                        self.warnings)


class SpawnTest(LeakCheckingTestCase):
    def test_a_missing_command(self) -> None:
        with self.assertRaises(SpawnFailed) as caught:
            Client.connect_stdio("/nonexistent/mcp-server", args=["x"])
        self.assertEqual(caught.exception.command, "/nonexistent/mcp-server")
        self.assertIn("No such file or directory", caught.exception.reason)

    def test_nul_bytes_are_refused_up_front(self) -> None:
        for options in ({"args": ["a\0b"]}, {"env": {"A": "x\0y"}}, {"env": {"A\0": "x"}}):
            with self.subTest(options), self.assertRaises(SpawnFailed) as caught:
                Client.connect_stdio(PYTHON, **options)
            self.assertIn("NUL", caught.exception.reason)
        with self.assertRaises(SpawnFailed):
            Client.connect_stdio("py\0thon")

    def test_a_missing_working_directory(self) -> None:
        with self.assertRaises(SpawnFailed) as caught:
            Client.connect_stdio(PYTHON, cwd="/nonexistent/dir")
        self.assertIn("/nonexistent/dir", caught.exception.reason)

    def test_options_for_the_wrong_transport(self) -> None:
        from mcp_client import MCPClientError
        with self.assertRaises(MCPClientError):
            Client.connect_stdio(PYTHON, headers={"a": "b"})
        with self.assertRaises(MCPClientError) as caught:
            Client.connect_stdio(PYTHON, on_stderrr=print)
        self.assertIn("did you mean on_stderr?", str(caught.exception))
