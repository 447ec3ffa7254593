"""The threads that work for one connection, besides the transport's own.

:class:`Pools` makes each on first use and ends them all in :meth:`Pools.shutdown`:

* the pool of ``*_async`` calls, pipelined calls' done-callbacks and widened
  batches (``ASYNC_WORKERS`` threads named ``mcp-client-<pid>_N``);
* the hook workers that answer a legacy server's requests, because a
  hook may wait on a human while the reader must keep reading;
* the one thread keeping pipelined calls' deadlines
  (:class:`~._deadlines.Deadlines`);
* the threads of pipelined calls' ``input_required`` rounds, which it only
  tracks, so that shutting down waits for them as for a pool's threads.

Once :meth:`Pools.refuse` has run (``close()``), new work raises
:class:`~mcp_client.exceptions.TransportClosed`.  :meth:`Pools.shutdown` then
waits at most :data:`SHUTDOWN_GRACE` for work still running -- a hook may wait
on a human for ever -- and returns without it: such a thread ends when its
hook returns, and what the hook answered goes nowhere.  The connection decides
when; this module owns no connection state.
"""

from __future__ import annotations

import os
import threading
import time

from .._log import get_logger
from ..exceptions import TransportClosed
from ._deadlines import Deadlines

TYPE_CHECKING = False
if TYPE_CHECKING:
    from concurrent.futures import Future, ThreadPoolExecutor
    from typing import Any, Callable, ParamSpec, TypeVar
    P = ParamSpec("P")
    R = TypeVar("R")

__all__ = ["Pools", "ASYNC_WORKERS", "HOOK_WORKERS", "SHUTDOWN_GRACE"]

log = get_logger(__name__)

#: Worker threads for ``*_async`` calls (created on demand).
ASYNC_WORKERS = 64
#: Worker threads answering a legacy server's requests through the hooks.
HOOK_WORKERS = 4
#: Seconds :meth:`Pools.shutdown` waits for work still running (hooks, callbacks).
SHUTDOWN_GRACE = 0.5


class Pools:
    """The pools of one connection (see the module); every method may be called from any thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        # A lock of its own: a task done at once runs _done inside _tracked, under _lock.
        self._idle = threading.Condition(threading.Lock())   # notified when _busy falls
        self._busy = 0   # tasks submitted to either pool and not yet done
        self._refused = False
        self._executor: ThreadPoolExecutor | None = None   # *_async calls, callbacks, batches
        self._workers: ThreadPoolExecutor | None = None    # legacy server requests
        self._deadlines: Deadlines | None = None
        self._rounds: set[threading.Thread] = set()

    def __repr__(self) -> str:
        made = [name for name, made in (("async", self._executor), ("hooks", self._workers),
                                        ("deadlines", self._deadlines)) if made is not None]
        state = "refused" if self._refused else "open"
        return f"<Pools {state} made={','.join(made) or '-'} rounds={len(self._rounds)}>"

    def submit(self, fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> Future[R]:
        """Run ``fn`` on the pool of ``*_async`` calls."""
        with self._lock:
            return self._tracked(self._pool().submit(fn, *args, **kwargs))

    def _tracked(self, future: Future[R]) -> Future[R]:
        """Count ``future`` busy until it is done."""
        with self._idle:
            self._busy += 1
        future.add_done_callback(self._done)
        return future

    def _done(self, future: Future[Any]) -> None:
        with self._idle:
            self._busy -= 1
            self._idle.notify_all()

    def _pool(self) -> ThreadPoolExecutor:
        """The pool, made on first use (lock held)."""
        if self._refused:
            raise TransportClosed()
        if self._executor is None:
            from concurrent.futures import ThreadPoolExecutor
            self._executor = ThreadPoolExecutor(
                ASYNC_WORKERS, thread_name_prefix=f"mcp-client-{os.getpid()}")
        return self._executor

    def run_callback(self, fn: Callable[[Future[Any]], object], future: Future[Any]) -> None:
        """Run a pipelined Future's done-callback on the pool, off the reader thread.

        Once refused there is no pool: the callback runs where the Future
        completed (``close()``'s own thread, or a reader about to end).
        """
        with self._lock:
            if not self._refused:
                self._tracked(self._pool().submit(_logged, fn, future))
                return
        fn(future)

    def batch_executor(self) -> ThreadPoolExecutor | None:
        """The pool a widened batch runs on (its threads outlive the batch).

        None -- the batch starts threads of its own -- when called from one of
        the pool's own threads, where waiting on the pool could deadlock it.
        """
        if threading.current_thread().name.startswith("mcp-client-"):
            return None
        with self._lock:
            return None if self._refused else self._pool()   # its tasks are the batch's

    def answer(self, fn: Callable[[dict[str, Any]], None], message: dict[str, Any]) -> None:
        """Run ``fn(message)`` on a hook worker; nothing once refused."""
        with self._lock:
            if self._refused:
                return
            if self._workers is None:
                from concurrent.futures import ThreadPoolExecutor
                self._workers = ThreadPoolExecutor(
                    HOOK_WORKERS, thread_name_prefix=f"mcp-client-hooks-{os.getpid()}")
            self._tracked(self._workers.submit(fn, message))

    def deadlines(self) -> Deadlines:
        """The one thread keeping pipelined calls' timeouts, started on first use."""
        made = self._deadlines
        if made is not None and not self._refused:   # made already: no lock to take
            return made
        with self._lock:
            if self._refused:
                raise TransportClosed()
            if self._deadlines is None:
                self._deadlines = Deadlines(f"mcp-deadlines-{os.getpid()}")
            return self._deadlines

    def track_round(self, thread: threading.Thread) -> None:
        """:meth:`shutdown` waits for ``thread`` (a pipelined call's rounds)."""
        with self._lock:
            self._rounds.add(thread)

    def untrack_round(self, thread: threading.Thread) -> None:
        with self._lock:
            self._rounds.discard(thread)

    def refuse(self) -> None:
        """Take no new work from now on."""
        with self._lock:
            self._refused = True

    def shutdown(self) -> None:
        """End every thread (after :meth:`refuse`), waiting at most :data:`SHUTDOWN_GRACE`.

        Requests queued for a hook are dropped; the deadlines' entries too.
        Work still running after the grace is left to end on its own.  Called
        from one of the pools' own threads (a hook that closed its client),
        nothing is waited for: it would be waiting on itself.
        """
        with self._lock:
            self._refused = True
            executor, workers = self._executor, self._workers
            deadlines = self._deadlines
            rounds = list(self._rounds)
        if deadlines is not None:
            deadlines.stop()
        if workers is not None:
            workers.shutdown(wait=False, cancel_futures=True)
        current = threading.current_thread()
        if current.name.startswith("mcp-client-"):
            for pool in (executor, workers):
                if pool is not None:
                    pool.shutdown(wait=False)
            return
        deadline = time.monotonic() + SHUTDOWN_GRACE
        with self._idle:
            while self._busy and self._idle.wait(max(0.0, deadline - time.monotonic())):
                pass
            idle = not self._busy   # a widened batch's own tasks are not counted
        for pool in (executor, workers):
            if pool is not None:
                pool.shutdown(wait=idle)   # idle: its threads are ending, join them
        for thread in rounds:   # like the pools' threads: each ends once its hook returns
            thread.join(max(0.0, deadline - time.monotonic()))


def _logged(fn: Callable[[Future[Any]], object], future: Future[Any]) -> None:
    try:
        fn(future)
    except Exception:   # as concurrent.futures does for its own callbacks
        log.exception("a done-callback of %r raised", future)
