"""A second hostile pass over the in-flight holds of issue 26, item 6, on the table itself.

Every test here held on the code as reviewed; they are kept so that it keeps holding.
"""

from __future__ import annotations

import threading
import unittest

from mcp_client.leases import Conflict, Hold, LeaseTable


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class HoldReviewTest(unittest.TestCase):
    def setUp(self) -> None:
        self.clock = Clock()
        self.table = LeaseTable(60, clock=self.clock)

    def test_two_agents_racing_for_one_path_get_one_hold(self) -> None:
        results: list[object] = []
        start = threading.Barrier(8)

        def claim(agent: str) -> None:
            start.wait(10)
            results.append(self.table.hold(agent, ["/r/f"], strict=False))

        workers = [threading.Thread(target=claim, args=(f"a{n}",)) for n in range(8)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(10)
        self.assertEqual(sum(isinstance(r, Hold) for r in results), 1, results)

    def test_an_unreadable_place_holds_everything(self) -> None:
        held = self.table.hold("a", [None], strict=False)
        self.assertIsInstance(held, Hold)
        self.assertIsNotNone(self.table.try_acquire("b", ["/anything/at/all"], 10))
        self.assertIsInstance(self.table.hold("b", ["/x"], strict=False), Conflict)

    def test_release_holder_during_a_hold_keeps_the_hold(self) -> None:
        held = self.table.hold("a", ["/r/f"], strict=False)
        assert isinstance(held, Hold)
        self.table.release_holder("a")
        self.table.release_all()
        self.assertIsNotNone(self.table.try_acquire("b", ["/r"], 10))
        self.table.end_hold(held)
        self.assertIsNone(self.table.try_acquire("b", ["/r"], 10))

    def test_a_hold_over_a_child_blocks_a_lease_on_the_parent(self) -> None:
        self.table.hold("a", ["/r/d/f"], strict=False)
        self.assertIsNotNone(self.table.try_acquire("b", ["/r"], 10))
        self.assertIsNotNone(self.table.blocking("b", None))

    def test_strict_mode_refuses_once_the_own_lease_expired(self) -> None:
        self.assertIsNone(self.table.try_acquire("a", ["/r"], 5))
        self.assertIsInstance(self.table.hold("a", ["/r/f"], strict=True), Hold)
        self.clock.now += 6
        refused = self.table.hold("a", ["/r/g"], strict=True)
        self.assertIsInstance(refused, Conflict)
        assert isinstance(refused, Conflict)
        self.assertIsNone(refused.blocker)

    def test_an_own_hold_is_no_permission_in_strict_mode(self) -> None:
        self.table.hold("a", ["/r/f"], strict=False)
        self.assertIsInstance(self.table.hold("a", ["/r/f"], strict=True), Conflict)

    def test_end_hold_twice_is_harmless(self) -> None:
        first = self.table.hold("a", ["/r/f"], strict=False)
        second = self.table.hold("a", ["/r/f"], strict=False)
        assert isinstance(first, Hold) and isinstance(second, Hold)
        self.table.end_hold(first)
        self.table.end_hold(first)
        self.assertIsNotNone(self.table.try_acquire("b", ["/r/f"], 10))
