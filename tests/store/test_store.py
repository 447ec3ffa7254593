"""The fleet store in one process: opening it, each lease operation, fencing, failing closed."""

from __future__ import annotations

import os
import pickle
import socket
import sqlite3
import tempfile
import threading
import time
import unittest
import warnings
from typing import Any

from mcp_client.exceptions import InvalidArgument, MCPClientError
from mcp_client.leases import Conflict, Hold, Lease, LeaseTable
from mcp_client.store import (MemoryStore, SQLiteStore, Store, StoreError, StoreUnavailable,
                              open_store)

from ..base import LeakCheckingTestCase

#: seconds a test waits for what must happen promptly
PROMPT = 5.0


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class _Dir(unittest.TestCase):
    def setUp(self) -> None:
        super().setUp()
        folder = tempfile.TemporaryDirectory(prefix="mcp-store-")
        self.addCleanup(folder.cleanup)
        self.dir = folder.name

    def sqlite(self, name: str = "fleet.db", *, lock_timeout: float = 5.0) -> SQLiteStore:
        store = SQLiteStore(os.path.join(self.dir, name), lock_timeout=lock_timeout)
        self.addCleanup(store.close)
        return store


class OpenStoreTest(_Dir):
    def test_a_connection_string_is_not_taken_for_a_file_name(self) -> None:
        self.addCleanup(os.chdir, os.getcwd())
        os.chdir(self.dir)
        for text in ("host=db password=hunter2", "dbname=x user=y password=hunter2",
                     "postgres:someone:hunter2@db/x", "redis:hunter2@db"):
            with self.subTest(text=text):
                with self.assertRaises(InvalidArgument) as caught:
                    open_store(text)
                self.assertNotIn("hunter2", str(caught.exception))
        self.assertEqual(os.listdir(self.dir), [])
        with open_store("./a=b.db") as store:                     # an odd name, still a file
            self.assertIsInstance(store, SQLiteStore)

    def test_memory_url_opens_a_memory_store(self) -> None:
        with open_store("memory:") as store:
            self.assertIsInstance(store, MemoryStore)
            self.assertIsInstance(store, Store)

    def test_sqlite_url_and_plain_path_open_a_file(self) -> None:
        path = os.path.join(self.dir, "a.db")
        for url in (f"sqlite://{path}", path):
            with self.subTest(url=url), open_store(url) as store:
                self.assertIsInstance(store, SQLiteStore)
                assert isinstance(store, SQLiteStore)
                self.assertEqual(store.path, path)
                self.assertIn(path, repr(store))
        self.assertTrue(os.path.exists(path))

    def test_bad_urls_are_invalid_arguments(self) -> None:
        for url in ("", "ftp://x/y", "sqlite://relative.db", 42, None):
            with self.subTest(url=url), self.assertRaises(InvalidArgument):
                open_store(url)   # type: ignore[arg-type]

    def test_a_file_that_cannot_be_made_is_unavailable(self) -> None:
        with self.assertRaises(StoreUnavailable) as caught:
            open_store(os.path.join(self.dir, "no", "such", "dir", "x.db"))
        self.assertIn("x.db", str(caught.exception))

    def test_a_file_on_a_network_filesystem_is_refused(self) -> None:
        mounts = os.path.join(self.dir, "mounts")
        real = os.path.realpath(self.dir)
        with open(mounts, "w", encoding="utf-8") as table:
            table.write(f"/dev/sda1 / ext4 rw 0 0\nserver:/export {real} nfs4 rw 0 0\n")
        with self.assertRaises(StoreUnavailable) as caught:
            SQLiteStore(os.path.join(self.dir, "x.db"), mounts=mounts)
        self.assertIn("nfs4", str(caught.exception))
        self.assertFalse(os.path.exists(os.path.join(self.dir, "x.db")))
        with open(mounts, "w", encoding="utf-8") as table:
            table.write(f"/dev/sda1 / ext4 rw 0 0\nserver:/export {real}/other nfs4 rw 0 0\n")
        SQLiteStore(os.path.join(self.dir, "x.db"), mounts=mounts).close()

    def test_close_is_idempotent_and_a_closed_store_refuses(self) -> None:
        store = self.sqlite()
        store.close()
        store.close()
        with self.assertRaises(StoreError):
            store.acquire("w", "a", ["/p"], 10)
        self.assertIn("closed", repr(store))

    @unittest.skipUnless(hasattr(os, "fork"), "fork() only")
    def test_a_store_opened_before_fork_refuses_in_the_child(self) -> None:
        store = self.sqlite()
        reader, writer = os.pipe()
        with warnings.catch_warnings():   # 3.12+: fork() beside threads; the child uses none
            warnings.simplefilter("ignore", DeprecationWarning)
            pid = os.fork()
        if pid == 0:   # the child: report, and leave without running the parent's cleanups
            try:
                store.acquire("w", "child", ["/p"], 10)
                answer = b"granted"
            except StoreError as exc:
                answer = str(exc).encode()
            os.write(writer, answer)
            os._exit(0)
        os.close(writer)
        with os.fdopen(reader, "rb") as pipe:
            answer = pipe.read()
        os.waitpid(pid, 0)
        self.assertIn(b"open the store in each process", answer)
        self.assertEqual(store.leases("w"), [])

    def test_another_schema_version_is_refused(self) -> None:
        path = os.path.join(self.dir, "old.db")
        self.sqlite("old.db").close()
        with sqlite3.connect(path) as conn:
            conn.execute("UPDATE meta SET value = '99' WHERE key = 'schema'")
        conn.close()
        with self.assertRaises(StoreError) as caught:
            SQLiteStore(path)
        self.assertIn("99", str(caught.exception))

    def test_errors_pickle(self) -> None:
        error = StoreUnavailable("sqlite:///x.db", "locked")
        again = pickle.loads(pickle.dumps(error))
        self.assertEqual((type(again), again.store, again.reason, str(again)),
                         (StoreUnavailable, "sqlite:///x.db", "locked", str(error)))


class TableArgumentsTest(unittest.TestCase):
    def test_store_and_workspace_are_checked(self) -> None:
        with self.assertRaises(InvalidArgument):
            LeaseTable(store=object())   # type: ignore[arg-type]
        with MemoryStore() as store:
            for workspace in ("", None, 3):
                with self.subTest(workspace=workspace), self.assertRaises(InvalidArgument):
                    LeaseTable(store=store, workspace=workspace)   # type: ignore[arg-type]
            table = LeaseTable(store=store)
            with self.assertRaises(InvalidArgument):
                table.try_acquire("a", "/p", 10)
            with self.assertRaises(InvalidArgument):
                table.try_acquire("a", ["/p"], 0)
            with self.assertRaises(InvalidArgument):
                table.end_hold(Hold("a", ["/p"], 0.0))

    def test_a_lease_gets_a_token_field_last_defaulting_to_0(self) -> None:
        self.assertEqual(Lease("/p", "a", 0.0, 1.0).token, 0)
        self.assertEqual(Lease("/p", "a", 0.0, 1.0, False, 7).token, 7)


class _Operations:
    """Every lease operation through a table over a store; a subclass says which store."""

    assertEqual: Any
    assertIsNone: Any
    assertIsNotNone: Any
    assertIsInstance: Any
    assertTrue: Any
    assertFalse: Any
    assertGreater: Any
    assertLess: Any

    def store(self) -> Store:
        raise NotImplementedError

    def table(self, workspace: str = "default") -> LeaseTable:
        return LeaseTable(store=self.store(), workspace=workspace)

    def test_acquire_is_all_or_nothing(self) -> None:
        table = self.table()
        self.assertIsNone(table.try_acquire("a", ["/w/src"], 60))
        blocker = table.try_acquire("b", ["/w/docs", "/w/src/x.py"], 60)
        self.assertIsInstance(blocker, Lease)
        assert blocker is not None
        self.assertEqual((blocker.holder, blocker.path, blocker.in_flight), ("a", "/w/src", False))
        self.assertEqual([(lease.holder, lease.path) for lease in table.snapshot()],
                         [("a", "/w/src")])

    def test_case_differences_conflict(self) -> None:
        table = self.table()
        self.assertIsNone(table.try_acquire("a", ["/w/Src"], 60))
        self.assertIsNotNone(table.try_acquire("b", ["/w/src/x"], 60))

    def test_tokens_increase_per_grant_and_a_renew_keeps_its_token(self) -> None:
        table = self.table()
        self.assertIsNone(table.try_acquire("a", ["/w/1", "/w/2"], 60))
        self.assertIsNone(table.try_acquire("b", ["/w/3"], 60))
        tokens = {lease.path: lease.token for lease in table.snapshot()}
        self.assertEqual(tokens, {"/w/1": 1, "/w/2": 1, "/w/3": 2})
        before = {lease.path: lease for lease in table.snapshot()}
        self.assertIsNone(table.try_acquire("a", ["/w/1", "/w/4"], 120))
        after = {lease.path: lease for lease in table.snapshot()}
        self.assertEqual(after["/w/1"].token, 1)
        self.assertEqual(after["/w/1"].since, before["/w/1"].since)
        self.assertGreater(after["/w/1"].expires, before["/w/1"].expires)
        self.assertEqual(after["/w/4"].token, 3)
        table.release("a")
        self.assertIsNone(table.try_acquire("a", ["/w/1"], 60))
        self.assertEqual([lease.token for lease in table.snapshot() if lease.path == "/w/1"], [4])

    def test_tokens_are_per_workspace(self) -> None:
        one, two = self.table("one"), self.table("two")
        self.assertIsNone(one.try_acquire("a", ["/p"], 60))
        self.assertIsNone(two.try_acquire("b", ["/p"], 60))
        self.assertEqual([lease.token for lease in one.snapshot() + two.snapshot()], [1, 1])

    def test_release_frees_only_ones_own(self) -> None:
        table = self.table()
        self.assertIsNone(table.try_acquire("a", ["/w/1", "/w/2"], 60))
        self.assertIsNone(table.try_acquire("b", ["/w/3"], 60))
        self.assertEqual(table.release("b", ["/w/1"]), [])
        self.assertEqual(table.release("a", ["/w/1"]), ["/w/1"])
        self.assertEqual(sorted(table.release_holder("a")), ["/w/2"])
        self.assertEqual([lease.holder for lease in table.snapshot()], ["b"])
        table.release_all()
        self.assertEqual(table.snapshot(), [])

    def test_covers_and_blocking(self) -> None:
        table = self.table()
        self.assertIsNone(table.try_acquire("a", ["/w/src"], 60))
        self.assertTrue(table.covers("a", "/w/src/x.py"))
        self.assertFalse(table.covers("b", "/w/src/x.py"))
        self.assertIsNone(table.blocking("a", "/w/src/x.py"))
        blocker = table.blocking("b", None)
        assert blocker is not None
        self.assertEqual(blocker.holder, "a")

    def test_holds_are_seen_and_ended(self) -> None:
        table = self.table()
        held = table.hold("a", ["/w/x", None], strict=False)
        self.assertIsInstance(held, Hold)
        assert isinstance(held, Hold)
        self.assertEqual([(lease.path, lease.in_flight) for lease in table.holds()],
                         [("/w/x", True), ("*", True)])
        blocker = table.try_acquire("b", ["/elsewhere"], 60)
        assert blocker is not None
        self.assertEqual((blocker.holder, blocker.path, blocker.in_flight), ("a", "*", True))
        conflict = table.hold("b", ["/w/y"], strict=False)
        self.assertIsInstance(conflict, Conflict)
        table.end_hold(held)
        table.end_hold(held)
        self.assertEqual(table.holds(), [])
        self.assertIsNone(table.try_acquire("b", ["/elsewhere"], 60))

    def test_strict_hold_needs_ones_own_lease(self) -> None:
        table = self.table()
        self.assertEqual(table.hold("a", ["/w/x"], strict=True), Conflict(0, None))
        self.assertIsNone(table.try_acquire("a", ["/w"], 60))
        held = table.hold("a", ["/w/x"], strict=True)
        self.assertIsInstance(held, Hold)
        assert isinstance(held, Hold)
        table.end_hold(held)

    def test_threads_racing_on_one_store_make_one_winner(self) -> None:
        table = self.table()
        start = threading.Barrier(16)
        won: list[int] = []

        def claim(index: int) -> None:
            start.wait(PROMPT)
            if table.try_acquire(f"t{index}", ["/w/shared", f"/w/own{index}"], 60) is None:
                won.append(index)

        threads = [threading.Thread(target=claim, args=(index,), name=f"store-racer-{index}")
                   for index in range(16)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(PROMPT)
        self.assertEqual(len(won), 1)
        self.assertEqual(sorted(lease.path for lease in table.snapshot()),
                         ["/w/own%d" % won[0], "/w/shared"])

    def test_a_release_wakes_a_waiter_in_another_thread(self) -> None:
        table = self.table()
        self.assertIsNone(table.try_acquire("a", ["/w"], 60))
        self.assertIsNotNone(table.try_acquire("b", ["/w"], 60))
        woke = threading.Event()
        waiting = threading.Event()

        def wait() -> None:
            waiting.set()
            start = time.monotonic()
            table.wait_for_change(30.0)
            if time.monotonic() - start < 30.0:
                woke.set()

        thread = threading.Thread(target=wait, name="store-waiter")
        thread.start()
        self.assertTrue(waiting.wait(PROMPT))
        table.release("a")
        self.assertTrue(woke.wait(PROMPT))
        thread.join(PROMPT)


class MemoryStoreTest(_Operations, LeakCheckingTestCase):
    def store(self) -> Store:
        self.clock = Clock()
        store = MemoryStore(clock=self.clock)
        self.addCleanup(store.close)
        return store

    def test_expiry_follows_the_stores_clock(self) -> None:
        table = self.table()
        self.assertIsNone(table.try_acquire("a", ["/w"], 10))
        self.clock.now += 9.5
        self.assertIsNotNone(table.try_acquire("b", ["/w"], 10))
        self.assertEqual(table.held_for(table.snapshot()[0]), 9.5)
        self.clock.now += 0.5
        self.assertIsNone(table.try_acquire("b", ["/w"], 10))

    def test_a_holder_paused_past_its_ttl_is_fenced_out(self) -> None:
        table = self.table()
        self.assertIsNone(table.try_acquire("slow", ["/w/f"], 10))
        (old,) = table.snapshot()
        self.clock.now += 11   # "slow" pauses (GC, SIGSTOP) past its TTL
        self.assertIsNone(table.try_acquire("fast", ["/w/f"], 10))
        (new,) = table.snapshot()
        self.assertGreater(new.token, old.token)
        blocker = table.try_acquire("slow", ["/w/f"], 10)   # waking, it cannot renew
        assert blocker is not None
        self.assertEqual((blocker.holder, blocker.token), ("fast", new.token))


class SQLiteStoreTest(_Operations, _Dir, LeakCheckingTestCase):
    def store(self) -> Store:
        return self.sqlite()

    def test_two_connections_share_the_table(self) -> None:
        one, two = self.table(), self.table()
        self.assertIsNone(one.try_acquire("a", ["/w/src"], 60))
        self.assertEqual([lease.holder for lease in two.snapshot()], ["a"])
        held = two.hold("b", ["/w/docs"], strict=False)
        self.assertIsInstance(held, Hold)
        self.assertEqual([lease.holder for lease in one.holds()], ["b"])
        blocker = one.try_acquire("c", ["/w"], 60)
        assert blocker is not None
        self.assertEqual(blocker.holder, "a")
        self.assertIsNotNone(one.try_acquire("a", ["/w/docs/x"], 60))

    def test_closing_a_store_keeps_the_holds_of_calls_still_running(self) -> None:
        # A write in flight when its store is closed (a shutdown path) still holds its
        # places: another agent must not be granted them mid-write.
        first = self.sqlite()
        table = LeaseTable(store=first)
        self.assertIsInstance(table.hold("a", ["/w"], strict=False), Hold)
        other = self.table()
        first.close()
        self.assertEqual([(lease.holder, lease.in_flight) for lease in other.holds()],
                         [("a", True)])
        self.assertIsNotNone(other.try_acquire("b", ["/w/x"], 60))

    def test_release_all_gives_back_only_what_this_table_granted(self) -> None:
        mine, theirs = self.table(), self.table()       # two processes' tables, one file
        self.assertIsNone(mine.try_acquire("a", ["/w/a"], 60))
        self.assertIsNone(theirs.try_acquire("live", ["/w/live"], 60))
        mine.release_all()
        self.assertEqual([lease.holder for lease in theirs.snapshot()], ["live"])
        self.assertIsNotNone(mine.try_acquire("c", ["/w/live"], 60))

    def test_a_file_replaced_under_an_open_store_decides_nothing(self) -> None:
        table = self.table()
        self.assertIsNone(table.try_acquire("a", ["/w/x"], 60))
        path = os.path.join(self.dir, "fleet.db")
        for suffix in ("", "-wal", "-shm"):     # a cleanup job, or `mv new.db fleet.db`
            if os.path.exists(path + suffix):
                os.unlink(path + suffix)
        newcomer = self.table()                  # a fresh file: it knows no lease
        self.assertIsNone(newcomer.try_acquire("b", ["/w/x"], 60))
        with self.assertRaises(StoreUnavailable) as caught:
            table.try_acquire("a", ["/w/y"], 60)
        self.assertIn("removed or replaced", str(caught.exception))
        with self.assertRaises(StoreUnavailable):
            table.hold("a", ["/w/x"], strict=True)

    def test_a_malformed_row_fails_closed_as_a_store_error(self) -> None:
        table = self.table()
        raw = sqlite3.connect(os.path.join(self.dir, "fleet.db"), isolation_level=None)
        self.addCleanup(raw.close)
        raw.execute("INSERT INTO holds (workspace, holder, places, since, owner, host, boot, "
                    "pidns, pid, started) VALUES ('default', 'x', 'not json', 0, 'o', 'h', "
                    "NULL, NULL, 1, NULL)")
        with self.assertRaises(StoreError) as caught:
            table.try_acquire("a", ["/w"], 60)
        self.assertIn("malformed row", str(caught.exception))
        raw.execute("UPDATE holds SET places = '[\"/w/x\"]', host = ?, pid = ?",
                    (socket.gethostname(), 2 ** 40))     # not a pid: unsure, so alive
        blocker = table.try_acquire("a", ["/w/x"], 60)
        assert blocker is not None
        self.assertEqual(blocker.holder, "x")

    @unittest.skipUnless(os.path.exists("/proc/sys/kernel/random/boot_id"), "Linux only")
    def test_holds_of_another_boot_go_and_of_another_namespace_stay(self) -> None:
        table = self.table()
        raw = sqlite3.connect(os.path.join(self.dir, "fleet.db"), isolation_level=None)
        self.addCleanup(raw.close)
        host = socket.gethostname()
        for holder, boot, pidns in (("rebooted", "another-boot", None),
                                    ("contained", None, "pid:[1]")):
            raw.execute("INSERT INTO holds (workspace, holder, places, since, owner, host, "
                        "boot, pidns, pid, started) VALUES ('default', ?, '[\"/w/x\"]', 0, "
                        "'elsewhere', ?, ?, ?, 1, NULL)", (holder, host, boot, pidns))
        self.assertEqual([lease.holder for lease in table.holds()], ["contained"])

    def test_expiry_by_the_wall_clock(self) -> None:
        table = self.table()
        start = time.time()
        self.assertIsNone(table.try_acquire("a", ["/w"], 0.2))
        lease = table.snapshot()[0]
        self.assertLessEqual(start, lease.since)
        self.assertAlmostEqual(lease.expires - lease.since, 0.2)
        deadline = time.monotonic() + PROMPT
        while table.try_acquire("b", ["/w"], 60) is not None and time.monotonic() < deadline:
            table.wait_for_change(0.05)
        self.assertEqual([lease.holder for lease in table.snapshot()], ["b"])
        self.assertGreaterEqual(time.time() - start, 0.2)

    def test_a_locked_store_fails_closed_and_recovers(self) -> None:
        table = LeaseTable(store=self.sqlite(lock_timeout=0.2))
        path = os.path.join(self.dir, "fleet.db")
        blocker = sqlite3.connect(path, isolation_level=None)
        self.addCleanup(blocker.close)
        blocker.execute("BEGIN IMMEDIATE")
        with self.assertRaises(StoreUnavailable) as caught:
            table.try_acquire("a", ["/w"], 60)
        self.assertIsInstance(caught.exception, MCPClientError)
        self.assertIn(path, str(caught.exception))
        self.assertIn("locked", str(caught.exception))
        blocker.execute("ROLLBACK")
        self.assertEqual(table.snapshot(), [])
        self.assertIsNone(table.try_acquire("a", ["/w"], 60))
        self.assertIn("leases=1", repr(table))
