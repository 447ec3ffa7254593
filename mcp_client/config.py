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

The file as a whole and the connecting are here; one entry's keys are read
in :mod:`mcp_client._config._reader`, and the entry's value, its error and
its step to a transport live in :mod:`mcp_client._config._entry` (import
them from this module).

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
  folder for a dict), and so is a relative ``command`` that holds a path
  separator (``./srv.py``, ``bin/x``): it names the file's own program, never
  one of that name in whatever folder the client runs from (nor in ``cwd``).
  A bare name (``uvx``, ``node``) is looked up on ``PATH``.  ``args`` are
  passed exactly as written (after expansion): they are the server's business.
* **Values.**  ``args`` is a list of strings and ``env``/``headers`` map
  strings to strings; a number is refused rather than converted (quote it).
  ``era`` is ``auto``, ``legacy`` or a modern protocol version and wins over
  an ``era`` given as a client option.  ``envFile`` is refused (it is not
  read here, and silently starting a server without its variables is worse).
  ``oauth`` (HTTP) is ``true`` or an object with ``client_id``,
  ``client_secret``, ``scopes``, ``callback_port`` and
  ``allow_private_network`` (a boolean: discovery may reach an authorization
  server on a private address; strings expanded): the
  server is reached through :class:`mcp_client.auth.OAuth` with the user's
  token file, so a ``mcp-client login`` beforehand means nobody is asked.
  Any other key (``autoApprove``, ``timeout``, ``description``...) is kept in
  :attr:`ServerConfig.extra` for the host to read, and otherwise ignored.
* **Typos.**  A key that is a slip away from one read here is not another
  host's: the entry is refused with a "did you mean" (``ulr``, ``comand``,
  ``Args``, ``inheritEnv``, ``restrat``), rather than reported later as a
  missing ``url`` or, worse, started without its ``args``.  Keys are compared
  lower-cased with ``_`` and ``-`` removed, by optimal-string-alignment
  distance: at most 1 step from a key of up to 5 letters, 2 from a longer one
  (``misspelt`` in ``mcp_client._config._reader``).  Other hosts' spellings that
  are further away -- ``cmd``, ``argv``, ``arguments``, ``environment``,
  ``httpUrl`` -- are named outright.  Everything else (``enabled``,
  ``timeout``, ``trust``, ``disabledTools``...) is kept.  A missing ``url`` or
  ``command`` is said to be missing.  Every error names the file (when there
  is one), the entry and the key; the command line exits 2 on it.
* **Restarts.**  A stdio server is connected with ``restart="on-failure"``
  (a server that crashes is started again by the next call, see
  :class:`~mcp_client.Client`) unless the entry says ``"restart": "never"``;
  a ``restart=`` option given to :func:`connect_config` is the default the
  entry's own key overrides.  Its value is checked when the file is read.
* **MCP Apps.**  ``"apps": true`` connects the server with ``apps=True``
  (the ``io.modelcontextprotocol/ui`` extension declared, see
  :mod:`mcp_client.apps`); ``false`` turns it off whatever ``apps=`` said.
  Anything but a boolean is refused when the file is read.
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
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping, Protocol, TypeVar, Union

from ._config import _text
from ._config._entry import ENTRY_OPTIONS as _ENTRY_OPTIONS
from ._config._entry import ConfigError, ServerConfig
# Names this module held before the split: ConfigError and ServerConfig say
# they live here, so their hints are resolved here, and old pickles look here.
from ._config._entry import Kind, _rebuild_config_error  # noqa: F401
from ._config._reader import expand, read_entry
from ._environ import InheritEnv  # noqa: F401 -- see Kind above
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
        base: the folder a relative ``cwd`` or ``command`` path is taken from
            (default: the current one).
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
            prefix = prefixes.name_for(name) or ""
            entries.append(read_entry(name, servers[name], prefix, env, base))
        except ConfigError as exc:
            if on_error is None:
                raise
            on_error(exc)
    return entries


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
