"""The Redis store (``redis://``): the lease suites, the process tests and the grant-book
tests run again over a real server, plus what is Redis's own: the Lua port of the
path rule (checked against Python's over many generated pairs), the key prefix,
the task records, and a server stopped mid-run and started again.

The server is ``MCP_TEST_REDIS_URL`` (see :mod:`tests.store.redis_env`).
"""

from __future__ import annotations

import itertools
import json
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import unittest
from typing import Any
from unittest import mock

from mcp_client import paths
from mcp_client.exceptions import InvalidArgument, StoreError, StoreUnavailable
from mcp_client.leases import LeaseTable
from mcp_client.policy import GrantBook, GrantBookError
from mcp_client.store import RedisStore, Store, TaskRecord, open_store
from mcp_client.store._redis import fold, scripts

from ..policy import test_grants_shared as shared
from ..providers import test_leases, test_leases_inflight
from . import test_contract, test_processes, test_task_records
from .redis_env import scratch_url, unavailable, with_prefix

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


# -- the suites of the other engines, over Redis -------------------------------------------


class _OverRedis(test_contract._OverAStore):
    """Every table on the default clock keeps its leases in Redis, under its own prefix."""

    def setUp(self) -> None:
        self.url = scratch_url(self)   # type: ignore[arg-type]
        super().setUp()

    on_disk = True

    def disk_store(self, folder: str, index: int) -> Store:
        return RedisStore(f"{self.url}-{index}")


class RedisLeaseTest(_OverRedis, test_leases.LeaseTest):
    modules = (test_leases,)


class RedisInFlightTest(_OverRedis, test_leases_inflight.InFlightTest):
    modules = (test_leases_inflight,)


class RedisThroughAClientTest(_OverRedis, test_leases_inflight.ThroughAClientTest):
    modules = (test_leases_inflight,)


class RedisTaskRecordsTest(test_task_records.TaskRecordContract, unittest.TestCase):
    def open(self) -> Store:
        store = open_store(scratch_url(self))
        self.addCleanup(store.close)
        return store


class RedisProcessesTest(test_processes.ProcessesTest):
    def url(self) -> str:
        return scratch_url(self)


class RedisBookTest(shared.BookContract):
    __test__ = True

    def book(self) -> GrantBook:
        store = open_store(scratch_url(self))
        self.addCleanup(store.close)
        return store.book("default")


class RedisGrantsProcessesTest(shared.ProcessesTest):
    def setUp(self) -> None:
        super().setUp()
        self.path = scratch_url(self)

    def shared(self) -> Any:
        store = open_store(self.path)
        self.addCleanup(store.close)
        return store


# -- the path rule in Lua ------------------------------------------------------------------

#: segments the generated paths are made of: case variants, folds that change
#: length (ß/SS) or need Unicode (the Kelvin sign, É), and globs of every kind
SEGMENTS = ("a", "A", "b", "ab", "AB", "aB", "ß", "SS", "ss", "\u212a", "k", "É", "é",
            "*", "a*", "?b", "A?", "**", "x**", "{a,b}", "[ab]", "[!a]b", "*ß*", "?",
            "s?", "*s", "??")


def _paths(rng: random.Random, count: int) -> list[str]:
    return ["/" + "/".join(rng.choice(SEGMENTS) for _ in range(rng.randint(1, 4)))
            for _ in range(count)]


class PathRuleTest(unittest.TestCase):
    """``contains`` of ``redis.lua`` against :func:`mcp_client.paths.contains`."""

    def setUp(self) -> None:
        self.store = RedisStore(scratch_url(self))
        self.addCleanup(self.store.close)

    def lua(self, pairs: list[tuple[str, str]]) -> list[paths.Tri]:
        prelude = scripts()["acquire"].split("\n-- @op")[0].split("\n-- acquire")[0]
        body = prelude + """
local out = {}
for i, p in ipairs(cjson.decode(ARGV[1])) do out[i] = contains(p[1], p[2], p[3], p[4]) end
return cjson.encode(out)"""
        client = self.store._client
        found = json.loads(client.eval(body, 0, json.dumps(
            [[a, fold(a), b, fold(b)] for a, b in pairs])))
        return [paths.Tri(value) for value in found]

    def test_the_lua_rule_is_pythons_and_fails_closed_on_brackets(self) -> None:
        rng = random.Random(29)
        pairs = list(zip(_paths(rng, 6000), _paths(rng, 6000)))
        pairs += [(a, b) for a, b in itertools.product(["/a", "/A", "/a/b", "/ß", "/SS/x"],
                                                       repeat=2)]
        answers = self.lua(pairs)
        compared = 0
        for (a, b), lua in zip(pairs, answers):
            python = paths.contains(a, b)
            if "[" in a or "[" in b:
                self.assertTrue(python is paths.Tri.NO or lua is not paths.Tri.NO, (a, b))
                self.assertTrue(lua is not paths.Tri.YES or python is paths.Tri.YES, (a, b))
            else:
                self.assertIs(lua, python, (a, b))
                compared += 1
        self.assertGreater(compared, 4000)
        self.assertEqual({tri for tri in answers}, set(paths.Tri))

    def test_paths_that_differ_only_in_case_conflict(self) -> None:
        self.assertIsNone(self.store.acquire("w", "a", ["/srv/Straße"], 60))
        blocker = self.store.acquire("w", "b", ["/SRV/STRASSE/x"], 60)
        assert blocker is not None
        self.assertEqual((blocker.holder, blocker.path), ("a", "/srv/Straße"))
        self.assertIsNone(self.store.acquire("w", "b", ["/srv/Strasse2"], 60))


# -- Redis's own ----------------------------------------------------------------------------


class RedisStoreTest(unittest.TestCase):
    def setUp(self) -> None:
        self.url = scratch_url(self)

    def open(self, url: str | None = None) -> Store:
        store = open_store(url or self.url)
        self.addCleanup(store.close)
        return store

    def test_a_url_opens_a_redis_store_and_prefixes_keep_stores_apart(self) -> None:
        one, two = self.open(), self.open(f"{self.url}-other")
        self.assertIsInstance(one, RedisStore)
        self.assertIsNone(one.acquire("w", "a", ["/x"], 60))
        self.assertEqual([lease.holder for lease in self.open().leases("w")], ["a"])
        self.assertEqual(two.leases("w"), [])
        self.assertIsNone(two.acquire("w", "b", ["/x"], 60))

    def test_expiry_follows_the_servers_clock(self) -> None:
        store = self.open()
        began = store.now()
        self.assertIsNone(store.acquire("w", "a", ["/x"], 60))
        (lease,) = store.leases("w")
        self.assertGreaterEqual(lease.since, began)
        self.assertAlmostEqual(lease.expires - lease.since, 60.0, places=3)
        self.assertLess(abs(store.now() - time.time()), 5.0)

    def test_a_wrong_client_clock_neither_extends_nor_shortens_a_lease(self) -> None:
        store = self.open()
        with mock.patch("time.time", return_value=0.0), \
                mock.patch("time.monotonic", return_value=0.0):
            self.assertIsNone(store.acquire("w", "a", ["/x"], 60))
        (lease,) = store.leases("w")
        self.assertAlmostEqual(lease.since, store.now(), delta=5.0)

    def test_urls_name_the_prefix_and_hide_the_password(self) -> None:
        for url in ("redis://:hunter2@cache.example:6379/0",
                    "rediss://user:hunter2@cache.example:6380/1?prefix=team"):
            with self.subTest(url=url):
                store = open_store(url, lock_timeout=0.5)
                self.addCleanup(store.close)
                assert isinstance(store, RedisStore)
                self.assertNotIn("hunter2", store.name + repr(store))
                self.assertIn("cache.example", store.name)
                self.assertIn(store.prefix, store.name)
        self.assertEqual(RedisStore("redis://h/0?prefix=team").prefix, "team")
        with self.assertRaises(InvalidArgument):
            open_store("redis://h/0?prefix=")

    def test_task_records(self) -> None:
        store = self.open()
        assert isinstance(store, RedisStore)
        first = TaskRecord("t1", "srv", "tool", "d" * 64, "working", 0.0, 0.0)
        store.put_task(first)
        store.put_task(first._replace(server="other"))
        store.put_task(first._replace(status="completed"))
        tasks = store.tasks()
        self.assertEqual([(t.server, t.status) for t in tasks],
                         [("srv", "completed"), ("other", "working")])
        self.assertGreaterEqual(tasks[0].updated, tasks[0].created)
        got = store.get_task("t1", "srv")
        assert got is not None
        self.assertEqual(got.status, "completed")
        self.assertEqual(store.get_task("t1"), tasks[1])
        self.assertIsNone(store.get_task("nope"))

    def test_text_redis_cannot_carry_is_refused_not_sent(self) -> None:
        store = self.open()
        with self.assertRaises(StoreError) as caught:
            store.acquire("w", "bad\ud800", ["/x"], 60)
        self.assertNotIsInstance(caught.exception, StoreUnavailable)
        self.assertEqual(store.leases("w"), [])

    def test_a_closed_store_refuses(self) -> None:
        store = self.open()
        store.close()
        store.close()
        with self.assertRaises(StoreError):
            store.leases("w")
        with self.assertRaises(StoreError):
            store.book("default")

    def test_redis_is_imported_only_when_a_redis_store_opens(self) -> None:
        code = ("import sys, mcp_client, mcp_client.store; "
                "print(any(m.split('.')[0] == 'redis' for m in sys.modules))")
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             env={**os.environ, "PYTHONPATH": ROOT}, check=True, timeout=60)
        self.assertEqual(out.stdout.strip(), "False")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class OutageTest(unittest.TestCase):
    """A private server (with a password) stopped mid-run and started again."""

    PASSWORD = "s3cret-pw"

    def setUp(self) -> None:
        if shutil.which("redis-server") is None:
            unavailable(self, "no redis-server on PATH to stop and restart")
        folder = tempfile.TemporaryDirectory(prefix="mcp-redis-")
        self.addCleanup(folder.cleanup)
        self.folder, self.port = folder.name, _free_port()
        self.server: subprocess.Popen[bytes] | None = None
        self.addCleanup(self.stop)
        self.start()

    def start(self) -> None:
        self.server = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--requirepass",
             self.PASSWORD, "--save", "", "--appendonly", "yes", "--appendfsync", "always",
             "--dir", self.folder], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        import redis
        client = redis.Redis(port=self.port, password=self.PASSWORD)
        deadline = time.monotonic() + 20
        while True:
            try:
                client.ping()
                break
            except redis.ConnectionError:
                if time.monotonic() > deadline or self.server.poll() is not None:
                    raise
                try:   # no readiness signal but answering: pace on the server's exit
                    self.server.wait(0.02)
                except subprocess.TimeoutExpired:
                    pass
            finally:
                client.close()

    def stop(self) -> None:
        if self.server is not None:
            self.server.terminate()
            self.server.wait(20)
            self.server = None

    def test_a_stopped_server_fails_closed_and_is_used_again_when_back(self) -> None:
        url = with_prefix(f"redis://:{self.PASSWORD}@127.0.0.1:{self.port}/0", "outage")
        store = open_store(url, lock_timeout=1.0)
        self.addCleanup(store.close)
        table, book = LeaseTable(store=store, workspace="w"), store.book("default")
        self.assertIsNone(table.try_acquire("a", ["/kept"], 600))
        book.add([{"tool": "x", "decision": "allow"}], agent="a")
        self.stop()
        with self.assertRaises(StoreUnavailable) as caught:
            table.try_acquire("b", ["/new"], 60)
        self.assertNotIn(self.PASSWORD, str(caught.exception))
        self.assertIn(f"127.0.0.1:{self.port}", str(caught.exception))
        with self.assertRaises(GrantBookError) as refused:
            book.rules()
        self.assertNotIn(self.PASSWORD, str(refused.exception))
        with self.assertRaises(StoreUnavailable):
            table.wait_for_change(0.05)
        self.start()
        self.assertEqual([(lease.holder, lease.path) for lease in table.snapshot()],
                         [("a", "/kept")], "nothing written before the outage is lost")
        self.assertIsNone(table.try_acquire("b", ["/new"], 60))
        self.assertEqual(book.rules(), [{"tool": "x", "decision": "allow"}])


if __name__ == "__main__":   # pragma: no cover
    unittest.main()
