"""Lexical locations: is this path inside that directory?  Yes, no, or unknown.

This module owns the one answer the permission policy (:mod:`mcp_client.policy`)
and the lease layer both need about a path a model put in a tool call: where
it is, measured against the directory a server was given (its *root*).  It is
pure: strings in, strings and :class:`Tri` out.  It never touches the
filesystem -- the paths belong to the server's disk, not this process's, and
symlink truth is the server's sandbox to enforce -- and it holds no state.

The answer has three values, because a lexical comparison cannot always reach
a conclusion, and a security check must never guess:

* a path is resolved against the root of the tool that names it (relative
  paths are joined to it; absolute paths are taken as they are) and compared
  segment by segment, so ``/tmp/root2`` is *not* inside ``/tmp/root``,
  however much the strings agree, and a directory is inside itself;
* **unknown** is the answer whenever the text could mean something a plain
  segment comparison cannot see.  A path is unknown when it:

  - is not a string, is empty, or is longer than :data:`MAX_PATH_CHARS`;
  - has no root to be measured against (the tool has none), relative or
    absolute alike;
  - contains a ``..`` segment (even one that would stay inside: the text says
    "go up", and symlinks make "up" a filesystem question), or a glob segment that
    may expand to ``..`` (``.*``, ``.?``: bash before 5.2 matches it);
  - contains a NUL byte, a backslash (a Windows separator on some servers),
    or any other control, format, surrogate, private-use or unassigned
    character;
  - contains a percent escape (``%2e%2e``, ``%2f``, even ``%20``): some
    servers decode them and some do not, and the two readings differ;
  - contains a variable a server or a shell may expand: ``$HOME``,
    ``${HOME}``, ``%USERPROFILE%`` (any ``$``, any ``%NAME%``) -- like ``~``,
    the text names a place only the server's environment knows;
  - has a segment that Unicode NFKC normalisation changes (``．．`` is
    ``..`` to a server that normalises; fullwidth ``／`` is ``/``);
  - starts with ``~`` (a server may expand it to a home directory) or with
    ``//`` (implementation-defined in POSIX, a UNC share elsewhere);
  - has a ``:`` in a segment (a drive letter, a URI scheme, an NTFS stream),
    a segment ending in a dot or a space (Windows drops them), or an 8.3
    short-name marker (``~`` followed by a digit);
* a path with glob characters (``*``, ``?``, ``[``, ``{``) that a server or
  shell expanding it could match inside a directory is *unknown* to that
  directory, though its text is elsewhere (``/srv/sec*/a``, ``/srv/**``);
* two paths that agree only when case is folded are *unknown* to each other,
  not "different": on a case-insensitive disk ``/srv/SECRET`` is
  ``/srv/secret``, so a deny rule must still fire and an allow must not.

``.`` segments and repeated or trailing slashes are harmless and dropped.

Which arguments of a call are locations is a convention (``path``, ``from``,
``to`` and lists of them), and servers spell it many ways:
:mod:`mcp_client.argkeys` reads every common spelling, nested objects and
arrays included, and :func:`locate` resolves what it found.  A ``file:`` URL
is read as the path it names when it is plain (``file:///srv/a``; no host,
query or fragment), and is unknown otherwise.  Roots map a tool-name
prefix to the server's directory; :func:`root_for` picks the longest prefix
that ends at a word boundary of the tool name (``fs`` owns ``fs_read`` and
``fs.read`` but not ``fsx_read``; ``""`` owns every tool no longer prefix
claims).
"""

from __future__ import annotations

import enum
import fnmatch
import re
import unicodedata
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

from . import argkeys

__all__ = ["Tri", "tri_all", "tri_any", "MAX_PATH_CHARS", "LOCATION_KEYS", "segments",
           "check_root", "resolve", "contains", "within_any", "root_for", "Location", "locate",
           "located", "UNREAD_REST", "common_directory"]

#: Longest path text judged at all: Linux PATH_MAX (4096 bytes, including the
#: terminating NUL).  A longer path is unknown rather than compared.
MAX_PATH_CHARS = 4096

#: Argument names that carry a location, by convention (path/from/to; the
#: reference filesystem server also uses ``paths``, ``source`` and
#: ``destination``).  The full reading -- other spellings, any case, nested --
#: is :func:`mcp_client.argkeys.key_kind`; every name here is one it reads.
LOCATION_KEYS = ("path", "paths", "from", "to", "source", "destination")
#: Where :func:`locate` says a walk stopped before the end (``Location.key``).
UNREAD_REST = "<unread rest of the arguments>"

_PERCENT = re.compile(r"%[0-9A-Fa-f]{2}")
_SHORT_NAME = re.compile(r"~[0-9]")
_WINDOWS_VARIABLE = re.compile(r"%[^%/]+%")


class Tri(enum.Enum):
    """A three-valued answer, ordered ``NO < UNKNOWN < YES`` (Kleene logic)."""

    NO = 0
    UNKNOWN = 1
    YES = 2

    def __and__(self, other: Tri) -> Tri:
        return self if self.value <= other.value else other

    def __or__(self, other: Tri) -> Tri:
        return self if self.value >= other.value else other


def tri_all(values: Iterable[Tri]) -> Tri:
    """Kleene AND: ``NO`` if any is, else ``UNKNOWN`` if any is, else ``YES`` (also for none)."""
    result = Tri.YES
    for value in values:
        result = result & value
    return result


def tri_any(values: Iterable[Tri]) -> Tri:
    """Kleene OR: ``YES`` if any is, else ``UNKNOWN`` if any is, else ``NO`` (also for none)."""
    result = Tri.NO
    for value in values:
        result = result | value
    return result


def _clean_segment(segment: str) -> bool:
    if segment.endswith((".", " ")) or ":" in segment or _SHORT_NAME.search(segment):
        return False
    if _PERCENT.search(segment) or unicodedata.normalize("NFKC", segment) != segment:
        return False
    return not any(unicodedata.category(char)[0] == "C" for char in segment)


def segments(path: object) -> tuple[bool, tuple[str, ...]] | None:
    """Split a path into ``(absolute, segments)``, or ``None`` when it is unknown.

    ``.`` segments and empty segments (``//``, a trailing ``/``) are dropped;
    every other reason for *unknown* is listed in the module docstring.

    Args:
        path: anything; only a string can be a path.

    Returns:
        ``(True, ("srv", "work"))`` for ``/srv/./work/``; ``None`` when unknown.
    """
    if not isinstance(path, str) or not path or len(path) > MAX_PATH_CHARS:
        return None
    if "\\" in path or path.startswith(("~", "//")):
        return None
    if "$" in path or _WINDOWS_VARIABLE.search(path):
        return None             # $HOME, ${HOME}, %USERPROFILE%: the server's environment
    parts = []
    for segment in path.split("/"):
        if segment in ("", "."):
            continue
        if segment == ".." or not _clean_segment(segment) or _may_be_up(segment):
            return None
        parts.append(segment)
    return path.startswith("/"), tuple(parts)


def _may_be_up(segment: str) -> bool:
    """A glob segment a shell may expand to ``..`` (``.*``, ``.?``, ``.[.]``: bash before
    5.2, or with ``globskipdots`` off, matches ``..`` as it matches any dot file)."""
    return bool(_GLOB.search(segment)) and fnmatch.fnmatchcase("..", segment)


def _join(parts: Sequence[str]) -> str:
    return "/" + "/".join(parts)


def check_root(root: object) -> str:
    """Validate a configured root and return its normalised form.

    Args:
        root: a directory on the server's disk.

    Returns:
        The absolute, normalised path (``/srv/work`` for ``/srv//work/``).

    Raises:
        ValueError: the root is not an absolute path this module can read to a
            conclusion (it would make every location under it unknown).
    """
    split = segments(root)
    if split is None or not split[0]:
        raise ValueError(f"a root must be a plain absolute path, not {root!r}")
    return _join(split[1])


def resolve(path: object, root: str | None) -> str | None:
    """Resolve ``path`` against ``root``, lexically.

    Args:
        path: the location text a call carried.
        root: the tool's root as :func:`check_root` returned it, or ``None``.

    Returns:
        The absolute, normalised path, or ``None`` (unknown) -- including for
        every path when there is no root to measure it against.
    """
    split = segments(path)
    if split is None or root is None:
        return None
    absolute, parts = split
    if absolute:
        return _join(parts)
    base = segments(root)
    if base is None or not base[0]:
        return None
    return _join(base[1] + parts)


def contains(directory: str | None, path: str | None) -> Tri:
    """Is ``path`` inside ``directory`` (or the directory itself)?

    Both are normalised absolute paths (from :func:`resolve` or
    :func:`check_root`); ``None`` for either is unknown.

    Returns:
        ``YES`` when the directory's segments are a prefix of the path's;
        ``UNKNOWN`` when they are one only with case folded (or either side is
        unknown); ``NO`` otherwise.
    """
    if directory is None or path is None:
        return Tri.UNKNOWN
    outer = [part for part in directory.split("/") if part]
    inner = [part for part in path.split("/") if part]
    if _may_glob_into(outer, inner):
        return Tri.UNKNOWN
    if len(inner) < len(outer):
        return Tri.NO
    head = inner[:len(outer)]
    if head == outer:
        return Tri.YES
    if [part.casefold() for part in head] == [part.casefold() for part in outer]:
        return Tri.UNKNOWN
    return Tri.NO


_GLOB = re.compile(r"[*?\[{]")


def _may_glob_into(outer: list[str], inner: list[str]) -> bool:
    """Whether ``inner`` holds glob characters and, read as a pattern by a server or a
    shell that expands it, could name something inside ``outer`` although its text does
    not (``/srv/sec*/a``, ``/srv/[s]ecret``, ``/srv/**``, ``/srv/{a,secret}``)."""
    globbed = False
    for part, name in zip(inner, outer):
        if part == name:
            continue
        if not _GLOB.search(part) or not _segment_may_match(part, name):
            return False
        if "**" in part:
            return True             # any depth: it may reach into the directory
        globbed = True
    return globbed and len(inner) >= len(outer)


def _segment_may_match(pattern: str, name: str) -> bool:
    if "**" in pattern or "{" in pattern:
        return True
    return fnmatch.fnmatchcase(name.casefold(), pattern.casefold())


def within_any(roots: Iterable[str], path: str | None) -> Tri:
    """Is ``path`` inside at least one of ``roots``?  (Kleene OR of :func:`contains`.)"""
    return tri_any(contains(root, path) for root in roots)


def _boundary(tool: str, prefix: str) -> bool:
    if prefix == "":
        return True
    if tool == prefix:
        return True
    if not tool.startswith(prefix):
        return False
    return not prefix[-1].isalnum() or not tool[len(prefix)].isalnum()


def root_for(roots: Mapping[str, str], tool: str) -> str | None:
    """The root of ``tool``: the value of the longest key that prefixes its name.

    A key matches when it equals the name or is followed in it by a character
    that is not a letter or digit (``fs`` matches ``fs_read``, not
    ``fsx_read``); the key ``""`` matches every tool.

    Returns:
        The root, or ``None`` when no key matches.
    """
    best: str | None = None
    for prefix in roots:
        if _boundary(tool, prefix) and (best is None or len(prefix) > len(best)):
            best = prefix
    return None if best is None else roots[best]


@dataclass(frozen=True)
class Location:
    """One location a call names.

    Attributes:
        key: where it came from: the argument name, with ``[i]`` for a list
            item and ``.`` for a nested key (``paths[1]``, ``edits[0].path``).
        value: the raw value the call carried (any JSON value).
        resolved: the absolute, normalised path, or ``None`` when unknown.
        directory: ``True`` when the text itself says it names a directory
            (a trailing ``/``), the only lexical evidence there is.
    """

    key: str
    value: Any
    resolved: str | None
    directory: bool = False


def _file_url(value: str) -> str | None:
    """The path a plain ``file:`` URL names, or None (a host, a query, anything odd)."""
    rest = value[5:]
    if rest.startswith("//"):
        rest = rest[2:]
        if not rest.startswith("/"):
            return None       # file://host/...: a share on another machine
    if not rest.startswith("/") or rest.startswith("//") or "?" in rest or "#" in rest:
        return None
    return resolve(rest, "/")


def _one(key: str, value: Any, root: str | None, *, url: bool) -> Location:
    if isinstance(value, str) and value[:5].lower() == "file:":
        # Under a URL key it is a URL; under a path key a server may take it as
        # a URL or as a relative path named "file:...": unknown.
        return Location(key, value, _file_url(value) if url else None, value.endswith("/"))
    resolved = resolve(value, root)
    is_dir = isinstance(value, str) and (value.endswith("/") or value.endswith("/."))
    return Location(key, value, resolved, is_dir)


def locate(arguments: Mapping[str, Any], root: str | None, *,
           strays: bool = False) -> list[Location] | None:
    """Read the locations out of a call's arguments.

    Every value :func:`mcp_client.argkeys.scan` finds under a location key
    (``path``, ``file``, ``edits[0].path``, ``options.target``...) is a
    location; a list contributes one location per item, and an empty list,
    ``null`` or any other non-string is one unknown location.  When the walk
    stopped short (too deep, too big), one more unknown location stands for
    the rest (key :data:`UNREAD_REST`).

    Args:
        arguments: the call's parsed arguments.
        root: the tool's root (:func:`root_for`), or ``None``.
        strays: also count every string that looks like a path or a URL
            under a key nobody knows, as an unknown location (for a tool that
            may change things).

    Returns:
        The locations in argument order, or ``None`` when the call names no
        location at all.
    """
    return located(argkeys.scan(arguments), root, strays=strays)


def located(found: argkeys.Scan, root: str | None, *,
            strays: bool = False) -> list[Location] | None:
    """:func:`locate`, for arguments already scanned."""
    url_keys = {key for key, _ in found.urls}
    result = [_one(key, value, root, url=key in url_keys) for key, value in found.locations]
    if strays:
        result.extend(Location(key, value, None) for key, value in found.strays)
    if not found.complete:
        result.append(Location(UNREAD_REST, None, None))
    return result or None


def common_directory(locations: Sequence[Location]) -> str | None:
    """The deepest directory containing everything ``locations`` name.

    A location with a trailing ``/`` names a directory and contributes itself;
    any other contributes its parent (lexically, a name may be a file).

    Returns:
        The directory, or ``None`` when there are no locations or any is
        unknown.
    """
    if not locations or any(loc.resolved is None for loc in locations):
        return None
    dirs = []
    for loc in locations:
        parts = [part for part in (loc.resolved or "").split("/") if part]
        dirs.append(parts if loc.directory else parts[:-1])
    common = dirs[0]
    for parts in dirs[1:]:
        size = 0
        while size < min(len(common), len(parts)) and common[size] == parts[size]:
            size += 1
        common = common[:size]
    return _join(common)
