"""What a child's full stdin pipe did not take, and the thread that drains it.

Writes to a child never block the caller (our end of stdin is
non-blocking): the rest of a message the pipe did not take waits in
:attr:`Outbox.data`, in order, and a writer thread, started only then and
ended as soon as the backlog is gone, writes it as the pipe frees up.  The
transport holds the write lock around every call here and keeps writing
behind a backlog rather than past it.
"""

from __future__ import annotations

import os
import select
import subprocess
import threading
from typing import Callable

from ..exceptions import ServerGone

__all__ = ["Outbox", "MAX_OUTBOX"]

#: The most bytes kept for a server that does not read its stdin fast enough.
MAX_OUTBOX = 64 * 1024 * 1024


class Outbox:
    """One child's backlog of stdin bytes.

    Args:
        proc: the child.
        lock: the transport's write lock (held around :meth:`queue`; the
            writer thread takes it for each write).
        is_open: whether the transport is still open (the writer stops when not).
        tail: the child's stderr tail, for :class:`ServerGone`.
        threads: the transport's list of threads to join, which the writer joins.
    """

    def __init__(self, proc: subprocess.Popen[bytes], lock: threading.Lock,
                 is_open: Callable[[], bool], tail: Callable[[], str],
                 threads: list[threading.Thread]) -> None:
        self.data = bytearray()   # read by the transport's send path: empty, no backlog
        self._proc = proc
        self._lock = lock
        self._is_open = is_open
        self._tail = tail
        self._threads = threads
        self._writer: threading.Thread | None = None

    def queue(self, rest: bytes) -> None:
        """Keep what the full pipe did not take; a writer thread drains it (lock held).

        Raises:
            ServerGone: the backlog would pass :data:`MAX_OUTBOX`.
        """
        if len(self.data) + len(rest) > MAX_OUTBOX:
            raise ServerGone(self._proc.poll(), self._tail(),
                             f"the server is not reading its stdin ({len(self.data)} "
                             "bytes are waiting)")
        self.data += rest
        if self._writer is None or not self._writer.is_alive():
            self._writer = threading.Thread(target=self._drain,
                                            name=f"mcp-stdio-writer-{self._proc.pid}",
                                            daemon=True)
            self._threads.append(self._writer)
            self._writer.start()

    def _drain(self) -> None:
        stdin = self._proc.stdin
        assert stdin is not None
        while self._is_open():
            try:
                fd = stdin.fileno()
                select.select([], [fd], [], 0.2)
            except (OSError, ValueError):
                return
            with self._lock:
                if not self._is_open() or not self.data:
                    return
                try:
                    written = os.write(fd, self.data)
                except BlockingIOError:
                    continue
                except (OSError, ValueError):
                    return   # the reader will report the death
                del self.data[:written]
                if not self.data:
                    return
