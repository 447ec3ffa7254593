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
from .sse import DEFAULT_MAX_EVENT_BYTES, SSEEvent, SSEParser
from .transport import CloseCallback, ErrorCallback, MessageCallback, Transport, WarnCallback
from .xheaders import encode_value
from ._log import WireTrace, warn_through, wire_trace
from ._http.checks import OWNED_HEADERS, check_header as _check_header, check_settings, \
    follow as _follow, media_type as _media_type
from ._http.session import MAX_RESUMES, LegacySession
from ._http.workers import Workers

if TYPE_CHECKING:
    import requests

    from ._http.direct import DirectPool
    from ._http.wire import Handle

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
_READ_SIZE = 64 * 1024
_EXCERPT = 300


def _root_cause(exc: BaseException) -> str:
    """The innermost readable reason in a requests/urllib3 exception chain."""
    seen: set[int] = set()
    node: Any = exc
    reason = str(exc)
    while node is not None and id(node) not in seen:
        seen.add(id(node))
        if isinstance(node, OSError) and node.strerror:
            reason = node.strerror
        inner = getattr(node, "reason", None)
        if not isinstance(inner, BaseException):
            args = getattr(node, "args", ())
            inner = args[0] if args and isinstance(args[0], BaseException) else None
        node = inner or node.__cause__ or node.__context__
    return reason


class _Exchange:
    """One message on its way: the POST, the worker reading it, the abort handle."""

    __slots__ = ("serial", "ident", "method", "handle", "pool", "session", "sink", "deadline",
                 "lapsed")

    def __init__(self, serial: int, ident: Any, method: str, handle: Handle) -> None:
        self.serial = serial
        self.ident = ident            # None: not a request, nobody awaits an answer
        self.method = method
        self.handle = handle
        self.pool: requests.Session | None = None   # the requests session it is sent on
        self.session: str | None = None   # the Mcp-Session-Id its response carried
        self.sink: list[dict[str, Any]] | None = None   # set: the answer is kept, not delivered
        self.deadline: float | None = None   # posted by its caller (lead): when it gives up
        self.lapsed = False   # posted by its caller, and its deadline passed first

    def remaining(self) -> float | None:
        """Seconds left before :attr:`deadline` (None: no bound); raises once it passed."""
        if self.deadline is None:
            return None
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TransportError(f"{self.method}: the caller's timeout passed")
        return left


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
        self._inflight: dict[int, _Exchange] = {}
        self._by_id: dict[Any, _Exchange] = {}
        self._session: requests.Session | None = None
        self._direct: DirectPool | None = None   # set by start() when POSTs may go direct
        self._version: str | None = None
        self._on_message: MessageCallback | None = None
        self._on_warn: WarnCallback | None = None
        self._on_error: ErrorCallback | None = None
        self._trace: WireTrace | None = None   # set by start(): see mcp_client._log
        self._legacy = LegacySession(self)
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
            exchange = _Exchange(serial, message["id"] if is_request else None,
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
        exchange: _Exchange = job[0]
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

    def _run(self, exchange: _Exchange, body: bytes, headers: dict[str, str]) -> None:
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

    def _lapse(self, exchange: _Exchange) -> bool:
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

    def _exchange(self, exchange: _Exchange, body: bytes, headers: dict[str, str]) -> None:
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

    def _post_and_read(self, exchange: _Exchange, body: bytes, headers: dict[str, str], *,
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
                    return self._legacy.expired(exchange, response)
                if response.status_code not in (301, 302, 303, 307, 308):
                    self._read(exchange, response)
                    return False
                url = self._redirect(exchange, url, response)
            finally:
                response.close()
        raise TransportError(f"{exchange.method}: more than {self._max_redirects} "
                             f"redirects, the last to {redact_url(url)}")

    def _post_once(self, exchange: _Exchange, url: str, body: bytes,
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
                    raise self._direct_failed(exchange.method, url, exc) from None
                if not authorized or not _direct.for_auth(response.status_code,
                                                          response.headers):
                    if "Set-Cookie" in response.headers:
                        _wire.keep_cookies(exchange.pool, url, response.headers)
                    return response
                response.close()
        return self._http(exchange.pool, "POST", exchange.method, url, body, headers,
                          read_timeout=exchange.remaining())

    def _direct_failed(self, what: str, url: str, exc: Any) -> TransportError:
        """A direct POST's failure, said as :meth:`_http` says requests' (no cause chained)."""
        kind = "connect" if exc.timed_out and not exc.connected else \
            "failed" if exc.timed_out else "unreachable"
        return self._failure(kind, what, "POST", url, exc.reason)

    def _failure(self, kind: str, what: str, verb: str, url: str,
                 reason: str) -> TransportError:
        """No HTTP answer: ``kind`` is ``connect`` (timed out), ``unreachable`` or ``failed``."""
        shown = redact_url(url)
        if kind == "connect":
            return TransportError(f"{what}: could not connect to {shown} within "
                                  f"{self._connect_timeout:g}s")
        said = "cannot reach" if kind == "unreachable" else f"the {verb} to"
        ending = "" if kind == "unreachable" else " failed"
        return TransportError(f"{what}: {said} {shown}{ending}: "
                              f"{redact_text(reason, url, self.url)}")

    def _http(self, session: requests.Session, verb: str, what: str, url: str,
              body: bytes | None, headers: Mapping[str, str], *,
              read_timeout: float | None = None) -> requests.Response:
        """One HTTP request, its failures translated (the response is streamed)."""
        import requests

        try:
            response: requests.Response = _wire.send(
                session, verb, url, body=body, headers=headers,
                auth=_wire.explicit_auth(self._auth, headers),
                timeout=(self._connect_timeout, read_timeout))
            return response
        except requests.exceptions.RequestException as exc:
            kind = "connect" if isinstance(exc, requests.exceptions.ConnectTimeout) else \
                "unreachable" if isinstance(exc, requests.exceptions.ConnectionError) else \
                "failed"
            raise self._failure(kind, what, verb, url, _root_cause(exc)) \
                from self._chained(exc, url)

    def _cause(self, exc: BaseException, url: str) -> str:
        """:func:`_root_cause`, with the URLs it may quote redacted."""
        return redact_text(_root_cause(exc), url, self.url)

    def _chained(self, exc: BaseException, url: str) -> BaseException | None:
        """``exc`` as the cause of ours -- unless a URL with secrets is in play.

        requests and urllib3 quote the URL's path and query in their messages
        (``Max retries exceeded with url: /mcp?token=...``), and a chained
        cause is printed with every traceback of ours.
        """
        secret = redact_url(url) != url or self._shown != self.url
        return None if secret else exc

    def _redirect(self, exchange: _Exchange, url: str, response: requests.Response) -> str:
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

    # -- reading the answer --------------------------------------------------------

    def _read(self, exchange: _Exchange, response: requests.Response) -> None:
        status = response.status_code
        kind = _media_type(response.headers.get("Content-Type"))
        ok = 200 <= status < 300
        exchange.session = response.headers.get("Mcp-Session-Id")
        if exchange.ident is None:
            if not ok:
                self._warn(f"the server refused a {exchange.method} message: HTTP {status} "
                           f"{self._excerpt(response)}")
            elif exchange.method == "notifications/initialized":
                self._legacy.open_stream()   # 2025-11-25: the GET stream, if offered
            return
        if kind == "application/json":
            self._read_json(exchange, response)
        elif kind == "text/event-stream" and ok:
            self._read_stream(exchange, response)
        elif ok:
            what = f"Content-Type {kind}" if kind else "no Content-Type"
            raise TransportError(f"{exchange.method}: the server answered with {what}, not "
                                 "JSON or an event stream", status=status,
                                 body=self._excerpt(response))
        else:
            raise TransportError(f"{exchange.method}: {self._shown} refused the request",
                                 status=status, body=self._excerpt(response),
                                 headers=response.headers)

    def _read_json(self, exchange: _Exchange, response: requests.Response) -> None:
        status = response.status_code
        try:
            data = response.raw.read(self._max_event + 1, decode_content=True)
        except _wire.WIRE_ERRORS as exc:
            raise TransportError(f"{exchange.method}: the response broke off: "
                                 f"{self._cause(exc, self.url)}",
                                 status=status) from self._chained(exc, self.url)
        if len(data) > self._max_event:
            raise TransportError(f"{exchange.method}: the response body is larger than "
                                 f"max_event_bytes={self._max_event}", status=status)
        if self._trace is not None:
            self._trace.received(data)
        try:
            message = json.loads(data)
        except (ValueError, RecursionError):   # RecursionError: nested too deeply to parse
            message = None
        if isinstance(message, dict):
            is_error = isinstance(message.get("error"), dict) and "result" not in message
            if is_error and message.get("id") != exchange.ident:
                # A body that is a JSON-RPC error answers this POST, whatever id it
                # names (the SDKs write null or "server-error"): the text is the point.
                message = {**message, "id": exchange.ident}
            if is_error or (200 <= status < 300 and "result" in message):
                self._answer(exchange, message)
                return
        what = "the server's answer is not a JSON-RPC response" if 200 <= status < 300 \
            else f"{self._shown} refused the request"
        text = data[:_EXCERPT * 4].decode("utf-8", "replace")
        raise TransportError(f"{exchange.method}: {what}", status=status,
                             body=" ".join(text.split())[:_EXCERPT], headers=response.headers)

    def _read_stream(self, exchange: _Exchange, response: requests.Response) -> None:
        """Read a response stream; in the handshake era, resume it if it ends early.

        2025-11-25 "Resumability and Redelivery": after the server's ``retry``
        delay, GET with the last event id, at most ``MAX_RESUMES`` times.
        """
        status, last_id, retry, resumed = response.status_code, None, None, 0
        current = response
        try:
            while True:
                parser = SSEParser(max_event_bytes=self._max_event)
                why = self._drain(exchange, current, parser)
                if why is None:
                    return
                last_id, retry = parser.last_event_id or last_id, parser.retry or retry
                if last_id is None or not self._legacy.active or exchange.handle.aborted:
                    raise TransportError(f"{exchange.method}: the response stream {why}",
                                         status=status)
                if resumed == MAX_RESUMES:
                    raise TransportError(f"{exchange.method}: the response stream {why}, "
                                         f"after resuming it {resumed} times", status=status)
                resumed += 1
                exchange.remaining()   # a led request whose timeout passed resumes no more
                assert exchange.pool is not None
                following = self._legacy.resume(exchange.pool, exchange.method, last_id, retry)
                if following is None:
                    return   # closing
                if current is not response:
                    current.close()
                current = following
        finally:
            if current is not response:
                current.close()

    def _drain(self, exchange: _Exchange, response: requests.Response,
               parser: SSEParser) -> str | None:
        """Read one stream until the answer (None) or its end (why it ended)."""
        raw = response.raw
        while True:
            if exchange.deadline is not None:   # each read gets what is left of it
                exchange.handle.settimeout(exchange.remaining())
            try:
                chunk = raw.read1(_READ_SIZE, decode_content=True)
            except _wire.WIRE_ERRORS as exc:
                return f"broke before the answer: {self._cause(exc, self.url)}"
            if not chunk:
                break
            for event in parser.feed(chunk):
                if self._event(exchange, event):
                    return None
        return "ended in the middle of an event" if parser.pending else "ended without the answer"

    def _event(self, exchange: _Exchange, event: SSEEvent) -> bool:
        """Handle one event; True when it was the answer."""
        if self._trace is not None:
            self._trace.event(event.event, event.data, event.id)
        if event.event != "message":
            log.debug("skipped an SSE event of type %r", event.event)
            return False
        if not event.data.strip():
            return False   # a priming event: an id (and a retry) for resuming, no message
        try:
            message = json.loads(event.data)
        except (ValueError, RecursionError):   # RecursionError: nested too deeply to parse
            self._warn(f"skipped an SSE event that is not JSON: {event.data[:200]!r}")
            return False
        if not isinstance(message, dict):
            self._warn(f"skipped an SSE event that is not a JSON-RPC message: {event.data[:200]!r}")
            return False
        if "method" in message:
            if "id" in message and not self._legacy.active:
                self._warn(f"skipped a server request on a response stream ({message['method']!r}"
                           "); 2026-07-28 Streamable HTTP has none")
            elif not exchange.handle.aborted:
                self._deliver(message)   # 2025-11-25: server requests ride the stream too
            return False
        if "result" in message or "error" in message:
            self._answer(exchange, message)
            return True
        self._warn(f"skipped an SSE event that is not a JSON-RPC message: {event.data[:200]!r}")
        return False

    def _answer(self, exchange: _Exchange, message: dict[str, Any]) -> None:
        if message.get("id") is None:
            message = {**message, "id": exchange.ident}   # a null id: it answers our request
        if message["id"] != exchange.ident:
            raise TransportError(f"{exchange.method}: the server answered request "
                                 f"{message['id']!r} on the stream of request {exchange.ident!r}")
        if exchange.method == "initialize" and "result" in message:
            self._legacy.capture(message["result"], exchange.session)   # before anyone sends
        if exchange.sink is not None:
            exchange.sink.append(message)
        elif not exchange.handle.aborted:
            self._deliver(message)

    def _excerpt(self, response: requests.Response) -> str:
        try:
            data = response.raw.read(_EXCERPT * 4, decode_content=True)
        except _wire.WIRE_ERRORS:
            return ""
        return " ".join(data.decode("utf-8", "replace").split())[:_EXCERPT]

    # -- callbacks -----------------------------------------------------------------

    def _deliver(self, message: dict[str, Any]) -> None:
        self._call(self._on_message, message, what="message handler")

    def _fail(self, exchange: _Exchange, exc: MCPClientError) -> None:
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
            self._legacy.end(session)   # 2025-11-25: DELETE ends the session
            self._close_session(session)
        log.debug("closed %s", self)
