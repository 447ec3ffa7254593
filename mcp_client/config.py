"""The ``mcpServers`` configuration format: reading it, and connecting what it names.

Claude Desktop, Cursor, VS Code and most agents describe their MCP servers in
one JSON shape::

    {"mcpServers": {
        "git":   {"command": "uvx", "args": ["mcp-server-git"], "env": {"GIT_DIR": "${HOME}/p"}},
        "tools": {"type": "http", "url": "https://tools.example.com/mcp",
                  "headers": {"Authorization": "Bearer ${TOOLS_TOKEN}"}}}}

This module owns that format: :func:`load_config` turns a file or a dict into
validated :class:`ServerConfig` entries with every ``${VAR}`` expanded, and
:func:`connect_config` starts every enabled server in parallel and adds each
to a registry (``Registry.from_config`` delegates here).  It must not let a
mistake surface as a traceback from deep inside: every problem with the file
is a :class:`ConfigError` naming the server and the key, and a server that
fails to start fails only its own entry.

Decisions (the issue leaves these open):

* **Top-level key.**  ``mcpServers`` (Claude Desktop, Cursor, Claude Code), or
  ``servers`` (VS Code's ``.vscode/mcp.json``, common enough to accept);
  both at once is an error.  Other top-level keys (VS Code's ``inputs``) are
  ignored.
* **The file** is read as UTF-8 (a byte-order mark is tolerated) and parsed
  as JSON with the two extensions VS Code's files use: ``//`` and ``/* */``
  comments and trailing commas.  They are blanked in place, so the line and
  column of a syntax error are those of the file.  A ``str`` or path-like
  source is a file name; a mapping is the parsed configuration itself.
* **Kind.**  ``type`` may be ``stdio``, ``http`` or ``streamable-http``
  (also spelt ``streamableHttp``/``streamable_http``), or ``sse`` -- the
  2024-11-05 HTTP+SSE transport, reached with ``Client.connect_sse``;
  without it an entry with ``command`` is stdio and one with ``url`` is HTTP
  (which falls back to HTTP+SSE by itself).  Windsurf's ``serverUrl`` is
  read as ``url``.  A key that
  belongs to the other kind (``headers`` on a stdio entry) is an error.
* **Expansion.**  ``${VAR}`` and ``${VAR:-default}`` (the default is used
  when ``VAR`` is unset *or empty*, as in a POSIX shell) are expanded from the
  environment of this process -- never from the entry's own ``env`` -- in
  ``command``, ``args``, ``env`` values, ``cwd``, ``url`` and ``headers``
  values.  A default may hold references itself (``${A:-${B:-x}}``, at most
  8 deep), expanded only when it is used.  VS Code's ``${env:VAR}`` means
  ``${VAR}``.  ``$${`` is a literal ``${``; a ``$`` not followed by ``{`` is
  left alone.  An unset variable without a default is an error naming the
  server, the key and the variable; any other ``${...}`` form
  (``${input:token}``, ``${workspaceFolder}`` when unset, an unclosed ``${``)
  is an error too, rather than a server started with a hole in its
  arguments.  No error quotes a value: a file's strings may be secrets.
* **Environment.**  A stdio server gets the official SDKs' allow-list of our
  variables (``HOME``, ``PATH``...; :mod:`mcp_client._environ`) and its
  ``env``; ``"inherit_env": true`` gives it all of ours, ``false`` none.
* **Disabled entries** (``"disabled": true``) are returned (so a host can
  list them) but never started, and are never an error: variables they name
  may be unset (the reference is kept as written), and an entry that would
  not be valid (an ``sse`` server kept for later) comes back with no
  command or url and every key in :attr:`ServerConfig.extra`.
* **Paths.**  ``~`` is expanded in ``command`` and ``cwd``; a relative
  ``cwd`` is relative to the configuration file's folder (to the current
  folder for a dict).  ``args`` are passed exactly as written (after
  expansion): they are the server's business.
* **Values.**  ``args`` is a list of strings and ``env``/``headers`` map
  strings to strings; a number is refused rather than converted (quote it).
  ``era`` is ``auto``, ``legacy`` or a modern protocol version and wins over
  an ``era`` given as a client option.  ``envFile`` is refused (it is not
  read here, and silently starting a server without its variables is worse).
  ``oauth`` (HTTP) is ``true`` or an object with ``client_id``,
  ``client_secret``, ``scopes`` and ``callback_port`` (strings expanded): the
  server is reached through :class:`mcp_client.auth.OAuth` with the user's
  token file, so a ``mcp-client login`` beforehand means nobody is asked.
  Any other key (``autoApprove``, ``timeout``, ``description``...) is kept in
  :attr:`ServerConfig.extra` for the host to read, and otherwise ignored.
* **Restarts.**  A stdio server is connected with ``restart="on-failure"``
  (a server that crashes is started again by the next call, see
  :class:`~mcp_client.Client`) unless the entry says ``"restart": "never"``;
  a ``restart=`` option given to :func:`connect_config` is the default the
  entry's own key overrides.
* **Prefixes.**  Each server is added under its name, made acceptable to a
  model API by :class:`mcp_client.names.NameMap` (characters outside
  ``[a-zA-Z0-9_-]`` become ``_``; a name too long, or two names that clean to
  the same prefix, get a stable hash suffix -- a name that was already valid
  keeps it).  Prefixes are computed over every entry, disabled ones
  included, so enabling a server never renames another.
* **Connecting.**  Every enabled server is started on its own thread
  (``mcp-config-<name>``), and its era is probed there (``client.era``), so a
  server that starts and dies at once fails now, in its own entry, rather
  than at the first model turn.  Transport options given to
  :func:`connect_config` reach only servers of their kind (``on_stderr``
  goes to stdio servers); ``args``, ``env``, ``cwd`` and ``headers`` come
  from the file, and ``auth`` is refused (one credential for every host in
  the file would leak it).
"""

from __future__ import annotations

import json
import logging
import os
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import (TYPE_CHECKING, Any, Callable, Literal, Mapping, Protocol, TypeVar, Union,
                    cast)

from . import protocol
from ._config import _text
from ._config._entry import ENTRY_OPTIONS as _ENTRY_OPTIONS
from ._config._entry import ConfigError, Kind, ServerConfig
from ._config._entry import _rebuild_config_error  # noqa: F401 -- pickles made before the split
from ._environ import InheritEnv, is_inherit_env
from ._options import HTTP_OPTIONS, STDIO_OPTIONS, check_client_options
from .exceptions import MCPClientError
from .names import NameMap
from .provider import json_kind

if TYPE_CHECKING:
    from .client import Client

__all__ = ["ConfigError", "ServerConfig", "ConfigFailure", "ConfigRegistry", "load_config",
           "parse_config", "expand", "connect_entries", "connect_config"]

log = logging.getLogger(__name__)

Source = Union[str, "os.PathLike[str]", Mapping[str, Any]]
R = TypeVar("R", bound="ConfigRegistry")

#: Keys every entry may have; anything else lands in ``ServerConfig.extra``.
_STDIO_KEYS = ("command", "args", "env", "cwd", "inherit_env")
_HTTP_KEYS = ("url", "serverUrl", "headers", "oauth")
_OAUTH_KEYS = ("client_id", "client_secret", "scopes", "callback_port")
_COMMON_KEYS = ("type", "era", "disabled", "tools")
_TOOLS_KEYS = ("include", "exclude")
#: ``type`` values, normalised (lower case, ``-``/``_`` removed), and the kind they mean.
_TYPES = {"stdio": "stdio", "http": "http", "streamablehttp": "http", "sse": "sse"}


@dataclass(frozen=True)
class ConfigFailure:
    """A server that did not connect.

    Attributes:
        name: the entry's name.
        error: what went wrong (``SpawnFailed``, ``ServerGone`` with the
            server's last words, ``Timeout``, a ``ConfigError``...).
    """

    name: str
    error: BaseException

    def __str__(self) -> str:
        return f"{self.name}: {type(self.error).__name__}: {self.error}"


class ConfigRegistry(Protocol):
    """What :func:`connect_config` needs of the registry it fills.

    ``add`` takes ownership of a provider when ``owned`` is true (the registry
    closes it in its own ``close``); ``failures`` is a list the servers that
    did not connect are appended to.  :class:`mcp_client.registry.Registry`
    is one.
    """

    @property
    def failures(self) -> list[ConfigFailure]: ...

    def add(self, provider: Any, *, prefix: str, owned: bool = ...,
            include: Any = ..., exclude: Any = ...) -> Any: ...

    def close(self) -> None: ...


# -- reading ---------------------------------------------------------------------------

def load_config(source: Source, *, environ: Mapping[str, str] | None = None,
                on_error: Callable[[ConfigError], None] | None = None) -> list[ServerConfig]:
    """Read an ``mcpServers`` configuration.

    Args:
        source: a file name (``str`` or path-like) or the parsed configuration.
        environ: where ``${VAR}`` is looked up (default: ``os.environ``).
        on_error: if given, an entry that cannot be used is reported to it
            and left out, instead of raising (the command line uses this to
            reach one server of a file whose other entries need variables
            that are not set).  Problems with the file as a whole still raise.

    Returns:
        every entry, in file order, disabled ones included.

    Raises:
        ConfigError: an unreadable file, a syntax error (with ``line`` and
            ``column``), or an entry that cannot be used (with ``server`` and ``key``).
    """
    if not isinstance(source, (str, os.PathLike)):
        return parse_config(source, environ=environ, on_error=on_error)
    path = os.fspath(source)
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read the file: {exc}", path=path) from None
    try:
        data = json.loads(_text.blank_jsonc(text))
    except json.JSONDecodeError as exc:
        raise ConfigError(f"not valid JSON: {exc.msg}", path=path, line=exc.lineno,
                          column=exc.colno) from None

    def located(exc: ConfigError) -> ConfigError:
        return ConfigError(exc.reason, server=exc.server, key=exc.key, path=path)

    report = None if on_error is None else (lambda exc: on_error(located(exc)))
    try:
        return parse_config(data, environ=environ, base=Path(path).resolve().parent,
                            on_error=report)
    except ConfigError as exc:
        raise located(exc) from None


def parse_config(data: Any, *, environ: Mapping[str, str] | None = None,
                 base: Path | None = None,
                 on_error: Callable[[ConfigError], None] | None = None) -> list[ServerConfig]:
    """Validate and expand an already parsed configuration; see :func:`load_config`.

    Args:
        data: the parsed JSON.
        environ: where ``${VAR}`` is looked up (default: ``os.environ``).
        base: the folder a relative ``cwd`` is taken from (default: the current one).
        on_error: told about each entry that cannot be used, instead of raising.
    """
    if not isinstance(data, Mapping):
        raise ConfigError("the configuration must be a JSON object with an \"mcpServers\" "
                          f"object, not {json_kind(data)}")
    keys = [key for key in ("mcpServers", "servers") if key in data]
    if len(keys) == 2:
        raise ConfigError("both \"mcpServers\" and \"servers\" are present; keep one",
                          key="servers")
    if not keys:
        raise ConfigError("no \"mcpServers\" object (or VS Code's \"servers\")", key="mcpServers")
    servers = data[keys[0]]
    if not isinstance(servers, Mapping):
        raise ConfigError(f"must be an object of servers, not {json_kind(servers)}",
                          key=keys[0])
    env = os.environ if environ is None else environ
    names = [name for name in servers]
    prefixes: NameMap[str] = NameMap((name, name, name) for name in names if isinstance(name, str))
    entries = []
    for name in names:
        try:
            entries.append(_entry(name, servers[name], prefixes.name_for(name) or "", env, base))
        except ConfigError as exc:
            if on_error is None:
                raise
            on_error(exc)
    return entries


def _entry(name: Any, raw: Any, prefix: str, environ: Mapping[str, str],
           base: Path | None) -> ServerConfig:
    if not isinstance(name, str) or not name:
        raise ConfigError("a server needs a non-empty name", server=str(name))
    if not isinstance(raw, Mapping):
        raise ConfigError(f"the entry must be an object, not {json_kind(raw)}", server=name)
    reader = _Reader(name, raw, environ)
    try:
        return _read_entry(reader, name, raw, prefix, base)
    except ConfigError:
        if not reader.disabled:
            raise
    # A disabled entry is never an error: it is kept, empty, with its keys in ``extra``.
    kind: Literal["stdio", "http"] = "http" if "url" in raw or "serverUrl" in raw else "stdio"
    return ServerConfig(name=name, kind=kind, prefix=prefix, disabled=True,
                        extra={k: v for k, v in raw.items() if k != "disabled"})


def _read_entry(reader: _Reader, name: str, raw: Mapping[str, Any], prefix: str,
                base: Path | None) -> ServerConfig:
    kind = reader.kind()
    if "envFile" in raw:
        raise ConfigError("envFile is not read by this client; list the variables under "
                          "\"env\" instead", server=name, key="envFile")
    known = _STDIO_KEYS + _HTTP_KEYS + _COMMON_KEYS
    extra = {k: v for k, v in raw.items() if k not in known}
    include, exclude = reader.tools()
    if kind == "stdio":
        return ServerConfig(name=name, kind=kind, prefix=prefix, command=reader.command(),
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

    def command(self) -> str:
        command = os.path.expanduser(self.string("command", self.raw.get("command")))
        if not command.strip():
            raise self.error("command", "must not be empty")
        return command

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
        from ._redact import redact_url

        key = "serverUrl" if "serverUrl" in self.raw else "url"
        url = self.string(key, self.raw.get(key)).strip()
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
        return out

    def tools(self) -> tuple[tuple[str, ...] | None, tuple[str, ...]]:
        """The ``tools`` key: (include globs or None, exclude globs)."""
        from ._toolfilter import patterns

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


# -- connecting -------------------------------------------------------------------------

def _checked_options(options: Mapping[str, Any]) -> dict[str, Any]:
    for name in _ENTRY_OPTIONS:
        if name in options:
            why = ("one credential for every server in the file would leak it; put headers in "
                   "each entry" if name == "auth" else "it comes from each server's entry")
            raise MCPClientError(f"option {name} cannot be given here: {why}")
    check_client_options({k: v for k, v in options.items()
                          if k not in STDIO_OPTIONS and k not in HTTP_OPTIONS})
    return dict(options)


def connect_entries(entries: list[ServerConfig], **options: Any) -> tuple[
        list[tuple[ServerConfig, Client]], list[ConfigFailure]]:
    """Connect every enabled entry in parallel, and probe its era.

    Args:
        entries: from :func:`load_config`; disabled entries are skipped.
        **options: client options and transport options (see the module docstring).

    Returns:
        ``(connected, failures)``: ``(entry, client)`` pairs in file order, and
        one :class:`ConfigFailure` per entry that did not connect.  The
        clients are the caller's to close.

    Raises:
        MCPClientError: a bad option (before anything is started).
    """
    options = _checked_options(options)
    enabled = [entry for entry in entries if not entry.disabled]
    outcomes: list[Client | BaseException | None] = [None] * len(enabled)

    def run(index: int, entry: ServerConfig) -> None:
        client = None
        try:
            client = entry.connect(**options)
            client.era   # forces the probe: a server that dies at once fails here
            outcomes[index] = client
        except Exception as exc:
            if client is not None:
                client.close()
            outcomes[index] = exc

    threads = [threading.Thread(target=run, args=(index, entry), name=f"mcp-config-{entry.name}")
               for index, entry in enumerate(enabled)]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    except BaseException:   # an interrupt: wait for every connection, then close it
        for thread in threads:
            if thread.ident is not None:
                thread.join()
        for outcome in outcomes:
            if outcome is not None and not isinstance(outcome, BaseException):
                outcome.close()
        raise
    connected, failures = [], []
    for entry, outcome in zip(enabled, outcomes):
        if outcome is None or isinstance(outcome, BaseException):
            error = outcome or MCPClientError("the connecting thread ended without an outcome")
            log.info("server %r did not connect: %s", entry.name, error)
            failures.append(ConfigFailure(entry.name, error))
        else:
            connected.append((entry, outcome))
    return connected, failures


def connect_config(source: Source, *, registry_factory: Callable[[], R],
                   environ: Mapping[str, str] | None = None, **options: Any) -> R:
    """Connect every enabled server of a configuration into a new registry.

    Each server is added with ``registry.add(client, prefix=entry.prefix,
    owned=True)``; a server that fails to start, to answer the probe, or to
    be added is closed and appended to ``registry.failures`` -- the others
    still connect.  So is an entry that cannot be used (an unknown
    ``type``, an unset variable): a file shared with other hosts may hold
    entries only they understand.

    Args:
        source: a file name or the parsed configuration (see :func:`load_config`).
        registry_factory: makes the registry (``Registry.from_config`` passes its class).
        environ: where ``${VAR}`` is looked up (default: ``os.environ``).
        **options: client options for every server, plus transport options
            that apply to the servers of their kind.

    Returns:
        the registry, holding every server that connected.

    Raises:
        ConfigError: the file cannot be used at all (unreadable, not JSON, no
            ``mcpServers``); nothing was started.
        MCPClientError: a bad option (nothing was started).
    """
    unusable: list[ConfigFailure] = []
    entries = load_config(source, environ=environ, on_error=lambda exc: unusable.append(
        ConfigFailure(exc.server or "?", exc)))
    options = _checked_options(options)
    registry = registry_factory()   # before anything starts: a bad factory starts nothing
    connected, failures = connect_entries(entries, **options)
    for index, (entry, client) in enumerate(connected):
        try:
            if entry.include is None and not entry.exclude:
                registry.add(client, prefix=entry.prefix, owned=True)
            else:
                registry.add(client, prefix=entry.prefix, owned=True, include=entry.include,
                             exclude=entry.exclude)
        except Exception as exc:
            client.close()
            failures.append(ConfigFailure(entry.name, exc))
        except BaseException:   # an interrupt: nobody will ever see this registry
            client.close()
            for _, rest in connected[index + 1:]:
                rest.close()
            registry.close()
            raise
    order = {entry.name: index for index, entry in enumerate(entries)}
    registry.failures.extend(unusable)   # first: they never got as far as starting
    registry.failures.extend(sorted(failures, key=lambda failure: order[failure.name]))
    return registry
