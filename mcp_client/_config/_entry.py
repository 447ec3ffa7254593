"""One server's entry of an ``mcpServers`` file: its value, its error, and how it connects.

This module owns :class:`ServerConfig` (an entry once read and expanded),
:class:`ConfigError` (what is wrong with a file, and where) and the step
from an entry to a :class:`~mcp_client.Client` of the right transport
(:meth:`ServerConfig.connect`).  It does not read files or keys
(:mod:`._reader` does) and starts nothing in parallel
(:func:`mcp_client.config.connect_entries` does).  Both classes are public
as :mod:`mcp_client.config` names and say so in ``__module__``; the rules
they follow are recorded in that module's docstring.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Mapping

from .._environ import InheritEnv
from .._options import HTTP_OPTIONS, STDIO_OPTIONS
from ..exceptions import MCPClientError

if TYPE_CHECKING:
    from ..client import Client

__all__ = ["ConfigError", "ServerConfig", "Kind", "ENTRY_OPTIONS"]

Kind = Literal["stdio", "http", "sse"]
#: Options :func:`~mcp_client.config.connect_config` refuses: the file supplies them, or they
#: must not be shared.
ENTRY_OPTIONS = ("args", "env", "cwd", "inherit_env", "headers", "auth", "transport")


class ConfigError(MCPClientError):
    """A configuration that cannot be used, with where the problem is.

    Attributes:
        server: the entry's name (None for a problem with the file as a whole).
        key: the key inside the entry, as a path (``args[2]``, ``env.API_KEY``),
            or the top-level key; None when no single key is at fault.
        path: the file, when the configuration came from one.
        line: where a JSON syntax error is (1-based), else None.
        column: the column of that error (1-based), else None.
    """

    __module__ = "mcp_client.config"   # where users import it from, and where pickles look

    def __init__(self, message: str, *, server: str | None = None, key: str | None = None,
                 path: str | None = None, line: int | None = None,
                 column: int | None = None) -> None:
        self.server, self.key, self.path = server, key, path
        self.line, self.column = line, column
        self.reason = message
        where = [] if path is None else [path if line is None else f"{path}:{line}:{column}"]
        if server is not None:
            where.append(f"server {server!r}")
        if key is not None:
            where.append(f"key {key!r}")
        super().__init__(f"{', '.join(where)}: {message}" if where else message)

    def __reduce__(self) -> Any:
        return (_rebuild_config_error, (self.reason, self.server, self.key, self.path,
                                        self.line, self.column))


def _rebuild_config_error(message: str, server: str | None, key: str | None, path: str | None,
                          line: int | None, column: int | None) -> ConfigError:
    return ConfigError(message, server=server, key=key, path=path, line=line, column=column)


@dataclass(frozen=True)
class ServerConfig:
    """One server of a configuration, validated and expanded.

    Attributes:
        name: the entry's name in the file.
        kind: ``"stdio"``, ``"http"`` or ``"sse"`` (2024-11-05 HTTP+SSE).
        prefix: the name made acceptable as a registry prefix (see :mod:`mcp_client.config`).
        command: the program that starts a stdio server (absolute when the file
            gave a relative path, see :mod:`mcp_client.config`).
        args: its arguments.
        env: the environment variables it is given.
        cwd: the directory it starts in.
        inherit_env: what it inherits besides ``env`` (``"safe"``, True or False).
        url: where an HTTP server is.
        headers: the headers sent to it.
        oauth: the OAuth settings of an HTTP server (``{}`` for ``true``), or None.
        era: ``"auto"``, ``"legacy"``, a modern version, or None (the client's default).
        disabled: True if the entry says ``"disabled": true``.
        include: the entry's ``"tools": {"include": [...]}`` globs, None when absent
            (see :mod:`mcp_client._toolfilter`).
        exclude: its ``"tools": {"exclude": [...]}`` globs, ``()`` when absent.
        extra: every key the reader does not know, verbatim.
    """

    __module__ = "mcp_client.config"

    name: str
    kind: Kind
    prefix: str
    command: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None
    inherit_env: InheritEnv = "safe"
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    oauth: Mapping[str, Any] | None = None
    era: str | None = None
    disabled: bool = False
    extra: Mapping[str, Any] = field(default_factory=dict)
    include: tuple[str, ...] | None = None
    exclude: tuple[str, ...] = ()

    def _restart(self, default: Any) -> Any:
        """A stdio entry's ``restart``: the entry's own, else ``default`` ("on-failure")."""
        given = self.extra.get("restart", default)
        if "restart" in self.extra and given not in ("never", "on-failure"):
            raise ConfigError(f"must be \"never\" or \"on-failure\", not {given!r}",
                              server=self.name, key="restart")
        return given

    def __repr__(self) -> str:   # values of env, headers and args may be secrets: keys only
        from .._redact import redact_url

        where = self.command if self.kind == "stdio" else redact_url(self.url or "")
        keys = sorted(self.env if self.kind == "stdio" else self.headers)
        return (f"<ServerConfig {self.name!r} {self.kind} {where!r} args={len(self.args)} "
                f"{'env' if self.kind == 'stdio' else 'headers'}={keys}"
                f"{' oauth' if self.oauth is not None else ''}"
                f"{' disabled' if self.disabled else ''}>")

    def connect(self, **options: Any) -> Client:
        """Start (stdio) or reach (HTTP) this server.

        The connection is lazy: the era is probed by the first call that
        needs it (read ``client.era`` to force it).

        Args:
            **options: client options, plus transport options of this entry's
                kind; options of the other kind are dropped (see
                :mod:`mcp_client.config`).  The entry's ``era`` wins over ``era=``,
                its ``apps`` over ``apps=``.

        Returns:
            the :class:`~mcp_client.Client`.

        Raises:
            ConfigError: the entry is disabled.
            MCPClientError: an option the file supplies, or a bad value.
            SpawnFailed: a stdio server that could not be started.
        """
        from ..client import Client

        if self.disabled:
            raise ConfigError("the server is disabled", server=self.name, key="disabled")
        given = sorted(set(options) & set(ENTRY_OPTIONS) - {"auth"})
        if given:
            raise MCPClientError(f"option {given[0]} comes from the configuration entry")
        dropped = HTTP_OPTIONS if self.kind == "stdio" else STDIO_OPTIONS
        options = {k: v for k, v in options.items() if k not in dropped}
        if self.era is not None:
            options["era"] = self.era
        if isinstance(self.extra.get("apps"), bool):   # MCP Apps, as the entry says
            options["apps"] = self.extra["apps"]
        if self.kind == "stdio":
            assert self.command is not None
            options["restart"] = self._restart(options.get("restart", "on-failure"))
            return Client.connect_stdio(self.command, args=list(self.args), cwd=self.cwd,
                                        env=dict(self.env) or None,
                                        inherit_env=self.inherit_env, **options)
        assert self.url is not None
        if self.oauth is not None and options.get("auth") is None:
            options["auth"] = self._login()
        connect = Client.connect_sse if self.kind == "sse" else Client.connect_http
        return connect(self.url, headers=dict(self.headers) or None, **options)

    def _login(self) -> Any:
        """The entry's OAuth, logged in (before the probe: a person is not a server)."""
        from ..auth import FileTokenStorage, OAuth, user_token_path

        settings = dict(self.oauth or {})
        auth = OAuth(client_name="mcp-client", storage=FileTokenStorage(user_token_path()),
                     **settings)
        assert self.url is not None
        auth.login(self.url)
        return auth
