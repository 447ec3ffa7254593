"""The review's hostile calls (:mod:`tests.policy.adversarial_review26`), for the Policy
and for the lease layer, run as :mod:`tests.policy.test_adversarial_round3_writes` runs
its rows; the totals are asserted: no fail-open, no over-strict plain use."""

from __future__ import annotations

from typing import Any

from ..base import LeakCheckingTestCase
from ..tables import add_rows
from .adversarial_cases import ALLOW
from .adversarial_review26 import LEASE_ROWS, POLICY_ROWS
from .test_adversarial_policy import agrees
from .test_adversarial_round3_writes import run_lease, run_row


class ReviewPolicyTable(LeakCheckingTestCase):
    def row(self, label: str, rules: str, tool: str, arguments: Any, expected: str) -> None:
        got = run_row(rules, tool, arguments)
        self.assertTrue(agrees(expected, got),
                        f"{label}: expected {expected}, got {got} under {rules!r}")


class ReviewLeaseTable(LeakCheckingTestCase):
    def row(self, label: str, strict: bool, arguments: dict[str, Any], passed: bool) -> None:
        self.assertEqual(run_lease(strict, arguments), passed, label)


add_rows(ReviewPolicyTable, "review26", POLICY_ROWS, ReviewPolicyTable.row)
add_rows(ReviewLeaseTable, "review26_lease", LEASE_ROWS, ReviewLeaseTable.row)


class ReviewTotals(LeakCheckingTestCase):
    def test_no_fail_open_and_no_over_strict_use(self) -> None:
        fail_open, over_strict = [], []
        for label, rules, tool, arguments, expected in POLICY_ROWS:
            got = run_row(rules, tool, arguments)
            if got == ALLOW and expected != ALLOW:
                fail_open.append(label)
            elif expected == ALLOW and got != ALLOW:
                over_strict.append(label)
        for label, strict, arguments, passed in LEASE_ROWS:
            got = run_lease(strict, arguments)
            if got and not passed:
                fail_open.append("lease: " + label)
            elif passed and not got:
                over_strict.append("lease: " + label)
        self.assertEqual(fail_open, [], "allowed where ask or deny was expected")
        self.assertEqual(over_strict, [], "refused where a plain allow was expected")
