"""The book of remembered answers (:class:`Grants`) and the lock every question goes through.

A :class:`Grants` keeps its grants in a :class:`~mcp_client.policy.GrantBook`:
a :class:`~mcp_client.policy.MemoryBook` when no store is given (one
process; what ``Grants`` always was), else ``store.book(book)`` -- shared by
every process that opens the same store and book.  This module validates and
compiles what the book holds; it never decides a call (that is
:mod:`._policy`'s, where grants rank below static rules and the danger floor).

No caching, so read-your-writes across processes: every decision reads the
book, and a grant whose :meth:`Grants.add` returned in one process is in force
for the next decision that starts in any process sharing the book.  A book
that cannot be read or written raises
:class:`~mcp_client.policy.GrantBookError`; the policy refuses the call
(it fails closed), and nothing written before is lost.

Questions: one book is one human.  Without a store a question holds a
non-reentrant :class:`threading.Lock` (with no timeout).  With a store it also
holds the book's question lease: taken with a TTL of :data:`QUESTION_TTL`
seconds, renewed by one named thread every third of it while the question is
open (joined when it closes), waited for by polling with backoff from
:data:`POLL_FIRST` to :data:`POLL_MAX` seconds; a holder whose process died is
skipped at once (see the book).
"""

from __future__ import annotations

import copy
import logging
import threading
import time
from typing import Any, Iterable, Mapping, Protocol, Sequence

from ..exceptions import InvalidArgument
from ._book import GrantBook, GrantBookError, Holder, MemoryBook, canonical
from .rules import RULE_KEYS, Rule, compile_rule, compile_rules

__all__ = ["Grants", "GrantStore", "QUESTION_TTL"]

log = logging.getLogger(__name__)

#: Seconds a question lease lasts unless renewed (renewed every third of it).
QUESTION_TTL = 15.0
#: The first and the longest pause between two attempts to take a held question lease.
POLL_FIRST, POLL_MAX = 0.01, 0.1


class GrantStore(Protocol):
    """What ``Grants(store=...)`` needs of a store: its books, by name."""

    def book(self, name: str) -> GrantBook:
        """The grant book called ``name`` (created on first use)."""


def _ordered(source: Mapping[str, Any]) -> dict[str, Any]:
    return {key: copy.deepcopy(source[key]) for key in RULE_KEYS if key in source}


class _OneQuestion:
    """The lock every question goes through, which knows the thread that holds it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._owner: int | None = None

    def enter(self) -> bool:
        """Take the lock; False, without waiting, if this thread already holds it."""
        me = threading.get_ident()
        if self._owner == me:
            return False
        self._lock.acquire()
        self._owner = me
        return True

    def leave(self) -> None:
        self._owner = None
        self._lock.release()


_ASKING = threading.local()


def _held() -> set[tuple[str, Any]]:
    """The books whose question lease this thread holds (a question asked from inside
    ``on_ask`` through another Grants on the same book is nested, not a wait)."""
    held: set[tuple[str, Any]] | None = getattr(_ASKING, "books", None)
    if held is None:
        held = _ASKING.books = set()
    return held


class _FleetQuestion(_OneQuestion):
    """The in-process lock, then the book's question lease (renewed while it is held).

    :meth:`enter` raises :class:`GrantBookError` (holding nothing) when the book
    fails; a failed renewal or release is logged, and the TTL ends the lease.
    """

    def __init__(self, book: GrantBook, ttl: float = QUESTION_TTL) -> None:
        super().__init__()
        self._book = book
        self._ttl = ttl
        self._holder: Holder | None = None
        #: the book as this thread's questions know it: the same file and book are one,
        #: whichever Grants object asks
        self._key = (type(book).__name__, getattr(book, "where", None) or id(book))
        self._stop = threading.Event()
        self._renewer: threading.Thread | None = None

    def enter(self) -> bool:
        if not super().enter():
            return False
        if self._key in _held():   # another Grants on this book, asking on this thread
            super().leave()
            return False
        try:
            holder = Holder.mine()
            self._wait(holder)
        except BaseException:
            super().leave()
            raise
        _held().add(self._key)
        self._holder = holder
        self._stop.clear()
        try:
            renewer = threading.Thread(target=self._renew, args=(holder,), daemon=False,
                                       name=f"mcp-question-lease-{holder.thread}")
            renewer.start()
        except BaseException:   # no renewer (no thread to be had): give the lease back
            self.leave()
            raise
        self._renewer = renewer
        return True

    def leave(self) -> None:
        try:
            self._stop.set()
            if self._renewer is not None:
                self._renewer.join()
            if self._holder is not None:
                self._book.release_question(self._holder)
        except GrantBookError as exc:
            log.warning("could not release the question lease (its TTL will): %s", exc)
        finally:
            if self._holder is not None:
                _held().discard(self._key)
            self._renewer = self._holder = None
            super().leave()

    def _wait(self, holder: Holder) -> None:
        pause = POLL_FIRST
        while not self._book.acquire_question(holder, self._ttl):
            if pause == POLL_FIRST:
                log.debug("waiting for the question lease of %s", self._book.where)
            time.sleep(pause)             # another process's human is deliberating
            pause = min(pause * 2, POLL_MAX)

    def _renew(self, holder: Holder) -> None:
        while not self._stop.wait(self._ttl / 3):
            try:
                if not self._book.renew_question(holder, self._ttl):
                    log.warning("the question lease of %s was lost", self._book.where)
            except GrantBookError as exc:
                log.warning("could not renew the question lease: %s", exc)


def _revoked(history: Sequence[Mapping[str, Any]]) -> set[str]:
    """The grants (canonical JSON) whose last audit record is a revoke."""
    last: dict[str, str] = {}
    for record in history:
        rule = record.get("rule")
        if isinstance(rule, Mapping):
            last[canonical(rule)] = str(record.get("event"))
    return {key for key, event in last.items() if event == "revoke"}


class Grants:
    """The shared book of remembered answers: one human, one grant set.

    Hand one ``Grants`` to every policy of a process as ``grants_store``, or
    give every process the same ``store`` and ``book``: an always- answer
    given to any of them is written to the book, and every policy reads the
    book on every decision, so a grant is in force for the next decision of
    any thread or process sharing it.  The book also carries the lock (with a
    store, the lease) that serialises questions, because one book is one human.

    Args:
        grants: grants to start with (plain data from a previous session's
            ``.grants``): rules whose ``decision`` is ``allow`` or ``deny``;
            with a store they are added to the book (idempotently).
        store: where the book lives, shared across processes (anything with
            ``book(name)`` returning a
            :class:`~mcp_client.policy.GrantBook`); ``None`` keeps it in
            this object.
        book: the book's name in the store.
        agent: a name written into the audit record of each grant this
            object adds.

    Raises:
        RuleError: a grant that does not validate (naming its index and key).
        GrantBookError: the store's book could not be written.
    """

    def __init__(self, grants: Sequence[Mapping[str, Any]] | None = None, *,
                 store: GrantStore | None = None, book: str = "default",
                 agent: str | None = None) -> None:
        if store is not None and not callable(getattr(store, "book", None)):
            raise InvalidArgument("store", store, "must have a book(name) method")
        self.agent = agent
        self.shared = store is not None
        self._book: GrantBook = store.book(book) if store is not None else MemoryBook(book)
        self._ask_lock = _FleetQuestion(self._book) if self.shared else _OneQuestion()
        self._compiled: dict[str, Rule] = {}
        self._kept: tuple[int | None, list[Rule]] = (None, [])
        self._lock = threading.Lock()
        first = compile_rules(grants, where="grant", decisions=("allow", "deny"))
        seeds = [_ordered(rule.source) for rule in first]
        if seeds and self.shared:
            # A grant revoked in the shared book stays revoked: every process that
            # starts from the same saved grants must not bring it back.  (Only a
            # revoke racing this very start can slip past the check; the human's own
            # later "always" adds it again through add().)
            gone = _revoked(self._book.history())
            seeds = [seed for seed in seeds if canonical(seed) not in gone]
        if seeds:
            self._book.add(seeds, agent=agent)

    @property
    def grants(self) -> list[dict[str, Any]]:
        """A copy of every grant, as plain data (oldest first)."""
        return self._book.rules()

    def rules(self) -> list[Rule]:
        """The validated grants, read from the book now.

        Raises:
            GrantBookError: the book could not be read, or holds a grant that
                does not validate (never skipped: it may be a deny).
        """
        generation = getattr(self._book, "generation", None)   # a MemoryBook's: in-process
        if generation is not None and self._kept[0] == generation:
            return list(self._kept[1])
        sources = self._book.rules()
        rules, compiled = [], {}
        with self._lock:
            for index, source in enumerate(sources):
                key = f"{index}:{canonical(source)}"
                rule = self._compiled.get(key)
                if rule is None:
                    try:
                        rule = compile_rule(source, index, where="grant",
                                            decisions=("allow", "deny"))
                    except Exception as exc:
                        raise GrantBookError(self._book.where, f"grant {index} does not "
                                             f"validate: {exc}") from exc
                compiled[key] = rule
                rules.append(rule)
            self._compiled = compiled
            if generation is not None:
                self._kept = (generation, rules)
        return list(rules)

    def add(self, rules: Iterable[Rule], *, question: Any = None) -> bool:
        """Remember ``rules`` (already validated), skipping ones already in the book.

        Args:
            rules: the grants.
            question: the question they answer, for the audit record.

        Returns:
            Whether anything new was written.
        """
        return bool(self._book.add([_ordered(rule.source) for rule in rules],
                                   agent=self.agent, question=question))

    def revoke(self, rule_or_index: Mapping[str, Any] | int) -> dict[str, Any]:
        """Remove a grant: ``rule_or_index`` is the grant as plain data, or its 0-based
        index in :attr:`grants` (revoking by rule is safe while others write).

        Returns:
            The grant removed.

        Raises:
            InvalidArgument: no such grant.
        """
        if isinstance(rule_or_index, Mapping):
            rule_or_index = _ordered(rule_or_index)
        elif isinstance(rule_or_index, bool) or not isinstance(rule_or_index, int):
            raise InvalidArgument("rule_or_index", rule_or_index, "must be a grant or an index")
        removed = self._book.revoke(rule_or_index, agent=self.agent)
        if removed is None:
            raise InvalidArgument("rule_or_index", rule_or_index,
                                  f"names no grant in {self._book.where}")
        return removed

    def history(self) -> list[dict[str, Any]]:
        """The audit records, oldest first: one per grant added (``event: "grant"``) or
        revoked (``"revoke"``), with ``rule``, ``decision``, ``at`` (epoch
        seconds), ``agent``, ``host``, ``pid`` and ``question`` (the question the
        grant answered, or ``None``)."""
        return self._book.history()

    def __len__(self) -> int:
        return len(self._book.rules())

    def __repr__(self) -> str:
        if not self.shared:
            return f"<Grants {len(self)} grants>"
        try:
            return f"<Grants {len(self)} grants in {self._book.where}>"
        except GrantBookError:
            return f"<Grants unavailable {self._book.where}>"
