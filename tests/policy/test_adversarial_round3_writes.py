"""Third round, items 2 and 4, for the Policy and for the lease layer.

The rows are in :mod:`tests.policy.adversarial_round3_writes`.  Policy rows run through a
fresh ``Policy`` built from ``Policy.default_rules()`` plus the row's rule set, answering
``deny-once`` (see :mod:`tests.policy.test_adversarial_policy`); lease rows run one call
through a ``Leases`` layer with another agent's lease on ``/srv/work/locked``.  The totals
are asserted: no fail-open, no over-strict plain read.
"""

from __future__ import annotations

from typing import Any, Sequence

from mcp_client.leases import Leases, LeaseTable
from mcp_client.paths import Tri
from mcp_client.policy import FLOOR_CHECKS, Policy
from mcp_client.policy._outputs import UNNAMED
from mcp_client.policy._programs import writes_of
from mcp_client.policy.rules import CHECK_FUNCTIONS, gather

from ..base import LeakCheckingTestCase
from ..tables import add_rows
from .adversarial_cases import ASK, ROOTS
from .adversarial_round3_writes import LEASE_ROWS, OUTPUTS, POLICY_ROWS, RULE_SETS
from .test_adversarial_locations import Recorder, call
from .test_adversarial_policy import Asker, Provider, decide, row_check, tally
from .test_adversarial_policy import run_row as run_policy_row

LEASE_ROOTS = {"": "/srv/work"}


def run_row(rules: str, tool: str, arguments: Any) -> str:
    return run_policy_row(rules, tool, arguments, RULE_SETS)


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


def lease_row(case: Any, label: str, strict: bool, arguments: dict[str, Any],
              passed: bool) -> None:
    """The check of a lease row ``(label, strict, arguments, passed?)``."""
    case.assertEqual(run_lease(strict, arguments), passed, label)


def tally_leases(rows: Sequence[tuple[str, bool, dict[str, Any], bool]]
                 ) -> tuple[list[str], list[str]]:
    """``(fail-opens, over-strict refusals)`` among lease rows."""
    fail_open: list[str] = []
    over_strict: list[str] = []
    for label, strict, arguments, passed in rows:
        got = run_lease(strict, arguments)
        if got and not passed:
            fail_open.append("lease: " + label)
        elif passed and not got:
            over_strict.append("lease: " + label)
    return fail_open, over_strict


class WritersPolicyTable(LeakCheckingTestCase):
    row = row_check(run_row)


class WritersLeaseTable(LeakCheckingTestCase):
    row = lease_row


add_rows(WritersPolicyTable, "writes", POLICY_ROWS, WritersPolicyTable.row)
add_rows(WritersLeaseTable, "writes_lease", LEASE_ROWS, WritersLeaseTable.row)


class WritersTotals(LeakCheckingTestCase):
    def test_no_fail_open_and_no_over_strict_read(self) -> None:
        fail_open, over_strict, _ = tally(POLICY_ROWS, run_row)
        lease_fail_open, lease_over_strict = tally_leases(LEASE_ROWS)
        fail_open += lease_fail_open
        over_strict += lease_over_strict
        self.assertGreaterEqual(len(POLICY_ROWS) + len(LEASE_ROWS), 150)
        self.assertEqual(fail_open, [], "allowed where ask or deny was expected")
        self.assertEqual(over_strict, [], "refused where a plain allow was expected")


#: (label, command, the check, its value) for the danger floor's work-losing class
CHECK_ROWS: list[tuple[str, str, str, Tri]] = [
    ("checkout -- .", "git checkout -- .", "discards-changes", Tri.YES),
    ("checkout a branch or a file", "git checkout main", "discards-changes", Tri.UNKNOWN),
    ("checkout . is no branch", "git checkout -q .", "discards-changes", Tri.YES),
    ("checkout ./x is no branch", "git checkout ./src", "discards-changes", Tri.YES),
    ("checkout :/ is no branch", "git checkout :/", "discards-changes", Tri.YES),
    ("checkout -b", "git checkout -b x", "discards-changes", Tri.NO),
    ("checkout -bfix glued (not -f)", "git checkout -bfix", "discards-changes", Tri.NO),
    ("checkout BRANCH --", "git checkout main --", "discards-changes", Tri.NO),
    ("checkout unknown option", "git checkout --frob", "discards-changes", Tri.UNKNOWN),
    ("switch -cf glued (-c f)", "git switch -cf", "discards-changes", Tri.NO),
    ("switch --force-create", "git switch --force-create x", "discards-changes", Tri.NO),
    ("switch --forc (ambiguous)", "git switch --forc x", "discards-changes", Tri.YES),
    ("restore --staged", "git restore --staged f", "discards-changes", Tri.NO),
    ("restore", "git restore f", "discards-changes", Tri.YES),
    ("stash drop", "git stash drop", "discards-changes", Tri.YES),
    ("branch -D", "git branch -D x", "discards-changes", Tri.YES),
    ("branch -d", "git branch -d x", "discards-changes", Tri.NO),
    ("reset --merge", "git reset --merge", "discards-changes", Tri.YES),
    ("reset --keep", "git reset --keep", "discards-changes", Tri.NO),
    ("rm --cached -f", "git rm --cached -f x", "discards-changes", Tri.NO),
    ("submodule deinit -f", "git submodule deinit -f x", "discards-changes", Tri.YES),
    ("-c before checkout", "git -c a=b checkout main", "discards-changes", Tri.UNKNOWN),
    ("tar --remove-files", "tar -cf a --remove-files d", "recursive-delete", Tri.YES),
    ("tar --recursive-unlink", "tar -xf a --recursive-unlink", "recursive-delete", Tri.YES),
    ("zip -m", "zip -m a f", "recursive-delete", Tri.YES),
    ("zip -r", "zip -r a d", "recursive-delete", Tri.NO),
    ("7z -sdel", "7z a -sdel a d", "recursive-delete", Tri.YES),
]


class WritersNamed(LeakCheckingTestCase):
    """``writes_of`` names what the command writes; ``None`` in a row is UNNAMED."""

    def row(self, label: str, argv: list[str], expected: list[str | None]) -> None:
        got = writes_of(argv[0], argv)
        self.assertEqual([None if place == UNNAMED else place for place in got], expected,
                         label)


class WorkLosingChecks(LeakCheckingTestCase):
    def row(self, label: str, command: str, name: str, expected: Tri) -> None:
        facts = gather("sh_run", {"command": command}, {"sh": "/srv/project"}, None)
        self.assertIs(CHECK_FUNCTIONS[name](facts), expected, label)

    def test_the_question_names_the_check(self) -> None:
        asker = Asker("deny-once")
        policy = Policy(Provider(), rules=[*Policy.default_rules(), *RULE_SETS["any shell"]],
                        roots=ROOTS, on_ask=asker)
        self.assertEqual(decide(policy, asker, "sh_run", {"command": "git restore ."}), ASK)
        question = asker.questions[0]
        self.assertTrue(question["danger"])
        self.assertEqual(question["floor"], [{"check": "discards-changes", "value": "yes"}])
        self.assertIn("discards-changes", FLOOR_CHECKS)


add_rows(WritersNamed, "named", OUTPUTS, WritersNamed.row)
add_rows(WorkLosingChecks, "floor_check", CHECK_ROWS, WorkLosingChecks.row)
