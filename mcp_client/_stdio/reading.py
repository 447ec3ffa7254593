"""A child's stdout, read by one thread at a time: the reader thread, or a caller (leader/follower).

A caller blocked on its answer would otherwise wait for the reader thread to
read it and wake it, and that hand-off costs as much as the client's own work
on a fast pipe.  So a caller that is waiting may *lead*: read the pipe on its
own thread until its answer has come, dispatching every line it reads -- the
answers of other requests, notifications, server requests -- exactly as the
reader thread would, in the order they came.  The rules:

* one reader at a time: whoever holds :attr:`PipeReader.token` reads the
  pipe and feeds the one :class:`~mcp_client._lines.LineBuffer`; a caller
  that cannot take it at once waits for its answer as before (a follower);
* the reader thread never waits on the pipe while a caller leads: the leader
  *kicks* it off its ``poll()`` (a byte on a pipe of its own), and it parks;
* parked, it looks again every :data:`PARK` seconds and takes over when no
  lead happened for a whole period -- so calls made back to back cost it
  one wake-up per period, not one per call -- or at once when a leader hands
  back with work left: its own answer not in (a timeout), other answers
  awaited, the end of the stream seen (the reader reports the death);
* a leader that waits long (a slow tool) lets the parked reader sleep until
  it is handed back, rather than look every period;
* the waker (the transport is closing, or the child is gone and something
  else holds the pipe) ends every reader and every lead.

The price: a notification that arrives while nobody waits, just after a
burst of calls, is dispatched up to two periods late.  That holds for the
notifications of an open ``subscriptions/listen`` too: the listen is a
standing request, which ``waiting()`` does not count, so calls made while
one is open (``watch=True``) keep the pipe as they would without it.

It does no more than read and dispatch: the transport decides what a line
means, and what EOF does.
"""

from __future__ import annotations

import os
import select
import threading
import time

from . import pipes

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import IO, Callable, Protocol

    from .._lines import LineBuffer

    class Waker(Protocol):
        is_set: bool

        def fileno(self) -> int: ...

__all__ = ["PipeReader", "read_to_end", "PARK", "READ_SIZE"]

#: How long the parked reader thread sleeps between looks while callers lead (seconds).
PARK = 0.002
#: The kick that hands the pipe back at once (any other byte: look again in a while).
_URGENT = b"!"
#: Bytes asked of the pipe per read (the pipe buffer of Linux, 16 pages).
READ_SIZE = 64 * 1024


class PipeReader:
    """One child's stdout (POSIX; non-blocking fd), read by the reader thread or a leader.

    Args:
        fd: the pipe, already non-blocking.
        waker: once set, every read stops (see :class:`mcp_client._stdio.pipes.Waker`).
        lines: the framing, fed by whoever reads.
        handle: called with each complete line, on the thread that read it.
    """

    def __init__(self, fd: int, waker: Waker, lines: LineBuffer,
                 handle: Callable[[bytes], None]) -> None:
        self._fd = fd
        self._waker = waker
        self.lines = lines   # fed only under the token
        self._handle = handle
        self.token = threading.Lock()   # held by whoever reads the pipe
        self._kick_r, self._kick_w = os.pipe()
        os.set_blocking(self._kick_r, False)
        os.set_blocking(self._kick_w, False)
        self._kick_lock = threading.Lock()   # a kick never writes to a closed (reused) fd
        self._leader_poll = select.poll()   # used only by the token's holder
        self._leader_poll.register(fd, select.POLLIN)
        self._leader_poll.register(waker.fileno(), select.POLLIN)
        self._polling = False    # the reader thread waits on the pipe, without the token
        self._parked = False     # the reader thread sleeps until kicked (a long lead)
        self._leader = False
        self._leader_thread = 0
        self._leads = 0          # leads begun, so the parked reader sees activity
        self.eof = False         # the stream ended: only the reader thread reads from now on
        self._retired = False

    def __repr__(self) -> str:
        who = "a caller" if self._leader else "the reader thread"
        return f"<PipeReader fd={self._fd} read by {who}{' eof' if self.eof else ''}>"

    # -- the reader thread ------------------------------------------------------------

    def run(self) -> None:
        """Read and dispatch until EOF or the waker is set (the reader thread's loop)."""
        poller = select.poll()
        poller.register(self._fd, select.POLLIN)
        poller.register(self._waker.fileno(), select.POLLIN)
        poller.register(self._kick_r, select.POLLIN)
        token, waker, fd = self.token, self._waker, self._fd
        while not waker.is_set:
            if not token.acquire(False):   # a caller leads
                self._park()
                continue
            try:
                if self._retired:
                    return
                try:
                    chunk = os.read(fd, READ_SIZE)
                except BlockingIOError:
                    chunk = None
                if chunk is not None:
                    if not chunk:
                        self.eof = True
                        return
                    for line in self.lines.feed(chunk):
                        self._handle(line)
                    if len(chunk) == READ_SIZE:
                        continue   # more may be waiting; a short read emptied the pipe
                self._polling = True   # under the token: a leader after us sees it
            finally:
                token.release()
            ready = poller.poll()
            self._polling = False
            if len(ready) != 1 or ready[0][0] != fd:   # not the pipe alone: a kick, or the end
                self._drain_kicks()

    def _park(self) -> None:
        """Stay off the pipe while callers lead; return when it is ours to read again."""
        parker = select.poll()
        parker.register(self._waker.fileno(), select.POLLIN)
        parker.register(self._kick_r, select.POLLIN)
        waker = self._waker
        while not waker.is_set:
            seen = self._leads
            urgent = bool(parker.poll(PARK * 1000)) and self._drain_kicks()
            if not self._leader:
                if urgent or self._leads == seen:
                    return
                continue
            if self._leads == seen:   # one long lead: sleep until it hands back
                self._parked = True
                if self._leader:
                    parker.poll()
                    self._drain_kicks()
                self._parked = False

    def _drain_kicks(self) -> bool:
        """Empty the kick pipe; whether one of the kicks was urgent (take over now)."""
        try:
            return _URGENT in os.read(self._kick_r, 4096)
        except (BlockingIOError, OSError):
            return False

    def _kick(self, urgent: bool = False) -> None:
        """Wake the reader thread: off the pipe (a lead begins), or back onto it."""
        with self._kick_lock:
            if self._kick_w < 0:
                return   # retired: nobody to kick
            try:
                os.write(self._kick_w, _URGENT if urgent else b".")
            except OSError:
                pass   # full: a kick is waiting already

    # -- a caller ------------------------------------------------------------------------

    def lead(self, done: Callable[[], bool], timeout: float | None,
             waiting: Callable[[], int],
             first: Callable[[], None] | None = None) -> float | None:
        """Read the pipe on this thread until ``done()``, for at most ``timeout`` seconds.

        Returns at once, with ``timeout``, when another thread reads the pipe;
        otherwise what is left of ``timeout`` (None: no budget) once ``done()``
        is true, the budget ran out, the stream ended or the waker was set.
        ``waiting()`` says how many answers are still awaited (standing
        requests left out): any, and the reader thread takes over at once.
        ``first`` (the sends whose answers this waits for) runs once, after
        the pipe is ours if it can be: the reader thread must not be the one
        woken by their answers.
        """
        if self.eof or self._retired or not self.token.acquire(False):
            if first is not None:
                first()
            return timeout
        deadline = None if timeout is None else time.monotonic() + timeout
        self._leader = True
        self._leader_thread = threading.get_ident()
        self._leads += 1
        try:
            if self._polling:
                self._kick()
            if first is not None:
                first()
            self._read_until(done, deadline)
        finally:
            self._leader = False
            self.token.release()
            if self.eof or not done() or waiting():
                self._kick(urgent=True)   # work left: the reader thread takes over now
            elif self._parked:
                self._kick()   # out of its long sleep: it takes over if no lead follows
        if deadline is None:
            return None
        return max(0.0, deadline - time.monotonic())

    def _read_until(self, done: Callable[[], bool], deadline: float | None) -> None:
        # Wait first, then read: the answer is hardly ever in yet when a leader starts,
        # and a read that finds the pipe empty costs an exception besides the syscall.
        fd, waker, lines, handle = self._fd, self._waker, self.lines, self._handle
        poll = self._leader_poll.poll
        while not done():
            if waker.is_set or self._retired:
                return
            if deadline is None:
                poll()
            else:
                left = deadline - time.monotonic()
                if left <= 0:
                    return
                if not poll(left * 1000):
                    continue
            try:
                chunk = os.read(fd, READ_SIZE)
            except BlockingIOError:
                continue   # only the waker is readable
            except (OSError, ValueError):
                return
            if not chunk:
                self.eof = True   # the reader thread reads it again, and reports the death
                return
            for line in lines.feed(chunk):
                handle(line)

    def leads_here(self) -> bool:
        """Whether the calling thread is the leader (it holds the pipe)."""
        return self._leader and self._leader_thread == threading.get_ident()

    # -- the end -------------------------------------------------------------------------

    def retire(self, grace: float) -> None:
        """No read from now on; waits up to ``grace`` for a leader to leave (waker set first)."""
        self._retired = True
        self._kick(urgent=True)
        held = self.token.acquire(timeout=0 if self.leads_here() else grace)   # a hook closed it
        try:
            with self._kick_lock:
                fds, self._kick_r, self._kick_w = (self._kick_r, self._kick_w), -1, -1
            for fd in fds:
                if fd >= 0:
                    os.close(fd)
        finally:
            if held:
                self.token.release()


def read_to_end(pipe: PipeReader | None, stdout: IO[bytes], waker: pipes.Waker,
                new_lines: Callable[[], LineBuffer], handle: Callable[[bytes], None]) -> None:
    """The reader thread's loop: every line of stdout to ``handle``, until EOF or the waker.

    ``pipe`` (POSIX) is shared with the callers that lead; without one,
    ``stdout`` is read in chunks into ``new_lines()``.

    Raises:
        OSError: the pipe was closed under us.
        ValueError: the pipe was closed under us.
    """
    if pipe is not None:
        pipe.run()
        with pipe.token:
            lines = pipe.lines
    else:
        lines = new_lines()
        for chunk in pipes.chunks(stdout, waker):
            for line in lines.feed(chunk):
                handle(line)
    for line in lines.finish():
        handle(line)
