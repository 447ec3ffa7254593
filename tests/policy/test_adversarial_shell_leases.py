"""Another agent's lease against shell commands: what a command writes is leased too.

Each row runs one call through a ``Leases`` layer whose table has ``/srv/work/locked``
held by another agent and ``/srv/work/mine`` by this one; ``strict`` is the mode where
more than one agent is live, so every change must be covered by this agent's lease.
"""

from __future__ import annotations

from typing import Any

from mcp_client.leases import Leases, LeaseTable

from ..base import LeakCheckingTestCase
from ..tables import add_rows
from .test_adversarial_locations import Recorder, call

ROOTS = {"": "/srv/work", "lock": "/srv/work"}

#: (label, strict, arguments of sh_run, passed?)
ROWS: list[tuple[str, bool, dict[str, Any], bool]] = [
    ("redirect into the lease", False, {"command": "echo x > locked/a"}, False),
    ("append into the lease", False, {"command": "echo x >> /srv/work/locked/a"}, False),
    ("rm -rf the lease", False, {"command": "rm -rf locked"}, False),
    ("rm a parent of the lease", False, {"command": "rm -r /srv/work"}, False),
    ("sed -i in the lease", False, {"command": "sed -i s/a/b/ locked/a"}, False),
    ("mv out of the lease", False, {"command": "mv locked/a /tmp/a"}, False),
    ("cp into the lease", False, {"command": "cp /tmp/a locked/a"}, False),
    ("tee into the lease", False, {"command": "echo x | tee locked/a"}, False),
    ("dd of= the lease", False, {"command": "dd if=/dev/zero of=locked/a count=1"}, False),
    ("touch in the lease", False, {"command": "touch locked/new"}, False),
    ("chmod in the lease", False, {"command": "chmod 600 locked/a"}, False),
    ("find -delete over the lease", False, {"command": "find locked -name '*.o' -delete"},
     False),
    ("sudo rm in the lease", False, {"command": "sudo rm locked/a"}, False),
    ("cd, then rm", False, {"command": "cd locked && rm a"}, False),
    ("argv list rm", False, {"argv": ["rm", "locked/a"]}, False),
    ("nested command", False, {"job": {"cmd": "rm locked/a"}}, False),
    ("git checkout over the work tree", False, {"command": "git checkout -- ."}, False),
    ("git -C into the lease", False, {"command": "git -C locked checkout -f"}, False),
    ("make may write anything", False, {"command": "make"}, False),
    ("python may write anything", False, {"command": "python3 gen.py"}, False),
    ("unreadable text", False, {"command": "rm $(cat list)"}, False),
    ("rm elsewhere is fine", False, {"command": "rm free/a"}, True),
    ("redirect elsewhere is fine", False, {"command": "echo x > free/a"}, True),
    ("read: ls", False, {"command": "ls -la"}, True),
    ("read: cat the leased file", False, {"command": "cat locked/a"}, True),
    ("read: git status", False, {"command": "git status"}, True),
    ("read: git log", False, {"command": "git log --oneline -5"}, True),
    ("read: grep", False, {"command": "grep -rn TODO src"}, True),
    ("read: a pipe of reads", False, {"command": "git diff | head -20"}, True),
    ("read: find without actions", False, {"command": "find . -name '*.py'"}, True),
    ("strict: a read needs no lease", True, {"command": "git status"}, True),
    ("strict: rm in my lease", True, {"command": "rm mine/a"}, True),
    ("strict: rm outside my lease", True, {"command": "rm free/a"}, False),
    ("strict: redirect outside my lease", True, {"command": "echo x > free/a"}, False),
    ("strict: make in the root", True, {"command": "make"}, False),
    ("strict: make inside my lease", True, {"command": "make", "cwd": "mine"}, True),
]


class ShellLeaseTable(LeakCheckingTestCase):
    def check(self, label: str, strict: bool, arguments: dict[str, Any], passed: bool) -> None:
        inner = Recorder(["sh_run"])
        table = LeaseTable()
        table.try_acquire("other", ["/srv/work/locked"], 100)
        table.try_acquire("me", ["/srv/work/mine"], 100)
        agent = Leases(inner, table, "me", roots=ROOTS,
                       concurrent=(lambda: 2) if strict else None)
        result = agent.execute_tool_calls([call("sh_run", arguments)])[0]
        self.assertEqual(inner.ran, ["sh_run"] if passed else [], label)
        self.assertEqual(result["is_error"], not passed, label)


add_rows(ShellLeaseTable, "shell lease", ROWS, ShellLeaseTable.check)
