"""Reading a program's argv the way its own option parser does: the one getopt reader.

GNU ``getopt_long`` is what most programs the policy reads use: short options in
clusters (``-uo F``), a value glued on (``-oF``) or in the next word, long options by
any unique prefix (``--out=F`` is ``--output=F``), ``--no-FLAG``, and options after
operands until ``--``.  :func:`parse` reads an argv against a :class:`Spec` and says
what it could not read, so the caller can answer closed-world: for
:mod:`mcp_client.policy._outputs` an option not in the table is an output that cannot
be named (:data:`UNNAMED`); for the runners of :mod:`mcp_client.policy._runners`
(``nice -n 10 CMD``), read with ``stop`` and ``strict``, it makes the command unknown.

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
    abbreviation that may be one of them is unknown, not the program's error.

    A runner's reading (:mod:`mcp_client.policy._runners`) adds: ``stop``: the options
    end at the first operand (getopt's ``+``: the command follows); ``strict``: every
    getopt error is unknown -- an ambiguous prefix, a value given to an option that
    takes none, a missing value -- and there is no ``--no-FLAG``; ``numbers``: a word
    ``-NUM`` is an obsolete option (``nice -10``); ``any_long``: a long option not
    listed is one without a value of its own; ``dash``: a lone ``-`` is an option;
    ``optional``: long options whose value, when there is one, is attached
    (``--replace[=R]``; a short one is spelled ``x::``); ``pairs``: long options with
    two values (``--bind SRC DEST``; the second is recorded)."""

    short: str
    long: tuple[str, ...] = ()
    glued: bool = True
    digits: bool = False
    lenient: bool = False
    writing: frozenset[str] = field(default_factory=frozenset)
    stop: bool = False
    strict: bool = False
    numbers: bool = False
    any_long: bool = False
    dash: bool = False
    optional: frozenset[str] = field(default_factory=frozenset)
    pairs: frozenset[str] = field(default_factory=frozenset)
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
    long ones by their full name; the value ``None`` when none was given), operands,
    whether an option could not be read, and (``stop``) where the options ended."""

    options: list[tuple[str, str | None]]
    operands: list[str]
    unknown: bool
    given: set[str] = field(default_factory=set)
    end: int = 0

    def add(self, name: str, value: str | None) -> None:
        """Record one option."""
        self.options.append((name, value))
        self.given.add(name)

    def has(self, *names: str) -> bool:
        """Whether any of ``names`` was given."""
        return any(name in self.given for name in names)

    def values(self, *names: str) -> list[str]:
        """The values given to any of ``names``, in order (``""`` for none)."""
        return [value or "" for name, value in self.options if name in names]


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
    elif head.startswith("no-") and not spec.strict and \
            not spec.exact.get(head[3:], "=").endswith("="):
        found = (head,)
    elif not head and not spec.strict:      # (getopt itself takes "" for a prefix of all)
        found = ()
    else:
        start = bisect.bisect_left(spec.ordered, head)
        found = spec.ordered[start:bisect.bisect_left(spec.ordered, head + "\U0010ffff", start)]
    if len(spec.seen) >= _SEEN:
        spec.seen.clear()
    spec.seen[head] = found
    return found


def parse(spec: Spec, argv: Sequence[str], start: int = 1) -> Parsed:
    """Read ``argv`` from ``start`` as getopt_long would (options anywhere before ``--``,
    or up to the first operand with ``stop``).  A long option that is not in the spec,
    or an ambiguous prefix that may be a writing one, makes the result unknown (a prefix
    of several harmless ones is the program's error, unless ``strict``)."""
    found = Parsed([], [], False)
    i, ended = start, False
    while i < len(argv):
        word = argv[i]
        if spec.dash and word == "-":
            i += 1
        elif ended or word == "-" or not word.startswith("-"):
            if spec.stop:
                break
            found.operands.append(word)
            i += 1
        elif word == "--":
            ended, i = True, i + 1
            if spec.stop:
                break
        elif word.startswith("--"):
            i = _long(spec, word, argv, i + 1, found)
        elif spec.numbers and word[1:].isdigit():
            i += 1
        else:
            i = _cluster(spec, word, argv, i + 1, found)
    found.end = i
    return found


def _long(spec: Spec, word: str, argv: Sequence[str], i: int, found: Parsed) -> int:
    """Read one long option (``argv[i]`` is the word after it); returns the next index."""
    head, eq, value = word[2:].partition("=")
    names = _lookup(spec, head)
    if not names and spec.any_long:
        found.add("--" + head, value if eq else None)
        return i
    if len(names) != 1:
        found.unknown = found.unknown or spec.strict or (not names and not spec.lenient) or any(
            "--" + name.rstrip("=") in spec.writing for name in names)
        return i
    full = "--" + names[0].rstrip("=")
    if full in spec.pairs:
        if eq or i + 1 >= len(argv):
            found.unknown = True
            return i
        found.add(full, argv[i + 1])
        return i + 2
    if names[0].endswith("="):
        if not eq:
            if i < len(argv):
                value, i = argv[i], i + 1
            else:
                found.unknown = found.unknown or spec.strict
        found.add(full, value)
        return i
    if eq and spec.strict and full not in spec.optional and not spec.any_long:
        found.unknown = True                # a value given to an option that takes none
    found.add(full, value if eq else None)
    return i


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
        arity = spec.short[at + 1:at + 3]
        if arity == "::":                   # an optional value: attached, or none
            found.add("-" + letter, word[j + 1:] or None)
            break
        if arity[:1] != ":":
            found.add("-" + letter, None)
            j += 1
            continue
        value = word[j + 1:] if spec.glued else ""
        if not value:
            if i < len(argv):
                value, i = argv[i], i + 1
            else:
                found.unknown = found.unknown or spec.strict
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
