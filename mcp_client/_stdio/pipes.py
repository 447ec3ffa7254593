"""The stdio transport's pipe helpers: a wake-up pipe of our own, and a child's pipe read
chunk by chunk until EOF or that wake-up.

On POSIX every reader of a child's pipe waits in ``poll()`` on the pipe *and*
on the :class:`Waker`, so setting it frees the reader even when a process
that escaped the child's group holds the pipe open for ever.
"""

from __future__ import annotations

import os
import select
import threading
from typing import IO, Iterator

__all__ = ["Waker", "chunks", "READ_SIZE"]

#: Bytes asked of a pipe per read (the pipe buffer of Linux, 16 pages).
READ_SIZE = 64 * 1024
_POSIX = os.name == "posix"


class Waker:
    """A pipe of our own that, once set, makes the child's pipe readers stop waiting."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._fds: tuple[int, int] | None = os.pipe() if _POSIX else None
        self.is_set = False

    def fileno(self) -> int:
        assert self._fds is not None
        return self._fds[0]

    def set(self) -> None:
        """Wake every reader (idempotent, and harmless after :meth:`close`)."""
        with self._lock:
            self.is_set = True
            if self._fds is not None:
                try:
                    os.write(self._fds[1], b"!")
                except OSError:
                    pass   # full: it is set already

    def close(self) -> None:
        with self._lock:
            fds, self._fds = self._fds, None
        for fd in fds or ():
            os.close(fd)


def chunks(stream: IO[bytes], waker: Waker) -> Iterator[bytes]:
    """What the child writes to ``stream``, chunk by chunk, until EOF or ``waker`` is set."""
    if not _POSIX:   # Windows cannot poll a pipe: block, and rely on the group's end
        while chunk := stream.read1(READ_SIZE):   # type: ignore[attr-defined]
            yield chunk
        return
    fd = stream.fileno()
    os.set_blocking(fd, False)   # our end only; read first, and poll only when it is empty
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    poller.register(waker.fileno(), select.POLLIN)
    while not waker.is_set:
        try:
            chunk = os.read(fd, READ_SIZE)
        except BlockingIOError:
            poller.poll()
            continue
        if not chunk:
            return
        yield chunk
