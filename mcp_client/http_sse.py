"""The 2024-11-05 HTTP+SSE transport: one event stream in, one POST per message out.

This module owns the deprecated transport that servers built before
2025-03-26 still speak (2024-11-05 basic/transports; the 2025-11-25
"Backward Compatibility" section says how a client finds it): a ``GET`` of
the URL opens a ``text/event-stream``; its first event, ``endpoint``, names
the URL every client message is POSTed to (each answered ``202 Accepted``);
every server message -- answers, notifications, requests -- arrives on the
stream as a ``message`` event.  It must not know about eras or results: the
client speaks the 2025-11-25 handshake over it like over stdio.

Threads: one reader (``mcp-sse-reader-<n>``), started by :meth:`start`, owns
the stream and calls ``on_message`` in stream order; :meth:`send` POSTs on
the caller's thread, first waiting (at most ``connect_timeout``) for the
``endpoint`` event.  The stream is the session: when it ends, ``on_close``
is called once with a :class:`~mcp_client.exceptions.ServerGone`.

Decisions:

* an ``endpoint`` on another origin (scheme, host, port, as requests and
  urllib3 connect to it: :mod:`mcp_client._origin`), or with a backslash,
  whitespace or userinfo in its authority, is refused -- posting there
  would hand it the requests and their credentials;
* a stream that does not open (any status but 2xx, or not an event stream)
  or sends no ``endpoint`` in time fails every :meth:`send` with a
  :class:`~mcp_client.exceptions.TransportError` that says which;
* redirects are not followed (``max_redirects`` is accepted for symmetry
  with :class:`~mcp_client.http.HTTPTransport`).
"""

from __future__ import annotations

import itertools
import json
import logging
import threading
from typing import TYPE_CHECKING, Any, Mapping

from ._http.answers import Reader, shorten
from ._http.checks import check_settings, follow, media_type
from ._http.failures import Failures
from ._redact import redact_url
from ._log import WireTrace, warn_through, wire_trace
from .exceptions import MCPClientError, ServerGone, TransportClosed, TransportError
from .sse import DEFAULT_MAX_EVENT_BYTES, SSEEvent, SSEParser
from .transport import CloseCallback, ErrorCallback, MessageCallback, Transport, WarnCallback

if TYPE_CHECKING:
    import requests

__all__ = ["SSETransport"]

log = logging.getLogger(__name__)

_serials = itertools.count(1)


class SSETransport(Transport):
    """Talks to one MCP server over the 2024-11-05 HTTP+SSE transport.

    Args:
        url: the event stream's URL, e.g. ``https://tools.example.com/sse``.
        headers: sent on the GET and on every POST (``Authorization``, ...).
        persistent: keep POST connections alive between messages.
        connect_timeout: seconds allowed for connecting, and for the
            ``endpoint`` event to arrive.
        auth: a ``requests.auth.AuthBase`` (or a callable, or a pair).
        max_event_bytes: the largest SSE event accepted.
        max_redirects: accepted for symmetry; no redirect is followed.

    Raises:
        MCPClientError: a bad URL, header or value.
    """

    supports_handshake = True

    def __init__(self, url: str, *, headers: Mapping[str, str] | None = None,
                 persistent: bool = True, connect_timeout: float = 10.0, auth: Any = None,
                 max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES, max_redirects: int = 5) -> None:
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
        self._endpoint: str | None = None
        self._failure: TransportError | None = None
        self._ready = threading.Event()   # the endpoint arrived, or the stream failed
        self._session: requests.Session | None = None
        self._handle: Any = None
        self._reader: threading.Thread | None = None
        self._on_message: MessageCallback | None = None
        self._on_close: CloseCallback | None = None
        self._on_warn: WarnCallback | None = None
        self._trace: WireTrace | None = None   # set by start(): see mcp_client._log
        self._reading = Reader(Failures(url, self._connect_timeout),
                               max_event_bytes=max_event_bytes, warn=self._warn,
                               deliver=self._deliver)

    def __repr__(self) -> str:
        endpoint = redact_url(self._endpoint) if self._endpoint else None
        return f"<SSETransport {self._shown} {self._state} endpoint={endpoint}>"

    @property
    def closed(self) -> bool:
        return self._state in ("closed", "dead", "failed")

    @property
    def endpoint(self) -> str | None:
        """Where messages are POSTed (None until the ``endpoint`` event arrived)."""
        return self._endpoint

    def start(self, on_message: MessageCallback, on_close: CloseCallback,
              on_warn: WarnCallback, on_error: ErrorCallback | None = None) -> None:
        from ._http import wire as _http_wire

        with self._lock:
            if self._state != "new":
                raise MCPClientError(f"cannot start a transport that is {self._state}")
            self._on_message, self._on_close, self._on_warn = on_message, on_close, on_warn
            self._trace = wire_trace(f"sse {self._shown}")
            self._reading.start(self._trace)
            self._session = _http_wire.new_session(self.url, pool_size=8, trace=self._trace)
            self._handle = _http_wire.Handle()
            self._state = "open"
            self._reader = threading.Thread(target=self._read, daemon=True,
                                            name=f"mcp-sse-reader-{next(_serials)}")
            self._reader.start()

    # -- the stream ----------------------------------------------------------------

    def _read(self) -> None:
        from ._http import wire as _http_wire

        why = "the HTTP+SSE stream ended"
        try:
            with _http_wire.active(self._handle):
                why = self._stream() or why
        except Exception as exc:  # the reader never dies without a word
            why = f"the HTTP+SSE stream failed: {exc!r}"
        finally:
            self._handle.finish()
        self._fail_ready(TransportError(f"{self._shown}: {why}"))
        with self._lock:
            if self._state != "open":
                return
            # A stream that never named its endpoint never was a session: every
            # send says why (a 404, another origin), rather than "the server went away".
            self._state = "dead" if self._endpoint is not None else "failed"
            if self._state == "failed":
                return
        if self._on_close is not None:
            try:
                self._on_close(ServerGone(detail=why))
            except Exception as exc:
                self._warn(f"close handler raised {exc!r}")

    def _stream(self) -> str | None:
        """Open and read the stream; why it ended, when that is worth saying."""
        from ._http.wire import explicit_auth

        assert self._session is not None
        headers = {**self._headers, "Accept": "text/event-stream"}
        try:
            with self._reading.failures.mapped("the HTTP+SSE stream", "GET", self.url):
                response = self._session.get(self.url, headers=headers,
                                             auth=explicit_auth(self._auth, headers),
                                             timeout=(self._connect_timeout, None), stream=True,
                                             allow_redirects=False)
        except TransportError as exc:
            self._fail_ready(exc)
            return None
        with response:
            kind = media_type(response.headers.get("Content-Type"))
            if not 200 <= response.status_code < 300 or kind != "text/event-stream":
                self._fail_ready(TransportError(
                    f"GET {self._shown}: no HTTP+SSE stream there", status=response.status_code,
                    body=self._reading.excerpt(response), headers=response.headers))
                return None
            parser = SSEParser(max_event_bytes=self._max_event)
            why = self._reading.drain(response, parser, self._event,
                                      going=lambda: self._state == "open")
        return None if why in (None, "ended") else f"the HTTP+SSE stream {why}"

    def _event(self, event: SSEEvent) -> bool:
        message = self._reading.message(event)   # None: not a message (said if it is broken)
        if message is not None:
            self._deliver(message)
        elif event.event == "endpoint":
            self._set_endpoint(event.data.strip())
        return False   # read on: the stream is the session

    def _deliver(self, message: dict[str, Any]) -> None:
        if self._on_message is not None:
            try:
                self._on_message(message)
            except Exception as exc:
                self._warn(f"message handler raised {exc!r}")

    def _set_endpoint(self, data: str) -> None:
        rule, target = follow(self.url, data)
        if rule is not None:
            self._fail_ready(TransportError(
                f"{self._shown}: the endpoint event points at another origin "
                f"({redact_url(target)}: {rule}); refused"))
            self._handle.abort()
            return
        if self._endpoint is None:
            self._endpoint = target
            log.debug("HTTP+SSE endpoint %s", redact_url(target))
        self._ready.set()

    def _fail_ready(self, error: TransportError) -> None:
        if self._failure is None and self._endpoint is None:
            self._failure = error
        self._ready.set()

    # -- sending -------------------------------------------------------------------

    def send(self, message: dict[str, Any], *, headers: Mapping[str, str] | None = None) -> None:
        """POST one message to the endpoint (waiting for it first).

        Raises:
            TransportError: no endpoint, or the POST was refused.
            TransportClosed: :meth:`close` was called.
            ServerGone: the stream has ended.
        """
        try:
            body = json.dumps(message, separators=(",", ":"), allow_nan=False,
                              ensure_ascii=False).encode("utf-8")
        except (TypeError, ValueError, RecursionError) as exc:
            raise MCPClientError(f"cannot encode the message as JSON: {exc}") from exc
        self._check_open()
        if not self._ready.wait(self._connect_timeout):
            raise TransportError(f"{self._shown}: no endpoint event within "
                                 f"{self._connect_timeout:g}s")
        if self._endpoint is None:
            raise self._failure or TransportError(f"{self._shown}: no endpoint event")
        self._check_open()
        self._post(self._endpoint, body, message.get("method"))

    def _check_open(self) -> None:
        if self._state == "closed":
            raise TransportClosed()
        if self._state == "new":
            raise TransportClosed("the transport was never started")
        if self._state == "dead":
            raise ServerGone(detail="the HTTP+SSE stream ended")
        if self._state == "failed" and self._failure is not None:
            raise self._failure

    def _post(self, endpoint: str, body: bytes, method: Any) -> None:
        from ._http.wire import Handle, active, explicit_auth

        assert self._session is not None
        what = method if isinstance(method, str) else "(response)"
        headers = {**self._headers, "Content-Type": "application/json"}
        if not self._persistent:
            headers["Connection"] = "close"
        # so that urllib3's records of it are redacted too: active(Handle())
        with active(Handle()), self._reading.failures.mapped(what, "POST", endpoint):
            response = self._session.post(
                endpoint, data=body, headers=headers, auth=explicit_auth(self._auth, headers),
                timeout=(self._connect_timeout, self._connect_timeout), allow_redirects=False)
        with response:
            if not 200 <= response.status_code < 300:
                raise TransportError(f"{what}: {redact_url(endpoint)} refused the message",
                                     status=response.status_code, body=shorten(response.content),
                                     headers=response.headers)

    # -- shutting down -------------------------------------------------------------

    def close(self) -> None:
        """Close the stream and join the reader (idempotent); ``on_close`` is not called."""
        with self._lock:
            if self._state in ("closed", "new"):
                self._state = "closed"
                return
            self._state = "closed"
        self._ready.set()
        if self._handle is not None:
            self._handle.abort()
        reader = self._reader
        if reader is not None and reader is not threading.current_thread():
            reader.join(self._connect_timeout + 5)
            if reader.is_alive():
                log.warning("%s did not finish", reader.name)
        if self._session is not None:
            from ._http import wire as _http_wire

            _http_wire.close_session(self._session)

    def _warn(self, text: str) -> None:
        warn_through(self._on_warn, text, log)
