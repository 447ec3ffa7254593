"""Which arguments of a tool call name a location, a URL or a command, wherever they sit.

Servers spell the same thing many ways: ``path``, ``file``, ``filePath``,
``target_file``, ``dest``; ``url``, ``uri``, ``endpoint``, ``baseUrl``;
``command``, ``cmd``, ``shellCommand``.  And they nest: the reference
filesystem server's ``edit_file`` takes ``edits: [{oldText, newText}]``,
others take ``edits: [{path, ...}]`` or ``options: {path}``.  A permission
check that reads only the top-level ``path``/``from``/``to`` reads the call an attacker
did not write.  This module owns the reading: :func:`key_kind` says what a
key names, :func:`scan` walks a call's arguments (objects and arrays, to a
bounded depth and size) and returns every location, URL and command it
found, with where each sat (``edits[0].path``).  It also collects the
*strays*: strings that look like a path or a URL but sit under a key it does
not know, or are themselves a key (``{"changes": {"/etc/passwd": ...}}``) --
evidence that the call names a place the reader cannot place.

It is pure (JSON-shaped values in, lists out), holds no state, and judges
nothing: :mod:`mcp_client.paths` resolves locations, the policy's rules
(:mod:`mcp_client.policy.rules`) and the lease layer decide what an unread
location means (unknown: an allow needs a definite yes).

Keys are compared as words, case folded: ``filePath``, ``file_path``,
``FILE-PATH`` and ``filepath`` are all ``file path``.  A key is

* a **location** when it is one of :data:`LOCATION_NAMES` or its last word is
  one of :data:`LOCATION_TAILS` (``repo_path``, ``configFile``, ``outputDir``);
* a **URL** when it is one of :data:`URL_TAILS` or ends in one (``baseUrl``,
  ``webhook_uri``); a ``file:`` URL under it is a location as well; a key
  ending in one of :data:`HOST_TAILS` (``host``, ``proxyHost``, ``domain``)
  names a host, kept as a URL of that host;
* a **command** when it ends in one of the words in :data:`COMMAND_TAILS`
  (``cmd``, ``shellCommand``, ``command_line``, ``script``, ``argv``,
  ``program``, ``executable``), read with the argv words beside it
  (:data:`ARG_KEYS`: ``args``, ``arguments``, ``params``...);
* **text** when it ends in one of :data:`TEXT_TAILS` (``content``,
  ``newText``, ``message``...): prose, whose strings are never strays.

Everything else is unknown.  A location key's value is a string, a list of
them, or an object holding location keys; anything else (``null``, a
number, an empty list, a list inside the list, an object with no location in
it) is still a location -- one that cannot be read.  The walk stops at :data:`MAX_DEPTH`
levels of nesting or :data:`MAX_ITEMS` values, and says so
(``Scan.complete`` is false): what it did not read may have been anything.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Mapping

__all__ = ["LOCATION_NAMES", "LOCATION_TAILS", "URL_TAILS", "HOST_TAILS", "COMMAND_TAILS",
           "ARG_KEYS",
           "TEXT_TAILS",
           "MAX_DEPTH", "MAX_ITEMS", "key_words", "key_kind", "command_key", "looks_placed",
           "CommandSpot", "Scan", "scan"]

#: Whole keys (as joined lowercase words) that name a location.  The conventional
#: ``path``/``from``/``to``, the reference filesystem server's ``paths``,
#: ``source`` and ``destination``, and the spellings other servers use.
LOCATION_NAMES = frozenset({
    "path", "paths", "from", "to", "source", "sources", "destination", "destinations",
    "src", "dst", "dest", "target", "targets", "file", "files", "filepath", "filepaths",
    "filename", "filenames", "dir", "dirs", "directory", "directories", "folder", "folders",
    "cwd", "workdir", "workingdir", "workingdirectory", "root", "location", "locations",
})
#: Last words that make a key a location (``repo_path``: the reference git server).
LOCATION_TAILS = frozenset({"path", "paths", "file", "files", "filename", "filenames", "dir",
                            "dirs", "directory", "directories", "folder", "folders"})
#: Last words that make a key a URL (``url``: the reference fetch server).
URL_TAILS = frozenset({"url", "urls", "uri", "uris", "endpoint", "endpoints", "href", "hrefs",
                       "link", "links"})
#: Last words that make a key name the host a call talks to (``host``, ``proxy_host``,
#: a ``Host`` header, ``domain``, ``server``, ``ip``): its value is a host, and each one
#: is a URL of that host to a ``host`` rule.
HOST_TAILS = frozenset({"host", "hosts", "hostname", "hostnames", "domain", "domains",
                        "server", "servers", "ip", "ips"})
#: Last words that make a key a command, and the key the shell reader knows it by.
COMMAND_TAILS = {"command": "command", "cmd": "command", "cmdline": "command",
                 "commandline": "command", "commands": "commands", "cmds": "commands",
                 "script": "script", "scripts": "commands", "argv": "argv",
                 "program": "command", "executable": "command"}
#: Keys whose list is the rest of a single command's argv
#: (``{"command": "git", "arguments": ["push"]}``): read with the command, never on
#: their own.
ARG_KEYS = ("args", "arguments", "params", "parameters")
#: Last words of keys that carry prose or data, never a place.
TEXT_TAILS = frozenset({"content", "contents", "text", "texts", "body", "message", "messages",
                        "description", "comment", "comments", "note", "notes", "query",
                        "pattern", "patterns", "regex", "replacement", "diff", "patch",
                        "prompt", "reason", "summary", "title", "subject", "observation",
                        "observations", "thought"})
#: The reader's own spellings of a command: the shell reader reads these at the top level.
_SHELL_KEYS = frozenset({"command", "cmd", "argv", "script", "commands"})

#: How deep objects and arrays are followed (the reference servers nest two levels).
MAX_DEPTH = 8
#: How many keys and array items one call's walk visits before it stops.
MAX_ITEMS = 10_000

_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
_DRIVE = re.compile(r"^[A-Za-z]:([\\/]|$)")


def key_words(key: str) -> list[str]:
    """``key`` split into lowercase words at ``_``, ``-``, case changes and digits."""
    return [word.lower() for word in _WORD.findall(key)]


def key_kind(key: object) -> str | None:
    """What a key names: ``"location"``, ``"url"``, ``"command"``, ``"text"`` or None."""
    if not isinstance(key, str):
        return None
    words = key_words(key)
    if not words:
        return None
    joined, tail = "".join(words), words[-1]
    if joined in LOCATION_NAMES or tail in LOCATION_TAILS:
        return "location"
    if tail in URL_TAILS:
        return "url"
    if tail in HOST_TAILS:
        return "host"
    if command_key(key) is not None:
        return "command"
    if tail in TEXT_TAILS:
        return "text"
    return None


def command_key(key: str) -> str | None:
    """The shell reader's key for a command key (``shellCommand`` -> ``command``), or None."""
    words = key_words(key)
    if not words:
        return None
    if words[-2:] in (["command", "line"], ["cmd", "line"]):
        return "command"
    joined = "".join(words)
    if joined.endswith("command") or joined.endswith("cmd"):
        return "command"
    return COMMAND_TAILS.get(words[-1])


def looks_placed(value: object) -> bool:
    """Whether a string looks like a path or a URL (a stray, under a key nobody knows).

    Yes for one line of text that is absolute (``/``, ``\\``, a drive letter),
    starts with ``~``, ``$`` or ``%`` (a home directory or a variable), has a
    ``..`` segment or a backslash anywhere, or starts with a URL scheme
    (``x://``, ``file:``).  A relative ``src/a.py`` is not: it cannot leave the
    directory it is read against without one of those.
    """
    if not isinstance(value, str) or not value or "\n" in value or "\r" in value:
        return False
    if value.startswith(("/", "\\", "~", "$", "%")) or "\\" in value:
        return True
    if _DRIVE.match(value) or _SCHEME.match(value) or value[:5].lower() == "file:":
        return True
    return ".." in value.split("/")


@dataclass(frozen=True)
class CommandSpot:
    """One command key, as the shell reader would be handed it.

    Attributes:
        where: where it sat (``options.cmd``).
        arguments: a mapping the shell reader reads (``{"command": ..., "args": ...}``,
            with the keys beside it that are no command of their own: ``env``, ``stdin``).
        direct: it is one the shell reader already reads at the top level.
    """

    where: str
    arguments: dict[str, Any]
    direct: bool


@dataclass
class Scan:
    """What one call's arguments name, in the order they were met.

    Attributes:
        locations: ``(where, value)`` for every location value (a string, or
            something that cannot be read as one).
        urls: ``(where, value)`` for every URL value.
        commands: every command key.
        strays: ``(where, text)`` for strings that look like a path or a URL
            under a key that is none of the above.
        complete: False when the walk stopped at :data:`MAX_DEPTH` or
            :data:`MAX_ITEMS`, or a mapping could not be read.
        visited: how many keys and array items the walk counted.
    """

    locations: list[tuple[str, Any]] = field(default_factory=list)
    urls: list[tuple[str, Any]] = field(default_factory=list)
    commands: list[CommandSpot] = field(default_factory=list)
    strays: list[tuple[str, str]] = field(default_factory=list)
    complete: bool = True
    visited: int = 0


def scan(arguments: Mapping[str, Any]) -> Scan:
    """Walk a call's parsed arguments (see the module docstring).

    Never raises: a mapping whose items cannot be read, or a walk that runs
    out of depth or size, ends with ``complete`` false.
    """
    found = Scan()
    _object(found, arguments, "", 0)
    return found


def _spend(found: Scan, depth: int) -> bool:
    """Count one value; False (and the scan incomplete) once a bound is passed."""
    found.visited += 1
    if depth > MAX_DEPTH or found.visited > MAX_ITEMS:
        found.complete = False
        return False
    return True


def _items(found: Scan, obj: Mapping[Any, Any]) -> list[tuple[Any, Any]]:
    try:
        return list(obj.items())
    except Exception:   # a caller's Mapping whose items raise: nothing in it was read
        found.complete = False
        return []


def _object(found: Scan, obj: Mapping[Any, Any], where: str, depth: int) -> None:
    items = _items(found, obj)
    siblings = dict(items)
    has_command = any(isinstance(key, str) and command_key(key) == "command" for key in siblings)
    for key, value in items:
        if not _spend(found, depth):
            return
        name = f"{where}.{key}" if where else str(key)
        if looks_placed(key) and any(char in key for char in "/\\:"):
            found.strays.append((name, key))   # {"changes": {"/etc/passwd": ...}}, not "$ref"
        kind = key_kind(key)
        if kind == "location":
            _location(found, value, name, depth)
        elif kind in ("url", "host"):
            _url(found, _as_url(value) if kind == "host" else value, name, depth)
        elif kind == "command":
            _command(found, siblings, key, name, depth == 0)
        elif key in ARG_KEYS and has_command:
            continue        # the command's own words: read with it
        else:
            _other(found, value, name, depth, text=kind == "text")


def _command(found: Scan, siblings: dict[Any, Any], key: str, name: str, top: bool) -> None:
    canonical = command_key(key)
    assert canonical is not None
    # the keys beside it that are no command of their own (env, shell, stdin...), and
    # for a single command its words wherever they sit
    spot: dict[str, Any] = {name: value for name, value in siblings.items()
                            if isinstance(name, str) and key_kind(name) != "command"
                            and name not in ARG_KEYS}
    spot[canonical] = siblings[key]
    if canonical == "command":
        spot.update((name, siblings[name]) for name in (*ARG_KEYS, "argv") if name in siblings)
    found.commands.append(CommandSpot(name, spot, top and key in _SHELL_KEYS))


def _location(found: Scan, value: Any, name: str, depth: int, *, listed: bool = False) -> None:
    if isinstance(value, list) and value and not listed:
        for index, item in enumerate(value):   # a list in the list: no telling, unknown
            if _spend(found, depth + 1):
                _location(found, item, f"{name}[{index}]", depth + 1, listed=True)
        return
    if isinstance(value, Mapping):
        before = len(found.locations)
        _object(found, value, name, depth + 1)
        if len(found.locations) > before:
            return
    found.locations.append((name, value))


def _url(found: Scan, value: Any, name: str, depth: int) -> None:
    if isinstance(value, list) and value:
        for index, item in enumerate(value):
            if _spend(found, depth + 1):
                _url(found, item, f"{name}[{index}]", depth + 1)
        return
    if isinstance(value, Mapping):
        before = len(found.urls)
        _object(found, value, name, depth + 1)
        if len(found.urls) > before:
            return
    found.urls.append((name, value))
    if isinstance(value, str) and value[:5].lower() == "file:":
        found.locations.append((name, value))


def _as_url(value: Any) -> Any:
    """A host key's value as the URL of that host (``evil.com`` is ``https://evil.com/``);
    a URL stays one, and anything else is a URL that cannot be read."""
    if isinstance(value, list):
        return [_as_url(item) for item in value]
    if not isinstance(value, str) or not value or _SCHEME.match(value):
        return value if isinstance(value, str) and value else None
    if any(char in value for char in "/\\@?#%") or not value.isprintable():
        return None
    return f"https://{value}/"


def _other(found: Scan, value: Any, name: str, depth: int, *, text: bool) -> None:
    if isinstance(value, str):
        if not text and looks_placed(value):
            found.strays.append((name, value))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            if not _spend(found, depth + 1):
                return
            _other(found, item, f"{name}[{index}]", depth + 1, text=text)
    elif isinstance(value, Mapping):
        _object(found, value, name, depth + 1)
