"""The adversarial table: hundreds of hostile calls, each with the decision it must get.

Every row of :mod:`tests.adversarial_cases` runs through a fresh ``Policy`` built from
``Policy.default_rules()`` plus the row's narrow rule set, with an ``on_ask`` that records
the question and answers ``deny-once``: a call that ran was *allowed*, one that was asked
about was *ask*, one refused without a question was *deny*.  The totals are asserted too:
no call allowed where the row expects ask or deny (a fail-open), and no plain read refused
where the row expects allow (over-strict).
"""

from __future__ import annotations

import copy
from typing import Any, Callable, Sequence

from mcp_client.policy import Policy

from .adversarial_cases import ALLOW, ASK, DENY, GRANTS, ROOTS, RULE_SETS
from .adversarial_cases import ROWS as FIRST_ROWS
from .adversarial_more import MORE_ROWS
from ..base import LeakCheckingTestCase
from ..tables import add_rows

ROWS = FIRST_ROWS + MORE_ROWS
READ_ONLY = {"readOnlyHint": True}


class Provider:
    """Runs nothing: answers every forwarded call with ``ran <name>``."""

    def __init__(self) -> None:
        self.ran: list[dict[str, Any]] = []

    def tools_for_llm(self) -> list[dict[str, Any]]:
        return []

    def tool_annotations(self, name: str) -> dict[str, Any] | None:
        return READ_ONLY if name == "fs_read" else {"readOnlyHint": False}

    def execute_tool_calls(self, calls: list[Any]) -> list[dict[str, Any]]:
        self.ran.extend(copy.deepcopy(calls))
        return [{"role": "tool", "tool_call_id": call["id"], "content": "ran",
                 "is_error": False} for call in calls]


class Asker:
    def __init__(self, *answers: str) -> None:
        self.answers = list(answers)
        self.questions: list[dict[str, Any]] = []

    def __call__(self, question: dict[str, Any]) -> str:
        self.questions.append(question)
        return self.answers[min(len(self.questions), len(self.answers)) - 1]


def decide(policy: Policy, asker: Asker, tool: str, arguments: Any) -> str:
    """allow / ask / deny for one call."""
    asked = len(asker.questions)
    [result] = policy.execute_tool_calls([{"id": "c", "type": "function",
                                           "function": {"name": tool, "arguments": arguments}}])
    if not result["is_error"]:
        return ALLOW
    return ASK if len(asker.questions) > asked else DENY


def run_row(rules: str, tool: str, arguments: Any,
            rule_sets: dict[str, list[dict[str, Any]]] = RULE_SETS) -> str:
    """allow / ask / deny for one row: ``default_rules()`` plus the row's narrow rule set."""
    asker = Asker("deny-once")
    policy = Policy(Provider(), rules=[*Policy.default_rules(), *rule_sets[rules]],
                    roots=ROOTS, on_ask=asker)
    return decide(policy, asker, tool, arguments)


RunRow = Callable[[str, str, Any], str]


def row_check(run: RunRow) -> Callable[..., None]:
    """The check :func:`tests.tables.add_rows` calls for a row ``(label, rules, tool,
    arguments, expected)`` decided by ``run``."""
    def check(case: Any, label: str, rules: str, tool: str, arguments: Any,
              expected: str) -> None:
        got = run(rules, tool, arguments)
        case.assertTrue(agrees(expected, got),
                        f"{label}: expected {expected}, got {got} under {rules!r}")
    return check


def tally(rows: Sequence[Sequence[Any]], run: RunRow) -> tuple[list[str], list[str], list[str]]:
    """``(fail-opens, over-strict refusals, denies weakened to an ask)`` among rows
    ``(label, rules, tool, arguments, expected)`` decided by ``run``."""
    fail_open: list[str] = []
    over_strict: list[str] = []
    weaker: list[str] = []
    for label, rules, tool, arguments, expected in rows:
        got = run(rules, tool, arguments)
        assert got in (ALLOW, ASK, DENY), got
        if got == ALLOW and expected != ALLOW:
            fail_open.append(label)
        elif expected == ALLOW and got != ALLOW:
            over_strict.append(label)
        elif expected == DENY and got == ASK:
            weaker.append(label)
    return fail_open, over_strict, weaker


def run_grant(first: tuple[str, Any], then: tuple[str, Any]) -> str:
    asker = Asker("always-allow", "deny-once")
    policy = Policy(Provider(), rules=Policy.default_rules(), roots=ROOTS, on_ask=asker)
    assert decide(policy, asker, *first) == ALLOW and policy.grants, policy.grants
    return decide(policy, asker, *then)


def agrees(expected: str, got: str) -> bool:
    """An ask row may be refused outright (stricter); an allow or deny row must match."""
    return got == expected or (expected == ASK and got == DENY)


class AdversarialTable(LeakCheckingTestCase):
    row = row_check(run_row)

    def grant(self, label: str, first: tuple[str, Any], then: tuple[str, Any],
              expected: str) -> None:
        got = run_grant(first, then)
        self.assertTrue(agrees(expected, got), f"{label}: expected {expected}, got {got}")


add_rows(AdversarialTable, "hostile", ROWS, AdversarialTable.row)
add_rows(AdversarialTable, "grant", GRANTS, AdversarialTable.grant)


class AdversarialTotals(LeakCheckingTestCase):
    def test_no_fail_open_and_no_over_strict_read(self) -> None:
        fail_open, over_strict, weaker = tally(ROWS, run_row)
        for label, first, then, expected in GRANTS:
            got = run_grant(first, then)
            if got == ALLOW and expected != ALLOW:
                fail_open.append(label)
            elif expected == ALLOW and got != ALLOW:
                over_strict.append(label)
        self.assertGreaterEqual(len(ROWS) + len(GRANTS), 400)
        self.assertEqual(fail_open, [], "allowed where ask or deny was expected")
        self.assertEqual(over_strict, [], "refused where a plain allow was expected")
        self.assertEqual(weaker, [], "asked where a deny rule should have refused")
        reads = [row for row in ROWS if row[0].startswith("read: ")]
        self.assertGreaterEqual(len(reads), 40)


class EmptyWordTest(LeakCheckingTestCase):
    """A command with an empty word (``grep '' f``) is asked about, with no suggested rule
    (a rule cannot name an empty word), rather than refused by an error while asking."""

    def test_an_empty_word_is_asked_about_without_a_suggestion(self) -> None:
        for command in ("echo ''", "grep '' f", 'printf "" x'):
            with self.subTest(command=command):
                asker = Asker("deny-once")
                policy = Policy(Provider(), rules=Policy.default_rules() + [
                    {"tool": "sh_run", "decision": "ask"}], roots=ROOTS, on_ask=asker)
                self.assertEqual(decide(policy, asker, "sh_run", {"command": command}), "ask")
                self.assertIsNone(asker.questions[-1]["suggested_rule"])
