"""Reading a program's argv the way its own option parser does, for :mod:`._outputs`.

GNU ``getopt_long`` is what most programs :mod:`mcp_client.policy._outputs` knows use:
short options in clusters (``-uo F``), a value glued on (``-oF``) or in the next word,
long options by any unique prefix (``--out=F`` is ``--output=F``), ``--no-FLAG``, and
options after operands until ``--``.  :func:`parse` reads an argv against a
:class:`Spec` and says what it could not read, so the caller can answer closed-world:
an option not in the table is an output that cannot be named (:data:`UNNAMED`).

Pure: strings in, strings out.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from typing import Sequence

__all__ = ["UNNAMED", "NOWHERE", "Spec", "Parsed", "parse", "files", "folder", "outcome",
           "operands", "abbreviates"]

UNNAMED = "<a file this reader cannot name>"


@dataclass(frozen=True)
class Spec:
    """One program's options: ``short`` in getopt's spelling (a letter followed by ``:``
    takes a value), ``long`` names (ending in ``=`` when they take a value; any long
    option may carry an ``=value``).  ``glued``: a short option's value may follow it in
    the same word (``-o/x``); ``digits``: ``-NUM`` is an obsolete option; ``lenient``:
    an option not listed is harmless (every option of the program was reviewed and only
    the listed ones write); ``writing``: long options that write or run, so an
    abbreviation that may be one of them is unknown, not the program's error."""

    short: str
    long: tuple[str, ...] = ()
    glued: bool = True
    digits: bool = False
    lenient: bool = False
    writing: frozenset[str] = field(default_factory=frozenset)
    ordered: tuple[str, ...] = field(init=False, repr=False, compare=False)
    exact: dict[str, str] = field(init=False, repr=False, compare=False)
    seen: dict[str, tuple[str, ...]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # an index for long-option lookups, and a bounded memo of them
        object.__setattr__(self, "ordered", tuple(sorted(set(self.long))))
        object.__setattr__(self, "exact", {name.rstrip("="): name for name in self.long})
        object.__setattr__(self, "seen", {})


@dataclass
class Parsed:
    """An argv as :func:`parse` read it: ``(name, value)`` options (``-o``, ``--output``:
    long ones by their full name), operands, and whether an option could not be read."""

    options: list[tuple[str, str]]
    operands: list[str]
    unknown: bool
    given: set[str] = field(default_factory=set)

    def add(self, name: str, value: str) -> None:
        """Record one option."""
        self.options.append((name, value))
        self.given.add(name)

    def has(self, *names: str) -> bool:
        """Whether any of ``names`` was given."""
        return any(name in self.given for name in names)

    def values(self, *names: str) -> list[str]:
        """The values given to any of ``names``, in order."""
        return [value for name, value in self.options if name in names]


#: How many long-option lookups a spec remembers.
_SEEN = 4096


def _lookup(spec: Spec, head: str) -> tuple[str, ...]:
    """The long names ``--head`` may be: the exact one, ``--no-FLAG`` of a boolean
    (curl, wget, zstd), or every name it is a prefix of."""
    found = spec.seen.get(head)
    if found is not None:
        return found
    if head in spec.exact:
        found = (spec.exact[head],)
    elif head.startswith("no-") and not spec.exact.get(head[3:], "=").endswith("="):
        found = (head,)
    elif not head:
        found = ()
    else:
        start = bisect.bisect_left(spec.ordered, head)
        found = spec.ordered[start:bisect.bisect_left(spec.ordered, head + "\U0010ffff", start)]
    if len(spec.seen) >= _SEEN:
        spec.seen.clear()
    spec.seen[head] = found
    return found


def parse(spec: Spec, argv: Sequence[str]) -> Parsed:
    """Read ``argv`` as getopt_long would (options anywhere before ``--``).  A long option
    that is not in the spec, or an ambiguous prefix that may be a writing one, makes the
    result unknown (a prefix of several harmless ones is the program's error)."""
    found = Parsed([], [], False)
    i, ended = 1, False
    while i < len(argv):
        word = argv[i]
        i += 1
        if ended or word == "-" or not word.startswith("-"):
            found.operands.append(word)
        elif word == "--":
            ended = True
        elif word.startswith("--"):
            head, eq, value = word[2:].partition("=")
            names = _lookup(spec, head)
            if len(names) != 1:
                found.unknown = found.unknown or (not names and not spec.lenient) or any(
                    "--" + name.rstrip("=") in spec.writing for name in names)
                continue
            if names[0].endswith("=") and not eq:
                value, i = (argv[i], i + 1) if i < len(argv) else ("", i)
            found.add("--" + names[0].rstrip("="), value)
        else:
            i = _cluster(spec, word, argv, i, found)
    return found


def _cluster(spec: Spec, word: str, argv: Sequence[str], i: int, found: Parsed) -> int:
    """Read one cluster of short options (``-uo F``, ``-uoF``); returns the next index."""
    j = 1
    while j < len(word):
        letter = word[j]
        at = spec.short.find(letter) if letter != ":" else -1
        if at < 0:
            if not (spec.digits and letter.isdigit()) and not spec.lenient:
                found.unknown = True
            j += 1
            continue
        if spec.short[at + 1:at + 2] != ":":
            found.add("-" + letter, "")
            j += 1
            continue
        value = word[j + 1:] if spec.glued else ""
        if not value:
            value, i = (argv[i], i + 1) if i < len(argv) else ("", i)
        found.add("-" + letter, value)
        if spec.glued:
            break
        j += 1
    return i


#: Names that are no file: standard output, and the files that are a stream or nothing.
NOWHERE = frozenset({"-", "/dev/null", "/dev/stdout", "/dev/stderr", "/dev/fd/1", "/dev/fd/2"})


def files(*values: str) -> list[str]:
    """Named files, without :data:`NOWHERE` and empty values (a missing one is the
    program's error)."""
    return [value for value in values if value and value not in NOWHERE]


def folder(value: str) -> str:
    """``value`` as a directory (a trailing ``/``)."""
    return value if value.endswith("/") else value + "/"


def outcome(parsed: Parsed, writes: list[str]) -> list[str]:
    """``writes``, with :data:`UNNAMED` when ``parsed`` met an option it does not know."""
    return writes + [UNNAMED] if parsed.unknown else writes


def operands(argv: Sequence[str], valued: str = "") -> list[str]:
    """Every word that is not an option nor an option's value (``valued`` short letters)."""
    found: list[str] = []
    skip = False
    for word in argv[1:]:
        if skip:
            skip = False
        elif word.startswith("-") and word != "-":
            skip = len(word) == 2 and word[1] in valued
        else:
            found.append(word)
    return files(*found)


def abbreviates(word: str, names: Sequence[str], *, shortest: int = 1) -> bool:
    """Whether ``word`` (``--forc``, ``--force-with=x``) is one of ``names`` (``--force``...)
    or a prefix of one at least ``shortest`` letters long, as git's and GNU getopt's
    unique-prefix matching would accept it (ambiguity is the program's error, not a no)."""
    if not word.startswith("--") or word == "--":
        return False
    head = word.split("=", 1)[0]
    return len(head) - 2 >= shortest and any(name.startswith(head) for name in names)
