"""The third round's shell table, run through the Policy and through the lease layer.

Rows: :mod:`tests.policy.adversarial_round3_shell`.  A Policy row runs as the first
table's rows do (``Policy.default_rules()`` plus the row's narrow rule set, an ``on_ask``
that answers ``deny-once``); a lease row as :mod:`tests.policy.test_adversarial_shell_leases`
runs its rows.  The totals are asserted too: no call allowed where ask or deny is expected,
and no plain read refused.
"""

from __future__ import annotations

from typing import Any

from .adversarial_cases import ALLOW, DENY, ASK
from .adversarial_round3_shell import LEASE_ROWS, ROUND3_ROWS
from .test_adversarial_policy import agrees, run_row
from .test_adversarial_shell_leases import ShellLeaseTable
from ..base import LeakCheckingTestCase
from ..tables import add_rows


class Round3ShellTable(LeakCheckingTestCase):
    def row(self, label: str, rules: str, tool: str, arguments: Any, expected: str) -> None:
        got = run_row(rules, tool, arguments)
        self.assertTrue(agrees(expected, got),
                        f"{label}: expected {expected}, got {got} under {rules!r}")


add_rows(Round3ShellTable, "round3", ROUND3_ROWS, Round3ShellTable.row)


class Round3ShellLeases(LeakCheckingTestCase):
    check = ShellLeaseTable.check


add_rows(Round3ShellLeases, "round3_lease", LEASE_ROWS, Round3ShellLeases.check)


class Round3Totals(LeakCheckingTestCase):
    def test_no_fail_open_and_no_over_strict_read(self) -> None:
        fail_open, over_strict, weaker = [], [], []
        for label, rules, tool, arguments, expected in ROUND3_ROWS:
            got = run_row(rules, tool, arguments)
            if got == ALLOW and expected != ALLOW:
                fail_open.append(label)
            elif expected == ALLOW and got != ALLOW:
                over_strict.append(label)
            elif expected == DENY and got == ASK:
                weaker.append(label)
        self.assertGreaterEqual(len(ROUND3_ROWS) + len(LEASE_ROWS), 150)
        self.assertEqual(fail_open, [], "allowed where ask or deny was expected")
        self.assertEqual(over_strict, [], "refused where a plain allow was expected")
        self.assertEqual(weaker, [], "asked where a deny rule should have refused")
