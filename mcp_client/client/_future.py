"""The Future of a pipelined call: :class:`CallFuture`.

It is a :class:`concurrent.futures.Future` in every respect, made and
completed with fewer Python frames, because :mod:`._flights` makes and
completes one per call.  It relies on no more of Future than the fields
``Future.__init__`` sets and what they mean, unchanged since Python 3.2; its
contract test (``tests/client/test_future.py``) runs on every Python version
the package supports, side by side with a plain Future.

This module imports :mod:`concurrent.futures`, which is not free: it is
imported on the first pipelined call (:func:`._flights.answer_class`).
"""

from __future__ import annotations

import _thread
import threading
from concurrent.futures import Future, InvalidStateError
from concurrent.futures._base import CANCELLED, CANCELLED_AND_NOTIFIED, FINISHED, RUNNING
from typing import Any, Callable

__all__ = ["CallFuture", "InvalidStateError"]

#: The states a Future ends in (concurrent.futures._base).
_ENDED = frozenset((CANCELLED, CANCELLED_AND_NOTIFIED, FINISHED))
_condition, _rlock = threading.Condition, _thread.RLock


class CallFuture(Future):  # type: ignore[type-arg]
    """A pipelined call's Future, already running (the call is sent as it is made).

    It completes on the reader thread, which must keep reading: a
    done-callback added before completion is handed to ``runner`` (the
    client's pool runs it); one added after runs at once, on the caller's
    thread, as a Future's does.

    It is a :class:`~concurrent.futures.Future` in every respect (``wait()``,
    ``as_completed()``, callbacks, ``cancel()``), made and completed with
    fewer Python frames: its fields are set here rather than by
    ``Future.__init__`` (their meaning is Future's own), its condition is
    built over a C lock, completion notifies only when somebody waits in
    ``result()`` and runs callbacks only when there are some, and a result
    already in is returned without the lock (it is written before the state
    says FINISHED).

    Args:
        runner: ``runner(fn, future)`` runs the done-callback ``fn`` added
            before completion, on a thread that may block.
    """

    def __init__(self, runner: Callable[[Callable[[Future[Any]], object], Future[Any]],
                                        None]) -> None:
        self._condition = _condition(_rlock())
        # RUNNING: set_running_or_notify_cancel() of a Future nobody has seen yet,
        # without its lock; the call is sent at once, so there is nothing to cancel
        self._state = RUNNING
        self._result: Any = None
        self._exception: BaseException | None = None
        self._waiters: list[Any] = []
        self._done_callbacks: list[Callable[[Future[Any]], object]] = []
        self._runner = runner

    def add_done_callback(self, fn: Callable[[Future[Any]], object]) -> None:
        if self.done():
            super().add_done_callback(fn)   # runs now, on the caller's thread
            return
        runner = self._runner
        super().add_done_callback(lambda future: runner(fn, future))

    def done(self) -> bool:
        return self._state in _ENDED

    def result(self, timeout: float | None = None) -> Any:
        if self._state == FINISHED and self._exception is None:
            return self._result
        return super().result(timeout)

    def set_result(self, result: Any) -> None:
        held = self._condition
        with held._lock:   # type: ignore[attr-defined]
            if self._state in _ENDED:
                raise InvalidStateError(f"{self._state}: {self!r}")
            self._result = result
            self._state = FINISHED
            for waiter in self._waiters:   # wait() and as_completed()
                waiter.add_result(self)
            if held._waiters:   # type: ignore[attr-defined]
                held.notify_all()
        if self._done_callbacks:
            self._invoke_callbacks()   # type: ignore[attr-defined]
