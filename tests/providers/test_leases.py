"""Leases: the lock table and the per-agent layer."""

from __future__ import annotations

import json
import threading
from typing import Any

from mcp_client.leases import LeaseTable, Leases
from mcp_client.types import ToolMessage

from ..base import LeakCheckingTestCase

ROOTS = {"fs": "/srv/work", "lock": "/srv/work"}


def call(ident: str, name: str, arguments: Any) -> dict[str, Any]:
    return {"id": ident, "type": "function", "function": {"name": name, "arguments": arguments}}


class Inner:
    """Records batches; every tool succeeds."""

    def __init__(self) -> None:
        self.batches: list[list[str]] = []
        self.lock = threading.Lock()

    def tools_for_llm(self) -> list[dict[str, Any]]:
        return [{"type": "function", "function": {"name": n, "parameters": {"type": "object"}}}
                for n in ("fs_write", "fs_read", "lock_acquire")]

    def execute_tool_calls(self, calls: list[Any]) -> list[dict[str, Any]]:
        with self.lock:
            self.batches.append([c["function"]["name"] for c in calls])
        return [{"role": "tool", "tool_call_id": c["id"], "content": "done", "is_error": False}
                for c in calls]


class Hooks:
    def __init__(self) -> None:
        self.begun = 0
        self.ended = 0
        self.waiting = threading.Event()

    def begin(self) -> None:
        self.begun += 1
        self.waiting.set()

    def end(self) -> None:
        self.ended += 1


def content(result: ToolMessage) -> Any:
    try:
        return json.loads(result["content"])
    except ValueError:
        return result["content"]


class LeaseTest(LeakCheckingTestCase):
    def agent(self, table: LeaseTable, name: str, **options: Any) -> Leases:
        return Leases(Inner(), table, name, roots=ROOTS, **options)

    def test_the_published_tools_come_first_and_shadow_the_inner_ones(self) -> None:
        names = [d["function"]["name"]
                 for d in self.agent(LeaseTable(), "a").tools_for_llm()]
        self.assertEqual(names, ["lock_acquire", "lock_release", "fs_write", "fs_read"])

    def test_two_agents_racing_for_one_file(self) -> None:
        table = LeaseTable()
        hooks = Hooks()
        first = self.agent(table, "agent-1")
        second = self.agent(table, "agent-2", on_wait_begin=hooks.begin,
                            on_wait_end=hooks.end)
        got = first.execute_tool_calls([call("1", "lock_acquire", {"paths": ["src/app.py"]})])
        self.assertEqual(content(got[0]), {"acquired": True, "paths": ["/srv/work/src/app.py"],
                                           "ttl": 300.0})
        answers: list[Any] = []
        racer = threading.Thread(target=lambda: answers.extend(second.execute_tool_calls(
            [call("2", "lock_acquire", {"paths": ["/srv/work/src/app.py"], "wait": 30})])))
        racer.start()
        self.assertTrue(hooks.waiting.wait(10))
        refused = second.execute_tool_calls([call("3", "fs_write", {"path": "src/app.py"})])
        self.assertTrue(refused[0]["is_error"])
        self.assertIn("leased by agent-1", refused[0]["content"])
        first.execute_tool_calls([call("4", "lock_release", {})])
        racer.join(10)
        self.assertTrue(content(answers[0])["acquired"])
        self.assertEqual((hooks.begun, hooks.ended), (1, 1))

    def test_a_refusal_is_a_value_naming_the_holder(self) -> None:
        table = LeaseTable()
        self.agent(table, "a").execute_tool_calls([call("1", "lock_acquire",
                                                        {"paths": ["/srv/work/src"]})])
        hooks = Hooks()
        result = self.agent(table, "b", on_wait_begin=hooks.begin).execute_tool_calls(
            [call("2", "lock_acquire", {"paths": ["src/deep/file.py", "docs"], "wait": 0})])
        self.assertFalse(result[0]["is_error"])
        refusal = content(result[0])
        self.assertEqual((refusal["acquired"], refusal["holder"], refusal["path"]),
                         (False, "a", "/srv/work/src"))
        self.assertIn("held_for_seconds", refusal)
        self.assertEqual(hooks.begun, 0)   # wait 0 never waits
        self.assertEqual([lease.path for lease in table.snapshot()], ["/srv/work/src"])

    def test_a_wedged_holders_lease_expires(self) -> None:
        table = LeaseTable()
        self.agent(table, "wedged").execute_tool_calls(
            [call("1", "lock_acquire", {"paths": ["a.txt"], "ttl": 0.5})])
        result = self.agent(table, "b").execute_tool_calls(
            [call("2", "lock_acquire", {"paths": ["a.txt"], "wait": 10})])
        self.assertTrue(content(result[0])["acquired"])

    def test_reacquiring_refreshes_the_ttl(self) -> None:
        now = [0.0]
        table = LeaseTable(clock=lambda: now[0])
        agent = self.agent(table, "a")
        agent.execute_tool_calls([call("1", "lock_acquire", {"paths": ["x"], "ttl": 10})])
        now[0] = 8.0
        agent.execute_tool_calls([call("2", "lock_acquire", {"paths": ["x"], "ttl": 10})])
        now[0] = 15.0
        lease = table.snapshot()[0]
        self.assertEqual((lease.holder, lease.expires, lease.since), ("a", 18.0, 0.0))

    def test_strict_mode_follows_concurrent(self) -> None:
        live = [1]
        table = LeaseTable()
        agent = self.agent(table, "a", concurrent=lambda: live[0])
        write = [call("1", "fs_write", {"path": "notes.md", "content": "x"})]
        self.assertFalse(agent.execute_tool_calls(write)[0]["is_error"])
        live[0] = 2
        refused = agent.execute_tool_calls(write)[0]
        self.assertTrue(refused["is_error"])
        self.assertIn("Call lock_acquire", refused["content"])
        agent.execute_tool_calls([call("2", "lock_acquire", {"paths": ["."]})])
        self.assertFalse(agent.execute_tool_calls(write)[0]["is_error"])   # the root covers it
        agent.execute_tool_calls([call("3", "lock_release", {})])
        self.assertTrue(agent.execute_tool_calls(write)[0]["is_error"])
        live[0] = 1
        self.assertFalse(agent.execute_tool_calls(write)[0]["is_error"])

    def test_concurrent_fails_closed(self) -> None:
        def broken() -> int:
            raise RuntimeError("engine down")

        for concurrent in (broken, lambda: "two", lambda: None, lambda: True, lambda: 1.5):
            with self.subTest(concurrent=concurrent):
                agent = self.agent(LeaseTable(), "a", concurrent=concurrent)
                result = agent.execute_tool_calls([call("1", "fs_write", {"path": "x"})])
                self.assertTrue(result[0]["is_error"])

    def test_unreadable_locations(self) -> None:
        table = LeaseTable()
        agent = self.agent(table, "a")
        self.assertFalse(agent.execute_tool_calls(
            [call("1", "fs_write", {"path": "../escape"})])[0]["is_error"])
        self.agent(table, "b").execute_tool_calls([call("2", "lock_acquire",
                                                        {"paths": ["elsewhere"]})])
        refused = agent.execute_tool_calls([call("3", "fs_write", {"path": "../escape"})])
        self.assertTrue(refused[0]["is_error"])   # cannot be shown not to collide
        bad = agent.execute_tool_calls([call("4", "lock_acquire", {"paths": ["../x"]})])
        self.assertTrue(bad[0]["is_error"])

    def test_cancelled_ends_a_wait_and_fails_open(self) -> None:
        table = LeaseTable()
        self.agent(table, "a").execute_tool_calls([call("1", "lock_acquire",
                                                        {"paths": ["x"]})])
        hooks = Hooks()
        agent = self.agent(table, "b", cancelled=lambda: True, on_wait_begin=hooks.begin,
                           on_wait_end=hooks.end)
        result = agent.execute_tool_calls([call("2", "lock_acquire", {"paths": ["x"],
                                                                      "wait": 60})])
        self.assertFalse(content(result[0])["acquired"])
        self.assertEqual((hooks.begun, hooks.ended), (1, 1))

        def raising() -> bool:
            raise RuntimeError("run lookup failed")

        table.release_holder("a")
        table.try_acquire("a", ["/srv/work/x"], 0.5)   # expires soon: the wait must go on
        agent = self.agent(table, "b", cancelled=raising)
        result = agent.execute_tool_calls([call("3", "lock_acquire", {"paths": ["x"],
                                                                      "wait": 10})])
        self.assertTrue(content(result[0])["acquired"])

    def test_wait_hooks_are_shielded(self) -> None:
        table = LeaseTable()
        table.try_acquire("a", ["/srv/work/x"], 0.3)

        def broken() -> None:
            raise RuntimeError("bookkeeping bug")

        agent = self.agent(table, "b", on_wait_begin=broken, on_wait_end=broken)
        result = agent.execute_tool_calls([call("1", "lock_acquire", {"paths": ["x"],
                                                                      "wait": 10})])
        self.assertTrue(content(result[0])["acquired"])

    def test_order_is_kept_around_lock_calls(self) -> None:
        table = LeaseTable()
        agent = self.agent(table, "a")
        results = agent.execute_tool_calls([
            call("1", "lock_acquire", {"paths": ["x"]}),
            call("2", "fs_write", {"path": "x"}),
            call("3", "fs_read", {"path": "x"}),
            call("4", "lock_release", {"paths": ["x"]}),
            call("5", "fs_read", {"path": "y"})])
        self.assertEqual([r["tool_call_id"] for r in results], ["1", "2", "3", "4", "5"])
        inner = agent.inner
        assert isinstance(inner, Inner)
        # a call that may change what it names (fs_read here has no readOnlyHint) goes
        # alone, judged when its turn comes
        self.assertEqual(inner.batches, [["fs_write"], ["fs_read"], ["fs_read"]])
        self.assertEqual(content(results[3]), {"released": ["/srv/work/x"]})

    def test_release_holder_and_release_all(self) -> None:
        table = LeaseTable()
        table.try_acquire("a", ["/p/1", "/p/2"], 100)
        table.try_acquire("b", ["/q"], 100)
        self.assertEqual(sorted(table.release_holder("a")), ["/p/1", "/p/2"])
        table.release_all()
        self.assertEqual(table.snapshot(), [])
        with self.assertRaises(ValueError):
            LeaseTable(default_ttl=0)

    def test_wait_is_capped_at_the_default_ttl(self) -> None:
        table = LeaseTable(default_ttl=0.5)
        table.try_acquire("a", ["/srv/work/x"], 100)
        agent = self.agent(table, "b")
        result = agent.execute_tool_calls([call("1", "lock_acquire", {"paths": ["x"],
                                                                      "wait": 3600})])
        self.assertFalse(content(result[0])["acquired"])
