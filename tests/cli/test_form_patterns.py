"""The terminal form checks an answer against a server's ``pattern`` in bounded time."""

from __future__ import annotations

import time
import unittest

from mcp_client.cli._terminal import _check

EVIL = "^(a|a)*$"


class FormPatternTest(unittest.TestCase):
    def test_a_backtracking_pattern_is_refused_within_a_budget(self) -> None:
        start = time.monotonic()
        problem = _check({"type": "string", "pattern": EVIL}, "a" * 27 + "b")
        self.assertLess(time.monotonic() - start, 3.0)
        assert problem is not None
        self.assertIn("did not finish", problem)

    def test_ordinary_patterns_and_formats_are_still_checked(self) -> None:
        self.assertIsNone(_check({"type": "string", "pattern": "^[a-z]+$"}, "abc"))
        self.assertIn("does not match", _check({"type": "string", "pattern": "^[a-z]+$"},
                                               "ABC") or "")
        self.assertIsNone(_check({"type": "string", "format": "regex"}, "^a+$"))
        self.assertIsNotNone(_check({"type": "string", "format": "regex"}, "(unclosed"))
        self.assertIsNotNone(_check({"type": "string", "format": "email"}, "not-an-email"))


if __name__ == "__main__":
    unittest.main()
