"""Newline-delimited framing, incrementally: byte chunks in, lines out.

This module owns how the stdio transport (:mod:`mcp_client.stdio`) cuts a
child's stdout and stderr into lines (2026-07-28 basic/transports, stdio:
"messages are delimited by newlines").  :meth:`LineBuffer.feed` takes chunks
exactly as a pipe delivers them -- split anywhere, inside a line, inside a
multi-byte character -- and returns the lines they completed, without their
``\\n``.  It must not do I/O, start threads or know about JSON: the transport
decides what a line means.  Whatever the chunking, the lines are those of the
whole stream split at every ``\\n`` (``tests/test_fuzz.py`` checks it).

A line longer than ``max_line`` bytes is never held whole, so a server cannot
make the client buffer without limit: in *drop* mode (``on_drop`` given; the
stdout of JSON-RPC messages) the line is skipped and ``on_drop`` is told its
size, ``\\n`` included; in *cut* mode (the stderr log) it comes out in pieces
of ``max_line`` bytes.  Either way at most ``max_line`` bytes of an
unfinished line are kept.
"""

from __future__ import annotations

from typing import Callable

__all__ = ["LineBuffer"]


class LineBuffer:
    """Splits a byte stream into lines, holding at most ``max_line`` bytes of one.

    Args:
        max_line: the longest line kept whole, in bytes, ``\\n`` excluded.
        on_drop: drop mode: called with the size of each longer line, which
            is skipped.  Without it, longer lines are cut into pieces.

    Not thread-safe: one buffer belongs to one pipe's reader.
    """

    def __init__(self, max_line: int, *, on_drop: Callable[[int], None] | None = None) -> None:
        if isinstance(max_line, bool) or not isinstance(max_line, int) or max_line < 1:
            raise ValueError(f"max_line must be a positive integer, not {max_line!r}")
        self._max = max_line
        self._on_drop = on_drop
        self._partial = bytearray()   # the unfinished line
        self._dropping = -1           # >= 0: bytes of an overlong line skipped so far

    def __repr__(self) -> str:
        state = "dropping" if self._dropping >= 0 else f"holding {len(self._partial)}"
        return f"<LineBuffer {state} max_line={self._max}>"

    @property
    def pending(self) -> int:
        """Bytes of the unfinished line held (0 while one is being dropped)."""
        return len(self._partial)

    def feed(self, chunk: bytes) -> list[bytes]:
        """Take the next bytes of the stream; returns the lines they completed, in order."""
        if not chunk:
            return []
        if chunk[-1] == 10 and not self._partial and self._dropping < 0 and \
                len(chunk) <= self._max:   # whole lines, each short enough: the common case
            complete = chunk.split(b"\n")
            del complete[-1]
            return complete
        *complete, rest = chunk.split(b"\n")
        lines: list[bytes] = []
        for piece in complete:
            self._end(piece, lines)
        self._grow(rest, lines)
        return lines

    def finish(self) -> list[bytes]:
        """The stream ended: its last, unterminated line (if any) is a line too."""
        lines: list[bytes] = []
        if self._dropping >= 0:
            self._drop(self._dropping)
        elif self._partial:
            lines.append(bytes(self._partial))
            self._partial.clear()
        return lines

    def _end(self, piece: bytes, lines: list[bytes]) -> None:
        """A ``\\n`` arrived: ``piece`` is the end of the current line."""
        if self._dropping >= 0:
            self._drop(self._dropping + len(piece) + 1)
            return
        if self._partial:
            self._partial += piece
            piece = bytes(self._partial)
            self._partial.clear()
        if len(piece) <= self._max:
            lines.append(piece)
        elif self._on_drop is not None:
            self._drop(len(piece) + 1)
        else:
            lines.extend(piece[i:i + self._max] for i in range(0, len(piece), self._max))

    def _grow(self, rest: bytes, lines: list[bytes]) -> None:
        """No ``\\n`` yet: keep ``rest`` as the start of a line, within the bound."""
        if self._dropping >= 0:
            self._dropping += len(rest)
            return
        self._partial += rest
        if len(self._partial) <= self._max:
            return
        if self._on_drop is not None:
            self._dropping = len(self._partial)
            self._partial.clear()
            return
        while len(self._partial) > self._max:
            lines.append(bytes(self._partial[:self._max]))
            del self._partial[:self._max]

    def _drop(self, size: int) -> None:
        self._dropping = -1
        assert self._on_drop is not None
        self._on_drop(size)
