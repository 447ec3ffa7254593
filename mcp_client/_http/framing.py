"""Reading an HTTP/1.1 answer off a buffered socket: status line, headers, body framing.

The direct path (:mod:`mcp_client._http.direct`) reads its answers with
this instead of :mod:`http.client`, whose header parsing goes through the
``email`` package and costs more than the rest of a POST.  What it accepts
(RFC 9112): a status line ``HTTP/1.x NNN reason``, informational (1xx)
answers skipped, at most :data:`MAX_HEADERS` header lines of at most
:data:`MAX_LINE` bytes (obsolete line folding joined, each folded line
counted), and a body framed by ``Transfer-Encoding: chunked`` (no other
transfer coding), by ``Content-Length`` (two different values are
refused), or by the connection's end; ``gzip`` and ``deflate``
``Content-Encoding`` is undone, in bounded steps (no answer is inflated past
what a read asked for).  A bare CR or a NUL in a header value becomes a
space (RFC 9110 §5.5), so no value read here can break a header line it is
sent back in.  Everything else it refuses with :class:`BadAnswer`.

Pure parsing over a file object: no sockets of its own, no MCP.
"""

from __future__ import annotations

import http.client
import zlib
from typing import Any, Iterator, Mapping, Protocol

__all__ = ["BadAnswer", "Reader", "Headers", "Body", "read_head", "MAX_LINE", "MAX_HEADERS"]

#: The longest status, header or chunk-size line accepted (what http.client allows).
MAX_LINE = 65536
#: The most header lines an answer may have (what http.client allows).
MAX_HEADERS = 100
_CHUNK = 64 * 1024
_NO_BODY = frozenset({204, 304})


class Reader(Protocol):
    """What the answer is read from: a buffered binary stream (``io.BufferedReader``)."""

    def readline(self, size: int | None = -1, /) -> bytes: ...

    def read(self, size: int | None = -1, /) -> bytes: ...

    def read1(self, size: int = -1, /) -> bytes: ...


class BadAnswer(http.client.HTTPException):
    """The bytes are not an HTTP/1.x answer this reader accepts (or they ended too soon)."""


class Headers(Mapping[str, str]):
    """An answer's headers: case-insensitive, a repeated one's values joined with ``", "``."""

    __slots__ = ("_items", "_index")

    def __init__(self, items: list[tuple[str, str]]) -> None:
        self._items = items
        index: dict[str, list[str]] = {}
        for name, value in items:
            index.setdefault(name.lower(), []).append(value)
        self._index = index

    def get(self, name: str, default: Any = None) -> Any:
        values = self._index.get(name.lower())
        if not values:
            return default
        return values[0] if len(values) == 1 else ", ".join(values)

    def get_all(self, name: str, default: Any = None) -> Any:
        """Every value of header ``name``, in order (``default`` when it is absent)."""
        values = self._index.get(name.lower())
        return list(values) if values else default

    def __getitem__(self, name: str) -> str:
        value = self.get(name)
        if value is None:
            raise KeyError(name)
        return str(value)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.lower() in self._index

    def __iter__(self) -> Iterator[str]:
        seen: set[str] = set()
        for name, _ in self._items:
            if name.lower() not in seen:
                seen.add(name.lower())
                yield name

    def __len__(self) -> int:
        return len(self._index)

    def __repr__(self) -> str:
        return f"Headers({dict(self)!r})"


def _line(fp: Reader, what: str) -> bytes:
    line = fp.readline(MAX_LINE + 1)
    if len(line) > MAX_LINE:
        raise BadAnswer(f"the {what} is longer than {MAX_LINE} bytes")
    return line


def _header_lines(fp: Reader) -> list[tuple[str, str]]:
    items: list[tuple[str, str]] = []
    # Every line counts, a folded one too (as in http.client): else a value
    # folded a million times would grow without bound, and quadratically.
    for _ in range(MAX_HEADERS + 1):
        line = _line(fp, "header line")
        if line in (b"\r\n", b"\n"):
            return items
        if not line:
            raise BadAnswer("the connection ended in the headers")
        if line[:1] in (b" ", b"\t") and items:   # obsolete line folding (RFC 9112 §5.2)
            name, value = items[-1]
            items[-1] = (name, f"{value} {_clean(line.strip().decode('latin-1'))}")
            continue
        name, colon, value = line.decode("latin-1").partition(":")
        if not colon or not name or name != name.strip():
            raise BadAnswer(f"a malformed header line: {line[:80]!r}")
        items.append((name, _clean(value.strip())))
    raise BadAnswer(f"more than {MAX_HEADERS} header lines")


def _clean(value: str) -> str:
    return value.replace("\r", " ").replace("\0", " ")


def read_head(fp: Reader) -> tuple[int, bytes, Headers, str]:
    """``(status, version, headers, reason)`` of the next final answer on ``fp``.

    Raises:
        BadAnswer: the connection ended first (``Remote end closed connection
            without response``) or the head is malformed.
        OSError: reading failed (a timeout included).
    """
    while True:
        line = _line(fp, "status line")
        if not line:
            raise BadAnswer("Remote end closed connection without response")
        version, _, rest = line.partition(b" ")
        code = rest[:3]
        if not version.startswith(b"HTTP/1.") or not code.isdigit() or rest[3:4] not in (
                b" ", b"\r", b"\n", b""):
            raise BadAnswer(f"not an HTTP/1.x status line: {line[:80]!r}")
        headers = Headers(_header_lines(fp))
        status = int(code)
        if status >= 200 or status == 101:
            return status, version, headers, rest[4:].strip().decode("latin-1")


def _will_close(version: bytes, headers: Headers) -> bool:
    tokens = {token.strip().lower() for token in (headers.get("Connection") or "").split(",")}
    if version == b"HTTP/1.0":
        return "keep-alive" not in tokens
    return "close" in tokens


class Body:
    """The body of one answer, framed as its head says, decoded as it says.

    Args:
        fp: the connection's buffered reader, positioned after the head.
        status: the answer's status (204, 304 and 1xx have no body).
        version: its HTTP version (``b"HTTP/1.1"``).
        headers: its headers.

    Attributes:
        done: the whole body was read.
        will_close: the connection ends with this answer (it may not be reused).
    """

    def __init__(self, fp: Reader, status: int, version: bytes,
                 headers: Headers) -> None:
        self._fp = fp
        self.will_close = _will_close(version, headers)
        self._chunked = False
        self._left: int | None = None   # bytes left: of the body, or of the current chunk
        self.done = False
        if status in _NO_BODY or status < 200:
            self.done = True
        elif _chunked(headers.get("Transfer-Encoding")):
            self._chunked, self._left = True, 0
        else:
            length = headers.get_all("Content-Length")
            if length:
                # isascii(): str.isdigit() also says yes to "²", which int() refuses
                if len(set(length)) > 1 or not (length[0].isascii() and length[0].isdigit()):
                    raise BadAnswer(f"a bad Content-Length: {', '.join(length)[:80]!r}")
                self._left = int(length[0])
                self.done = self._left == 0
            else:
                self.will_close = True   # the body ends with the connection
        self._decoder = _decoder(headers.get("Content-Encoding"))

    def read(self, amount: int) -> bytes:
        """Up to ``amount`` bytes, fewer only at the end (raises :class:`BadAnswer`, OSError)."""
        out = bytearray()
        while len(out) < amount:
            chunk = self.read1(amount - len(out))
            if not chunk:
                break
            out += chunk
        return bytes(out)

    def read1(self, amount: int) -> bytes:
        """At most ``amount`` bytes with at most one read of the socket; ``b""`` at the end."""
        decoder = self._decoder
        if decoder is None:
            return self._raw(amount)
        while True:
            data = decoder.unconsumed_tail or self._raw(_CHUNK)
            try:
                if not data:
                    return bytes(decoder.flush())
                out = decoder.decompress(data, amount)
            except zlib.error as exc:
                raise BadAnswer(f"the answer's Content-Encoding is broken: {exc}") from exc
            if out:
                return bytes(out)

    def _raw(self, amount: int) -> bytes:
        if self.done:
            return b""
        fp = self._fp
        if not self._chunked:
            if self._left is None:   # until the connection ends
                data = fp.read1(amount)
                self.done = not data
                return data
            data = fp.read1(min(amount, self._left))
            if not data:
                raise BadAnswer(f"the connection ended {self._left} bytes before the body did")
            self._left -= len(data)
            self.done = self._left == 0
            return data
        if not self._left:
            self._left = self._chunk_size()
            if not self._left:
                self._trailers()
                return b""
        data = fp.read1(min(amount, self._left))
        if not data:
            raise BadAnswer("the connection ended in the middle of a chunk")
        self._left -= len(data)
        if not self._left and fp.read(2) not in (b"\r\n", b"\n"):
            raise BadAnswer("a chunk is not followed by CRLF")
        return data

    def _chunk_size(self) -> int:
        line = _line(self._fp, "chunk size line")
        if not line:
            raise BadAnswer("the connection ended before the last chunk")
        size = line.split(b";", 1)[0].strip()
        try:
            return int(size, 16)
        except ValueError:
            raise BadAnswer(f"a bad chunk size line: {line[:80]!r}") from None

    def _trailers(self) -> None:
        for _ in range(MAX_HEADERS + 1):
            line = _line(self._fp, "trailer line")
            if line in (b"\r\n", b"\n", b""):
                self.done = True
                return
        raise BadAnswer(f"more than {MAX_HEADERS} trailer lines")


def _chunked(value: str | None) -> bool:
    """Whether ``Transfer-Encoding: value`` frames the body in chunks.

    Raises:
        BadAnswer: a transfer coding other than ``chunked`` (and the no-op
            ``identity``): one not undone here (``gzip, chunked``), or not
            one at all (``xchunked``), whose body could be framed no way
            both ends agree on.
    """
    codings = [coding.strip().lower() for coding in (value or "").split(",")]
    codings = [coding for coding in codings if coding and coding != "identity"]
    if codings and codings != ["chunked"]:
        raise BadAnswer(f"the answer came in Transfer-Encoding {value!r}, which was not asked for")
    return bool(codings)


def _decoder(encoding: str | None) -> Any:
    value = (encoding or "").strip().lower()
    if value in ("", "identity"):
        return None
    if value in ("gzip", "x-gzip"):
        return zlib.decompressobj(16 + zlib.MAX_WBITS)
    if value == "deflate":
        return _Deflate()
    return _Refuse(value)


class _Deflate:
    """``Content-Encoding: deflate``: zlib-wrapped as the RFC says, or raw as some servers send."""

    def __init__(self) -> None:
        self._inner = zlib.decompressobj()
        self._first = True

    @property
    def unconsumed_tail(self) -> bytes:
        return self._inner.unconsumed_tail

    def decompress(self, data: bytes, amount: int) -> bytes:
        if self._first:
            self._first = False
            try:
                return self._inner.decompress(data, amount)
            except zlib.error:
                self._inner = zlib.decompressobj(-zlib.MAX_WBITS)
        return self._inner.decompress(data, amount)

    def flush(self) -> bytes:
        return self._inner.flush()


class _Refuse:
    """A ``Content-Encoding`` that was not asked for: reading the body fails."""

    unconsumed_tail = b""

    def __init__(self, encoding: str) -> None:
        self._encoding = encoding

    def decompress(self, data: bytes, amount: int) -> bytes:
        raise BadAnswer(f"the answer came in Content-Encoding {self._encoding!r}, "
                        "which was not asked for")

    def flush(self) -> bytes:
        return b""
