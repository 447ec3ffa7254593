"""The PostgreSQL engine: :class:`PostgresStore`, for many hosts (psycopg 3, extra ``[postgres]``).

``open_store("postgresql://user:password@host:5432/db")`` (or ``postgres://``);
a ``schema=NAME`` query parameter picks the schema the tables live in
(default ``mcp_client``), so one database can hold separate fleets.  The
schema and its tables are created on first use with a version row.

How it keeps the store's promises:

* **One connection per store, guarded by a lock**: thread-safe in the
  process; each operation is one transaction on it.  When the connection
  breaks (the server stopped, the network went) the operation raises
  :class:`StoreUnavailable` naming the store (password hidden) and grants
  nothing; the next operation connects again, so a store outlives an
  outage without being reopened.  TCP keepalives and a user timeout turn a
  server gone silent into an outage within seconds (the URL may set its own
  libpq parameters instead).
* **Atomic check-and-grant**: every lease operation begins with
  ``pg_advisory_xact_lock`` on its workspace, so the transactions of one
  workspace run one at a time across every host, and each reads what the
  last one committed (READ COMMITTED takes a snapshot per statement).  A
  lock not granted within ``lock_timeout`` (PostgreSQL's ``lock_timeout``)
  is an outage: :class:`StoreUnavailable`.
* **The server's clock**: ``clock_timestamp()`` read inside the transaction,
  after the lock, is the store's clock; no client's clock extends or
  shortens a lease.
* **Fencing**: a counter row per workspace, incremented in the granting
  transaction.
* **Holds** are rows stamped with the host, boot, pid namespace, pid and
  start time of their process (:mod:`mcp_client.store._proc`); holds of a
  dead process on the operating host are purged, other hosts' are kept
  (failing closed).
* **Waiting polls** a per-workspace change counter (bumped whenever a lease
  or hold is freed), from 5 ms doubling to 100 ms; a change made in the same
  process wakes a waiter at once.  (Not LISTEN/NOTIFY: a poll needs no
  connection held open per waiter and cannot miss a change made between a
  refusal and the wait.)
"""

from __future__ import annotations

import json
import os
import re
import threading
import uuid
from contextlib import contextmanager
from typing import Any, Iterator, Sequence
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from .. import paths
from .._redact import redact_url
from ..exceptions import InvalidArgument
from . import _proc
from ._base import (Refusal, StoredHold, StoredLease, StoreError, StoreUnavailable,
                    TaskRecord, hold_records, lock_timeout_of, meets, poll_for_change)

TYPE_CHECKING = False
if TYPE_CHECKING:
    import psycopg

    from ..policy import GrantBook

__all__ = ["PostgresStore", "SCHEMA_VERSION"]

#: The schema version this code writes; a database stamped with another is refused.
SCHEMA_VERSION = "1"
#: The schema (PostgreSQL namespace) used when the URL names none.
DEFAULT_SCHEMA = "mcp_client"

_NAME = re.compile(r"[a-z_][a-z0-9_]{0,62}")

_TABLES = """
CREATE TABLE IF NOT EXISTS {s}.meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS {s}.leases (
    seq BIGSERIAL, workspace TEXT NOT NULL, path TEXT NOT NULL, holder TEXT NOT NULL,
    since DOUBLE PRECISION NOT NULL, expires DOUBLE PRECISION NOT NULL,
    token BIGINT NOT NULL, PRIMARY KEY (workspace, path));
CREATE TABLE IF NOT EXISTS {s}.holds (
    id BIGSERIAL PRIMARY KEY, workspace TEXT NOT NULL, holder TEXT NOT NULL,
    places TEXT NOT NULL, since DOUBLE PRECISION NOT NULL, owner TEXT NOT NULL,
    host TEXT NOT NULL, boot TEXT, pidns TEXT, pid BIGINT NOT NULL, started TEXT);
CREATE TABLE IF NOT EXISTS {s}.fencing (
    workspace TEXT PRIMARY KEY, token BIGINT NOT NULL, changes BIGINT NOT NULL);
CREATE TABLE IF NOT EXISTS {s}.tasks (
    seq BIGSERIAL, server TEXT NOT NULL, task_id TEXT NOT NULL, tool TEXT NOT NULL,
    digest TEXT NOT NULL, status TEXT NOT NULL, created DOUBLE PRECISION NOT NULL,
    updated DOUBLE PRECISION NOT NULL, PRIMARY KEY (server, task_id));
CREATE TABLE IF NOT EXISTS {s}.grants (
    id BIGSERIAL PRIMARY KEY, book TEXT NOT NULL, key TEXT NOT NULL, rule TEXT NOT NULL,
    UNIQUE (book, key));
CREATE TABLE IF NOT EXISTS {s}.grant_history (
    id BIGSERIAL PRIMARY KEY, book TEXT NOT NULL, event TEXT NOT NULL, rule TEXT NOT NULL,
    decision TEXT, at DOUBLE PRECISION NOT NULL, agent TEXT, host TEXT NOT NULL,
    pid BIGINT NOT NULL, question TEXT);
CREATE TABLE IF NOT EXISTS {s}.grant_question (
    book TEXT PRIMARY KEY, host TEXT NOT NULL, pid BIGINT NOT NULL, thread BIGINT NOT NULL,
    nonce TEXT NOT NULL, expires DOUBLE PRECISION NOT NULL);
INSERT INTO {s}.meta (key, value) VALUES ('schema', '1') ON CONFLICT (key) DO NOTHING
"""


def split_url(url: str) -> tuple[str, str]:
    """The connection URL (without ``schema=``) and the schema a store URL names."""
    parts = urlsplit(url)
    query = parse_qsl(parts.query, keep_blank_values=True)
    schemas = [value for key, value in query if key == "schema"]
    schema = schemas[-1] if schemas else DEFAULT_SCHEMA
    if not _NAME.fullmatch(schema):
        raise InvalidArgument("url", redact_url(url), "schema= must be a lower-case SQL name "
                                                      "(letters, digits, _; at most 63)")
    rest = urlencode([(key, value) for key, value in query if key != "schema"])
    return urlunsplit(parts._replace(query=rest)), schema


def _options(lock_timeout: float) -> dict[str, Any]:
    """Connection parameters a URL may override: bounded connects, and TCP keepalives and a
    user timeout so that a server gone silent (a dead host, a partition) is an outage within
    seconds rather than a call that hangs."""
    return {"connect_timeout": max(2, round(lock_timeout)), "application_name":
            "mcp-client-store", "keepalives": 1, "keepalives_idle": 5,
            "keepalives_interval": 2, "keepalives_count": 3,
            "tcp_user_timeout": max(1000, int(lock_timeout * 2000))}


class _Tx:
    """One transaction: ``execute`` and the store's clock read inside it (``now``)."""

    def __init__(self, cursor: psycopg.Cursor[Any], schema: str) -> None:
        self.cursor = cursor
        self.schema = schema
        self.now = 0.0

    def execute(self, statement: str, params: Sequence[Any] = ()) -> psycopg.Cursor[Any]:
        """Run ``statement`` with ``{s}`` naming the store's schema."""
        return self.cursor.execute(statement.replace("{s}", self.schema), params)

    def one(self, statement: str, params: Sequence[Any] = ()) -> Any:
        row = self.execute(statement, params).fetchone()
        return None if row is None else row[0]


class PostgresStore:
    """A store in a PostgreSQL database: many hosts, many processes (see the module docstring).

    Args:
        url: ``postgresql://user:password@host:port/database`` (or ``postgres://``),
            with libpq's query parameters, and ``schema=NAME`` for the schema.
        lock_timeout: seconds an operation waits for the workspace's lock (and
            for a connection) before it raises :class:`StoreUnavailable`.

    Raises:
        UnsupportedStore: psycopg is not installed (``pip install
            'mcp-client-sync[postgres]'``).
        StoreUnavailable: the server cannot be reached, or refuses the login.
    """

    def __init__(self, url: str, *, lock_timeout: float = 5.0) -> None:
        schemes = ("postgresql", "postgres")
        if not isinstance(url, str) or urlsplit(url).scheme.lower() not in schemes:
            raise InvalidArgument("url", url if not isinstance(url, str) else redact_url(url),
                                  "must be a postgresql:// or postgres:// URL")
        lock_timeout = lock_timeout_of(lock_timeout)
        try:
            import psycopg
        except ImportError as exc:
            from ..exceptions import UnsupportedStore
            raise UnsupportedStore(redact_url(url), "needs psycopg: pip install "
                                                    "'mcp-client-sync[postgres]'") from exc
        self._psycopg = psycopg
        self.name = redact_url(url)
        self.lock_timeout = lock_timeout
        self._conninfo, self.schema = split_url(url)
        self._password = urlsplit(url).password or ""
        given = psycopg.conninfo.conninfo_to_dict(self._conninfo)
        self._options = {key: value for key, value in _options(lock_timeout).items()
                         if key not in given}
        self._lock = threading.Lock()
        self._changed = threading.Condition(threading.Lock())
        self._generation = 0
        self._seen = threading.local()
        self._pid = os.getpid()
        self._owner = f"{_proc.HOST}:{self._pid}:{uuid.uuid4().hex}"
        self._started = _proc.started(self._pid)
        self._conn: psycopg.Connection[Any] | None = None
        self._closed = False
        self._ready = False
        with self._transaction(None):
            pass

    def __repr__(self) -> str:
        return f"<PostgresStore {self.name} schema={self.schema} " \
               f"{'closed' if self._closed else 'open'}>"

    def __enter__(self) -> PostgresStore:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- the connection --------------------------------------------------------------------

    def _failed(self, exc: BaseException) -> StoreUnavailable:
        reason = " ".join(str(exc).split()) or type(exc).__name__
        if self._password:
            reason = reason.replace(self._password, "***")
        return StoreUnavailable(self.name, reason)

    def _connect(self) -> psycopg.Connection[Any]:
        if self._conn is not None and not self._conn.closed:
            return self._conn
        self._conn = None
        conn = self._psycopg.connect(self._conninfo, autocommit=True, **self._options)
        try:
            conn.execute(f"SET lock_timeout = {int(self.lock_timeout * 1000)}")
            if not self._ready:
                self._create(conn)
                self._ready = True
        except BaseException:
            conn.close()
            raise
        self._conn = conn
        return conn

    def _create(self, conn: psycopg.Connection[Any]) -> None:
        """Make the schema and its tables (once, under a lock: concurrent CREATE ... IF NOT
        EXISTS can collide) and check the version row."""
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(hashtext('mcp_client schema'))")
            conn.execute(f'CREATE SCHEMA IF NOT EXISTS "{self.schema}"')
            for statement in _TABLES.split(";"):
                conn.execute(statement.replace("{s}", f'"{self.schema}"'))
            row = conn.execute(f"SELECT value FROM \"{self.schema}\".meta "
                               "WHERE key = 'schema'").fetchone()
        version = None if row is None else row[0]
        if version != SCHEMA_VERSION:
            raise StoreError(self.name, f"schema version {version}, this code knows "
                                        f"{SCHEMA_VERSION}")

    @contextmanager
    def _transaction(self, lock: tuple[str, str] | None) -> Iterator[_Tx]:
        """One transaction on the store's connection, under the advisory lock ``lock``
        (a kind and a name) when given; every database error is an outage."""
        if self._closed:
            raise StoreError(self.name, "closed")
        if os.getpid() != self._pid:
            raise StoreError(self.name, "opened in another process (a parent before fork); "
                                        "open the store in each process")
        if not self._lock.acquire(timeout=self.lock_timeout):
            raise StoreUnavailable(self.name, f"busy past {self.lock_timeout:g}s")
        try:
            if self._closed:
                raise StoreError(self.name, "closed")
            try:
                conn = self._connect()
                with conn.transaction(), conn.cursor() as cursor:
                    tx = _Tx(cursor, f'"{self.schema}"')
                    if lock is not None:
                        tx.execute("SELECT pg_advisory_xact_lock(hashtext(%s), hashtext(%s))",
                                   (f"{self.schema}:{lock[0]}", lock[1]))
                    tx.now = float(tx.one("SELECT extract(epoch FROM clock_timestamp())"))
                    yield tx
            except self._psycopg.Error as exc:
                if self._conn is not None and self._conn.broken:
                    self._conn = None
                raise self._failed(exc) from exc
            except OSError as exc:
                self._conn = None
                raise self._failed(exc) from exc
        finally:
            self._lock.release()

    @contextmanager
    def _workspace(self, workspace: str) -> Iterator[_Tx]:
        """A lease operation: the workspace's lock, its purge, and the change counter seen."""
        with self._transaction(("workspace", workspace)) as tx:
            self._purge(tx, workspace)
            yield tx
            changes = tx.one("SELECT changes FROM {s}.fencing WHERE workspace = %s",
                             (workspace,))
        self._seen.__dict__[workspace] = (changes or 0, self._generation)

    def _touched(self, tx: _Tx, workspace: str) -> None:
        """Something was freed: bump the counter other processes poll, wake this one's."""
        tx.execute("INSERT INTO {s}.fencing (workspace, token, changes) VALUES (%s, 0, 1) "
                   "ON CONFLICT (workspace) DO UPDATE SET changes = fencing.changes + 1",
                   (workspace,))
        with self._changed:
            self._generation += 1
            self._changed.notify_all()

    def _purge(self, tx: _Tx, workspace: str) -> None:
        expired = tx.execute("DELETE FROM {s}.leases WHERE workspace = %s AND expires <= %s",
                             (workspace, tx.now)).rowcount
        dead = [key for key, pid, started, boot, pidns in tx.execute(
            "SELECT id, pid, started, boot, pidns FROM {s}.holds WHERE workspace = %s AND "
            "host = %s", (workspace, _proc.HOST)).fetchall()
            if _proc.gone(pid, started, boot, pidns)]
        if dead:
            tx.execute("DELETE FROM {s}.holds WHERE id = ANY(%s)", (dead,))
        if expired or dead:
            self._touched(tx, workspace)

    def _leases(self, tx: _Tx, workspace: str) -> list[StoredLease]:
        return [StoredLease(path, holder, since, expires, False, token)
                for path, holder, since, expires, token in tx.execute(
                    "SELECT path, holder, since, expires, token FROM {s}.leases "
                    "WHERE workspace = %s ORDER BY seq", (workspace,)).fetchall()]

    def _holds(self, tx: _Tx, workspace: str) -> list[tuple[str, list[str | None], float]]:
        return [(holder, json.loads(places), since)
                for holder, places, since in tx.execute(
                    "SELECT holder, places, since FROM {s}.holds WHERE workspace = %s "
                    "ORDER BY id", (workspace,)).fetchall()]

    def _in_the_way(self, tx: _Tx, workspace: str, holder: str,
                    path: str | None) -> StoredLease | None:
        for lease in self._leases(tx, workspace):
            if lease.holder != holder and meets(lease.path, path):
                return lease
        for other, places, since in self._holds(tx, workspace):
            if other != holder:
                for place, record in zip(places, hold_records(other, places, since)):
                    if meets(place, path):
                        return record
        return None

    def _covers(self, tx: _Tx, workspace: str, holder: str, path: str) -> bool:
        return any(lease.holder == holder and paths.contains(lease.path, path) is paths.Tri.YES
                   for lease in self._leases(tx, workspace))

    # -- the Store operations --------------------------------------------------------------

    def now(self) -> float:
        with self._transaction(None) as tx:
            return tx.now

    def acquire(self, workspace: str, holder: str, wanted: Sequence[str],
                ttl: float) -> StoredLease | None:
        with self._workspace(workspace) as tx:
            for path in wanted:
                blocker = self._in_the_way(tx, workspace, holder, path)
                if blocker is not None:
                    return blocker
            mine = {lease.path for lease in self._leases(tx, workspace)
                    if lease.holder == holder}
            fresh = [path for path in dict.fromkeys(wanted) if path not in mine]
            renewed = sorted(mine & set(wanted))
            if renewed:
                tx.execute("UPDATE {s}.leases SET expires = %s WHERE workspace = %s AND "
                           "path = ANY(%s)", (tx.now + ttl, workspace, renewed))
            if fresh:
                token = tx.one("INSERT INTO {s}.fencing (workspace, token, changes) "
                               "VALUES (%s, 1, 0) ON CONFLICT (workspace) DO UPDATE SET "
                               "token = fencing.token + 1 RETURNING token", (workspace,))
                tx.cursor.executemany(
                    f"INSERT INTO {tx.schema}.leases (workspace, path, holder, since, expires, "
                    "token) VALUES (%s, %s, %s, %s, %s, %s)",
                    [(workspace, path, holder, tx.now, tx.now + ttl, token) for path in fresh])
            return None

    def release(self, workspace: str, holder: str, released: Sequence[str] | None) -> list[str]:
        with self._workspace(workspace) as tx:
            wanted = None if released is None else set(released)
            freed = [lease.path for lease in self._leases(tx, workspace)
                     if lease.holder == holder and (wanted is None or lease.path in wanted)]
            tx.execute("DELETE FROM {s}.leases WHERE workspace = %s AND path = ANY(%s)",
                       (workspace, freed))
            self._touched(tx, workspace)
            return freed

    def release_all(self, workspace: str) -> None:
        with self._workspace(workspace) as tx:
            tx.execute("DELETE FROM {s}.leases WHERE workspace = %s", (workspace,))
            self._touched(tx, workspace)

    def leases(self, workspace: str) -> list[StoredLease]:
        with self._workspace(workspace) as tx:
            return self._leases(tx, workspace)

    def holds(self, workspace: str) -> list[StoredLease]:
        with self._workspace(workspace) as tx:
            return [record for holder, places, since in self._holds(tx, workspace)
                    for record in hold_records(holder, places, since)]

    def blocking(self, workspace: str, holder: str, path: str | None) -> StoredLease | None:
        with self._workspace(workspace) as tx:
            return self._in_the_way(tx, workspace, holder, path)

    def covers(self, workspace: str, holder: str, path: str) -> bool:
        with self._workspace(workspace) as tx:
            return self._covers(tx, workspace, holder, path)

    def hold(self, workspace: str, holder: str, places: Sequence[str | None], *,
             strict: bool) -> StoredHold | Refusal:
        with self._workspace(workspace) as tx:
            for index, place in enumerate(places):
                blocker = self._in_the_way(tx, workspace, holder, place)
                if blocker is not None:
                    return Refusal(index, blocker)
                if strict and (place is None or not self._covers(tx, workspace, holder, place)):
                    return Refusal(index, None)
            key = tx.one("INSERT INTO {s}.holds (workspace, holder, places, since, owner, host, "
                         "boot, pidns, pid, started) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, "
                         "%s, %s) RETURNING id",
                         (workspace, holder, json.dumps(list(places)), tx.now, self._owner,
                          _proc.HOST, _proc.BOOT, _proc.PIDNS, self._pid, self._started))
            return StoredHold(int(key), tx.now)

    def end_hold(self, workspace: str, key: int) -> None:
        with self._workspace(workspace) as tx:
            tx.execute("DELETE FROM {s}.holds WHERE workspace = %s AND id = %s", (workspace, key))
            self._touched(tx, workspace)

    def wait(self, workspace: str, timeout: float) -> bool:
        """Poll the workspace's change counter with backoff; a change in this process wakes
        at once.  The baseline is what this thread saw in its last operation on the
        workspace, so a release committed between a refusal and this wait is not missed."""
        changes, generation = self._seen.__dict__.get(workspace, (None, None))

        def counter() -> Any:
            with self._transaction(None) as tx:
                return tx.one("SELECT changes FROM {s}.fencing WHERE workspace = %s",
                              (workspace,)) or 0

        return poll_for_change(self._changed, lambda: self._generation, generation, changes,
                               counter, timeout)

    # -- task records ----------------------------------------------------------------------

    def put_task(self, record: TaskRecord) -> None:
        """Record a task, or update the status and time of the one kept for its
        (server, task id), keeping when it was created."""
        with self._transaction(None) as tx:
            tx.execute("INSERT INTO {s}.tasks (server, task_id, tool, digest, status, created, "
                       "updated) VALUES (%s, %s, %s, %s, %s, %s, %s) ON CONFLICT (server, "
                       "task_id) DO UPDATE SET status = EXCLUDED.status, "
                       "updated = EXCLUDED.updated",
                       (record.server, record.task_id, record.tool, record.digest,
                        record.status, record.created, record.updated))

    def get_task(self, task_id: str, server: str | None = None) -> TaskRecord | None:
        """The newest record of ``task_id`` (on ``server`` when given)."""
        with self._transaction(None) as tx:
            row = tx.execute(
                "SELECT task_id, server, tool, digest, status, created, updated FROM {s}.tasks "
                "WHERE task_id = %s AND (%s::text IS NULL OR server = %s) "
                "ORDER BY created DESC, seq DESC LIMIT 1", (task_id, server, server)).fetchone()
        return None if row is None else TaskRecord(*row)

    def tasks(self) -> list[TaskRecord]:
        """Every recorded task, oldest first."""
        with self._transaction(None) as tx:
            rows = tx.execute("SELECT task_id, server, tool, digest, status, created, updated "
                              "FROM {s}.tasks ORDER BY created, seq").fetchall()
        return [TaskRecord(*row) for row in rows]

    # -- books and closing -----------------------------------------------------------------

    def book(self, name: str = "default") -> GrantBook:
        """The grant book ``name`` in this database (``Grants(store=..., book=name)``): every
        process and host that opens the store shares it; it uses the store's connection."""
        from ..policy import PostgresBook
        if not isinstance(name, str) or not name:
            raise InvalidArgument("name", name, "must be a non-empty string")
        if self._closed:
            raise StoreError(self.name, "closed")
        return PostgresBook(name, f"{self.name} book {name!r}", self._transaction)

    def close(self) -> None:
        """Let go of the connection; idempotent.

        In-flight holds stay: a call still running keeps its places held, and the
        rows carry this process's pid, so the first operation on this host after it
        ends purges them.
        """
        with self._lock:
            if self._closed:
                return
            self._closed = True
            conn, self._conn = self._conn, None
            if conn is None or os.getpid() != self._pid:
                return
            conn.close()
