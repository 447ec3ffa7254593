"""How GNU sed reads its arguments and scripts, for the shell reader.

:func:`scripts` reads a sed argv as GNU sed 4.9 does (clusters, ``-l N``, long
options by any unique prefix, options after the files; an option it does not
know makes the scripts unreadable); :func:`runs` says whether a script runs a
command or writes a file (``e``, ``s///e``, ``w``/``W``).  Scripts are scanned
in one linear pass: no regular expression here can backtrack.
"""

from __future__ import annotations

import re
from typing import Sequence

from ._getopt import abbreviates

__all__ = ["scripts", "runs"]


def _code(script: str) -> str:
    """A sed script without the text of its ``s///``, ``y///`` and ``/re/`` parts: the
    letters left are commands and flags.  One pass, linear in the script: a part that is
    not closed (a newline or the end comes first) keeps the rest of the script, which can
    only add caution.  In a regular expression (the first part of ``s``, an address) a
    bracket expression is read as GNU sed reads it: the delimiter inside one is a literal
    (``s/[/]/x/e`` has an ``e`` flag)."""
    kept: list[str] = []
    i, size = 0, len(script)
    while i < size:
        char = script[i]
        parts = 2 if char in "sy" else 1 if char == "/" else 0
        start = i + 1 if char == "/" else i + 2
        delimiter = "/" if char == "/" else script[i + 1:i + 2]
        if not parts or delimiter in ("", "\\", "\n"):
            kept.append(char)
            i += 1
            continue
        end = _part(script, start, delimiter, brackets=char != "y")
        if end >= 0 and parts == 2:
            end = _part(script, end, delimiter, brackets=False)
        if end < 0:
            kept.append(script[i:])
            break
        i = end
    return "".join(kept)


_SPECIAL = re.compile(r"[\\\n]")
_SPECIAL_OR_BRACKET = re.compile(r"[\\\n\[]")


def _part(script: str, i: int, delimiter: str, *, brackets: bool) -> int:
    """The index after one part closed by ``delimiter`` from ``i`` (a backslash escapes the
    next character; with ``brackets``, a bracket expression holds any delimiter); -1 when
    a newline or the end comes first."""
    size = len(script)
    specials = _SPECIAL_OR_BRACKET if brackets else _SPECIAL
    close = script.find(delimiter, i)
    while True:
        if close < 0:
            return -1
        if close < i:
            close = script.find(delimiter, i)
            continue
        special = specials.search(script, i, close)
        if special is None:
            return close + 1
        at = special.start()
        if script[at] == "[":
            i = _bracket_end(script, at)
            if i < 0:
                return -1
        elif script[at] == "\n" or at + 1 >= size or script[at + 1] == "\n":
            return -1
        else:
            i = at + 2


def _bracket_end(script: str, i: int) -> int:
    """The index after the bracket expression opened at ``i`` (``]`` first, or after
    ``^``, is a member; ``[:class:]``, ``[.x.]``, ``[=x=]`` are read whole); -1 when it is
    not closed on its line."""
    size = len(script)
    j = i + 1
    if j < size and script[j] == "^":
        j += 1
    if j < size and script[j] == "]":
        j += 1
    while j < size:
        char = script[j]
        if char == "]":
            return j + 1
        if char == "\n":
            return -1
        if char == "[" and j + 1 < size and script[j + 1] in ":.=":
            close = script.find(script[j + 1] + "]", j + 2)
            if close < 0:
                return -1
            j = close + 2
            continue
        j += 1
    return -1


#: GNU sed 4.9's options: short ones without a value, long ones without and with one.
_FLAGS = frozenset("nrEsuzb")
_LONG_FLAGS = ("--quiet", "--silent", "--debug", "--posix", "--sandbox",
               "--follow-symlinks", "--null-data", "--zero-terminated", "--separate",
               "--unbuffered", "--regexp-extended", "--binary", "--in-place", "--help",
               "--version")
_LONG_VALUED = ("--expression", "--file", "--line-length")


def scripts(argv: Sequence[str]) -> tuple[list[str], list[str], bool]:
    """``(scripts, files, unreadable)`` of a sed argv, read as GNU sed reads it: ``-e``
    anywhere in a cluster takes the rest of it or the next word (``-ne SCRIPT``,
    ``-nes/a/b/e``), ``-l N`` takes a value, options may follow the files.  ``-f FILE``
    and an option sed 4.9 does not have are unreadable."""
    scripts: list[str] = []
    files: list[str] = []
    unreadable, ended = False, False
    words = list(argv[1:])
    i = 0
    while i < len(words):
        word = words[i]
        if ended or not word.startswith("-") or word == "-":
            files.append(word)
        elif word == "--":
            ended = True
        elif word.startswith("--"):
            i, unread = _long(words, i, scripts)
            unreadable = unreadable or unread
        else:
            i, unread = _short(words, i, scripts)
            unreadable = unreadable or unread
        i += 1
    if not scripts and files:
        scripts.append(files.pop(0))
    return scripts, files, unreadable


def _long(words: list[str], i: int, scripts: list[str]) -> tuple[int, bool]:
    """One long option at ``words[i]``: the index of its last word, and whether it makes
    the script unreadable."""
    head, eq, value = words[i].partition("=")
    names = [name for name in _LONG_VALUED + _LONG_FLAGS if abbreviates(head, [name])]
    if len(names) != 1 or (eq and names[0] in _LONG_FLAGS and names[0] != "--in-place"):
        return i, True                          # unknown, ambiguous, or a value it takes not
    if names[0] not in _LONG_VALUED:
        return i, False
    if not eq:
        if i + 1 >= len(words):
            return i, True
        i, value = i + 1, words[i + 1]
    if names[0] == "--expression":
        scripts.append(value)
    return i, names[0] == "--file"


def _short(words: list[str], i: int, scripts: list[str]) -> tuple[int, bool]:
    """One cluster of short options at ``words[i]`` (see :func:`_long`)."""
    word = words[i]
    for j in range(1, len(word)):
        letter, rest = word[j], word[j + 1:]
        if letter in "efl":
            if not rest:
                if i + 1 >= len(words):
                    return i, True
                i, rest = i + 1, words[i + 1]
            if letter == "e":
                scripts.append(rest)
            return i, letter == "f"
        if letter == "i":
            return i, False                     # the rest is its backup suffix
        if letter not in _FLAGS:
            return i, True
    return i, False


def runs(argv: Sequence[str]) -> bool:
    """GNU sed runs a command with ``e`` (a command or an ``s///e`` flag) and writes a file
    with ``w``/``W``: any of those letters left once the text of ``s///``, ``y///`` and
    ``/re/`` is taken out, or a script read from a file, is unfollowed; ``--sandbox``
    refuses them."""
    if "--sandbox" in argv:
        return False
    texts, _, unreadable = scripts(argv)
    return unreadable or any(set(_code(text)) & set("ewW") for text in texts)
