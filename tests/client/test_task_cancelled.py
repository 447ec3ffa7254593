"""A cancelled :class:`TaskHandle` says so: its status, and the library's ``Cancelled``."""

from __future__ import annotations

import concurrent.futures

from mcp_client import Cancelled

from .test_tasks import TaskCase, task


class CancelledHandleTest(TaskCase):
    def cancelled_handle(self) -> object:
        client = self.legacy(task("working"))
        handle = client.call_tool_task("long", timeout=0)
        self.fake.wait_for("tasks/get", 1)
        self.assertTrue(handle.cancel())
        self.fake.wait_for("tasks/cancel", 1)
        return handle

    def test_status_is_cancelled(self) -> None:
        handle = self.cancelled_handle()
        self.assertEqual(getattr(handle, "status"), "cancelled")
        self.assertIn("cancelled", repr(handle))

    def test_result_raises_the_librarys_cancelled(self) -> None:
        handle = self.cancelled_handle()
        with self.assertRaises(Cancelled) as caught:
            getattr(handle, "result")(1)
        self.assertEqual(caught.exception.method, "tools/call")
        # still what concurrent.futures code expects of a cancelled future
        self.assertIsInstance(caught.exception, concurrent.futures.CancelledError)

    def test_exception_raises_the_librarys_cancelled(self) -> None:
        handle = self.cancelled_handle()
        with self.assertRaises(Cancelled):
            getattr(handle, "exception")(1)
