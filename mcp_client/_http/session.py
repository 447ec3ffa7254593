"""Legacy Streamable HTTP (2025-03-26 ... 2025-11-25): the session beside the POSTs.

This module owns what the handshake era adds to :class:`~mcp_client.http.HTTPTransport`
(2025-11-25 basic/transports, "Session Management", "Listening for Messages
from the Server", "Resumability and Redelivery"):

* the ``Mcp-Session-Id`` an ``initialize`` answer assigns, sent on every later
  request, and the negotiated ``MCP-Protocol-Version`` header after it;
* a new session when the server forgets ours: a 404 to a request that carried
  the id means it is gone ("the client MUST start a new session"), so
  ``initialize`` is replayed once -- by the first request to see the 404; the
  others find the new id and simply retry;
* the standalone GET stream, opened once ``notifications/initialized`` was
  accepted (405: the server offers none), read by ``mcp-http-listen-<port>``
  and reopened, after the server's ``retry`` delay, when it drops;
* resuming a response stream that ended before its answer: GET with
  ``Last-Event-ID``;
* ``DELETE`` with the session id on close (405 means the server keeps
  sessions to itself, and is ignored).

It must not read responses itself beyond the GET stream's events (through
the transport's :class:`~mcp_client._http.answers.Reader`): a POST's answer
is read by the transport, which calls :meth:`LegacySession.capture` when an
``initialize`` succeeded.  It talks to its transport only through
:class:`Carrier`.  Nothing here runs before ``initialize`` was answered: a
modern (2026-07-28) connection never touches it.
"""

from __future__ import annotations

import logging
import re
import threading
from typing import TYPE_CHECKING, Any, Mapping, Protocol

from .answers import Reader
from .checks import media_type
from ..exceptions import MCPClientError, ProtocolError, TransportError
from ..protocol import METHOD_NOT_FOUND, decode_message
from ..sse import SSEEvent, SSEParser

if TYPE_CHECKING:
    import requests

__all__ = ["LegacySession", "Carrier", "MAX_RESUMES", "DEFAULT_RETRY_MS", "STREAM_OPEN_WAIT"]

log = logging.getLogger(__name__)

#: How many times one response stream is resumed before the request fails
#: (a bound of ours; the SDKs use 2).
MAX_RESUMES = 3
#: The reconnection delay when the server set no ``retry`` (the SDKs' 1 s).
DEFAULT_RETRY_MS = 1000
#: The longest ``retry`` honoured, in ms: a server cannot park a request for hours.
_MAX_RETRY_MS = 30_000
#: How many times in a row the GET stream may fail to open before it is given up.
_LISTEN_FAILURES = 3
#: Seconds ``open_stream`` waits for the GET stream to be answered (a bound of ours).
STREAM_OPEN_WAIT = 1.0
#: The headers of 2026-07-28 that a handshake-era request does not carry.
_MODERN_ONLY = ("MCP-Protocol-Version", "Mcp-Method", "Mcp-Name")
_SESSION_ID = re.compile(r"[\x21-\x7e]{1,1024}")   # 2025-11-25 session management


def delay_of(retry_ms: int | None) -> float:
    """The seconds to wait before reconnecting, from a stream's ``retry`` (2025-11-25)."""
    ms = DEFAULT_RETRY_MS if retry_ms is None else retry_ms
    return min(ms, _MAX_RETRY_MS) / 1000


class Carrier(Protocol):
    """What a :class:`LegacySession` asks of its transport.

    The transport's :class:`~mcp_client._http.poster.Poster` is one; a test
    double is another.
    """

    def request(self, pool: requests.Session, verb: str, what: str,
                headers: Mapping[str, str], *,
                read_timeout: float | None = None) -> requests.Response:
        """``verb`` the endpoint, the transport's own headers under ``headers``.

        Raises:
            TransportError: no HTTP answer (the failure said as the transport says it).
        """

    def post_own(self, message: dict[str, Any], *, pool: requests.Session,
                 handle: Any) -> dict[str, Any] | None:
        """POST a message of the session's own as it posts the client's; its answer.

        Returns:
            the answer, kept rather than delivered (None: a notification).
        """

    def open_pool(self) -> requests.Session:
        """A requests session for a long exchange: the transport's, or a new one."""

    def close_pool(self, pool: requests.Session) -> None:
        """Done with a pool :meth:`open_pool` gave (a new one is closed)."""


class LegacySession:
    """The handshake-era state of one HTTP transport (all methods thread-safe).

    Args:
        carrier: what sends for the transport (its poster): this session's requests too.
        reader: the transport's answer reader (warnings, deliveries, bounds).
    """

    def __init__(self, carrier: Carrier, reader: Reader) -> None:
        self._carrier = carrier
        self._reader = reader
        self._lock = threading.Lock()
        self._renewing = threading.RLock()   # one re-initialize at a time; POSTs wait for it
        self.stopping = threading.Event()    # set by close(): every wait here ends
        self.version: str | None = None
        self.session_id: str | None = None
        self._init_params: dict[str, Any] | None = None
        self._renewals = 0
        self._listener: threading.Thread | None = None
        self._opened = threading.Event()   # the current listener's first GET was answered
        self._listen_handle: Any = None
        self._listen_last_id: str | None = None

    def __repr__(self) -> str:
        state = "idle" if self.version is None else f"{self.version} session={self.session_id}"
        return f"<LegacySession {state}>"

    @property
    def active(self) -> bool:
        """Whether an ``initialize`` succeeded (the connection speaks the handshake era)."""
        return self.version is not None

    # -- the handshake -----------------------------------------------------------

    def note_initialize(self, params: Any) -> None:
        """Remember an ``initialize``'s params, to replay them for a new session."""
        if isinstance(params, Mapping):
            self._init_params = dict(params)

    def capture(self, result: Any, session_id: str | None) -> bool:
        """An ``initialize`` succeeded: keep its version and its session id (if any).

        Returns:
            whether a session began -- then no request carries tool headers
            any more (``x-mcp-header`` is 2026-07-28 only).
        """
        version = result.get("protocolVersion") if isinstance(result, Mapping) else None
        if not isinstance(version, str):
            return False
        if session_id is not None and not _SESSION_ID.fullmatch(session_id):
            # 2025-11-25: visible ASCII only; anything else could not be sent back
            self._reader.warn(f"ignored a malformed Mcp-Session-Id {session_id[:80]!r}")
            session_id = None
        with self._lock:
            self.version = version
            self.session_id = session_id or None
        log.debug("legacy Streamable HTTP %s, session %s", version, session_id)
        return True

    def stamp(self, headers: Mapping[str, str], method: str) -> tuple[dict[str, str], str | None]:
        """One POST's headers in this era, and the session id they carry.

        ``initialize`` goes without a version header (an SDK server routes a
        2026-07-28 header to its modern handler) and without a session id.
        """
        if method == "initialize":
            return {k: v for k, v in headers.items() if k not in _MODERN_ONLY}, None
        if self.version is None:
            return dict(headers), None
        out = {k: v for k, v in headers.items() if k not in _MODERN_ONLY}
        out["MCP-Protocol-Version"] = self.version
        with self._renewing:   # a new session being started: wait for its id
            sent = self.session_id
        if sent:
            out["Mcp-Session-Id"] = sent
        return out, sent

    def renew(self, pool: requests.Session, expired: str, handle: Any) -> None:
        """Start a new session after a 404 to a request that carried ``expired``.

        Raises:
            TransportError: the new ``initialize`` failed.
        """
        with self._renewing:
            if self.session_id != expired or self.stopping.is_set():
                return   # another request renewed it while this one waited
            if self._init_params is None:
                raise TransportError("the session expired before any initialize was sent",
                                     status=404)
            self._renewals += 1
            self._reader.warn(f"the server no longer knows session {expired} (HTTP 404); "
                              "starting a new session and retrying")
            ident = f"mcp-client-reinitialize-{self._renewals}"
            answer = self._own_request(pool, handle, ident, "initialize", self._init_params)
            if "result" not in answer:
                raise TransportError(f"the session expired and a new initialize was refused: "
                                     f"{answer.get('error')!r:.300}", status=404)
            self._own_request(pool, handle, None, "notifications/initialized", None)

    def expired(self, response: requests.Response, what: str) -> dict[str, Any] | None:
        """Whether a 404 to request ``what`` with a session id says the session is gone.

        Returns:
            None: it does; or the ``-32601`` error its body holds (the method is
            unknown, which a server may also say with 404): that is the answer.
        """
        if media_type(response.headers.get("Content-Type")) != "application/json":
            return None
        try:
            message = decode_message(self._reader.body(response, what))
        except (TransportError, ProtocolError):
            return None
        error = message.get("error")
        if not isinstance(error, dict) or error.get("code") != METHOD_NOT_FOUND:
            return None
        return message

    def _own_request(self, pool: requests.Session, handle: Any, ident: Any, method: str,
                     params: dict[str, Any] | None) -> dict[str, Any]:
        """Send a message of the session's own (a new session's handshake) and wait.

        Returns:
            the answer message ({} for a notification).
        """
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if ident is not None:
            message["id"] = ident
        if params is not None:
            message["params"] = params
        answer = self._carrier.post_own(message, pool=pool, handle=handle)
        if ident is not None and answer is None:
            raise TransportError(f"{method}: no answer")
        return answer or {}

    # -- the GET stream ----------------------------------------------------------

    def open_stream(self) -> None:
        """Start listening on the GET stream, unless a listener runs (idempotent).

        Called on the thread that posted ``notifications/initialized``, it
        waits (at most :data:`STREAM_OPEN_WAIT` seconds) until the GET was
        answered: the stream is open, or refused, before the session's first
        request goes out, so what the server sends after that request reaches
        the client, and a server never takes the listener for the resumption
        of a response stream opened before it.
        """
        opened = threading.Event()
        with self._lock:
            if self.stopping.is_set() or self.version is None or \
                    (self._listener is not None and self._listener.is_alive()):
                return
            thread = threading.Thread(target=self._listen, args=(opened,), daemon=True,
                                      name=f"mcp-http-listen-{id(self):x}")
            self._listener = thread
            thread.start()
        if not opened.wait(STREAM_OPEN_WAIT):
            log.debug("the GET stream was not answered within %s s; going on", STREAM_OPEN_WAIT)

    def _get_headers(self, last_id: str | None) -> dict[str, str]:
        out = {"Accept": "text/event-stream"}
        if self.version:
            out["MCP-Protocol-Version"] = self.version
        if self.session_id:
            out["Mcp-Session-Id"] = self.session_id
        if last_id is not None:
            out["Last-Event-ID"] = last_id
        return out

    def _listen(self, opened: threading.Event) -> None:
        from .wire import Handle, active

        pool = self._carrier.open_pool()
        failures, retry = 0, None
        self._opened = opened
        try:
            while not self.stopping.is_set() and failures < _LISTEN_FAILURES:
                handle = Handle()
                with self._lock:   # stop() sets ``stopping`` under this lock: no handle escapes it
                    if self.stopping.is_set():
                        return
                    self._listen_handle = handle
                with active(handle):
                    outcome, retry = self._listen_once(pool, retry)
                handle.finish()
                if outcome == "done":
                    return
                failures = 0 if outcome == "heard" else failures + 1
                if self.stopping.wait(delay_of(retry)):
                    return
            if failures >= _LISTEN_FAILURES:
                self._reader.warn(f"the GET stream failed {failures} times in a row; "
                                  "listening for server messages stopped")
        finally:
            opened.set()
            self._carrier.close_pool(pool)

    def _listen_once(self, pool: requests.Session, retry: int | None) -> tuple[str, int | None]:
        """One GET stream: ``"done"`` (none is offered), ``"heard"`` or ``"failed"``."""
        try:
            response = self._carrier.request(pool, "GET", "the GET stream",
                                             self._get_headers(self._listen_last_id))
        except TransportError as exc:
            log.debug("the GET stream could not be opened: %s", exc)
            return "failed", retry
        finally:
            self._opened.set()   # answered (or not at all): open_stream's caller goes on
        with response:
            status = response.status_code
            kind = (response.headers.get("Content-Type") or "").split(";")[0].strip().lower()
            if status == 405 or (400 <= status < 500 and status != 429):
                log.debug("the server offers no GET stream (HTTP %s)", status)
                return "done", retry
            if not 200 <= status < 300 or kind != "text/event-stream":
                return "failed", retry
            parser = SSEParser(max_event_bytes=self._reader.max_event_bytes)
            heard = self._drain(response, parser)
            self._listen_last_id = parser.last_event_id or self._listen_last_id
            return ("heard" if heard else "failed"), parser.retry or retry

    def _drain(self, response: requests.Response, parser: SSEParser) -> bool:
        """Deliver the GET stream's messages until it ends; True if any arrived."""
        heard = False

        def deliver(event: SSEEvent) -> bool:   # any JSON-RPC message, delivered as it is
            nonlocal heard
            heard = True
            message = self._reader.message(event)
            if message is not None:
                self._reader.deliver(message)
            return False

        try:
            why = self._reader.drain(response, parser, deliver,
                                     going=lambda: not self.stopping.is_set())
        except MCPClientError as exc:   # an event too large
            why = f"broke: {exc}"
        log.debug("the GET stream %s", why)
        return heard

    # -- resuming a response stream ----------------------------------------------

    def resume(self, pool: requests.Session, method: str, last_id: str,
               retry_ms: int | None) -> requests.Response | None:
        """GET the rest of a response stream after ``last_id``, once the delay passed.

        Returns None when the transport is closing.

        Raises:
            TransportError: the server refused to resume (or could not be reached).
        """
        if self.stopping.wait(delay_of(retry_ms)):
            return None
        response = self._carrier.request(pool, "GET", f"{method} (resuming)",
                                         self._get_headers(last_id))
        kind = (response.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if 200 <= response.status_code < 300 and kind == "text/event-stream":
            return response
        status = response.status_code
        headers = dict(response.headers)
        response.close()
        raise TransportError(f"{method}: the response stream ended before the answer and "
                             f"the server would not resume it after event {last_id!r}",
                             status=status, headers=headers)

    # -- the end -----------------------------------------------------------------

    def stop(self, timeout: float) -> None:
        """Stop the GET stream and join its listener."""
        with self._lock:
            self.stopping.set()
            thread, handle = self._listener, self._listen_handle
        if handle is not None:
            handle.abort()
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)
            if thread.is_alive():
                log.warning("%s did not finish", thread.name)

    def end(self, pool: requests.Session, timeout: float) -> None:
        """DELETE the session, if there is one (2025-11-25: 405 is allowed); never raises.

        ``timeout`` bounds waiting for its answer.
        """
        from .wire import Handle, active

        sent = self.session_id
        if not sent:
            return
        try:
            with active(Handle()):   # so that urllib3's records of it are redacted too
                response = self._carrier.request(pool, "DELETE", "ending the session",
                                                 self._get_headers(None), read_timeout=timeout)
        except TransportError as exc:
            log.debug("DELETE of session %s failed: %s", sent, exc)
            return
        with response:
            if response.status_code not in (200, 202, 204, 404, 405):
                log.debug("DELETE of session %s: HTTP %s", sent, response.status_code)
