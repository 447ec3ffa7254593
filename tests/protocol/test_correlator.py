"""mcp_client.correlator and mcp_client.exceptions."""

from __future__ import annotations

import pickle
import unittest

from mcp_client import exceptions as exc
from mcp_client.correlator import Correlator


class CorrelatorTest(unittest.TestCase):
    def setUp(self) -> None:
        self.warnings: list[str] = []
        self.table = Correlator(on_warn=self.warnings.append)

    def test_ids_are_fresh_and_answers_match(self) -> None:
        first, second = self.table.register("a"), self.table.register("b")
        self.assertNotEqual(first.ident, second.ident)
        self.assertTrue(self.table.resolve({"id": second.ident, "result": {"x": 2}}))
        self.assertTrue(self.table.resolve({"id": first.ident, "result": {"x": 1}}))
        self.assertTrue(first.wait(0) and second.wait(0))
        self.assertEqual(first.result(), {"id": first.ident, "result": {"x": 1}})
        self.assertEqual(second.result()["result"], {"x": 2})
        self.assertEqual(len(self.table), 0)

    def test_late_answer_is_dropped_and_reported(self) -> None:
        pending = self.table.register("tools/call")
        self.table.abandon(pending.ident)
        self.assertFalse(self.table.resolve({"id": pending.ident, "result": {}}))
        self.assertIn("late answer to abandoned request", self.warnings[0])
        self.assertFalse(pending.done())
        self.assertFalse(pending.wait(0.01))

    def test_unknown_and_duplicate_answers(self) -> None:
        pending = self.table.register("m")
        self.assertFalse(self.table.resolve({"id": 999, "result": {}}))
        self.assertTrue(self.table.resolve({"id": pending.ident, "result": {}}))
        self.assertFalse(self.table.resolve({"id": pending.ident, "result": {}}))
        self.assertEqual(len(self.warnings), 2)

    def test_fail_all(self) -> None:
        pendings = [self.table.register("m") for _ in range(3)]
        gone = exc.ServerGone(1, "bye")
        self.assertEqual(self.table.fail_all(gone), 3)
        for pending in pendings:
            self.assertTrue(pending.wait(0))
            with self.assertRaises(exc.ServerGone) as caught:
                pending.result()
            self.assertIs(caught.exception, gone)
        self.assertEqual(len(self.table), 0)

    def test_sole_pending(self) -> None:
        self.assertIsNone(self.table.sole_pending())
        only = self.table.register("m")
        self.assertIs(self.table.sole_pending(), only)
        self.table.register("n")
        self.assertIsNone(self.table.sole_pending())

    def test_a_standing_request_is_pending_but_not_waited_for(self) -> None:
        listen = self.table.register("subscriptions/listen", standing=True)
        call = self.table.register("tools/call")
        self.assertEqual((len(self.table), self.table.waiting()), (2, 1))
        self.assertTrue(self.table.resolve({"id": call.ident, "result": {}}))
        self.assertEqual((len(self.table), self.table.waiting()), (1, 0))
        self.assertTrue(self.table.resolve({"id": listen.ident, "result": {}}))
        self.assertEqual((len(self.table), self.table.waiting()), (0, 0))

    def test_a_standing_request_leaves_the_count_however_it_ends(self) -> None:
        for end in ("abandon", "fail", "deliver", "fail_all"):
            with self.subTest(end=end):
                listen = self.table.register("subscriptions/listen", standing=True)
                self.table.register("tools/call")
                if end == "abandon":
                    self.table.abandon(listen.ident)
                elif end == "fail":
                    self.table.fail(listen.ident, exc.Cancelled("gone"))
                elif end == "deliver":
                    self.table.deliver(listen, {"id": listen.ident, "result": {}})
                else:
                    self.table.fail_all(exc.Cancelled("gone"))
                left = 0 if end == "fail_all" else 1
                self.assertEqual((len(self.table), self.table.waiting()), (left, left))
                self.table.fail_all(exc.Cancelled("gone"))


class ExceptionsTest(unittest.TestCase):
    def test_hierarchy_attributes_and_text(self) -> None:
        timeout = exc.Timeout("tools/call", 2.5)
        self.assertIsInstance(timeout, TimeoutError)
        self.assertEqual((timeout.method, timeout.seconds), ("tools/call", 2.5))
        self.assertIn("tools/call timed out after 2.5s", str(timeout))
        gone = exc.ServerGone(3, "fatal: out of cheese")
        self.assertEqual((gone.exit_code, gone.stderr_tail), (3, "fatal: out of cheese"))
        self.assertIn("exit code 3", str(gone))
        self.assertIn("out of cheese", str(gone))
        error = exc.ProtocolError(-32602, "bad", {"uri": "x"})
        self.assertEqual((error.code, error.message, error.data), (-32602, "bad", {"uri": "x"}))
        self.assertIn("code -32602", str(error))
        version = exc.UnsupportedVersion(["2026-07-28"], ["2099-01-01"])
        self.assertEqual(version.offered, ("2026-07-28",))
        self.assertIn("2099-01-01", str(version))
        loop = exc.InputLoopExceeded("tools/call", 8)
        self.assertEqual((loop.method, loop.rounds), ("tools/call", 8))
        spawn = exc.SpawnFailed("nope", "No such file or directory")
        self.assertEqual((spawn.command, spawn.reason), ("nope", "No such file or directory"))
        self.assertEqual(exc.Cancelled("ping").method, "ping")
        for each in (timeout, gone, error, version, loop, spawn, exc.Cancelled("m"),
                     exc.TransportClosed()):
            self.assertIsInstance(each, exc.MCPClientError)
            copy = pickle.loads(pickle.dumps(each))
            self.assertEqual(str(copy), str(each))


if __name__ == "__main__":
    unittest.main()
