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

from .adversarial_cases import ALLOW, ASK, Row, allow, sh
from .adversarial_round3_writes import RULE_SETS

for _name in ("gawk", "sed"):
    RULE_SETS.setdefault(_name, [allow(_name)])

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

#: git reads a subcommand's options in order: ``--no-NAME`` undoes an earlier ``--NAME``,
#: and a letter inside a short option's value is no option.  Real git 2.39: ``git clean -n
#: --no-dry-run -f`` and ``git clean -fen`` (``-e n``) removed an untracked file; ``git rm
#: -f --cached --no-cached x`` removed ``x`` from the work tree.
GIT_LAST_WINS: list[Row] = [
    sh("git clean -n --no-dry-run -f", "any shell", "git clean -n --no-dry-run -f", ASK),
    sh("git clean -nf --no-dry-run", "any shell", "git clean -nf --no-dry-run", ASK),
    sh("git clean -fn --no-d (abbreviated)", "any shell", "git clean -fn --no-d", ASK),
    sh("git clean --dry-run --no-dry -f", "any shell", "git clean --dry-run --no-dry -f", ASK),
    sh("git clean -fen: -e takes n", "any shell", "git clean -fen", ASK),
    sh("git clean -f -en: -e takes n", "any shell", "git clean -f -en", ASK),
    sh("git clean -f -e -n: -e takes -n", "any shell", "git clean -f -e -n", ASK),
    sh("git clean -f --exclude -n", "any shell", "git clean -f --exclude -n", ASK),
    sh("git clean -f --ex -n", "any shell", "git clean -f --ex -n", ASK),
    sh("git rm -f --cached --no-cached", "any shell", "git rm -f --cached --no-cached x", ASK),
    sh("git rm --cached -f --no-cache", "any shell", "git rm --cached -f --no-cache x", ASK),
    sh("git rm -f --pathspec-from-file --cached", "any shell",
       "git rm -f --pathspec-from-file --cached", ASK),
    sh("git prune -n --no-dry-run", "any shell", "git prune -n --no-dry-run", ASK),
    sh("git restore -S --no-staged -W", "any shell", "git restore -S --no-staged -W f", ASK),
    sh("git restore --staged --no-staged", "any shell",
       "git restore --staged --no-staged f", ASK),
    sh("git restore -sS f: -s takes S", "any shell", "git restore -sS f", ASK),
    sh("read: git clean -n", "any shell", "git clean -n", ALLOW),
    sh("read: git clean -fn", "any shell", "git clean -fn", ALLOW),
    sh("read: git clean -f -e x -n", "any shell", "git clean -f -e x -n", ALLOW),
    sh("read: git clean --dry-run -fd", "any shell", "git clean --dry-run -fd", ALLOW),
    sh("read: git clean -f --no-dry-run -n", "any shell", "git clean -f --no-dry-run -n", ALLOW),
    sh("read: git rm --cached -f", "any shell", "git rm --cached -f x", ALLOW),
    sh("read: git rm -f --no-cached --cached", "any shell",
       "git rm -f --no-cached --cached x", ALLOW),
    sh("read: git prune -n", "any shell", "git prune -n", ALLOW),
    sh("read: git restore --staged", "any shell", "git restore --staged f", ALLOW),
    sh("read: git restore -S -s HEAD", "any shell", "git restore -S -s HEAD f", ALLOW),
]

#: zstd takes the last of ``-c`` and ``-o F``: real zstd 1.5 ``zstd -dco ../x a.zst`` and
#: ``zstd -c a -o ../w2`` wrote outside the working directory.
ZSTD: list[Row] = [
    sh("zstd -dco ../x", "zstd", "zstd -dco ../x f.zst", ASK),
    sh("zstd -c f -o ../x", "zstd", "zstd -c f -o ../x", ASK),
    sh("zstd -c f -o../x", "zstd", "zstd -c f -o../x", ASK),
    sh("zstd --stdout -d f.zst -o ../x", "zstd", "zstd --stdout -d f.zst -o ../x", ASK),
    sh("unzstd -c -o ../x", "any shell", "unzstd -c -o ../x f.zst", ASK),
    sh("read: zstd -dc f.zst", "zstd", "zstd -dc f.zst", ALLOW),
    sh("read: zstd -c f", "zstd", "zstd -c f", ALLOW),
    sh("read: zstd -d f.zst -o g", "zstd", "zstd -d f.zst -o g", ALLOW),
    sh("read: zstd -l f.zst", "zstd", "zstd -l f.zst", ALLOW),
]

#: A glob segment that may match ``..``: bash before 5.2 (and 5.2 with ``shopt -u
#: globskipdots``) expands ``.*`` and ``.?`` to ``..`` too; real bash 5.2 with
#: globskipdots off: ``echo x | tee .*/home/c`` overwrote ``../home/c``.
DOT_GLOBS: list[Row] = [
    sh("tee .*/home/c", "any shell", "echo x | tee .*/home/c", ASK),
    sh("tee .?/home/c", "any shell", "echo x | tee .?/home/c", ASK),
    sh("redirect to .[.]/home/c", "any shell", "echo x > .[.]/home/c", ASK),
    sh("redirect to d/../.*/c", "any shell", "echo x > d/.?/.?/c", ASK),
    sh("cp a .?/x", "any shell", "cp a .?/x", ASK),
    sh("sort -o .?/c", "sort", "sort -o .?/c a", ASK),
    sh("tee under a narrow allow", "tee", "tee .*/c", ASK),
    sh("read: tee x.?", "any shell", "echo x | tee x.?", ALLOW),
    sh("read: redirect to .x*", "any shell", "echo x > .x*", ALLOW),
    sh("read: ls *.py", "ls", "ls *.py", ALLOW),
    sh("read: cat .git*", "cat", "cat .git*", ALLOW),
    sh("read: cat src/.??*", "cat", "cat src/.??*", ALLOW),
]

#: A runner given no command that runs a shell reading its standard input: real fakeroot
#: 1.31 ``echo "touch canary" | fakeroot`` ran the text (``$SHELL`` reads the pipe).
NO_COMMAND: list[Row] = [
    sh("fakeroot reads a shell from the pipe", "any shell", 'echo "rm -rf d" | fakeroot', ASK),
    sh("fakeroot -u reads a shell from a file", "any shell", "fakeroot -u < script", ASK),
    sh("fakeroot -- with no command", "any shell", 'echo "rm -rf d" | fakeroot --', ASK),
    sh("fakeroot rm -rf", "any shell", "fakeroot rm -rf d", ASK),
    sh("read: fakeroot ls", "any shell", "fakeroot ls", ALLOW),
    sh("read: fakeroot -- make", "any shell", "fakeroot -- ls -l", ALLOW),
    sh("read: setsid with no command", "any shell", "echo x | setsid", ALLOW),
    sh("read: ionice -p reads priorities", "any shell", "ionice -p 1", ALLOW),
]

#: ``--target-directory`` abbreviated to one or two letters: real coreutils 9.1 ``cp
#: --t=locked a``, ``mv --t=``, ``ln --t=``, ``install --t=`` wrote into ``locked``.
TARGET_DIRECTORY: list[Row] = [
    sh("cp --t=/etc", "cp", "cp --t=/etc a", ASK),
    sh("cp --ta=/etc", "cp", "cp --ta=/etc a", ASK),
    sh("mv --t=..", "mv", "mv --t=.. a", ASK),
    sh("ln --t=/etc", "ln", "ln -s --t=/etc a", ASK),
    sh("install --t=/etc", "install", "install --t=/etc a", ASK),
    sh("read: cp --t=sub", "cp", "cp --t=sub a", ALLOW),
    sh("read: cp a b", "cp", "cp a b", ALLOW),
]

#: gawk takes long options by any unique prefix, and ``-W NAME`` as ``--NAME``: real gawk
#: 5.2.1 ``gawk --dump=../x1``, ``gawk -W dump=../x3``, ``gawk --prof=../x5`` wrote there.
GAWK: list[Row] = [
    sh("gawk --dump=../x", "gawk", "gawk --dump=../x 1 a", ASK),
    sh("gawk --prof=../x", "gawk", "gawk --prof=../x 1 a", ASK),
    sh("gawk --pretty=../x", "gawk", "gawk --pretty=../x 1 a", ASK),
    sh("gawk -W dump=../x", "gawk", "gawk -W dump=../x 1 a", ASK),
    sh("gawk -Wprof=../x", "gawk", "gawk -Wprof=../x 1 a", ASK),
    sh("gawk --debug=cmds", "gawk", "gawk --debug=cmds 1 a", ASK),
    sh("gawk -D reads debugger commands", "gawk", "echo 'save ../x' | gawk -D 1 a", ASK),
    sh("read: gawk -v x=1", "gawk", "gawk -v x=1 1 a", ALLOW),
    sh("read: gawk --sandbox", "gawk", "gawk --sandbox 1 a", ALLOW),
    sh("read: gawk -F:", "gawk", "gawk -F: '{print $1}' a", ALLOW),
]

#: ``sed -i SUFFIX`` with a ``/`` puts the backup elsewhere (``*`` is the file's name): real
#: GNU sed 4.9 ``sed -i'../*' s/h/H/ a`` wrote ``../a``, ``--in-place='../bk_*'`` ``../bk_a``.
SED_BACKUP: list[Row] = [
    sh("sed -i'../*'", "sed", "sed -i'../*' s/a/b/ a", ASK),
    sh("sed --in-place='../bk_*'", "sed", "sed --in-place='../bk_*' s/a/b/ a", ASK),
    sh("sed -ni'/tmp/*'", "sed", "sed -ni'/tmp/*' p a", ASK),
    sh("sed -E -i'../*'", "sed", "sed -E -i'../*' s/a/b/ a", ASK),
    sh("read: sed -i.bak", "sed", "sed -i.bak s/a/b/ a", ALLOW),
    sh("read: sed -i", "sed", "sed -i s/a/b/ a", ALLOW),
    sh("read: sed -n p", "sed", "sed -n p a", ALLOW),
]

#: Tried and held already: runner options whose values could be taken for the command,
#: builtins that evaluate subscripts, git's floor behind its own options, output options.
_HELD = [
    "nice -n10 rm -rf d", "nice --adj=5 rm -rf d", "timeout --signal=KILL 5 rm -rf d",
    "timeout -sKILL 5 rm -rf d", "timeout 5 -- rm -rf d", "env -S 'rm -rf d'",
    "env --sp='rm -rf d'", "env -iS 'rm -rf d'", "env -uX rm -rf d", "env - rm -rf d",
    "stdbuf -o L rm -rf d", "stdbuf --output=L rm -rf d", "xargs -a file rm -rf",
    "xargs --arg-file=file rm -rf", "xargs -I {} rm -rf {}", "xargs --max-l=1 rm -rf",
    "ionice -t -c3 rm -rf d", "command -p rm -rf d", "builtin command rm -rf d",
    "exec -afoo rm -rf d", "sudo --preserve-env=PATH rm -rf d", "sudo -nE rm -rf d",
    "setarch -R x86_64 rm -rf d", "taskset -c1 rm -rf d", "flock f -xc 'rm -rf d'",
    "flock f --com='rm -rf d'", "choom -n1 rm -rf d", "watch -dn1 rm -rf d",
    "watch -tx rm -rf d", "prlimit --nofile=1 rm -rf d", "busybox sh -c 'rm -rf d'",
    "[[ 'a[$(rm -rf d)]' -eq 1 ]]", "[ 1 -eq 1 -a 'b[$(rm -rf d)]' -eq 1 ]",
    "for x in 'a[$(rm -rf d)]'; do [[ x -eq 1 ]]; done", "builtin let 'x[$(rm -rf d)]=1'",
    "command printf -v 'a[$(rm -rf d)]' x", "declare -n r='a[$(rm -rf d)]'",
    "echo ${x:'a[$(rm -rf d)]'}", "kill -l 'a[$(rm -rf d)]'", "ulimit -n 'a[$(rm -rf d)]'",
    "git -C d checkout .", "git --work-tree=. checkout -- .", "git -c x=y restore .",
    "GIT CHECKOUT .", '"git" "checkout" "."', "git checkout ''.", "git checkout --for main",
    "git checkout main -f", "git restore -SW f", "git switch --disc main", "git clean -i",
    "git reset --har", "git stash -q drop", "git checkout-index -fa",
    "git read-tree -u --reset HEAD",
    "sort -uo/dev/../x a", "sort --ou=../x a", "sort -o /dev/fd/3 a", "tree -Lo 1 ../x",
    "xxd -Ralways a ../b", "patch -d.. -p1", "curl -: -o ../x http://x",
    "wget -e 'output_document ../x' --spider http://x", "less +s../x a", "mktemp -d ../x.XXX",
    "tar xvfC a.tar ..", "unzip -d .. a.zip", "7z x -o.. a.7z", "zip -TT 'rm -rf d' -T x.zip f",
    "echo x >~/f", "echo x >&../f", "cat <<E\\OF\n$(rm -rf d)\nEOF\nrm -rf d",
    "ls\rrm -rf d", "echo $(case x in x) :;; esac); rm -rf d",
]
HELD: list[Row] = [sh("held: " + command, "any shell", command, ASK) for command in _HELD]

POLICY_ROWS: list[Row] = [*MKTEMP, *GIT_LAST_WINS, *ZSTD, *DOT_GLOBS, *NO_COMMAND,
                          *TARGET_DIRECTORY, *GAWK, *SED_BACKUP, *HELD]

LEASE_ROWS: list[tuple[str, bool, dict[str, Any], bool]] = [
    ("mktemp -p . into the lease", False, {"command": "mktemp -p . locked/x.XXX"}, False),
    ("mktemp -p mine climbs into the lease", False,
     {"command": "mktemp -p mine ../locked/x.XXX"}, False),
    ("mktemp -p mine", False, {"command": "mktemp -p mine x.XXX"}, True),
    ("zstd -dco into the lease", False, {"command": "zstd -dco locked/x f.zst"}, False),
    ("zstd -dc", False, {"command": "zstd -dc f.zst"}, True),
    ("tee .*/work/locked", False, {"command": "echo x | tee .*/work/locked/f"}, False),
    ("cp --t=locked", False, {"command": "cp --t=locked a"}, False),
    ("mv --ta=locked", False, {"command": "mv --ta=locked a"}, False),
    ("cp --t=mine", False, {"command": "cp --t=mine a"}, True),
    # xargs' own options before the writer it feeds (real findutils 4.9: ``find locked
    # -print0 | xargs -0 rm`` removed ``locked/x``)
    ("xargs -0 rm", False, {"command": "find locked -print0 | xargs -0 rm"}, False),
    ("xargs -n1 -- rm", False, {"command": "echo locked/x | xargs -n1 -- rm"}, False),
    ("xargs -a list rm", False, {"command": "xargs -a list rm"}, False),
    ("xargs -d nl -r mv", False, {"command": "ls | xargs -d '\\n' -r mv -t mine"}, False),
    ("xargs -I{} cp", False, {"command": "ls | xargs -I{} cp {} mine"}, False),
    ("xargs -0 cat", False, {"command": "find . -print0 | xargs -0 cat"}, True),
    ("xargs -n1 grep", False, {"command": "ls | xargs -n1 grep x"}, True),
    ("gawk --dump=locked/f", False, {"command": "gawk --dump=locked/f 1 a"}, False),
    ("gawk -W prof=locked/f", False, {"command": "gawk -W prof=locked/f 1 a"}, False),
    ("sed -i'locked/*'", False, {"command": "sed -i'locked/*' s/a/b/ a"}, False),
    ("sed -i.bak", False, {"command": "sed -i.bak s/a/b/ mine/a"}, True),
    ("git clean -fen in the lease", False, {"command": "git -C locked clean -fen"}, False),
]
