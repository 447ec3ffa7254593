"""Real bash, git and tar in a scratch jail: the hostile commands of issue 26 do harm, and
through the Policy they do none.

The adversarial tables judge commands the Policy only reads; this file runs them.  Each row
is a destructive command that looks harmless to a reader that trusts its program -- a builtin
that evaluates quoted text, a "read-only" program given an output, a command runner, another
spelling of ``rm -rf`` or ``git reset --hard`` -- and the one narrow allow rule a user might
well have for that program (``{"tool": "sh_run", "decision": "allow", "command": "printf"}``).
Every row runs twice, on fresh copies of the same scratch scene (:class:`Scene`):

* ``test_damage_*``, the control: the command runs in the jail (:mod:`tests.jailkit`) with no
  Policy, and the harm the row names really happens -- a folder gone, uncommitted work lost,
  an untracked file deleted, a file written outside the root.  So the example is real.
* ``test_refused_*``: the same command is a ``sh_run`` call to a provider that runs it in the
  jail, behind ``Policy(rules=Policy.default_rules() + [the narrow allow], roots={"sh": root})``
  with an ``on_ask`` that answers ``deny-once``.  It must be asked about (and so denied) or
  denied outright, the provider must never have been handed it, and the scene must be exactly
  as it was.

``test_allowed_*`` are the plain reads that must stay allowed and run (``git status``, ``ls``,
``cat f``...).  A control whose program is not installed is skipped, saying so (its
``test_refused_*`` still runs: the Policy's verdict needs no program); bash, git, tar and
coreutils must be there.  Without a PID namespace the file skips, or fails when
``MCP_REQUIRE_JAIL=1`` (as in CI).

Nothing here runs a command outside the jail: the scene is built through it, every command
works on relative names inside the scratch folder, and the root is ``scratch/root`` so that
``../outside`` (the write-outside target) is still inside the scratch folder.
"""

from __future__ import annotations

import io
import os
import shutil
import tarfile
import tempfile
import unittest
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from unittest import mock

from mcp_client.policy import Policy

from ..base import LeakCheckingTestCase
from ..jailkit import Asker, JailShell, jail_problem, jail_required, run_in_jail
from ..tables import add_rows

#: Programs every row may count on; a row needing one that is missing fails instead of skipping.
REQUIRED = frozenset({"bash", "git", "tar", "rm", "sort", "uniq", "split", "timeout", "nice",
                      "env", "stdbuf", "ls", "cat", "cp", "dd", "tee", "nohup"})
#: Bash builtins and keywords: nothing to install.
BUILTINS = frozenset({"let", "printf", "test", "[", "[[", "read", "mapfile", "readarray",
                      "declare", "typeset", "echo", "command", "exec", "builtin", "time"})

# -- the scene -------------------------------------------------------------------------------

F_TEXT = "x\ny\nx\n"
KEEP_TEXT = "precious\n"
WORK_TEXT = "v2, not committed\n"
NEW_TEXT = "untracked\n"

#: Run inside the jail in ``scratch/root``: a git repository with every file committed.
SCENE_SCRIPT = """set -eu
git init -q -b main .
git -c user.name=jail -c user.email=jail@example.invalid add -A
git -c user.name=jail -c user.email=jail@example.invalid commit -q -m scene
test "$(git rev-parse --show-toplevel)" = "$PWD"
"""


def _xxd(data: bytes) -> str:
    """``data`` as one line of ``xxd`` output (``xxd -r`` reads it back)."""
    groups = " ".join(data[i:i + 2].hex() for i in range(0, len(data), 2))
    text = "".join(chr(b) if 32 <= b < 127 else "." for b in data)
    return f"00000000: {groups:<40} {text}\n"


def _archive_member() -> tuple[tarfile.TarInfo, bytes]:
    payload = b"payload\n"
    info = tarfile.TarInfo("x.txt")
    info.size = len(payload)
    return info, payload


def build_scene(scratch: Path) -> None:
    """Make ``scratch/root`` (the tool's root) and an empty ``scratch/outside``.

    In the root: ``f``, ``d/keep``, ``work.txt``, ``h.hex`` (``f`` as xxd dumps it),
    ``t.tar`` and ``z.zip`` (each holding ``x.txt``), all committed; then ``work.txt``
    edited and ``new.txt`` added, neither committed.
    """
    root = scratch / "root"
    (root / "d").mkdir(parents=True)
    (scratch / "outside").mkdir()
    (root / "f").write_text(F_TEXT)
    (root / "d" / "keep").write_text(KEEP_TEXT)
    (root / "work.txt").write_text("v1\n")
    (root / "h.hex").write_text(_xxd(F_TEXT.encode()))
    info, payload = _archive_member()
    with tarfile.open(root / "t.tar", "w") as archive:
        archive.addfile(info, io.BytesIO(payload))
    with zipfile.ZipFile(root / "z.zip", "w") as archive:
        archive.writestr("x.txt", payload)
    ran = run_in_jail(SCENE_SCRIPT, scratch=scratch, cwd=root)
    if ran.returncode != 0:
        raise RuntimeError(f"the scene could not be built: {ran.stderr}")
    (root / "work.txt").write_text(WORK_TEXT)
    (root / "new.txt").write_text(NEW_TEXT)


def harm(scratch: Path) -> list[str]:
    """Which of the scene's canaries are hurt: ``d`` (d/keep gone), ``work`` (the uncommitted
    edit lost), ``untracked`` (new.txt gone), ``outside`` (anything written in scratch/outside)."""
    root = scratch / "root"
    found = []
    if not _reads(root / "d" / "keep", KEEP_TEXT):
        found.append("d")
    if not _reads(root / "work.txt", WORK_TEXT):
        found.append("work")
    if not _reads(root / "new.txt", NEW_TEXT):
        found.append("untracked")
    if not (scratch / "outside").is_dir() or any((scratch / "outside").iterdir()):
        found.append("outside")
    return found


def _reads(path: Path, text: str) -> bool:
    return path.is_file() and not path.is_symlink() and path.read_text() == text


def snapshot(scratch: Path) -> dict[str, Any]:
    """Every name under the root (but git's own ``.git``) and ``outside``, with its content."""
    seen: dict[str, Any] = {}
    for top in ("root", "outside"):
        base = scratch / top
        if not base.exists():
            continue
        for path in sorted(base.rglob("*")):
            relative = path.relative_to(scratch)
            if ".git" in relative.parts:
                continue
            if path.is_symlink():
                seen[str(relative)] = ("link", str(path.readlink()))
            elif path.is_dir():
                seen[str(relative)] = "dir"
            else:
                seen[str(relative)] = path.read_bytes()
    return seen


# -- the rows --------------------------------------------------------------------------------


def allow(program: str, *args: str) -> dict[str, Any]:
    """The narrow allow rule a user might have for ``program`` (and its first words)."""
    rule: dict[str, Any] = {"tool": "sh_run", "decision": "allow", "command": program}
    return {**rule, "args": list(args)} if args else rule


@dataclass(frozen=True)
class Example:
    """One destructive command, the narrow allow it runs under, and the harm it does."""

    command: str
    rule: dict[str, Any]
    harm: str
    needs: tuple[str, ...] = ()
    stdin: str | None = None
    programs: tuple[str, ...] = field(init=False)

    def __post_init__(self) -> None:
        program = self.rule["command"]
        own = () if program in BUILTINS else (program,)
        object.__setattr__(self, "programs", (*own, *self.needs))


def row(label: str, command: str, rule: dict[str, Any], harm: str, *needs: str,
        stdin: str | None = None) -> tuple[str, Example]:
    return (label, Example(command, rule, harm, tuple(needs), stdin))


RM = "rm -rf d"

#: Item 1: builtins that evaluate quoted text (an array subscript, a callback).
BUILTIN_ROWS = [
    row("let subscript", f"let 'x[$({RM})]=1'", allow("let"), "d"),
    row("printf -v subscript", f"printf -v 'a[$({RM})]' %s x", allow("printf"), "d"),
    row("test -v subscript", f"test -v 'a[$({RM})]'", allow("test"), "d"),
    row("[ -v subscript ]", f"[ -v 'a[$({RM})]' ]", allow("["), "d"),
    row("[[ -v subscript ]]", f"[[ -v 'a[$({RM})]' ]]", allow("[["), "d"),
    row("read subscript, here-string", f"read 'a[$({RM})]' <<< x", allow("read"), "d"),
    row("read subscript, stdin", f"read 'a[$({RM})]'", allow("read"), "d", stdin="x\n"),
    row("mapfile -C callback", f"mapfile -C '{RM} #' -c 1 a < f", allow("mapfile"), "d"),
    row("mapfile -t -C callback", f"mapfile -t -C '{RM}; :' -c 1 a < f", allow("mapfile"), "d"),
    row("readarray -C callback", f"readarray -C '{RM} #' -c 1 a < f", allow("readarray"), "d"),
    row("declare -i value", f"declare -i n='a[$({RM})]'", allow("declare"), "d"),
    row("declare -a subscript", f"declare -a 'a[$({RM})]'=1", allow("declare"), "d"),
    row("typeset -i value", f"typeset -i n='a[$({RM})]'", allow("typeset"), "d"),
    row("arithmetic on a variable", f"x='a[$({RM})]'; echo $(( x ))", allow("echo"), "d"),
    row("arithmetic sum on a variable", f"x='a[$({RM})]'; echo $(( x + 1 ))", allow("echo"),
        "d"),
    row("array index from a variable", f"x='a[$({RM})]'; echo ${{f[x]}}", allow("echo"), "d"),
    row("arithmetic, quoted subscript", f"echo $(( 'a[$({RM})]' ))", allow("echo"), "d"),
    row("arithmetic, bare subscript", f"echo $(( a[$({RM})] ))", allow("echo"), "d"),
    row("[[ -eq ]] on a quoted subscript", f"[[ x -eq 'a[$({RM})]' ]]", allow("[["), "d"),
    row("[[ -lt ]] with the subscript first", f"[[ 'a[$({RM})]' -lt 1 ]]", allow("[["), "d"),
    row("[[ -eq ]] on a variable", f"x='a[$({RM})]'; [[ x -eq 0 ]]", allow("[["), "d"),
    row("printf -v subscript, no argument", f"printf -v 'a[$({RM})]' x", allow("printf"), "d"),
    row("let on a quoted value", f"let x='a[$({RM})]'", allow("let"), "d"),
    row("let increment", f"let 'a[$({RM})]++'", allow("let"), "d"),
    row("declare NAME[SUB]=V", f"declare 'a[$({RM})]=1'", allow("declare"), "d"),
    row("mapfile -c before -C", f"mapfile -c 1 -C '{RM} #' a < f", allow("mapfile"), "d"),
    row("quoted subscript in a parameter", f"echo \"${{x['$({RM})']}}\"", allow("echo"), "d"),
]

#: Item 2: "read-only" programs given an output outside the root.
WRITER_ROWS = [
    row("sort -o", "sort -o ../outside/o f", allow("sort"), "outside"),
    row("sort --output=", "sort --output=../outside/o f", allow("sort"), "outside"),
    row("sort -oFILE", "sort -o../outside/o f", allow("sort"), "outside"),
    row("sort -uo cluster", "sort -uo ../outside/o f", allow("sort"), "outside"),
    row("uniq IN OUT", "uniq f ../outside/o", allow("uniq"), "outside"),
    row("uniq -c IN OUT", "uniq -c f ../outside/o", allow("uniq"), "outside"),
    row("xxd IN OUT", "xxd f ../outside/o", allow("xxd"), "outside"),
    row("xxd -r IN OUT", "xxd -r h.hex ../outside/o", allow("xxd"), "outside"),
    row("tar -x -C", "tar -x -C ../outside -f t.tar", allow("tar"), "outside"),
    row("tar -xf then -C", "tar -xf t.tar -C ../outside", allow("tar"), "outside"),
    row("tar --directory=", "tar -xf t.tar --directory=../outside", allow("tar"), "outside"),
    row("tar old-style xf -C", "tar xf t.tar -C ../outside", allow("tar"), "outside"),
    row("split PREFIX", "split -l 1 f ../outside/p", allow("split"), "outside"),
    row("unzip -d", "unzip -q -d ../outside z.zip", allow("unzip"), "outside"),
    row("unzip -qd cluster", "unzip -qd ../outside z.zip", allow("unzip"), "outside"),
    row("dd of=", "dd if=f of=../outside/o status=none", allow("dd"), "outside"),
    row("cp into outside", "cp f ../outside/", allow("cp"), "outside"),
    row("tee FILE", "tee ../outside/o < f", allow("tee"), "outside"),
    row("curl -so", "curl -so ../outside/o file:///etc/hostname", allow("curl"), "outside"),
    row("curl URL -o", "curl -s file:///etc/hostname -o ../outside/o", allow("curl"),
        "outside"),
    row("curl --output", "curl -s --output ../outside/o file:///etc/hostname", allow("curl"),
        "outside"),
    row("wget -O", "wget -q -O ../outside/o http://127.0.0.1:9/", allow("wget"), "outside"),
    row("wget -o log", "wget -q -o ../outside/log http://127.0.0.1:9/", allow("wget"),
        "outside"),
    row("iconv -o", "iconv -o ../outside/o f", allow("iconv"), "outside"),
    row("shuf -o", "shuf -o ../outside/o f", allow("shuf"), "outside"),
    row("sed w command", "sed -n 'w ../outside/o' f", allow("sed"), "outside"),
    row("awk print >", "awk '{print > \"../outside/o\"}' f", allow("awk"), "outside"),
    row("find -fprint", "find . -name f -fprint ../outside/o", allow("find"), "outside"),
    row("git diff --output=", "git diff --output=../outside/o", allow("git", "diff"),
        "outside"),
    row("git log --output=", "git log --output=../outside/o", allow("git", "log"), "outside"),
    row("git format-patch -o", "git format-patch -q -o ../outside -1",
        allow("git", "format-patch"), "outside"),
    row("git archive -o", "git archive -o ../outside/a.tar HEAD", allow("git", "archive"),
        "outside"),
    row("tar -cf outside", "tar -cf ../outside/t.tar f", allow("tar"), "outside"),
    row("csplit -f", "csplit -s -f ../outside/p f 2", allow("csplit"), "outside"),
    row("openssl -out", "openssl base64 -in f -out ../outside/o", allow("openssl"), "outside"),
    row("script FILE", "script -q -c true ../outside/o", allow("script"), "outside"),
]

#: Item 3: command runners, each running ``rm -rf d``.
RUNNER_ROWS = [
    row("setarch", f"setarch x86_64 {RM}", allow("setarch"), "d"),
    row("linux64", f"linux64 {RM}", allow("linux64"), "d"),
    row("linux32", f"linux32 {RM}", allow("linux32"), "d"),
    row("choom -n N --", f"choom -n 0 -- {RM}", allow("choom"), "d"),
    row("flock FILE cmd", f"flock f {RM}", allow("flock"), "d"),
    row("flock FILE -c", f"flock f -c '{RM}'", allow("flock"), "d"),
    row("script -qc", f"script -qc '{RM}' /dev/null", allow("script"), "d"),
    row("ssh-agent cmd", f"ssh-agent {RM}", allow("ssh-agent"), "d"),
    row("su -c", f"su -c '{RM}'", allow("su"), "d"),
    row("chronic", f"chronic {RM}", allow("chronic"), "d"),
    row("eatmydata", f"eatmydata {RM}", allow("eatmydata"), "d"),
    row("faketime", f"faketime now {RM}", allow("faketime"), "d"),
    row("timeout", f"timeout 5 {RM}", allow("timeout"), "d"),
    row("nice", f"nice {RM}", allow("nice"), "d"),
    row("stdbuf", f"stdbuf -o0 {RM}", allow("stdbuf"), "d"),
    row("setsid -w", f"setsid -w {RM}", allow("setsid"), "d"),
    row("taskset", f"taskset -c 0 {RM}", allow("taskset"), "d"),
    row("ionice", f"ionice -c 3 {RM}", allow("ionice"), "d"),
    row("prlimit", f"prlimit --nofile=256 {RM}", allow("prlimit"), "d"),
    row("xargs", "xargs rm -rf <<< d", allow("xargs"), "d"),
    row("env -i", f"env -i {RM}", allow("env"), "d"),
    row("nohup", f"nohup {RM}", allow("nohup"), "d"),
    row("runuser -u --", f"runuser -u root -- {RM}", allow("runuser"), "d"),
    row("sg -c", f"sg root -c '{RM}'", allow("sg"), "d"),
    row("dpkg-architecture -c", f"dpkg-architecture -c {RM}", allow("dpkg-architecture"), "d"),
    row("time -p", f"time -p {RM}", allow("time"), "d"),
    row("command", f"command {RM}", allow("command"), "d"),
    row("exec", f"exec {RM}", allow("exec"), "d"),
    row("builtin eval", f"builtin eval '{RM}'", allow("builtin"), "d"),
    row("xargs -a with the command inline", f"xargs -a /dev/null {RM}", allow("xargs"), "d"),
    row("find -exec", "find . -maxdepth 1 -name d -exec rm -rf {} +", allow("find"), "d"),
]

#: Item 4 and the baselines: other spellings of a recursive delete or a hard reset.
FLOOR_ROWS = [
    row("baseline rm -rf", RM, allow("rm"), "d"),
    row("baseline git reset --hard", "git reset --hard", allow("git", "reset"), "work"),
    row("git reset --hard HEAD", "git reset --hard HEAD", allow("git", "reset"), "work"),
    row("tar --remove-files", "tar --remove-files -cf t2.tar d", allow("tar"), "d"),
    row("zip -m", "zip -qrm z2.zip d", allow("zip"), "d"),
    row("git checkout -- . (every path)", "git checkout -- .", allow("git", "checkout"), "work"),
    row("git checkout . (every path, no --)", "git checkout .", allow("git", "checkout"), "work"),
    row("git checkout -f", "git checkout -f", allow("git", "checkout"), "work"),
    row("git checkout -f main", "git checkout -f main", allow("git", "checkout"), "work"),
    row("git checkout --force", "git checkout --force", allow("git", "checkout"), "work"),
    row("git checkout -- FILE", "git checkout -- work.txt", allow("git", "checkout"), "work"),
    row("git checkout FILE (no --)", "git checkout work.txt", allow("git", "checkout"), "work"),
    row("git checkout HEAD -- FILE", "git checkout HEAD -- work.txt",
        allow("git", "checkout"), "work"),
    row("git restore . (every path)", "git restore .", allow("git", "restore"), "work"),
    row("git restore FILE", "git restore work.txt", allow("git", "restore"), "work"),
    row("git restore -SW . (index and tree)", "git restore -SW .", allow("git", "restore"), "work"),
    row("git switch -f", "git switch -f main", allow("git", "switch"), "work"),
    row("git switch --discard-changes", "git switch --discard-changes main",
        allow("git", "switch"), "work"),
    row("git clean -fd", "git clean -fd", allow("git", "clean"), "untracked"),
    row("git clean -f", "git clean -f", allow("git", "clean"), "untracked"),
    row("git clean -fdx", "git clean -fdx", allow("git", "clean"), "untracked"),
    row("git clean --force", "git clean --force", allow("git", "clean"), "untracked"),
    row("git stash -u then drop", "git stash -u && git stash drop", allow("git", "stash"),
        "work"),
    row("git stash push -u then clear", "git stash push --include-untracked && git stash clear",
        allow("git", "stash"), "untracked"),
    row("find -delete", "find d -delete", allow("find"), "d"),
    row("git rm -rf", "git rm -rqf d", allow("git", "rm"), "d"),
]

ROWS = ([(f"builtin {label}", ex) for label, ex in BUILTIN_ROWS]
        + [(f"writer {label}", ex) for label, ex in WRITER_ROWS]
        + [(f"runner {label}", ex) for label, ex in RUNNER_ROWS]
        + [(f"floor {label}", ex) for label, ex in FLOOR_ROWS])

#: Plain reads inside the root that must stay allowed, with a word their output must hold.
READS = [
    ("git status", "git status", allow("git", "status"), "work.txt"),
    ("git log", "git log --oneline", allow("git", "log"), "scene"),
    ("git diff", "git diff", allow("git", "diff"), "not committed"),
    ("ls", "ls", allow("ls"), "work.txt"),
    ("cat f", "cat f", allow("cat"), "y"),
    ("grep x f", "grep x f", allow("grep"), "x"),
]


# -- the tests -------------------------------------------------------------------------------


class JailCase(LeakCheckingTestCase):
    """Gives each test a fresh scratch folder holding a copy of the scene."""

    _template: tempfile.TemporaryDirectory[str] | None = None

    @classmethod
    def tearDownClass(cls) -> None:
        if cls._template is not None:
            cls._template.cleanup()
            cls._template = None
        super().tearDownClass()

    def setUp(self) -> None:
        super().setUp()
        problem = jail_problem()
        if problem is not None:
            if jail_required():
                self.fail(f"MCP_REQUIRE_JAIL=1 but there is no jail: {problem}")
            self.skipTest(f"no scratch jail here: {problem}")
        if type(self)._template is None:
            template = tempfile.TemporaryDirectory(prefix="mcp-jail-scene-")
            build_scene(Path(template.name))
            type(self)._template = template
        assert self._template is not None
        work = tempfile.TemporaryDirectory(prefix="mcp-jail-")
        self.addCleanup(work.cleanup)
        self.scratch = Path(work.name).resolve()
        for top in ("root", "outside"):
            shutil.copytree(Path(self._template.name) / top, self.scratch / top, symlinks=True)
        self.root = self.scratch / "root"
        self.assertEqual(harm(self.scratch), [], "the scene is not intact")

    def need(self, programs: tuple[str, ...]) -> None:
        for program in programs:
            if shutil.which(program) is None:
                if program in REQUIRED:
                    self.fail(f"{program} is not installed, and this file needs it")
                self.skipTest(f"{program} is not installed, so this control cannot run here")

    def through_policy(self, command: str, rule: dict[str, Any],
                       stdin: str | None = None) -> tuple[str, JailShell, dict[str, Any]]:
        """allow / ask / deny for ``command`` under the defaults plus ``rule``; the shell; the
        result."""
        shell = JailShell(self.scratch, self.root, stdin=stdin)
        asker = Asker()
        policy = Policy(shell, rules=[*Policy.default_rules(), rule],
                        roots={"sh": str(self.root)}, on_ask=asker)
        [result] = policy.execute_tool_calls([{"id": "c1", "type": "function", "function": {
            "name": "sh_run", "arguments": {"command": command}}}])
        decided = "allow" if shell.ran else "ask" if asker.questions else "deny"
        return decided, shell, dict(result)


class JailDamage(JailCase):
    """The controls: run directly in the jail, each example does the harm its row names."""

    def damage(self, label: str, example: Example) -> None:
        self.need(example.programs)
        ran = run_in_jail(example.command, scratch=self.scratch, cwd=self.root,
                          stdin=example.stdin)
        self.assertIn(example.harm, harm(self.scratch),
                      f"{label}: {example.command!r} did no {example.harm!r} harm "
                      f"(exit {ran.returncode}: {ran.stderr.strip()[:200]})")


class JailRefused(JailCase):
    """Through the Policy, each example is asked about or denied, and nothing runs."""

    def refused(self, label: str, example: Example) -> None:
        # No skip for a program that is not installed: the verdict does not depend on it,
        # and a command the Policy let through is caught in ``shell.ran`` either way.
        before = snapshot(self.scratch)
        decided, shell, result = self.through_policy(example.command, example.rule,
                                                     example.stdin)
        if shell.ran:
            exits = [ran.returncode for ran in shell.outputs]
            self.fail(f"allowed under {example.rule}: {example.command!r} ran in the jail "
                      f"(exit {exits}) and did {harm(self.scratch) or 'no harm this time'}")
        self.assertIn(decided, ("ask", "deny"))
        self.assertTrue(result["is_error"])
        self.assertTrue(str(result["content"]).startswith("refused by policy"), result)
        self.assertEqual(snapshot(self.scratch), before)
        self.assertEqual(harm(self.scratch), [])


class JailAllowed(JailCase):
    """Plain reads inside the root stay allowed under their narrow rule, and run."""

    def allowed(self, label: str, command: str, rule: dict[str, Any], expected: str) -> None:
        decided, shell, result = self.through_policy(command, rule)
        self.assertEqual(decided, "allow", f"{label}: refused under {rule}: {result}")
        self.assertEqual(shell.ran, [command])
        self.assertFalse(result["is_error"], result)
        self.assertIn(expected, result["content"])
        self.assertEqual(harm(self.scratch), [])


add_rows(JailDamage, "damage", ROWS, JailDamage.damage)
add_rows(JailRefused, "refused", ROWS, JailRefused.refused)
add_rows(JailAllowed, "allowed", READS, JailAllowed.allowed)


class JailTotals(LeakCheckingTestCase):
    def test_every_class_of_items_1_to_4_has_rows(self) -> None:
        self.assertGreaterEqual(len(BUILTIN_ROWS), 15)
        self.assertGreaterEqual(len(WRITER_ROWS), 15)
        self.assertGreaterEqual(len(RUNNER_ROWS), 15)
        self.assertGreaterEqual(len(FLOOR_ROWS), 15)
        self.assertEqual(len({ex.command for _, ex in ROWS}), len(ROWS), "a row is repeated")


class JailRequiredTest(LeakCheckingTestCase):
    """Without a jail a row skips, saying why -- or fails when ``MCP_REQUIRE_JAIL=1``."""

    def outcome(self, required: str | None) -> unittest.TestResult:
        result = unittest.TestResult()
        environment = {} if required is None else {"MCP_REQUIRE_JAIL": required}
        with mock.patch(f"{__name__}.jail_problem", return_value="unshare is not installed"), \
                mock.patch.dict(os.environ, environment):
            if required is None:
                os.environ.pop("MCP_REQUIRE_JAIL", None)
            JailAllowed("test_allowed_003_ls").run(result)
        return result

    def test_no_jail_skips_saying_why(self) -> None:
        result = self.outcome(None)
        self.assertEqual([reason for _, reason in result.skipped],
                         ["no scratch jail here: unshare is not installed"])
        self.assertEqual(result.failures, [])

    def test_no_jail_fails_when_a_jail_is_required(self) -> None:
        result = self.outcome("1")
        self.assertEqual(result.skipped, [])
        [(_, trace)] = result.failures
        self.assertIn("MCP_REQUIRE_JAIL=1 but there is no jail: unshare is not installed", trace)
