"""The pending-request table that lets one wire carry many conversations.

Ids are allocated here, each outstanding request is a :class:`Pending` cell,
and only this table completes those cells: with the answer when it arrives (on
the transport's reader thread), or with one shared exception when the wire
dies (:meth:`Correlator.fail_all`), so nothing waits forever.

A cell is a one-shot :class:`concurrent.futures.Future` in all but weight: it
is completed at most once (the table pops it under its lock first) and waited
on through a single pre-acquired lock, which is the cheapest cross-thread
handoff CPython has -- it sits on the hot path of every request.

A request the caller gave up on is *abandoned*; an answer that arrives for it
later is dropped and reported through ``on_warn``.

A *standing* request (a ``subscriptions/listen`` that stays open for the
life of the connection) is pending like any other, but :meth:`Correlator.waiting`
leaves it out: it counts the answers somebody is waiting for now, which is
what a reader deciding how soon to read the pipe again needs to know.

It does no I/O and starts no thread.
"""

from __future__ import annotations

import _thread
import collections
import itertools
import threading

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

__all__ = ["Correlator", "Pending"]

#: How many abandoned ids are remembered, to tell "late" from "never sent".
ABANDONED_MEMORY = 1024


class Pending:
    """One outstanding request: its id, method, and the cell its answer lands in."""

    __slots__ = ("ident", "method", "_ready", "_answer", "_error", "_then")

    def __init__(self, ident: int, method: str,
                 then: Callable[[Pending], None] | None = None) -> None:
        self.ident = ident
        self.method = method
        self._then = then
        self._ready = _thread.allocate_lock()
        self._ready.acquire()   # released exactly once, by the completion
        self._answer: dict[str, Any] | None = None
        self._error: BaseException | None = None

    def done(self) -> bool:
        """True once the answer or a failure has landed."""
        return not self._ready.locked()

    def wait(self, timeout: float | None) -> bool:
        """Block until done (``None``: for ever); False if ``timeout`` ran out."""
        if self._ready.acquire(True, -1 if timeout is None else max(timeout, 0.0)):
            self._ready.release()   # stay "done" for every later look
            return True
        return False

    def result(self) -> dict[str, Any]:
        """The answer message, or the failure raised (only once done)."""
        if self._error is not None:
            raise self._error
        assert self._answer is not None
        return self._answer

    def _complete(self, answer: dict[str, Any] | None, error: BaseException | None) -> None:
        self._answer, self._error = answer, error
        self._ready.release()
        if self._then is not None:   # a pipelined call: nobody waits, the answer moves on
            self._then(self)


class Correlator:
    """Allocates request ids and matches answers to the requests that await them.

    Args:
        on_warn: told (with a sentence) about answers nobody is waiting for.

    Thread-safety: every method may be called from any thread.
    """

    def __init__(self, *, on_warn: Callable[[str], None] | None = None) -> None:
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._pending: dict[int | str, Pending] = {}
        self._standing: set[int | str] = set()   # ids of the standing requests pending
        self._abandoned: collections.OrderedDict[int | str, str] = collections.OrderedDict()
        self._on_warn = on_warn

    def __len__(self) -> int:
        return len(self._pending)

    def waiting(self) -> int:
        """How many requests await their answer, standing ones left out (see the module)."""
        return len(self._pending) - len(self._standing)

    def __repr__(self) -> str:
        return f"<Correlator pending={len(self._pending)}>"

    def register(self, method: str, then: Callable[[Pending], None] | None = None,
                 *, standing: bool = False) -> Pending:
        """Allocate a fresh id for ``method`` and start waiting for its answer.

        ``then``, when given, is called with the cell once it completes, on
        the completing thread (the reader's, or the one failing the wire); it
        must not raise.  ``standing``: the answer may not come for as long as
        the connection lasts, and :meth:`waiting` does not count it.
        """
        with self._lock:
            pending = Pending(next(self._ids), method, then)
            self._pending[pending.ident] = pending
            if standing:
                self._standing.add(pending.ident)
        return pending

    def register_many(self, method: str, count: int) -> list[Pending]:
        """:meth:`register` ``count`` times under one take of the lock (ids in order)."""
        ids = self._ids
        with self._lock:
            pendings = [Pending(next(ids), method) for _ in range(count)]
            self._pending.update({pending.ident: pending for pending in pendings})
        return pendings

    def resolve(self, message: dict[str, Any]) -> bool:
        """Complete the request ``message`` answers.

        Args:
            message: a response or error response, as classified by the protocol.

        Returns:
            True if a waiting request took it; False if it was dropped (late,
            duplicate or unknown id), in which case ``on_warn`` was told.
        """
        ident = message.get("id")
        with self._lock:
            pending = self._pending.pop(ident, None) if ident is not None else None
            late = pending is None and ident in self._abandoned
            if self._standing and pending is not None:
                self._standing.discard(ident)
        if pending is None:
            what = f"late answer to abandoned request {ident!r}" if late else \
                f"answer to unknown request id {ident!r}"
            self._warn(f"dropped {what}")
            return False
        pending._complete(message, None)
        return True

    def abandon(self, ident: int | str, error: BaseException | None = None) -> Pending | None:
        """Stop tracking ``ident``; a later answer for it is dropped.

        With ``error``, the cell is also completed with it, so whoever waits
        on it wakes (a request given up from another thread).
        """
        with self._lock:
            pending = self._pending.pop(ident, None)
            self._standing.discard(ident)
            if pending is not None:
                self._abandoned[ident] = pending.method
                while len(self._abandoned) > ABANDONED_MEMORY:
                    self._abandoned.popitem(last=False)
        if pending is not None and error is not None:
            pending._complete(None, error)
        return pending

    def sole_pending(self) -> Pending | None:
        """The only outstanding request, if exactly one is outstanding."""
        with self._lock:
            if len(self._pending) == 1:
                return next(iter(self._pending.values()))
        return None

    def deliver(self, pending: Pending, message: dict[str, Any]) -> bool:
        """Complete ``pending`` with ``message`` if it is still outstanding."""
        with self._lock:
            if self._pending.get(pending.ident) is not pending:
                return False
            del self._pending[pending.ident]
            self._standing.discard(pending.ident)
        pending._complete(message, None)
        return True

    def fail(self, ident: int | str, exc: BaseException) -> bool:
        """Fail the one outstanding request ``ident`` with ``exc``."""
        with self._lock:
            pending = self._pending.pop(ident, None)
            self._standing.discard(ident)
        if pending is None:
            return False
        pending._complete(None, exc)
        return True

    def fail_all(self, exc: BaseException) -> int:
        """Fail every outstanding request with ``exc``; returns how many."""
        with self._lock:
            pendings = list(self._pending.values())
            self._pending.clear()
            self._standing.clear()
        for pending in pendings:
            pending._complete(None, exc)
        return len(pendings)

    def _warn(self, text: str) -> None:
        if self._on_warn is not None:
            try:
                self._on_warn(text)
            except Exception:  # a warning hook must never break the reader
                pass
