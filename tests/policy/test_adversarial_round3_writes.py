"""Third round, items 2 and 4, for the Policy and for the lease layer.

The rows are in :mod:`tests.policy.adversarial_round3_writes`.  Policy rows run through a
fresh ``Policy`` built from ``Policy.default_rules()`` plus the row's rule set, answering
``deny-once`` (see :mod:`tests.policy.test_adversarial_policy`); lease rows run one call
through a ``Leases`` layer with another agent's lease on ``/srv/work/locked``.  The totals
are asserted: no fail-open, no over-strict plain read.
"""

from __future__ import annotations

from typing import Any

from mcp_client.leases import Leases, LeaseTable
from mcp_client.policy import Policy

from ..base import LeakCheckingTestCase
from ..tables import add_rows
from .adversarial_cases import ALLOW, ASK, DENY, ROOTS
from .adversarial_round3_writes import LEASE_ROWS, POLICY_ROWS, RULE_SETS
from .test_adversarial_locations import Recorder, call
from .test_adversarial_policy import Asker, Provider, agrees, decide

LEASE_ROOTS = {"": "/srv/work"}


def run_row(rules: str, tool: str, arguments: Any) -> str:
    asker = Asker("deny-once")
    policy = Policy(Provider(), rules=[*Policy.default_rules(), *RULE_SETS[rules]],
                    roots=ROOTS, on_ask=asker)
    return decide(policy, asker, tool, arguments)


def run_lease(strict: bool, arguments: dict[str, Any]) -> bool:
    """Whether the call was forwarded."""
    inner = Recorder(["sh_run"])
    table = LeaseTable()
    table.try_acquire("other", ["/srv/work/locked"], 100)
    table.try_acquire("me", ["/srv/work/mine"], 100)
    agent = Leases(inner, table, "me", roots=LEASE_ROOTS,
                   concurrent=(lambda: 2) if strict else None)
    result = agent.execute_tool_calls([call("sh_run", arguments)])[0]
    assert result["is_error"] == (inner.ran == []), result
    return inner.ran == ["sh_run"]


class WritersPolicyTable(LeakCheckingTestCase):
    def row(self, label: str, rules: str, tool: str, arguments: Any, expected: str) -> None:
        got = run_row(rules, tool, arguments)
        self.assertTrue(agrees(expected, got),
                        f"{label}: expected {expected}, got {got} under {rules!r}")


class WritersLeaseTable(LeakCheckingTestCase):
    def row(self, label: str, strict: bool, arguments: dict[str, Any], passed: bool) -> None:
        self.assertEqual(run_lease(strict, arguments), passed, label)


add_rows(WritersPolicyTable, "writes", POLICY_ROWS, WritersPolicyTable.row)
add_rows(WritersLeaseTable, "writes_lease", LEASE_ROWS, WritersLeaseTable.row)


class WritersTotals(LeakCheckingTestCase):
    def test_no_fail_open_and_no_over_strict_read(self) -> None:
        fail_open, over_strict = [], []
        for label, rules, tool, arguments, expected in POLICY_ROWS:
            got = run_row(rules, tool, arguments)
            if got == ALLOW and expected != ALLOW:
                fail_open.append(label)
            elif expected == ALLOW and got != ALLOW:
                over_strict.append(label)
            self.assertIn(got, (ALLOW, ASK, DENY))
        for label, strict, arguments, passed in LEASE_ROWS:
            got = run_lease(strict, arguments)
            if got and not passed:
                fail_open.append("lease: " + label)
            elif passed and not got:
                over_strict.append("lease: " + label)
        self.assertGreaterEqual(len(POLICY_ROWS) + len(LEASE_ROWS), 150)
        self.assertEqual(fail_open, [], "allowed where ask or deny was expected")
        self.assertEqual(over_strict, [], "refused where a plain allow was expected")
