"""The review's hostile calls (:mod:`tests.policy.adversarial_review26`), for the Policy
and for the lease layer, run as :mod:`tests.policy.test_adversarial_round3_writes` runs
its rows; the totals are asserted: no fail-open, no over-strict plain use."""

from __future__ import annotations


from ..base import LeakCheckingTestCase
from ..tables import add_rows
from .adversarial_review26 import LEASE_ROWS, POLICY_ROWS
from .test_adversarial_policy import row_check, tally
from .test_adversarial_round3_writes import lease_row, run_row, tally_leases


class ReviewPolicyTable(LeakCheckingTestCase):
    row = row_check(run_row)


class ReviewLeaseTable(LeakCheckingTestCase):
    row = lease_row


add_rows(ReviewPolicyTable, "review26", POLICY_ROWS, ReviewPolicyTable.row)
add_rows(ReviewLeaseTable, "review26_lease", LEASE_ROWS, ReviewLeaseTable.row)


class ReviewTotals(LeakCheckingTestCase):
    def test_no_fail_open_and_no_over_strict_use(self) -> None:
        fail_open, over_strict, _ = tally(POLICY_ROWS, run_row)
        lease_fail_open, lease_over_strict = tally_leases(LEASE_ROWS)
        fail_open += lease_fail_open
        over_strict += lease_over_strict
        self.assertEqual(fail_open, [], "allowed where ask or deny was expected")
        self.assertEqual(over_strict, [], "refused where a plain allow was expected")
