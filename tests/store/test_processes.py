"""A store across separate processes: a race, a killed holder, a wake-up (SQLite here;
``test_redis`` runs the same tests over Redis)."""

from __future__ import annotations

import multiprocessing
import os
import queue
import tempfile
import time
import unittest
from typing import Any

from mcp_client.leases import LeaseTable
from mcp_client.store import Store, open_store

from . import workers

#: seconds any cross-process step may take on a loaded machine
PATIENCE = 20.0
#: racing processes
RACERS = 32

# A fork server imports the library once; each worker is then a plain fork of it
# (a fork of the single-threaded server, never of this process).
_CONTEXT = multiprocessing.get_context("forkserver")
_CONTEXT.set_forkserver_preload(["mcp_client.leases", "mcp_client.store", "tests.store.workers"])


class ProcessesTest(unittest.TestCase):
    def setUp(self) -> None:
        folder = tempfile.TemporaryDirectory(prefix="mcp-store-")
        self.addCleanup(folder.cleanup)
        self.fence = os.path.join(folder.name, "fence")
        self.database = self.location(folder.name)
        store: Store = open_store(self.database)
        self.addCleanup(store.close)
        self.table = LeaseTable(store=store, workspace="fleet")
        self.processes: list[Any] = []
        self.addCleanup(self._reap)

    def location(self, folder: str) -> str:
        """The store every process opens (a file path or a store URL)."""
        return os.path.join(folder, "fleet.db")

    def start(self, target: Any, *args: Any) -> Any:
        process = _CONTEXT.Process(target=target, args=(self.database, "fleet", *args),
                                   name=f"store-{target.__name__}-{len(self.processes)}")
        process.start()
        self.processes.append(process)
        return process

    def _reap(self) -> None:
        for process in self.processes:
            process.join(PATIENCE)
            if process.is_alive():
                process.kill()
                process.join(PATIENCE)

    def test_racers_one_winner_per_conflict_strictly_increasing_tokens(self) -> None:
        start, resume, results = _CONTEXT.Event(), _CONTEXT.Event(), _CONTEXT.Queue()
        for index in range(RACERS):
            self.start(workers.race, index, start, resume, results, self.fence)
        start.set()
        tries = sorted(self._collect(results, "try"))
        winners = [index for _, index, won in tries if won]
        self.assertEqual(sorted(index % workers.GROUPS for index in winners),
                         list(range(workers.GROUPS)), "exactly one winner per group")
        leases = self.table.snapshot()
        self.assertEqual(sorted((lease.holder, lease.path) for lease in leases),
                         sorted((f"w{index}", path) for index in winners
                                for path in workers.wanted(index)), "no partial holds")
        self.assertEqual(sorted({lease.token for lease in leases}),
                         list(range(1, workers.GROUPS + 1)))
        for index in winners:
            self.assertEqual(len({lease.token for lease in leases
                                  if lease.holder == f"w{index}"}), 1, "one token per grant")
        open(self.fence, "w").close()
        resume.set()
        fenced = self._collect(results, "fenced")
        tokens = sorted(token for _, _, token, _ in fenced)
        self.assertEqual(tokens, list(range(workers.GROUPS + 1, workers.GROUPS + RACERS + 1)))
        self.assertEqual([index for _, index, _, fine in fenced if not fine], [],
                         "every holder alone, each token above the last one written")
        self._reap()
        self.assertEqual([process.exitcode for process in self.processes], [0] * RACERS)

    def _collect(self, results: Any, kind: str) -> list[Any]:
        got: list[Any] = []
        deadline = time.monotonic() + PATIENCE
        while len(got) < RACERS:
            try:
                item = results.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                self.fail(f"only {len(got)} of {RACERS} racers reported {kind!r}")
            self.assertNotEqual(item[0], "error", item)
            self.assertEqual(item[0], kind)
            got.append(item)
        return got

    def test_a_killed_holders_holds_go_at_once_and_its_lease_at_its_ttl(self) -> None:
        ready, results = _CONTEXT.Event(), _CONTEXT.Queue()
        victim = self.start(workers.hold_and_hang, 1.0, ready, results)
        self.assertTrue(ready.wait(PATIENCE))
        (token,) = results.get(timeout=PATIENCE)
        blocker = self.table.try_acquire("p", ["/h"], 60)
        assert blocker is not None
        self.assertEqual((blocker.holder, blocker.in_flight), ("victim", True))
        victim.kill()
        victim.join(PATIENCE)
        self.assertEqual(victim.exitcode, -9)
        self.assertEqual(self.table.holds(), [])
        self.assertIsNone(self.table.try_acquire("p", ["/h"], 60))
        deadline = time.monotonic() + PATIENCE
        while self.table.try_acquire("p", ["/k"], 60) is not None:
            self.assertLess(time.monotonic(), deadline, "the dead holder's lease never ran out")
            self.table.wait_for_change(0.1)
        (lease,) = [lease for lease in self.table.snapshot() if lease.path == "/k"]
        self.assertEqual(lease.holder, "p")
        self.assertGreater(lease.token, token)

    def test_a_release_in_another_process_wakes_a_waiter_promptly(self) -> None:
        ready, cue = _CONTEXT.Event(), _CONTEXT.Event()
        self.start(workers.release_on_cue, ready, cue)
        self.assertTrue(ready.wait(PATIENCE))
        self.assertIsNotNone(self.table.try_acquire("p", ["/w/x"], 60))
        began = time.monotonic()
        cue.set()
        self.table.wait_for_change(PATIENCE)
        waited = time.monotonic() - began
        self.assertIsNone(self.table.try_acquire("p", ["/w/x"], 60))
        self.assertLess(waited, 2.0, "woken by the poll, not by the timeout")
