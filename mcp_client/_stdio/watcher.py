"""Every stdio child's stderr and exit, watched by one thread for the whole process.

A stdio server needs more than its stdout reader: its stderr must be drained
(a child whose stderr pipe fills up stops dead) into the tail a death report
quotes, and its exit must be noticed even when a grandchild it left behind
holds stdout open, so the reader never sees EOF.  A thread for each of those
two jobs would triple the threads of an agent with a hundred servers.  Here
one thread, ``mcp-stdio-watcher``, does both for every child: it waits in
``poll()`` on each child's stderr, on its *pidfd* (Linux 5.3+: readable once
the child has exited) and on the transport's wake-up pipe.  It starts with
the first child and ends when the last one is released, so a process that
has closed its transports has no thread of this module left.

It must not block: what it calls back (a stderr line, the next step after an
exit) runs on this thread, so a slow ``on_stderr`` hook delays the other
children's stderr -- it loses none of it, since their pipes hold it.  It must
not close what it did not open: the child's pipes stay the transport's, to
close only once :meth:`Watch.release` has returned.

Where ``pidfd_open`` is missing or refused (macOS, an old kernel, a sandbox),
one more thread per child waits for its exit; where pipes cannot be polled at
all (Windows), stderr gets a thread of its own too.  So a child costs its
reader and, at most, one thread besides the shared one on every POSIX system.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import os
import select
import subprocess
import threading
import time
from typing import IO, Callable, Iterator, Protocol

from .._lines import LineBuffer

__all__ = ["Watch", "watch", "READ_SIZE"]

log = logging.getLogger("mcp_client.stdio")

#: Bytes asked of a pipe per read (the pipe buffer of Linux, 16 pages).
READ_SIZE = 64 * 1024
_POSIX = os.name == "posix"

#: ``on_exit()``: run once the child has exited; each number it yields is the
#: seconds after which it is resumed (it ends when it has nothing more to do).
ExitSteps = Callable[[], Iterator[float]]


class Waker(Protocol):
    """The transport's wake-up pipe: readable once the child's pipes must be let go."""

    def fileno(self) -> int: ...


class Watch:
    """One child's stderr and exit, as the watcher thread sees them.

    Made by :func:`watch`; the transport only calls :meth:`release`.
    """

    def __init__(self, proc: subprocess.Popen[bytes], waker: Waker,
                 on_line: Callable[[bytes], None], on_exit: ExitSteps,
                 stderr_done: threading.Event, max_line: int) -> None:
        assert proc.stderr is not None
        self.proc = proc
        self.waker = waker
        self.stderr: IO[bytes] = proc.stderr
        self.on_line = on_line
        self.on_exit = on_exit
        self.stderr_done = stderr_done
        self.lines = LineBuffer(max_line)
        self.released = threading.Event()
        self.pidfd: int | None = None
        self.exit_thread: threading.Thread | None = None
        self.steps: Iterator[float] | None = None
        self.exited = False      # the exit was seen and its steps have all run
        self.threads: list[threading.Thread] = []

    def __repr__(self) -> str:
        state = "released" if self.released.is_set() else "watched"
        return f"<Watch pid={self.proc.pid} {state}>"

    def release(self, timeout: float) -> bool:
        """Wait until the watcher no longer touches this child's pipes (the waker is set).

        Returns:
            False if it was still at them after ``timeout`` seconds.
        """
        if _WATCHER.on_its_thread():   # a hook on the watcher thread closing its transport
            _WATCHER.release_here(self)
        done = self.released.wait(timeout)
        if done and _POSIX:
            _WATCHER.retire_if_idle(timeout)
        for thread in self.threads:
            if thread is not threading.current_thread():
                thread.join(timeout)
        return done

    # -- on the watcher thread -------------------------------------------------------

    def feed(self, chunk: bytes) -> None:
        for raw in self.lines.feed(chunk):
            self._line(raw)

    def finish_stderr(self) -> None:
        """No more stderr: the tail is complete."""
        if self.stderr_done.is_set():
            return
        for raw in self.lines.finish():
            self._line(raw)
        self.stderr_done.set()

    def _line(self, raw: bytes) -> None:
        try:
            self.on_line(raw)
        except Exception:   # the transport reports its hook's errors; this is a last guard
            log.exception("a stderr line of pid %s could not be handled", self.proc.pid)

    def next_step(self) -> float | None:
        """Run the exit's steps up to their next pause; None when they are done."""
        try:
            if self.steps is None:
                self.steps = self.on_exit()
            return next(self.steps)
        except StopIteration:
            pass
        except Exception:
            log.exception("the exit of pid %s could not be handled", self.proc.pid)
        self.exited = True
        return None


class _Loop:
    """One run of the watcher thread: its poll set, its timers, the children it holds."""

    def __init__(self, watcher: _Watcher, control: int) -> None:
        self.watcher = watcher
        self.control = control
        self.poller = select.poll()
        self.poller.register(control, select.POLLIN)
        self.fds: dict[int, tuple[str, Watch]] = {}
        self.timers: list[tuple[float, int, Watch]] = []
        self.order = itertools.count()
        self.live: set[Watch] = set()
        self.thread = threading.current_thread()

    def add(self, child: Watch) -> None:
        self.live.add(child)
        self._register(child.stderr.fileno(), "stderr", child)
        self._register(child.waker.fileno(), "waker", child)
        if child.pidfd is not None:
            self._register(child.pidfd, "exit", child)

    def _register(self, fd: int, kind: str, child: Watch) -> None:
        self.fds[fd] = (kind, child)
        self.poller.register(fd, select.POLLIN)

    def _unregister(self, fd: int | None) -> None:
        if fd is not None and self.fds.pop(fd, None) is not None:
            self.poller.unregister(fd)

    def timeout_ms(self) -> int | None:
        if not self.timers:
            return None
        return max(0, int((self.timers[0][0] - time.monotonic()) * 1000) + 1)

    def handle(self, fd: int) -> None:
        kind, child = self.fds.get(fd, ("", None))
        if child is None:
            return
        if kind == "stderr":
            self._read(fd, child)
        elif kind == "waker":
            child.finish_stderr()
            self.release(child)
        else:
            self._unregister(fd)
            child.proc.poll()   # reap it: no zombie, whoever else waits
            self.exited(child)

    def _read(self, fd: int, child: Watch) -> None:
        try:
            chunk = os.read(fd, READ_SIZE)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        if chunk:
            child.feed(chunk)
            return
        self._unregister(fd)
        child.finish_stderr()
        self._settle(child)

    def exited(self, child: Watch) -> None:
        """The child has exited: run its exit's steps (each pause is a timer)."""
        if child not in self.live or child.steps is not None:
            return
        self._resume(child)

    def _resume(self, child: Watch) -> None:
        delay = child.next_step()
        if delay is not None:
            heapq.heappush(self.timers, (time.monotonic() + delay, next(self.order), child))
        self._settle(child)

    def run_timers(self) -> None:
        now = time.monotonic()
        while self.timers and self.timers[0][0] <= now:
            _, _, child = heapq.heappop(self.timers)
            if child in self.live:
                self._resume(child)

    def _settle(self, child: Watch) -> None:
        if child.exited and child.stderr_done.is_set():
            self.release(child)

    def release(self, child: Watch) -> None:
        """Let go of the child's pipes for good."""
        if child not in self.live:
            return
        self._unregister(child.stderr.fileno())
        self._unregister(child.waker.fileno())
        self._unregister(child.pidfd)
        if child.pidfd is not None:
            os.close(child.pidfd)
            child.pidfd = None
        self.live.discard(child)
        self.timers = [timer for timer in self.timers if timer[2] is not child]
        heapq.heapify(self.timers)
        self.watcher.forget()
        child.released.set()


class _Watcher:
    """The process-wide watcher: started by the first child, ended after the last."""

    def __init__(self) -> None:
        self._reset()

    def _reset(self) -> None:
        self._lock = threading.Lock()
        self._posted: list[tuple[str, Watch]] = []
        self._thread: threading.Thread | None = None
        self._control: tuple[int, int] | None = None
        self._held = 0   # children posted and not yet released
        self._loop: _Loop | None = None   # the running thread's (read on that thread only)

    def post(self, kind: str, child: Watch) -> None:
        """Hand the thread a new child (``add``) or a child's exit (``exit``)."""
        with self._lock:
            self._posted.append((kind, child))
            if kind == "add":
                self._held += 1
            if self._control is None:
                self._control = os.pipe()
                for fd in self._control:
                    os.set_blocking(fd, False)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, args=(self._control[0],),
                                                name="mcp-stdio-watcher", daemon=True)
                self._thread.start()
            control = self._control[1]
        self._poke(control)

    @staticmethod
    def _poke(fd: int) -> None:
        try:
            os.write(fd, b"!")
        except (BlockingIOError, OSError):
            pass   # full: the thread is awake already

    def forget(self) -> None:
        """A child was released (on the thread, before its ``released`` is set)."""
        with self._lock:
            self._held -= 1

    def on_its_thread(self) -> bool:
        return self._loop is not None and threading.current_thread() is self._loop.thread

    def release_here(self, child: Watch) -> None:
        """Let go of ``child`` at once (on the watcher thread, in one of its callbacks)."""
        if self._loop is not None:
            self._loop.release(child)

    def retire_if_idle(self, timeout: float) -> None:
        """Once no child is held, end the thread now, so that close leaves none behind."""
        with self._lock:
            thread = self._thread
            if thread is None or self._held or self._posted:
                return
            self._thread = None   # the next child starts a new one
            control = self._control
        if control is not None:
            self._poke(control[1])
        if thread is not threading.current_thread():
            thread.join(timeout)

    def _take(self) -> list[tuple[str, Watch]] | None:
        """What was posted; None when this thread is to end (retired, or nothing held)."""
        with self._lock:
            if self._thread is not threading.current_thread():
                return None
            if not self._held and not self._posted:
                self._thread = None
                return None
            posted, self._posted = self._posted, []
        return posted

    def _run(self, control: int) -> None:
        loop = self._loop = _Loop(self, control)
        while True:
            posted = self._take()
            if posted is None:
                return
            for kind, child in posted:
                if kind == "add":
                    loop.add(child)
                else:
                    loop.exited(child)
            for fd, _ in loop.poller.poll(loop.timeout_ms()):
                if fd == control:
                    _drain(control)
                else:
                    loop.handle(fd)
            loop.run_timers()


def _drain(fd: int) -> None:
    try:
        while os.read(fd, 4096):
            pass
    except (BlockingIOError, OSError):
        pass


_WATCHER = _Watcher()
if hasattr(os, "register_at_fork"):   # a forked child has no watcher thread
    os.register_at_fork(after_in_child=_WATCHER._reset)


def watch(proc: subprocess.Popen[bytes], waker: Waker, *, on_line: Callable[[bytes], None],
          on_exit: ExitSteps, stderr_done: threading.Event, max_line: int) -> Watch:
    """Start watching a child that was just spawned (before its stdout reader starts).

    Args:
        proc: the child, its stderr a pipe.
        waker: readable once the transport lets go of the child (close, restart).
        on_line: each stderr line, without its ``\\n`` (cut at ``max_line`` bytes).
        on_exit: the steps to take once the child has exited (see :data:`ExitSteps`).
        stderr_done: set when stderr reached EOF or the waker fired: the tail is complete.
        max_line: the longest stderr line kept whole.
    """
    child = Watch(proc, waker, on_line, on_exit, stderr_done, max_line)
    if not _POSIX:
        _threaded(child)
        return child
    os.set_blocking(child.stderr.fileno(), False)
    try:
        child.pidfd = os.pidfd_open(proc.pid)   # type: ignore[attr-defined,unused-ignore]
    except (AttributeError, OSError):   # not Linux, or refused: a thread waits instead
        waiter = threading.Thread(target=_wait_then_post, args=(child,),
                                  name=f"mcp-stdio-watch-{proc.pid}", daemon=True)
        child.threads.append(waiter)
        waiter.start()
    _WATCHER.post("add", child)
    return child


def _wait_then_post(child: Watch) -> None:
    child.proc.wait()
    _WATCHER.post("exit", child)


def _threaded(child: Watch) -> None:
    """Windows: pipes cannot be polled, so this child's stderr and exit get a thread each."""
    def drain() -> None:
        try:
            while chunk := child.stderr.read1(READ_SIZE):   # type: ignore[attr-defined]
                child.feed(chunk)
        except (OSError, ValueError):
            pass
        child.finish_stderr()

    def wait() -> None:
        child.proc.wait()
        while (delay := child.next_step()) is not None:
            if child.released.wait(delay):
                return

    pid = child.proc.pid
    child.threads = [threading.Thread(target=drain, name=f"mcp-stdio-stderr-{pid}", daemon=True),
                     threading.Thread(target=wait, name=f"mcp-stdio-watch-{pid}", daemon=True)]
    for thread in child.threads:
        thread.start()
    child.released.set()   # nothing here polls the transport's pipes
