"""``restart="on-failure"``: a stdio server that dies is started again on the next call.

Real servers (tests/servers/chaos/): the echo server killed by a signal with a call in flight,
one that crashes on every third call, and one that cannot start again after its crash.
"""

from __future__ import annotations

import os
import signal
import tempfile
import threading
from typing import Any

from mcp_client import Client, MCPClientError, ServerGone
from mcp_client.registry import Registry
from mcp_client.stdio import StdioTransport
from mcp_client.types import ToolMessage, text_of

from ..base import PYTHON
from ..chaoskit import ChaosCase, chaos
from ..client.test_bridge import call


def echo(client: Client, text: str) -> str:
    return str(text_of(client.call_tool("echo", {"text": text})))


def pid(client: Client) -> int:
    transport = client.transport
    assert isinstance(transport, StdioTransport) and transport.pid is not None
    return transport.pid


class RestartTest(ChaosCase):
    def test_killed_with_a_call_in_flight_comes_back(self) -> None:
        told: list[dict[str, Any]] = []
        client = self.chaos_client("echo.py", restart="on-failure", on_restart=told.append)
        self.assertEqual(echo(client, "one"), "one")
        first = pid(client)
        flight = client.call_tool_async("slow", {"ms": 60_000})
        client.list_tools(refresh=True)   # a round trip after the send: the server has it
        os.kill(first, signal.SIGKILL)
        with self.assertRaises(ServerGone) as caught:
            flight.result(timeout=10)
        self.assertEqual(caught.exception.exit_code, -signal.SIGKILL)
        self.assertEqual(echo(client, "two"), "two")   # the next call restarts it
        self.assertNotEqual(pid(client), first)
        self.assertEqual(client.era, "modern")
        self.assertEqual([(t["attempt"], t["restarts"], t["exit_code"]) for t in told],
                         [(1, 1, -signal.SIGKILL)])
        self.assertTrue(any("restarting it" in w for w in self.warnings), self.warnings)
        # the call that was in flight was not sent again: the new child saw one call
        stats = client.call_tool("stats")["structuredContent"]
        self.assertEqual(stats["requests"], 3)   # discover, echo, stats

    def test_killed_under_load_from_many_threads(self) -> None:
        client = self.chaos_client("echo.py", restart="on-failure")
        first = pid(client)
        outcomes: list[str] = []
        lock = threading.Lock()
        some_answered = threading.Barrier(5)

        def caller(n: int) -> None:
            for k in range(40):
                try:
                    got = "ok" if echo(client, f"{n}-{k}") == f"{n}-{k}" else "wrong"
                except ServerGone:
                    got = "gone"
                with lock:
                    outcomes.append(got)
                if k == 5:
                    some_answered.wait(10)

        threads = [threading.Thread(target=caller, args=(n,)) for n in range(4)]
        for thread in threads:
            thread.start()
        some_answered.wait(10)
        os.kill(first, signal.SIGKILL)
        for thread in threads:
            thread.join(30)
        self.assertNotIn("wrong", outcomes)
        self.assertEqual(len(outcomes), 160)
        self.assertEqual(echo(client, "after"), "after")
        self.assertNotEqual(pid(client), first)

    def test_a_legacy_server_gets_the_handshake_again(self) -> None:
        client = self.connect(script="legacy_stdio.py", restart="on-failure")
        self.assertEqual(client.era, "legacy")
        first = pid(client)
        flight = client.call_tool_async("slow", {"seconds": 30})
        client.list_tools(refresh=True)   # a round trip after the send: the server has it
        os.kill(first, signal.SIGKILL)
        with self.assertRaises(ServerGone):
            flight.result(timeout=30)
        added = client.call_tool("add", {"a": 2, "b": 3})
        self.assertFalse(added.get("isError"), added)
        self.assertEqual(client.era, "legacy")
        self.assertNotEqual(pid(client), first)

    def test_without_restart_the_server_stays_dead(self) -> None:
        client = self.chaos_client("echo.py")
        self.assertEqual(echo(client, "one"), "one")
        os.kill(pid(client), signal.SIGKILL)
        with self.assertRaises(ServerGone):
            client.call_tool("never", timeout=10)   # fails with the death, whenever it lands
        with self.assertRaises(ServerGone):
            echo(client, "two")

    def test_a_server_crashing_every_third_call_is_served_under_load(self) -> None:
        client = self.chaos_client("flaky.py", "every", 3, restart="on-failure", max_restarts=10)
        answered, gone = 0, 0
        for n in range(12):
            try:
                self.assertEqual(echo(client, str(n)), str(n))
                answered += 1
            except ServerGone as exc:
                self.assertEqual(exc.exit_code, 5)
                self.assertIn("crashing on call 3", exc.stderr_tail)
                gone += 1
        self.assertEqual((answered, gone), (8, 4))

    def test_the_cache_is_dropped(self) -> None:
        client = self.chaos_client("flaky.py", "every", 1, restart="on-failure")
        self.assertEqual(len(client.list_tools()), 4)
        first = pid(client)
        with self.assertRaises(ServerGone):
            echo(client, "boom")
        self.assertEqual(len(client.list_tools()), 4)   # asked again: the child is new
        self.assertNotEqual(pid(client), first)

    def test_restarts_run_out(self) -> None:
        client = self.chaos_client("flaky.py", "every", 1, restart="on-failure", max_restarts=2)
        for _ in range(3):
            with self.assertRaises(ServerGone):
                echo(client, "boom")
        with self.assertRaises(ServerGone) as caught:
            echo(client, "again")
        self.assertIn("crashing on call 1", caught.exception.stderr_tail)
        self.assertEqual(sum("stays dead" in w for w in self.warnings), 1, self.warnings)

    def test_a_server_that_cannot_start_again(self) -> None:
        with tempfile.TemporaryDirectory() as folder:
            marker = os.path.join(folder, "started")
            client = self.chaos_client("flaky.py", "once", marker, restart="on-failure",
                                       max_restarts=2)
            with self.assertRaises(ServerGone):
                echo(client, "boom")
            for _ in range(3):
                with self.assertRaises(ServerGone) as caught:
                    echo(client, "again")
            self.assertEqual(caught.exception.exit_code, 4)
            self.assertTrue(any("stays dead" in w for w in self.warnings), self.warnings)
            client.close()

    def test_close_after_a_death_leaves_nothing_behind(self) -> None:
        client = self.chaos_client("flaky.py", "every", 1, restart="on-failure")
        with self.assertRaises(ServerGone):
            echo(client, "boom")
        client.close()
        with self.assertRaises(MCPClientError):
            echo(client, "late")

    def test_bad_options(self) -> None:
        with self.assertRaises(MCPClientError):
            self.chaos_client("echo.py", restart="always")
        with self.assertRaises(MCPClientError):
            self.chaos_client("echo.py", max_restarts=-1)
        with self.assertRaises(MCPClientError):
            self.chaos_client("echo.py", on_restart="print")


class RegistryRestartTest(ChaosCase):
    def registry(self, flaky: dict[str, Any]) -> Registry:
        config = {"mcpServers": {
            "steady": {"command": PYTHON, "args": chaos("echo.py")},
            "flaky": {"command": PYTHON, "args": chaos("flaky.py", "every", 2), **flaky}}}
        tools = Registry.from_config(config, on_warn=self.warnings.append)
        self.addCleanup(tools.close)
        self.assertEqual(tools.failures, [])
        return tools

    def run_both(self, tools: Registry, text: str) -> list[ToolMessage]:
        return tools.execute_tool_calls([call("steady_echo", {"text": text}, "s"),
                                         call("flaky_echo", {"text": text}, "f")])

    def test_a_crashed_server_comes_back(self) -> None:
        tools = self.registry({})
        self.assertEqual(len(tools.tools_for_llm()), 8)
        self.assertEqual([a["content"] for a in self.run_both(tools, "one")], ["one", "one"])
        crashed = self.run_both(tools, "two")   # the flaky server's second call kills it
        self.assertEqual([a["is_error"] for a in crashed], [False, True])
        self.assertIn("exit", crashed[1]["content"])
        self.assertEqual(len(tools.tools_for_llm()), 8)   # listed again, from the new child
        self.assertEqual([a["content"] for a in self.run_both(tools, "three")],
                         ["three", "three"])

    def test_without_restart_the_others_keep_working(self) -> None:
        tools = self.registry({"restart": "never"})
        self.run_both(tools, "one")
        self.run_both(tools, "two")
        for text in ("three", "four"):
            answers = self.run_both(tools, text)
            self.assertEqual(answers[0]["content"], text)
            self.assertTrue(answers[1]["is_error"])
        self.assertEqual(len(tools.tools_for_llm()), 4)   # the dead one lists nothing

    def test_a_bad_restart_entry(self) -> None:
        tools = Registry.from_config({"mcpServers": {"x": {"command": PYTHON,
                                                           "args": chaos("echo.py"),
                                                           "restart": "always"}}})
        self.addCleanup(tools.close)
        self.assertEqual(tools.providers, [])
        [failure] = tools.failures
        self.assertIsInstance(failure.error, MCPClientError)
        self.assertIn("'restart'", str(failure.error))
