"""The Streamable HTTP transport, in both eras: every message its own POST.

This module owns the HTTP side of the wire (2026-07-28 basic/transports;
Streamable HTTP): one ``POST`` per JSON-RPC message to one
endpoint, the headers that mirror the body for gateways, reading the answer
as ``application/json`` or as a ``text/event-stream`` (:mod:`mcp_client.sse`),
status codes and redirects, cancellation by closing the response, and the
worker threads that do all of it.  Once an ``initialize`` succeeds, the
connection is a 2025-11-25 session, whose additions -- ``Mcp-Session-Id``,
the GET stream, resuming, DELETE -- ``mcp_client._http.session`` owns.  It
must not know about results or the ``x-mcp-header`` catalogue: the client
passes ``Mcp-Param-*`` headers per message (:mod:`mcp_client.xheaders`).
``requests`` and ``urllib3`` are imported when the transport starts, never
by ``import mcp_client``.

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
from ._http.checks import OWNED_HEADERS, check_header as _check_header, check_settings, \
    follow as _follow
from ._http.failures import Failures
from ._http.posts import Answers, Exchange
from ._http.session import LegacySession
from ._http.workers import Workers

if TYPE_CHECKING:
    import requests

    from ._http.direct import DirectPool

__all__ = ["HTTPTransport", "DEFAULT_CONNECT_TIMEOUT", "OWNED_HEADERS", "POOL_SIZE"]

log = logging.getLogger(__name__)

#: :mod:`mcp_client._http.wire` and :mod:`mcp_client._http.direct`, which import
#: requests and http.client: loaded by the first transport that starts, not by
#: ``import mcp_client``, and kept here so that no POST pays for an import statement.
_wire = ModuleType("mcp_client._http.wire (not loaded yet)")
_direct = ModuleType("mcp_client._http.direct (not loaded yet)")
_ENCODE = json.JSONEncoder(separators=(",", ":"), allow_nan=False, ensure_ascii=False).encode


def _load() -> None:
    global _wire, _direct
    from ._http import direct, wire

    _wire, _direct = wire, direct


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
        self._max_redirects = max_redirects
        self._lock = threading.Lock()
        self._state = "new"
        self._serials = itertools.count(1)
        self._inflight: dict[int, Exchange] = {}
        self._by_id: dict[Any, Exchange] = {}
        self._session: requests.Session | None = None
        self._direct: DirectPool | None = None   # set by start() when POSTs may go direct
        self._version: str | None = None
        self._on_message: MessageCallback | None = None
        self._on_warn: WarnCallback | None = None
        self._on_error: ErrorCallback | None = None
        self._trace: WireTrace | None = None   # set by start(): see mcp_client._log
        self._failures = Failures(url, self._connect_timeout)
        self._reader = Reader(self._failures, max_event_bytes=max_event_bytes, warn=self._warn,
                              deliver=self._deliver)
        self._legacy = LegacySession(self, self._reader)
        self._answers = Answers(self._reader, self._legacy, shown=self._shown,
                                on_session=self._no_tool_headers)
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
            if self._persistent:
                self._session = self._new_session()
                self._direct = _direct.pool_for(self.url, self._session, size=POOL_SIZE,
                                                trace=self._trace)
            self._state = "open"

    def _new_session(self) -> requests.Session:
        session: requests.Session = _wire.new_session(self.url, pool_size=POOL_SIZE,
                                                      trace=self._trace)
        return session

    @staticmethod
    def _close_session(session: requests.Session) -> None:
        _wire.close_session(session)

    def _no_tool_headers(self) -> None:
        self.wants_tool_headers = False   # a 2025-11-25 session: x-mcp-header is 2026-07-28 only

    # -- what its session asks (mcp_client._http.session.Carrier) -------------------

    def open_pool(self) -> requests.Session:
        """The requests session a long exchange (the GET stream) uses: ours, or a new one."""
        return self._session or self._new_session()

    def close_pool(self, pool: requests.Session) -> None:
        """Done with a pool :meth:`open_pool` gave: a new one is closed."""
        if pool is not self._session:
            self._close_session(pool)

    def request(self, pool: requests.Session, verb: str, what: str,
                headers: Mapping[str, str], *,
                read_timeout: float | None = None) -> requests.Response:
        """``verb`` (GET, DELETE) the endpoint: our headers, then ``headers``, no body.

        Raises:
            TransportError: no HTTP answer.
        """
        out = {**self._headers, **headers}
        if not self._persistent:
            out["Connection"] = "close"
        return self._http(pool, verb, what, self.url, None, out, read_timeout=read_timeout)

    def post_own(self, message: dict[str, Any], *, pool: requests.Session,
                 handle: Any) -> dict[str, Any] | None:
        """POST a message of its session's own (a new session's handshake) and read the answer.

        Returns:
            the answer, kept rather than delivered (None: a notification).
        """
        method = message["method"]
        exchange = Exchange(0, message.get("id"), method, handle)
        exchange.pool, exchange.sink = pool, []
        wire, _ = self._legacy.stamp(self._wire_headers(message, None), method)
        self._post_and_read(exchange, _ENCODE(message).encode("utf-8"), wire, expire=False)
        return exchange.sink[0] if exchange.sink else None

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
                self._exchange(exchange, body, headers)
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

    def _exchange(self, exchange: Exchange, body: bytes, headers: dict[str, str]) -> None:
        session = self._session or self._new_session()
        exchange.pool = session
        try:
            for retried in (False, True):
                wire, sent = self._legacy.stamp(headers, exchange.method)
                if not self._post_and_read(exchange, body, wire, expire=bool(sent) and not retried):
                    return
                # 2025-11-25 session management: a 404 to a request that carried the
                # session id means the session is gone; the request was never processed.
                assert sent is not None
                self._legacy.renew(session, sent, exchange.handle)
        finally:
            if session is not self._session:
                self._close_session(session)

    def _post_and_read(self, exchange: Exchange, body: bytes, headers: dict[str, str], *,
                       expire: bool) -> bool:
        """POST and read the answer; True (nothing read) on a 404 when ``expire`` is set."""
        assert exchange.pool is not None
        url = self.url
        for _ in range(self._max_redirects + 1):
            if exchange.handle.aborted:
                return False
            response = self._post_once(exchange, url, body, headers)
            try:
                if expire and response.status_code == 404:
                    error = self._legacy.expired(response, exchange.method)
                    if error is None:
                        return True
                    if exchange.ident is not None:
                        self._answers.answer(exchange, {**error, "id": exchange.ident})
                    return False
                if response.status_code not in (301, 302, 303, 307, 308):
                    self._answers.read(exchange, response)
                    return False
                url = self._redirect(exchange, url, response)
            finally:
                response.close()
        raise TransportError(f"{exchange.method}: more than {self._max_redirects} "
                             f"redirects, the last to {redact_url(url)}")

    def _post_once(self, exchange: Exchange, url: str, body: bytes,
                   headers: dict[str, str]) -> Any:
        """One POST of ``exchange``: the direct path when it may take it, else requests'.

        A bearer token the direct path sent and the server refused in a way
        ``auth=`` can cure (:func:`~mcp_client._http.direct.for_auth`) is sent
        again the requests way, whose ``auth=`` hook recovers.
        """
        assert exchange.pool is not None
        direct = self._direct
        if direct is not None and exchange.pool is self._session \
                and not len(exchange.pool.cookies):
            prepared = direct.prepare(url, body, headers, self._auth)
            if prepared is not None:
                request, authorized = prepared
                try:
                    exchange.remaining()   # raises once the caller's timeout passed
                    response = direct.post(request, connect_timeout=self._connect_timeout,
                                           deadline=exchange.deadline, handle=exchange.handle)
                except _direct.DirectError as exc:
                    raise self._failures.direct(exc, exchange.method, url) from None
                if not authorized or not _direct.for_auth(response.status_code,
                                                          response.headers):
                    if "Set-Cookie" in response.headers:
                        _wire.keep_cookies(exchange.pool, url, response.headers)
                    return response
                response.close()
        return self._http(exchange.pool, "POST", exchange.method, url, body, headers,
                          read_timeout=exchange.remaining())

    def _http(self, session: requests.Session, verb: str, what: str, url: str,
              body: bytes | None, headers: Mapping[str, str], *,
              read_timeout: float | None = None) -> requests.Response:
        """One HTTP request, its failures translated (the response is streamed)."""
        with self._failures.mapped(what, verb, url):
            response: requests.Response = _wire.send(
                session, verb, url, body=body, headers=headers,
                auth=_wire.explicit_auth(self._auth, headers),
                timeout=(self._connect_timeout, read_timeout))
        return response

    def _redirect(self, exchange: Exchange, url: str, response: requests.Response) -> str:
        location = response.headers.get("Location")
        rule, target = _follow(url, location) if location else ("no Location header", None)
        if response.status_code in (307, 308) and target and rule is None:
            log.debug("%s: following HTTP %s to %s", exchange.method, response.status_code,
                      redact_url(target))
            return target
        shown = redact_url(target) if target else "(no Location header)"
        why = f" ({rule})" if rule and target else ""
        raise TransportError(f"{exchange.method}: the server redirected to "
                             f"{shown}{why}; only same-origin 307/308 "
                             "redirects are followed", status=response.status_code)

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
        if self._direct is not None:
            self._direct.close()
        session = self._session
        if session is None and self._legacy.session_id:
            session = self._new_session()   # not persistent: a connection for the DELETE
        if session is not None:
            self._legacy.end(session, self._connect_timeout)   # 2025-11-25: DELETE ends the session
            self._close_session(session)
        log.debug("closed %s", self)
