"""The effective command of a tool call, read the way a POSIX shell would read it.

A tool that runs commands (``sh_run {"command": "git push --force"}``) is
judged on the programs it would start.  This module turns a call's arguments
into a list of :class:`Command` -- one per simple command the text contains,
and one for each command those run in turn; :mod:`mcp_client.policy._checks`
answers the command-shaped questions the policy asks about them.  It is pure:
no process is started, no file read.

Where the text comes from (:func:`effective_commands`): ``command`` or ``cmd``
(a string is shell text; a list of strings is an argv, run by no shell),
``argv`` (a list), ``script`` (shell text), ``commands`` (a list of shell
texts), and an ``args`` list (or ``arguments``, ``params``, ``parameters``;
``argv`` beside ``cmd`` is read both ways) appended to the argv of a single
plain ``command`` (taken as the program's arguments; a word holding shell
syntax or a space adds an unknown, for a tool that joins them into text).
Every one present counts.  A call with none of those keys has no command.
Keys beside them count too: an ``env``/``environment`` that is not empty is
an assignment (unknown), a ``shell``/``interpreter`` that is not a POSIX
shell reads the text its own way (unknown), so does a ``sudo``/``run_as``
that is set, and ``stdin``/``input`` data makes every command piped.

Shell text is split into words the way :func:`shlex.split` splits them in
POSIX mode (quotes and backslashes removed), and -- unlike ``shlex`` -- the
*unquoted* operators ``; & && || | |& ( )`` and newlines end a simple command.
A redirection's target is kept as a *write* of that command
(:attr:`Command.writes`: ``> f``, ``>> f``, ``>| f``, ``&> f``, ``<> f``, ``>&
f``) unless it is a file descriptor (``2>&1``) or ``/dev/null``; the policy
judges those targets as locations, as it does git's ``--output=F``, ``find
-fprint F`` and the files of ``sed -i``.  Input redirections (``< f``) are
reads and dropped.  A quoted ``";"`` is an ordinary word, so ``git push ";"
--force`` is one command.  ``#`` is an ordinary character: a comment only
hides words from the shell, so reading them anyway can only add caution.

Everything the reader cannot follow makes that part of the command *unknown*
(``Command.argv is None``), which every check treats as "could be anything":
``$`` expansions and backticks outside single quotes, process substitution,
here-documents and here-strings, brace expansion (``{a,b}``), unterminated
quotes, control or invisible format characters, glob characters or a
backslash in a program name, a reserved word or a builtin that changes the
shell for later commands in command position (``if``, ``{``, ``!``, ``for``,
``hash``, ``export``, ``source`` ...), ``alias``, arithmetic (``(( ))``,
``let``) and the builtins that evaluate a variable name's subscript, assign
variables or run a callback (``declare``, ``local``, ``unset``, ``mapfile``,
``getopts``, ``jobs -x``: see :data:`~mcp_client.policy._programs.RESERVED`),
a statement that only assigns variables, a redirection with no command, a
wrapper (``sudo``, ``env``, ``xargs``, ``timeout`` ...) given an option its
table in :mod:`mcp_client.policy._runners` does not list, more than
:data:`MAX_COMMAND_CHARS` of text, more than :data:`MAX_WORDS` words,
operators and quoted parts (or words in all the commands read), and nesting
deeper than :data:`MAX_DEPTH`.  Reading is linear in the text: every regular
expression here, in the lexer (:mod:`mcp_client.policy._shellwords`) and in
:mod:`mcp_client.policy._programs` matches without backtracking, so a decision
takes milliseconds whatever the text holds.

What it can follow, it does, and what a command does beyond that is added
beside it as an unknown command: ``FOO=1 git push`` runs ``git`` *and* an
unknown (an assignment may change what any program does: ``PATH``,
``LD_PRELOAD``, ``GIT_CONFIG_*``), and so do the builtins that assign or
evaluate by option (``printf -v``, ``read``, ``wait -p``, ``test -v`` with a
name that is not a plain identifier, ``set`` with an option not known to be
harmless: :func:`mcp_client.policy._builtins.evaluates`); ``sudo -u root rm
-rf x``, ``nice -n 10 rm``, ``setarch x86_64 -R rm``, ``busybox rm -rf x``,
``xargs -I{} rm -r {}``, ``parallel rm -r ::: x`` and ``find . -exec rm {} +``
run ``rm`` (the wrapper *and* the wrapped command are both in the list, so a
rule about either sees it; a runner that puts its command in another root or
environment, ``chroot`` or ``bwrap``, adds an unknown too, and the files its
own options write, ``strace -o F``, are its writes); a dashed git program (``git-push``,
``/usr/lib/git-core/git-reset``) runs that git subcommand, listed beside it,
and so does ``git send-pack`` (as ``git push``);
``sh -c '...'``, ``bash -lc '...'``, ``eval ...``, ``watch ...`` and ``trap
'...' EXIT`` have their text read as shell in turn; inline code
(``python3 -c``), options that run a command and git configuration on the
command line add an unknown (:func:`mcp_client.policy._programs.runs_unfollowed`);
a program name that matches a known one only when case is folded (``SUDO``,
``BASH``) adds an unknown too, since case-insensitive filesystems run it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from ..argkeys import ARG_KEYS, key_words
from ._builtins import evaluates
from ._programs import (GIT_SYNONYMS, RESERVED, SHELL_C, SHELLS, WRAPPERS, dashed_git, fold,
                        git_split, program, runs_unfollowed, shell_text, suspect_commands,
                        versionless, writes_of)
from ._runners import WATCH, read_runner
from ._shellwords import MAX_WORDS, Unreadable, has_bad_char, lex, split

__all__ = ["Command", "UNKNOWN", "MAX_COMMAND_CHARS", "MAX_WORDS", "MAX_DEPTH", "SHELLS",
           "parse_shell", "parse_argv", "effective_commands", "program"]

#: Longest command text read at all: Linux MAX_ARG_STRLEN (32 pages of 4 KiB),
#: the longest single argument a program can be given.  Longer is unknown.
MAX_COMMAND_CHARS = 131072
#: How many ``sh -c`` / ``sudo`` / ``eval`` layers are followed before giving up.
MAX_DEPTH = 4

_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\[[^]]*\])?\+?=")
#: Every name the reader expands in command position, to spot a case-folded spelling.
_FOLLOWED = frozenset(WRAPPERS) | SHELL_C | {"eval", "trap", "watch", "find"}


@dataclass(frozen=True)
class Command:
    """One simple command a call would run.

    Attributes:
        argv: the words, program first; ``None`` when it cannot be read.
        piped: its standard input is the output of a previous command.
        writes: the targets its output redirections write (``> f``), as written.
    """

    argv: tuple[str, ...] | None
    piped: bool = False
    writes: tuple[str, ...] = ()


UNKNOWN = Command(None)


def parse_shell(text: str, depth: int = 0) -> list[Command]:
    """Read shell text into the simple commands it runs (see the module docstring).

    Args:
        text: the command line.
        depth: how many layers deep this text already is.

    Returns:
        The commands, wrapped ones included; ``[UNKNOWN]`` for text that
        cannot be read, and for text that runs nothing at all.
    """
    if len(text) > MAX_COMMAND_CHARS or depth > MAX_DEPTH or has_bad_char(text):
        return [UNKNOWN]
    try:
        simple = split(lex(text))
    except Unreadable:
        return [UNKNOWN]
    found: list[Command] = []
    for argv, piped, writes in simple:
        found.extend(_expand(argv, piped, depth, writes))
    return _bounded(found) if depth == 0 else found or [UNKNOWN]


def _bounded(found: list[Command]) -> list[Command]:
    """``found``, or ``[UNKNOWN]`` when its commands hold more than :data:`MAX_WORDS`
    words in all (a wrapped command repeats its wrapper's words: ``nice nice ... rm``),
    so that what the checks read stays bounded too."""
    if not found or sum(len(command.argv or ()) for command in found) > MAX_WORDS:
        return [UNKNOWN]
    return found


def _expand(argv: list[str], piped: bool, depth: int, writes: tuple[str, ...] = (),
            assigned: bool = False) -> list[Command]:
    """One simple command, plus whatever it runs in turn."""
    start = _after_assignments(argv)
    argv, assigned = argv[start:], assigned or start > 0
    if not argv:
        return [Command(None, piped, writes)]   # assignments (or a redirection) alone
    name = program(argv)
    if name is None or name in RESERVED or fold(name) in RESERVED:
        return [Command(None, piped, writes)]
    writes = writes + tuple(writes_of(name, argv)) + tuple(_runner_writes(name, argv))
    found = [Command(tuple(argv), piped, writes)] + _inner(name, argv, piped, depth)
    if name not in _FOLLOWED:
        found.extend(_suspects(name, argv, piped, depth))
    if assigned or runs_unfollowed(name, argv) or evaluates(name, argv) or (
            versionless(name) not in _FOLLOWED and versionless(fold(name)) in _FOLLOWED):
        found.append(Command(None, piped))
    return found


def _suspects(name: str, argv: list[str], piped: bool, depth: int) -> list[Command]:
    """What an unknown program may run: ``mytool x rm -rf d`` is read as ``rm -rf d``
    too (see :func:`~mcp_client.policy._programs.suspect_commands`), within the depth
    and a budget of :data:`MAX_WORDS` words; past either, an unknown."""
    found: list[Command] = []
    budget = MAX_WORDS
    for start in suspect_commands(name, argv):
        budget -= len(argv) - start
        if budget < 0 or depth >= MAX_DEPTH:
            return found + [Command(None, piped)]
        found.extend(_expand(argv[start:], piped, depth + 1))
    return found


def _after_assignments(argv: Sequence[str], start: int = 0) -> int:
    """The index of the first word of ``argv`` from ``start`` on that is no assignment."""
    while start < len(argv) and _ASSIGNMENT.match(argv[start]):
        start += 1
    return start


def _runner_writes(name: str, argv: Sequence[str]) -> list[str]:
    """Files a runner writes by its own options or operands (``strace -o F``, ``flock F``)."""
    if name not in WRAPPERS:
        return []
    reading = read_runner(WRAPPERS[name], argv)
    return [] if reading is None else reading.writes


def _inner(name: str, argv: list[str], piped: bool, depth: int) -> list[Command]:
    """The commands ``argv`` runs in turn: wrapped, ``-c`` text, ``eval``..."""
    if depth + 1 > MAX_DEPTH and (name in _FOLLOWED or versionless(name) in _FOLLOWED):
        return [Command(None, piped)]
    sub = dashed_git(name)
    if sub is not None:
        return _expand(["git", sub, *argv[1:]], piped, depth + 1)
    if versionless(fold(name)) == "git":
        return _git_synonym(argv, piped, depth)
    if name == "eval":
        return _piped_all(parse_shell(" ".join(argv[1:]), depth + 1), piped) \
            if argv[1:] else []
    if name == "watch":
        return _watch(argv, piped, depth)
    if name == "trap":
        return _trap(argv, depth)
    if name == "find":
        return _find_exec(argv, piped, depth)
    if name in WRAPPERS:
        return _unwrap(name, argv, piped, depth)
    if versionless(name) in SHELL_C:
        text, doubtful = shell_text(argv)
        found = [] if text is None else parse_shell(text, depth + 1)
        return found + [Command(None, piped)] if doubtful else found
    return []


def _watch(argv: list[str], piped: bool, depth: int) -> list[Command]:
    """``watch [options] TEXT...`` runs its words joined as shell text (``-x``: as an argv)."""
    reading = read_runner(WATCH, argv)
    if reading is None:
        return [Command(None, piped)]
    if not reading.command:
        return []
    if set(reading.seen) & {"-x", "--exec"}:
        return _expand(reading.command, piped, depth + 1)
    return _piped_all(parse_shell(" ".join(reading.command), depth + 1), piped)


def _git_synonym(argv: list[str], piped: bool, depth: int) -> list[Command]:
    """``git send-pack ...`` also as ``git push ...`` (see ``GIT_SYNONYMS``)."""
    sub, rest, _ = git_split(argv)
    other = GIT_SYNONYMS.get(fold(sub or ""))
    if other is None:
        return []
    at = len(argv) - len(rest) - 1
    return _expand([*argv[:at], other, *rest], piped, depth + 1)


def _piped_all(commands: list[Command], piped: bool) -> list[Command]:
    """``commands`` with their ``piped`` flag set when ``piped`` is."""
    return [Command(command.argv, command.piped or piped, command.writes)
            for command in commands]


def _trap(argv: list[str], depth: int) -> list[Command]:
    """``trap 'TEXT' SIGNALS`` runs TEXT later: read it now."""
    rest = argv[1:]
    if rest and rest[0] == "--":
        rest = rest[1:]
    elif rest and rest[0].startswith("-"):
        return [] if set(rest) <= {"-p", "-l"} else [UNKNOWN]
    if not rest or rest[0] in ("", "-"):
        return []                               # printing, or resetting to the default
    return parse_shell(rest[0], depth + 1)


def _find_exec(argv: list[str], piped: bool, depth: int) -> list[Command]:
    """The commands ``find ... -exec CMD ... ;`` (or ``-execdir``, ``-ok``) runs.  Each
    command ends at its ``;`` or ``+``; an ``-exec`` inside one is that command's word."""
    found: list[Command] = []
    i = 0
    while i < len(argv):
        if argv[i] not in ("-exec", "-execdir", "-ok", "-okdir"):
            i += 1
            continue
        end = i + 1
        while end < len(argv) and argv[end] not in (";", "+"):
            end += 1
        inner = argv[i + 1:end]
        found.extend(_expand(inner, False, depth + 1) if inner else [UNKNOWN])
        name = program(inner)
        if name is None or versionless(fold(name)) in SHELLS or name in WRAPPERS:
            found.append(UNKNOWN)       # {} is a found name, spliced into its text
        i = end + 1
    return found


def _unwrap(name: str, argv: list[str], piped: bool, depth: int) -> list[Command]:
    """What a runner runs (see :mod:`mcp_client.policy._runners`): its command, the shell
    text of an option such as ``flock -c``, and an unknown beside them when its options
    change the environment or the files its command sees, or cannot be read."""
    spec = WRAPPERS[name]
    reading = read_runner(spec, argv)
    if reading is None:
        return [Command(None, piped)]
    found: list[Command] = []
    for text in reading.texts:
        found.extend(_piped_all(parse_shell(text, depth + 1), piped))
    rest, assigned = reading.command, reading.assigned
    if name == "env":
        start = _after_assignments(rest)
        rest, assigned = rest[start:], assigned or start > 0
    if rest:
        found.extend(_expand(rest, piped, depth + 1, assigned=assigned))
        if name in _FEEDERS and _spliced(rest, reading.seen):
            found.append(Command(None, piped))
    elif assigned or (spec.multiplexer and reading.runs):
        found.append(Command(None, piped))
    if spec.doubt and (rest or reading.texts):
        found.append(Command(None, piped))      # another root, or other files
    return found


#: Runners that add words read from their input to the command they run.
_FEEDERS = frozenset({"xargs", "parallel"})


def _spliced(command: list[str], options: Mapping[str, str | None]) -> bool:
    """Whether the words ``xargs``/``parallel`` read from their input can make ``command``
    run code: they go into a shell's or a wrapper's words (``xargs sh``, ``xargs -I{} sh -c
    {}``), or into its program name (``xargs -I X X``)."""
    name = program(command)
    if name is None or versionless(fold(name)) in SHELLS or name in _FOLLOWED:
        return True
    replace = next((value if value else "{}" for option, value in options.items()
                    if option in ("-I", "-i", "--replace")), None)
    return replace is not None and replace in command[0]


def _argv_list(value: Any) -> list[str] | None:
    if isinstance(value, list) and value and all(isinstance(item, str) for item in value):
        if sum(len(item) for item in value) <= MAX_COMMAND_CHARS:
            return list(value)
    return None


#: Characters a shell would read in a word: an ``args`` word holding one spells more
#: than a word to a tool that joins its argv into shell text.
_ARG_METACHARS = frozenset(" \t\n;&|<>()$`\\'\"{")


def _from_command(value: Any, extra: Any, has_extra: bool) -> list[Command]:
    """``command``/``cmd``, with an ``args`` list appended when there is one (unknown
    beside it when a word of that list holds shell syntax)."""
    found = _command_words(value, extra, has_extra)
    if has_extra and isinstance(extra, list) and any(
            isinstance(word, str) and set(word) & _ARG_METACHARS for word in extra):
        found.append(UNKNOWN)
    return found


def _command_words(value: Any, extra: Any, has_extra: bool) -> list[Command]:
    if not has_extra:
        if isinstance(value, str):
            return parse_shell(value)
        argv = _argv_list(value)
        return [UNKNOWN] if argv is None else parse_argv(argv)
    tail = [] if extra == [] else _argv_list(extra)
    if tail is None:
        return [UNKNOWN]
    if isinstance(value, str):
        if len(value) > MAX_COMMAND_CHARS or has_bad_char(value):
            return [UNKNOWN]
        try:
            simple = split(lex(value))
        except Unreadable:
            return [UNKNOWN]
        if len(simple) != 1 or simple[0][1] or simple[0][2]:
            return [UNKNOWN]            # shell syntax and an args list: no telling
        return parse_argv(simple[0][0] + tail)
    argv = _argv_list(value)
    return [UNKNOWN] if argv is None else parse_argv(argv + tail)


def parse_argv(argv: list[str]) -> list[Command]:
    """The commands an argv list runs: no shell reads it, but wrappers still run others."""
    if len(argv) > MAX_WORDS or sum(len(word) for word in argv) > MAX_COMMAND_CHARS or any(
            has_bad_char(word) for word in argv):
        return [UNKNOWN]
    return _bounded(_expand(argv, False, 0))


def effective_commands(arguments: Mapping[str, Any]) -> list[Command] | None:
    """The commands a call's arguments would run.

    Args:
        arguments: the call's parsed arguments.

    Returns:
        ``None`` when the call has no command argument at all; otherwise the
        commands (``[UNKNOWN]`` when the text cannot be read), with what the
        keys beside them say (:func:`_beside`).
    """
    found: list[Command] = []
    seen = False
    words = [arguments[key] for key in ARG_KEYS if key in arguments]
    for key in ("command", "cmd"):
        if key in arguments:
            seen = True
            found.extend(_from_command(arguments[key], words[0] if words else None, bool(words)))
            if len(words) > 1:
                found.append(UNKNOWN)           # args and arguments: which does it run?
            if "argv" in arguments:             # cmd and argv: the program and its words?
                found.extend(_from_command(arguments[key], arguments["argv"], True))
    if "argv" in arguments:
        seen = True
        argv = _argv_list(arguments["argv"])
        found.extend([UNKNOWN] if argv is None else parse_argv(argv))
    if "script" in arguments:
        seen = True
        script = arguments["script"]
        found.extend(parse_shell(script) if isinstance(script, str) else [UNKNOWN])
    if "commands" in arguments:
        seen = True
        texts = arguments["commands"]
        if not isinstance(texts, list) or not texts:
            texts = [None]
        for text in texts:
            found.extend(parse_shell(text) if isinstance(text, str) else [UNKNOWN])
    return _beside(arguments, found) if seen else None


#: Shells whose reading of a command is this module's (a ``shell`` key naming one).
_POSIX = frozenset({"sh", "bash", "dash", "ash", "ksh", "mksh", "zsh", "yash", "posh"})
_ENV_WORDS = frozenset({"env", "envs", "environ", "environment", "envvars", "envvariables",
                        "environmentvariables"})
_STDIN_WORDS = frozenset({"stdin", "input", "inputdata", "stdindata", "standardinput"})
_SHELL_WORDS = frozenset({"shell", "interpreter"})
_PRIVILEGE_WORDS = frozenset({"sudo", "asroot", "runasroot", "privileged", "elevated",
                              "become", "runas", "runasuser", "asuser", "doas"})


def _beside(arguments: Mapping[str, Any], found: list[Command]) -> list[Command]:
    """What the keys beside a command change: an environment (``env: {"PATH": ...}``) is
    an assignment before every command, unknown; a ``shell``/``interpreter`` that is not
    a POSIX shell reads the text some other way, unknown; data for its standard input
    (``stdin``, ``input``) makes every command piped, so ``bash`` fed text is a pipe into
    a shell."""
    for key, value in arguments.items():
        joined = "".join(key_words(key)) if isinstance(key, str) else ""
        if joined in _ENV_WORDS and value not in (None, {}, [], ""):
            found = found + [UNKNOWN]
        elif joined in _SHELL_WORDS and not (value in (None, True, False) or (
                isinstance(value, str) and versionless(fold(program([value]) or "")) in _POSIX)):
            found = found + [UNKNOWN]
        elif joined in _PRIVILEGE_WORDS and value not in (None, False, 0, "", [], {}):
            found = found + [UNKNOWN]           # sudo: true is sudo before every command
        elif joined in _STDIN_WORDS and value not in (None, ""):
            found = _piped_all(found, True)
    return found
