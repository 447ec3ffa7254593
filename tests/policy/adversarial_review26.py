"""Review of the third round's shell reader: hostile calls found after it was merged, and the
near misses tried beside them (run by tests/policy/test_adversarial_review26.py).

Policy rows are ``(label, rule set, tool, arguments, expected)`` as in
:mod:`tests.policy.adversarial_cases` (``sh_run`` works in ``/srv/project``); the rule sets
are those of :mod:`tests.policy.adversarial_round3_writes` (``"any shell"`` allows every
shell command, so only the floor and the roots decide; a program's own name is a narrow
allow of it).  Rows labelled ``read: `` are plain uses that must stay allowed.

Lease rows are ``(label, strict, arguments of sh_run, passed?)`` as in
:mod:`tests.policy.test_adversarial_round3_writes`: another agent holds
``/srv/work/locked``; the root is ``/srv/work``.
"""

from __future__ import annotations

from typing import Any

from .adversarial_cases import ALLOW, ASK, Row, sh

#: ``mktemp -p DIR TEMPLATE`` creates ``DIR/TEMPLATE`` with its ``X``s replaced, and the
#: template may climb out of DIR (``-p . ../x.XXX`` made ``../x.feN`` in real mktemp).
MKTEMP: list[Row] = [
    sh("mktemp -p . climbs out", "any shell", "mktemp -p . ../x.XXX", ASK),
    sh("mktemp -p d climbs out twice", "any shell", "mktemp -d -p d ../../v.XXX", ASK),
    sh("mktemp --tmpdir=. climbs out", "any shell", "mktemp --tmpdir=. ../u.XXX", ASK),
    sh("mktemp -p absolute then climbs", "any shell", "mktemp -p /srv/project ../x.XXX", ASK),
    sh("read: mktemp -p . x.XXX", "any shell", "mktemp -p . x.XXX", ALLOW),
    sh("read: mktemp -p d sub/x.XXX", "any shell", "mktemp -p d sub/x.XXX", ALLOW),
    sh("read: mktemp -p tmp", "any shell", "mktemp -p tmp", ALLOW),
]

POLICY_ROWS: list[Row] = [*MKTEMP]

LEASE_ROWS: list[tuple[str, bool, dict[str, Any], bool]] = [
    ("mktemp -p . into the lease", False, {"command": "mktemp -p . locked/x.XXX"}, False),
    ("mktemp -p mine climbs into the lease", False,
     {"command": "mktemp -p mine ../locked/x.XXX"}, False),
    ("mktemp -p mine", False, {"command": "mktemp -p mine x.XXX"}, True),
]
