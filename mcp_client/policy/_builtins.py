"""Bash builtins whose words are more than words: names bash evaluates, variables it sets.

``printf -v 'a[$(rm -rf d)]' %s x`` prints nothing and runs ``rm``: bash evaluates an
array subscript in a variable name as arithmetic, and arithmetic expands ``$(...)``
even when the word was single-quoted on the command line.  ``test -v NAME``, ``[ -v
NAME ]``, ``read NAME``, ``printf -v NAME`` and ``wait -p NAME`` all take such a name.
This module answers, for one argv, whether a builtin does something this reader cannot
follow (:func:`evaluates`); the reader then adds an unknown command beside it.  The
builtins that do so whatever their words (``let``, ``declare``, ``mapfile -C``,
``unset``, ``jobs -x`` ...) are in :data:`~mcp_client.policy._programs.RESERVED`.

Closed-world: a name word is followed only when it is a plain identifier; a builtin that
sets a variable (``read``, ``printf -v``, ``wait -p``) is an assignment, unknown as
``FOO=1 cmd`` is; ``set`` is followed only with options known to change nothing a later
command runs (``set -euo pipefail``, ``set -x``).  Pure.
"""

from __future__ import annotations

import re
from typing import Sequence

__all__ = ["evaluates"]

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
#: Builtins whose words name variables or numbers: a word with a subscript and an
#: expansion in it (``kill -s 'a[$(cmd)]'``) is code to some bash version.
_TAKES_NAMES = frozenset({"printf", "test", "[", "read", "wait", "kill", "ulimit", "caller",
                          "shift", "exit", "return", "break", "continue", "umask", "fg", "bg",
                          "disown", "times", "type", "cd", "pushd", "popd", "dirs", "trap",
                          "suspend", "logout", "help", "command", "builtin", "exec", "eval"})
#: ``set`` options that change nothing a later command runs: exit on error, unset
#: variables, tracing, ``pipefail``, no globbing, no clobbering.
_SET_LETTERS = frozenset("euxvfCE")
_SET_NAMES = frozenset({"errexit", "nounset", "xtrace", "verbose", "pipefail", "noglob",
                        "noclobber", "errtrace"})
#: ``test`` operators whose operand is a variable name (``-v``), or a nameref's (``-R``).
_NAME_TESTS = frozenset({"-v", "-R"})


def evaluates(name: str, argv: Sequence[str]) -> bool:
    """Whether the builtin ``name`` evaluates, assigns or runs more than its words say.

    ``printf -v`` (or any option but ``--``), ``read``, ``wait -p``, ``test -v``/``-R``
    (and ``[``) with a name that is not a plain identifier, ``set`` with an option not
    known to be harmless (``set -k`` makes later words assignments, ``set -a`` exports
    them), and a subscript holding an expansion given to any builtin that takes names
    or numbers."""
    if name in _TAKES_NAMES and any("[" in word and ("$" in word or "`" in word)
                                    for word in argv[1:]):
        return True
    if name == "printf":
        return len(argv) > 1 and argv[1].startswith("-") and argv[1] not in ("-", "--")
    if name == "read":
        return True
    if name == "wait":
        return any(not word.startswith("--") and "p" in word[1:]
                   for word in _leading_options(argv))
    if name in ("test", "["):
        return any(word in _NAME_TESTS and not _IDENTIFIER.match(following)
                   for word, following in zip(argv[1:], [*argv[2:], ""]))
    if name == "set":
        return not _harmless_set(argv)
    return False


def _leading_options(argv: Sequence[str]) -> list[str]:
    found = []
    for word in argv[1:]:
        if word == "--" or not word.startswith("-"):
            break
        found.append(word)
    return found


def _harmless_set(argv: Sequence[str]) -> bool:
    """``set`` given only options from :data:`_SET_LETTERS` and :data:`_SET_NAMES`."""
    words = list(argv[1:])
    i = 0
    while i < len(words):
        word = words[i]
        if len(word) < 2 or word[0] not in "-+" or word[1] in "-+":
            return False                        # positional parameters, or ``set --``
        letters = word[1:]
        if "o" in letters:
            if not letters.endswith("o") or i + 1 >= len(words) or \
                    words[i + 1] not in _SET_NAMES:
                return False
            letters, i = letters[:-1], i + 1
        if not set(letters) <= _SET_LETTERS:
            return False
        i += 1
    return True
