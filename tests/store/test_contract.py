"""The lease suites of a table without a store, run again over a :class:`MemoryStore`.

A table given a store must behave as one without: every test of
``tests/providers/test_leases*.py`` runs here with each ``LeaseTable(...)``
made over a fresh ``MemoryStore`` on the test's own clock, and again over an
SQLite file wherever the test keeps the default clock (an SQLite store's
clock is the wall clock; a test's own clock goes to a ``MemoryStore``).
"""

from __future__ import annotations

import os
import tempfile
import time
from typing import Callable
from unittest import mock

from mcp_client.leases import LeaseTable
from mcp_client.store import MemoryStore, SQLiteStore, Store

from ..providers import test_leases, test_leases_inflight


def _close_all(stores: list[Store]) -> None:
    for store in stores:
        store.close()


class _OverAStore:
    """Makes every ``LeaseTable`` of a test module keep its leases in a MemoryStore."""

    modules: tuple[object, ...] = ()
    #: whether a table on the default clock keeps its leases in an SQLite file
    on_disk = False

    def setUp(self) -> None:
        stores: list[Store] = []
        folder = tempfile.TemporaryDirectory(prefix="mcp-store-")
        self.addCleanup(folder.cleanup)   # type: ignore[attr-defined]

        def table(default_ttl: float = 300, *,
                  clock: Callable[[], float] = time.monotonic) -> LeaseTable:
            store = self.store(clock, os.path.join(folder.name, f"{len(stores)}.db"))
            stores.append(store)
            return LeaseTable(default_ttl, store=store)

        for module in self.modules:
            patcher = mock.patch.object(module, "LeaseTable", table)
            patcher.start()
            self.addCleanup(patcher.stop)   # type: ignore[attr-defined]
        self.addCleanup(_close_all, stores)   # type: ignore[attr-defined]
        super().setUp()   # type: ignore[misc]

    def store(self, clock: Callable[[], float], path: str) -> Store:
        """The store of one table: an SQLite file at ``path`` when ``on_disk`` and the
        table keeps the default clock, else a MemoryStore on ``clock``."""
        if self.on_disk and clock is time.monotonic:
            return SQLiteStore(path)
        return MemoryStore(clock=clock)


class LeaseOverAStoreTest(_OverAStore, test_leases.LeaseTest):
    modules = (test_leases,)


class InFlightOverAStoreTest(_OverAStore, test_leases_inflight.InFlightTest):
    modules = (test_leases_inflight,)


class InFlightTableOverAStoreTest(_OverAStore, test_leases_inflight.InFlightTable):
    modules = (test_leases_inflight,)


class QueuedWriteOverAStoreTest(_OverAStore, test_leases_inflight.QueuedWriteTable):
    modules = (test_leases_inflight,)


class LeaseOnDiskTest(_OverAStore, test_leases.LeaseTest):
    modules = (test_leases,)
    on_disk = True


class InFlightOnDiskTest(_OverAStore, test_leases_inflight.InFlightTest):
    modules = (test_leases_inflight,)
    on_disk = True


class ThroughAClientOnDiskTest(_OverAStore, test_leases_inflight.ThroughAClientTest):
    modules = (test_leases_inflight,)
    on_disk = True
