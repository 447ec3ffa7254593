"""The SQLite engine behind :class:`MemoryStore` and :class:`SQLiteStore`.

One connection per store, guarded by a lock (thread-safe in the process);
every operation is one ``BEGIN IMMEDIATE`` transaction, so across processes
exactly one writer decides at a time and a check-and-grant is atomic.  In a
file the journal is WAL (readers never block the writer).  The lock wait is
bounded (``lock_timeout``): past it an operation raises
:class:`StoreUnavailable` and grants nothing.

The clock is read inside the transaction: the wall clock for a file (SQLite is
one host, so the store's clock *is* the host's; every process on it agrees),
the monotonic clock in memory.  Tokens come from a counter row per workspace
updated in the granting transaction.  Holds are rows stamped with their
process (:mod:`mcp_client.store._proc`) so a dead process's holds are purged.
Waits poll ``PRAGMA data_version`` (it changes when another connection
commits) with a backoff from 5 to 100 ms, and wake at once on a change made in
the same process.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import uuid
from contextlib import contextmanager
from typing import Callable, Iterator, Sequence

from .. import paths
from . import _proc
from ._base import (Refusal, StoredHold, StoredLease, StoreError, StoreUnavailable,
                    TaskRecord, hold_records, meets, poll_for_change)

__all__ = ["SQLEngine"]

#: The schema this code writes; a database stamped with another is refused.
SCHEMA_VERSION = "1"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS leases (
    workspace TEXT NOT NULL, path TEXT NOT NULL, holder TEXT NOT NULL,
    since REAL NOT NULL, expires REAL NOT NULL, token INTEGER NOT NULL,
    PRIMARY KEY (workspace, path));
CREATE TABLE IF NOT EXISTS holds (
    id INTEGER PRIMARY KEY AUTOINCREMENT, workspace TEXT NOT NULL, holder TEXT NOT NULL,
    places TEXT NOT NULL, since REAL NOT NULL, owner TEXT NOT NULL,
    host TEXT NOT NULL, boot TEXT, pidns TEXT, pid INTEGER NOT NULL, started TEXT);
CREATE TABLE IF NOT EXISTS fencing (workspace TEXT PRIMARY KEY, token INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS tasks (
    server TEXT NOT NULL, task_id TEXT NOT NULL, tool TEXT NOT NULL, digest TEXT NOT NULL,
    status TEXT NOT NULL, created REAL NOT NULL, updated REAL NOT NULL,
    PRIMARY KEY (server, task_id));
INSERT OR IGNORE INTO meta (key, value) VALUES ('schema', '1');
"""

#: A task record's columns, in :class:`TaskRecord`'s order.
_TASK_COLUMNS = "task_id, server, tool, digest, status, created, updated"


def _identity(path: str) -> tuple[int, int] | None:
    """A file's (device, inode), or None when it is gone."""
    try:
        found = os.stat(path)
    except OSError:
        return None
    return found.st_dev, found.st_ino


class SQLEngine:
    """The lease operations on one SQLite connection (see the module docstring)."""

    def __init__(self, name: str, database: str, *, clock: Callable[[], float],
                 lock_timeout: float, wal: bool) -> None:
        self.name = name
        self.lock_timeout = lock_timeout
        self._clock = clock
        self._lock = threading.Lock()
        self._changed = threading.Condition(threading.Lock())
        self._generation = 0
        self._seen = threading.local()
        self._pid = os.getpid()
        self._owner = f"{_proc.HOST}:{self._pid}:{uuid.uuid4().hex}"
        self._started = _proc.started(os.getpid())
        #: the file's (device, inode) when opened: a file replaced or removed under an
        #: open store would split the fleet in two (None: an in-memory database)
        self._file: tuple[int, int] | None = None
        try:
            self._conn: sqlite3.Connection | None = sqlite3.connect(
                database, timeout=lock_timeout, isolation_level=None, check_same_thread=False)
            if wal:
                self._conn.execute("PRAGMA journal_mode=WAL")
                self._database = database
                self._file = _identity(database)
            with self._write():
                self._create()
        except sqlite3.Error as exc:
            self._drop()
            raise StoreUnavailable(name, f"cannot open: {exc}") from exc
        except BaseException:
            self._drop()
            raise

    def _create(self) -> None:
        conn = self._connection()
        for statement in _SCHEMA.split(";"):
            if statement.strip():
                conn.execute(statement)
        (version,) = conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
        if version != SCHEMA_VERSION:
            raise StoreError(self.name, f"schema version {version}, this code knows "
                                        f"{SCHEMA_VERSION}")

    def _drop(self) -> None:
        if getattr(self, "_conn", None) is not None:
            assert self._conn is not None
            self._conn.close()
        self._conn = None

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            raise StoreError(self.name, "closed")
        return self._conn

    @contextmanager
    def _write(self) -> Iterator[float]:
        """One ``BEGIN IMMEDIATE`` transaction; yields the store's clock read inside it."""
        if os.getpid() != self._pid:
            # SQLite forbids carrying a connection across fork(); so would our lock.
            raise StoreError(self.name, "opened in another process (a parent before fork); "
                                        "open the store in each process")
        if not self._lock.acquire(timeout=self.lock_timeout):
            raise StoreUnavailable(self.name, f"busy past {self.lock_timeout:g}s")
        try:
            conn = self._connection()
            try:
                conn.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                raise StoreUnavailable(self.name, f"{exc} (waited {self.lock_timeout:g}s)") \
                    from exc
            if self._file is not None and _identity(self._database) != self._file:
                # Checked under the write lock: the file this connection writes is the
                # one every other process opens, or nothing is decided.
                conn.execute("ROLLBACK")
                raise StoreUnavailable(self.name, "the database file was removed or replaced "
                                                  "while the store was open; reopen the store")
            try:
                yield self._clock()
                self._seen.version = conn.execute("PRAGMA data_version").fetchone()[0]
                conn.execute("COMMIT")
            except BaseException as exc:
                try:
                    conn.execute("ROLLBACK")
                except sqlite3.Error:
                    pass
                if isinstance(exc, sqlite3.Error):
                    raise StoreUnavailable(self.name, str(exc)) from exc
                if isinstance(exc, (ValueError, TypeError, OverflowError, KeyError)) and \
                        not isinstance(exc, StoreError):
                    # a row this code did not write (decoding it failed): decide nothing
                    raise StoreError(self.name, f"a malformed row: {type(exc).__name__}") \
                        from exc
                raise
            with self._changed:
                self._seen.generation = self._generation
        finally:
            self._lock.release()

    def _touched(self) -> None:
        """Tell this process's waiters (the lock is held; called before commit)."""
        with self._changed:
            self._generation += 1
            self._changed.notify_all()

    def _purge(self, workspace: str, now: float) -> None:
        conn = self._connection()
        conn.execute("DELETE FROM leases WHERE workspace = ? AND expires <= ?", (workspace, now))
        dead = [key for key, pid, started, boot, pidns in conn.execute(
            "SELECT id, pid, started, boot, pidns FROM holds WHERE workspace = ? AND host = ?",
            (workspace, _proc.HOST)) if _proc.gone(pid, started, boot, pidns)]
        if dead:
            conn.executemany("DELETE FROM holds WHERE id = ?", [(key,) for key in dead])
            self._touched()

    def _leases(self, workspace: str) -> list[StoredLease]:
        return [StoredLease(path, holder, since, expires, False, token)
                for path, holder, since, expires, token in self._connection().execute(
                    "SELECT path, holder, since, expires, token FROM leases "
                    "WHERE workspace = ? ORDER BY rowid", (workspace,))]

    def _holds(self, workspace: str) -> list[tuple[str, list[str | None], float]]:
        return [(holder, json.loads(places), since)
                for holder, places, since in self._connection().execute(
                    "SELECT holder, places, since FROM holds WHERE workspace = ? ORDER BY id",
                    (workspace,))]

    def _in_the_way(self, workspace: str, holder: str, path: str | None) -> StoredLease | None:
        for lease in self._leases(workspace):
            if lease.holder != holder and meets(lease.path, path):
                return lease
        for other, places, since in self._holds(workspace):
            if other != holder:
                for place, record in zip(places, hold_records(other, places, since)):
                    if meets(place, path):
                        return record
        return None

    def _covers(self, workspace: str, holder: str, path: str) -> bool:
        return any(lease.holder == holder and paths.contains(lease.path, path) is paths.Tri.YES
                   for lease in self._leases(workspace))

    # -- the Store operations ------------------------------------------------------------

    def now(self) -> float:
        return self._clock()

    def acquire(self, workspace: str, holder: str, wanted: Sequence[str],
                ttl: float) -> StoredLease | None:
        with self._write() as now:
            self._purge(workspace, now)
            for path in wanted:
                blocker = self._in_the_way(workspace, holder, path)
                if blocker is not None:
                    return blocker
            conn = self._connection()
            mine = {lease.path for lease in self._leases(workspace) if lease.holder == holder}
            fresh = [path for path in dict.fromkeys(wanted) if path not in mine]
            conn.executemany("UPDATE leases SET expires = ? WHERE workspace = ? AND path = ?",
                             [(now + ttl, workspace, path) for path in mine & set(wanted)])
            if fresh:
                token = self._next_token(workspace)
                conn.executemany(
                    "INSERT INTO leases (workspace, path, holder, since, expires, token) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    [(workspace, path, holder, now, now + ttl, token) for path in fresh])
            return None

    def _next_token(self, workspace: str) -> int:
        conn = self._connection()
        conn.execute("INSERT INTO fencing (workspace, token) VALUES (?, 1) "
                     "ON CONFLICT (workspace) DO UPDATE SET token = token + 1", (workspace,))
        (token,) = conn.execute("SELECT token FROM fencing WHERE workspace = ?",
                                (workspace,)).fetchone()
        return int(token)

    def release(self, workspace: str, holder: str, released: Sequence[str] | None) -> list[str]:
        with self._write() as now:
            self._purge(workspace, now)
            wanted = None if released is None else set(released)
            freed = [lease.path for lease in self._leases(workspace)
                     if lease.holder == holder and (wanted is None or lease.path in wanted)]
            self._connection().executemany(
                "DELETE FROM leases WHERE workspace = ? AND path = ?",
                [(workspace, path) for path in freed])
            self._touched()
            return freed

    def release_all(self, workspace: str) -> None:
        with self._write():
            self._connection().execute("DELETE FROM leases WHERE workspace = ?", (workspace,))
            self._touched()

    def leases(self, workspace: str) -> list[StoredLease]:
        with self._write() as now:
            self._purge(workspace, now)
            return self._leases(workspace)

    def holds(self, workspace: str) -> list[StoredLease]:
        with self._write() as now:
            self._purge(workspace, now)
            return [record for holder, places, since in self._holds(workspace)
                    for record in hold_records(holder, places, since)]

    def blocking(self, workspace: str, holder: str, path: str | None) -> StoredLease | None:
        with self._write() as now:
            self._purge(workspace, now)
            return self._in_the_way(workspace, holder, path)

    def covers(self, workspace: str, holder: str, path: str) -> bool:
        with self._write() as now:
            self._purge(workspace, now)
            return self._covers(workspace, holder, path)

    def hold(self, workspace: str, holder: str, places: Sequence[str | None], *,
             strict: bool) -> StoredHold | Refusal:
        with self._write() as now:
            self._purge(workspace, now)
            for index, place in enumerate(places):
                blocker = self._in_the_way(workspace, holder, place)
                if blocker is not None:
                    return Refusal(index, blocker)
                if strict and (place is None or not self._covers(workspace, holder, place)):
                    return Refusal(index, None)
            cursor = self._connection().execute(
                "INSERT INTO holds (workspace, holder, places, since, owner, host, boot, pidns, "
                "pid, started) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (workspace, holder, json.dumps(list(places)), now, self._owner, _proc.HOST,
                 _proc.BOOT, _proc.PIDNS, os.getpid(), self._started))
            assert cursor.lastrowid is not None
            return StoredHold(cursor.lastrowid, now)

    def end_hold(self, workspace: str, key: int) -> None:
        with self._write():
            self._connection().execute("DELETE FROM holds WHERE workspace = ? AND id = ?",
                                       (workspace, key))
            self._touched()

    # -- task records -----------------------------------------------------------------

    def put_task(self, record: TaskRecord) -> None:
        """Insert ``record``, or update the status of ``(server, task_id)`` (keeping
        ``created``); both times are this store's clock, read in the transaction."""
        with self._write() as now:
            self._connection().execute(
                "INSERT INTO tasks (server, task_id, tool, digest, status, created, updated) "
                "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (server, task_id) DO UPDATE SET "
                "status = excluded.status, updated = excluded.updated",
                (record.server, record.task_id, record.tool, record.digest, record.status,
                 now, now))

    def get_task(self, task_id: str, server: str | None = None) -> TaskRecord | None:
        with self._write():
            row = self._connection().execute(
                f"SELECT {_TASK_COLUMNS} FROM tasks WHERE task_id = ? AND "
                "(? IS NULL OR server = ?) ORDER BY created DESC, rowid DESC LIMIT 1",
                (task_id, server, server)).fetchone()
        return None if row is None else TaskRecord(*row)

    def tasks(self) -> list[TaskRecord]:
        with self._write():
            rows = self._connection().execute(
                f"SELECT {_TASK_COLUMNS} FROM tasks ORDER BY created, rowid").fetchall()
        return [TaskRecord(*row) for row in rows]

    def wait(self, workspace: str, timeout: float) -> bool:
        """Poll ``PRAGMA data_version`` with backoff; a change in this process wakes at once.

        The baseline is what this thread saw in its last transaction, so a
        release committed between a refused acquire and this wait is not missed.
        """
        return poll_for_change(self._changed, lambda: self._generation,
                               getattr(self._seen, "generation", None),
                               getattr(self._seen, "version", None), self._data_version, timeout)

    def _data_version(self) -> int:
        with self._lock:
            try:
                return int(self._connection().execute("PRAGMA data_version").fetchone()[0])
            except sqlite3.Error as exc:
                raise StoreUnavailable(self.name, str(exc)) from exc

    def close(self) -> None:
        """Let go of the connection; idempotent.

        In-flight holds stay: a call still running keeps its places held (another
        process must not be granted them mid-write), and the rows carry this
        process's pid, so the first operation on this host after it ends purges them.
        """
        with self._lock:
            if self._conn is None:
                return
            self._drop()
