"""Hostile shell calls of the third round: builtins that evaluate quoted text, programs that
run other programs, and inputs that cost the reader time (run by
tests/policy/test_adversarial_round3_shell.py, for the Policy and for the lease layer).

Policy rows are ``(label, rule set, tool, arguments, expected)`` as in
:mod:`tests.policy.adversarial_cases`; each rule set named after a program is
``Policy.default_rules()`` plus a narrow allow of that program alone (``"r3 printf"`` is
``{"tool": "sh_run", "decision": "allow", "command": "printf"}``), so an ``ask`` row is one
where the harmless-looking program must not let the rest through.  ``read:`` rows are plain
reads that must stay allowed.

Lease rows are ``(label, strict, arguments, passed)`` as in
:mod:`tests.policy.test_adversarial_shell_leases`: ``/srv/work/locked`` is another agent's.
"""

from __future__ import annotations

from typing import Any

from .adversarial_cases import ALLOW, ASK, DENY, RULE_SETS, Row, allow, sh

#: A payload that deletes recursively, in the quoted text a builtin evaluates.
_SUB = "'a[$(rm -rf d)]'"
#: The programs that get a narrow allow of their own (rule set ``"r3 NAME"``).
_NARROW = [
    "printf", "test", "read", "let", "declare", "typeset", "local", "export", "readonly",
    "mapfile", "readarray", "unset", "wait", "getopts", "jobs", "history", "set", "bind",
    "caller", "kill", "ulimit", "[", "command", "builtin", "exec", "setarch", "linux32",
    "linux64", "choom", "ssh-agent", "perf", "tmux", "screen", "eatmydata", "faketime",
    "chronic", "ip", "hyperfine", "uv", "uvx", "npm", "npx", "pnpm", "dpkg-architecture",
    "flock", "script", "su", "doas", "pkexec", "chroot", "nsenter", "firejail", "bwrap",
    "sudo", "runuser", "systemd-run", "stdbuf", "nice", "ionice", "timeout", "env", "xargs",
    "watch", "pipx", "poetry", "pdm", "conda", "docker", "kubectl", "podman", "time",
    "strace", "ltrace", "gdb", "valgrind", "sg", "newgrp", "start-stop-daemon", "daemonize",
    "entr", "reptyr", "expect", "make", "nohup", "at", "batch", "crontab", "yarn", "bunx",
    "hatch", "unshare", "setsid", "taskset", "chrt", "prlimit", "numactl", "sed", "ls",
    "chpst", "python3",
    "git", "cat", "grep", "echo"]
for _name in _NARROW:
    RULE_SETS.setdefault(f"r3 {_name}", [allow(_name)])


def r3(label: str, program: str, command: Any, expected: str) -> Row:
    """A row under the narrow allow of ``program`` (``"any shell"``, ``"deny rm"`` as is).

    An allow rule must cover every command of a call, so a runner and what it runs
    (``"nice ls"``) are judged under ``"any shell"``: the floor, not a rule, decides, and
    an allow there shows the runner was read precisely (an unknown would ask)."""
    if program in ("any shell", "deny rm", "default"):
        return sh(label, program, command, expected)
    rules = "any shell" if " " in program else f"r3 {program}"
    return sh(label, rules, command, expected)


# -- item 1: builtins that evaluate quoted text --------------------------------------------

BUILTINS: list[Row] = [
    r3("let: subscript runs a command", "let", f"let {_SUB[:-1]}=1'", ASK),
    r3("let: plain assignment", "let", "let x=1", ASK),
    r3("let: PATH arithmetic", "let", "let PATH=1; ls", ASK),
    r3("let: double-quoted subscript", "let", 'let "x[\\$(rm -rf d)]=1"', ASK),
    r3("let: under any shell the floor asks", "any shell", f"let {_SUB[:-1]}=1'", ASK),
    r3("let: deny rm sees it", "deny rm", "let 'x[$(rm d)]=1'", DENY),
    r3("test -v subscript", "test", f"test -v {_SUB}", ASK),
    r3("test ! -v subscript", "test", f"test ! -v {_SUB}", ASK),
    r3("test -R subscript", "test", f"test -R {_SUB}", ASK),
    r3("test -v after -a", "test", f"test -f x -a -v {_SUB}", ASK),
    r3("test -v then ls", "test ls", f"test -v {_SUB} && ls", ASK),
    r3("test -v double-quoted", "test", 'test -v "a[\\$(rm -rf d)]"', ASK),
    r3("test -v backslashed", "test", "test -v a[\\$\\(rm\\ -rf\\ d\\)]", ASK),
    r3("test -v any shell", "any shell", f"test -v {_SUB}", ASK),
    r3("test -v deny rm", "deny rm", "test -v 'a[$(rm d)]'", DENY),
    r3("/usr/bin/test -v", "test", f"/usr/bin/test -v {_SUB}", ASK),
    r3("[ -v subscript ]", "[", f"[ -v {_SUB} ]", ASK),
    r3("[ -v ] under any shell", "any shell", f"[ -v {_SUB} ]", ASK),
    r3("[[ -v subscript ]]", "any shell", f"[[ -v {_SUB} ]]", ASK),
    r3("[[ -eq arithmetic ]]", "any shell", f"[[ {_SUB} -eq 1 ]]", ASK),
    r3("printf -v subscript", "printf", f"printf -v {_SUB} %s x", ASK),
    r3("printf -v attached", "printf", f"printf -v{_SUB} %s x", ASK),
    r3("printf -v backslashed", "printf", "printf -va[\\$\\(rm\\ -rf\\ d\\)] %s x", ASK),
    r3("printf -v plain name", "printf", "printf -v x %s y", ASK),
    r3("printf -v PATH then ls", "printf ls", "printf -v PATH %s /tmp/evil; ls", ASK),
    r3("printf -v after --", "printf", f"printf -v x -- %s 1; printf -v {_SUB} x", ASK),
    r3("command printf -v", "command", f"command printf -v {_SUB} x", ASK),
    r3("builtin printf -v", "builtin", f"builtin printf -v {_SUB} x", ASK),
    r3("printf -v any shell", "any shell", f"printf -v {_SUB} %s x", ASK),
    r3("printf -v deny rm", "deny rm", "printf -v 'a[$(rm d)]' x", DENY),
    r3("printf -v argv list", "printf", ["printf", "-v", "a[$(rm -rf d)]", "x"], ASK),
    r3("printf unknown option", "printf", "printf -q x", ASK),
    r3("read subscript", "read", f"read {_SUB} < /dev/null", ASK),
    r3("read -r subscript", "read", f"read -r {_SUB}", ASK),
    r3("read -a subscript", "read", f"read -a {_SUB}", ASK),
    r3("read -p prompt subscript", "read", f"read -p x {_SUB}", ASK),
    r3("read -u 0 -d x subscript", "read", f"read -r -d '' -u 0 {_SUB}", ASK),
    r3("read PATH from a file, then ls", "read", "read PATH < evil; ls", ASK),
    r3("read a plain name", "read", "read line", ASK),
    r3("read any shell", "any shell", f"read {_SUB}", ASK),
    r3("read deny rm", "deny rm", "read 'a[$(rm d)]'", DENY),
    r3("declare -i", "declare", f"declare -i {_SUB[:-1]}=1'", ASK),
    r3("typeset", "typeset", f"typeset {_SUB[:-1]}=1'", ASK),
    r3("local", "local", f"local {_SUB[:-1]}=1'", ASK),
    r3("export", "export", f"export {_SUB[:-1]}=1'", ASK),
    r3("readonly", "readonly", f"readonly {_SUB[:-1]}=1'", ASK),
    r3("declare -n nameref", "declare", f"declare -n r={_SUB}", ASK),
    r3("mapfile -C callback", "mapfile", "mapfile -C 'rm -rf d' -c 1 a < list", ASK),
    r3("readarray -C callback", "readarray", "readarray -C 'rm -rf d' -c 1 a < list", ASK),
    r3("mapfile -C attached", "mapfile", "mapfile -C'rm -rf d' a < list", ASK),
    r3("mapfile plain", "mapfile", "mapfile -t a < list", ASK),
    r3("mapfile -C any shell", "any shell", "mapfile -C 'rm -rf d' -c 1 a < list", ASK),
    r3("readarray deny rm", "deny rm", "readarray -C 'rm d' a < list", DENY),
    r3("(( quoted subscript ))", "any shell", f"(( {_SUB} ))", ASK),
    r3("((x)) under ls", "ls", "((ls))", ASK),
    r3("$(( )) arithmetic", "any shell", "echo $(( a[$(rm -rf d)] ))", ASK),
    r3("$[ ] arithmetic", "echo", "echo $[ a[1] ]", ASK),
    r3("unset subscript", "unset", f"unset {_SUB}", ASK),
    r3("unset -v subscript", "unset", f"unset -v {_SUB}", ASK),
    r3("unset a plain name", "unset", "unset GIT_DIR", ASK),
    r3("wait -p subscript", "wait", f"wait -n -p {_SUB}", ASK),
    r3("wait -p clustered", "wait", f"wait -np {_SUB}", ASK),
    r3("getopts subscript", "getopts", f"getopts ab {_SUB} -a", ASK),
    r3("jobs -x runs a command", "jobs", "jobs -x rm -rf d", ASK),
    r3("history -w writes a file", "history", "history -w /etc/x", ASK),
    r3("bind -x", "bind", "bind -x '\"\\C-x\": rm -rf d'", ASK),
    r3("set -k then git push", "any shell",
       "set -k; git push GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=remote.origin.mirror "
       "GIT_CONFIG_VALUE_0=true", ASK),
    r3("set -a then read", "set", "set -a; read LD_PRELOAD < x", ASK),
    r3("set -o keyword", "set git", "set -o keyword; git status GIT_DIR=/tmp/x", ASK),
    r3("set --", "set", "set -- a b", ASK),
    r3("caller subscript (kept unknown: not a plain word)", "caller", f"caller {_SUB}", ASK),
    r3("kill subscript", "kill", f"kill -s {_SUB} 1", ASK),
    r3("ulimit subscript", "ulimit", f"ulimit -t {_SUB}", ASK),
    r3("exec printf -v", "exec", f"exec printf -v {_SUB} x", ASK),
    r3("eval of printf -v", "any shell", f"eval 'printf -v {_SUB} x'", ASK),
    r3("sh -c of let", "any shell", "sh -c \"let 'x[\\$(rm -rf d)]=1'\"", ASK),
    r3("bash -c of test -v", "any shell", "bash -c 'test -v \"a[\\$(rm -rf d)]\"'", ASK),
    r3("read: printf a string", "printf", "printf '%s\\n' hello", ALLOW),
    r3("read: printf --", "printf", "printf -- '-%s\\n' x", ALLOW),
    r3("read: test -f", "test", "test -f README.md", ALLOW),
    r3("read: test -v a plain name", "test", "test -v HOME", ALLOW),
    r3("read: test -n a string", "test ls", "test -n abc && ls", ALLOW),
    r3("read: set -e", "set ls", "set -e; ls", ALLOW),
    r3("read: set -euo pipefail", "set git", "set -euo pipefail; git status", ALLOW),
    r3("read: set +x", "set ls", "set +x; ls -la", ALLOW),
]

# -- item 3: programs that run other programs ----------------------------------------------

#: (runner prefix, its narrow rule set): ``PREFIX rm -rf d`` runs ``rm -rf d``.
_PREFIXES = [
    ("setarch x86_64", "setarch"), ("setarch x86_64 -R", "setarch"),
    ("setarch --addr-no-randomize x86_64", "setarch"), ("linux32", "linux32"),
    ("linux64", "linux64"), ("choom -n 5 --", "choom"), ("choom -n 5", "choom"),
    ("ssh-agent", "ssh-agent"), ("ssh-agent -t 60", "ssh-agent"), ("perf stat", "perf"),
    ("perf record -g --", "perf"), ("perf trace", "perf"), ("tmux new-session", "tmux"),
    ("tmux new -d", "tmux"), ("screen", "screen"), ("screen -dm", "screen"),
    ("eatmydata", "eatmydata"), ("faketime '2020-01-01'", "faketime"),
    ("faketime -f +1d", "faketime"), ("chronic", "chronic"), ("chronic -e", "chronic"),
    ("ip netns exec n1", "ip"), ("ip -all netns exec", "ip"), ("uv run", "uv"),
    ("uv run --with x --", "uv"), ("uvx", "uvx"), ("npm exec --", "npm"), ("npm x", "npm"),
    ("npx", "npx"), ("npx -y", "npx"), ("pnpm dlx", "pnpm"), ("pnpm exec", "pnpm"),
    ("yarn dlx", "yarn"), ("bunx", "bunx"), ("dpkg-architecture -c", "dpkg-architecture"),
    ("dpkg-architecture -aarm64 -c", "dpkg-architecture"), ("flock f", "flock"),
    ("flock -x f", "flock"), ("flock -w 5 f", "flock"), ("doas", "doas"),
    ("doas -u root", "doas"), ("pkexec", "pkexec"), ("pkexec --user root", "pkexec"),
    ("chroot /", "chroot"), ("chroot --userspec=1:1 /", "chroot"), ("nsenter -t 1 -m", "nsenter"),
    ("nsenter --target=1 --mount", "nsenter"), ("firejail", "firejail"),
    ("firejail --noprofile", "firejail"), ("bwrap --bind / /", "bwrap"),
    ("bwrap --dev-bind / / --", "bwrap"), ("sudo -u root", "sudo"), ("sudo -E -u root", "sudo"),
    ("sudo --user=root", "sudo"), ("sudo -g wheel -H", "sudo"), ("runuser -u root --", "runuser"),
    ("systemd-run --user --scope", "systemd-run"), ("systemd-run -p Nice=5", "systemd-run"),
    ("stdbuf -o0", "stdbuf"), ("stdbuf -oL -eL", "stdbuf"), ("stdbuf --output=0", "stdbuf"),
    ("nice -n 10", "nice"), ("nice -10", "nice"), ("nice --adjustment=5", "nice"),
    ("ionice -c 3", "ionice"), ("ionice -c2 -n7", "ionice"), ("timeout -s KILL 5", "timeout"),
    ("timeout -k 1 5", "timeout"), ("timeout --signal=TERM 5", "timeout"),
    ("timeout --preserve-status 5", "timeout"), ("env -i", "env"), ("env -u HOME", "env"),
    ("env --", "env"), ("env -0 -v", "env"), ("xargs -0", "xargs"), ("xargs -n 1", "xargs"),
    ("xargs -I{}", "xargs"), ("xargs -I {}", "xargs"), ("xargs -P 4 -n1", "xargs"),
    ("xargs -r --", "xargs"), ("xargs --max-args=2", "xargs"), ("pipx run", "pipx"),
    ("poetry run", "poetry"), ("pdm run", "pdm"), ("hatch run", "hatch"), ("conda run", "conda"),
    ("conda run -n base", "conda"), ("docker exec c", "docker"), ("docker run img", "docker"),
    ("docker compose exec web", "docker"), ("kubectl exec pod --", "kubectl"),
    ("kubectl run x --image=i --", "kubectl"), ("podman run img", "podman"),
    ("podman exec c", "podman"), ("time -p", "time"), ("time -v", "time"),
    ("strace -f", "strace"), ("strace -f -e trace=file", "strace"), ("ltrace -f", "ltrace"),
    ("valgrind --tool=memcheck", "valgrind"), ("valgrind -q", "valgrind"),
    ("sg wheel", "sg"), ("start-stop-daemon --start --exec /bin/rm --", "start-stop-daemon"),
    ("daemonize", "daemonize"), ("entr -r", "entr"), ("entr -p", "entr"),
    ("reptyr -l", "reptyr"), ("nohup", "nohup"), ("unshare -r", "unshare"),
    ("unshare --map-root-user --mount", "unshare"), ("setsid -f", "setsid"),
    ("taskset -c 0", "taskset"), ("taskset 1", "taskset"), ("chrt -f 10", "chrt"),
    ("prlimit --nofile=100", "prlimit"), ("numactl --cpunodebind=0", "numactl"),
    ("command -p", "command"), ("exec -a x", "exec"), ("hyperfine", "hyperfine"),
]

RUNNERS: list[Row] = [
    r3(f"runner: {prefix} rm -rf", rules, f"{prefix} rm -rf d", ASK)
    for prefix, rules in _PREFIXES
] + [
    r3(f"floor: {prefix} rm -rf", "any shell", f"{prefix} rm -rf d", ASK)
    for prefix, rules in _PREFIXES[::3]
] + [
    r3(f"deny rm: {prefix} rm", "deny rm", f"{prefix} rm d", DENY)
    for prefix, rules in _PREFIXES[1::4]
] + [
    r3("runner: hyperfine runs text", "hyperfine", "hyperfine 'rm -rf d'", ASK),
    r3("runner: hyperfine --prepare", "hyperfine", "hyperfine -p 'rm -rf d' 'ls'", ASK),
    r3("runner: tmux send-keys", "tmux", "tmux send-keys 'rm -rf d' Enter", ASK),
    r3("runner: tmux run-shell", "tmux", "tmux run-shell 'rm -rf d'", ASK),
    r3("runner: screen -X stuff", "screen", "screen -X stuff 'rm -rf d\\n'", ASK),
    r3("runner: script -c", "script", "script -qc 'rm -rf d' /dev/null", ASK),
    r3("runner: script --command=", "script", "script --command='rm -rf d' log", ASK),
    r3("runner: su -c", "su", "su -c 'rm -rf d'", ASK),
    r3("runner: su root -c", "su", "su root -c 'rm -rf d'", ASK),
    r3("runner: runuser -c", "runuser", "runuser -l root -c 'rm -rf d'", ASK),
    r3("runner: flock -c", "flock", "flock f -c 'rm -rf d'", ASK),
    r3("runner: watch -n", "watch", "watch -n 1 rm -rf d", ASK),
    r3("runner: watch -x", "watch", "watch -x rm -rf d", ASK),
    r3("runner: watch --interval=", "watch", "watch --interval=1 'rm -rf d'", ASK),
    r3("runner: sudo -s", "sudo", "sudo -s rm -rf d", ASK),
    r3("runner: sudo -i", "sudo", "sudo -i rm -rf d", ASK),
    r3("runner: sudo -e writes", "sudo", "sudo -e /etc/passwd", ASK),
    r3("runner: sudo an unknown option", "sudo", "sudo -Z x rm -rf d", ASK),
    r3("runner: env -S", "env", "env -S 'rm -rf d'", ASK),
    r3("runner: env -C", "env ls", "env -C /etc ls", ASK),
    r3("runner: env --chdir=", "env ls", "env --chdir=/ ls", ASK),
    r3("runner: env -u then ls", "env ls", "env -u LD_PRELOAD ls", ASK),
    r3("runner: strace -o writes outside", "strace ls", "strace -o /etc/x ls", ASK),
    r3("runner: strace -E env", "strace ls", "strace -E LD_PRELOAD=x.so ls", ASK),
    r3("runner: time -o writes outside", "time ls", "time -o /etc/x ls", ASK),
    r3("runner: xargs -a from a file", "xargs ls", "xargs -a list rm -rf", ASK),
    r3("runner: xargs -I sh -c", "xargs", "xargs -I{} sh -c 'rm -rf {}'", ASK),
    r3("runner: xargs -i attached", "xargs", "xargs -i rm -rf {}", ASK),
    r3("runner: xargs unknown option", "xargs ls", "xargs -Q ls", ASK),
    r3("runner: make SHELL=", "make", "make SHELL=/tmp/evil", ASK),
    r3("runner: make CC=", "make", "make CC='rm -rf d;'", ASK),
    r3("runner: make -C dir SHELL=", "make", "make -C sub SHELL='rm -rf d'", ASK),
    r3("runner: make --eval", "make", "make --eval='x:;rm -rf d'", ASK),
    r3("runner: gdb -ex", "gdb", "gdb -batch -ex 'shell rm -rf d'", ASK),
    r3("runner: expect -c", "expect", "expect -c 'spawn rm -rf d'", ASK),
    r3("runner: at -f", "at", "at -f evil.sh now", ASK),
    r3("runner: at from a pipe", "at", "echo 'rm -rf d' | at now", ASK),
    r3("runner: batch from a pipe", "batch", "echo 'rm -rf d' | batch", ASK),
    r3("runner: crontab a file", "crontab", "crontab evil.cron", ASK),
    r3("runner: newgrp", "newgrp", "newgrp wheel", ASK),
    r3("runner: docker -H before exec", "docker", "docker -H h exec c rm -rf d", ASK),
    r3("runner: kubectl -n before exec", "kubectl", "kubectl -n ns exec p -- rm -rf d", ASK),
    r3("runner: perf with a shell", "perf", "perf stat sh -c 'rm -rf d'", ASK),
    r3("runner: nested runners", "nice", "nice -n 1 timeout 5 setarch x86_64 rm -rf d", ASK),
    r3("runner: nested runners any shell", "any shell",
       "nice -n 1 stdbuf -o0 choom -n 1 -- linux64 rm -rf d", ASK),
    r3("runner: ionice -p has no command", "ionice", "ionice -c 3 -p 1", ALLOW),
    r3("runner: env - (a lone dash is -i)", "any shell", "env - rm -rf d", ASK),
    r3("runner: strace -o a pipe", "any shell", "strace -o '|rm -rf d' ls", ASK),
    r3("runner: strace -o! a command", "any shell", "strace -o'!rm -rf d' ls", ASK),
    r3("runner: xargs -I X X runs its input", "any shell", "xargs -a cmds -I X X", ASK),
    r3("runner: xargs -i {} as the program", "any shell", "xargs -a cmds -i {}", ASK),
    r3("runner: xargs sh runs scripts named by its input", "any shell", "xargs -a f sh", ASK),
    r3("runner: xargs -I sh -c X", "any shell", "xargs -a cmds -I X sh -c X", ASK),
    r3("runner: xargs -n1 bash", "any shell", "xargs -a f -n1 bash", ASK),
    r3("runner: runuser -u alone", "runuser", "runuser -u root", ASK),
    r3("read: xargs -I{} cat {}", "any shell", "xargs -a f -I{} cat {}", ALLOW),
    r3("runner: env - deny rm", "deny rm", "env - rm d", DENY),
    r3("runner: runuser USER -c", "any shell", "runuser root -c 'rm -rf d'", ASK),
    r3("runner: chpst", "any shell", "chpst -u nobody rm -rf d", ASK),
    r3("runner: chpst -/ root", "chpst", "chpst -/ /x ls", ASK),
    r3("unknown runner: mytool rm -rf", "any shell", "mytool exec rm -rf d", ASK),
    r3("unknown runner: after a data program", "any shell", "mytool mv x rm -rf d", ASK),
    r3("unknown runner: git behind it", "any shell", "mytool --x git push --force", ASK),
    r3("unknown runner: git reset behind it", "any shell", "mytool git reset --hard", ASK),
    r3("unknown runner: sudo behind it", "any shell", "mytool sudo rm -rf d", ASK),
    r3("unknown runner: sh -c behind it", "any shell", "mytool sh -c 'rm -rf d'", ASK),
    r3("unknown runner: deny rm", "deny rm", "ccache2 rm d", DENY),
    r3("unknown runner: rlwrap", "any shell", "rlwrap -a rm -rf d", ASK),
    r3("unknown runner: tini", "any shell", "tini -- rm -rf d", ASK),
    r3("unknown runner: gosu", "any shell", "gosu root rm -rf d", ASK),
    r3("unknown runner: nix develop -c", "any shell", "nix develop -c rm -rf d", ASK),
    r3("unknown runner: sshpass", "any shell", "sshpass -p x rm -rf d", ASK),
    r3("unknown runner: mpirun", "any shell", "mpirun -n 2 rm -rf d", ASK),
    r3("unknown runner: allow of it needs rm", "python3", "python3 tool.py rm x", ASK),
    r3("read: unknown tool without a suspect word", "python3", "python3 tool.py build", ALLOW),
    r3("read: man rm", "any shell", "man rm", ALLOW),
    r3("read: grep rm -r", "any shell", "grep -rn 'rm -rf' src", ALLOW),
    r3("read: which git", "any shell", "which git rm", ALLOW),
    r3("read: nice ls", "nice ls", "nice -n 10 ls -la", ALLOW),
    r3("read: timeout ls", "timeout ls", "timeout -s KILL 5 ls", ALLOW),
    r3("read: sudo -u ls", "sudo ls", "sudo -u root ls", ALLOW),
    r3("read: env -i ls", "env ls", "env -i ls", ALLOW),
    r3("read: xargs -0 ls", "xargs ls", "xargs -0 -n 1 ls", ALLOW),
    r3("read: stdbuf ls", "stdbuf ls", "stdbuf -oL ls", ALLOW),
    r3("read: ionice ls", "ionice ls", "ionice -c 3 ls", ALLOW),
    r3("read: setarch ls", "setarch ls", "setarch x86_64 -R ls", ALLOW),
    r3("read: choom ls", "choom ls", "choom -n 5 -- ls", ALLOW),
    r3("read: flock ls", "flock ls", "flock -x lockfile ls", ALLOW),
    r3("read: time -p ls", "time ls", "time -p ls", ALLOW),
    r3("read: strace -f ls", "strace ls", "strace -f ls", ALLOW),
    r3("read: nohup ls", "nohup ls", "nohup ls", ALLOW),
    r3("read: watch -n ls", "watch ls", "watch -n 2 ls", ALLOW),
    r3("read: eatmydata ls", "eatmydata ls", "eatmydata ls", ALLOW),
    r3("read: faketime ls", "faketime ls", "faketime '2020-01-01 00:00:00' ls", ALLOW),
    r3("read: chronic ls", "chronic ls", "chronic ls", ALLOW),
    r3("read: linux64 ls", "linux64 ls", "linux64 ls", ALLOW),
    r3("read: command -v", "command", "command -v git", ALLOW),
    r3("read: entr ls", "entr ls", "entr -c ls", ALLOW),
    r3("read: doas ls", "doas ls", "doas -u root ls", ALLOW),
    r3("read: caffeinate ls", "caffeinate ls", "caffeinate -i ls", ALLOW),
]

# -- item 5: what the reader reads costs bounded time --------------------------------------

_BACKSLASHES = "\\\\" * 24
COST: list[Row] = [
    r3("cost: sed unterminated backslashes, e flag after", "sed",
       f"sed 's/{_BACKSLASHES}x/y/e' f", ASK),
    r3("cost: sed backslashes then a w flag", "sed", f"sed 's/{_BACKSLASHES}x/y/w /etc/x' f",
       ASK),
    r3("cost: sed y with backslashes then e", "sed", f"sed 'y/{_BACKSLASHES}/ab/;e' f", ASK),
    r3("cost: sed address with backslashes then e", "sed", f"sed '/{_BACKSLASHES}/e' f", ASK),
    r3("cost: 120k commas in braces", "echo", "echo {" + "," * 120000 + "}", ASK),
    r3("cost: 120k commas, unterminated brace, then rm", "echo",
       "echo {" + "," * 120000 + "; rm -rf d", ASK),
    r3("read: 120k commas, unterminated brace", "echo", "echo {" + "," * 120000, ALLOW),
    r3("cost: a word past the bound", "echo", "echo " + "a" * 140000, ASK),
    r3("cost: more words than the bound", "echo", "echo " + "a " * 20000, ASK),
    r3("cost: many commands", "echo", "echo a;" * 5000, ASK),
    r3("cost: find -exec chains", "any shell", "find . " + "-exec find " * 3000, ASK),
    r3("cost: many assignments", "ls", "a=1 " * 16000 + "ls", ASK),
    r3("cost: env assignments", "env ls", "env " + "a=1 " * 16000 + "ls", ASK),
    r3("cost: sh -c nested past the depth", "any shell",
       "sh -c \"sh -c 'bash -c \\\"sh -c \\\\\\\"sh -c rm\\\\\\\"\\\"'\" -rf d", ASK),
    r3("cost: eval chains", "any shell", "eval " * 3000 + "rm -rf d", ASK),
    r3("cost: wrapper chains", "any shell", "nice " * 3000 + "rm -rf d", ASK),
    r3("cost: xargs chains", "any shell", "xargs " * 3000 + "rm -rf d", ASK),
    r3("cost: many subshells", "ls", "(" * 5000 + "ls" + ")" * 5000, ASK),
    r3("cost: many pipes into sh", "any shell", "cat x |" * 4000 + " sh", ASK),
    r3("cost: quotes 64 KiB, then rm", "echo", "echo " + "'a'\"b\"" * 9000 + "; rm -rf d", ASK),
    r3("cost: NUL among 64 KiB", "echo", "echo " + "a" * 60000 + "\x00", ASK),
    r3("read: sed with escaped delimiters", "sed", "sed 's/a\\/b/c\\/d/g' f", ALLOW),
    r3("read: sed y with escapes", "sed", "sed 'y/abc/xyz/' f", ALLOW),
    r3("read: sed address and print", "sed", "sed -n '/^#/p' f", ALLOW),
    r3("read: braces a long list", "echo", "echo a,b,c", ALLOW),
]

# -- plain reads that stay allowed ---------------------------------------------------------

READS: list[Row] = [
    r3("read: git status", "git", "git status", ALLOW),
    r3("read: git log", "git", "git log --oneline -5", ALLOW),
    r3("read: git diff", "git", "git diff HEAD~1 -- src", ALLOW),
    r3("read: ls", "ls", "ls -la src", ALLOW),
    r3("read: cat", "cat", "cat README.md", ALLOW),
    r3("read: grep", "grep", "grep -rn TODO src", ALLOW),
    r3("read: git status any shell", "any shell", "git status", ALLOW),
    r3("read: a pipe of reads", "any shell", "git log -3 | grep fix | cat", ALLOW),
]

ROUND3_ROWS: list[Row] = BUILTINS + RUNNERS + COST + READS

#: (label, strict, arguments of sh_run, passed?) for the lease layer.
LEASE_ROWS: list[tuple[str, bool, dict[str, Any], bool]] = [
    ("let subscript", False, {"command": "let 'x[$(rm -rf locked)]=1'"}, False),
    ("test -v subscript", False, {"command": "test -v 'a[$(rm -rf locked)]'"}, False),
    ("[ -v subscript ]", False, {"command": "[ -v 'a[$(rm -rf locked)]' ]"}, False),
    ("printf -v subscript", False, {"command": "printf -v 'a[$(rm -rf locked)]' %s x"}, False),
    ("read subscript", False, {"command": "read 'a[$(rm -rf locked)]' < /dev/null"}, False),
    ("mapfile -C", False, {"command": "mapfile -C 'rm -rf locked' -c 1 a < l"}, False),
    ("readarray -C", False, {"command": "readarray -C 'rm -rf locked' a < l"}, False),
    ("(( subscript ))", False, {"command": "(( 'a[$(rm -rf locked)]' ))"}, False),
    ("unset subscript", False, {"command": "unset 'a[$(rm -rf locked)]'"}, False),
    ("wait -p subscript", False, {"command": "wait -n -p 'a[$(rm -rf locked)]'"}, False),
    ("declare -i", False, {"command": "declare -i 'a[$(rm -rf locked)]=1'"}, False),
    ("jobs -x", False, {"command": "jobs -x rm -rf locked"}, False),
    ("history -w", False, {"command": "history -w locked/a"}, False),
    ("setarch rm", False, {"command": "setarch x86_64 rm -rf locked"}, False),
    ("linux32 rm", False, {"command": "linux32 rm locked/a"}, False),
    ("choom rm", False, {"command": "choom -n 5 -- rm locked/a"}, False),
    ("ssh-agent rm", False, {"command": "ssh-agent rm locked/a"}, False),
    ("perf stat rm", False, {"command": "perf stat rm locked/a"}, False),
    ("tmux new-session rm", False, {"command": "tmux new-session rm locked/a"}, False),
    ("screen rm", False, {"command": "screen -dm rm locked/a"}, False),
    ("eatmydata rm", False, {"command": "eatmydata rm locked/a"}, False),
    ("faketime rm", False, {"command": "faketime '2020-01-01' rm locked/a"}, False),
    ("chronic rm", False, {"command": "chronic rm locked/a"}, False),
    ("ip netns exec rm", False, {"command": "ip netns exec n rm locked/a"}, False),
    ("uv run rm", False, {"command": "uv run rm locked/a"}, False),
    ("npx rm", False, {"command": "npx rm locked/a"}, False),
    ("flock f rm", False, {"command": "flock f rm locked/a"}, False),
    ("flock on the lease", False, {"command": "flock locked/lock ls"}, False),
    ("script -c rm", False, {"command": "script -c 'rm locked/a' /dev/null"}, False),
    ("su -c rm", False, {"command": "su -c 'rm locked/a'"}, False),
    ("doas rm", False, {"command": "doas -u root rm locked/a"}, False),
    ("chroot rm", False, {"command": "chroot / rm /srv/work/locked/a"}, False),
    ("bwrap rm", False, {"command": "bwrap --bind / / rm locked/a"}, False),
    ("nice -n rm", False, {"command": "nice -n 10 rm locked/a"}, False),
    ("timeout -s rm", False, {"command": "timeout -s KILL 5 rm locked/a"}, False),
    ("env -i rm", False, {"command": "env -i rm locked/a"}, False),
    ("xargs -I rm", False, {"command": "xargs -I{} rm locked/{}"}, False),
    ("strace -o into the lease", False, {"command": "strace -o locked/trace ls"}, False),
    ("time -o into the lease", False, {"command": "time -o locked/t ls"}, False),
    ("sed backslashes", False, {"command": "sed 's/" + _BACKSLASHES + "x' locked/a"}, True),
    ("sed -i backslashes", False, {"command": "sed -i 's/" + _BACKSLASHES + "x' locked/a"},
     False),
    ("braces 120k, then rm", False, {"command": "echo {" + "," * 120000 + "; rm locked/a"},
     False),
    ("read: braces 120k unterminated", False, {"command": "echo {" + "," * 120000}, True),
    ("read: nice ls", False, {"command": "nice -n 10 ls locked"}, True),
    ("read: timeout cat", False, {"command": "timeout -s KILL 5 cat locked/a"}, True),
    ("read: printf", False, {"command": "printf '%s\\n' x"}, True),
    ("read: test -f", False, {"command": "test -f locked/a"}, True),
    ("read: git status", False, {"command": "git status"}, True),
    ("read: nice rm elsewhere", False, {"command": "nice -n 5 rm free/a"}, True),
    ("strict: setarch rm in my lease", True, {"command": "setarch x86_64 rm mine/a"}, True),
    ("strict: printf -v", True, {"command": "printf -v x %s y"}, False),
]
