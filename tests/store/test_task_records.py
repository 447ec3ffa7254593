"""Task records in a store (``put_task``, ``get_task``, ``tasks``), per engine.

:class:`TaskRecordContract` runs over any engine: a subclass sets ``open`` (a
method that returns a fresh, empty store and registers its cleanup).
"""

from __future__ import annotations

import os
import tempfile
import unittest
from typing import Any

from mcp_client.store import MemoryStore, SQLiteStore, Store, TaskRecord


def record(task_id: str = "t1", server: str = "http://h/mcp", status: str = "working", *,
           tool: str = "render", digest: str = "d" * 64) -> TaskRecord:
    return TaskRecord(task_id, server, tool, digest, status, 0.0, 0.0)


class TaskRecordContract:
    """The task record operations every engine provides."""

    def open(self) -> Store:
        raise NotImplementedError

    def setUp(self) -> None:
        super().setUp()   # type: ignore[misc]
        self.store = self.open()

    # unittest.TestCase supplies these to the concrete classes
    assertEqual: Any
    assertIsNone: Any
    assertLess: Any
    assertLessEqual: Any

    def get(self, task_id: str, server: str | None = None) -> TaskRecord:
        found = self.store.get_task(task_id, server)
        assert found is not None, (task_id, server)
        return found

    def test_a_record_is_kept_and_found(self) -> None:
        self.assertIsNone(self.store.get_task("t1"))
        self.store.put_task(record())
        found = self.get("t1")
        self.assertEqual(found[:5], ("t1", "http://h/mcp", "render", "d" * 64, "working"))
        self.assertLessEqual(found.created, found.updated)
        self.assertEqual(self.store.tasks(), [found])

    def test_an_update_changes_the_status_and_keeps_created(self) -> None:
        self.store.put_task(record())
        first = self.get("t1")
        self.store.put_task(record(status="completed", tool="other", digest="e" * 64))
        second = self.get("t1")
        self.assertEqual((second.status, second.tool, second.digest),
                         ("completed", "render", "d" * 64))
        self.assertEqual(second.created, first.created)
        self.assertLessEqual(first.updated, second.updated)
        self.assertEqual(len(self.store.tasks()), 1)

    def test_the_server_narrows_the_search(self) -> None:
        self.store.put_task(record(server="stdio:a"))
        self.store.put_task(record(server="stdio:b", status="failed"))
        self.assertEqual(self.get("t1", "stdio:a").status, "working")
        self.assertEqual(self.get("t1", "stdio:b").status, "failed")
        self.assertIsNone(self.store.get_task("t1", "stdio:c"))
        self.assertEqual(self.get("t1").server, "stdio:b")   # the newest
        self.assertEqual([(r.task_id, r.server) for r in self.store.tasks()],
                         [("t1", "stdio:a"), ("t1", "stdio:b")])

    def test_tasks_come_oldest_first(self) -> None:
        for task_id in ("c", "a", "b"):
            self.store.put_task(record(task_id))
        self.store.put_task(record("c", status="completed"))   # an update does not move it
        self.assertEqual([r.task_id for r in self.store.tasks()], ["c", "a", "b"])


class MemoryTaskRecordTest(TaskRecordContract, unittest.TestCase):
    def open(self) -> Store:
        store = MemoryStore()
        self.addCleanup(store.close)
        return store


class SQLiteTaskRecordTest(TaskRecordContract, unittest.TestCase):
    def open(self) -> Store:
        folder = tempfile.TemporaryDirectory(prefix="mcp-store-")
        self.addCleanup(folder.cleanup)
        self.path = os.path.join(folder.name, "fleet.db")
        store = SQLiteStore(self.path)
        self.addCleanup(store.close)
        return store

    def test_another_connection_to_the_file_sees_the_records(self) -> None:
        self.store.put_task(record())
        with SQLiteStore(self.path) as other:
            other.put_task(record(status="completed"))
            self.assertEqual(getattr(other.get_task("t1"), "status", None), "completed")
        self.assertEqual(self.get("t1").status, "completed")
