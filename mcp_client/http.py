"""The Streamable HTTP transport, in both eras: every message its own POST.

This module owns the HTTP side of the wire (2026-07-28 basic/transports;
Streamable HTTP): one ``POST`` per JSON-RPC message to one endpoint, the
headers that mirror the body for gateways, cancellation by closing the
response, and the worker threads that do it all.  Its parts live in
:mod:`mcp_client._http`: ``poster`` sends (the direct path or requests',
redirects, the pool), ``posts`` reads a POST's answer as
``application/json`` or as a ``text/event-stream`` through the ``answers``
reader (:mod:`mcp_client.sse`, :func:`mcp_client.protocol.decode_message`),
and ``failures`` says every requests/urllib3 failure as a
:class:`~mcp_client.exceptions.TransportError`.  Once an ``initialize``
succeeds, the connection is a 2025-11-25 session, whose additions --
``Mcp-Session-Id``, the GET stream, resuming, DELETE --
``mcp_client._http.session`` owns.  It must not know about results or the
``x-mcp-header`` catalogue: the client passes ``Mcp-Param-*`` headers per
message (:mod:`mcp_client.xheaders`).  ``requests`` and ``urllib3`` are
imported when the transport starts, never by ``import mcp_client``.

Threads: :meth:`HTTPTransport.send` returns at once; each message is posted
by a worker thread of its own (``mcp-http-request-<id>``, or ``mcp-http-post-<n>``
for a message that is not a request; a worker that finished waits idle for a
next message, :mod:`mcp_client._http.workers`), which reads the whole answer and calls
``on_message`` for each message on the response stream, then for the
response -- so notifications reach the client before the answer they belong
to.  Callbacks therefore run on several threads at once (one per request in
flight); the messages of one response keep their order.  Workers are tracked
and joined by :meth:`HTTPTransport.close`.  (``notifications/initialized``
is posted on the caller's thread: nothing may overtake it.)

A blocking call (no ``cancelled=``) spares both thread hand-offs: the client
sends its request with :meth:`HTTPTransport.send_led` and then calls
:meth:`HTTPTransport.lead` on the same thread, which posts it and reads the
whole answer there, dispatching every message on the stream as a worker
would; the call's timeout is each socket read's timeout, and once it passes
the exchange is dropped (its connection closed: the 2026-07-28 cancellation)
and the caller raises its ``Timeout``.

What HTTP has instead of a wire that dies: nothing.  There is no long-lived
connection to lose, so ``on_close`` is never called and
:class:`~mcp_client.exceptions.ServerGone` never raised; every failure
belongs to one request, reported through ``on_error(id,``
:class:`~mcp_client.exceptions.TransportError` ``)``, and the next request is
tried afresh.  A ``TransportError`` whose ``status`` is None means no HTTP
answer was read; one with a status carries the start of the body and the
response's headers.

Decisions:

* a JSON-RPC error in an ``application/json`` body is delivered as that
  error whatever the status (2026-07-28 basic/transports) and whatever id it names;
  any other non-2xx answer is a ``TransportError``;
* on a stream, only ``message`` events are read; a server *request* is
  delivered in a 2025-11-25 session and skipped with a warning otherwise
  (2026-07-28 HTTP has none); the answer ends the exchange; a stream that
  ends without it fails the request, unless a session can resume it;
* redirects: only 307/308 to the same origin (scheme, host, port, as
  requests and urllib3 connect to it: :mod:`mcp_client._origin`) are
  followed, at most ``max_redirects`` times; any other -- and a
  ``Location`` with a backslash, whitespace or userinfo in its authority --
  is an error naming where it pointed and the rule, because following a
  POST elsewhere would leak the request and its credentials;
* :meth:`HTTPTransport.cancel` closes that request's connection -- while
  connecting, while waiting for the status line, or mid-stream -- and the
  connection never returns to the pool (2026-07-28 cancellation);
* a URL is shown -- in ``repr()``, messages and log records -- with its
  userinfo and query values hidden (:mod:`mcp_client._redact`); it is sent
  as given;
* an ``Authorization`` header the caller set (on the transport or on one
  message) is sent as given: ``~/.netrc`` credentials fill in only when
  neither a header, ``auth=`` nor a ``user:password@`` in the URL did;
* ``connect_timeout`` bounds connecting only; the whole exchange is bounded
  by the client's ``request_timeout``/``timeout=``, which cancels;
* an ``application/json`` body, like one SSE event, may hold at most
  ``max_event_bytes`` (16 MiB) bytes.
"""

from __future__ import annotations

import functools
import itertools
import json
import logging
import threading
import time
from types import ModuleType
from typing import TYPE_CHECKING, Any, Callable, Mapping

from ._redact import redact_text, redact_url
from .exceptions import MCPClientError, TransportClosed, TransportError
from .protocol import META_PROTOCOL_VERSION
from .sse import DEFAULT_MAX_EVENT_BYTES
from .transport import CloseCallback, ErrorCallback, MessageCallback, Transport, WarnCallback
from .xheaders import encode_value
from ._log import WireTrace, warn_through, wire_trace
from ._http.answers import Reader
from ._http.checks import OWNED_HEADERS, check_header as _check_header, check_settings
from ._http.failures import Failures
from ._http.posts import Exchange
from ._http.poster import Poster
from ._http.workers import Workers

if TYPE_CHECKING:
    import requests

__all__ = ["HTTPTransport", "DEFAULT_CONNECT_TIMEOUT", "OWNED_HEADERS", "POOL_SIZE"]

log = logging.getLogger(__name__)

#: :mod:`mcp_client._http.wire`, which imports requests: loaded by the first transport
#: that starts, not by ``import mcp_client``, and kept here so that no POST pays for an
#: import statement.
_wire = ModuleType("mcp_client._http.wire (not loaded yet)")
_ENCODE = json.JSONEncoder(separators=(",", ":"), allow_nan=False, ensure_ascii=False).encode


def _load() -> None:
    global _wire
    from ._http import wire

    _wire = wire


#: Seconds allowed for connecting (a bound on a dead host, not a spec value).
DEFAULT_CONNECT_TIMEOUT = 10.0
#: Idle keep-alive connections kept per host, and idle workers kept to post on them: a
#: burst of this many calls in flight finds a connection and a thread for each the next
#: time, instead of connecting and starting a thread per POST (a bound of ours; a
#: connection exists only once a burst needed it).
POOL_SIZE = 128
#: ``params`` member mirrored into ``Mcp-Name`` (2026-07-28 basic/transports; the
#: ``tasks/*`` requests route by ``taskId``, SEP-2663 "Streamable HTTP: Routing Headers").
_NAME_FIELDS = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri",
                "tasks/get": "taskId", "tasks/update": "taskId", "tasks/cancel": "taskId"}
_ACCEPT = "application/json, text/event-stream"
#: Timed-out led requests remembered for a cancel() that may follow (a bound of ours).
_LAPSED_KEPT = 64


class HTTPTransport(Transport):
    """Talks to one MCP endpoint over 2026-07-28 Streamable HTTP.

    Args:
        url: the endpoint, e.g. ``https://tools.example.com/mcp``.
        headers: sent on every POST (``Authorization``, ...); the protocol's
            own headers (:data:`OWNED_HEADERS`, ``Mcp-Param-*``) are refused.
        persistent: keep connections alive between requests (a
            ``requests.Session`` pool that keeps up to :data:`POOL_SIZE`
            idle per host); False opens a connection per POST.
        connect_timeout: seconds allowed for connecting.
        auth: a ``requests.auth.AuthBase`` (or any callable taking and
            returning a ``PreparedRequest``, or a ``(user, password)`` pair),
            applied to every POST -- OAuth and friends plug in here.
        max_event_bytes: the largest JSON body or SSE event accepted.
        max_redirects: how many same-origin 307/308 hops one POST may take.

    Raises:
        MCPClientError: a bad URL, header or value.
    """

    supports_handshake = True
    wants_tool_headers = True     # until an initialize succeeds: then False (2025-11-25)
    cancel_is_hangup = True

    def __init__(self, url: str, *, headers: Mapping[str, str] | None = None,
                 persistent: bool = True, connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
                 auth: Any = None, max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
                 max_redirects: int = 5) -> None:
        check_settings(url, headers=headers, connect_timeout=connect_timeout, auth=auth,
                       max_event_bytes=max_event_bytes, max_redirects=max_redirects)
        self.url = url
        self._shown = redact_url(url)
        self._headers = dict(headers or {})
        self._persistent = bool(persistent)
        self._connect_timeout = float(connect_timeout)
        self._auth = auth
        self._max_event = max_event_bytes
        self._lock = threading.Lock()
        self._state = "new"
        self._serials = itertools.count(1)
        self._inflight: dict[int, Exchange] = {}
        self._by_id: dict[Any, Exchange] = {}
        self._version: str | None = None
        self._on_message: MessageCallback | None = None
        self._on_warn: WarnCallback | None = None
        self._on_error: ErrorCallback | None = None
        self._trace: WireTrace | None = None   # set by start(): see mcp_client._log
        self._reader = Reader(Failures(url, self._connect_timeout),
                              max_event_bytes=max_event_bytes, warn=self._warn,
                              deliver=self._deliver)
        self._poster = Poster(url, headers=self._headers, persistent=self._persistent,
                              auth=auth, connect_timeout=self._connect_timeout,
                              max_redirects=max_redirects, pool_size=POOL_SIZE,
                              reader=self._reader, headers_of=self._wire_headers,
                              on_session=self._no_tool_headers)
        self._legacy = self._poster.legacy
        self._workers = Workers(max_idle=POOL_SIZE)
        self._parked = threading.local()   # .job: a request send_led() left for lead()
        self._lapsed: dict[Any, str] = {}   # id -> method: led requests that timed out

    # -- state ---------------------------------------------------------------------

    def __repr__(self) -> str:
        session = f" session={self.session_id}" if self.session_id else ""
        return (f"<HTTPTransport {self._shown} {self._state}{session} "
                f"in_flight={len(self._inflight)}>")

    def sse_fallback(self) -> Transport:
        """An unstarted 2024-11-05 HTTP+SSE transport for the same URL and settings."""
        from .http_sse import SSETransport

        return SSETransport(self.url, headers=self._headers, persistent=self._persistent,
                            connect_timeout=self._connect_timeout, auth=self._auth,
                            max_event_bytes=self._max_event)

    @property
    def session_id(self) -> str | None:
        """The legacy Streamable HTTP session's ``Mcp-Session-Id`` (None: no session)."""
        return self._legacy.session_id

    @property
    def closed(self) -> bool:
        return self._state == "closed"

    def start(self, on_message: MessageCallback, on_close: CloseCallback,
              on_warn: WarnCallback, on_error: ErrorCallback | None = None) -> None:
        with self._lock:
            if self._state != "new":
                raise MCPClientError(f"cannot start a transport that is {self._state}")
            self._on_message, self._on_warn, self._on_error = on_message, on_warn, on_error
            _load()
            self._trace = wire_trace(f"http {self._shown}")
            self._reader.start(self._trace)
            self._poster.start(self._trace)
            self._state = "open"

    @property
    def _session(self) -> requests.Session | None:
        """The persistent pool (None: not persistent, or not started)."""
        return self._poster.pool

    def _no_tool_headers(self) -> None:
        self.wants_tool_headers = False   # a 2025-11-25 session: x-mcp-header is 2026-07-28 only

    # -- sending -------------------------------------------------------------------

    def send(self, message: dict[str, Any], *, headers: Mapping[str, str] | None = None) -> None:
        self._post(message, headers, led=False)

    def send_led(self, message: dict[str, Any], *,
                 headers: Mapping[str, str] | None = None) -> None:
        """Leave a request for :meth:`lead`, which posts it on this thread (see the module)."""
        self._post(message, headers, led=True)

    def _post(self, message: dict[str, Any], headers: Mapping[str, str] | None, *,
              led: bool) -> None:
        self._unpark()   # a request left and never led goes to a worker, as send() would
        try:
            body = _ENCODE(message).encode("utf-8")
        except (TypeError, ValueError, RecursionError) as exc:   # not JSON, or too deep
            raise MCPClientError(f"cannot encode the message as JSON: {exc}") from exc
        wire_headers = self._wire_headers(message, headers)
        method = message.get("method")
        is_request = isinstance(method, str) and "id" in message
        if method == "initialize":
            self._legacy.note_initialize(message.get("params"))
        # 2025-11-25 lifecycle: nothing may overtake the initialized notification
        # (SDK servers refuse requests that arrive before it), so it is posted here.
        inline = method == "notifications/initialized"
        led = led and is_request and not inline
        with self._lock:
            self._check_open()
            serial = next(self._serials)
            exchange = Exchange(serial, message["id"] if is_request else None,
                                method if isinstance(method, str) else "(response)",
                                _wire.Handle())
            self._inflight[serial] = exchange
            if is_request:
                self._by_id[exchange.ident] = exchange
            if led:
                self._parked.job = (exchange, body, wire_headers)
            elif not inline:
                name = f"mcp-http-request-{exchange.ident}" if is_request \
                    else f"mcp-http-post-{serial}"
                self._workers.submit(name, functools.partial(self._run, exchange, body,
                                                             wire_headers))
        if inline:
            self._run(exchange, body, wire_headers)

    def _unpark(self) -> None:
        job = getattr(self._parked, "job", None)
        if job is not None:
            self._parked.job = None
            exchange = job[0]
            with self._lock:
                self._workers.submit(f"mcp-http-request-{exchange.ident}",
                                     functools.partial(self._run, *job))

    def lead(self, done: Callable[[], bool], timeout: float | None,
             waiting: Callable[[], int],
             first: Callable[[], None] | None = None) -> float | None:
        """Post the request :meth:`send_led` left, and read its answer, on this thread.

        ``timeout`` bounds the exchange: it is each socket read's timeout,
        and once it passes the exchange is dropped (its connection closed,
        never pooled) and 0.0 returned, without an error: the caller's own
        timeout handling follows.
        """
        if first is not None:
            first()
        job = getattr(self._parked, "job", None)
        if job is None:
            return timeout
        self._parked.job = None
        exchange: Exchange = job[0]
        if done():   # failed before it was posted (the transport closed)
            exchange.handle.abort()
        deadline = None if timeout is None else time.monotonic() + timeout
        exchange.deadline = deadline
        self._run(*job)
        if exchange.lapsed:
            return 0.0
        return None if deadline is None else max(0.0, deadline - time.monotonic())

    def _check_open(self) -> None:
        if self._state == "closed":
            raise TransportClosed()
        if self._state == "new":
            raise TransportClosed("the transport was never started")

    def _wire_headers(self, message: Mapping[str, Any],
                      extra: Mapping[str, str] | None) -> dict[str, str]:
        """The headers of one POST (2026-07-28 basic/transports)."""
        params = message.get("params")
        params = params if isinstance(params, Mapping) else {}
        meta = params.get("_meta")
        version = meta.get(META_PROTOCOL_VERSION) if isinstance(meta, Mapping) else None
        if isinstance(version, str):
            self._version = version
        else:
            version = self._version   # a notification carries no envelope
        out = {"Content-Type": "application/json", "Accept": _ACCEPT}
        if version:
            out["MCP-Protocol-Version"] = version
        method = message.get("method")
        if isinstance(method, str):
            out["Mcp-Method"] = encode_value(method)
            name = params.get(_NAME_FIELDS.get(method, ""))
            if isinstance(name, str):
                out["Mcp-Name"] = encode_value(name)
        out.update(self._headers)
        for key, value in (extra or {}).items():
            _check_header(key, value, allow_params=True)
            out[key] = value
        if not self._persistent:
            out["Connection"] = "close"
        return out

    def cancel(self, ident: int | str, reason: str) -> None:
        """Close request ``ident``'s connection: the 2026-07-28 HTTP cancellation (never raises).

        In the handshake era a disconnection is not a cancellation (2025-11-25
        basic/transports), so a ``notifications/cancelled`` is posted first --
        never for ``initialize`` (2025-11-25 lifecycle).
        """
        with self._lock:
            exchange = self._by_id.get(ident)
            lapsed = self._lapsed.pop(ident, None) if exchange is None else None
        if exchange is None:
            if lapsed is not None and self._legacy.active and lapsed != "initialize":
                Transport.cancel(self, ident, reason)   # its connection is closed already
            return
        log.debug("cancelling %s request %r: %s", exchange.method, ident, reason)
        if self._legacy.active and exchange.method != "initialize":
            Transport.cancel(self, ident, reason)
        exchange.handle.abort()

    # -- the worker ----------------------------------------------------------------

    def _run(self, exchange: Exchange, body: bytes, headers: dict[str, str]) -> None:
        try:
            with _wire.active(exchange.handle):
                self._poster.exchange(exchange, body, headers)
        except MCPClientError as exc:   # ours, or an auth= object's (mcp_client.auth.AuthError)
            if self._lapse(exchange):
                return
            if not exchange.handle.aborted:
                self._fail(exchange, exc)
        except Exception as exc:  # a worker never dies without a word
            if not exchange.handle.aborted:
                self._fail(exchange, TransportError(
                    f"{exchange.method}: the HTTP exchange failed unexpectedly: "
                    f"{redact_text(repr(exc), self.url)}"))
        finally:
            exchange.handle.finish()
            with self._lock:
                self._inflight.pop(exchange.serial, None)
                if self._by_id.get(exchange.ident) is exchange:
                    del self._by_id[exchange.ident]

    def _lapse(self, exchange: Exchange) -> bool:
        """Whether a failed exchange failed because its caller's timeout passed.

        Then its caller reports the timeout (and, in the handshake era, asks
        for :meth:`cancel`, which still knows the request).
        """
        if exchange.deadline is None or time.monotonic() < exchange.deadline:
            return False
        exchange.lapsed = True
        with self._lock:
            self._lapsed[exchange.ident] = exchange.method
            while len(self._lapsed) > _LAPSED_KEPT:
                del self._lapsed[next(iter(self._lapsed))]
        return True

    # -- callbacks -----------------------------------------------------------------

    def _deliver(self, message: dict[str, Any]) -> None:
        self._call(self._on_message, message, what="message handler")

    def _fail(self, exchange: Exchange, exc: MCPClientError) -> None:
        if exchange.ident is None or self._on_error is None:
            self._warn(str(exc))
            return
        try:
            self._on_error(exchange.ident, exc)
        except Exception as problem:
            self._warn(f"error handler raised {problem!r}")

    def _call(self, callback: Callable[[Any], None] | None, argument: Any, *, what: str) -> None:
        if callback is None:
            return
        try:
            callback(argument)
        except Exception as exc:  # never let a callback kill a worker
            self._warn(f"{what} raised {exc!r}")

    def _warn(self, text: str) -> None:
        warn_through(self._on_warn, text, log)

    # -- shutting down -------------------------------------------------------------

    def close(self) -> None:
        """Abort every exchange in flight, join the workers, close the session (idempotent).

        ``on_close`` is not called: the client asked for this.
        """
        with self._lock:
            if self._state == "closed":
                return
            self._state = "closed"
            exchanges = list(self._inflight.values())
        for exchange in exchanges:
            exchange.handle.abort()
        self._legacy.stop(self._connect_timeout + 5)
        self._workers.stop(self._connect_timeout + 5)
        self._poster.close()   # and, in a 2025-11-25 session, DELETE
        log.debug("closed %s", self)
