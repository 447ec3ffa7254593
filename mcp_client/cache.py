"""The ``ttlMs`` result cache (2026-07-28 "Caching").

The client keeps a cacheable result for exactly the ``ttlMs`` the server
gave, by the clock, and for no longer than 24 hours (the official SDK's cap).
What is stored is decided by the client, not here; this module only keeps
entries.  The client's rules, for the record:

* the six cacheable methods only (``server/discover``, ``tools/list``,
  ``prompts/list``, ``resources/list``, ``resources/templates/list``,
  ``resources/read``); no ``ttlMs`` or a zero one means no storage, and a
  legacy server's answers are never stored (the handshake era has no cache
  metadata);
* never an ``input_required`` result, nor a result reached through a
  multi round-trip retry;
* the key is the method and every param that affects the result (``cursor``,
  ``uri``); each page is its own entry.  One cache belongs to one client, i.e.
  one set of credentials, so ``cacheScope: "private"`` entries are never
  shared across authorisation contexts;
* ``refresh=True`` bypasses and drops the entry; ``notifications/*/list_changed``
  and ``notifications/resources/updated`` evict the matching entries.  Only
  legacy servers send those unasked: a modern server sends them only on a
  ``subscriptions/listen`` stream, which this client does not open, so
  there freshness comes from ``ttlMs`` and ``refresh``.

Thread-safe; bounded (least recently used entries go first).  Values are
kept serialised with :mod:`marshal` (which reads JSON-shaped values back two
to three times faster than a recursive copy) and rebuilt on every hit, so a
caller that mutates a result cannot corrupt the cache.

:meth:`Cache.stamp` says, without rebuilding anything, whether a method's
stored answers are all still the ones a caller last read: what is derived
from them (the client's ``tools_for_llm()`` declarations) can be kept until
the stamp changes.
"""

from __future__ import annotations

import collections
import marshal
import threading
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Hashable
    Key = tuple[str, Hashable]
    #: ``(removed, stored, servable)``: see :meth:`Cache.stamp`.
    Stamp = tuple[int, int, bool]

__all__ = ["Cache", "MAX_TTL_MS", "DEFAULT_MAX_ENTRIES", "copy_json"]

#: The longest a result is kept, whatever the server says (the SDK's MAX_TTL_MS).
MAX_TTL_MS = 24 * 60 * 60 * 1000
#: How many entries are kept (the SDK client holds 1024).
DEFAULT_MAX_ENTRIES = 1024


def copy_json(value: Any) -> Any:
    """A deep copy of a JSON-shaped value (much faster than :func:`copy.deepcopy`)."""
    if isinstance(value, dict):
        return {k: copy_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [copy_json(v) for v in value]
    return value


class Cache:
    """Entries that expire by the clock.

    Args:
        max_entries: the bound on entries.
        clock: seconds, monotonic (a test passes its own).
    """

    def __init__(self, *, max_entries: int = DEFAULT_MAX_ENTRIES,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._entries: collections.OrderedDict[Key, tuple[float, Any]] = \
            collections.OrderedDict()
        self._lock = threading.Lock()
        self._max = max_entries
        self.clock = clock
        # per method: entries removed, answers offered (kept or not), the soonest expiry,
        # and the keys whose latest answer could not be kept (ttlMs 0)
        self._removed: collections.Counter[str] = collections.Counter()
        self._stored: collections.Counter[str] = collections.Counter()
        self._soonest: dict[str, float] = {}
        self._refused: set[Key] = set()

    def __len__(self) -> int:
        return len(self._entries)

    def __repr__(self) -> str:
        return f"<Cache entries={len(self._entries)} max={self._max}>"

    @staticmethod
    def key(method: str, params: dict[str, Any]) -> Key:
        """The key of a request: its method and the params that shape the result."""
        return (method, (params.get("cursor"), params.get("uri")))

    def get(self, key: Key) -> Any:
        """A fresh copy of the value under ``key`` while it is fresh, or None."""
        now = self.clock()
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            if now >= entry[0]:
                del self._entries[key]
                self._removed_locked(key[0])
                return None
            self._entries.move_to_end(key)
            frozen = entry[1]
        return marshal.loads(frozen)

    def put(self, key: Key, value: Any, ttl_ms: int) -> bool:
        """Keep a copy of ``value`` for ``ttl_ms`` (capped); False if not stored."""
        stored = None
        if ttl_ms > 0:
            expires = self.clock() + min(ttl_ms, MAX_TTL_MS) / 1000.0
            try:
                stored = marshal.dumps(value)
            except ValueError:   # not JSON-shaped after all: keep nothing
                pass
        with self._lock:
            self._stored[key[0]] += 1
            if stored is None:
                self._refused.add(key)
                if self._entries.pop(key, None) is not None:
                    self._removed_locked(key[0])
                return False
            self._refused.discard(key)
            self._entries[key] = (expires, stored)
            self._entries.move_to_end(key)
            while len(self._entries) > self._max:
                self._removed_locked(self._entries.popitem(last=False)[0][0])
            self._soonest[key[0]] = self._soonest_locked(key[0])
        return True

    def stamp(self, method: str) -> Stamp:
        """Where ``method``'s stored answers stand: compare two stamps to see a change.

        ``(removed, stored, servable)``: how many of its entries were removed
        (expired, dropped, evicted) and how many answers were offered to the
        cache; ``servable`` is True while at least one entry is stored, every
        one is fresh and no answer was refused since (a ``ttlMs`` of 0: that
        page would be fetched again).  A value derived from the answers read
        while ``removed`` stayed the same is current while a later stamp has
        the same two counts and is servable.
        """
        now = self.clock()
        with self._lock:
            soonest = self._soonest.get(method)
            servable = soonest is not None and now < soonest and \
                not any(key[0] == method for key in self._refused)
            return self._removed[method], self._stored[method], servable

    def _soonest_locked(self, method: str) -> float:
        return min((expires for key, (expires, _) in self._entries.items() if key[0] == method),
                   default=float("-inf"))

    def _removed_locked(self, method: str) -> None:
        self._removed[method] += 1
        self._soonest[method] = self._soonest_locked(method)

    def drop(self, key: Key) -> None:
        """Forget ``key``."""
        with self._lock:
            self._refused.discard(key)
            if self._entries.pop(key, None) is not None:
                self._removed_locked(key[0])
            else:
                self._removed[key[0]] += 1   # a refresh: what was read before is suspect

    def evict(self, method: str, uri: str | None = None) -> int:
        """Forget every entry of ``method`` (only those for ``uri`` if given)."""
        with self._lock:
            doomed = [k for k in self._entries
                      if k[0] == method and (uri is None or k[1] == (None, uri))]
            for key in doomed:
                del self._entries[key]
            self._refused = {k for k in self._refused if k[0] != method}
            self._removed[method] += 1
            self._soonest[method] = self._soonest_locked(method)
        return len(doomed)

    def clear(self) -> None:
        """Forget everything."""
        with self._lock:
            for method in {key[0] for key in self._entries} | set(self._soonest):
                self._removed[method] += 1
            self._entries.clear()
            self._soonest.clear()
            self._refused.clear()
