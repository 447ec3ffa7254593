"""The lease suites of a table without a store, run again over a :class:`MemoryStore`.

A table given a store must behave as one without: every test of
``tests/providers/test_leases*.py`` runs here with each ``LeaseTable(...)``
made over a fresh ``MemoryStore`` on the test's own clock.
"""

from __future__ import annotations

import time
from typing import Callable
from unittest import mock

from mcp_client.leases import LeaseTable
from mcp_client.store import MemoryStore

from ..providers import test_leases, test_leases_inflight


def _close_all(stores: list[MemoryStore]) -> None:
    for store in stores:
        store.close()


class _OverAStore:
    """Makes every ``LeaseTable`` of a test module keep its leases in a MemoryStore."""

    modules: tuple[object, ...] = ()

    def setUp(self) -> None:
        stores: list[MemoryStore] = []

        def table(default_ttl: float = 300, *,
                  clock: Callable[[], float] = time.monotonic) -> LeaseTable:
            store = MemoryStore(clock=clock)
            stores.append(store)
            return LeaseTable(default_ttl, store=store)

        for module in self.modules:
            patcher = mock.patch.object(module, "LeaseTable", table)
            patcher.start()
            self.addCleanup(patcher.stop)   # type: ignore[attr-defined]
        self.addCleanup(_close_all, stores)   # type: ignore[attr-defined]
        super().setUp()   # type: ignore[misc]


class LeaseOverAStoreTest(_OverAStore, test_leases.LeaseTest):
    modules = (test_leases,)


class InFlightOverAStoreTest(_OverAStore, test_leases_inflight.InFlightTest):
    modules = (test_leases_inflight,)


class InFlightTableOverAStoreTest(_OverAStore, test_leases_inflight.InFlightTable):
    modules = (test_leases_inflight,)


class QueuedWriteOverAStoreTest(_OverAStore, test_leases_inflight.QueuedWriteTable):
    modules = (test_leases_inflight,)
