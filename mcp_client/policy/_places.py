"""The places a call's shell commands name: for the policy's rules, and for the lease layer.

:func:`commands_of` is every command a call runs (top-level and nested keys);
:func:`with_writes` adds to a call's locations what its commands' redirections
write and the repositories git is pointed at; :func:`git_state` makes a
location inside git's own state unknown for a call that may write.  The rest
of this module is the lease layer's wider question.

A lease on ``src/app.py`` must stop ``echo x > src/app.py``, ``rm -rf src``
and ``sed -i ... src/app.py`` run through a shell tool, not only ``fs_write``.
:func:`command_locations` reads a call's commands with the policy's shell
reader and answers with :class:`~mcp_client.paths.Location` values, the way
:func:`mcp_client.paths.locate` answers for path arguments:

* what the reader sees a command write: redirection targets, ``sed -i``
  files, git's ``--output``, ``find -fprint``, the output options and operands
  of programs that mostly read (``sort -o F``, ``uniq IN OUT``, ``tar -x -C D``,
  ``curl -O``, ``gzip F``: :mod:`mcp_client.policy._outputs`), as the policy
  judges them, and the directories git is pointed at (``-C``, ``--git-dir``);
* the operands of a program that changes the files it names (``rm``, ``mv``,
  ``cp``, ``touch``, ``tee``, ``chmod``, ``dd of=`` ... and ``find`` with
  ``-delete`` or ``-exec``);
* nothing more for a program known to only read (``ls``, ``cat``, ``grep``,
  ``git status``/``log``/``diff`` ...: none of their options writes a file or
  runs a command), for one whose every write ``_outputs`` names, option by
  option, closed-world (``sort``, ``uniq``, ``tar``, ``curl``...: an option it
  does not know is a write it cannot name, so ``sort`` with one is no reader),
  or for a wrapper (its wrapped command is read on its own);
* for anything else -- a git subcommand that changes the work tree, ``make``,
  ``python3 x.py``, a command the reader cannot follow -- the directory the
  command runs in, as a directory: it may change anything below it.  When that
  directory is not known either, a location that cannot be read.

Pure: nothing is run, nothing read from disk.
"""

from __future__ import annotations

import re
from typing import Any, Mapping, Sequence

from .. import argkeys
from ..paths import Location, resolve
from . import _shell
from ._outputs import UNNAMED, modeled
from ._programs import (CHANGES_DIRECTORY, WRAPPERS, abbreviates, fold, git_places, git_split,
                        options, program, versionless)
from ._runners import WRAPPERS as RUNNERS, read_runner
from ._shell import Command

__all__ = ["command_locations", "commands_of", "command_base", "with_writes", "git_state",
           "CWD_KEYS"]


# -- what the policy reads: commands, and the places their text names -------------------------

def commands_of(arguments: Mapping[str, Any], found: argkeys.Scan) -> list[_shell.Command] | None:
    """The shell reader's commands, plus those under other spellings or nested keys."""
    commands = _shell.effective_commands(arguments)
    extra = [spot for spot in found.commands if not spot.direct]
    if not extra and found.complete:
        return commands
    result = list(commands or [])
    for spot in extra:
        result.extend(_shell.effective_commands(spot.arguments) or [_shell.Command(None)])
    if not found.complete:
        result.append(_shell.Command(None))
    return result


_GIT_STATE = re.compile(r"(^|/)\.git(/|$)|(^|/)\.gitconfig$")
#: Arguments that name the directory a command runs in.
CWD_KEYS = ("cwd", "workdir", "working_dir", "working_directory", "cwd_path", "directory",
            "dir")


def git_state(locations: list[Location] | None, writes: bool) -> list[Location] | None:
    """``locations`` with those inside git's own state (``.git/config``, ``.git/hooks/x``,
    a ``.git`` file, ``.gitconfig``, in any case) made unknown when the call may write:
    what is written there is what a later, allowed ``git status`` runs."""
    if not writes or not locations:
        return locations
    return [Location(loc.key, loc.value, None, loc.directory)
            if loc.resolved is not None and _GIT_STATE.search(loc.resolved.casefold()) else loc
            for loc in locations]


def with_writes(locations: list[Location] | None, commands: list[_shell.Command] | None,
                arguments: Mapping[str, Any], root: str | None) -> list[Location] | None:
    """The call's locations, with what its commands write -- redirections, the
    operands of a program that changes the files it names (``tee F``, ``cp A B``,
    ``rm F``, ``dd of=F``) -- and the repositories git is pointed at (``git -C DIR``,
    ``--git-dir``, ``--work-tree``: another repository's configuration is code git
    runs) added."""
    targets = [("redirect", target) for command in commands or () for target in command.writes]
    targets += [("operand", word) for command in commands or ()
                for word in _writer_operands(command)]
    places = [place for command in commands or () for place in _git_dirs(command)]
    if not targets and not places:
        return locations
    assert commands is not None
    base = command_base(commands, arguments, root)
    found = list(locations or [])
    for key, target in targets:
        resolved = resolve(target, root) if target.startswith("/") else resolve(target, base)
        if _GIT_STATE.search(target.casefold()) or target in (_FROM_INPUT, UNNAMED):
            resolved = None             # git config or hooks: what a later git runs
        found.append(Location(key, target, resolved, target.endswith("/")))
    for places_of_one in (_git_dirs(command) for command in commands):
        here = base
        for option, value in places_of_one:
            resolved = resolve(value, root) if value.startswith("/") else resolve(value, here)
            if option == "-C":
                here = resolved
            found.append(Location(f"git {option}", value, resolved, True))
    return found


def command_base(commands: Sequence[_shell.Command], arguments: Mapping[str, Any],
                 root: str | None) -> str | None:
    """The directory a call's commands run in (its ``cwd``, or the root); ``None`` once
    one of them changes directory or cannot be read."""
    base = root
    for key in CWD_KEYS:
        if key in arguments:
            base = resolve(arguments[key], root)
    if any(command.argv is None or program(command.argv) in CHANGES_DIRECTORY
           for command in commands):
        base = None                     # where a relative path lands is no longer known
    return base


def _git_dirs(command: _shell.Command) -> list[tuple[str, str]]:
    name = program(command.argv)
    if command.argv is None or name is None or versionless(fold(name)) != "git":
        return []
    return git_places(command.argv)


# -- what the lease layer reads: everything a command may change ------------------------------

#: Programs that change only the files their operands name.
_WRITERS = frozenset({"rm", "rmdir", "unlink", "shred", "srm", "truncate", "touch", "mkdir",
                      "mv", "cp", "ln", "install", "tee", "chmod", "chown", "chgrp", "dd",
                      "rsync", "mkfifo", "mknod", "setfacl", "chattr", "sponge"})
#: Their first operand is not a path (a mode, an owner).
_FIRST_NOT_A_PATH = frozenset({"chmod", "chown", "chgrp", "setfacl", "chattr"})
#: Programs that read only, whatever their options (their manuals reviewed: none writes a
#: file; those that run something -- ``rg --pre``, awk's ``system``, ``sed``'s ``e`` and ``w``
#: -- are unknown commands to the reader).  ``sort``, ``uniq``, ``xxd``, ``tree``, ``less``
#: and ``file`` have options that write: they are read option by option (``_outputs.MODELED``);
#: ``ag`` is not here: its ``--pager`` runs a command the reader does not follow.
_READERS = frozenset({
    "ls", "cat", "grep", "egrep", "fgrep", "rg", "head", "tail", "wc", "pwd", "echo",
    "printf", "stat", "du", "df", "which", "type", "true", "false", "test", "[",
    "cmp", "diff", "date", "whoami", "id", "uname", "more",
    "realpath", "readlink", "basename", "dirname", "sleep", "cut", "tr", "jq", "nl", "od",
    "hexdump", "md5sum", "sha1sum", "sha256sum", "cksum", "column", "comm", "join", "zcat",
    "bzcat", "xzcat", "lzcat", "zstdcat", "lz4cat",
    "paste", "fold", "fmt", "rev", "tac", "seq", "yes", "hostname", "ps", "sed", "awk",
    "gawk", "mawk", "find", "env", "printenv", "locale", "nproc", "uptime"})
#: git subcommands that change nothing in the work tree.
_GIT_READS = frozenset({"status", "log", "diff", "show", "rev-parse", "ls-files", "ls-tree",
                        "blame", "grep", "describe", "shortlog", "cat-file", "rev-list",
                        "show-ref", "for-each-ref", "merge-base", "name-rev", "version",
                        "help", "annotate", "whatchanged", "diff-tree", "diff-files",
                        "diff-index", "check-ignore", "check-attr", "var"})
_FIND_CHANGES = frozenset({"-delete", "-exec", "-execdir", "-ok", "-okdir"})


def command_locations(arguments: Mapping[str, Any], root: str | None) -> list[Location] | None:
    """The locations a call's commands may change (see the module docstring).

    Returns:
        ``None`` when the call has no command; otherwise the locations (maybe none).
    """
    commands = commands_of(arguments, argkeys.scan(arguments))
    if commands is None:
        return None
    base = command_base(commands, arguments, root)
    found = [loc for loc in with_writes(None, commands, arguments, root) or []
             if not loc.key.startswith("git ")]
    for command in commands:
        found.extend(_changes(command, base, root))
    return found


def _changes(command: Command, base: str | None, root: str | None) -> list[Location]:
    name = program(command.argv)
    if command.argv is None or name is None:
        return [Location("command", None, None)]
    base_name = versionless(fold(name))
    argv = list(command.argv)
    if base_name == "find" and not set(argv) & _FIND_CHANGES:
        return []
    if base_name in _WRITERS or base_name == "find":
        return []                       # with_writes has its operands
    if base_name in _READERS or modeled(fold(name)) or base_name in WRAPPERS or \
            base_name in CHANGES_DIRECTORY:
        return []                       # (modeled: with_writes has its writes)
    if base_name == "git":
        sub, rest, doubtful = git_split(argv)
        if not doubtful and (sub in _GIT_READS or (sub == "branch" and not [
                word for word in rest if not word.startswith("-")] and not set(rest) & {
                "-d", "-D", "-m", "-M", "-c", "-C", "--delete", "--move", "--copy"})):
            return []
    where = Location("command", argv[0], base, True)
    return [where if base is not None else Location("command", argv[0], None)]


#: The operand of a writer that ``xargs`` or ``parallel`` feeds from its input.
_FROM_INPUT = "<operands from standard input>"
_FEEDERS = frozenset({"xargs", "parallel"})


def _writer_operands(command: Command) -> list[str]:
    """The path operands of a command whose program changes the files it names
    (:data:`_FROM_INPUT` for one ``xargs``/``parallel`` runs: its input names them)."""
    name = program(command.argv)
    if command.argv is None or name is None:
        return []
    base_name = versionless(fold(name))
    argv = list(command.argv)
    if base_name in _FEEDERS:
        wrapped = _fed(base_name, argv)
        return [_FROM_INPUT] if wrapped is None or _writer_operands(Command(tuple(wrapped))) or (
            wrapped and versionless(fold(program(wrapped) or "")) in _WRITERS) else []
    if base_name not in _WRITERS and not (base_name == "find" and set(argv) & _FIND_CHANGES):
        return []
    return _operands(base_name, argv)


def _fed(name: str, argv: list[str]) -> list[str] | None:
    """The command ``xargs`` (read by its option table: ``xargs -0 rm``) or ``parallel``
    (no option) runs; ``None`` when its options cannot be read."""
    if name == "xargs":
        reading = read_runner(RUNNERS["xargs"], argv)
        return None if reading is None else reading.command
    wrapped = argv[2:] if argv[1:2] == ["--"] else argv[1:]
    return None if wrapped and wrapped[0].startswith("-") else wrapped


#: Writers' long options whose value is a place they write (``cp --target-directory=D``,
#: ``rsync --log-file=F``), matched by any unique prefix; and short options whose value
#: glued on (``cp -tD``, ``rsync -TD``) is one.
_WRITER_PLACES = ("--target-directory", "--log-file", "--backup-dir", "--write-batch",
                  "--only-write-batch", "--partial-dir", "--temp-dir")
_WRITER_SHORT = {"cp": "t", "mv": "t", "ln": "t", "install": "t", "rsync": "T"}


def _operands(name: str, argv: list[str]) -> list[str]:
    """The path operands of a writer (``dd``: its ``of=``; ``find``: its start points), and
    the places its own options name (:data:`_WRITER_PLACES`)."""
    if name == "dd":
        return [word[3:] for word in argv[1:] if word.startswith("of=")]
    words: list[str] = []
    ended = False
    for word in argv[1:]:
        if name == "find" and (word.startswith("-") or word in ("(", "!")):
            break
        if not ended and word == "--":
            ended = True
        elif ended or not word.startswith("-") or word == "-":
            words.append(word)
        elif word.startswith("--"):
            words += [word.split("=", 1)[1]] if "=" in word and abbreviates(
                word, _WRITER_PLACES) else []   # (``cp --t=D`` is ``--target-directory``)
        elif set(word[1:]) & set(_WRITER_SHORT.get(name, "")):
            letter = _WRITER_SHORT[name]
            words += [word[word.index(letter) + 1:]] if word.index(letter) + 1 < len(word) \
                else []
    if name in _FIRST_NOT_A_PATH and not any(opt.startswith("--reference") for opt in
                                             options(argv)):
        words = words[1:]
    return words or (["."] if name == "find" else [])
