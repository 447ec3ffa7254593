"""A child's stderr: the ring of its last lines, which ``ServerGone`` carries.

Every line the watcher thread reads from a child's stderr is kept (the last
``size`` of them) and passed to the user's ``on_stderr``.  Once the client
has settled the era (:meth:`StderrTail.settle`), what was written before
that -- on ``mcp`` 1.x servers ~95 lines of complaint about the
``server/discover`` probe -- is folded into one line of :attr:`StderrTail.text`
whenever the server wrote anything after it, so a dead server's own last
words come first.  No thread of its own and no I/O but one ``ioctl``.
"""

from __future__ import annotations

import collections
import threading
from typing import IO, Callable

__all__ = ["StderrTail", "pending_bytes"]


def pending_bytes(stream: IO[bytes] | None) -> int:
    """Bytes waiting in a pipe (FIONREAD); 0 where that cannot be asked."""
    if stream is None:
        return 0
    try:
        import array
        import fcntl
        import termios

        count = array.array("i", [0])
        fcntl.ioctl(stream.fileno(), termios.FIONREAD, count)
        return int(count[0])
    except (ImportError, AttributeError, OSError, ValueError):
        return 0


class StderrTail:
    """The last ``size`` stderr lines of one child at a time, and where the era was settled.

    Args:
        size: how many lines to keep.
        on_stderr: called with each line (on the watcher thread); what it
            raises is reported through ``warn``.
        warn: reports a problem (the transport's ``on_warn``).
    """

    def __init__(self, size: int, on_stderr: Callable[[str], None] | None,
                 warn: Callable[[str], None]) -> None:
        self._lines: collections.deque[str] = collections.deque(maxlen=max(1, int(size)))
        self._lock = threading.Lock()   # the ring, its count and its mark agree
        self._on_stderr = on_stderr
        self._warn = warn
        self._count = 0                       # lines this child wrote to stderr
        self._settled_at: int | None = None   # ... when the era was settled
        self._bytes = 0                       # bytes of those lines
        self._settle_bytes = 0                # ... and of every line written before it

    def clear(self) -> None:
        """Forget every line (a new child)."""
        with self._lock:
            self._lines.clear()
            self._count, self._settled_at = 0, None
            self._bytes = self._settle_bytes = 0

    def add(self, raw: bytes) -> None:
        """Keep one line the child wrote (its ``\\n`` stripped), and pass it on."""
        line = raw.decode("utf-8", "replace").rstrip("\r")
        with self._lock:
            self._lines.append(line)
            self._count += 1
            self._bytes += len(raw) + 1
            if self._settled_at is not None and self._bytes <= self._settle_bytes:
                self._settled_at = self._count   # written before it, read after
        if self._on_stderr is not None:
            try:
                self._on_stderr(line)
            except Exception as exc:
                self._warn(f"on_stderr raised {exc!r}")

    def settle(self, stderr: IO[bytes] | None) -> None:
        """The era is settled now (the child's ``stderr`` is read by the watcher).

        What is still in the pipe was written before the era was settled, and
        counts as before when it is read.
        """
        pending = pending_bytes(stderr)
        with self._lock:
            self._settled_at = self._count
            self._settle_bytes = self._bytes + pending

    @property
    def text(self) -> str:
        """The lines kept, those from before :meth:`settle` folded when others follow."""
        with self._lock:
            lines, count, settled = list(self._lines), self._count, self._settled_at
        after = 0 if settled is None else count - settled
        if after <= 0 or after >= len(lines):
            return "\n".join(lines)
        before = len(lines) - after
        return "\n".join([f"[{before} earlier lines, from before the handshake completed, "
                          "left out]", *lines[-after:]])
