"""The effective command of a tool call, read the way a POSIX shell would read it.

A tool that runs commands (``sh_run {"command": "git push --force"}``) is
judged on the programs it would start.  This module turns a call's arguments
into a list of :class:`Command` -- one per simple command the text contains --
and answers the command-shaped questions the policy asks about them
(:func:`recursive_delete`, :func:`force_push`, :func:`hard_reset`,
:func:`pipes_to_shell`).  It is pure: no process is started, no file read.

Where the text comes from (:func:`effective_commands`): ``command`` or ``cmd``
(a string is shell text; a list of strings is an argv, run by no shell),
``argv`` (a list), ``script`` (shell text), ``commands`` (a list of shell
texts), and an ``args`` list appended to the argv of a single plain
``command`` (taken as the program's arguments, not re-read as shell text).
Every one present counts.  A call with none of those keys has no command.

Shell text is split into words the way :func:`shlex.split` splits them in
POSIX mode (quotes and backslashes removed), and -- unlike ``shlex`` -- the
*unquoted* operators ``; & && || | |& ( )`` and newlines end a simple command,
while redirections (``> file``, ``2>&1``) are dropped with their targets (a
shell command's own file effects are judged by command rules and checks, never
as locations: only path arguments are locations).  A
quoted ``";"`` is an ordinary word, so ``git push ";" --force`` is one command.
``#`` is an ordinary character: a comment only hides words from the shell,
so reading them anyway can only add caution, never remove it.

Everything the reader cannot follow makes that part of the command *unknown*
(``Command.argv is None``), which every check treats as "could be anything":
``$`` expansions and backticks outside single quotes, process substitution,
here-documents and here-strings, brace expansion (``{a,b}``), unterminated
quotes, control or invisible format characters, glob characters or a
backslash in a program name, a reserved word in command position (``if``,
``{``, ``!``, ``for`` ...), ``alias``, a wrapper (``sudo``, ``env``, ``xargs``,
``timeout`` ...) given options this module does not parse, more than
:data:`MAX_COMMAND_CHARS` of text, and nesting deeper than :data:`MAX_DEPTH`.

What it can follow, it does: ``FOO=1 git push`` runs ``git``; ``sudo rm -rf
x`` and ``xargs rm -r`` run ``rm`` (the wrapper *and* the wrapped command are
both in the list, so a rule about either sees it); ``sh -c '...'``, ``bash
-lc '...'`` and ``eval ...`` have their text read as shell in turn.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Sequence

from ..paths import Tri, tri_any

__all__ = ["Command", "MAX_COMMAND_CHARS", "MAX_DEPTH", "SHELLS", "parse_shell", "parse_argv",
           "effective_commands", "program", "recursive_delete", "force_push", "hard_reset",
           "pipes_to_shell"]

#: Longest command text read at all: Linux MAX_ARG_STRLEN (32 pages of 4 KiB),
#: the longest single argument a program can be given.  Longer is unknown.
MAX_COMMAND_CHARS = 131072
#: How many ``sh -c`` / ``sudo`` / ``eval`` layers are followed before giving up.
MAX_DEPTH = 4

#: Programs that run code read from their standard input or a ``-c`` string
#: (names compared after a trailing version number is dropped: ``python3.12``).
SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "csh", "tcsh", "fish", "ash",
                    "busybox", "python", "perl", "ruby", "node", "nodejs", "php", "pwsh",
                    "powershell", "lua", "tclsh", "osascript"})
_SHELL_C = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "fish", "csh", "tcsh"})

#: Wrappers that run the rest of their argv as a command, with how many
#: positional operands they take first (``timeout 5 cmd``, ``chroot /new cmd``).
_WRAPPERS = {"sudo": 0, "doas": 0, "nohup": 0, "time": 0, "command": 0, "exec": 0,
             "builtin": 0, "xargs": 0, "setsid": 0, "stdbuf": 0, "nice": 0, "ionice": 0,
             "env": 0, "watch": 0, "strace": 0, "ltrace": 0, "unbuffer": 0, "fakeroot": 0,
             "torsocks": 0, "proxychains": 0, "proxychains4": 0, "firejail": 0, "pkexec": 0,
             "runuser": 0, "caffeinate": 0, "timeout": 1, "chroot": 1, "flock": 1,
             "taskset": 1, "chrt": 1}
#: Words that make the command position mean something else entirely.
_RESERVED = frozenset({"if", "then", "else", "elif", "fi", "do", "done", "while", "until",
                       "for", "case", "esac", "select", "function", "coproc", "{", "}", "!",
                       "[[", "]]", "alias", "su"})

_OPERATORS = (";;&", "&>>", "<<<", "<<-", ";;", ";&", "&&", "||", "|&", "&>", ">>", ">&", "<&",
              ">|", "<>", "<<", "<(", ">(", ";", "&", "|", "(", ")", "<", ">", "\n")
_OPERATOR_CHARS = frozenset(";&|()<>\n")
_SEPARATORS = frozenset({";", "&", "&&", "||", "\n", "(", ")", ";;", ";&", ";;&"})
_PIPES = frozenset({"|", "|&"})
_REDIRECTS = frozenset({"<", ">", ">>", ">&", "<&", ">|", "<>", "&>", "&>>"})
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_BRACES = re.compile(r"\{[^{}]*(,|\.\.)[^{}]*\}")
_VERSION = re.compile(r"[0-9.]+$")


@dataclass(frozen=True)
class Command:
    """One simple command a call would run.

    Attributes:
        argv: the words, program first; ``None`` when it cannot be read.
        piped: its standard input is the output of a previous command.
    """

    argv: tuple[str, ...] | None
    piped: bool = False


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
    for argv, piped in simple:
        found.extend(_expand(argv, piped, depth))
    return found or [UNKNOWN]


def _split(tokens: Sequence[_Word | str]) -> list[tuple[list[str], bool]]:
    """Group tokens into simple commands ``(argv, piped)``, dropping redirections."""
    simple: list[tuple[list[str], bool]] = []
    argv: list[str] = []
    piped = False
    for i, token in enumerate(tokens):
        if isinstance(token, _Word):
            if i and _is_op(tokens[i - 1], _REDIRECTS):
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
            if argv:
                simple.append((argv, piped))
            elif token in _PIPES or piped:
                raise _Unreadable
            argv, piped = [], token in _PIPES
        else:
            raise _Unreadable       # here-documents, here-strings, process substitution
    if argv:
        simple.append((argv, piped))
    elif piped:
        raise _Unreadable
    return simple


def _is_op(token: _Word | str, group: frozenset[str]) -> bool:
    return isinstance(token, str) and token in group


def _expand(argv: list[str], piped: bool, depth: int) -> list[Command]:
    """One simple command, plus whatever it runs in turn."""
    while argv and _ASSIGNMENT.match(argv[0]):
        argv = argv[1:]
    if not argv:
        return []
    name = program(argv)
    if name is None or name in _RESERVED:
        return [Command(None, piped)]
    here = Command(tuple(argv), piped)
    if name == "eval":
        inner = parse_shell(" ".join(argv[1:]), depth + 1)
        return [here] + [_with_piped(command, piped) for command in inner]
    if name in _WRAPPERS:
        return [here] + _unwrap(name, argv, piped, depth)
    if _versionless(name) in _SHELL_C:
        return [here] + _shell_c(argv, depth)
    return [here]


def _with_piped(command: Command, piped: bool) -> Command:
    """``command`` with its ``piped`` flag set when ``piped`` is."""
    return Command(command.argv, command.piped or piped)


def _unwrap(name: str, argv: list[str], piped: bool, depth: int) -> list[Command]:
    rest = argv[1:]
    if name == "env":
        while rest and _ASSIGNMENT.match(rest[0]):
            rest = rest[1:]
    if rest and rest[0] == "--":
        rest = rest[1:]
    elif rest and rest[0].startswith("-"):
        return [Command(None, piped)]         # options this reader does not parse
    rest = rest[_WRAPPERS[name]:]
    if not rest:
        return []
    if depth + 1 > MAX_DEPTH:
        return [Command(None, piped)]
    return _expand(rest, piped, depth + 1)


def _shell_c(argv: list[str], depth: int) -> list[Command]:
    """The commands of ``sh -c TEXT`` (options first; ``-o``/``-O`` take a value)."""
    has_c = False
    i = 1
    while i < len(argv):
        word = argv[i]
        if word == "--" or not word.startswith(("-", "+")) or word in ("-", "+"):
            break
        if word in ("-o", "+o", "-O", "+O"):
            i += 2
            continue
        if not word.startswith("--") and "c" in word[1:]:
            has_c = True
        i += 1
    if not has_c:
        return []
    if i < len(argv) and argv[i] == "--":
        i += 1
    if i >= len(argv):
        return [UNKNOWN]
    return parse_shell(argv[i], depth + 1)


def program(argv: Sequence[str] | None) -> str | None:
    """The basename of the program ``argv`` runs, or ``None`` when it cannot be named.

    A program name with a backslash, a glob character (quoted or not), a
    trailing ``/`` or a Windows executable suffix (``.exe``, ``.cmd``,
    ``.bat``, ``.com``) is unknown.
    """
    if not argv:
        return None
    head = argv[0]
    if not head or "\\" in head or any(char in head for char in "*?[") or head.endswith("/"):
        return None
    name = head.rsplit("/", 1)[-1]
    if name.lower().endswith((".exe", ".cmd", ".bat", ".com")):
        return None
    return name


def _versionless(name: str) -> str:
    return _VERSION.sub("", name) or name


def _argv_list(value: Any) -> list[str] | None:
    if isinstance(value, list) and value and all(isinstance(item, str) for item in value):
        if sum(len(item) for item in value) <= MAX_COMMAND_CHARS:
            return list(value)
    return None


def _from_command(value: Any, extra: Any, has_extra: bool) -> list[Command]:
    """``command``/``cmd``, with an ``args`` list appended when there is one."""
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
        if len(simple) != 1 or simple[0][1]:
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
        commands (``[UNKNOWN]`` when the text cannot be read).
    """
    found: list[Command] = []
    seen = False
    has_args = "args" in arguments
    for key in ("command", "cmd"):
        if key in arguments:
            seen = True
            found.extend(_from_command(arguments[key], arguments.get("args"), has_args))
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
    return found if seen else None


# -- the semantic checks --------------------------------------------------------------------

#: A per-command test: the program's basename and the argv, to YES/NO/UNKNOWN.
_Test = Callable[[str, Sequence[str]], Tri]


def _over(commands: Iterable[Command], test: _Test) -> Tri:
    """Kleene OR of ``test`` over ``commands``; an unreadable command is UNKNOWN."""
    def one(command: Command) -> Tri:
        name = program(command.argv)
        if command.argv is None or name is None:
            return Tri.UNKNOWN
        return test(name, command.argv)
    return tri_any(one(command) for command in commands)


def _yes(flag: bool) -> Tri:
    return Tri.YES if flag else Tri.NO


def _options(argv: Sequence[str]) -> list[str]:
    """The option words of ``argv`` after the program (those before a ``--``)."""
    found = []
    for word in argv[1:]:
        if word == "--":
            break
        if word.startswith("-") and word != "-":
            found.append(word)
    return found


def _short_flag(options: Iterable[str], letters: str) -> bool:
    """A short option (``-f``) or cluster (``-rf``) holds one of ``letters``."""
    return any(not opt.startswith("--") and any(ch in opt[1:] for ch in letters)
               for opt in options)


_DELETERS = frozenset({"rm", "rmdir", "unlink", "shred", "srm"})


def _deletes_recursively(name: str, argv: Sequence[str]) -> Tri:
    options = _options(argv)
    lowered = [word.lower() for word in argv[1:]]
    if name == "rm":
        return _yes("--recursive" in options or _short_flag(options, "rR"))
    if name == "find":
        return _find_deletes(argv)
    if name == "rsync":
        return _yes(any(opt.startswith(("--delete", "--remove-source")) for opt in options))
    if name.lower() in ("rd", "rmdir", "del", "erase"):
        return _yes("/s" in lowered)
    if name.lower() in ("remove-item", "ri"):
        return _yes(any(word == "-r" or word.startswith("-rec") for word in lowered))
    if name == "git":
        sub, rest = _git(argv)
        if sub == "?":
            return Tri.UNKNOWN
        dry = "--dry-run" in rest or _short_flag(_options(["git"] + rest), "n")
        return _yes(sub == "clean" and not dry)
    return Tri.NO


def _find_deletes(argv: Sequence[str]) -> Tri:
    if "-delete" in argv:
        return Tri.YES
    found = Tri.NO
    for i, word in enumerate(argv[:-1]):
        if word in ("-exec", "-execdir", "-ok", "-okdir"):
            runs = program([argv[i + 1]])
            if runs is None or _versionless(runs) in SHELLS or runs in _WRAPPERS:
                found = found | Tri.UNKNOWN
            elif runs in _DELETERS:
                return Tri.YES
    return found


def _tool_words(tool: str) -> set[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", tool)
    return {word.lower() for word in re.split(r"[^A-Za-z0-9]+", spaced) if word}


#: Words in a tool's name that make it a deleting tool (``fs_delete``, ``removeDir``).
_DELETE_WORDS = frozenset({"delete", "remove", "rm", "rmdir", "rmtree", "unlink", "purge",
                           "erase", "destroy", "wipe", "del"})
_FALSY = (None, False, 0, "", "false", "False", "no", "0")


def recursive_delete(tool: str, arguments: Mapping[str, Any],
                     commands: list[Command] | None) -> Tri:
    """A recursive delete: ``rm -r``/``-R``/``--recursive`` (in any cluster),
    ``find -delete`` or ``-exec rm``, ``git clean`` (not a dry run), ``rsync
    --delete*``, ``rd /s``, ``Remove-Item -Recurse``, or a deleting tool (its
    name has a word like delete/remove/rm) called with a true ``recursive``.

    Returns:
        ``NO`` for a call with no command and no such tool; ``UNKNOWN`` when a
        command cannot be read.
    """
    if _tool_words(tool) & _DELETE_WORDS and "recursive" in arguments:
        flag = arguments["recursive"]
        if isinstance(flag, list) or isinstance(flag, dict) or flag not in _FALSY:
            return Tri.YES
    return Tri.NO if commands is None else _over(commands, _deletes_recursively)


_GIT_VALUED = ("-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env",
               "--super-prefix", "--exec-path", "--list-cmds", "--attr-source")


def _git(argv: Sequence[str]) -> tuple[str | None, list[str]]:
    """``(subcommand, its arguments)`` of a git argv, git's own options skipped.

    The subcommand is ``"?"`` when the argv defines an alias (``-c alias.x=...``),
    which could make any subcommand mean anything.
    """
    i = 1
    while i < len(argv):
        word = argv[i]
        value = argv[i + 1] if i + 1 < len(argv) else ""
        if "alias." in word.lower() or (word in ("-c", "--config-env")
                                        and "alias." in value.lower()):
            return "?", []
        if word in _GIT_VALUED:
            i += 2
        elif word.startswith("-"):
            i += 1
        else:
            return word, list(argv[i + 1:])
    return None, []


def _pushes_by_force(name: str, argv: Sequence[str]) -> Tri:
    if name != "git":
        return Tri.NO
    sub, rest = _git(argv)
    if sub == "?":
        return Tri.UNKNOWN
    if sub != "push":
        return Tri.NO
    options = _options(["git"] + rest)
    if any(opt in ("--force", "--force-if-includes", "--mirror")
           or opt.startswith("--force-with-lease") for opt in options):
        return Tri.YES
    refspecs = [word for word in rest if not word.startswith("-")]
    return _yes(_short_flag(options, "f") or any(word.startswith("+") for word in refspecs))


def force_push(commands: list[Command] | None) -> Tri:
    """A force push: ``git push`` with ``--force``, ``-f`` (alone or in a cluster),
    ``--force-with-lease``, ``--force-if-includes``, ``--mirror`` or a ``+refspec``
    (git's global options such as ``-C dir`` skipped; an alias defined on the
    command line with ``-c alias.*`` is unknown)."""
    return Tri.NO if commands is None else _over(commands, _pushes_by_force)


def _resets_hard(name: str, argv: Sequence[str]) -> Tri:
    if name != "git":
        return Tri.NO
    sub, rest = _git(argv)
    if sub == "?":
        return Tri.UNKNOWN
    return _yes(sub == "reset" and "--hard" in _options(["git"] + rest))


def hard_reset(commands: list[Command] | None) -> Tri:
    """``git reset --hard`` (an alias defined with ``-c alias.*`` is unknown)."""
    return Tri.NO if commands is None else _over(commands, _resets_hard)


def _is_shell(name: str, argv: Sequence[str]) -> Tri:
    return _yes(_versionless(name) in SHELLS or name in (".", "source", "eval"))


def pipes_to_shell(commands: list[Command] | None) -> Tri:
    """Something piped into a shell or interpreter: a command whose standard
    input is a pipe runs one of :data:`SHELLS` (``curl -s URL | sh``, ``wget
    -O- URL | sudo bash``, ``cat x | python3``).  Any unreadable command in the
    call is unknown: it may hide a pipe."""
    if commands is None:
        return Tri.NO
    found = _over([command for command in commands if command.piped], _is_shell)
    unread = any(program(command.argv) is None for command in commands)
    return found | (Tri.UNKNOWN if unread else Tri.NO)
