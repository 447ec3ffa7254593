"""The answer to one POST of Streamable HTTP: what it means, in both eras.

:class:`Exchange` is one message on its way (the POST, the worker reading
it, the abort handle); :class:`Answers` reads its answer through the
transport's :class:`~mcp_client._http.answers.Reader` and decides
(2026-07-28 basic/transports; 2025-11-25 for the session):

* a JSON-RPC error in an ``application/json`` body is delivered as that
  error whatever the status and whatever id it names; any other non-2xx
  answer is a ``TransportError``;
* on a stream, only ``message`` events are read; a server *request* is
  delivered in a 2025-11-25 session and skipped with a warning otherwise
  (2026-07-28 HTTP has none); the answer ends the exchange; a stream that
  ends without it fails the request, unless the session can resume it;
* an ``initialize`` answer opens the session (:meth:`LegacySession.capture
  <mcp_client._http.session.LegacySession.capture>`) before anyone sees it.

It must not send a POST or follow a redirect: the transport does.
"""

from __future__ import annotations

import functools
import logging
import time
from typing import TYPE_CHECKING, Any, Callable

from ..exceptions import ProtocolError, TransportError
from ..protocol import decode_message
from ..sse import SSEEvent, SSEParser
from .answers import Reader, shorten
from .checks import media_type
from .session import MAX_RESUMES, LegacySession

if TYPE_CHECKING:
    import requests

    from .wire import Handle

__all__ = ["Exchange", "Answers"]

log = logging.getLogger(__name__)


class Exchange:
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

    def __repr__(self) -> str:
        return f"<Exchange {self.method} id={self.ident!r}>"

    def remaining(self) -> float | None:
        """Seconds left before :attr:`deadline` (None: no bound); raises once it passed."""
        if self.deadline is None:
            return None
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TransportError(f"{self.method}: the caller's timeout passed")
        return left

    def bound_read(self) -> None:
        """Give the next socket read what is left of the caller's timeout (or raise)."""
        self.handle.settimeout(self.remaining())


class Answers:
    """Reads the answers to one transport's POSTs.

    Args:
        reader: the transport's answer reader.
        legacy: the transport's handshake-era session.
        shown: the endpoint as errors show it (redacted).
        on_session: called when an ``initialize`` answer opened a
            2025-11-25 session, before the answer is delivered.
    """

    __slots__ = ("_reader", "_legacy", "_shown", "_on_session")

    def __init__(self, reader: Reader, legacy: LegacySession, *, shown: str,
                 on_session: Callable[[], None]) -> None:
        self._reader, self._legacy, self._shown = reader, legacy, shown
        self._on_session = on_session

    def __repr__(self) -> str:
        return f"<Answers {self._shown}>"

    def read(self, exchange: Exchange, response: requests.Response) -> None:
        """Read (and deliver) the answer to ``exchange``'s POST.

        Raises:
            TransportError: the answer is not one, or refuses the request.
        """
        status = response.status_code
        kind = media_type(response.headers.get("Content-Type"))
        ok = 200 <= status < 300
        exchange.session = response.headers.get("Mcp-Session-Id")
        if exchange.ident is None:
            if not ok:
                self._reader.warn(f"the server refused a {exchange.method} message: HTTP "
                                  f"{status} {self._reader.excerpt(response)}")
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
                                 body=self._reader.excerpt(response))
        else:
            raise TransportError(f"{exchange.method}: {self._shown} refused the request",
                                 status=status, body=self._reader.excerpt(response),
                                 headers=response.headers)

    def _read_json(self, exchange: Exchange, response: requests.Response) -> None:
        status = response.status_code
        data = self._reader.body(response, exchange.method)
        try:
            message: dict[str, Any] | None = decode_message(data)
        except ProtocolError:
            message = None
        if message is not None:
            is_error = isinstance(message.get("error"), dict) and "result" not in message
            if is_error and message.get("id") != exchange.ident:
                # A body that is a JSON-RPC error answers this POST, whatever id it
                # names (the SDKs write null or "server-error"): the text is the point.
                message = {**message, "id": exchange.ident}
            if is_error or (200 <= status < 300 and "result" in message):
                self.answer(exchange, message)
                return
        what = "the server's answer is not a JSON-RPC response" if 200 <= status < 300 \
            else f"{self._shown} refused the request"
        raise TransportError(f"{exchange.method}: {what}", status=status, body=shorten(data),
                             headers=response.headers)

    def _read_stream(self, exchange: Exchange, response: requests.Response) -> None:
        """Read a response stream; in the handshake era, resume it if it ends early.

        2025-11-25 "Resumability and Redelivery": after the server's ``retry``
        delay, GET with the last event id, at most ``MAX_RESUMES`` times.
        """
        status, last_id, retry, resumed = response.status_code, None, None, 0
        current = response
        handle = exchange.handle
        before_read = None if exchange.deadline is None else exchange.bound_read
        on_event = functools.partial(self._event, exchange)
        try:
            while True:
                parser = SSEParser(max_event_bytes=self._reader.max_event_bytes)
                why = self._reader.drain(current, parser, on_event, awaiting="the answer",
                                         before_read=before_read)
                if why is None:
                    return
                last_id, retry = parser.last_event_id or last_id, parser.retry or retry
                if last_id is None or not self._legacy.active or handle.aborted:
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

    def _event(self, exchange: Exchange, event: SSEEvent) -> bool:
        """Handle one event; True when it was the answer."""
        message = self._reader.message(event)
        if message is None:
            if event.event != "message":
                log.debug("skipped an SSE event of type %r", event.event)
            return False
        if "method" in message:
            if "id" in message and not self._legacy.active:
                self._reader.warn(f"skipped a server request on a response stream "
                                  f"({message['method']!r}); 2026-07-28 Streamable HTTP has none")
            elif not exchange.handle.aborted:
                self._reader.deliver(message)   # 2025-11-25: server requests ride it too
            return False
        if "result" in message or "error" in message:
            self.answer(exchange, message)
            return True
        self._reader.warn(f"skipped an SSE event that is not a JSON-RPC message: "
                          f"{event.data[:200]!r}")
        return False

    def answer(self, exchange: Exchange, message: dict[str, Any]) -> None:
        """Deliver (or keep, for a message of the transport's own) the answer to ``exchange``.

        Raises:
            TransportError: it answers another request.
        """
        if message.get("id") is None:
            message = {**message, "id": exchange.ident}   # a null id: it answers our request
        if message["id"] != exchange.ident:
            raise TransportError(f"{exchange.method}: the server answered request "
                                 f"{message['id']!r} on the stream of request {exchange.ident!r}")
        if exchange.method == "initialize" and "result" in message and \
                self._legacy.capture(message["result"], exchange.session):
            self._on_session()   # before anyone sends
        if exchange.sink is not None:
            exchange.sink.append(message)
        elif not exchange.handle.aborted:
            self._reader.deliver(message)
