"""A grant book in a PostgreSQL database: :class:`PostgresBook`, handed out by
:meth:`PostgresStore.book <mcp_client.store.PostgresStore.book>`.

The same semantics as :class:`~mcp_client.policy.SQLiteBook`, for many hosts:
grants are rows with a unique key on (book, canonical JSON), so the same
always-answer written by two hosts is one grant; every change writes an
audit row; nothing is cached, so a grant committed anywhere is in force for
the next decision everywhere.  Each operation is one transaction on the
store's connection; changes (and the question lease) first take an advisory
lock on the book, so revoking by index and taking the question lease are
atomic across hosts.  The question lease expires by the **server's** clock
(``clock_timestamp()`` read in the transaction); a holder on the operating
host whose process is gone frees it at once.

This module imports no database driver: the store gives the book its
transactions.  Every failure is a :class:`GrantBookError` naming the store
(password hidden) and the book.
"""

from __future__ import annotations

import copy
import json
from contextlib import contextmanager
from typing import Any, Callable, ContextManager, Iterator, Mapping, Sequence

from ..exceptions import StoreError
from ._book import GrantBookError, Holder, _free, _position, _record, canonical

__all__ = ["PostgresBook"]

#: ``transaction(lock)``: a context manager giving one transaction (``execute(sql,
#: params)``, ``one(sql, params)``, ``now``), under an advisory lock on ``lock`` if given.
_Opener = Callable[[Any], ContextManager[Any]]


class PostgresBook:
    """The grant book ``name`` kept in a PostgreSQL store (see the module docstring).

    Args:
        name: the book's name (one database holds many books).
        where: what the book is, for errors (the store's URL, password hidden).
        transaction: the store's transactions.
    """

    def __init__(self, name: str, where: str, transaction: _Opener) -> None:
        self.name = name
        self.where = where
        self._transaction = transaction

    def __repr__(self) -> str:
        return f"<PostgresBook {self.where}>"

    @contextmanager
    def _tx(self, write: bool) -> Iterator[Any]:
        try:
            with self._transaction(("book", self.name) if write else None) as tx:
                yield tx
        except StoreError as exc:   # StoreUnavailable included
            raise GrantBookError(self.where, exc.reason) from exc

    # -- grants ----------------------------------------------------------------------------

    def add(self, rules: Sequence[Mapping[str, Any]], *, agent: str | None = None,
            question: Any = None) -> list[dict[str, Any]]:
        added = []
        with self._tx(True) as tx:
            for rule in rules:
                done = tx.execute("INSERT INTO {s}.grants (book, key, rule) VALUES (%s, %s, %s) "
                                  "ON CONFLICT (book, key) DO NOTHING",
                                  (self.name, canonical(rule), json.dumps(dict(rule))))
                if done.rowcount == 1:
                    self._log(tx, _record("grant", rule, tx.now, agent=agent,
                                          question=question))
                    added.append(copy.deepcopy(dict(rule)))
        return added

    def rules(self) -> list[dict[str, Any]]:
        with self._tx(False) as tx:
            rows = tx.execute("SELECT rule FROM {s}.grants WHERE book = %s ORDER BY id",
                              (self.name,)).fetchall()
        return [json.loads(rule) for (rule,) in rows]

    def revoke(self, rule_or_index: Mapping[str, Any] | int, *,
               agent: str | None = None) -> dict[str, Any] | None:
        with self._tx(True) as tx:
            rows = tx.execute("SELECT id, key, rule FROM {s}.grants WHERE book = %s "
                              "ORDER BY id", (self.name,)).fetchall()
            position = _position([key for _, key, _ in rows], rule_or_index)
            if position is None:
                return None
            ident, _, text = rows[position]
            tx.execute("DELETE FROM {s}.grants WHERE id = %s", (ident,))
            rule: dict[str, Any] = json.loads(text)
            self._log(tx, _record("revoke", rule, tx.now, agent=agent, question=None))
            return rule

    def history(self) -> list[dict[str, Any]]:
        with self._tx(False) as tx:
            rows = tx.execute("SELECT event, rule, decision, at, agent, host, pid, question "
                              "FROM {s}.grant_history WHERE book = %s ORDER BY id",
                              (self.name,)).fetchall()
        return [{"event": event, "rule": json.loads(rule), "decision": decision, "at": at,
                 "agent": agent, "host": host, "pid": pid,
                 "question": None if question is None else json.loads(question)}
                for event, rule, decision, at, agent, host, pid, question in rows]

    def _log(self, tx: Any, record: dict[str, Any]) -> None:
        question = record["question"]
        tx.execute("INSERT INTO {s}.grant_history (book, event, rule, decision, at, agent, "
                   "host, pid, question) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)",
                   (self.name, record["event"], json.dumps(record["rule"]),
                    record["decision"], record["at"], record["agent"], record["host"],
                    record["pid"], None if question is None else json.dumps(question)))

    # -- the question lease ----------------------------------------------------------------

    def acquire_question(self, holder: Holder, ttl: float) -> bool:
        with self._tx(True) as tx:
            held = self._holder(tx)
            if held is not None and not _free(held[0], held[1], holder, tx.now):
                return False
            tx.execute("INSERT INTO {s}.grant_question (book, host, pid, thread, nonce, "
                       "expires) VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (book) DO UPDATE "
                       "SET host = EXCLUDED.host, pid = EXCLUDED.pid, thread = EXCLUDED.thread, "
                       "nonce = EXCLUDED.nonce, expires = EXCLUDED.expires",
                       (self.name, holder.host, holder.pid, holder.thread, holder.nonce,
                        tx.now + ttl))
            return True

    def renew_question(self, holder: Holder, ttl: float) -> bool:
        with self._tx(True) as tx:
            done = tx.execute("UPDATE {s}.grant_question SET expires = %s WHERE book = %s AND "
                              "nonce = %s", (tx.now + ttl, self.name, holder.nonce))
            return bool(done.rowcount == 1)

    def release_question(self, holder: Holder) -> None:
        with self._tx(True) as tx:
            tx.execute("DELETE FROM {s}.grant_question WHERE book = %s AND nonce = %s",
                       (self.name, holder.nonce))

    def question_open(self) -> bool:
        with self._tx(False) as tx:
            held = self._holder(tx)
            return held is not None and not _free(held[0], held[1], None, tx.now)

    def _holder(self, tx: Any) -> tuple[Holder, float] | None:
        row = tx.execute("SELECT host, pid, thread, nonce, expires FROM {s}.grant_question "
                         "WHERE book = %s", (self.name,)).fetchone()
        return None if row is None else (Holder(row[0], row[1], row[2], row[3]), row[4])
