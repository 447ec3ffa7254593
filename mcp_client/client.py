"""The client: one connection to one MCP server, whichever era it speaks.

:class:`Client` owns the connection's lifetime, the era (decided by
:mod:`mcp_client.era` on the first call that needs it), the typed blocking API
and its ``*_async`` twins.  It does not own the wire (a
:class:`~mcp_client.transport.Transport` does), the message shapes
(:mod:`mcp_client.protocol`) or the pending-request table
(:mod:`mcp_client.correlator`).

Threads: the transport's reader thread delivers every inbound message to
:meth:`Client._on_message`, which completes futures, publishes notifications
and hands server requests to a worker.  A blocking method waits on its
future in the caller's thread; ``*_async`` methods run the blocking method on
the client's :class:`~concurrent.futures.ThreadPoolExecutor`.

Decisions beyond the seed (see also API.md):

* cancellation and timeouts send ``notifications/cancelled`` on stdio
  (PROTOCOL S3/S4) -- never for the probe or ``initialize``;
* an error response whose id is ``null`` (a parse error) is given to the one
  outstanding request when exactly one is outstanding, else reported;
* with a pinned modern ``era`` (or when the probe was answered ``-32021``)
  there is no DiscoverResult: reading ``server_info``, ``capabilities`` or
  ``instructions`` sends one ``server/discover`` at the agreed version to fill
  them in (S14), and every modern result's ``_meta`` serverInfo is used when
  none is known yet.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any, Callable, Mapping, TypeVar

from . import protocol
from ._options import HTTP_OPTIONS, STDIO_OPTIONS, check_client_options, split_options
from ._version import __version__
from ._async import AsyncTwins
from .correlator import Correlator, Pending
from .era import EraInfo, Negotiator
from .exceptions import Cancelled, MCPClientError, ProtocolError, Timeout, TransportClosed
from .protocol import Kind
from .stream import Stream
from .transport import Transport

__all__ = ["Client"]

log = logging.getLogger(__name__)

#: How often a call waiting with ``cancelled=`` looks at it, in seconds.
_CANCEL_POLL = 0.02
#: A bound on pages per list call, against servers whose cursors never end.
MAX_PAGES = 1000
#: Worker threads for ``*_async`` calls (created on demand).
ASYNC_WORKERS = 64

R = TypeVar("R")


def _is_cancelled(signal: Any) -> bool:
    return bool(signal.is_set()) if isinstance(signal, threading.Event) else bool(signal.done())


def _check_cancel_signal(signal: Any) -> None:
    if signal is not None and not isinstance(signal, (threading.Event, Future)):
        raise MCPClientError("cancelled must be a threading.Event or a concurrent.futures.Future,"
                             f" not {type(signal).__name__}")


class Client(AsyncTwins):
    """A connection to one MCP server.

    Build one with :meth:`connect_stdio` (a child process), or
    ``Client(transport=...)`` for a transport of your own (test doubles such
    as :class:`mcp_client.testing.FakeTransport`).  Use it in a ``with`` block,
    or call :meth:`close`.

    Args:
        transport: the wire; started by the constructor.
        **options: the client options of API.md (``client_name``,
            ``protocol_versions``, ``request_timeout``, ``probe_timeout``,
            ``era``, the ``on_*`` hooks, ...).  Transport options are refused
            here: there is nothing left for them to configure.

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
        self._transport = transport
        self._on_warn_hook: Callable[[str], None] | None = self._opts["on_warn"]
        self._client_info = {"name": self._opts["client_name"],
                             "version": self._opts["client_version"] or __version__}
        self._declared = self._derive_capabilities()
        self._correlator = Correlator(on_warn=self._warn)
        self._notifications: Stream[dict[str, Any]] = Stream(on_warn=self._warn)
        self._state_lock = threading.Lock()
        self._probe_lock = threading.Lock()
        self._state = "open"
        self._dead: MCPClientError | None = None
        self._era_info: EraInfo | None = None
        self._probe_attempts = 0
        self._probe_error: MCPClientError | None = None
        self._discover_tried = False
        self._executor: ThreadPoolExecutor | None = None
        self._workers: ThreadPoolExecutor | None = None
        transport.start(self._on_message, self._on_transport_close, self._warn,
                        self._on_request_error)

    # -- construction ------------------------------------------------------------

    @classmethod
    def connect_stdio(cls, command: str, **options: Any) -> Client:
        """Start ``command`` as a child process and connect to it over stdio.

        Args:
            command: the program (no shell is involved).
            **options: client options, plus the stdio options ``args``, ``env``,
                ``cwd``, ``inherit_env``, ``on_stderr``, ``kill_grace``,
                ``stderr_lines`` and ``max_line_bytes``.

        Raises:
            SpawnFailed: the command could not be started (or has a NUL byte).
            MCPClientError: an unknown option or a bad value.
        """
        from .stdio import StdioTransport

        stdio_options, rest = split_options(options, STDIO_OPTIONS, HTTP_OPTIONS, "stdio")
        if "transport" in rest:
            raise MCPClientError("connect_stdio builds its own transport; pass transport= "
                                 "to Client(...) instead")
        check_client_options(rest)
        transport = StdioTransport(command, **stdio_options)
        try:
            return cls(transport=transport, **rest)
        except BaseException:
            transport.close()
            raise

    def _derive_capabilities(self) -> dict[str, Any]:
        override = self._opts["client_capabilities"]
        if override is not None:
            return {key: value for key, value in dict(override).items()}
        caps: dict[str, Any] = {}
        if self._opts["on_elicit"] is not None:
            caps["elicitation"] = {"form": {}}
        if self._opts["on_sample"] is not None:
            caps["sampling"] = {}
        if self._opts["on_list_roots"] is not None:
            caps["roots"] = {}
        return caps

    # -- state ---------------------------------------------------------------------

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        info = self._era_info
        era = f"{info.era} {info.version}" if info else "unprobed"
        state = self._state if self._dead is None or self._state == "closed" else "dead"
        return (f"<Client era={era} {state} pending={len(self._correlator)} "
                f"transport={self._transport!r}>")

    @property
    def transport(self) -> Transport:
        """The wire this client talks over."""
        return self._transport

    @property
    def closed(self) -> bool:
        """True once :meth:`close` was called."""
        return self._state == "closed"

    @property
    def era(self) -> str:
        """``"modern"`` or ``"legacy"``; forces the probe."""
        return self._ensure_era().era

    @property
    def protocol_version(self) -> str:
        """The negotiated version (``2026-07-28``, or a handshake version)."""
        return self._ensure_era().version

    @property
    def supported_versions(self) -> tuple[str, ...]:
        """Every version the server named (empty for a legacy server)."""
        self._ensure_era()
        return self._discovered().supported

    @property
    def server_info(self) -> dict[str, Any]:
        """The server's ``{"name", "version", ...}`` (empty if it sent none)."""
        self._ensure_era()
        return dict(self._discovered().server_info)

    @property
    def capabilities(self) -> dict[str, Any]:
        """The server's capabilities."""
        self._ensure_era()
        return dict(self._discovered().capabilities)

    @property
    def instructions(self) -> str | None:
        """The server's advice to a model, or None."""
        self._ensure_era()
        return self._discovered().instructions

    @property
    def declared_capabilities(self) -> dict[str, Any]:
        """The capabilities this client declares, derived from its hooks."""
        return dict(self._declared)

    @property
    def notifications(self) -> Stream[dict[str, Any]]:
        """Every notification the server sends, from subscription on."""
        return self._notifications

    # -- the era -----------------------------------------------------------------

    def _ensure_era(self) -> EraInfo:
        info = self._era_info
        if info is not None:
            return info
        attempt = self._probe_attempts
        with self._probe_lock:
            if self._era_info is not None:
                return self._era_info
            if self._probe_attempts != attempt and self._probe_error is not None:
                raise self._probe_error  # the attempt we queued behind failed
            self._probe_attempts += 1
            self._probe_error = None
            try:
                self._era_info = self._negotiator().run()
            except MCPClientError as exc:
                self._probe_error = exc
                raise
            log.debug("%r negotiated", self)
            return self._era_info

    def _negotiator(self) -> Negotiator:
        def exchange(method: str, params: dict[str, Any], meta: dict[str, Any] | None,
                     timeout: float) -> dict[str, Any]:
            return self._exchange(method, params, meta, timeout or None, notify_cancel=False)

        return Negotiator(exchange=exchange, notify=self._notify, restart=self._restart,
                          versions=self._opts["protocol_versions"], mode=self._opts["era"],
                          client_info=self._client_info, capabilities=self._declared,
                          probe_timeout=self._opts["probe_timeout"],
                          handshake_timeout=self._opts["request_timeout"],
                          handshake=self._transport.supports_handshake)

    def _restart(self) -> bool:
        if self._state == "closed" or not self._transport.can_restart:
            return False
        self._warn("the server exited during the era probe; restarting it for the handshake")
        self._transport.restart()
        self._dead = None
        return True

    def _discovered(self) -> EraInfo:
        """The era info, with a discover sent once if it never was (S14)."""
        info = self._era_info
        assert info is not None
        if info.era != "modern" or info.discovered or self._discover_tried:
            return info
        self._discover_tried = True
        meta = self._meta(info, None)
        try:
            answer = self._exchange("server/discover", {}, meta, self._opts["probe_timeout"],
                                    notify_cancel=False)
        except MCPClientError:
            return info
        result = answer.get("result")
        if isinstance(result, dict):
            if not info.server_info:
                found = protocol.shape_result("server/discover", result).server_info
                info.server_info = dict(found or result.get("serverInfo") or {})
            supported = protocol.discover_versions(result)
            info.supported = tuple(supported or info.supported)
            caps, instructions = result.get("capabilities"), result.get("instructions")
            info.capabilities = dict(caps) if isinstance(caps, dict) else info.capabilities
            info.instructions = instructions if isinstance(instructions, str) else None
            info.discovered = True
        return info

    def _meta(self, info: EraInfo, progress_token: str | int | None) -> dict[str, Any] | None:
        if info.era == "modern":
            return protocol.envelope(info.version, client_info=self._client_info,
                                     capabilities=self._declared,
                                     log_level=self._opts["log_level"],
                                     progress_token=progress_token)
        return {"progressToken": progress_token} if progress_token is not None else None

    # -- one request ---------------------------------------------------------------

    def _check_usable(self) -> None:
        if self._state == "closed":
            raise TransportClosed()
        if self._dead is not None:
            raise self._dead

    def _budget(self, timeout: float | None) -> float | None:
        if timeout is None:
            timeout = self._opts["request_timeout"]
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or \
                timeout != timeout or timeout < 0:
            raise MCPClientError(f"timeout must be a number >= 0, not {timeout!r}")
        return float(timeout) or None

    def _exchange(self, method: str, params: Mapping[str, Any], meta: dict[str, Any] | None,
                  timeout: float | None, *, cancelled: Any = None,
                  notify_cancel: bool = True) -> dict[str, Any]:
        """Send one request and wait for its answer message (result or error)."""
        self._check_usable()
        pending = self._correlator.register(method)
        message = protocol.request(pending.ident, method, params, meta=meta)
        try:
            self._transport.send(message)
        except BaseException:
            self._correlator.abandon(pending.ident)
            raise
        dead = self._dead if self._state != "closed" else TransportClosed()
        if dead is not None:  # the wire died between the check and the send
            self._correlator.fail(pending.ident, dead)
        return self._await(pending, timeout, cancelled, notify_cancel)

    def _await(self, pending: Pending, timeout: float | None, cancelled: Any,
               notify_cancel: bool) -> dict[str, Any]:
        future = pending.future
        try:
            if cancelled is None:
                return future.result(timeout)
            deadline = None if timeout is None else time.monotonic() + timeout
            while True:
                if _is_cancelled(cancelled) and not future.done():
                    self._abandon(pending, "cancelled by the caller", notify_cancel)
                    raise Cancelled(pending.method)
                wait = _CANCEL_POLL if deadline is None else \
                    min(_CANCEL_POLL, deadline - time.monotonic())
                if wait <= 0:
                    raise FutureTimeout()
                try:
                    return future.result(wait)
                except FutureTimeout:
                    continue
        except FutureTimeout:
            seconds = timeout or 0.0
            self._abandon(pending, f"timed out after {seconds:g}s", notify_cancel)
            if future.done() and future.exception() is None:
                return future.result()  # the answer won the race
            raise Timeout(pending.method, seconds) from None

    def _abandon(self, pending: Pending, reason: str, notify: bool) -> None:
        if self._correlator.abandon(pending.ident) is not None and notify:
            self._transport.cancel(pending.ident, reason)

    def _notify(self, method: str, params: dict[str, Any] | None) -> None:
        self._check_usable()
        self._transport.send(protocol.notification(method, params))

    def _request(self, method: str, params: Mapping[str, Any], *, timeout: float | None,
                 cancelled: Any, progress_token: str | int | None = None) -> dict[str, Any]:
        """Send a request in the negotiated era and return the caller's view of its result."""
        _check_cancel_signal(cancelled)
        budget = self._budget(timeout)
        info = self._ensure_era()
        answer = self._exchange(method, params, self._meta(info, progress_token), budget,
                                cancelled=cancelled)
        if "error" in answer:
            raise protocol.error_from(answer)
        shaped = protocol.shape_result(method, answer.get("result"))
        if info.era == "modern" and not info.server_info and shaped.server_info:
            info.server_info = dict(shaped.server_info)
        if shaped.result_type != "complete":
            raise ProtocolError(None, f"{method}: the server needs input "
                                "(input_required), which this client cannot give yet",
                                shaped.input_requests)
        return shaped.body

    # -- the typed API -------------------------------------------------------------

    def _list_all(self, method: str, key: str, *, timeout: float | None,
                  cancelled: Any) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = []
        seen: set[str] = set()
        cursor: str | None = None
        for _ in range(MAX_PAGES):
            params = {} if cursor is None else {"cursor": cursor}
            page = self._request(method, params, timeout=timeout, cancelled=cancelled)
            entries = page.get(key, [])
            if not isinstance(entries, list):
                raise ProtocolError(None, f"{method}: {key} is not a list", page)
            items.extend(entries)
            cursor = page.get("nextCursor")
            if cursor is None:
                return items
            if not isinstance(cursor, str):
                raise ProtocolError(None, f"{method}: nextCursor is not a string", cursor)
            if cursor in seen:
                raise ProtocolError(None, f"{method}: the server repeated cursor {cursor!r}")
            seen.add(cursor)
        raise ProtocolError(None, f"{method}: more than {MAX_PAGES} pages; giving up")

    def list_tools(self, *, refresh: bool = False, timeout: float | None = None,
                   cancelled: Any = None) -> list[dict[str, Any]]:
        """Every tool the server offers (all pages).

        Args:
            refresh: bypass the result cache.
            timeout: seconds for each page (None: ``request_timeout``; 0: none).
            cancelled: a ``threading.Event`` or ``Future`` that abandons the call.

        Raises:
            ProtocolError: the server refused, or broke the protocol.
            Timeout, Cancelled, ServerGone, TransportClosed.
        """
        return self._list_all("tools/list", "tools", timeout=timeout, cancelled=cancelled)

    def list_resources(self, *, refresh: bool = False, timeout: float | None = None,
                       cancelled: Any = None) -> list[dict[str, Any]]:
        """Every resource the server offers (all pages); see :meth:`list_tools`."""
        return self._list_all("resources/list", "resources", timeout=timeout,
                              cancelled=cancelled)

    def list_resource_templates(self, *, refresh: bool = False, timeout: float | None = None,
                                cancelled: Any = None) -> list[dict[str, Any]]:
        """Every resource template (all pages); see :meth:`list_tools`."""
        return self._list_all("resources/templates/list", "resourceTemplates",
                              timeout=timeout, cancelled=cancelled)

    def list_prompts(self, *, refresh: bool = False, timeout: float | None = None,
                     cancelled: Any = None) -> list[dict[str, Any]]:
        """Every prompt the server offers (all pages); see :meth:`list_tools`."""
        return self._list_all("prompts/list", "prompts", timeout=timeout, cancelled=cancelled)

    def call_tool(self, name: str, arguments: Mapping[str, Any] | None = None, *,
                  timeout: float | None = None, cancelled: Any = None,
                  progress_token: str | int | None = None) -> dict[str, Any]:
        """Call a tool and return its result.

        A tool that fails reports ``isError`` in a perfectly good result; that
        is returned, not raised.

        Args:
            name: the tool's name.
            arguments: a JSON object (dict); None means none.
            timeout: seconds (None: ``request_timeout``; 0: no budget).
            cancelled: a ``threading.Event`` or ``Future`` that abandons the call.
            progress_token: ask the server for progress under this token; the
                reports arrive on :attr:`notifications`.

        Returns:
            ``{"content": [...], "isError"?: True, "structuredContent"?: ...}``.

        Raises:
            ProtocolError: the server answered with a JSON-RPC error.
            Timeout, Cancelled, ServerGone, TransportClosed, MCPClientError.
        """
        if not isinstance(name, str) or not name:
            raise MCPClientError(f"a tool name must be a non-empty string, not {name!r}")
        params = {"name": name, "arguments": self._arguments(arguments)}
        if progress_token is not None and (isinstance(progress_token, bool) or
                                           not isinstance(progress_token, (str, int))):
            raise MCPClientError("progress_token must be a string or an integer")
        return self._request("tools/call", params, timeout=timeout, cancelled=cancelled,
                             progress_token=progress_token)

    @staticmethod
    def _arguments(arguments: Mapping[str, Any] | None) -> dict[str, Any]:
        if arguments is None:
            return {}
        if not isinstance(arguments, Mapping):
            raise MCPClientError("arguments must be a dict (a JSON object), not "
                                 f"{type(arguments).__name__}")
        return dict(arguments)

    def read_resource(self, uri: str, *, refresh: bool = False, timeout: float | None = None,
                      cancelled: Any = None) -> dict[str, Any]:
        """Read one resource: ``{"contents": [...]}``; see :meth:`call_tool`."""
        if not isinstance(uri, str) or not uri:
            raise MCPClientError(f"a resource URI must be a non-empty string, not {uri!r}")
        return self._request("resources/read", {"uri": uri}, timeout=timeout,
                             cancelled=cancelled)

    def get_prompt(self, name: str, arguments: Mapping[str, Any] | None = None, *,
                   timeout: float | None = None, cancelled: Any = None) -> dict[str, Any]:
        """Render a prompt: ``{"description"?, "messages": [...]}``."""
        if not isinstance(name, str) or not name:
            raise MCPClientError(f"a prompt name must be a non-empty string, not {name!r}")
        return self._request("prompts/get", {"name": name, "arguments": self._arguments(arguments)},
                             timeout=timeout, cancelled=cancelled)

    def ping(self, *, timeout: float | None = None) -> bool:
        """True if the server answered; False if it does not implement ping.

        2026-07-28 removed ``ping``, so a modern server's "method not found" is
        a healthy answer.  The probe runs first (S9): a bare ``ping`` would lock
        a dual-era server into the legacy era.

        Raises:
            ProtocolError: any other error.  Timeout, ServerGone, TransportClosed.
        """
        try:
            self._request("ping", {}, timeout=timeout, cancelled=None)
        except ProtocolError as exc:
            if exc.code == protocol.METHOD_NOT_FOUND:
                return False
            raise
        return True

    # -- the async twins run here -------------------------------------------------

    def _submit(self, fn: Callable[..., R], *args: Any, **kwargs: Any) -> Future[R]:
        self._check_usable()
        with self._state_lock:
            if self._state == "closed":
                raise TransportClosed()
            if self._executor is None:
                self._executor = ThreadPoolExecutor(
                    ASYNC_WORKERS, thread_name_prefix=f"mcp-client-{os.getpid()}")
            return self._executor.submit(fn, *args, **kwargs)

    # -- inbound messages (the transport's reader thread) --------------------------

    def _on_message(self, message: dict[str, Any]) -> None:
        kind = protocol.classify(message)
        if kind is Kind.RESPONSE or kind is Kind.ERROR:
            if message.get("id") is None:
                pending = self._correlator.sole_pending()
                if pending is None or not self._correlator.deliver(pending, message):
                    self._warn(f"dropped an error nobody can be told about: {message!r:.300}")
                return
            self._correlator.resolve(message)
        elif kind is Kind.NOTIFICATION:
            self._notifications.publish(message)
        elif kind is Kind.REQUEST:
            self._on_server_request(message)
        else:
            self._warn(f"skipped a message that is not JSON-RPC 2.0: {message!r:.300}")

    def _on_server_request(self, message: dict[str, Any]) -> None:
        with self._state_lock:
            if self._state == "closed":
                return
            if self._workers is None:
                self._workers = ThreadPoolExecutor(
                    4, thread_name_prefix=f"mcp-client-hooks-{os.getpid()}")
            self._workers.submit(self._answer_server_request, message)

    def _answer_server_request(self, message: dict[str, Any]) -> None:
        ident, method = message["id"], message["method"]
        if method == "ping":
            reply = protocol.response(ident, {})
        else:
            reply = protocol.error_response(ident, protocol.METHOD_NOT_FOUND,
                                            f"Method not found: {method}")
        try:
            self._transport.send(reply)
        except MCPClientError as exc:
            self._warn(f"could not answer the server's {method} request: {exc}")

    def _on_request_error(self, ident: Any, exc: MCPClientError) -> None:
        if not self._correlator.fail(ident, exc):
            self._warn(f"dropped a failure of request {ident!r} nobody awaits: {exc}")

    def _on_transport_close(self, exc: MCPClientError) -> None:
        self._dead = exc
        self._correlator.fail_all(exc)

    # -- shutting down -------------------------------------------------------------

    def close(self) -> None:
        """Close the connection; idempotent, and safe after the server died.

        The transport closes (stdio: stdin closed, the child given
        ``kill_grace`` seconds, then SIGTERM, then SIGKILL), outstanding calls
        fail with :class:`TransportClosed`, and the notification stream
        finishes.
        """
        with self._state_lock:
            if self._state == "closed":
                return
            self._state = "closed"
            pools = [p for p in (self._executor, self._workers) if p is not None]
        closed = TransportClosed()
        self._correlator.fail_all(closed)
        try:
            self._transport.close()
        finally:
            self._correlator.fail_all(closed)
            self._notifications.finish()
            me = threading.current_thread().name
            for pool in pools:
                pool.shutdown(wait=not me.startswith("mcp-client-"))

    def _warn(self, text: str) -> None:
        hook = self._on_warn_hook
        if hook is None:
            log.warning("%s", text)
            return
        try:
            hook(text)
        except Exception:
            log.warning("%s", text)
