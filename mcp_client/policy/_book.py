"""Grant books: where one human's remembered answers, their audit trail and the
question lease live.

A :class:`GrantBook` is plain data in and out: it stores grants (rules already
validated by :class:`~mcp_client.policy.Grants`) under a canonical key, never
compiles or judges one, and knows nothing of policies.  Two engines:

* :class:`MemoryBook` -- one process: a lock around a list (the semantics
  ``Grants`` always had).
* :class:`SQLiteBook` -- one host, many processes: stdlib :mod:`sqlite3` in
  WAL mode; every write is one ``BEGIN IMMEDIATE`` transaction (SQLite's one
  writer), every read one statement (a committed snapshot), and nothing is
  cached, so a grant committed by one process is in force for any process's
  next decision.  The schema is created on first use and carries a version
  row.  No network filesystem: SQLite's locks are not reliable there.

The question lease is how "one human, one question" crosses processes: a row
naming its holder (host, pid, thread and a nonce), with an expiry read from
the host's wall clock inside the transaction.  It is taken with a short TTL
and renewed while the question is open; a holder whose process is gone (on
this host: its pid no longer runs, or is a zombie) is treated as gone at once,
so a SIGKILL frees it on the next attempt rather than after the TTL.  A
pid reused by an unrelated process is outlived by the TTL.

Every failure of the file (missing directory, locked past ``timeout``, not
a database, a newer schema) is raised as :class:`GrantBookError`, naming the
file; callers fail closed on it.
"""

from __future__ import annotations

import copy
import json
import os
import socket
import sqlite3
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Mapping, Protocol, Sequence, runtime_checkable

from ..exceptions import MCPClientError, StoreUnavailable
from .._redact import redact_payload

__all__ = ["GrantBook", "GrantBookError", "Holder", "MemoryBook", "SQLiteBook", "canonical"]

#: The version row :class:`SQLiteBook` writes; a file with a newer one is refused.
SCHEMA_VERSION = 1


class GrantBookError(StoreUnavailable):
    """A grant book could not be read or written (the decision that needed it fails closed).

    A :class:`~mcp_client.exceptions.StoreUnavailable`, so one ``except`` catches
    a store's outage whether a lease or a grant met it.

    Attributes:
        where: what the book is (``sqlite:/path/to/file.db book 'default'``);
            never a password (also ``store``).
        reason: what went wrong.
    """

    def __init__(self, where: str, message: str) -> None:
        MCPClientError.__init__(self, f"the grant book {where} is unavailable: {message}")
        self.where = self.store = where
        self.reason = message


def canonical(rule: Mapping[str, Any]) -> str:
    """A grant's identity: its JSON with sorted keys and no spaces (the unique key)."""
    return json.dumps(rule, sort_keys=True, separators=(",", ":"))


@dataclass(frozen=True)
class Holder:
    """Who holds a question lease: a thread of a process on a host, and a nonce per holding."""

    host: str
    pid: int
    thread: int
    nonce: str = field(default_factory=lambda: uuid.uuid4().hex)

    @classmethod
    def mine(cls) -> Holder:
        """The calling thread, with a fresh nonce."""
        thread = threading.current_thread().ident   # (registers a thread Python did not start)
        return cls(socket.gethostname(), os.getpid(), thread or threading.get_ident())

    def gone(self) -> bool:
        """Whether this holder is certainly dead: on this host, its process (or, in this
        process, its thread) no longer runs.  Another host's holder is never known gone."""
        if self.host != socket.gethostname():
            return False
        if self.pid == os.getpid():
            return self.thread not in {thread.ident for thread in threading.enumerate()}
        return not _pid_runs(self.pid)


def _pid_runs(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True            # it exists (another user's), or we cannot tell: alive
    try:                       # a SIGKILLed child its parent has not reaped yet
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as stat:
            return stat.read().rpartition(")")[2].split()[:1] != ["Z"]
    except OSError:
        return True


def _record(event: str, rule: Mapping[str, Any], at: float, *, agent: str | None,
            question: Any) -> dict[str, Any]:
    return {"event": event, "rule": copy.deepcopy(dict(rule)), "decision": rule.get("decision"),
            "at": at, "agent": agent, "host": socket.gethostname(), "pid": os.getpid(),
            "question": _plain(question)}


def _plain(value: Any) -> Any:
    """A JSON round trip, so what is recorded is what a file would give back -- with the
    secrets the wire trace hides (tokens, secret-named members) hidden here too: the
    audit record outlives the question."""
    if value is None:
        return None
    try:
        return json.loads(redact_payload(json.dumps(value, default=repr)))
    except ValueError:
        return {"hidden": "the question could not be recorded safely"}


def create_private(path: str) -> None:
    """Make the database file readable by its owner only, when this call creates it (an
    existing file keeps its mode; SQLite gives its journals the file's mode)."""
    try:
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
    except OSError:
        pass   # it exists, or cannot be made: opening it says what is wrong


@runtime_checkable
class GrantBook(Protocol):
    """Where one human's grants live (the role :class:`MemoryBook` and :class:`SQLiteBook` play).

    Thread-safe; every method is one atomic step.  ``rules`` are plain data,
    already validated and in key order; a grant's identity is its JSON with
    sorted keys.
    """

    where: str

    def add(self, rules: Sequence[Mapping[str, Any]], *, agent: str | None = None,
            question: Any = None) -> list[dict[str, Any]]:
        """Write the rules the book lacks (idempotently, atomically) with one audit record
        each; return the ones that were new."""

    def rules(self) -> list[dict[str, Any]]:
        """Every grant, oldest first."""

    def revoke(self, rule_or_index: Mapping[str, Any] | int, *,
               agent: str | None = None) -> dict[str, Any] | None:
        """Remove one grant (by its rule, or its 0-based index in :meth:`rules`); return it,
        or ``None`` if there was no such grant."""

    def history(self) -> list[dict[str, Any]]:
        """The audit records, oldest first: ``event`` (``grant``/``revoke``), ``rule``,
        ``decision``, ``at`` (epoch seconds), ``agent``, ``host``, ``pid``, ``question``."""

    def acquire_question(self, holder: Holder, ttl: float) -> bool:
        """Take the question lease for ``ttl`` seconds if it is free, expired, gone or
        ``holder``'s own; never waits for another holder."""

    def renew_question(self, holder: Holder, ttl: float) -> bool:
        """Extend ``holder``'s lease; False if it is no longer theirs."""

    def release_question(self, holder: Holder) -> None:
        """Drop the lease if ``holder`` holds it."""

    def question_open(self) -> bool:
        """Whether a live holder has the question lease."""


class MemoryBook:
    """A grant book in this process's memory: a lock around a list (see the module docstring).

    Args:
        name: the book's name, shown in errors and ``repr``.
    """

    def __init__(self, name: str = "default") -> None:
        self.where = f"memory book {name!r}"
        #: Bumped by every change of the grants (so a reader may keep what it compiled).
        self.generation = 0
        self._lock = threading.Lock()
        self._rules: list[tuple[str, dict[str, Any]]] = []
        self._history: list[dict[str, Any]] = []
        self._lease: tuple[Holder, float] | None = None

    def add(self, rules: Sequence[Mapping[str, Any]], *, agent: str | None = None,
            question: Any = None) -> list[dict[str, Any]]:
        added = []
        with self._lock:
            for rule in rules:
                key = canonical(rule)
                if all(known != key for known, _ in self._rules):
                    self._rules.append((key, copy.deepcopy(dict(rule))))
                    self.generation += 1
                    self._history.append(_record("grant", rule, time.time(), agent=agent,
                                                 question=question))
                    added.append(copy.deepcopy(dict(rule)))
        return added

    def rules(self) -> list[dict[str, Any]]:
        with self._lock:
            return [copy.deepcopy(rule) for _, rule in self._rules]

    def revoke(self, rule_or_index: Mapping[str, Any] | int, *,
               agent: str | None = None) -> dict[str, Any] | None:
        with self._lock:
            position = _position([key for key, _ in self._rules], rule_or_index)
            if position is None:
                return None
            _, rule = self._rules.pop(position)
            self.generation += 1
            self._history.append(_record("revoke", rule, time.time(), agent=agent,
                                         question=None))
            return rule

    def history(self) -> list[dict[str, Any]]:
        with self._lock:
            return copy.deepcopy(self._history)

    def acquire_question(self, holder: Holder, ttl: float) -> bool:
        with self._lock:
            now = time.monotonic()
            if self._lease is not None and not _free(self._lease[0], self._lease[1], holder,
                                                     now):
                return False
            self._lease = (holder, now + ttl)
            return True

    def renew_question(self, holder: Holder, ttl: float) -> bool:
        with self._lock:
            if self._lease is None or self._lease[0] != holder:
                return False
            self._lease = (holder, time.monotonic() + ttl)
            return True

    def release_question(self, holder: Holder) -> None:
        with self._lock:
            if self._lease is not None and self._lease[0] == holder:
                self._lease = None

    def question_open(self) -> bool:
        with self._lock:
            return self._lease is not None and not _free(
                self._lease[0], self._lease[1], None, time.monotonic())

    def __repr__(self) -> str:
        return f"<MemoryBook {self.where} {len(self.rules())} grants>"


def _free(held: Holder, expires: float, asking: Holder | None, now: float) -> bool:
    """Whether a lease held by ``held`` until ``expires`` may be taken by ``asking``."""
    return held == asking or expires <= now or held.gone()


def _position(keys: list[str], rule_or_index: Mapping[str, Any] | int) -> int | None:
    if isinstance(rule_or_index, bool):
        return None
    if isinstance(rule_or_index, int):
        return rule_or_index if 0 <= rule_or_index < len(keys) else None
    key = canonical(rule_or_index)
    return keys.index(key) if key in keys else None


_SCHEMA = """
CREATE TABLE IF NOT EXISTS mcp_grant_schema (version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS mcp_grants (
    id INTEGER PRIMARY KEY AUTOINCREMENT, book TEXT NOT NULL, key TEXT NOT NULL,
    rule TEXT NOT NULL, UNIQUE (book, key));
CREATE TABLE IF NOT EXISTS mcp_grant_history (
    id INTEGER PRIMARY KEY AUTOINCREMENT, book TEXT NOT NULL, event TEXT NOT NULL,
    rule TEXT NOT NULL, decision TEXT, at REAL NOT NULL, agent TEXT, host TEXT NOT NULL,
    pid INTEGER NOT NULL, question TEXT);
CREATE TABLE IF NOT EXISTS mcp_grant_question (
    book TEXT PRIMARY KEY, host TEXT NOT NULL, pid INTEGER NOT NULL, thread INTEGER NOT NULL,
    nonce TEXT NOT NULL, expires REAL NOT NULL);
"""


class SQLiteBook:
    """A grant book in an SQLite file, shared by every process on this host that opens it.

    Each operation opens its own connection (so a file that comes back after
    an outage is simply used again) and is one transaction; writes take
    ``BEGIN IMMEDIATE``.  The TTL of the question lease runs on this host's
    wall clock, read inside the transaction.

    Args:
        path: the database file (created, with its schema, on first use).
        name: the book inside it (one file holds many books).
        timeout: how long an operation waits for SQLite's lock before it fails
            with :class:`GrantBookError` (seconds).
    """

    def __init__(self, path: str | os.PathLike[str], name: str = "default", *,
                 timeout: float = 5.0) -> None:
        self.path = os.fspath(path)
        self.name = name
        self.timeout = timeout
        self.where = f"sqlite:{self.path} book {name!r}"
        self._ready = False

    # -- grants ----------------------------------------------------------------------------

    def add(self, rules: Sequence[Mapping[str, Any]], *, agent: str | None = None,
            question: Any = None) -> list[dict[str, Any]]:
        added = []
        with self._write() as db:
            now = time.time()
            for rule in rules:
                done = db.execute("INSERT OR IGNORE INTO mcp_grants (book, key, rule) "
                                  "VALUES (?, ?, ?)", (self.name, canonical(rule),
                                                       json.dumps(dict(rule))))
                if done.rowcount == 1:
                    self._log(db, _record("grant", rule, now, agent=agent, question=question))
                    added.append(copy.deepcopy(dict(rule)))
        return added

    def rules(self) -> list[dict[str, Any]]:
        with self._read() as db:
            rows = db.execute("SELECT rule FROM mcp_grants WHERE book = ? ORDER BY id",
                              (self.name,)).fetchall()
        return [self._decoded(rule) for (rule,) in rows]

    def _decoded(self, text: Any) -> Any:
        """A stored grant; a row that is not JSON fails the decision closed."""
        try:
            return json.loads(text)
        except (TypeError, ValueError) as exc:
            raise GrantBookError(self.where, "a grant row is not JSON") from exc

    def revoke(self, rule_or_index: Mapping[str, Any] | int, *,
               agent: str | None = None) -> dict[str, Any] | None:
        with self._write() as db:
            rows = db.execute("SELECT id, key, rule FROM mcp_grants WHERE book = ? "
                              "ORDER BY id", (self.name,)).fetchall()
            position = _position([key for _, key, _ in rows], rule_or_index)
            if position is None:
                return None
            ident, _, text = rows[position]
            db.execute("DELETE FROM mcp_grants WHERE id = ?", (ident,))
            rule: dict[str, Any] = self._decoded(text)
            self._log(db, _record("revoke", rule, time.time(), agent=agent, question=None))
            return rule

    def history(self) -> list[dict[str, Any]]:
        with self._read() as db:
            rows = db.execute("SELECT event, rule, decision, at, agent, host, pid, question "
                              "FROM mcp_grant_history WHERE book = ? ORDER BY id",
                              (self.name,)).fetchall()
        return [{"event": event, "rule": self._decoded(rule), "decision": decision, "at": at,
                 "agent": agent, "host": host, "pid": pid,
                 "question": None if question is None else self._decoded(question)}
                for event, rule, decision, at, agent, host, pid, question in rows]

    def _log(self, db: sqlite3.Connection, record: dict[str, Any]) -> None:
        question = record["question"]
        db.execute("INSERT INTO mcp_grant_history (book, event, rule, decision, at, agent, "
                   "host, pid, question) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   (self.name, record["event"], json.dumps(record["rule"]),
                    record["decision"], record["at"], record["agent"], record["host"],
                    record["pid"], None if question is None else json.dumps(question)))

    # -- the question lease ----------------------------------------------------------------

    def acquire_question(self, holder: Holder, ttl: float) -> bool:
        with self._write() as db:
            now = time.time()
            held = self._holder(db)
            if held is not None and not _free(held[0], held[1], holder, now):
                return False
            db.execute("INSERT OR REPLACE INTO mcp_grant_question (book, host, pid, thread, "
                       "nonce, expires) VALUES (?, ?, ?, ?, ?, ?)",
                       (self.name, holder.host, holder.pid, holder.thread, holder.nonce,
                        now + ttl))
            return True

    def renew_question(self, holder: Holder, ttl: float) -> bool:
        with self._write() as db:
            done = db.execute("UPDATE mcp_grant_question SET expires = ? WHERE book = ? AND "
                              "nonce = ?", (time.time() + ttl, self.name, holder.nonce))
            return done.rowcount == 1

    def release_question(self, holder: Holder) -> None:
        with self._write() as db:
            db.execute("DELETE FROM mcp_grant_question WHERE book = ? AND nonce = ?",
                       (self.name, holder.nonce))

    def question_open(self) -> bool:
        with self._read() as db:
            held = self._holder(db)
            return held is not None and not _free(held[0], held[1], None, time.time())

    def _holder(self, db: sqlite3.Connection) -> tuple[Holder, float] | None:
        row = db.execute("SELECT host, pid, thread, nonce, expires FROM mcp_grant_question "
                         "WHERE book = ?", (self.name,)).fetchone()
        return None if row is None else (Holder(row[0], row[1], row[2], row[3]), row[4])

    # -- the file --------------------------------------------------------------------------

    def _read(self) -> _Transaction:
        return _Transaction(self, write=False)

    def _write(self) -> _Transaction:
        return _Transaction(self, write=True)

    def _connect(self) -> sqlite3.Connection:
        if not self._ready:
            create_private(self.path)
        db = sqlite3.connect(self.path, timeout=self.timeout, isolation_level=None)
        try:
            if not self._ready:
                self._create(db)
                self._ready = True
        except BaseException:
            db.close()
            raise
        return db

    def _create(self, db: sqlite3.Connection) -> None:
        """Check the version row; create the schema first if there is none (one write
        transaction, idempotent), so a locked file is still readable."""
        if self._version(db) is None:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("BEGIN IMMEDIATE")
            try:
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
                        db.execute(statement)
                if self._version(db) is None:
                    db.execute("INSERT INTO mcp_grant_schema (version) VALUES (?)",
                               (SCHEMA_VERSION,))
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        version = self._version(db)
        if version is not None and version > SCHEMA_VERSION:
            raise sqlite3.DatabaseError(f"its schema is version {version}, newer than this "
                                        f"library's {SCHEMA_VERSION}")

    @staticmethod
    def _version(db: sqlite3.Connection) -> int | None:
        try:
            row = db.execute("SELECT max(version) FROM mcp_grant_schema").fetchone()
        except sqlite3.OperationalError as exc:
            if "no such table" in str(exc):
                return None
            raise
        return None if row[0] is None else int(row[0])

    def __repr__(self) -> str:
        return f"<SQLiteBook {self.where}>"


class _Transaction:
    """One connection, one transaction; every :mod:`sqlite3` error becomes a GrantBookError."""

    def __init__(self, book: SQLiteBook, *, write: bool) -> None:
        self._book = book
        self._write = write
        self._db: sqlite3.Connection | None = None

    def __enter__(self) -> sqlite3.Connection:
        try:
            self._db = self._book._connect()
            if self._write:
                self._db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            self._close()
            raise self._failed(exc) from exc
        return self._db

    def __exit__(self, kind: Any, exc: Any, trace: Any) -> None:
        try:
            if self._write and self._db is not None:
                self._db.execute("COMMIT" if kind is None else "ROLLBACK")
        except sqlite3.Error as error:
            if kind is None:
                raise self._failed(error) from error
        finally:
            self._close()
        if isinstance(exc, sqlite3.Error):
            raise self._failed(exc) from exc

    def _failed(self, exc: sqlite3.Error) -> GrantBookError:
        self._book._ready = False         # the file may have been replaced: check it again
        return GrantBookError(self._book.where, f"{type(exc).__name__}: {exc}")

    def _close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None
