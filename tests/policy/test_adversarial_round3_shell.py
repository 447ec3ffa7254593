"""The third round's shell table, run through the Policy and through the lease layer.

Rows: :mod:`tests.policy.adversarial_round3_shell`.  A Policy row runs as the first
table's rows do (``Policy.default_rules()`` plus the row's narrow rule set, an ``on_ask``
that answers ``deny-once``); a lease row as :mod:`tests.policy.test_adversarial_shell_leases`
runs its rows.  The totals are asserted too: no call allowed where ask or deny is expected,
and no plain read refused.
"""

from __future__ import annotations


from .adversarial_round3_shell import LEASE_ROWS, ROUND3_ROWS
from .test_adversarial_policy import row_check, run_row, tally
from .test_adversarial_shell_leases import ShellLeaseTable
from ..base import LeakCheckingTestCase
from ..tables import add_rows


class Round3ShellTable(LeakCheckingTestCase):
    row = row_check(run_row)


add_rows(Round3ShellTable, "round3", ROUND3_ROWS, Round3ShellTable.row)


class Round3ShellLeases(LeakCheckingTestCase):
    check = ShellLeaseTable.check


add_rows(Round3ShellLeases, "round3_lease", LEASE_ROWS, Round3ShellLeases.check)


class Round3Totals(LeakCheckingTestCase):
    def test_no_fail_open_and_no_over_strict_read(self) -> None:
        fail_open, over_strict, weaker = tally(ROUND3_ROWS, run_row)
        self.assertGreaterEqual(len(ROUND3_ROWS) + len(LEASE_ROWS), 150)
        self.assertEqual(fail_open, [], "allowed where ask or deny was expected")
        self.assertEqual(over_strict, [], "refused where a plain allow was expected")
        self.assertEqual(weaker, [], "asked where a deny rule should have refused")
