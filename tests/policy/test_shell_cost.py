"""The shell reader decides in bounded time whatever a command holds.

Two regressions (a ``sed`` script with an unterminated run of backslashes, a brace
expression with 120,000 commas) and a property: generated hostile commands of up to
64 KiB -- backslash runs, quotes, braces, nested ``sh -c``, comma lists, ``sed`` scripts,
``find -exec`` chains, wrapper chains, assignments -- are decided by the Policy and by the
lease layer in at most :data:`BOUND` seconds each.

A decision's time is measured with ``time.perf_counter``; one over the bound is run
again, up to :data:`TRIES` times, and the best run counts, so a busy machine's
scheduling does not count against the reader while a slow algorithm (slow every time)
still fails.  ``MCP_CLIENT_TIME_SLACK`` multiplies the bound on a machine slower than a
CI runner, and a run measured by coverage.py (which traces every line, ``.ci/run``'s
test step) has :data:`TRACED_SLACK` times the bound: a quadratic reader at 64 KiB is
over it by far more than that.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any, Callable

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcp_client.leases import Leases, LeaseTable
from mcp_client.policy import Policy
from mcp_client.policy._shell import MAX_COMMAND_CHARS, MAX_WORDS, parse_shell

from .test_adversarial_locations import Recorder, call
from .test_adversarial_policy import Asker, Provider, decide
from ..base import LeakCheckingTestCase

#: How many times slower a decision may be while coverage.py traces the run.
TRACED_SLACK = 3.0


def _traced() -> bool:
    """Whether coverage.py is measuring this process."""
    coverage = sys.modules.get("coverage")
    return coverage is not None and coverage.Coverage.current() is not None


#: Seconds one decision may take at 64 KiB.
BOUND = (0.050 * float(os.environ.get("MCP_CLIENT_TIME_SLACK", "1"))
         * (TRACED_SLACK if _traced() else 1.0))
TRIES = 10
SIZE = 64 * 1024
ROOTS = {"sh": "/srv/project"}


def best_of(run: Callable[[], Any]) -> float:
    """The time of one run of ``run`` in seconds, or the best of up to :data:`TRIES` when
    the first is over :data:`BOUND`."""
    best = float("inf")
    for _ in range(TRIES):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
        if best <= BOUND:
            break
    return best


def policy_decision(command: str) -> str:
    asker = Asker("deny-once")
    policy = Policy(Provider(), rules=[*Policy.default_rules(),
                                       {"tool": "sh_run", "decision": "allow", "command": "sed"}],
                    roots=ROOTS, on_ask=asker)
    return decide(policy, asker, "sh_run", {"command": command})


def lease_decision(command: str) -> bool:
    inner = Recorder(["sh_run"])
    table = LeaseTable()
    table.try_acquire("other", ["/srv/work/locked"], 100)
    agent = Leases(inner, table, "me", roots={"": "/srv/work"})
    return not agent.execute_tool_calls([call("sh_run", {"command": command})])[0]["is_error"]


def _fill(unit: str, head: str = "", tail: str = "") -> str:
    """``head``, then ``unit`` repeated to about 64 KiB, then ``tail``."""
    room = max(SIZE - len(head) - len(tail), 0)
    return head + unit * max(room // max(len(unit), 1), 1) + tail


#: Families of hostile commands: each maps a small unit of text to a 64 KiB command.
FAMILIES: dict[str, Callable[[str], str]] = {
    "sed backslashes": lambda u: _fill("\\\\", "sed 's/", u + "' f"),
    "sed y backslashes": lambda u: _fill("\\\\", "sed 'y/", u + "' f"),
    "sed address backslashes": lambda u: _fill("\\\\", "sed '/", u + "' f"),
    "sed delimiters": lambda u: _fill("s" + (u or "#"), "sed '", "' f"),
    "sed brackets": lambda u: _fill("[" + u + "a]", "sed 's/", "' f"),
    "sed open brackets": lambda u: _fill("[" + u, "sed 's/", "' f"),
    "sed bracket classes": lambda u: _fill("[[:" + u, "sed '/", "' f"),
    "sed distinct delimiters": lambda u: "sed '" + "".join(
        "s" + chr(0x4E00 + i) for i in range(SIZE // 8)) + "' f",
    "braces commas": lambda u: _fill(",", "echo {" + u, ""),
    "braces closed": lambda u: _fill(",", "echo {" + u, "}"),
    "braces many opens": lambda u: _fill("{" + u + ",", "echo "),
    "braces dots": lambda u: _fill(".", "echo {" + u, ""),
    "backslashes": lambda u: _fill("\\\\", "echo ", u),
    "backslash odd": lambda u: _fill("\\", "echo ", u),
    "single quotes": lambda u: _fill("'" + u + "'", "echo "),
    "double quotes": lambda u: _fill('"' + u + '\\"', "echo "),
    "unterminated quote": lambda u: _fill("a", "echo '" + u, ""),
    "long word": lambda u: _fill("a", "ls " + u, ""),
    "many words": lambda u: _fill(u + "a ", "ls "),
    "many commands": lambda u: _fill("ls" + u + ";"),
    "many pipes": lambda u: _fill("cat " + u + "|"),
    "subshells": lambda u: _fill("(", "", "ls" + u + ")" * 100),
    "nested sh -c": lambda u: _fill("sh -c 'sh -c \"eval " + u + " ", "", "\"'"),
    "find exec chains": lambda u: _fill("-exec find " + u + " ", "find . "),
    "wrapper chains": lambda u: _fill("nice " + u + " ", "", "rm -rf d"),
    "eval chains": lambda u: _fill("eval " + u + " ", "", "rm -rf d"),
    "xargs chains": lambda u: _fill("xargs ", "", "rm -rf " + u),
    "assignments": lambda u: _fill("a=" + u + "1 ", "", "ls"),
    "env assignments": lambda u: _fill("a=1 ", "env ", "ls " + u),
    "sh -c text": lambda u: _fill("ls " + u + "; ", "sh -c '", "'"),
    "redirections": lambda u: _fill("> f" + u + " ", "ls "),
    "dashes": lambda u: _fill("-" + u + " ", "rm "),
    "git options": lambda u: _fill("-C " + u + "x ", "git ", "status"),
    "unicode": lambda u: _fill("é" + u, "echo "),
    "spaces": lambda u: _fill("\u00a0" + u, "echo "),
    "operators": lambda u: _fill(";&|" + u, "ls "),
    "brace expression in sed": lambda u: _fill("{" + u + ",", "sed 's/x/y/' "),
    "suspect words": lambda u: _fill("rm " + u, "mytool "),
    "suspect runners": lambda u: _fill("sudo " + u, "mytool "),
    "suspect git": lambda u: _fill("git " + u + "x ", "mytool "),
}

_UNITS = st.text(alphabet=st.sampled_from(list("\\'\"{},.;|&$`() s/yex-=#\n")), max_size=6)


class BoundedCost(LeakCheckingTestCase):
    def assertFast(self, what: str, seconds: float) -> None:
        self.assertLessEqual(seconds, BOUND, f"{what}: {seconds * 1000:.1f} ms")

    def test_sed_backslashes_are_linear(self) -> None:
        for pairs in (20, 24, 1000):
            command = "sed 's/" + "\\\\" * pairs + "x' f"
            self.assertFast(f"{pairs} pairs", best_of(lambda: parse_shell(command)))
            self.assertFast(f"{pairs} pairs, policy", best_of(lambda: policy_decision(command)))
            self.assertFast(f"{pairs} pairs, leases", best_of(lambda: lease_decision(command)))

    def test_sed_backslashes_still_read(self) -> None:
        self.assertEqual(policy_decision("sed 's/" + "\\\\" * 24 + "x/y/e' f"), "ask")
        self.assertEqual(policy_decision("sed 's/" + "\\\\" * 24 + "x/y/g' f"), "allow")

    def test_braces_with_120k_commas(self) -> None:
        for command in ("echo {" + "," * 120000 + "}", "echo {" + "," * 120000):
            self.assertFast("braces", best_of(lambda: parse_shell(command)))
            self.assertFast("braces, policy", best_of(lambda: policy_decision(command)))
            self.assertFast("braces, leases", best_of(lambda: lease_decision(command)))
        self.assertEqual(parse_shell("echo {" + "," * 120000 + "}")[0].argv, None)
        self.assertEqual(parse_shell("echo {" + "," * 120000)[0].argv,
                         ("echo", "{" + "," * 120000))     # (no closing brace: a plain word)

    def test_bounds_are_unknown(self) -> None:
        self.assertEqual(parse_shell("ls " + "a " * MAX_WORDS)[0].argv, None)
        self.assertEqual(parse_shell("ls " + "a" * MAX_COMMAND_CHARS)[0].argv, None)
        self.assertEqual(parse_shell("ls " + "a " * 100)[0].argv, ("ls",) + ("a",) * 100)

    @settings(max_examples=60, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(st.sampled_from(sorted(FAMILIES)), _UNITS)
    def test_hostile_commands_are_decided_in_bounded_time(self, family: str, unit: str) -> None:
        command = FAMILIES[family](unit)
        self.assertLessEqual(len(command), SIZE + 64)
        self.assertFast(f"{family}, policy", best_of(lambda: policy_decision(command)))
        self.assertFast(f"{family}, leases", best_of(lambda: lease_decision(command)))

    def test_every_family_at_64_kib(self) -> None:
        for family, build in FAMILIES.items():
            command = build("")
            self.assertFast(f"{family}, policy", best_of(lambda: policy_decision(command)))
            self.assertFast(f"{family}, leases", best_of(lambda: lease_decision(command)))
