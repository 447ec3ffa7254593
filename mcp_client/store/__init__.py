"""The fleet store: one workspace's leases shared by every process that opens it.

A :class:`~mcp_client.leases.LeaseTable` keeps its leases in its own process
unless it is given a store (``LeaseTable(store=open_store(url),
workspace="repo")``); then every process that opens the same store and
workspace shares one table, and every lease grant carries a fencing token
(``Lease.token``), strictly increasing per workspace.

* ``open_store("memory:")`` -- :class:`MemoryStore`: this process only, on the
  monotonic clock (the semantics of a table without a store, plus tokens).
* ``open_store("sqlite:///abs/path.db")`` or a plain file path --
  :class:`SQLiteStore`: one host, many processes (stdlib ``sqlite3``,
  WAL journal, ``BEGIN IMMEDIATE`` per operation).  Expiry follows the
  host's wall clock, read inside each transaction; all processes on a host
  read the same clock.  A file on a network filesystem (NFS, SMB...) is
  refused: SQLite's locking is not reliable there.
* ``open_store("postgresql://user:password@host/db")`` (or ``postgres://``;
  ``?schema=NAME`` picks the schema, default ``mcp_client``) --
  :class:`PostgresStore`: many hosts (psycopg 3, the ``[postgres]`` extra,
  imported only when such a store is opened).  Expiry follows the server's
  clock; see :mod:`mcp_client.store._postgres`.
* ``open_store("redis://[:password@]host:port/db")`` (or ``rediss://``, TLS;
  ``?prefix=NAME`` chooses the key prefix) -- :class:`RedisStore`: many hosts
  on one Redis primary (extra ``[redis]``), one Lua script per operation,
  expiry by the server's ``TIME``, tokens by ``INCR``.  Not Redlock: safe only
  with fencing (a failover may lose leases).
* A server engine whose driver is not installed raises
  :class:`UnsupportedStore`, naming the extra to install.

What a store keeps and how (see :class:`Store`):

* An acquire is all or nothing, atomic in the store: another holder's lease
  or in-flight hold over any wanted path refuses the whole claim (overlap
  by path containment, paths differing only in case conflict).  Re-acquiring
  a path one holds renews it and keeps its token; a new grant takes the next
  token.  Release frees only the caller's own leases.
* In-flight holds (a mutating call between forwarding and its answer) are
  rows stamped with the host, pid and start time of the process that made
  them, so another process sees them, and the holds of a process that died
  (SIGKILL included) are purged by the next operation on that host, and so
  are holds from before the host's last boot.  Holds stamped by another host
  or pid namespace (a container sharing the file) cannot be judged and stay
  until their process ends them (failing closed).  Leases of a dead process
  are not purged: they run out by their TTL.
* A waiting acquire notices releases from other processes by polling
  ``PRAGMA data_version`` (5 ms, doubling to 100 ms); a release in the same
  process wakes it at once.
* The store fails closed: when the database cannot be opened, or stays
  locked past ``lock_timeout`` (5 s), the operation raises
  :class:`StoreUnavailable` naming the store and grants nothing; the next
  call tries again.

A store also keeps the tasks its clients started (:class:`TaskRecord`:
``put_task``, ``get_task``, ``tasks``), so that a later process can resume
polling one: ``Client.call_tool_task(..., store=store)`` records a task and
its status as polling sees it change, ``Client.resume_task(task_id,
store=store)`` picks it up again.

A store is opened in each process that uses it: one opened before a
``fork()`` raises :class:`StoreError` in the child (SQLite connections must
not cross a fork).  A store is safe to use from any thread and closeable (:meth:`Store.close`, or a
``with`` block).  URLs are shown with any password hidden.
"""

from __future__ import annotations

import os
import re
import threading
import time
from typing import Any

from .._redact import redact_url
from ..exceptions import InvalidArgument
from ._base import (Refusal, Store, StoredHold, StoredLease, StoreError, StoreUnavailable,
                    TaskRecord, UnsupportedStore, lock_timeout_of)
from . import _proc
from ._postgres import PostgresStore
from ._redis import RedisStore
from ._sql import SQLEngine

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..policy import GrantBook

__all__ = ["open_store", "Store", "MemoryStore", "SQLiteStore", "PostgresStore", "RedisStore",
           "StoredLease", "StoredHold",
           "Refusal", "TaskRecord", "StoreError", "StoreUnavailable", "UnsupportedStore"]

#: URL schemes of PostgreSQL.
POSTGRES = ("postgresql", "postgres")
#: URL schemes of Redis.
REDIS = ("redis", "rediss")


class _Closing:
    def __enter__(self) -> Any:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()   # type: ignore[attr-defined]


class MemoryStore(_Closing, SQLEngine):
    """A store in this process's memory (an in-memory SQLite database).

    Args:
        clock: the store's clock, monotonic seconds (a test may pass its own).
        lock_timeout: seconds an operation waits for another thread's.
    """

    def __init__(self, *, clock: Any = time.monotonic, lock_timeout: float = 5.0) -> None:
        if not callable(clock):
            raise InvalidArgument("clock", clock, "must be callable")
        super().__init__("memory:", ":memory:", clock=clock,
                         lock_timeout=lock_timeout_of(lock_timeout), wal=False)
        self._books: dict[str, GrantBook] = {}
        self._books_lock = threading.Lock()

    def __repr__(self) -> str:
        return f"<MemoryStore {'closed' if self._conn is None else 'open'}>"

    def book(self, name: str = "default") -> GrantBook:
        """The grant book ``name`` (``Grants(store=..., book=name)``): the same one for
        every caller in this process, as the store's leases are."""
        from ..policy import MemoryBook
        if not isinstance(name, str) or not name:
            raise InvalidArgument("name", name, "must be a non-empty string")
        with self._books_lock:
            return self._books.setdefault(name, MemoryBook(name))


class SQLiteStore(_Closing, SQLEngine):
    """A store in an SQLite file: one host, many processes.

    The file and its schema are made on first use.

    Args:
        path: the database file.
        lock_timeout: seconds an operation waits for the write lock before it
            raises :class:`StoreUnavailable`.
        mounts: the mount table read to find the file's filesystem (a test
            may pass its own).

    Raises:
        StoreUnavailable: the file cannot be opened or made, or it is on a
            network filesystem (NFS, SMB...), where SQLite's locks do not hold.
    """

    def __init__(self, path: str | os.PathLike[str], *, lock_timeout: float = 5.0,
                 mounts: str = "/proc/mounts") -> None:
        if not isinstance(path, (str, os.PathLike)) or not os.fspath(path):
            raise InvalidArgument("path", path, "must be a file path")
        self.path = os.path.abspath(os.fspath(path))
        kind = _proc.filesystem(os.path.realpath(os.path.dirname(self.path)), mounts)
        if kind in _proc.NETWORK_FILESYSTEMS:
            raise StoreUnavailable(f"sqlite://{self.path}", f"on a network filesystem ({kind}): "
                                   "SQLite's locking is not reliable there; use a local disk")
        try:   # a new file is the owner's alone (its journals take its mode)
            os.close(os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
        except OSError:
            pass   # it exists, or cannot be made: opening it says which
        super().__init__(f"sqlite://{self.path}", self.path, clock=time.time,
                         lock_timeout=lock_timeout_of(lock_timeout), wal=True)

    def __repr__(self) -> str:
        return f"<SQLiteStore {self.path!r} {'closed' if self._conn is None else 'open'}>"

    def book(self, name: str = "default") -> GrantBook:
        """The grant book ``name`` in this file (``Grants(store=..., book=name)``): every
        process that opens the file shares it (its tables sit beside the leases')."""
        from ..policy import SQLiteBook
        if not isinstance(name, str) or not name:
            raise InvalidArgument("name", name, "must be a non-empty string")
        if self._conn is None:
            raise StoreError(self.name, "closed")
        return SQLiteBook(self.path, name, timeout=self.lock_timeout)


#: What no file path a user means looks like: ``key=value`` pairs (a libpq connection
#: string) or a URL scheme without its ``//`` (``postgres:user:pw@host/db``).
_CONNECTION_STRING = re.compile(r"^\s*\w+\s*=|\s\w+\s*=|^[A-Za-z][A-Za-z0-9+.-]+:(?!//)[^/\\]")


def open_store(url: str | os.PathLike[str], *, lock_timeout: float = 5.0) -> Store:
    """The store a URL names.

    Args:
        url: ``"memory:"``, ``"sqlite:///abs/path.db"`` (the absolute path
            ``/abs/path.db``), a plain file path,
            ``"postgresql://user:password@host:port/db"`` (``postgres://``;
            ``?schema=NAME`` for the schema) or ``"redis://..."`` /
            ``"rediss://..."`` (:class:`RedisStore`).
        lock_timeout: seconds an operation waits for the store's lock.

    Raises:
        UnsupportedStore: a PostgreSQL or Redis URL whose driver (psycopg,
            redis-py) is not installed.
        InvalidArgument: anything else that is not a store URL.
        StoreUnavailable: the database cannot be opened.
    """
    if isinstance(url, os.PathLike):
        return SQLiteStore(url, lock_timeout=lock_timeout)
    if not isinstance(url, str) or not url:
        raise InvalidArgument("url", url, "must be a store URL or a file path")
    if url == "memory:":
        return MemoryStore(lock_timeout=lock_timeout)
    scheme, sep, rest = url.partition("://")
    if not sep:
        if _CONNECTION_STRING.search(url):
            # a libpq "host=... password=..." string or "postgres:user:pw@host" is not a
            # file to create (its name would hold the password): refuse, and show nothing
            raise InvalidArgument("url", "(hidden: it looks like a connection string)",
                                  "must be a store URL (postgresql://...) or a file path")
        return SQLiteStore(url, lock_timeout=lock_timeout)
    if scheme.lower() in POSTGRES:
        return PostgresStore(url, lock_timeout=lock_timeout_of(lock_timeout))
    if scheme.lower() in REDIS:
        return RedisStore(url, lock_timeout=lock_timeout_of(lock_timeout))
    if scheme.lower() != "sqlite" or not rest.startswith("/"):
        raise InvalidArgument("url", redact_url(url),
                              "must be memory:, sqlite:///ABSOLUTE/PATH or a file path")
    return SQLiteStore(rest, lock_timeout=lock_timeout)
