"""How a dead stdio server is reported: signals by name, a spent restart budget, no stale pid."""

from __future__ import annotations

import os
import signal
from typing import Any

from mcp_client import ServerGone

from ..base import ClientCase, server, wait_until
from ..tables import add_rows


class ExitStatusTest(ClientCase):
    def killed(self, **options: Any) -> tuple[object, int]:
        client = self.connect(args=server("dual_stdio.py"), **options)
        self.assertEqual(client.list_tools() != [], True)
        transport = client.transport
        pid = getattr(transport, "pid")
        self.assertIsInstance(pid, int)
        os.kill(pid, signal.SIGKILL)   # our own child
        wait_until(lambda: getattr(transport, "closed"), 10)
        return client, pid

    def test_a_killed_server_is_named_by_its_signal(self) -> None:
        client, _ = self.killed()
        with self.assertRaises(ServerGone) as caught:
            getattr(client, "list_tools")(refresh=True)
        self.assertEqual(caught.exception.exit_code, -signal.SIGKILL)
        self.assertIn("killed by SIGKILL", str(caught.exception))
        self.assertNotIn("exit code -9", str(caught.exception))

    def test_the_pid_is_none_once_the_child_is_gone(self) -> None:
        client, _ = self.killed()
        self.assertIsNone(getattr(client, "transport").pid)

    def test_a_spent_restart_budget_is_in_the_message(self) -> None:
        client, _ = self.killed(restart="on-failure", max_restarts=0)
        with self.assertRaises(ServerGone) as caught:
            getattr(client, "list_tools")(refresh=True)
        text = str(caught.exception)
        self.assertIn("max_restarts", text)
        self.assertIn("stays dead", text)
        self.assertIn("killed by SIGKILL", text)
        self.assertEqual(caught.exception.exit_code, -signal.SIGKILL)


def _status(self: ExitStatusTest, label: str, code: int | None, said: str) -> None:
    from mcp_client.exceptions import exit_status

    self.assertEqual(exit_status(code), said)
    if code is not None:
        self.assertIn(f"({said})", str(ServerGone(code, "", "the server exited")))


add_rows(ExitStatusTest, "exit_status", [
    ("sigkill", -9, "killed by SIGKILL"),
    ("sigsegv", -11, "killed by SIGSEGV"),
    ("sigterm", -15, "killed by SIGTERM"),
    ("unknown signal", -99, "killed by signal 99"),
    ("exit 1", 1, "exit code 1"),
    ("exit 0", 0, "exit code 0"),
    ("unknown", None, "exit status unknown"),
], _status)
