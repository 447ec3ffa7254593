"""The stderr tail of a dead server starts with its own last words, not the probe's noise."""

from __future__ import annotations

import subprocess

from mcp_client import ServerGone

from ..base import PYTHON, SERVERS, ClientCase, server
from ..cli.test_cli import ENV, ROOT

LAST_WORDS = ["Traceback (most recent call last):", '  File "server.py", line 3, in list_tools',
              "KeyError: 'API_TOKEN'"]


class ProbeNoiseTest(ClientCase):
    def test_the_tail_folds_what_came_before_the_handshake(self) -> None:
        client = self.connect(args=server("noisy_probe.py"))
        self.assertEqual(client.era, "legacy")
        with self.assertRaises(ServerGone) as caught:
            client.list_tools()
        lines = caught.exception.stderr_tail.splitlines()
        self.assertEqual(lines[1:], LAST_WORDS)
        self.assertIn("95 earlier lines", lines[0])
        self.assertIn("handshake", lines[0])
        self.assertEqual(getattr(client.transport, "stderr_tail").splitlines(), lines)

    def test_a_server_that_dies_before_the_handshake_keeps_its_whole_tail(self) -> None:
        client = self.connect(args=["-c", "import sys; sys.stderr.write('a\\nb\\n'); "
                                          "sys.exit(3)"])
        with self.assertRaises(ServerGone) as caught:
            client.list_tools()
        self.assertEqual(caught.exception.stderr_tail.splitlines(), ["a", "b"])

    def test_the_cli_shows_the_last_words_first(self) -> None:
        proc = subprocess.run([PYTHON, "-m", "mcp_client", "tools", "--stdio",
                               f"{PYTHON} {SERVERS / 'noisy_probe.py'}"],
                              stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              env=ENV, cwd=ROOT, timeout=60)
        err = proc.stderr.splitlines()
        start = err.index("--- server stderr ---")
        self.assertEqual(err[start + 2:], LAST_WORDS)
        self.assertIn("95 earlier lines", err[start + 1])
        self.assertLess(len(err), 10)
