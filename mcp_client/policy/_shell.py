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
``hash``, ``export``, ``source`` ...), ``alias``, a statement that only
assigns variables, a redirection with no command, a wrapper (``sudo``,
``env``, ``xargs``, ``timeout`` ...) given options this module does not
parse, more than :data:`MAX_COMMAND_CHARS` of text, and nesting deeper than
:data:`MAX_DEPTH`.

What it can follow, it does, and what a command does beyond that is added
beside it as an unknown command: ``FOO=1 git push`` runs ``git`` *and* an
unknown (an assignment may change what any program does: ``PATH``,
``LD_PRELOAD``, ``GIT_CONFIG_*``); ``sudo rm -rf x``, ``busybox rm -rf x``,
``xargs rm -r``, ``parallel rm -r ::: x`` and ``find . -exec rm {} +`` run
``rm`` (the wrapper *and* the wrapped command are both in the list, so a rule
about either sees it); a dashed git program (``git-push``,
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
import unicodedata
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from ..argkeys import ARG_KEYS, key_words
from ._programs import (GIT_SYNONYMS, MULTIPLEXERS, RESERVED, SHELL_C, SHELLS, WRAPPERS,
                        dashed_git, fold, git_split, program, runs_unfollowed, shell_text,
                        versionless, writes_of)

__all__ = ["Command", "UNKNOWN", "MAX_COMMAND_CHARS", "MAX_DEPTH", "SHELLS", "parse_shell",
           "parse_argv", "effective_commands", "program"]

#: Longest command text read at all: Linux MAX_ARG_STRLEN (32 pages of 4 KiB),
#: the longest single argument a program can be given.  Longer is unknown.
MAX_COMMAND_CHARS = 131072
#: How many ``sh -c`` / ``sudo`` / ``eval`` layers are followed before giving up.
MAX_DEPTH = 4

_OPERATORS = (";;&", "&>>", "<<<", "<<-", ";;", ";&", "&&", "||", "|&", "&>", ">>", ">&", "<&",
              ">|", "<>", "<<", "<(", ">(", ";", "&", "|", "(", ")", "<", ">", "\n")
_OPERATOR_CHARS = frozenset(";&|()<>\n")
_SEPARATORS = frozenset({";", "&", "&&", "||", "\n", "(", ")", ";;", ";&", ";;&"})
_PIPES = frozenset({"|", "|&"})
_REDIRECTS = frozenset({"<", ">", ">>", ">&", "<&", ">|", "<>", "&>", "&>>"})
_READS = frozenset({"<", "<&"})
#: Targets that are no file at all: writing to them changes nothing.
_NOWHERE = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/fd/1", "/dev/fd/2"})
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\[[^]]*\])?\+?=")
_BRACES = re.compile(r"\{[^{}]*(,|\.\.)[^{}]*\}")
_FD = re.compile(r"^([0-9]+-?|-)$")
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


class _Unreadable(Exception):
    """The text uses shell syntax this reader does not follow."""


@dataclass
class _Word:
    text: str = ""
    bare: str = ""          # the unquoted characters only, for the brace check
    touches_operator: bool = False


def _bad_char(char: str) -> bool:
    category = unicodedata.category(char)
    return (category == "Cc" and char not in "\t\n") or category in ("Cf", "Cs")


def _lex(text: str) -> list[_Word | str]:
    """Split shell text into words and operator strings; raise when unreadable."""
    tokens: list[_Word | str] = []
    word: _Word | None = None
    i, size = 0, len(text)
    while i < size:
        char = text[i]
        if char in " \t":
            word, i = None, i + 1
            continue
        if char in _OPERATOR_CHARS:
            op = next(op for op in _OPERATORS if text.startswith(op, i))
            if word is not None:
                word.touches_operator = True
            tokens.append(op)
            word, i = None, i + len(op)
            continue
        if word is None:
            word = _Word()
            tokens.append(word)
        i = _lex_word_char(text, i, word)
    return tokens


def _lex_word_char(text: str, i: int, word: _Word) -> int:
    char = text[i]
    if char in "$`":
        raise _Unreadable
    if char == "\\":
        if i + 1 >= len(text):
            raise _Unreadable
        if text[i + 1] != "\n":
            word.text += text[i + 1]
        return i + 2
    if char == "'":
        close = text.find("'", i + 1)
        if close < 0:
            raise _Unreadable
        word.text += text[i + 1:close]
        return close + 1
    if char == '"':
        return _lex_double(text, i + 1, word)
    word.text += char
    word.bare += char
    return i + 1


def _lex_double(text: str, i: int, word: _Word) -> int:
    while i < len(text):
        char = text[i]
        if char == '"':
            return i + 1
        if char in "$`":
            raise _Unreadable
        if char == "\\" and i + 1 < len(text) and text[i + 1] in '$`"\\\n':
            if text[i + 1] != "\n":
                word.text += text[i + 1]
            i += 2
            continue
        word.text += char
        i += 1
    raise _Unreadable


def parse_shell(text: str, depth: int = 0) -> list[Command]:
    """Read shell text into the simple commands it runs (see the module docstring).

    Args:
        text: the command line.
        depth: how many layers deep this text already is.

    Returns:
        The commands, wrapped ones included; ``[UNKNOWN]`` for text that
        cannot be read, and for text that runs nothing at all.
    """
    if len(text) > MAX_COMMAND_CHARS or depth > MAX_DEPTH or any(map(_bad_char, text)):
        return [UNKNOWN]
    try:
        simple = _split(_lex(text))
    except _Unreadable:
        return [UNKNOWN]
    found: list[Command] = []
    for argv, piped, writes in simple:
        found.extend(_expand(argv, piped, depth, writes))
    return found or [UNKNOWN]


_Simple = tuple[list[str], bool, tuple[str, ...]]


def _split(tokens: Sequence[_Word | str]) -> list[_Simple]:
    """Group tokens into simple commands ``(argv, piped, writes)``."""
    simple: list[_Simple] = []
    argv: list[str] = []
    writes: list[str] = []
    piped = False
    for i, token in enumerate(tokens):
        if isinstance(token, _Word):
            if i and isinstance(tokens[i - 1], str) and tokens[i - 1] in _REDIRECTS:
                _redirect(str(tokens[i - 1]), token, writes)
                continue                        # a redirection's target
            if _BRACES.search(token.bare):
                raise _Unreadable
            if not (token.touches_operator and token.text.isdigit() and token.bare == token.text
                    and i + 1 < len(tokens) and _is_op(tokens[i + 1], _REDIRECTS)):
                argv.append(token.text)         # (not the io number of 2>&1)
        elif token in _REDIRECTS:
            if i + 1 >= len(tokens) or not isinstance(tokens[i + 1], _Word):
                raise _Unreadable
        elif token in _SEPARATORS or token in _PIPES:
            if argv or writes:
                simple.append((argv, piped, tuple(writes)))
            elif token in _PIPES or piped:
                raise _Unreadable
            argv, writes, piped = [], [], token in _PIPES
        else:
            raise _Unreadable       # here-documents, here-strings, process substitution
    if argv or writes:
        simple.append((argv, piped, tuple(writes)))
    elif piped:
        raise _Unreadable
    return simple


def _redirect(operator: str, target: _Word, writes: list[str]) -> None:
    """Record the file an output redirection writes (none for a descriptor or /dev/null)."""
    if _BRACES.search(target.bare) or not target.text:
        raise _Unreadable
    if operator in _READS or (operator == ">&" and _FD.match(target.text)):
        return
    if operator == ">&" and target.text.isdigit():
        return
    if target.text not in _NOWHERE:
        writes.append(target.text)


def _is_op(token: _Word | str, group: frozenset[str]) -> bool:
    return isinstance(token, str) and token in group


def _expand(argv: list[str], piped: bool, depth: int, writes: tuple[str, ...] = (),
            assigned: bool = False) -> list[Command]:
    """One simple command, plus whatever it runs in turn."""
    while argv and _ASSIGNMENT.match(argv[0]):
        argv, assigned = argv[1:], True
    if not argv:
        return [Command(None, piped, writes)]   # assignments (or a redirection) alone
    name = program(argv)
    if name is None or name in RESERVED or fold(name) in RESERVED:
        return [Command(None, piped, writes)]
    writes = writes + tuple(writes_of(name, argv))
    found = [Command(tuple(argv), piped, writes)] + _inner(name, argv, piped, depth)
    if assigned or runs_unfollowed(name, argv) or (versionless(name) not in _FOLLOWED
                                                   and versionless(fold(name)) in _FOLLOWED):
        found.append(Command(None, piped))
    return found


def _inner(name: str, argv: list[str], piped: bool, depth: int) -> list[Command]:
    """The commands ``argv`` runs in turn: wrapped, ``-c`` text, ``eval``..."""
    if depth + 1 > MAX_DEPTH and (name in _FOLLOWED or versionless(name) in _FOLLOWED):
        return [Command(None, piped)]
    sub = dashed_git(name)
    if sub is not None:
        return _expand(["git", sub, *argv[1:]], piped, depth + 1)
    if versionless(fold(name)) == "git":
        return _git_synonym(argv, piped, depth)
    if name in ("eval", "watch"):
        rest = argv[1:]
        if name == "watch" and rest and rest[0].startswith("-"):
            return [Command(None, piped)]
        return _piped_all(parse_shell(" ".join(rest), depth + 1), piped) if rest else []
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
    """The commands ``find ... -exec CMD ... ;`` (or ``-execdir``, ``-ok``) runs."""
    found: list[Command] = []
    for i, word in enumerate(argv):
        if word in ("-exec", "-execdir", "-ok", "-okdir"):
            inner: list[str] = []
            for item in argv[i + 1:]:
                if item in (";", "+"):
                    break
                inner.append(item)
            found.extend(_expand(inner, False, depth + 1) if inner else [UNKNOWN])
            name = program(inner)
            if name is None or versionless(fold(name)) in SHELLS or name in WRAPPERS:
                found.append(UNKNOWN)       # {} is a found name, spliced into its text
    return found


def _unwrap(name: str, argv: list[str], piped: bool, depth: int) -> list[Command]:
    rest = argv[1:]
    assigned = False
    while name == "env" and rest and _ASSIGNMENT.match(rest[0]):
        rest, assigned = rest[1:], True
    if rest and rest[0] == "--":
        rest = rest[1:]
    elif rest and rest[0].startswith("-"):
        return [Command(None, piped)]         # options this reader does not parse
    rest = rest[WRAPPERS[name]:]
    if rest and rest[0].startswith("-"):
        return [Command(None, piped)]         # an option after the operands (flock x -c)
    if not rest:
        return [] if name not in MULTIPLEXERS else [Command(None, piped)]
    return _expand(rest, piped, depth + 1, assigned=assigned)


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
        if len(value) > MAX_COMMAND_CHARS or any(map(_bad_char, value)):
            return [UNKNOWN]
        try:
            simple = _split(_lex(value))
        except _Unreadable:
            return [UNKNOWN]
        if len(simple) != 1 or simple[0][1] or simple[0][2]:
            return [UNKNOWN]            # shell syntax and an args list: no telling
        return parse_argv(simple[0][0] + tail)
    argv = _argv_list(value)
    return [UNKNOWN] if argv is None else parse_argv(argv + tail)


def parse_argv(argv: list[str]) -> list[Command]:
    """The commands an argv list runs: no shell reads it, but wrappers still run others."""
    if sum(len(word) for word in argv) > MAX_COMMAND_CHARS or any(
            _bad_char(char) for word in argv for char in word):
        return [UNKNOWN]
    return _expand(argv, False, 0) or [UNKNOWN]


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
