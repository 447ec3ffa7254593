"""The client: one connection to one MCP server, whichever era it speaks.

:class:`Client` is the face: options, the ``connect_*`` constructors, the
properties, the typed blocking API (tools, calls, ping; resources and prompts
from :mod:`._resources`, the rarer requests from :mod:`._extras`, skills from
:mod:`._skills`, the task handles from :mod:`._tasks.methods`, a tool's view from
:mod:`._apps`) and the LLM
methods; its ``*_async`` twins come from :mod:`._async`.  Everything that
happens on the connection -- its state, the era, one request, inbound
messages, the pools and ``close()`` -- is the
:class:`~._connection.Connection` it holds in ``_connection``.  The features
with state of their own are objects it holds too: which calls run as tasks,
and running them (:class:`~._tasks.calls.Tasks`, in ``_tasks``), the
``x-mcp-header`` rules of Streamable HTTP (:class:`~._toolheaders.ToolHeaders`,
in ``_headers``) and the LLM bridge (:mod:`._llm`, made on first use).  It
does not own the wire (a
:class:`~mcp_client.transport.Transport` does), the message shapes
(:mod:`mcp_client.protocol`) or the pending-request table
(:mod:`mcp_client.correlator`).

Threads: the transport's reader thread delivers every inbound message to
the connection, which completes futures, publishes notifications and hands
server requests to a worker.  A blocking method waits on its future in the
caller's thread; ``*_async`` methods run the blocking method on the
connection's :class:`~concurrent.futures.ThreadPoolExecutor`, except a
``call_tool_async`` on a wire that pipelines (:mod:`mcp_client.client._flights`).

Decisions:

* cancellation and timeouts send ``notifications/cancelled`` on stdio
  (2025-11-25 and 2026-07-28 cancellation) -- never for the probe or ``initialize``;
* an error response whose id is ``null`` (a parse error) is given to the one
  outstanding request when exactly one is outstanding, else reported;
* a pinned modern ``era`` is probed at that version with no fallback, and a
  server that does not speak it is :class:`UnsupportedVersion` at connect;
* when the probe was answered ``-32021`` there is no DiscoverResult: reading
  ``server_info``, ``capabilities`` or ``instructions`` sends one
  ``server/discover`` at the agreed version to fill them in, and every modern
  result's ``_meta`` serverInfo is used when none is known yet.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Iterable, Mapping

from .. import protocol
from .._log import get_logger, warn_through
from .._options import HTTP_OPTIONS, STDIO_OPTIONS, check_client_options, split_options
from .._version import __version__
from ..exceptions import MCPClientError, ProtocolError
from ..transport import Transport
from ..apps import EXTENSION as APPS_EXTENSION
from ..apps import MIME_TYPE as APPS_MIME_TYPE
from ._apps import Apps
from ._async import AsyncTwins
from ._connection import Connection
from ._extras import Extras
from ._icons import safe_icons
from ._outputs import OutputChecks
from ._params import tool_params
from ._resources import Resources
from ._skills import EXTENSION as SKILLS_EXTENSION
from ._skills import Skills
from ._tasks.calls import Tasks
from ._tasks.extension_2026_07_28 import declares_tasks, with_tasks
from ._tasks.methods import TaskMethods
from ._toolheaders import ToolHeaders

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, cast

    from ..types import (CallToolResult, Implementation, Tool, ToolAnnotations, ToolDeclaration,
                         ToolMessage)
    from ._bridge import Bridge
    from ._stream import Stream
else:
    def cast(_type: object, value: object) -> object:
        """:func:`typing.cast` without importing :mod:`typing` at run time."""
        return value

__all__ = ["Client"]

log = get_logger(__name__)


class Client(Apps, AsyncTwins, Extras, Resources, Skills, TaskMethods):
    """A connection to one MCP server.

    Build one with :meth:`connect_stdio` (a child process), or
    ``Client(transport=...)`` for a transport of your own (test doubles such
    as :class:`mcp_client.testing.FakeTransport`).  Use it in a ``with`` block,
    or call :meth:`close`.

    Args:
        transport: the wire; started by the constructor.
        **options: the client options, keyword-only (``client_name``,
            ``protocol_versions``, ``request_timeout``, ``probe_timeout``,
            ``connect_budget`` (seconds for the probe and the handshake
            together; a server that answers neither raises
            :class:`~mcp_client.exceptions.Timeout` saying so), ``era``,
            ``apps`` (declare MCP Apps, :mod:`mcp_client.apps`), the ``on_*``
            hooks, ...).  Transport options are refused here:
            there is nothing left for them to configure.

    Raises:
        MCPClientError: an unknown option or a bad value.
        UnsupportedVersion: ``protocol_versions`` names a handshake version.
        SpawnFailed: (stdio) the server could not be started.
    """

    def __init__(self, transport: Transport | None = None, **options: Any) -> None:
        for name in options:
            if name in STDIO_OPTIONS or name in HTTP_OPTIONS:
                raise MCPClientError(
                    f"option {name} configures a transport, but transport= was given: "
                    "nothing is left for it to configure")
        self._opts = check_client_options(options)
        if not isinstance(transport, Transport):
            raise MCPClientError("Client needs transport=: a mcp_client.transport.Transport "
                                 "(or use Client.connect_stdio)")
        self._on_warn_hook: Callable[[str], None] | None = self._opts["on_warn"]
        self._declared = _capabilities(self._opts)
        self._outputs = OutputChecks()
        client_info = {"name": self._opts["client_name"],
                       "version": self._opts["client_version"] or __version__}
        self._connection = Connection(transport, self._opts, client_info=client_info,
                                      capabilities=self._declared, warn=self._warn)
        self._headers = ToolHeaders(self._connection, self, self._warn)   # x-mcp-header
        self._tasks = Tasks(self._connection, catalogue=self, caller=self._headers,
                            declared=declares_tasks(self._declared),
                            max_rounds=self._opts["max_input_rounds"],
                            on_status=self._opts["on_task_status"])

    # -- construction ------------------------------------------------------------

    @classmethod
    def connect_stdio(cls, command: str, **options: Any) -> Client:
        """Start ``command`` as a child process and connect to it over stdio.

        Args:
            command: the program (no shell is involved).
            **options: client options, plus the stdio options ``args``, ``env``,
                ``cwd``, ``inherit_env``, ``on_stderr``, ``kill_grace``,
                ``stderr_lines`` and ``max_line_bytes``.  ``restart="on-failure"``
                (default ``"never"``) starts a server that died again on the next
                call, after a backoff, at most ``max_restarts`` (3) times a minute;
                the calls in flight when it died fail with :class:`ServerGone` and
                are never retried; ``on_restart(info)`` is told of each restart.

        Raises:
            SpawnFailed: the command could not be started (or has a NUL byte).
            MCPClientError: an unknown option or a bad value.
        """
        from ..stdio import StdioTransport

        stdio_options, rest = _split(options, "connect_stdio", STDIO_OPTIONS, HTTP_OPTIONS,
                                     "stdio")
        return cls._over(StdioTransport(command, **stdio_options), rest)

    @classmethod
    def connect_http(cls, url: str, **options: Any) -> Client:
        """Reach an MCP server over Streamable HTTP, whichever era it speaks.

        The first call probes with ``server/discover`` (2026-07-28); a server
        that does not answer it as a modern one is given the 2025-11-25
        ``initialize`` handshake, in a legacy Streamable HTTP session
        (``Mcp-Session-Id``, :attr:`session_id`) that :meth:`close` ends with a
        DELETE.  ``era="legacy"`` skips the probe.  ``requests`` is imported
        here, on first use.

        Args:
            url: the endpoint (``https://tools.example.com/mcp``).
            **options: client options, plus the HTTP options ``headers``,
                ``persistent``, ``connect_timeout``, ``auth`` (a
                ``requests.auth.AuthBase``), ``max_event_bytes`` and
                ``max_redirects``.

        Raises:
            MCPClientError: a bad URL, an unknown option or a bad value.
        """
        from ..http import HTTPTransport

        http_options, rest = _split(options, "connect_http", HTTP_OPTIONS, STDIO_OPTIONS, "HTTP")
        _log_in_first(url, http_options.get("auth"))
        return cls._over(HTTPTransport(url, **http_options), rest)

    @classmethod
    def connect_sse(cls, url: str, **options: Any) -> Client:
        """Reach an MCP server over the 2024-11-05 HTTP+SSE transport (deprecated).

        :meth:`connect_http` falls back to it on its own; this skips the
        Streamable HTTP attempts.  The handshake era is spoken over it.

        Args:
            url: the event stream's URL (``https://tools.example.com/sse``).
            **options: client options, plus the HTTP options of
                :meth:`connect_http`.

        Raises:
            MCPClientError: a bad URL, an unknown option or a bad value.
        """
        from ..http_sse import SSETransport

        http_options, rest = _split(options, "connect_sse", HTTP_OPTIONS, STDIO_OPTIONS, "HTTP",
                                    era="legacy")
        _log_in_first(url, http_options.get("auth"))
        return cls._over(SSETransport(url, **http_options), rest)

    @classmethod
    def _over(cls, transport: Transport, options: dict[str, Any]) -> Client:
        """A client over a transport the caller just made, which is closed if that fails."""
        try:
            return cls(transport=transport, **options)
        except BaseException:
            transport.close()
            raise

    # -- state ---------------------------------------------------------------------

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        connection = self._connection
        info = connection.era_info
        era = f"{info.era} {info.version}" if info else "unprobed"
        return (f"<Client era={era} {connection.state} pending={connection.pending} "
                f"transport={connection.transport!r}>")

    @property
    def transport(self) -> Transport:
        """The wire this client talks over."""
        return self._connection.transport

    @property
    def session_id(self) -> str | None:
        """The legacy Streamable HTTP session's id (None: no session, or not HTTP)."""
        found = getattr(self.transport, "session_id", None)
        return found if isinstance(found, str) else None

    @property
    def closed(self) -> bool:
        """True once :meth:`close` was called."""
        return self._connection.state == "closed"

    @property
    def era(self) -> str:
        """``"modern"`` or ``"legacy"``; forces the probe."""
        return self._connection.ensure_era().era

    @property
    def protocol_version(self) -> str:
        """The negotiated version (``2026-07-28``, or a handshake version)."""
        return self._connection.ensure_era().version

    @property
    def supported_versions(self) -> tuple[str, ...]:
        """Every version the server named (empty for a legacy server)."""
        self._connection.ensure_era()
        return self._connection.discovered().supported

    @property
    def server_info(self) -> Implementation:
        """The server's ``{"name", "version", ...}`` (empty if it sent none); only its
        ``https:``, ``data:`` and loopback ``http:`` icons (:mod:`._icons`)."""
        self._connection.ensure_era()
        return cast("Implementation", dict(safe_icons(self._connection.discovered().server_info)))

    @property
    def capabilities(self) -> dict[str, Any]:
        """The server's capabilities."""
        self._connection.ensure_era()
        return dict(self._connection.discovered().capabilities)

    @property
    def instructions(self) -> str | None:
        """The server's advice to a model, or None."""
        self._connection.ensure_era()
        return self._connection.discovered().instructions

    @property
    def declared_capabilities(self) -> dict[str, Any]:
        """The capabilities this client declares, derived from its hooks."""
        return dict(self._declared)

    @property
    def notifications(self) -> Stream:
        """Every notification the server sends, from subscription on.

        Each item is the JSON-RPC message as it arrived
        (:class:`~mcp_client.types.Notification`).
        """
        return self._connection.notifications

    # -- the typed API -------------------------------------------------------------

    def list_tools(self, *, refresh: bool = False, timeout: float | None = None,
                   cancelled: Any = None) -> list[Tool]:
        """Every tool the server offers (all pages).

        One call follows at most 1,000 pages and keeps at most 100,000 entries,
        against a server whose list never ends.

        Args:
            refresh: bypass the result cache.
            timeout: seconds for each page (None: ``request_timeout``; 0: none).
            cancelled: a ``threading.Event`` or ``Future`` that abandons the call.

        Raises:
            ProtocolError: the server refused, or broke the protocol, or its
                list went past one of those bounds (named in the message).
            Timeout, Cancelled, ServerGone, TransportClosed: as every request.
        """
        connection = self._connection
        tools = connection.list_all("tools/list", "tools", refresh=refresh, timeout=timeout,
                                    cancelled=cancelled)
        self._tasks.note_tools(tools)
        return cast("list[Tool]", self._headers.kept(tools))

    def call_tool(self, name: str, arguments: Mapping[str, Any] | None = None, *,
                  timeout: float | None = None, cancelled: Any = None,
                  progress_token: str | int | None = None,
                  validate: bool = False,
                  meta: Mapping[str, Any] | None = None) -> CallToolResult:
        """Call a tool and return its result.

        A tool that fails reports ``isError`` in a perfectly good result; that
        is returned, not raised.  With ``validate``, ``structuredContent`` is
        checked against the tool's ``outputSchema`` (the catalogue is fetched,
        or taken from the cache, first); the LLM bridge always checks unless
        the ``validate_output`` option is False.

        A tool whose ``execution.taskSupport`` is ``"required"``, on a server
        that runs tasks, is run as one (:mod:`._tasks.calls`, both eras; such a
        server's catalogue is fetched once first): ``timeout`` then bounds the
        whole task.  With the ``tasks`` option a 2026-07-28 server may make a
        task of any call.

        Args:
            name: the tool's name.
            arguments: a JSON object (dict); None means none.
            timeout: seconds (None: ``request_timeout``; 0: no budget).
            cancelled: a ``threading.Event`` or ``Future`` that abandons the call.
            progress_token: ask the server for progress under this token; the
                reports arrive on :attr:`notifications`.
            validate: check the result against the tool's ``outputSchema`` (a pattern in
                it that does not finish within what is left of this budget, at most 1 s, is a
                mismatch).
            meta: the request's ``params._meta`` (a JSON object), merged under
                the client's own keys: a lease layer's fencing token
                (``mcp-client-sync/lease``, :mod:`mcp_client.leases`) travels so.

        Returns:
            ``{"content": [...], "isError"?: True, "structuredContent"?: ...}``.

        Raises:
            ProtocolError: the server answered with a JSON-RPC error; or, with
                ``validate``, the structured content does not match (``code``
                None, ``data`` ``{"tool", "path", "reason"}``).
            Timeout, Cancelled, ServerGone, TransportClosed, MCPClientError: as any call.
        """
        params = tool_params(name, arguments, progress_token, meta)
        started = time.monotonic()
        result = self._tasks.call(params, timeout=timeout, cancelled=cancelled,
                                  progress_token=progress_token)
        if validate:   # the schema's patterns get what is left of the call's own budget
            tool = self._tool_named(name, timeout)
            total = self._connection.budget(timeout)
            left = None if total is None else max(0.0, total - (time.monotonic() - started))
            problem = self._outputs.problem(tool, result, budget=left)
            if problem is not None:
                raise problem
        return cast("CallToolResult", result)

    def _tool_named(self, name: str, timeout: float | None) -> Tool | None:
        for tool in self.list_tools(timeout=timeout):
            if tool.get("name") == name:
                return tool
        return None

    def ping(self, *, timeout: float | None = None) -> bool:
        """True if the server answered; False if it does not implement ping.

        2026-07-28 removed ``ping``, so a modern server's "method not found" is
        a healthy answer.  The probe runs first: a bare ``ping`` would lock
        a dual-era server into the legacy era.

        Raises:
            ProtocolError: any other error.  Timeout, ServerGone, TransportClosed.
        """
        try:
            self._connection.request("ping", {}, timeout=timeout, cancelled=None)
        except ProtocolError as exc:
            if exc.code == protocol.METHOD_NOT_FOUND:
                return False
            raise
        return True

    # -- the LLM bridge (._bridge) ----------------------------------------------------

    def tools_for_llm(self) -> list[ToolDeclaration]:
        """The server's tools as OpenAI-style function declarations.

        Every name matches ``^[a-zA-Z0-9_-]{1,64}$`` (see :mod:`mcp_client.names`).
        While the server's ``tools/list`` answer is cached (its ``ttlMs``) and
        no ``list_changed`` or ``list_tools(refresh=True)`` came since, the
        declarations are built once and the same objects come back in a new
        list: copy one before changing it.

        Raises:
            MCPClientError: the catalogue could not be fetched.
        """
        return self._bridge.tools_for_llm()

    def execute_tool_calls(self, calls: Iterable[Any]) -> list[ToolMessage]:
        """Run a model's tool calls: one ``{"role": "tool", ...}`` entry per call, in order.

        Never raises for a call (each failure is an ``is_error`` entry); the
        batch has run when this returns.  See ``mcp_client.client._bridge`` and
        :mod:`mcp_client.batch`; :func:`~mcp_client.provider.chat_messages`
        makes the entries the tool messages a Chat Completions request carries.

        Raises:
            MCPClientError: ``calls`` is not a list.
        """
        return self._bridge.execute_tool_calls(calls)

    def tool_annotations(self, name: str) -> ToolAnnotations | None:
        """What the server said about one tool (its ``annotations``), or None."""
        return cast("ToolAnnotations | None", self._bridge.tool_annotations(name))

    def cancel_tool_calls(self, ids: Iterable[Any]) -> int:
        """Cancel the calls of running :meth:`execute_tool_calls` batches with these ids.

        From any thread: a call in flight is given up as any abandoned request
        is (``notifications/cancelled``; over Streamable HTTP its connection is
        closed) and a task it made is cancelled; one not sent yet is not sent.
        Each one's entry says it was cancelled (:mod:`mcp_client.provider`).

        Returns:
            How many calls it cancelled; 0 when none runs under these ids.

        Raises:
            MCPClientError: ``ids`` is not an iterable of call ids.
        """
        if "_bridge" not in self.__dict__:   # no batch ever ran
            from ..provider import call_ids

            call_ids(ids)   # refuses what is no list of ids
            return 0
        return self._bridge.cancel_tool_calls(ids)

    @functools.cached_property
    def _bridge(self) -> Bridge:
        """The LLM bridge over this client's connection, tasks and catalogue, made on first use."""
        from ._llm import bridge_for

        return bridge_for(self._connection, self._tasks, self, self._outputs, self._opts)

    # -- shutting down -------------------------------------------------------------

    def close(self) -> None:
        """Close the connection; idempotent, and safe after the server died.

        The transport closes (stdio: stdin closed, the child given
        ``kill_grace`` seconds, then SIGTERM, then SIGKILL), outstanding calls
        fail with :class:`TransportClosed`, and the notification stream
        finishes.  A hook (``on_elicit``, ``on_sample``, ...) still running is
        given half a second, then left to finish on its own: whatever it
        returns is dropped, and a call waiting on it fails with
        :class:`TransportClosed` once it returns.  A :meth:`call_tool_task`
        handle still polling fails with :class:`TransportClosed` at once (its
        task is left to the server: no ``tasks/cancel`` is sent).
        """
        self._tasks.stop()
        self._connection.close()

    def _warn(self, text: str) -> None:
        warn_through(self._on_warn_hook, text, log)


def _log_in_first(url: str, auth: Any) -> None:
    """Let an ``auth=`` that logs people in do it now, before the first request.

    The first request is the era probe, bounded by ``probe_timeout``: a
    budget for a server's answer, not for a person at a browser.  An
    :mod:`mcp_client.auth` object offers ``login_if_asked(url)``, which
    authorizes only when the server asks and no usable token is kept (and is
    quiet about a server it cannot reach: the first request reports that).
    """
    login = getattr(auth, "login_if_asked", None)
    if callable(login):
        login(url)


def _split(options: dict[str, Any], verb: str, own: Any, other: Any, wire: str,
           **defaults: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """``options`` as (the transport's, the client's checked ones), for ``verb``."""
    transport_options, rest = split_options(options, own, other, wire)
    if "transport" in rest:
        raise MCPClientError(f"{verb} builds its own transport; pass transport= "
                             "to Client(...) instead")
    for key, value in defaults.items():
        rest.setdefault(key, value)
    check_client_options(rest)
    return transport_options, rest


def _capabilities(opts: Mapping[str, Any]) -> dict[str, Any]:
    """The capabilities a client with these options declares (derived from its hooks)."""
    override = opts["client_capabilities"]
    if override is not None:
        return {key: value for key, value in dict(override).items()}
    caps: dict[str, Any] = {}
    hooks = (("form", "on_elicit"), ("url", "on_elicit_url"))
    modes: dict[str, Any] = {mode: {} for mode, hook in hooks if opts[hook] is not None}
    if modes:
        caps["elicitation"] = modes
    if opts["on_sample"] is not None:   # with tools: 2025-11-25 client/sampling, SEP-1577
        caps["sampling"] = {"tools": {}} if opts["sampling_tools"] else {}
    if opts["on_list_roots"] is not None:
        caps["roots"] = {}
    # This client loads skills (._skills); the declaration tells a server so
    # (SEP-2133 negotiation; SEP-2640 defines no client-side settings).
    caps["extensions"] = {SKILLS_EXTENSION: {}}
    if opts["apps"]:   # MCP Apps: the one content type this client hands a host page
        caps["extensions"][APPS_EXTENSION] = {"mimeTypes": [APPS_MIME_TYPE]}
    if opts["tasks"]:
        caps = with_tasks(caps)
    return caps
