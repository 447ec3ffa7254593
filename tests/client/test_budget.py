"""The deadline arithmetic of a request (:mod:`mcp_client.client._budget`), without a clock."""

from __future__ import annotations

import threading
import unittest

from mcp_client import MCPClientError
from mcp_client.client._budget import checked_budget, hard_deadline, stretched


class CheckedBudgetTest(unittest.TestCase):
    def test_a_number_is_its_budget_in_seconds(self) -> None:
        self.assertEqual(checked_budget(2), 2.0)
        self.assertIsInstance(checked_budget(2), float)
        self.assertEqual(checked_budget(0.25), 0.25)

    def test_zero_and_more_than_a_thread_can_wait_are_no_budget(self) -> None:
        for timeout in (0, 0.0, float("inf"), threading.TIMEOUT_MAX * 2):
            with self.subTest(timeout=timeout):
                self.assertIsNone(checked_budget(timeout))

    def test_what_is_no_number_at_or_above_zero_is_refused(self) -> None:
        for timeout in (-1, float("nan"), True, "5", None):
            with self.subTest(timeout=timeout):
                with self.assertRaises(MCPClientError) as caught:
                    checked_budget(timeout)  # type: ignore[arg-type]
                self.assertEqual(str(caught.exception),
                                 f"timeout must be a number >= 0, not {timeout!r}")


class HardDeadlineTest(unittest.TestCase):
    def test_the_cap_counts_from_the_start(self) -> None:
        self.assertEqual(hard_deadline(100.0, 30.0), 130.0)

    def test_no_cap_is_no_deadline(self) -> None:
        self.assertIsNone(hard_deadline(100.0, None))


class StretchedTest(unittest.TestCase):
    def test_progress_moves_the_deadline_a_budget_past_the_report(self) -> None:
        self.assertEqual(stretched(105.0, 10.0, None, 110.0), 115.0)

    def test_the_hard_deadline_caps_the_stretch(self) -> None:
        self.assertEqual(stretched(105.0, 10.0, 112.0, 110.0), 112.0)

    def test_a_stretch_already_past_is_a_timeout(self) -> None:
        self.assertIsNone(stretched(100.0, 10.0, None, 110.0))
        self.assertIsNone(stretched(105.0, 10.0, 110.0, 110.0))

    def test_no_report_or_no_budget_is_a_timeout(self) -> None:
        self.assertIsNone(stretched(0.0, 10.0, None, 110.0))
        self.assertIsNone(stretched(105.0, None, None, 110.0))


if __name__ == "__main__":
    unittest.main()
