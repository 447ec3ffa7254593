"""Reading one entry of an ``mcpServers`` file: its keys checked, its strings expanded.

This module owns the validation of an entry's keys (:func:`read_entry`) and
the ``${VAR}`` expansion of its strings (:func:`expand`, built on
:mod:`._text`), every error a :class:`~mcp_client.config.ConfigError`
naming the server and the key.  It reads no file, knows no other entry and
starts nothing: the file and the registry prefixes are
:func:`mcp_client.config.load_config`'s.  The rules it applies are recorded
in :mod:`mcp_client.config`.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Literal, Mapping, cast

from .. import protocol
from .._environ import InheritEnv, is_inherit_env
from ..exceptions import MCPClientError
from ..provider import json_kind
from . import _text
from ._entry import ConfigError, Kind, ServerConfig

__all__ = ["read_entry", "expand"]

#: Keys every entry may have; anything else lands in ``ServerConfig.extra``.
_STDIO_KEYS = ("command", "args", "env", "cwd", "inherit_env")
_HTTP_KEYS = ("url", "serverUrl", "headers", "oauth")
_OAUTH_KEYS = ("client_id", "client_secret", "scopes", "callback_port", "allow_private_network")
_COMMON_KEYS = ("type", "era", "disabled", "tools")
_TOOLS_KEYS = ("include", "exclude")
#: ``type`` values, normalised (lower case, ``-``/``_`` removed), and the kind they mean.
_TYPES = {"stdio": "stdio", "http": "http", "streamablehttp": "http", "sse": "sse"}
#: Keys a typo is measured against: every key read here, and ``restart`` and ``apps``
#: (read by :meth:`ServerConfig.connect <mcp_client.config.ServerConfig.connect>` from
#: ``extra``).
_TYPO_TARGETS = _STDIO_KEYS + _HTTP_KEYS + _COMMON_KEYS + ("restart", "apps")
#: Other spellings of our keys that are too far from them to count as typos (normalised
#: as :func:`_normal` does): ``cmd`` would otherwise be a slip from ``cwd``.
_ALIASES = {"cmd": "command", "argv": "args", "arguments": "args", "environment": "env",
            "httpurl": "url"}


def read_entry(name: Any, raw: Any, prefix: str, environ: Mapping[str, str],
               base: Path | None) -> ServerConfig:
    """One entry of the file as a :class:`ServerConfig`.

    Args:
        name, raw: the entry's name and value in the file.
        prefix: its registry prefix (computed over every entry by the caller).
        environ: where ``${VAR}`` is looked up.
        base: the folder a relative ``cwd`` or ``command`` path is taken from, or
            None for the current one.

    Raises:
        ConfigError: the entry cannot be used (never for a disabled one).
    """
    if not isinstance(name, str) or not name:
        raise ConfigError("a server needs a non-empty name", server=str(name))
    if not isinstance(raw, Mapping):
        raise ConfigError(f"the entry must be an object, not {json_kind(raw)}", server=name)
    reader = _Reader(name, raw, environ)
    try:
        return _read_keys(reader, name, raw, prefix, base)
    except ConfigError:
        if not reader.disabled:
            raise
    # A disabled entry is never an error: it is kept, empty, with its keys in ``extra``.
    kind: Literal["stdio", "http"] = "http" if "url" in raw or "serverUrl" in raw else "stdio"
    return ServerConfig(name=name, kind=kind, prefix=prefix, disabled=True,
                        extra={k: v for k, v in raw.items() if k != "disabled"})


def _read_keys(reader: _Reader, name: str, raw: Mapping[str, Any], prefix: str,
               base: Path | None) -> ServerConfig:
    for key in raw:
        meant = misspelt(key)
        if meant is not None:
            raise ConfigError(f"not a key this client reads (did you mean {meant!r}?)",
                              server=name, key=key)
    kind = reader.kind()
    if "envFile" in raw:
        raise ConfigError("envFile is not read by this client; list the variables under "
                          "\"env\" instead", server=name, key="envFile")
    known = _STDIO_KEYS + _HTTP_KEYS + _COMMON_KEYS
    extra = {k: v for k, v in raw.items() if k not in known}
    include, exclude = reader.tools()
    reader.restart()
    reader.apps()
    if kind == "stdio":
        return ServerConfig(name=name, kind=kind, prefix=prefix, command=reader.command(base),
                            args=reader.strings("args"), env=reader.mapping("env"),
                            cwd=reader.cwd(base), inherit_env=reader.inherit_env(),
                            era=reader.era(), disabled=reader.disabled, extra=extra,
                            include=include, exclude=exclude)
    return ServerConfig(name=name, kind=kind, prefix=prefix, url=reader.url(),
                        headers=reader.mapping("headers"), oauth=reader.oauth(), era=reader.era(),
                        disabled=reader.disabled, extra=extra, include=include, exclude=exclude)


class _Reader:
    """Reads one entry's keys, naming the server and the key in every error."""

    def __init__(self, name: str, raw: Mapping[str, Any], environ: Mapping[str, str]) -> None:
        self.name, self.raw, self.environ = name, raw, environ
        disabled = raw.get("disabled", False)
        if not isinstance(disabled, bool):
            raise self.error("disabled", f"must be true or false, not {json_kind(disabled)}")
        self.disabled = disabled

    def error(self, key: str, message: str) -> ConfigError:
        return ConfigError(message, server=self.name, key=key)

    def kind(self) -> Kind:
        raw = self.raw
        if "url" in raw and "serverUrl" in raw:
            raise self.error("serverUrl", "both \"url\" and \"serverUrl\"; keep one")
        has_url = "url" in raw or "serverUrl" in raw
        declared = raw.get("type")
        if declared is None:
            if "command" in raw and has_url:
                raise self.error("type", "both \"command\" and \"url\": say which with "
                                 "\"type\": \"stdio\" or \"http\"")
            if not has_url and "command" not in raw:
                raise self.error("command", "neither \"command\" (a stdio server) nor \"url\" "
                                 "(an HTTP server)")
            kind: Kind = "http" if has_url else "stdio"
        else:
            kind = self._declared_kind(declared)
        wrong = _HTTP_KEYS if kind == "stdio" else _STDIO_KEYS
        for key in wrong:
            if key in raw:
                raise self.error(key, f"\"{key}\" does not belong in a {kind} server's entry")
        return kind

    def _declared_kind(self, declared: Any) -> Kind:
        if not isinstance(declared, str):
            raise self.error("type", f"must be a string, not {json_kind(declared)}")
        normal = declared.lower().replace("-", "").replace("_", "")
        if normal not in _TYPES:
            raise self.error("type", f"unknown transport {declared!r} (use \"stdio\", \"http\", "
                             "\"streamable-http\" or \"sse\")")
        kind = _TYPES[normal]
        return "stdio" if kind == "stdio" else "sse" if kind == "sse" else "http"

    def string(self, key: str, value: Any) -> str:
        if not isinstance(value, str):
            raise self.error(key, f"must be a string, not {json_kind(value)}")
        return expand(value, self.environ, server=self.name, key=key, strict=not self.disabled)

    def command(self, base: Path | None) -> str:
        """The program: a relative path (one with a separator) taken from ``base``.

        ``./srv.py`` and ``bin/x`` name the file's own programs, as a relative
        ``cwd`` names its folders; leaving them relative let the program of
        that name in whatever folder the client ran from start instead.  A
        bare name (``uvx``) is looked up on ``PATH`` when started.
        """
        if "command" not in self.raw:
            raise self.error("command", "missing: a stdio server needs \"command\"")
        command = os.path.expanduser(self.string("command", self.raw["command"]))
        if not command.strip():
            raise self.error("command", "must not be empty")
        if os.path.isabs(command) or not _has_separator(command):
            return command
        return str((base if base is not None else Path.cwd()) / command)

    def strings(self, key: str) -> tuple[str, ...]:
        values = self.raw.get(key, [])
        if not isinstance(values, list):
            raise self.error(key, f"must be a list of strings, not {json_kind(values)}")
        return tuple(self.string(f"{key}[{n}]", value) for n, value in enumerate(values))

    def mapping(self, key: str) -> dict[str, str]:
        values = self.raw.get(key, {})
        if not isinstance(values, Mapping):
            raise self.error(key, f"must be an object of strings, not {json_kind(values)}")
        return {name: self.string(f"{key}.{name}", value) for name, value in values.items()}

    def cwd(self, base: Path | None) -> str | None:
        if "cwd" not in self.raw:
            return None
        cwd = os.path.expanduser(self.string("cwd", self.raw["cwd"]))
        if not cwd:
            raise self.error("cwd", "must not be empty")
        return str(base / cwd) if base is not None and not os.path.isabs(cwd) else cwd

    def inherit_env(self) -> InheritEnv:
        value = self.raw.get("inherit_env", "safe")
        if not is_inherit_env(value):
            shown = repr(value) if isinstance(value, str) else json_kind(value)
            raise self.error("inherit_env", f"must be true, false or \"safe\", not {shown}")
        return cast(InheritEnv, value)

    def url(self) -> str:
        from .._redact import redact_url

        key = "serverUrl" if "serverUrl" in self.raw else "url"
        if key not in self.raw:
            raise self.error(key, "missing: an HTTP server needs \"url\"")
        url = self.string(key, self.raw[key]).strip()
        if not self.disabled and not re.match(r"^https?://[^/\s]+", url, re.IGNORECASE):
            raise self.error(key, f"must be an http:// or https:// URL, not {redact_url(url)!r}")
        return url

    def oauth(self) -> dict[str, Any] | None:
        value = self.raw.get("oauth", False)
        if isinstance(value, bool):
            return {} if value else None
        if not isinstance(value, dict):
            raise self.error("oauth", f"must be true, false or an object, not {json_kind(value)}")
        unknown = sorted(set(value) - set(_OAUTH_KEYS))
        if unknown:
            raise self.error("oauth", f"unknown key {unknown[0]!r} "
                             f"(known: {', '.join(_OAUTH_KEYS)})")
        out: dict[str, Any] = {key: self.string("oauth", value[key])
                               for key in ("client_id", "client_secret") if key in value}
        if "scopes" in value:
            scopes = value["scopes"]
            if not isinstance(scopes, list):
                raise self.error("oauth", f"scopes must be a list, not {json_kind(scopes)}")
            out["scopes"] = [self.string("oauth", scope) for scope in scopes]
        port = value.get("callback_port")
        if port is not None:
            if isinstance(port, bool) or not isinstance(port, int) or not 0 < port < 65536:
                raise self.error("oauth", "callback_port must be a port number (1-65535)")
            out["callback_port"] = port
        private = value.get("allow_private_network")
        if private is not None:
            if not isinstance(private, bool):
                raise self.error("oauth", "allow_private_network must be true or false, "
                                 f"not {json_kind(private)}")
            out["allow_private_network"] = private
        return out

    def tools(self) -> tuple[tuple[str, ...] | None, tuple[str, ...]]:
        """The ``tools`` key: (include globs or None, exclude globs)."""
        from .._toolfilter import patterns

        value = self.raw.get("tools")
        if value is None:
            return None, ()
        if not isinstance(value, dict):
            raise self.error("tools", "must be an object with \"include\" and/or "
                             f"\"exclude\" lists, not {json_kind(value)}")
        unknown = sorted(set(value) - set(_TOOLS_KEYS))
        if unknown:
            raise self.error("tools", f"unknown key {unknown[0]!r} (known: include, exclude)")
        try:
            include = None if value.get("include") is None else \
                patterns(value["include"], "include")
            exclude = () if value.get("exclude") is None else \
                patterns(value["exclude"], "exclude")
        except MCPClientError as exc:
            raise self.error("tools", str(exc)) from None
        return include, exclude

    def restart(self) -> None:
        """Check ``restart`` now, so a bad value is named with the file, not at connect."""
        if "restart" in self.raw and self.raw["restart"] not in ("never", "on-failure"):
            value = self.raw["restart"]
            shown = repr(value) if isinstance(value, str) else json_kind(value)
            raise self.error("restart", f"must be \"never\" or \"on-failure\", not {shown}")

    def apps(self) -> None:
        """Check ``apps`` (MCP Apps: declare the extension) now, naming the file."""
        if "apps" in self.raw and not isinstance(self.raw["apps"], bool):
            raise self.error("apps", f"must be true or false, not {json_kind(self.raw['apps'])}")

    def era(self) -> str | None:
        era = self.raw.get("era")
        if era is None:
            return None
        if era not in ("auto", "legacy") and not protocol.is_modern_version(era):
            raise self.error("era", f"must be \"auto\", \"legacy\" or a modern protocol version "
                             f"such as {protocol.MODERN_VERSIONS[0]}, not {era!r}")
        return str(era)


def expand(text: str, environ: Mapping[str, str] | None = None, *, server: str | None = None,
           key: str | None = None, strict: bool = True) -> str:
    """Expand ``${VAR}``, ``${VAR:-default}`` and ``${env:VAR}`` in ``text``.

    Args:
        text: the value from the file.
        environ: where variables are looked up (default: ``os.environ``).
        server, key: named in the error.
        strict: False keeps an unset variable's reference as written.

    Raises:
        ConfigError: an unset variable without a default, an unclosed
            ``${``, or a reference of another form.
    """
    try:
        return _text.expand(text, os.environ if environ is None else environ, strict=strict)
    except _text.Unexpandable as exc:
        raise ConfigError(str(exc), server=server, key=key) from None


def misspelt(key: Any) -> str | None:
    """The key this client reads that ``key`` is a slip away from, or None.

    ``key`` and every known key are compared lower-cased without ``_`` and
    ``-`` (so ``URL``, ``inheritEnv`` and ``server_url`` are ours), by the
    optimal-string-alignment distance (one insertion, deletion, substitution
    or swap of neighbours is one step): at most 1 step from a key of up to 5
    letters, 2 from a longer one.  A few spellings other hosts use
    (``cmd``, ``argv``, ``arguments``, ``environment``, ``httpUrl``) are
    named outright.  A key the reader knows (``envFile`` included) is not a
    typo; neither is anything further away (``autoApprove``, ``timeout``,
    ``enabled``): it is another host's, and kept.
    """
    if not isinstance(key, str) or key in _TYPO_TARGETS or key == "envFile":
        return None
    normal = _normal(key)
    if normal in _ALIASES:
        return _ALIASES[normal]
    best: tuple[int, str] | None = None
    for known in _TYPO_TARGETS:
        steps = _distance(normal, _normal(known))
        if steps <= (1 if len(known) <= 5 else 2) and (best is None or steps < best[0]):
            best = (steps, known)
    return None if best is None else best[1]


def _normal(key: str) -> str:
    return key.lower().replace("_", "").replace("-", "")


def _distance(a: str, b: str) -> int:
    """Optimal string alignment distance (Levenshtein with swaps of neighbours)."""
    if abs(len(a) - len(b)) > 2:
        return 3   # further than any limit: keys are short, but a file's may not be
    rows = [list(range(len(b) + 1))]
    for i in range(1, len(a) + 1):
        row = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            row[j] = min(rows[-1][j] + 1, row[j - 1] + 1, rows[-1][j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                row[j] = min(row[j], rows[-2][j - 2] + 1)
        rows.append(row)
    return rows[-1][-1]


def _has_separator(command: str) -> bool:
    """Whether ``command`` is a path rather than a name to look up on ``PATH``."""
    return os.sep in command or (os.altsep is not None and os.altsep in command)
