"""The PostgreSQL store: the lease suites and the process tests again, its own cases,
and a server that goes away mid-run and comes back.

Every test runs in a fresh schema of ``MCP_TEST_POSTGRES_URL`` (see
:mod:`tests.store.postgres`) and skips without it.
"""

from __future__ import annotations

import builtins
import os
import socket
import subprocess
import sys
import threading
import time
import unittest
from typing import Any
from unittest import mock

import psycopg

from mcp_client.exceptions import InvalidArgument, StoreError, StoreUnavailable, \
    UnsupportedStore
from mcp_client.leases import LeaseTable
from mcp_client.store import PostgresStore, Store, TaskRecord, open_store

from . import postgres, test_contract as contract, test_processes as processes
from . import test_task_records as task_records

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
#: A URL nothing listens at (port 1 of the loopback), with a password to hide.
ELSEWHERE = "postgresql://someone:s3cret-pw@127.0.0.1:1/db"


class _OnPostgres:
    """Every table of a lease suite on the default clock keeps its leases in PostgreSQL."""

    def disk_store(self, folder: str, index: int) -> Store:
        return open_store(postgres.fresh(self))   # type: ignore[arg-type]


class LeaseOnPostgresTest(_OnPostgres, contract.LeaseOnDiskTest):
    pass


class InFlightOnPostgresTest(_OnPostgres, contract.InFlightOnDiskTest):
    pass


class ThroughAClientOnPostgresTest(_OnPostgres, contract.ThroughAClientOnDiskTest):
    pass


class TaskRecordsOnPostgresTest(task_records.TaskRecordContract, unittest.TestCase):
    def open(self) -> Store:
        store = open_store(postgres.fresh(self))
        self.addCleanup(store.close)
        return store


class ProcessesOnPostgresTest(processes.ProcessesTest):
    def url(self) -> str:
        return postgres.fresh(self)


class WithoutAServerTest(unittest.TestCase):
    """What needs no server: the URL, the driver, a refused connection."""

    def test_a_bad_schema_name_and_a_missing_driver(self) -> None:
        with self.assertRaises(InvalidArgument):
            open_store(ELSEWHERE + "?schema=Robert'); DROP")
        real = builtins.__import__

        def without_psycopg(name: str, *args: Any, **kwargs: Any) -> Any:
            if name == "psycopg":
                raise ImportError("no psycopg")
            return real(name, *args, **kwargs)

        with mock.patch.object(builtins, "__import__", without_psycopg), \
                self.assertRaises(UnsupportedStore) as caught:
            open_store(ELSEWHERE)
        self.assertIn("[postgres]", str(caught.exception))

    def test_the_driver_is_imported_only_when_a_postgres_store_is_opened(self) -> None:
        code = ("import sys, mcp_client, mcp_client.store, mcp_client.policy\n"
                "print('psycopg' in sys.modules)")
        ran = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             check=True, env={**os.environ, "PYTHONPATH": ROOT})
        self.assertEqual(ran.stdout.strip(), "False")

    def test_arguments_are_checked(self) -> None:
        for url in ("sqlite:///x.db", 42):
            with self.subTest(url=url), self.assertRaises(InvalidArgument):
                PostgresStore(url)   # type: ignore[arg-type]
        for timeout in (0, -1, True, float("inf"), "5"):
            with self.subTest(timeout=timeout), self.assertRaises(InvalidArgument):
                PostgresStore(ELSEWHERE, lock_timeout=timeout)   # type: ignore[arg-type]

    def test_a_server_that_refuses_fails_closed_naming_the_store(self) -> None:
        with self.assertRaises(StoreUnavailable) as caught:
            open_store(ELSEWHERE)
        self.assertIn("127.0.0.1:1", str(caught.exception))
        self.assertNotIn("s3cret-pw", str(caught.exception))


class PostgresStoreTest(unittest.TestCase):
    def setUp(self) -> None:
        self.url = postgres.fresh(self)

    def open(self, url: str | None = None, **options: Any) -> PostgresStore:
        store = open_store(url or self.url, **options)
        self.addCleanup(store.close)
        assert isinstance(store, PostgresStore)
        return store

    def test_both_schemes_open_one_store_and_the_password_is_hidden(self) -> None:
        store = self.open()
        again = self.open("postgres" + self.url[len("postgresql"):])
        self.assertIsInstance(store, Store)
        self.assertIsNone(store.acquire("w", "a", ["/srv"], 60))
        self.assertEqual([lease.holder for lease in again.leases("w")], ["a"])
        password = psycopg.conninfo.conninfo_to_dict(postgres.server_url()).get("password")
        for shown in (repr(store), store.name):
            self.assertNotIn(str(password), shown)
        self.assertTrue(store.schema.startswith("mcp_test_"))

    def test_tokens_rise_per_workspace_and_renewal_keeps_them(self) -> None:
        store = self.open()
        now = store.now()
        self.assertAlmostEqual(now, time.time(), delta=5.0)   # the server's clock (same host)
        store.acquire("w", "a", ["/a"], 60)
        store.acquire("w", "b", ["/b"], 60)
        store.acquire("v", "a", ["/a"], 60)
        store.acquire("w", "a", ["/a"], 120)
        tokens = {(lease.holder, lease.path): lease.token for lease in store.leases("w")}
        self.assertEqual(tokens, {("a", "/a"): 1, ("b", "/b"): 2})
        self.assertEqual([lease.token for lease in store.leases("v")], [1])
        (renewed,) = [lease for lease in store.leases("w") if lease.holder == "a"]
        self.assertGreater(renewed.expires, now + 100)

    def test_leases_run_on_the_servers_clock_not_the_clients(self) -> None:
        store = self.open()
        with mock.patch("time.time", return_value=0.0), \
                mock.patch("time.monotonic", return_value=0.0):   # a client clock gone wrong
            self.assertIsNone(store.acquire("w", "a", ["/a"], 0.3))
            (lease,) = store.leases("w")
        with psycopg.connect(postgres.server_url()) as conn:
            row = conn.execute("SELECT extract(epoch FROM clock_timestamp())").fetchone()
        assert row is not None
        self.assertAlmostEqual(lease.since, float(row[0]), delta=5.0)
        self.assertAlmostEqual(lease.expires - lease.since, 0.3, places=6)

    def test_a_newer_schema_is_refused(self) -> None:
        self.open()
        schema = self.url.rpartition("schema=")[2]
        with psycopg.connect(postgres.server_url(), autocommit=True) as conn:
            conn.execute(f'UPDATE "{schema}".meta SET value = \'2\'')
        with self.assertRaises(StoreError) as caught:
            open_store(self.url)
        self.assertIn("schema version 2", str(caught.exception))

    def test_task_records(self) -> None:
        store = self.open()
        first = TaskRecord("t1", "srv-a", "slow", "d1", "working", 10.0, 10.0)
        store.put_task(first)
        store.put_task(TaskRecord("t1", "srv-b", "slow", "d2", "working", 20.0, 20.0))
        store.put_task(first._replace(status="completed", created=99.0, updated=30.0))
        self.assertEqual(store.get_task("t1", "srv-a"),
                         first._replace(status="completed", updated=30.0))
        self.assertEqual(self.open().get_task("t1").server, "srv-b")   # type: ignore[union-attr]
        self.assertIsNone(store.get_task("t2"))
        self.assertEqual([(task.server, task.status) for task in store.tasks()],
                         [("srv-a", "completed"), ("srv-b", "working")])

    def test_a_closed_store_refuses(self) -> None:
        store = self.open()
        book = store.book("b")
        store.close()
        store.close()
        with self.assertRaises(StoreError):
            store.leases("w")
        with self.assertRaises(StoreError):
            store.book("b")
        with self.assertRaises(StoreUnavailable):
            book.rules()
        with self.assertRaises(InvalidArgument):
            self.open().book("")


class Proxy:
    """A TCP relay in front of the server that can go down (cutting every connection and
    refusing new ones: what the clients of a stopped server see) and come back."""

    def __init__(self, host: str, port: int) -> None:
        self.target = (host, port)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.up = True
        self.lock = threading.Lock()
        self.sockets: list[socket.socket] = []
        self.threads = [threading.Thread(target=self._accept, name="pg-proxy", daemon=True)]
        self.threads[0].start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            with self.lock:
                if not self.up:
                    client.close()
                    continue
                server = socket.create_connection(self.target)
                self.sockets += [client, server]
                for source, sink in ((client, server), (server, client)):
                    pump = threading.Thread(target=self._pump, args=(source, sink),
                                            name="pg-proxy-pump", daemon=True)
                    self.threads.append(pump)
                    pump.start()

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        for end in (source, sink):
            try:
                end.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def down(self) -> None:
        with self.lock:
            self.up = False
            for end in self.sockets:
                try:
                    end.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                end.close()
            self.sockets = []

    def restart(self) -> None:
        with self.lock:
            self.up = True

    def close(self) -> None:
        self.down()
        try:
            self.listener.shutdown(socket.SHUT_RDWR)   # wakes the accepting thread (Linux)
        except OSError:
            pass
        self.listener.close()
        for thread in self.threads:
            thread.join(5)


class OutageTest(unittest.TestCase):
    def test_the_server_going_away_fails_closed_and_its_return_needs_no_reopen(self) -> None:
        url = postgres.fresh(self)
        info = psycopg.conninfo.conninfo_to_dict(url.partition("?")[0])
        port = str(info.get("port") or 5432)
        proxy = Proxy(str(info.get("host") or "127.0.0.1"), int(port))
        self.addCleanup(proxy.close)
        through = url.replace(f":{port}/", f":{proxy.port}/", 1)
        store = open_store(through, lock_timeout=2)
        self.addCleanup(store.close)
        table = LeaseTable(store=store, workspace="w")
        book = store.book()
        self.assertIsNone(table.try_acquire("a", ["/srv/one"], 60))
        book.add([{"tool": "fs_write", "decision": "allow"}])
        proxy.down()
        for operation in (lambda: store.acquire("w", "b", ["/srv/two"], 60),
                          lambda: store.leases("w"), lambda: book.rules(),
                          lambda: book.add([{"tool": "x", "decision": "allow"}]),
                          lambda: store.wait("w", 0.1)):
            with self.subTest(operation), self.assertRaises(StoreUnavailable) as caught:
                operation()
            self.assertIn(f"127.0.0.1:{proxy.port}", str(caught.exception))
            self.assertNotIn(str(info.get("password")), str(caught.exception))
        proxy.restart()
        self.assertEqual([(lease.holder, lease.path) for lease in table.snapshot()],
                         [("a", "/srv/one")])                 # nothing lost
        self.assertIsNone(table.try_acquire("b", ["/srv/two"], 60))
        self.assertEqual(book.rules(), [{"tool": "fs_write", "decision": "allow"}])


if __name__ == "__main__":
    unittest.main()
