"""Durable tasks: ``call_tool_task(..., store=)`` records a task, ``resume_task`` picks it up
in another client -- another process, after the first one was killed -- against
``tests/servers/tasks_server.py`` over Streamable HTTP (a stdio server dies with
its client)."""

from __future__ import annotations

import hashlib
import json
import os
import selectors
import shlex
import subprocess
import tempfile
from typing import Any

from mcp_client import Client, ProtocolError
from mcp_client.client._tasks.durable import digest, server_identity
from mcp_client.exceptions import MCPClientError, StoreUnavailable, TaskNotResumable
from mcp_client.http import HTTPTransport
from mcp_client.stdio import StdioTransport
from mcp_client.store import MemoryStore, SQLiteStore, TaskRecord
from mcp_client.types import text_of

from ..base import PYTHON, ClientCase, server
from ..httpkit import LiveServer
from .test_tasks import DONE, TaskCase
from .test_tasks import task as legacy_task

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
#: seconds to wait for a child's task id, or a task's result
PATIENCE = 30.0

#: What the starting process runs: start a task with a store, say its id, then wait to die.
STARTER = """
import sys
from mcp_client import Client
from mcp_client.store import SQLiteStore
url, database, seconds = sys.argv[1:4]
client = Client.connect_http(url)
handle = client.call_tool_task("slow_compute", {"seconds": float(seconds)}, timeout=0,
                               store=SQLiteStore(database))
print(handle.task_id, flush=True)
sys.stdin.read()
"""


def canonical_digest(arguments: dict[str, Any]) -> str:
    text = json.dumps(arguments, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


class FailingStore(MemoryStore):
    """A store whose task records cannot be written."""

    def put_task(self, record: TaskRecord) -> None:
        raise StoreUnavailable(self.name, "down for the test")


class DurableCase(ClientCase):
    def setUp(self) -> None:
        super().setUp()
        self.live = LiveServer("--http", "0", script="tasks_server.py")
        self.addCleanup(self.live.stop)
        folder = tempfile.TemporaryDirectory(prefix="mcp-durable-")
        self.addCleanup(folder.cleanup)
        self.database = os.path.join(folder.name, "fleet.db")

    def sqlite(self) -> SQLiteStore:
        store = SQLiteStore(self.database)
        self.addCleanup(store.close)
        return store

    def memory(self) -> MemoryStore:
        store = MemoryStore()
        self.addCleanup(store.close)
        return store

    def http_client(self, **options: Any) -> Client:
        return self.connect(url=self.live.url, **options)

    def audit(self, client: Client) -> list[str]:
        """The methods the server saw after discovery (the audit call itself left out)."""
        seen = json.loads(text_of(client.call_tool("audit")))
        return [method for method, _ in seen[:-1]
                if method not in ("server/discover", "tools/list")]

    def start_elsewhere(self, seconds: float) -> str:
        """Start a task in a child process with the SQLite store, then SIGKILL the child."""
        env = dict(os.environ, PYTHONPATH=ROOT)
        child = subprocess.Popen([PYTHON, "-c", STARTER, self.live.url, self.database,
                                  str(seconds)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, env=env, cwd=ROOT)
        try:
            assert child.stdout is not None
            with selectors.DefaultSelector() as selector:
                selector.register(child.stdout, selectors.EVENT_READ)
                ready = selector.select(PATIENCE)
            task_id = child.stdout.readline().decode().strip() if ready else ""
        finally:
            child.kill()
            _, err = child.communicate(timeout=PATIENCE)
        self.assertTrue(task_id, f"the starter said nothing: {err.decode(errors='replace')}")
        self.assertEqual(child.returncode, -9)
        return task_id


class ResumeAfterAKillTest(DurableCase):
    def test_a_task_of_a_killed_process_is_resumed_from_the_sqlite_store(self) -> None:
        task_id = self.start_elsewhere(2.0)
        store = self.sqlite()
        before = store.get_task(task_id)
        assert before is not None
        self.assertEqual(before[:5], (task_id, self.live.url, "slow_compute",
                                      canonical_digest({"seconds": 2.0}), "working"))
        client = self.http_client()
        handle = client.resume_task(task_id, store=store, timeout=PATIENCE)
        self.assertEqual((handle.task_id, handle.tool), (task_id, "slow_compute"))
        self.assertEqual(text_of(handle.result(PATIENCE)), "computed after 2.0s")
        self.assertEqual(handle.status, "completed")
        after = store.get_task(task_id, self.live.url)
        assert after is not None
        self.assertEqual((after.status, after.created, after.tool),
                         ("completed", before.created, "slow_compute"))
        self.assertLess(before.updated, after.updated)

    def test_without_a_store_the_server_alone_knows_the_task(self) -> None:
        task_id = self.start_elsewhere(0.5)
        client = self.http_client()
        handle = client.resume_task(task_id)
        self.assertIsNone(handle.tool)
        self.assertEqual(text_of(handle.result(PATIENCE)), "computed after 0.5s")


class ResumeRefusedTest(DurableCase):
    def test_a_record_of_another_server_is_refused_before_anything_is_sent(self) -> None:
        store = self.memory()
        store.put_task(TaskRecord("t-1", "http://elsewhere/mcp", "slow_compute", "d" * 64,
                                  "working", 0.0, 0.0))
        client = self.http_client()
        with self.assertRaises(TaskNotResumable) as caught:
            client.resume_task("t-1", store=store)
        error = caught.exception
        self.assertEqual((error.task_id, error.reason, error.server, error.recorded),
                         ("t-1", "other_server", self.live.url, "http://elsewhere/mcp"))
        self.assertIn("http://elsewhere/mcp", str(error))
        self.assertNotIn("tasks/get", self.audit(client))

    def test_an_unknown_id_is_refused_by_the_store_or_by_the_server(self) -> None:
        client = self.http_client()
        with self.assertRaises(TaskNotResumable) as caught:
            client.resume_task("nope", store=self.sqlite())
        self.assertEqual((caught.exception.reason, caught.exception.recorded),
                         ("unknown", None))
        with self.assertRaises(ProtocolError) as refused:
            client.resume_task("nope")
        self.assertIn("Task not found", str(refused.exception))

    def test_a_store_that_cannot_record_the_task_cancels_it(self) -> None:
        store = FailingStore()
        self.addCleanup(store.close)
        client = self.http_client()
        with self.assertRaises(StoreUnavailable):
            client.call_tool_task("slow_compute", {"seconds": 60}, store=store)
        self.assertEqual(self.audit(client)[-2:], ["tools/call", "tasks/cancel"])


class MemoryStoreTest(DurableCase):
    def test_another_client_resumes_through_a_memory_store(self) -> None:
        store = self.memory()
        first = self.http_client()
        started = first.call_tool_task("slow_compute", {"seconds": 0.5}, timeout=0, store=store)
        self.assertEqual(started.tool, "slow_compute")
        first.close()   # its poller stops; the task is the server's to finish
        second = self.http_client()
        handle = second.resume_task(started.task_id, store=store)
        self.assertEqual(text_of(handle.result(PATIENCE)), "computed after 0.5s")
        records = store.tasks()
        self.assertEqual([(r.task_id, r.server, r.tool, r.status) for r in records],
                         [(started.task_id, self.live.url, "slow_compute", "completed")])


class StdioIdentityTest(ClientCase):
    def test_a_stdio_task_is_recorded_under_its_command_line(self) -> None:
        store = MemoryStore()
        self.addCleanup(store.close)
        client = self.connect(args=server("tasks_server.py"))
        handle = client.call_tool_task("slow_compute", {"seconds": 0.2}, store=store)
        command = "stdio:" + shlex.join([PYTHON, *server("tasks_server.py")])
        again = client.resume_task(handle.task_id, store=store)
        self.assertEqual(text_of(again.result(PATIENCE)), "computed after 0.2s")
        self.assertEqual(text_of(handle.result(PATIENCE)), "computed after 0.2s")
        record = store.get_task(handle.task_id, command)
        assert record is not None
        self.assertEqual((record.tool, record.status), ("slow_compute", "completed"))


class IdentityTest(ClientCase):
    def test_urls_lose_their_secrets_and_command_lines_are_quoted(self) -> None:
        http = HTTPTransport("https://ann:pw@tools.example/mcp?token=abc&x=1")
        self.assertEqual(server_identity(http), "https://***@tools.example/mcp?token=***&x=***")
        stdio = StdioTransport("python", args=["my server.py", "--port", "0"])
        self.assertEqual(server_identity(stdio), "stdio:python 'my server.py' --port 0")

    def test_a_transport_that_cannot_name_its_server_is_refused(self) -> None:
        store = MemoryStore()
        self.addCleanup(store.close)
        client = self.connect()   # a FakeTransport
        with self.assertRaises(MCPClientError) as caught:
            client.resume_task("t-1", store=store)
        self.assertIn("cannot name its server", str(caught.exception))

    def test_the_digest_is_of_the_canonical_json(self) -> None:
        self.assertEqual(digest({"b": [1, "é"], "a": None}),
                         hashlib.sha256('{"a":null,"b":[1,"é"]}'.encode()).hexdigest())
        self.assertEqual(digest(None), canonical_digest({}))


class LegacyResumeTest(TaskCase):
    """A 2025-11-25 server (the experimental core capability): resumed the same way."""

    def resumable(self, *gets: Any) -> tuple[Client, MemoryStore]:
        client = self.legacy(*gets)
        setattr(self.fake, "server_identity", "fake:legacy")
        store = MemoryStore()
        self.addCleanup(store.close)
        store.put_task(TaskRecord("t1", "fake:legacy", "long", digest({}), "working", 0.0, 0.0))
        return client, store

    def test_a_legacy_task_is_polled_to_its_result(self) -> None:
        client, store = self.resumable(legacy_task("working"), legacy_task("completed"))
        handle = client.resume_task("t1", store=store)
        self.assertEqual((handle.task_id, handle.tool), ("t1", "long"))
        self.assertEqual(handle.result(PATIENCE), DONE)
        self.assertEqual(self.methods(), ["tasks/get", "tasks/get", "tasks/result"])
        self.assertEqual(getattr(store.get_task("t1"), "status", None), "completed")

    def test_a_result_fetched_while_input_was_asked_for_records_completed(self) -> None:
        client, store = self.resumable(legacy_task("input_required"))
        seen: list[str] = []
        original = store.put_task

        def put_task(record: TaskRecord) -> None:
            seen.append(record.status)
            original(record)

        setattr(store, "put_task", put_task)
        handle = client.resume_task("t1", store=store)
        self.assertEqual(handle.result(PATIENCE), DONE)
        self.assertEqual(self.methods(), ["tasks/get", "tasks/result"])
        self.assertEqual(seen, ["input_required", "completed"])
