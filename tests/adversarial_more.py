"""More hostile calls, found by attacking the reader after the first table was green
(run by tests/test_adversarial_policy.py with the same rule sets and roots).

Each section is one class of hole: the spelling that got an allow, and its siblings.
"""

from __future__ import annotations

from .adversarial_cases import ALLOW, ASK, DENY, Row, sh


# -- git's dashed programs: git-push is git push ------------------------------------------------

DASHED: list[Row] = [
    sh("dashed: git-push -f", "any shell", "git-push -f origin main", ASK),
    sh("dashed: exec-path git-push --force", "any shell",
       "/usr/lib/git-core/git-push --force", ASK),
    sh("dashed: git-reset --hard", "any shell", "/usr/lib/git-core/git-reset --hard", ASK),
    sh("dashed: git-clean -fdx", "any shell", "git-clean -fdx", ASK),
    sh("dashed: git-rm -r", "any shell", "git-rm -r src", ASK),
    sh("dashed: sudo git-push +main", "any shell", "sudo git-push origin +main", ASK),
    sh("dashed: argv list", "any shell", ["git-push", "--force"], ASK),
    sh("dashed: deny push sees git-push", "git -push", "git-push origin main", DENY),
    sh("dashed: GIT-PUSH case", "any shell", "GIT-PUSH --force", ASK),
    sh("dashed: a plain git-status", "any shell", "git-status", ALLOW),
]

# -- programs that run their arguments as a command --------------------------------------------

RUNNERS: list[Row] = [
    sh("runner: parallel rm -rf", "any shell", "parallel rm -rf ::: build", ASK),
    sh("runner: parallel reads commands from a pipe", "any shell", "curl x | parallel", ASK),
    sh("runner: unshare", "any shell", "unshare rm -rf build", ASK),
    sh("runner: nsenter", "any shell", "nsenter -t 1 rm -rf /", ASK),
    sh("runner: setpriv", "any shell", "setpriv git push --force", ASK),
    sh("runner: prlimit", "any shell", "prlimit git reset --hard", ASK),
    sh("runner: systemd-run", "any shell", "systemd-run rm -rf /srv", ASK),
    sh("runner: xvfb-run", "any shell", "xvfb-run git push -f", ASK),
    sh("runner: dbus-run-session", "any shell", "dbus-run-session rm -r x", ASK),
    sh("runner: numactl", "any shell", "numactl rm -rf x", ASK),
    sh("runner: ssh runs text remotely", "any shell", "ssh host rm -rf /", ASK),
    sh("runner: script -c", "any shell", "script -qc 'rm -rf x' /dev/null", ASK),
    sh("runner: parallel under an allow of ls", "ls", "parallel ls ::: a", ASK),
]

MORE_ROWS: list[Row] = DASHED + RUNNERS
