"""The one thread that keeps the deadlines of a connection's pipelined calls.

:class:`Deadlines` wakes only at a deadline (or for a deadline earlier than
the one it sleeps towards), never per call; :class:`~._pools.Pools` makes it
on first use and stops it, and :mod:`._flights` adds and discards entries.
"""

from __future__ import annotations

import threading
import time

from .._log import get_logger
from ..exceptions import TransportClosed

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

__all__ = ["Deadlines"]

log = get_logger(__name__)


class Deadlines:
    """One thread that calls ``on_due`` for each entry whose deadline has passed.

    ``on_due(now)`` may return a later deadline to be kept (a stretched
    timeout); it runs without the table's lock held.
    """

    def __init__(self, name: str) -> None:
        self._name = name
        self._lock = threading.Lock()   # taken bare by add(): once per call
        self._cond = threading.Condition(self._lock)
        self._live: dict[Any, tuple[float, Callable[[float], float | None]]] = {}
        #: ``forget(key, None)``: :meth:`discard` without a Python frame (a dict's own pop).
        self.forget: Callable[[Any, None], Any] = self._live.pop
        self._target: float | None = None   # when the thread next looks; None: never
        self._thread: threading.Thread | None = None
        self._stopped = False

    def add(self, key: Any, deadline: float, on_due: Callable[[float], float | None]) -> None:
        """Watch ``key`` until ``deadline`` (a ``time.monotonic()`` instant)."""
        with self._lock:   # the condition's own lock, taken bare: notify() needs only that
            if self._stopped:
                raise TransportClosed()
            if self._thread is None:
                thread = threading.Thread(target=self._run, name=self._name, daemon=True)
                thread.start()   # may raise (no threads left): then nothing is watched
                self._thread = thread
            self._live[key] = (deadline, on_due)
            if self._target is None or deadline < self._target:
                self._target = deadline
                self._cond.notify()

    def discard(self, key: Any) -> None:
        """Stop watching ``key`` (it finished in time).

        No lock: the thread reads the table only through copies made in one
        step (``list(...)``), which a pop between two of its steps cannot upset.
        """
        self._live.pop(key, None)

    def stop(self) -> None:
        """End the thread; entries still watched are dropped."""
        with self._cond:
            self._stopped = True
            self._live.clear()
            self._cond.notify()
            thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join()

    def _run(self) -> None:
        with self._cond:
            while not self._stopped:
                now = time.monotonic()
                live = list(self._live.items())   # one step: discard() may pop meanwhile
                due = sorted((deadline, n, key) for n, (key, (deadline, _))
                             in enumerate(live) if deadline <= now)
                if due:
                    taken = [(key, self._live.pop(key, None)) for _, _, key in due]
                    calls = [(key, entry[1]) for key, entry in taken if entry is not None]
                    self._cond.release()
                    try:
                        later = [(key, _guarded(on_due, now), on_due) for key, on_due in calls]
                    finally:
                        self._cond.acquire()
                    for key, deadline, on_due in later:
                        if deadline is not None and not self._stopped:
                            self._live[key] = (deadline, on_due)
                    continue
                # The target is only ever lowered by add(): a finished call leaves it
                # stale, and the look at a stale target finds nothing due and moves on.
                self._target = min((d for d, _ in list(self._live.values())), default=None)
                self._cond.wait(None if self._target is None else
                                min(self._target - now, threading.TIMEOUT_MAX))


def _guarded(on_due: Callable[[float], float | None], now: float) -> float | None:
    try:
        return on_due(now)
    except Exception:   # one broken entry must not stop the deadlines of the others
        log.exception("a deadline's handler raised")
        return None
