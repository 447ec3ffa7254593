"""The Redis engine: :class:`RedisStore` (``open_store("redis://...")``, extra ``[redis]``).

One Redis primary keeps the workspace; every operation is ONE Lua script
(``redis.lua``, shipped with the package), which Redis runs atomically, so a
check-and-grant is never interleaved with another client's.  This is not
Redlock and needs no quorum: it is exactly as safe as the one primary.  A
failover to a replica may lose the last writes (Redis replicates
asynchronously), so a lease may be granted twice across a failover: it is
**safe only with fencing** -- a server that refuses writes carrying a token
older than the newest it has seen (``Lease.token``).

Tokens are only as durable as the server's data: run it with the append-only
file (``appendonly yes``, ``appendfsync always`` for no loss) and, with replicas,
``min-replicas-to-write``.  A server that restarts empty counts tokens from 1
again, which fencing servers refuse (failing closed) until the count passes
the newest they have seen.

* Expiry is by the server's clock: each script reads Redis ``TIME``.
* Tokens come from ``INCR`` of a counter per workspace inside the granting script.
* Overlap is the rule of :func:`mcp_client.paths.contains`, ported to Lua: each
  path travels with its case-folded form (folded here, by Python), so paths
  differing only in case conflict exactly as in memory; a bracket glob (``[a-z]``)
  is taken to match anything it is compared with (wider than Python: fails closed).
* Holds are stamped with their process (:mod:`mcp_client.store._proc`); before
  each operation the client reads the holds and names those of dead processes
  on this host, which the script drops.  Other hosts' holds are kept (fail closed).
* Waiting polls a per-workspace change counter (bumped by every release and
  end of a hold) with a backoff from 5 to 100 ms; a change made in the same
  process wakes a waiter at once.  (Polling, not pub/sub: a message published
  while a waiter reconnects would be lost, a counter is not.)
* Keys live under a prefix (``?prefix=NAME`` in the URL; ``mcp-client`` by default).
* Fail closed: a server that cannot be reached raises :class:`StoreUnavailable`
  naming the URL with its password hidden, and grants nothing; the next
  operation reconnects.  A script is never retried after a lost connection.
"""

from __future__ import annotations

import json
import math
import os
import threading
import uuid
from importlib import resources
from typing import Any, Callable, Sequence
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from .._redact import redact_url
from ..exceptions import InvalidArgument
from . import _proc
from ._base import (Refusal, StoredHold, StoredLease, StoreError, StoreUnavailable,
                    TaskRecord, UnsupportedStore, lock_timeout_of, poll_for_change)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..policy import GrantBook

__all__ = ["RedisStore", "fold", "scripts"]

#: The key prefix when the URL names none.
DEFAULT_PREFIX = "mcp-client"
#: Longest TTL passed to the server (seconds): keeps the microsecond arithmetic exact.
TTL_MOST = 1e9


def scripts() -> dict[str, str]:
    """The Lua scripts by operation, each with the shared prelude in front."""
    text = resources.files(__package__).joinpath("redis.lua").read_text(encoding="utf-8")
    prelude, *bodies = text.split("\n-- @op ")
    found = {}
    for body in bodies:
        name = body.split(None, 1)[0]
        found[name] = prelude + "\n-- " + body
    return found


def fold(path: str) -> str:
    """``path`` with each segment case-folded, as the scripts compare it."""
    return "/".join(part.casefold() for part in path.split("/"))


def _pair(path: str | None) -> list[str] | bool:
    return False if path is None else [path, fold(path)]


def _seconds(micro: Any) -> float:
    return math.inf if micro == "inf" else int(micro) / 1e6


def _record(raw: Any) -> StoredLease:
    path, holder, since, expires, in_flight, token = raw
    return StoredLease(path, holder, _seconds(since), _seconds(expires), bool(in_flight),
                       int(token))


def _list(raw: Any) -> list[Any]:
    return raw if isinstance(raw, list) else []   # Lua's cjson writes an empty table as {}


def split_url(url: str) -> tuple[str, str]:
    """The URL for redis-py (without this library's ``prefix`` option) and the prefix."""
    parts = urlsplit(url)
    query = parse_qsl(parts.query, keep_blank_values=True)
    prefix = [value for key, value in query if key == "prefix"]
    rest = [(key, value) for key, value in query if key != "prefix"]
    if prefix and not prefix[-1]:
        raise InvalidArgument("url", redact_url(url), "prefix= must not be empty")
    return urlunsplit(parts._replace(query=urlencode(rest))), (prefix[-1] if prefix
                                                               else DEFAULT_PREFIX)


class RedisStore:
    """A store on one Redis primary: many processes, many hosts.

    Every operation is one Lua script, run atomically by the primary (not
    Redlock).  Expiry follows the server's ``TIME``; tokens come from ``INCR``.
    Redis replicates asynchronously, so a failover may lose leases: this store
    is **safe only with fencing** (servers that refuse a write whose
    ``Lease.token`` is older than the newest they have seen).  Paths overlap by
    the rule of :func:`mcp_client.paths.contains` (case folding fails closed; a
    bracket glob is taken to match).  A waiting acquire polls a change counter
    (5 ms, doubling to 100 ms); a release in the same process wakes it at once.
    An unreachable server raises :class:`StoreUnavailable` (password hidden) and
    grants nothing; the next operation reconnects.  Holds of a dead process on
    this host are dropped by the next operation; other hosts' holds stay.

    Args:
        url: ``redis://[[user]:password@]host:port/db`` or ``rediss://`` (TLS),
            optionally ``?prefix=NAME`` for the keys.
        lock_timeout: seconds to connect and to wait for an answer before
            :class:`StoreUnavailable`.
    """

    def __init__(self, url: str, *, lock_timeout: float = 5.0) -> None:
        lock_timeout = lock_timeout_of(lock_timeout)
        try:
            import redis
            from redis.backoff import NoBackoff
            from redis.retry import Retry
        except ImportError as exc:   # pragma: no cover - the extra is installed for tests
            raise UnsupportedStore(redact_url(url), "needs redis-py: pip install "
                                                    "'mcp-client-sync[redis]'") from exc
        plain, self.prefix = split_url(url)
        #: the URL as it may be shown: no password, and the key prefix
        self.name = f"{redact_url(plain)} (prefix {self.prefix})"
        self.lock_timeout = lock_timeout
        self._redis_error: type[Exception] = redis.RedisError
        self._response_error: type[Exception] = redis.ResponseError
        try:
            self._client: Any = redis.Redis.from_url(
                plain, socket_timeout=lock_timeout, socket_connect_timeout=lock_timeout,
                retry=Retry(NoBackoff(), 0), decode_responses=True)
        except (ValueError, redis.RedisError) as exc:
            raise InvalidArgument("url", self.name, f"not a Redis URL: {exc}") from exc
        self._scripts = {name: self._client.register_script(text)
                         for name, text in scripts().items()}
        self._closed = False
        self._changed = threading.Condition(threading.Lock())
        self._generation = 0
        self._seen = threading.local()
        self._owner = f"{_proc.HOST}:{os.getpid()}:{uuid.uuid4().hex}"
        self._started = (os.getpid(), _proc.started(os.getpid()))
        self._books: dict[str, GrantBook] = {}

    def __repr__(self) -> str:
        return f"<RedisStore {self.name} {'closed' if self._closed else 'open'}>"

    def __enter__(self) -> RedisStore:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- talking to the server ---------------------------------------------------------

    def key(self, kind: str, name: str) -> str:
        """The key of ``kind`` (``lease``, ``holds``...) for a workspace or book ``name``."""
        return f"{self.prefix}:{kind}:{name}"

    def call(self, what: Callable[[], Any]) -> Any:
        """Run ``what`` against the server; its errors become :class:`StoreError` (a
        script's) or :class:`StoreUnavailable` (everything else: fail closed)."""
        if self._closed:
            raise StoreError(self.name, "closed")
        try:
            return what()
        except self._response_error as exc:
            raise StoreError(self.name, f"the server refused: {exc}") from exc
        except UnicodeError as exc:   # text that is not UTF-8 (a lone surrogate): nothing sent
            raise StoreError(self.name, f"cannot send {exc.__class__.__name__}: {exc}") from exc
        except (self._redis_error, OSError) as exc:
            raise StoreUnavailable(self.name, f"{type(exc).__name__}: {exc}") from exc

    def run(self, op: str, keys: Sequence[str], *args: Any) -> Any:
        """Run the script of ``op``; returns its answer as decoded JSON."""
        script = self._scripts[op]
        return self.call(lambda: script(keys=list(keys), args=list(args)))

    def _op(self, op: str, workspace: str, *args: Any, dead: bool = True,
            touch: bool = False) -> Any:
        """Run a lease script (``dead``: naming this host's dead holds; ``touch``: then
        waking this process's waiters) and note the change counter it saw."""
        keys = [self.key(kind, workspace) for kind in ("lease", "holds", "fence", "version",
                                                       "holdseq")]
        extra = [json.dumps(self._dead(keys[1]))] if dead else []
        value, version = json.loads(self.run(op, keys, *args, *extra))
        if touch:
            self._touched()
        self._seen.version = (workspace, version)
        with self._changed:
            self._seen.generation = self._generation
        return value

    def _dead(self, holds_key: str) -> list[str]:
        """The ids of this host's holds whose process is gone."""
        found = self.call(lambda: self._client.hgetall(holds_key))
        dead = []
        for key, raw in found.items():
            stamp = json.loads(raw)
            if stamp.get("host") == _proc.HOST and _proc.gone(
                    stamp["pid"], stamp.get("started"), stamp.get("boot"), stamp.get("pidns")):
                dead.append(key)
        if dead:
            self._touched()
        return dead

    def _start_time(self) -> str | None:
        """This process's start time (read again in a child after a fork)."""
        pid = os.getpid()
        if self._started[0] != pid:
            self._started = (pid, _proc.started(pid))
        return self._started[1]

    def _touched(self) -> None:
        with self._changed:
            self._generation += 1
            self._changed.notify_all()

    # -- the Store operations ------------------------------------------------------------

    def now(self) -> float:
        seconds, micro = self.call(self._client.time)
        return float(seconds) + float(micro) / 1e6

    def acquire(self, workspace: str, holder: str, wanted: Sequence[str],
                ttl: float) -> StoredLease | None:
        micro = f"{min(max(ttl, 0.0), TTL_MOST) * 1e6:.0f}"
        found = self._op("acquire", workspace, holder, micro,
                         json.dumps([_pair(path) for path in wanted]))
        return None if found is False else _record(found)

    def release(self, workspace: str, holder: str, released: Sequence[str] | None) -> list[str]:
        freed = self._op("release", workspace, holder,
                         json.dumps(False if released is None else list(released)), touch=True)
        return [str(path) for path in _list(freed)]

    def release_all(self, workspace: str) -> None:
        self._op("release_all", workspace, dead=False, touch=True)

    def leases(self, workspace: str) -> list[StoredLease]:
        return [_record(raw) for raw in _list(self._op("leases", workspace))]

    def holds(self, workspace: str) -> list[StoredLease]:
        return [_record(raw) for raw in _list(self._op("holds", workspace))]

    def blocking(self, workspace: str, holder: str, path: str | None) -> StoredLease | None:
        found = self._op("blocking", workspace, holder, json.dumps(_pair(path)))
        return None if found is False else _record(found)

    def covers(self, workspace: str, holder: str, path: str) -> bool:
        return bool(self._op("covers", workspace, holder, path, fold(path)))

    def hold(self, workspace: str, holder: str, places: Sequence[str | None], *,
             strict: bool) -> StoredHold | Refusal:
        stamp = {"host": _proc.HOST, "boot": _proc.BOOT, "pidns": _proc.PIDNS,
                 "pid": os.getpid(), "started": self._start_time(), "o": self._owner}
        found = self._op("hold", workspace, holder, json.dumps([_pair(p) for p in places]),
                         "1" if strict else "0", json.dumps(stamp))
        first, second = found
        if isinstance(second, list) or second is False:
            return Refusal(int(first), None if second is False else _record(second))
        return StoredHold(int(first), _seconds(second))

    def end_hold(self, workspace: str, key: int) -> None:
        self._op("end_hold", workspace, str(key), dead=False, touch=True)

    def wait(self, workspace: str, timeout: float) -> bool:
        """Poll the workspace's change counter with backoff; a change in this process wakes
        at once.  The baseline is what this thread saw in its last operation."""
        with self._changed:
            generation = getattr(self._seen, "generation", self._generation)
        seen = getattr(self._seen, "version", None)
        version = seen[1] if seen is not None and seen[0] == workspace else None
        counter = self.key("version", workspace)
        return poll_for_change(self._changed, lambda: self._generation, generation, version,
                               lambda: self.call(lambda: self._client.get(counter)) or "0",
                               timeout)

    # -- task records --------------------------------------------------------------------

    def put_task(self, record: TaskRecord) -> None:
        """Keep ``record`` (or update the status of the one with its server and id,
        keeping ``created``); the times are the server's."""
        field = f"{len(record.server)}:{record.server}{record.task_id}"
        task = {"task_id": record.task_id, "server": record.server, "tool": record.tool,
                "digest": record.digest, "status": record.status}
        self.run("put_task", [self.key("tasks", "all"), self.key("taskseq", "all")],
                 field, json.dumps(task))

    def tasks(self) -> list[TaskRecord]:
        """Every task record, oldest first."""
        found = self.call(lambda: self._client.hvals(self.key("tasks", "all")))
        rows = sorted((json.loads(raw) for raw in found),
                      key=lambda row: (int(row["created"]), row["n"]))
        return [TaskRecord(row["task_id"], row["server"], row["tool"], row["digest"],
                           row["status"], _seconds(row["created"]), _seconds(row["updated"]))
                for row in rows]

    def get_task(self, task_id: str, server: str | None = None) -> TaskRecord | None:
        """The newest record of ``task_id`` (on ``server`` if given), or None."""
        found = [task for task in self.tasks()
                 if task.task_id == task_id and (server is None or task.server == server)]
        return found[-1] if found else None

    # -- books and closing ---------------------------------------------------------------

    def book(self, name: str = "default") -> GrantBook:
        """The grant book ``name`` on this server (keys under this store's prefix):
        every process and host that opens the same URL shares it."""
        from ._redisbook import RedisBook
        if not isinstance(name, str) or not name:
            raise InvalidArgument("name", name, "must be a non-empty string")
        if self._closed:
            raise StoreError(self.name, "closed")
        return self._books.setdefault(name, RedisBook(self, name))

    def close(self) -> None:
        """Let go of the connections; idempotent.

        In-flight holds stay: a call still running keeps its places held, and the
        holds carry this process's pid, so the first operation on this host after
        it ends drops them.
        """
        if self._closed:
            return
        self._closed = True
        self._client.close()
