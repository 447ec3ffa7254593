"""Server-Sent Events, parsed incrementally: bytes in, events out.

This module owns the ``text/event-stream`` framing of the WHATWG HTML
standard ("Server-sent events", section 9.2.6 "Interpreting an event
stream") as the 2026-07-28 Streamable HTTP transport uses it:
:meth:`SSEParser.feed` takes whatever byte chunks the network delivers,
split anywhere -- inside a line, inside a CRLF pair, inside a multi-byte
character -- and returns the events those bytes completed.  It must not do
I/O, start threads or know about JSON-RPC: the HTTP transport decides what an
event means.

The rules applied: lines end in CRLF, LF or CR (a CR that ends one chunk
and an LF that starts the next are one line end); a UTF-8 byte order mark
at the very start is dropped; invalid UTF-8 becomes U+FFFD; a line starting
with ``:`` is a comment (the SDK's ``: ping`` keep-alive); ``field: value``
loses one leading space of its value; several ``data`` lines are joined with
``"\\n"``; a blank line dispatches the event, unless it has no data; an
event without ``event:`` is a ``"message"``; ``id`` (without NUL) and
``retry`` (digits only) are kept, other fields ignored; and at the end of the
stream an event that was never finished by a blank line is discarded, which
:attr:`SSEParser.pending` lets the caller tell apart from a clean end.

Beyond the standard: one event -- every line from the end of the previous
event up to its blank line, comments included, each line end counted as one
byte whether it is CR, LF or CRLF -- may hold at most ``max_event_bytes``
bytes (16 MiB by default, the same bound as the stdio transport's lines), so
a server cannot make the client buffer without limit.  Past it
:class:`EventTooLarge` is raised and the parser stays failed.  Counting every
line end as one byte is what makes the bound fall in the same place however
the stream is split (a CRLF can arrive as a CR ending one chunk and an LF
starting the next).  A ``retry`` of more than 18 digits (beyond 64 bits) is
ignored, as is any other ``retry`` that is not a number.

Why this is not sseclient-py: sseclient-py 1.9 (``SSEClient.events()``)
pulls from an iterator it consumes to the end, so it cannot be fed chunks as
they arrive, and at the end of its source it dispatches whatever it holds, so
a stream cut mid-event looks like a finished one.  It also ends an event only
when its buffer ends in ``"\\r\\r"``, ``"\\n\\n"`` or ``"\\r\\n\\r\\n"``, so an
LF-ended line followed by a CRLF blank line (``"data: a\\n\\r\\n"``) merges two
events into one; it has no size bound; and invalid UTF-8 raises
``UnicodeDecodeError``.  The standard's algorithm is forty lines, so it is
implemented here rather than patched around.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from .exceptions import TransportError

__all__ = ["SSEEvent", "SSEParser", "EventTooLarge", "DEFAULT_MAX_EVENT_BYTES"]

#: The largest event accepted, in bytes (a bound on memory, not a spec value;
#: the same as the stdio transport's ``max_line_bytes``).
DEFAULT_MAX_EVENT_BYTES = 16 * 1024 * 1024

#: The most digits a ``retry`` value may have (beyond it, Python's int() may refuse).
_RETRY_DIGITS = 18
_LINE_END = re.compile(rb"\r\n|\r|\n")
_BOM = b"\xef\xbb\xbf"


class SSEEvent(NamedTuple):
    """One dispatched event.

    Attributes:
        event: the event type (``"message"`` unless the server named one).
        data: the data lines, joined with ``"\\n"``.
        id: the last event id the stream set (None if it never set one).
        retry: the reconnection time the stream last asked for, in ms.
    """

    event: str
    data: str
    id: str | None = None
    retry: int | None = None


class EventTooLarge(TransportError):
    """An SSE event grew past the parser's ``max_event_bytes``.

    Attributes:
        limit: the bound that was exceeded, in bytes.
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        super().__init__(f"a server-sent event is larger than max_event_bytes={limit}")

    def __reduce__(self) -> Any:
        return (type(self), (self.limit,))


class SSEParser:
    """An incremental ``text/event-stream`` parser.

    Args:
        max_event_bytes: the largest event accepted (see the module docstring).

    Not thread-safe: one parser belongs to one response stream.
    """

    def __init__(self, *, max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES) -> None:
        if isinstance(max_event_bytes, bool) or not isinstance(max_event_bytes, int) \
                or max_event_bytes < 1:
            raise ValueError(f"max_event_bytes must be a positive integer, not {max_event_bytes!r}")
        self._limit = max_event_bytes
        self._partial = bytearray()   # the unfinished line
        self._size = 0                # bytes of the event in progress, finished lines only
        self._skip_lf = False         # the previous chunk ended in CR
        self._started = False         # the first line was seen (for the BOM)
        self._data: list[str] = []
        self._type = ""
        self._last_id: str | None = None
        self._retry: int | None = None
        self._failed: EventTooLarge | None = None

    def __repr__(self) -> str:
        state = "failed" if self._failed else "pending" if self.pending else "idle"
        return f"<SSEParser {state} limit={self._limit}>"

    @property
    def pending(self) -> bool:
        """True while bytes of an unfinished event are held (a cut here loses it)."""
        return bool(self._partial) or self._size > 0

    @property
    def last_event_id(self) -> str | None:
        """The last ``id`` the stream set."""
        return self._last_id

    @property
    def retry(self) -> int | None:
        """The last ``retry`` the stream set, in ms (even on an event without data)."""
        return self._retry

    def feed(self, chunk: bytes) -> list[SSEEvent]:
        """Parse the next bytes of the stream.

        Args:
            chunk: any number of bytes, split anywhere.

        Returns:
            the events completed by this chunk, in stream order.

        Raises:
            EventTooLarge: the event in progress passed ``max_event_bytes``
                (then and on every later call).
        """
        if self._failed is not None:
            raise self._failed
        events: list[SSEEvent] = []
        if not chunk:
            return events
        view = memoryview(chunk)
        pos = 0
        if self._skip_lf and chunk[:1] == b"\n":
            pos = 1
        self._skip_lf = False
        while True:
            found = _LINE_END.search(chunk, pos)
            if found is None:
                break
            start, end = found.span()
            if end == len(chunk) and chunk[start:end] == b"\r":
                self._skip_lf = True   # an LF may start the next chunk
            if self._partial:
                self._partial += view[pos:start]
                line = bytes(self._partial)
                self._partial.clear()
            else:
                line = chunk[pos:start]
            pos = end
            self._account(len(line) + 1)
            event = self._line(line)
            if event is not None:
                events.append(event)
        if pos < len(chunk):
            self._partial += view[pos:]
            self._account(0)
        return events

    def _account(self, line_bytes: int) -> None:
        self._size += line_bytes
        if self._size + len(self._partial) > self._limit:
            self._failed = EventTooLarge(self._limit)
            self._partial.clear()
            self._data.clear()
            raise self._failed

    def _line(self, raw: bytes) -> SSEEvent | None:
        if not self._started:
            self._started = True
            if raw.startswith(_BOM):
                raw = raw[len(_BOM):]
        if not raw:
            return self._dispatch()
        if raw[:1] == b":":
            return None
        name, colon, value = raw.partition(b":")
        if colon and value[:1] == b" ":
            value = value[1:]
        field = name.decode("utf-8", "replace")
        if field == "data":
            self._data.append(value.decode("utf-8", "replace"))
        elif field == "event":
            self._type = value.decode("utf-8", "replace")
        elif field == "id":
            if b"\0" not in value:
                self._last_id = value.decode("utf-8", "replace")
        elif field == "retry":
            if value.isdigit() and len(value) <= _RETRY_DIGITS:
                self._retry = int(value)
        return None

    def _dispatch(self) -> SSEEvent | None:
        data, event_type = self._data, self._type
        self._data, self._type, self._size = [], "", 0
        if not data:
            return None
        return SSEEvent(event_type or "message", "\n".join(data), self._last_id, self._retry)
