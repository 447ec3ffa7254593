"""The lease table: who holds which path, and which mutating calls are in flight.

:class:`LeaseTable` is one per workspace, shared by every agent's
:class:`~mcp_client.leases.Leases` and safe to call from any thread: every
question is answered, and every claim granted or refused, in one step under
its lock -- or, given a store (:mod:`mcp_client.store`), in one transaction
there.  What a lease, a hold and a conflict are is told in
:mod:`mcp_client.leases`.  It knows paths (:mod:`mcp_client.paths`) and
nothing of tools, calls or providers.
"""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterable, NamedTuple, Sequence

from .. import paths
from ..exceptions import InvalidArgument
from ..store import Store, StoredHold, StoredLease, StoreError

__all__ = ["LeaseTable", "Lease", "Hold", "Conflict", "ANYWHERE", "is_seconds"]

#: The path an in-flight hold is shown under when its call names a location that
#: cannot be read: it may be anywhere, so it is in the way of every claim.
ANYWHERE = "*"


@dataclass
class Lease:
    """One held path.

    ``in_flight`` marks a mutating call's hold rather than a lease (see
    :meth:`LeaseTable.hold`): it has no TTL (``expires`` is infinite) and ends
    when the call's answer is in; its ``path`` is :data:`ANYWHERE` when the
    call names a location that cannot be read.

    ``token`` is the lease's fencing token: every grant takes the table's next
    integer, so a later grant of a path always has a higher one; a renew (the
    holder re-acquiring what it still holds) keeps it.  A hold's is 0.
    """

    path: str
    holder: str
    since: float
    expires: float
    in_flight: bool = False
    token: int = 0


class Hold:
    """A mutating call's claim on the places it writes, while it runs.

    Made by :meth:`LeaseTable.hold`, ended by :meth:`LeaseTable.end_hold`.

    Attributes:
        holder: the agent whose call it is.
        places: the normalised paths the call writes; None for a location
            that cannot be read (the hold is then in the way of everything).
        since: when the call was forwarded (the table's clock).
    """

    __slots__ = ("holder", "places", "since")

    def __init__(self, holder: str, places: Sequence[str | None], since: float) -> None:
        self.holder = holder
        self.places = tuple(places)
        self.since = since

    def __repr__(self) -> str:
        return f"<Hold holder={self.holder!r} places={list(self.places)!r}>"

    def leases(self) -> list[Lease]:
        """The hold as leases (``in_flight``), one per place."""
        return [Lease(ANYWHERE if place is None else place, self.holder, self.since, math.inf,
                      in_flight=True) for place in self.places]


class _StoredHold(Hold):
    """A hold kept in a store: ``key`` ends it there."""

    __slots__ = ("key",)

    def __init__(self, holder: str, places: Sequence[str | None], since: float,
                 key: int) -> None:
        super().__init__(holder, places, since)
        self.key = key


def _lease(record: StoredLease | None) -> Lease | None:
    return None if record is None else Lease(*record)


class Conflict(NamedTuple):
    """Why :meth:`LeaseTable.hold` refused: ``places[at]`` is in the way.

    Attributes:
        at: which of the places (its index).
        blocker: another holder's lease or hold over it; None when strict mode
            wanted a lease of the caller's own and it holds none there.
    """

    at: int
    blocker: Lease | None


def _overlap(a: str, b: str) -> bool:
    """Whether two normalised paths conflict (either contains the other; case fails closed)."""
    return paths.contains(a, b) is not paths.Tri.NO or paths.contains(b, a) is not paths.Tri.NO


def _meets(place: str | None, path: str | None) -> bool:
    """Whether a held place and a wanted path may conflict (None: could be anything)."""
    return place is None or path is None or _overlap(place, path)


def is_seconds(value: Any) -> bool:
    """Whether ``value`` is a number of seconds: an int or a float, not a bool, not NaN."""
    return not isinstance(value, bool) and isinstance(value, (int, float)) and \
        not (isinstance(value, float) and math.isnan(value))


def _positive(argument: str, value: Any) -> float:
    if not is_seconds(value) or not 0 < value < math.inf:
        raise InvalidArgument(argument, value, "must be a positive number of seconds")
    return float(value)


def _holder(value: Any, argument: str = "holder") -> str:
    if not isinstance(value, str) or not value:
        raise InvalidArgument(argument, value, "must be a non-empty string")
    return value


def _path_list(argument: str, value: Any, *, unknown: bool = False) -> list[Any]:
    """``value`` as a list of paths (and None, with ``unknown``); a lone string is refused."""
    try:
        items = None if isinstance(value, (str, bytes)) else list(value)
    except TypeError:
        items = None
    if items is None or not all(isinstance(item, str) or (unknown and item is None)
                                for item in items):
        raise InvalidArgument(argument, value, "must be a list of path strings")
    return items


class LeaseTable:
    """The workspace's leases, shared by every agent's :class:`Leases`.

    Its methods check what they are given: a holder is a non-empty string, paths
    come as a list (a lone string is refused, not read letter by letter), a
    TTL is a positive, finite number of seconds.  A bad argument is an
    :class:`~mcp_client.exceptions.InvalidArgument`.

    With a ``store`` (:mod:`mcp_client.store`), the leases and holds live
    there, shared by every table that opens the same store and ``workspace``
    -- in other processes too -- and every method asks the store: expiry then
    follows the store's clock (``clock`` is not used), and each grant carries
    a fencing token (``Lease.token``).  A store that cannot answer raises
    :class:`~mcp_client.store.StoreUnavailable`; nothing is granted.

    Args:
        default_ttl: seconds a lease lasts unless a call says otherwise.
        clock: monotonic seconds (a test may pass its own).
        store: where the leases live; None keeps them in this table.
        workspace: which of the store's tables this is.

    Raises:
        InvalidArgument: ``default_ttl`` is not a positive, finite number of
            seconds, ``clock`` is not callable, ``store`` is not a
            :class:`~mcp_client.store.Store`, or ``workspace`` is not a
            non-empty string.
    """

    def __init__(self, default_ttl: float = 300, *,
                 clock: Callable[[], float] = time.monotonic, store: Store | None = None,
                 workspace: str = "default") -> None:
        self.default_ttl = _positive("default_ttl", default_ttl)
        if not callable(clock):
            raise InvalidArgument("clock", clock, "must be callable")
        if store is not None and not isinstance(store, Store):
            raise InvalidArgument("store", store, "must be a Store (mcp_client.store)")
        self.store = store
        self.workspace = _holder(workspace, "workspace")
        #: holders this table asked the store to grant (what release_all gives back)
        self._granted: set[str] = set()
        self._clock = clock
        self._cond = threading.Condition()
        self._leases: dict[str, Lease] = {}
        self._holds: list[Hold] = []
        self._token = 0     # the last fencing token granted

    def __repr__(self) -> str:
        if self.store is not None:
            try:
                counts = (f"leases={len(self.store.leases(self.workspace))} "
                          f"in_flight={len(self.store.holds(self.workspace))}")
            except StoreError:
                counts = "unavailable"
            return (f"<LeaseTable store={self.store!r} workspace={self.workspace!r} {counts} "
                    f"default_ttl={self.default_ttl:g}>")
        return (f"<LeaseTable leases={len(self._leases)} in_flight={len(self._holds)} "
                f"default_ttl={self.default_ttl:g}>")

    def _purge(self, now: float) -> None:
        for path in [p for p, lease in self._leases.items() if lease.expires <= now]:
            del self._leases[path]

    def snapshot(self) -> list[Lease]:
        """The live leases (copies)."""
        if self.store is not None:
            return [Lease(*record) for record in self.store.leases(self.workspace)]
        with self._cond:
            self._purge(self._clock())
            return [Lease(**vars(lease)) for lease in self._leases.values()]

    def try_acquire(self, holder: str, wanted: Sequence[str], ttl: float) -> Lease | None:
        """Claim every path or none.

        Another holder's lease or in-flight hold over any of the paths refuses
        the whole claim; the holder's own never does.  A grant takes the
        table's next fencing token for the paths it newly claims; a path the
        holder still holds keeps its token (a renew).

        Returns:
            None when granted; otherwise a lease (or an ``in_flight`` hold, as a
            :class:`Lease`) of another holder that is in the way.
        """
        holder, wanted, ttl = _holder(holder), _path_list("wanted", wanted), _positive("ttl", ttl)
        if self.store is not None:
            with self._cond:
                self._granted.add(holder)   # (before: a grant that raises may still be in)
            return _lease(self.store.acquire(self.workspace, holder, wanted, ttl))
        with self._cond:
            now = self._clock()
            self._purge(now)
            for path in wanted:
                blocker = self._in_the_way(holder, path)
                if blocker is not None:
                    return blocker
            token = self._token + 1
            for path in wanted:
                held = self._leases.get(path)
                if held is not None and held.holder == holder:
                    self._leases[path] = Lease(path, holder, held.since, now + ttl,
                                               token=held.token)
                else:
                    self._token = token
                    self._leases[path] = Lease(path, holder, now, now + ttl, token=token)
            return None

    def release(self, holder: str, released: Iterable[str] | None = None) -> list[str]:
        """Give back ``released`` (all of ``holder``'s when None); returns what was freed."""
        holder = _holder(holder)
        wanted = None if released is None else set(_path_list("released", released))
        if self.store is not None:
            return self.store.release(self.workspace, holder,
                                      None if wanted is None else sorted(wanted))
        with self._cond:
            freed = [p for p, lease in self._leases.items()
                     if lease.holder == holder and (wanted is None or p in wanted)]
            for path in freed:
                del self._leases[path]
            self._cond.notify_all()
        return freed

    def release_holder(self, agent_id: str) -> list[str]:
        """Give back everything ``agent_id`` holds (its run has drained)."""
        return self.release(_holder(agent_id, "agent_id"), None)

    def release_all(self) -> None:
        """Empty the table of leases (at shutdown); a call in flight keeps its hold.

        Over a store, only the leases of holders this table granted are given
        back: the workspace's other leases belong to agents of other processes,
        still at work.
        """
        if self.store is not None:
            with self._cond:
                granted = sorted(self._granted)
            for holder in granted:
                self.store.release(self.workspace, holder, None)
            return None
        with self._cond:
            self._leases.clear()
            self._cond.notify_all()

    def blocking(self, holder: str, path: str | None) -> Lease | None:
        """Another holder's lease or in-flight hold over ``path`` (any of theirs when
        ``path`` is unknown)."""
        if self.store is not None:
            return _lease(self.store.blocking(self.workspace, holder, path))
        with self._cond:
            self._purge(self._clock())
            return self._in_the_way(holder, path)

    def covers(self, holder: str, path: str) -> bool:
        """Whether ``holder`` holds a lease on ``path`` or a directory above it.

        Only leases count: a hold of the holder's own is not permission.
        """
        if self.store is not None:
            return self.store.covers(self.workspace, holder, path)
        with self._cond:
            self._purge(self._clock())
            return self._covers(holder, path)

    def hold(self, holder: str, places: Sequence[str | None], *,
             strict: bool) -> Hold | Conflict:
        """Judge a mutating call on the table as it is now, and hold what it writes.

        In one step under the table's lock: another holder's lease or hold over
        any place refuses it; with ``strict``, so does a place the holder has
        no lease over (or a place that cannot be read, None).  Otherwise the
        places are held -- another holder's :meth:`try_acquire` and
        :meth:`blocking` see them -- until :meth:`end_hold`.  A hold has no
        TTL: it lasts as long as the call, which the provider underneath
        bounds (a client's ``request_timeout``).

        Returns:
            the :class:`Hold` to end once the call's answer is in, or the
            :class:`Conflict` that refused it.
        """
        holder, places = _holder(holder), _path_list("places", places, unknown=True)
        if self.store is not None:
            got = self.store.hold(self.workspace, holder, places, strict=strict)
            if isinstance(got, StoredHold):
                return _StoredHold(holder, places, got.since, got.key)
            return Conflict(got.at, _lease(got.blocker))
        with self._cond:
            now = self._clock()
            self._purge(now)
            for index, place in enumerate(places):
                blocker = self._in_the_way(holder, place)
                if blocker is not None:
                    return Conflict(index, blocker)
                if strict and (place is None or not self._covers(holder, place)):
                    return Conflict(index, None)
            held = Hold(holder, places, now)
            self._holds.append(held)
            return held

    def end_hold(self, held: Hold) -> None:
        """End a hold (its call's answer is in); idempotent.  Wakes waiting claims."""
        if not isinstance(held, Hold):
            raise InvalidArgument("held", held, "must be a Hold from hold()")
        if self.store is not None:
            if not isinstance(held, _StoredHold):
                raise InvalidArgument("held", held, "must be a Hold from this table's hold()")
            return self.store.end_hold(self.workspace, held.key)
        with self._cond:
            self._holds = [h for h in self._holds if h is not held]
            self._cond.notify_all()

    def holds(self) -> list[Lease]:
        """The holds of calls in flight, one ``in_flight`` :class:`Lease` per place."""
        if self.store is not None:
            return [Lease(*record) for record in self.store.holds(self.workspace)]
        with self._cond:
            return [lease for held in self._holds for lease in held.leases()]

    def _in_the_way(self, holder: str, path: str | None) -> Lease | None:
        """Another holder's lease or hold over ``path`` (a copy); the lock is held."""
        for lease in self._leases.values():
            if lease.holder != holder and _meets(lease.path, path):
                return Lease(**vars(lease))
        for held in self._holds:
            if held.holder != holder:
                for place, lease in zip(held.places, held.leases()):
                    if _meets(place, path):
                        return lease
        return None

    def _covers(self, holder: str, path: str) -> bool:
        return any(lease.holder == holder and paths.contains(lease.path, path) is paths.Tri.YES
                   for lease in self._leases.values())

    def wait_for_change(self, timeout: float) -> None:
        """Block until a release, or ``timeout`` seconds."""
        if self.store is not None:
            self.store.wait(self.workspace, timeout)
            return
        with self._cond:
            self._cond.wait(timeout)

    def held_for(self, lease: Lease) -> float:
        """Seconds since ``lease`` was first taken."""
        now = self._clock() if self.store is None else self.store.now()
        return max(0.0, now - lease.since)
