"""What every store promises: the :class:`Store` protocol, its records and its errors.

Pure data and one comparison: no database, no threads.  The engines live in
:mod:`mcp_client.store._sql`.
"""

from __future__ import annotations

import math
import threading
import time
from typing import Any, Callable, NamedTuple, Protocol, Sequence, runtime_checkable

from .. import paths
from ..exceptions import InvalidArgument, StoreError, StoreUnavailable, UnsupportedStore

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..policy import GrantBook

__all__ = ["Store", "StoredLease", "StoredHold", "Refusal", "TaskRecord", "StoreError",
           "StoreUnavailable", "UnsupportedStore", "ANYWHERE", "meets", "lock_timeout_of",
           "poll_for_change"]

#: Backoff bounds of a wait's poll of the store's change counter, in seconds.
POLL_FIRST, POLL_MOST = 0.005, 0.1

#: The path an in-flight hold whose location cannot be read is shown under
#: (the same mark :mod:`mcp_client.leases` uses).
ANYWHERE = "*"


class StoredLease(NamedTuple):
    """One lease (or one place of an in-flight hold) as a store keeps it.

    ``since`` and ``expires`` are on the store's clock; ``expires`` is infinite
    and ``token`` 0 for a hold (``in_flight``).
    """

    path: str
    holder: str
    since: float
    expires: float
    in_flight: bool
    token: int


class StoredHold(NamedTuple):
    """A granted in-flight hold: the key to end it with, and when it began (store clock)."""

    key: int
    since: float


class Refusal(NamedTuple):
    """Why a hold was refused: ``places[at]`` is in the way of ``blocker`` (None: strict mode
    wanted a lease of the caller's own there)."""

    at: int
    blocker: StoredLease | None


class TaskRecord(NamedTuple):
    """A task a client started (the Tasks extension), as a store keeps it so that a
    later process can resume polling it (``Client.resume_task``).

    ``server`` names the server as the client knows it (its URL or command line,
    never a secret); ``digest`` is the SHA-256 (hex) of the arguments'
    canonical JSON (sorted keys, no spaces); ``status`` is the server's last
    word (``working``, ``input_required``, ``completed``, ``failed``,
    ``cancelled``); ``created`` and ``updated`` are on the store's clock (an
    engine stamps them with its own clock when it writes the record).
    """

    task_id: str
    server: str
    tool: str
    digest: str
    status: str
    created: float
    updated: float


@runtime_checkable
class Store(Protocol):
    """A lease table shared by whoever opens the same store, and the tasks its clients started.

    Every lease method takes the ``workspace`` it acts in first; the task
    records (:meth:`put_task`, :meth:`get_task`, :meth:`tasks`) belong to no
    workspace.  Every answer is decided in one atomic step in the store, on
    the store's clock (:meth:`now`).  A store is safe to call from any thread, and closeable
    (:meth:`close`, or a ``with`` block); a closed store raises
    :class:`StoreError`.  Arguments are not checked here: the
    :class:`~mcp_client.leases.LeaseTable` in front of it does that.
    """

    def now(self) -> float:
        """The store's clock, in seconds (what ``since`` and ``expires`` are on)."""
        ...

    def acquire(self, workspace: str, holder: str, wanted: Sequence[str],
                ttl: float) -> StoredLease | None:
        """Grant every path or none; None when granted, else another holder's lease or hold."""
        ...

    def release(self, workspace: str, holder: str, released: Sequence[str] | None) -> list[str]:
        """Free ``holder``'s leases on ``released`` (all when None); returns what was freed."""
        ...

    def release_all(self, workspace: str) -> None:
        """Free every lease of the workspace (holds stay)."""
        ...

    def leases(self, workspace: str) -> list[StoredLease]:
        """The live leases."""
        ...

    def holds(self, workspace: str) -> list[StoredLease]:
        """The in-flight holds, one record per place."""
        ...

    def blocking(self, workspace: str, holder: str, path: str | None) -> StoredLease | None:
        """Another holder's lease or hold over ``path`` (None: a path that could be anything)."""
        ...

    def covers(self, workspace: str, holder: str, path: str) -> bool:
        """Whether ``holder`` has a lease on ``path`` or above it."""
        ...

    def hold(self, workspace: str, holder: str, places: Sequence[str | None], *,
             strict: bool) -> StoredHold | Refusal:
        """Judge a mutating call and hold its places until :meth:`end_hold`."""
        ...

    def end_hold(self, workspace: str, key: int) -> None:
        """End a hold (idempotent)."""
        ...

    def wait(self, workspace: str, timeout: float) -> bool:
        """Block until something may have been freed, or ``timeout``; whether it woke early."""
        ...

    def put_task(self, record: TaskRecord) -> None:
        """Keep a started task: insert it, or, when ``(server, task_id)`` is kept
        already, update its ``status`` and ``updated`` (its ``created`` stays)."""
        ...

    def get_task(self, task_id: str, server: str | None = None) -> TaskRecord | None:
        """The newest record of ``task_id`` (on ``server`` when given), or None."""
        ...

    def tasks(self) -> list[TaskRecord]:
        """Every task record, oldest first."""
        ...

    def book(self, name: str = "default") -> GrantBook:
        """The grant book ``name`` kept in this store, which every
        :class:`~mcp_client.policy.Grants` given the store and the name shares."""
        ...

    def close(self) -> None:
        """Let go of the database; safe to call twice."""
        ...

    def __enter__(self) -> Store:
        ...

    def __exit__(self, *exc_info: object) -> None:
        ...


def _overlap(a: str, b: str) -> bool:
    """Whether two normalised paths conflict (either contains the other; case fails closed)."""
    return paths.contains(a, b) is not paths.Tri.NO or paths.contains(b, a) is not paths.Tri.NO


def meets(place: str | None, path: str | None) -> bool:
    """Whether a held place and a wanted path may conflict (None: could be anything).

    The same rule as :class:`~mcp_client.leases.LeaseTable` in memory.
    """
    return place is None or path is None or _overlap(place, path)


def hold_records(holder: str, places: Sequence[str | None], since: float) -> list[StoredLease]:
    """A hold's places as records (``in_flight``, no TTL, no token)."""
    return [StoredLease(ANYWHERE if place is None else place, holder, since, math.inf, True, 0)
            for place in places]


def lock_timeout_of(value: Any) -> float:
    """A store's ``lock_timeout``, checked: a positive, finite number of seconds."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or \
            not 0 < value < math.inf:
        raise InvalidArgument("lock_timeout", value, "must be a positive number of seconds")
    return float(value)


def poll_for_change(changed: threading.Condition, generation_now: Callable[[], int],
                    generation: int | None, version: Any, read_version: Callable[[], Any],
                    timeout: float) -> bool:
    """Every engine's :meth:`Store.wait`: whether something may have been freed before
    ``timeout`` seconds.

    A change made in this process bumps the engine's generation under ``changed`` and
    wakes the wait at once; another process's shows as a new ``read_version()`` (the
    store's change counter), polled every 5 ms, doubling to 100 ms.  ``generation`` and
    ``version`` are what the calling thread saw in its last operation (None: now), so a
    release committed between a refused acquire and this wait is not missed.
    """
    deadline = time.monotonic() + max(0.0, timeout)
    delay = POLL_FIRST
    while True:
        with changed:
            if generation is None:
                generation = generation_now()
            if generation_now() != generation:
                return True
        current = read_version()
        if version is None:
            version = current
        elif current != version:
            return True
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        with changed:
            if generation_now() == generation:
                changed.wait(min(delay, remaining))
        delay = min(delay * 2, POLL_MOST)
