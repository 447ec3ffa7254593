"""The connect budget: ``connect_budget=`` and the CLI's ``--timeout`` bound probe plus handshake.

A server that never answers is given up on within the budget, the message
names both the probe and the handshake, and the child is killed.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import time

from mcp_client import MCPClientError, Timeout
from mcp_client.testing import NO_ANSWER, FakeTransport

from ..base import HERE, PYTHON, ClientCase, LeakCheckingTestCase, children, wait_until
from ..tables import add_rows

ROOT = HERE.parent
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def _descendants(pid: int) -> list[int]:
    found, todo = [], [pid]
    while todo:
        kids = [child for child, _ in children(todo.pop())]
        found.extend(kids)
        todo.extend(kids)
    return found


class CLIConnectBudgetTest(LeakCheckingTestCase):
    def test_timeout_bounds_connecting_to_a_silent_server(self) -> None:
        marker = f"mcp-client-budget-{os.getpid()}-{time.monotonic_ns()}"
        # a silent server whose command line we can find afterwards (sleep ignores argv[0])
        command = f"{shlex.quote(PYTHON)} -c {shlex.quote('import time; time.sleep(600)')} " \
                  f"{marker}"
        started = time.monotonic()
        proc = subprocess.Popen([PYTHON, "-m", "mcp_client", "tools", "--stdio", command,
                                 "--timeout", "2"], stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=ENV, cwd=ROOT)
        try:
            _, err = proc.communicate(timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
        elapsed = time.monotonic() - started
        self.assertLess(elapsed, 8.0, err)
        self.assertNotEqual(proc.returncode, 0)
        self.assertIn("server/discover", err)
        self.assertIn("initialize", err)
        self.assertIn("never answered", err)

        def survivors() -> list[str]:
            alive = []
            for entry in os.listdir("/proc"):
                if not entry.isdigit():
                    continue
                try:
                    with open(f"/proc/{entry}/cmdline", "rb") as f:
                        line = f.read()
                except OSError:
                    continue
                if marker.encode() in line and b"-m\x00mcp_client" not in line:
                    alive.append(entry)
            return alive

        wait_until(lambda: not survivors(), 5.0)
        self.assertEqual(survivors(), [], "the server outlived the CLI")


class APIConnectBudgetTest(ClientCase):
    def test_connect_budget_bounds_probe_plus_handshake(self) -> None:
        fake = FakeTransport()
        fake.on("server/discover", NO_ANSWER)
        fake.on("initialize", NO_ANSWER)
        client = self.connect(fake, connect_budget=0.6, probe_timeout=5, request_timeout=60)
        started = time.monotonic()
        with self.assertRaises(Timeout) as caught:
            client.list_tools()
        self.assertLess(time.monotonic() - started, 3.0)
        self.assertEqual(caught.exception.seconds, 0.6)
        self.assertIn("server/discover", str(caught.exception))
        self.assertIn("initialize", str(caught.exception))
        self.assertIn("never answered", str(caught.exception))
        # the handshake was tried too, within what the probe left of the budget
        self.assertEqual(len(fake.requests("initialize")), 1)

    def test_without_a_connect_budget_the_message_still_names_the_probe(self) -> None:
        fake = FakeTransport()
        fake.on("server/discover", NO_ANSWER)
        fake.on("initialize", NO_ANSWER)
        client = self.connect(fake, probe_timeout=0.2, request_timeout=0.3)
        with self.assertRaises(Timeout) as caught:
            client.era   # waits for the negotiation, under its own budgets
        self.assertIn("server/discover", str(caught.exception))
        self.assertIn("never answered", str(caught.exception))

    def test_a_legacy_server_that_ignores_the_probe_still_connects_within_the_budget(
            self) -> None:
        fake = FakeTransport()
        fake.on("server/discover", NO_ANSWER)
        fake.on("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                               "serverInfo": {"name": "old", "version": "1"}})
        client = self.connect(fake, connect_budget=1.0)
        self.assertEqual(client.era, "legacy")


def _bad_budget(self: APIConnectBudgetTest, label: str, value: object) -> None:
    with self.assertRaises(MCPClientError) as caught:
        self.connect(FakeTransport(), connect_budget=value)
    self.assertIn("connect_budget", str(caught.exception))


add_rows(APIConnectBudgetTest, "connect_budget_refuses",
         [("negative", -1), ("string", "5"), ("bool", True), ("nan", float("nan"))],
         _bad_budget)
