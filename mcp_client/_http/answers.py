"""Reading what an HTTP answer carries: a JSON body, an event stream's messages, an excerpt.

The one reader of the HTTP transports' answers: a POST's answer
(:mod:`mcp_client._http.posts`), the 2025-11-25 GET stream
(:mod:`mcp_client._http.session`) and the 2024-11-05 HTTP+SSE stream
(:mod:`mcp_client.http_sse`) all read through a :class:`Reader`.  It owns
the bounds (``max_event_bytes`` for a body as for one event), the wire
trace of what arrived, the decoding of a message
(:func:`~mcp_client.protocol.decode_message`) and the warning for an event
that holds none, and the read loop of a stream with how it ended.  It must
not decide what a message means (an answer, a server request): its callers
do.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Callable

from ..exceptions import ProtocolError, TransportError
from ..protocol import decode_message
from ..sse import SSEEvent, SSEParser
from .failures import Failures

if TYPE_CHECKING:
    from .._log import WireTrace

__all__ = ["Reader", "shorten", "READ_SIZE", "EXCERPT"]

log = logging.getLogger(__name__)

#: Bytes asked of the socket per read of a stream (a bound of ours).
READ_SIZE = 64 * 1024
#: Characters of a refused answer's body kept in an error (a bound of ours).
EXCERPT = 300


class Reader:
    """Reads the answers of one transport; ``trace`` is set when the transport starts.

    Args:
        failures: the transport's translations, for a read that broke.
        max_event_bytes: the largest JSON body or SSE event accepted.
        warn: says what was skipped (the transport's ``on_warn``).
        deliver: hands a server's message to the client (the transport's ``on_message``).
    """

    __slots__ = ("failures", "max_event_bytes", "warn", "deliver", "trace", "_wire_errors")

    def __init__(self, failures: Failures, *, max_event_bytes: int,
                 warn: Callable[[str], None], deliver: Callable[[dict[str, Any]], None]) -> None:
        self.failures = failures
        self.max_event_bytes = max_event_bytes
        self.warn = warn
        self.deliver = deliver
        self.trace: WireTrace | None = None
        self._wire_errors: tuple[type[BaseException], ...] = ()

    def __repr__(self) -> str:
        return f"<Reader max_event_bytes={self.max_event_bytes}>"

    def start(self, trace: WireTrace | None) -> None:
        """Called by the transport's ``start()``, once requests may be imported."""
        from .wire import WIRE_ERRORS

        self.trace, self._wire_errors = trace, WIRE_ERRORS

    # -- a body ----------------------------------------------------------------------

    def body(self, response: Any, what: str) -> bytes:
        """A whole ``application/json`` body, at most ``max_event_bytes`` of it.

        Raises:
            TransportError: the body broke off, or is larger than the bound.
        """
        status = response.status_code
        try:
            data: bytes = response.raw.read(self.max_event_bytes + 1, decode_content=True)
        except self._wire_errors as exc:
            failures = self.failures
            raise TransportError(f"{what}: the response broke off: {failures.cause(exc)}",
                                 status=status) from failures.chained(exc, failures.url)
        if len(data) > self.max_event_bytes:
            raise TransportError(f"{what}: the response body is larger than "
                                 f"max_event_bytes={self.max_event_bytes}", status=status)
        if self.trace is not None:
            self.trace.received(data)
        return data

    def excerpt(self, response: Any) -> str:
        """The start of a refused answer's body, on one line ("" if it cannot be read)."""
        try:
            data = response.raw.read(EXCERPT * 4, decode_content=True)
        except self._wire_errors:
            return ""
        return shorten(data)

    # -- a stream --------------------------------------------------------------------

    def message(self, event: SSEEvent) -> dict[str, Any] | None:
        """An event's JSON-RPC message (traced); None for another event type, a
        priming event (an id and a retry, no data) or one that holds no message
        (said through ``warn``)."""
        if self.trace is not None:
            self.trace.event(event.event, event.data, event.id)
        if event.event != "message" or not event.data.strip():
            return None
        try:
            return decode_message(event.data)
        except ProtocolError as exc:
            self.warn(f"skipped an SSE event that is {exc.message}: {event.data[:200]!r}")
            return None

    def drain(self, response: Any, parser: SSEParser, handle: Callable[[SSEEvent], bool], *,
              awaiting: str = "", going: Callable[[], bool] | None = None,
              before_read: Callable[[], None] | None = None) -> str | None:
        """Feed a stream's events to ``handle`` until it returns True, or the stream ends.

        ``going`` is asked before each read (False: stop, as at the end);
        ``before_read`` runs before each read (a caller's timeout, say).  A
        ``parser`` refusing an event raises its error here.

        Returns:
            None once ``handle`` returned True; otherwise how the stream ended:
            ``"broke: <cause>"``, ``"ended in the middle of an event"`` or
            ``"ended"`` -- or, when ``awaiting`` names what never came (``"the
            answer"``), ``"broke before the answer: <cause>"`` and ``"ended
            without the answer"``.
        """
        raw = response.raw
        while going is None or going():
            if before_read is not None:
                before_read()
            try:
                chunk = raw.read1(READ_SIZE, decode_content=True)
            except self._wire_errors as exc:
                broke = f"broke before {awaiting}" if awaiting else "broke"
                return f"{broke}: {self.failures.cause(exc)}"
            if not chunk:
                break
            for event in parser.feed(chunk):
                if handle(event):
                    return None
        if parser.pending:
            return "ended in the middle of an event"
        return f"ended without {awaiting}" if awaiting else "ended"


def shorten(data: bytes) -> str:
    """An excerpt of a body: its whitespace collapsed, at most :data:`EXCERPT` characters."""
    return " ".join(data[:EXCERPT * 4].decode("utf-8", "replace").split())[:EXCERPT]
