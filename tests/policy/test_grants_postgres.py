"""One human's grant book in PostgreSQL: the book contract and the cross-process grant tests
of :mod:`tests.policy.test_grants_shared`, run again over a :class:`PostgresStore`.

Every test runs in a fresh schema of ``MCP_TEST_POSTGRES_URL`` and skips without it.
"""

from __future__ import annotations

import os
import socket
from typing import Any

from mcp_client.policy import GrantBook, GrantBookError, Grants, PostgresBook
from mcp_client.policy._book import Holder
from mcp_client.store import Store, open_store

from ..store import postgres
from . import test_grants_shared as shared


class _OnPostgres:
    def setUp(self) -> None:
        super().setUp()   # type: ignore[misc]
        self.url = postgres.fresh(self)   # type: ignore[arg-type]

    def store(self) -> Store:
        store = open_store(self.url)
        self.addCleanup(store.close)   # type: ignore[attr-defined]
        return store


class PostgresBookTest(_OnPostgres, shared.BookContract):
    __test__ = True

    def book(self) -> GrantBook:
        return self.store().book("default")

    def test_books_are_separate_and_shared_by_every_store_of_the_schema(self) -> None:
        one, two = self.store(), self.store()
        book = one.book("a")
        self.assertIsInstance(book, PostgresBook)
        self.assertIn("book 'a'", book.where)
        book.add([shared.WRITE], agent="one")
        self.assertEqual((two.book("a").rules(), two.book("b").rules()), ([shared.WRITE], []))
        self.assertEqual(Grants(store=two, book="a").grants, [shared.WRITE])

    def test_the_lease_runs_on_the_servers_clock_and_a_dead_pid_frees_it(self) -> None:
        book = self.book()
        ghost = Holder(socket.gethostname(), shared.dead_pid(), 1)
        elsewhere = Holder("another-host.invalid", os.getpid(), 1)
        self.assertTrue(book.acquire_question(ghost, 600))
        self.assertTrue(book.acquire_question(elsewhere, 600))     # the ghost is gone
        self.assertFalse(book.acquire_question(Holder.mine(), 600))  # never assumed gone
        self.assertTrue(book.question_open())
        self.assertTrue(book.renew_question(elsewhere, 0))          # expired now
        self.assertFalse(book.question_open())

    def test_a_closed_store_fails_closed(self) -> None:
        store = self.store()
        book = store.book()
        store.close()
        with self.assertRaises(GrantBookError) as caught:
            book.add([shared.WRITE])
        self.assertIn("closed", str(caught.exception))


class ProcessesOnPostgresTest(shared.ProcessesTest):
    """The workers open the store by its URL: ``self.path`` is one here."""

    def setUp(self) -> None:
        super().setUp()
        self.path = postgres.fresh(self)

    def shared(self) -> Any:
        store = open_store(self.path)
        self.addCleanup(store.close)
        return store
