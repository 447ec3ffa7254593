"""The hint for a missing ``oauth`` extra names the distribution people install."""

from __future__ import annotations

import re
import sys
import unittest
from pathlib import Path
from unittest import mock

from mcp_client.auth import AuthError, ClientCredentials
from mcp_client.auth._dpop import DPoPKey

ROOT = Path(__file__).resolve().parents[2]
#: The published distribution's name (setup.cfg ``[metadata] name``).
HINT = "pip install 'mcp-client-sync[oauth]'"


class InstallHintTests(unittest.TestCase):
    def test_dpop_without_pyjwt_names_the_distribution(self) -> None:
        with mock.patch.dict(sys.modules, {"jwt": None}):
            with self.assertRaises(AuthError) as caught:
                DPoPKey()
        self.assertIn(HINT, str(caught.exception))

    def test_private_key_jwt_without_pyjwt_names_the_distribution(self) -> None:
        credentials = ClientCredentials("id", private_key="-----BEGIN PRIVATE KEY-----")
        with mock.patch.dict(sys.modules, {"jwt": None}):
            with self.assertRaises(AuthError) as caught:
                credentials._assertion(mock.Mock(issuer="https://as.example"))
        self.assertIn(HINT, str(caught.exception))

    def test_no_text_names_a_distribution_that_is_not_published(self) -> None:
        texts = [ROOT / "README.rst", *sorted((ROOT / "docs").rglob("*.rst")),
                 *sorted((ROOT / "mcp_client").rglob("*.py"))]
        wrong = re.compile(r"pip install [\"']?mcp-client(?!-sync)\b")
        found = [f"{path.relative_to(ROOT)}: {line.strip()}" for path in texts
                 for line in path.read_text(encoding="utf-8").splitlines() if wrong.search(line)]
        self.assertEqual(found, [])


if __name__ == "__main__":
    unittest.main()
