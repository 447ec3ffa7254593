"""The permission question's answer side: the suggested rule, and reading an answer.

Pure helpers for :mod:`mcp_client.policy` (which documents the question and
the answers in full): :func:`suggested_rule` is what an always- answer
without a rule of its own remembers, and :func:`interpret` turns whatever
``on_ask`` returned into an action and the validated rules to remember --
or raises, so that the policy refuses the call and remembers nothing.
"""

from __future__ import annotations

from typing import Any, Mapping

from . import _shell
from ..paths import common_directory
from .rules import Facts, Rule, compile_rule, compile_rules, host_of

__all__ = ["ANSWERS", "suggested_rule", "interpret"]

#: The four answers to a permission question.
ANSWERS = ("allow-once", "deny-once", "always-allow", "always-deny")
_ANSWER_KEYS = ("action", "rule", "rules")


def suggested_rule(facts: Facts) -> dict[str, Any] | None:
    """The rule an always- answer without one remembers, or ``None`` when part of the
    call cannot be read (then the answer must bring its own).

    It is never wider than the call: a command's whole argv, ``exact``; the
    directory holding the locations; the one host of the URLs.  And it must
    allow the call it answers (``./ls`` names ``ls``, but an allow for ``ls``
    does not fire on it): a rule that would not is no suggestion.
    """
    rule: dict[str, Any] = {"tool": facts.tool}
    if facts.locations is not None:
        directory = common_directory(facts.locations)
        if directory is None:
            return None
        rule["under"] = directory
    if facts.commands is not None:
        if len(facts.commands) != 1 or _shell.program(facts.commands[0].argv) is None:
            return None
        argv = list(facts.commands[0].argv or ())
        if "" in argv:
            return None         # a rule cannot name an empty word (``grep '' f``)
        rule["command"] = _shell.program(argv)
        if len(argv) > 1:
            rule["args"] = argv[1:]
        rule["exact"] = True    # every word, and no more: never wider than the call asked
    if facts.urls is not None:
        hosts = {host_of(url) for url in facts.urls}
        if len(hosts) != 1 or None in hosts:
            return None
        rule["host"] = hosts.pop()
    if not compile_rule({**rule, "decision": "allow"}, 0).fires(facts):
        return None
    return rule


def interpret(answer: Any, suggested: dict[str, Any] | None) -> tuple[str, list[Rule]]:
    """``(action, rules to remember)`` from what ``on_ask`` returned.

    Raises:
        ValueError: the answer cannot be used (a :class:`~mcp_client.policy.rules.RuleError`
            when one of its rules does not validate).
    """
    if isinstance(answer, str):
        answer = {"action": answer}
    if not isinstance(answer, Mapping):
        raise ValueError(f"an answer is one of {', '.join(ANSWERS)} or a dict with 'action', "
                         f"not {type(answer).__name__}")
    extra = sorted(str(key) for key in answer if key not in _ANSWER_KEYS)
    if extra:
        raise ValueError(f"unknown key {extra[0]!r} in the answer")
    action = answer.get("action")
    if action not in ANSWERS:
        raise ValueError(f"the action must be one of {', '.join(ANSWERS)}, not {action!r}")
    has_rule, has_rules = "rule" in answer, "rules" in answer
    if action.endswith("-once"):
        if has_rule or has_rules:
            raise ValueError(f"{action} remembers nothing, so it takes no rule")
        return action, []
    if has_rule and has_rules:
        raise ValueError("an answer carries rule or rules, not both")
    if has_rules:
        raw = answer["rules"]
        if not isinstance(raw, list) or not raw:
            raise ValueError("rules must be a non-empty list of rules")
    elif has_rule:
        raw = [answer["rule"]]
    elif suggested is not None:
        raw = [suggested]
    else:
        raise ValueError(f"{action} needs a rule here: the call names something that could "
                         "not be read, so there is no suggested rule")
    decision = "allow" if action == "always-allow" else "deny"
    return action, compile_rules(raw, where="answer rule", decisions=(decision,),
                                 default_decision=decision)
