"""A grant book on Redis (:meth:`RedisStore.book <mcp_client.store.RedisStore.book>`).

The same contract as :class:`~mcp_client.policy.SQLiteBook`, on the store's
server and under its key prefix:

* grants: a hash from each grant's canonical JSON (sorted keys, no spaces) to
  the rule and its order; ``add`` writes the ones missing and their audit
  records in one script (idempotent: the same answer written by two hosts is
  one grant); ``revoke`` removes one and records it in one script;
* history: a list of audit records, appended by those scripts;
* the question lease: a hash naming its holder (host, pid, thread, nonce) with an
  expiry on the server's clock (``TIME``), taken, renewed and released by
  scripts.  A holder this host can see is dead (its pid gone, or in this
  process its thread) is passed to the script as gone, which frees the lease at
  once; another host's holder is never taken for gone (it runs out by its TTL).

Nothing is cached: every decision reads the server.  Every failure raises
:class:`~mcp_client.policy.GrantBookError` naming the book (password hidden).
"""

from __future__ import annotations

import copy
import json
import os
import socket
import threading
import time
from typing import Any, Callable, Mapping, Protocol, Sequence

from ..exceptions import StoreError
from ..policy import GrantBookError
from . import _proc

__all__ = ["RedisBook", "holder_gone"]


def _canonical(rule: Mapping[str, Any]) -> str:
    return json.dumps(rule, sort_keys=True, separators=(",", ":"))


def holder_gone(host: str, pid: int, thread: int) -> bool:
    """Whether a question-lease holder is certainly dead (the rule of ``Holder.gone``)."""
    if host != socket.gethostname():
        return False
    if pid == os.getpid():
        return thread not in {running.ident for running in threading.enumerate()}
    return not _proc.alive(pid, None)


def _record(event: str, rule: Any, at: float, *, agent: str | None,
            question: Any) -> dict[str, Any]:
    return {"event": event, "rule": rule, "decision": "@DECISION@" if rule == "@RULE@"
            else rule.get("decision"), "at": at, "agent": agent, "host": socket.gethostname(),
            "pid": os.getpid(),
            "question": None if question is None else json.loads(json.dumps(question,
                                                                            default=repr))}


class Server(Protocol):
    """What a book needs of its :class:`~mcp_client.store.RedisStore`."""

    name: str
    _client: Any

    def key(self, kind: str, name: str) -> str: ...

    def run(self, op: str, keys: Sequence[str], *args: Any) -> Any: ...

    def call(self, what: Callable[[], Any]) -> Any: ...


class RedisBook:
    """The grant book ``name`` of a :class:`~mcp_client.store.RedisStore` (see the module
    docstring)."""

    def __init__(self, store: Server, name: str) -> None:
        self.store = store
        self.name = name
        self.where = f"{store.name} book {name!r}"
        self._keys = [store.key(kind, name) for kind in ("grants", "grantseq", "history")]
        self._lease = store.key("question", name)

    def __repr__(self) -> str:
        return f"<RedisBook {self.where}>"

    def _run(self, op: str, keys: Sequence[str], *args: Any) -> Any:
        try:
            return self.store.run(op, keys, *args)
        except StoreError as exc:
            raise GrantBookError(self.where, exc.reason) from exc

    def _call(self, what: Any) -> Any:
        try:
            return self.store.call(what)
        except StoreError as exc:
            raise GrantBookError(self.where, exc.reason) from exc

    # -- grants ----------------------------------------------------------------------------

    def add(self, rules: Sequence[Mapping[str, Any]], *, agent: str | None = None,
            question: Any = None) -> list[dict[str, Any]]:
        now = time.time()
        items = [[_canonical(rule), json.dumps(dict(rule)),
                  json.dumps(_record("grant", copy.deepcopy(dict(rule)), now, agent=agent,
                                     question=question))] for rule in rules]
        added = json.loads(self._run("book_add", self._keys, json.dumps(items)))
        return [json.loads(text) for text in added] if isinstance(added, list) else []

    def rules(self) -> list[dict[str, Any]]:
        found = self._call(lambda: self.store._client.hvals(self._keys[0]))
        rows = sorted((json.loads(raw) for raw in found), key=lambda row: int(row["n"]))
        return [json.loads(row["r"]) for row in rows]

    def revoke(self, rule_or_index: Mapping[str, Any] | int, *,
               agent: str | None = None) -> dict[str, Any] | None:
        if isinstance(rule_or_index, bool):
            return None
        if isinstance(rule_or_index, int):
            if rule_or_index < 0:
                return None
            index, key = rule_or_index, ""
        else:
            index, key = -1, _canonical(rule_or_index)
        record = json.dumps(_record("revoke", "@RULE@", time.time(), agent=agent,
                                    question=None))
        found = self._run("book_revoke", self._keys, str(index), key, record)
        return None if found is None else dict(json.loads(found))

    def history(self) -> list[dict[str, Any]]:
        found = self._call(lambda: self.store._client.lrange(self._keys[2], 0, -1))
        return [json.loads(raw) for raw in found]

    # -- the question lease ----------------------------------------------------------------

    def _gone_nonce(self) -> str:
        held = self._call(lambda: self.store._client.hmget(self._lease, "host", "pid",
                                                           "thread", "nonce"))
        if held[3] is not None and holder_gone(held[0], int(held[1]), int(held[2])):
            return str(held[3])
        return ""

    def acquire_question(self, holder: Any, ttl: float) -> bool:
        return bool(self._run("question_acquire", [self._lease], holder.host, str(holder.pid),
                              str(holder.thread), holder.nonce, f"{max(ttl, 0) * 1e6:.0f}",
                              self._gone_nonce()))

    def renew_question(self, holder: Any, ttl: float) -> bool:
        return bool(self._run("question_renew", [self._lease], holder.nonce,
                              f"{max(ttl, 0) * 1e6:.0f}"))

    def release_question(self, holder: Any) -> None:
        self._run("question_release", [self._lease], holder.nonce)

    def question_open(self) -> bool:
        held = self._run("question_held", [self._lease])
        return held is not None and not holder_gone(held[0], int(held[1]), int(held[2]))
