"""Fencing tokens: the table's, the lease layer's ``_meta``, and the files server's check."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import os
import shutil
import sqlite3
import tempfile
import threading
from pathlib import Path
from typing import Any

from mcp_client import Client
from mcp_client.leases import LEASE_META, Lease, Leases, LeaseTable
from mcp_client.provider import call_meta
from mcp_client.reasons import REASON_PARAM, Reasons
from mcp_client.registry import Registry
from mcp_client.store import SQLiteStore
from mcp_client.testing import InProcessTransport

from ..base import PYTHON, LeakCheckingTestCase, fake_server

FILES = Path(__file__).resolve().parents[2] / "examples" / "servers" / "files_server.py"


class Clock:
    """A monotonic clock a test moves by hand (a holder "pauses" while it moves)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def call(ident: str, name: str, arguments: Any, meta: dict[str, Any] | None = None,
         ) -> dict[str, Any]:
    made: dict[str, Any] = {"id": ident, "type": "function",
                            "function": {"name": name, "arguments": arguments}}
    if meta is not None:
        made["_meta"] = meta
    return made


def token_of(table: LeaseTable, holder: str, path: str) -> int:
    found = [lease.token for lease in table.snapshot()
             if lease.holder == holder and lease.path == path]
    assert len(found) == 1, (holder, path, table.snapshot())
    return found[0]


class Recorder:
    """A provider that records the calls that reach it; every tool is ``fs_*``."""

    def __init__(self) -> None:
        self.received: list[Any] = []

    def tools_for_llm(self) -> list[dict[str, Any]]:
        return [{"type": "function", "function": {"name": name, "description": name,
                                                  "parameters": {"type": "object"}}}
                for name in ("fs_write", "fs_read")]

    def tool_annotations(self, name: str) -> dict[str, Any] | None:
        return {"readOnlyHint": True} if name == "fs_read" else None

    def execute_tool_calls(self, calls: list[Any]) -> list[dict[str, Any]]:
        self.received.extend(calls)
        return [{"role": "tool", "tool_call_id": c["id"], "content": "ok", "is_error": False}
                for c in calls]


class TableTokenTest(LeakCheckingTestCase):
    def test_token_is_the_last_field_and_defaults_to_zero(self) -> None:
        self.assertEqual(dataclasses.fields(Lease)[-1].name, "token")
        self.assertEqual(Lease("/w/a", "h", 0.0, 1.0).token, 0)

    def test_every_grant_gets_a_higher_token(self) -> None:
        table = LeaseTable()
        self.assertIsNone(table.try_acquire("a", ["/w/a"], 10))
        self.assertIsNone(table.try_acquire("b", ["/w/b"], 10))
        self.assertIsNone(table.try_acquire("c", ["/w/c", "/w/d"], 10))
        first, second = token_of(table, "a", "/w/a"), token_of(table, "b", "/w/b")
        third = token_of(table, "c", "/w/c")
        self.assertIsInstance(first, int)
        self.assertGreater(first, 0)
        self.assertLess(first, second)
        self.assertLess(second, third)
        self.assertEqual(token_of(table, "c", "/w/d"), third)   # one grant, one token

    def test_a_renew_keeps_the_token_and_a_new_path_beside_it_gets_a_new_one(self) -> None:
        table = LeaseTable()
        table.try_acquire("a", ["/w/a"], 10)
        first = token_of(table, "a", "/w/a")
        table.try_acquire("b", ["/w/b"], 10)
        self.assertIsNone(table.try_acquire("a", ["/w/a"], 20))
        self.assertEqual(token_of(table, "a", "/w/a"), first)
        self.assertIsNone(table.try_acquire("a", ["/w/a", "/w/c"], 20))
        self.assertEqual(token_of(table, "a", "/w/a"), first)
        self.assertGreater(token_of(table, "a", "/w/c"), token_of(table, "b", "/w/b"))

    def test_a_path_granted_again_after_expiry_or_release_gets_a_higher_token(self) -> None:
        clock = Clock()
        table = LeaseTable(clock=clock)
        table.try_acquire("a", ["/w/a"], 10)
        first = token_of(table, "a", "/w/a")
        clock.now += 11                                     # a's lease ran out
        self.assertIsNone(table.try_acquire("b", ["/w/a"], 10))
        second = token_of(table, "b", "/w/a")
        self.assertGreater(second, first)
        table.release("b")
        self.assertIsNone(table.try_acquire("b", ["/w/a"], 10))
        self.assertGreater(token_of(table, "b", "/w/a"), second)
        clock.now += 11                                     # the holder's own, expired
        self.assertIsNone(table.try_acquire("b", ["/w/a"], 10))
        self.assertGreater(token_of(table, "b", "/w/a"), second + 1)

    def test_holds_carry_no_token(self) -> None:
        table = LeaseTable()
        held = table.hold("a", ["/w/a"], strict=False)
        self.addCleanup(table.end_hold, held)   # type: ignore[arg-type]
        self.assertEqual([lease.token for lease in table.holds()], [0])

    def test_concurrent_grants_get_distinct_increasing_tokens(self) -> None:
        table = LeaseTable()
        start = threading.Barrier(8)

        def grab(index: int) -> None:
            start.wait(5)
            table.try_acquire(f"h{index}", [f"/w/{index}"], 10)

        threads = [threading.Thread(target=grab, args=(i,)) for i in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(5)
        tokens = sorted(lease.token for lease in table.snapshot())
        self.assertEqual(tokens, list(range(1, 9)))


class LayerMetaTest(LeakCheckingTestCase):
    def layer(self, table: LeaseTable | None = None, agent: str = "a",
              ) -> tuple[Leases, Recorder, LeaseTable]:
        inner, table = Recorder(), table or LeaseTable()
        roots = {"fs": "/w", "lock": "/w"}
        return Leases(inner, table, agent, roots=roots), inner, table

    def acquire(self, layer: Leases, *wanted: str) -> None:
        answer = layer.execute_tool_calls([call("l", "lock_acquire",
                                                {"paths": list(wanted), "wait": 0})])
        self.assertTrue(json.loads(answer[0]["content"])["acquired"], answer)

    def test_a_covered_write_carries_its_lease_token_and_keeps_other_meta(self) -> None:
        layer, inner, table = self.layer()
        self.acquire(layer, "a.txt")
        token = token_of(table, "a", "/w/a.txt")
        results = layer.execute_tool_calls([
            call("1", "fs_write", {"path": "a.txt"}, meta={"trace": "t-1"})])
        self.assertFalse(results[0]["is_error"])
        sent = inner.received[-1]
        self.assertEqual(sent["_meta"], {"trace": "t-1",
                                         LEASE_META: {"workspace": "default", "token": token}})
        self.assertEqual(sent["function"], {"name": "fs_write", "arguments": {"path": "a.txt"}})
        self.assertEqual(sent["id"], "1")

    def test_the_highest_token_among_covering_leases_wins(self) -> None:
        layer, inner, table = self.layer()
        self.acquire(layer, "src")
        self.acquire(layer, "src/a.txt")
        self.assertLess(token_of(table, "a", "/w/src"), token_of(table, "a", "/w/src/a.txt"))
        layer.execute_tool_calls([call("1", "fs_write", {"path": "src/a.txt"}),
                                  call("2", "fs_write", {"path": "src/b.txt"})])
        tokens = [c["_meta"][LEASE_META]["token"] for c in inner.received]
        self.assertEqual(tokens, [token_of(table, "a", "/w/src/a.txt"),
                                  token_of(table, "a", "/w/src")])

    def test_uncovered_calls_and_reads_carry_none(self) -> None:
        layer, inner, _ = self.layer()
        layer.execute_tool_calls([call("1", "fs_write", {"path": "a.txt"}),
                                  call("2", "fs_read", {"path": "a.txt"}, meta={"x": 1})])
        self.assertNotIn("_meta", inner.received[0])                 # no lease: no token
        self.assertEqual(inner.received[1]["_meta"], {"x": 1})       # a read: untouched
        self.assertIsNone(call_meta(inner.received[0]))

    def test_a_lease_entry_the_layer_did_not_write_never_passes(self) -> None:
        # Only this layer says which lease covers a call: a token that came with the
        # call (a forged or stale one) is dropped, on writes, reads and unknown tools.
        layer, inner, table = self.layer()
        forged = {LEASE_META: {"workspace": "default", "token": 10**9}, "trace": "t"}
        self.acquire(layer, "mine.txt")
        layer.execute_tool_calls([
            call("1", "fs_write", {"path": "a.txt"}, meta=dict(forged)),
            call("2", "fs_read", {"path": "a.txt"}, meta=dict(forged)),
            call("3", "fs_write", {"path": "mine.txt"}, meta=dict(forged)),
            call("4", "fs_read", {"path": "b.txt"}, meta={LEASE_META: {"token": 1}})])
        metas = [call_meta(c) for c in inner.received]
        self.assertEqual(metas[:2], [{"trace": "t"}, {"trace": "t"}])
        self.assertEqual(metas[2], {"trace": "t", LEASE_META: {
            "workspace": "default", "token": token_of(table, "a", "/w/mine.txt")}})
        self.assertIsNone(metas[3])
        self.assertNotIn("_meta", inner.received[3])

    def test_another_agents_lease_is_not_this_agents_token(self) -> None:
        table = LeaseTable()
        mine, inner, _ = self.layer(table, "a")
        theirs, _, _ = self.layer(table, "b")
        self.acquire(theirs, "b.txt")
        mine.execute_tool_calls([call("1", "fs_write", {"path": "a.txt"})])
        self.assertNotIn("_meta", inner.received[0])

    def test_the_workspace_is_the_tables(self) -> None:
        layer, inner, table = self.layer(LeaseTable(workspace="repo-1"))
        self.acquire(layer, "a.txt")
        layer.execute_tool_calls([call("1", "fs_write", {"path": "a.txt"})])
        self.assertEqual(inner.received[0]["_meta"][LEASE_META],
                         {"workspace": "repo-1", "token": token_of(table, "a", "/w/a.txt")})

    def test_a_store_outage_refuses_the_call_and_forwards_nothing(self) -> None:
        with tempfile.TemporaryDirectory(prefix="mcp-fence-") as folder:
            path = os.path.join(folder, "fleet.db")
            with SQLiteStore(path, lock_timeout=0.2) as store:
                layer, inner, _ = self.layer(LeaseTable(store=store, workspace="w"))
                self.acquire(layer, "a.txt")
                blocker = sqlite3.connect(path, isolation_level=None)
                try:
                    blocker.execute("BEGIN IMMEDIATE")      # another process holds the lock
                    results = layer.execute_tool_calls([
                        call("1", "fs_write", {"path": "a.txt"}),
                        call("2", "lock_acquire", {"paths": ["b.txt"], "wait": 0}),
                        call("3", "fs_read", {"path": "a.txt"})])
                    blocker.execute("ROLLBACK")
                finally:
                    blocker.close()
                self.assertEqual([r["is_error"] for r in results], [True, True, False])
                self.assertIn("fs_write: store sqlite://", results[0]["content"])
                self.assertIn("not run", results[0]["content"])
                self.assertIn("lock_acquire: store sqlite://", results[1]["content"])
                self.assertEqual([c["id"] for c in inner.received], ["3"])   # the read ran
                again = layer.execute_tool_calls([call("4", "fs_write", {"path": "a.txt"})])
                self.assertFalse(again[0]["is_error"])                # back without a restart
                self.assertEqual(inner.received[-1]["_meta"][LEASE_META]["workspace"], "w")

    def test_the_token_reaches_the_wire_through_a_registry_and_a_client(self) -> None:
        fake = fake_server({"tools": {}})
        fake.on("tools/list", {"tools": [{"name": "write", "inputSchema": {"type": "object"}}]})
        fake.on("tools/call", {"content": [{"type": "text", "text": "ok"}]})
        client = Client(transport=fake)
        self.addCleanup(client.close)
        registry = Registry()
        registry.add(client, prefix="fs")
        table = LeaseTable()
        layer = Leases(registry, table, "a", roots={"fs": "/w", "lock": "/w"})
        self.acquire(layer, "a.txt")
        results = layer.execute_tool_calls([call("1", "fs_write", {"path": "a.txt"},
                                                 meta={"trace": "t-1"})])
        self.assertFalse(results[0]["is_error"], results)
        params = fake.requests("tools/call")[-1]["params"]
        self.assertEqual(params["name"], "write")
        self.assertEqual(params["_meta"][LEASE_META],
                         {"workspace": "default", "token": token_of(table, "a", "/w/a.txt")})
        self.assertEqual(params["_meta"]["trace"], "t-1")
        self.assertIn("io.modelcontextprotocol/protocolVersion", params["_meta"])  # the client's

    def test_identical_calls_with_different_meta_are_not_merged(self) -> None:
        fake = fake_server({"tools": {}})
        fake.on("tools/list", {"tools": [{"name": "look", "inputSchema": {"type": "object"},
                                          "annotations": {"readOnlyHint": True}}]})
        fake.on("tools/call", {"content": [{"type": "text", "text": "ok"}]})
        client = Client(transport=fake)
        self.addCleanup(client.close)
        plain = [call(str(i), "look", {"q": 1}) for i in range(2)]
        client.execute_tool_calls(plain)
        self.assertEqual(len(fake.requests("tools/call")), 1)   # merged, as before
        marked = [call(str(i), "look", {"q": 1}, meta={"n": i}) for i in range(2)]
        results = client.execute_tool_calls(marked)
        self.assertEqual([r["is_error"] for r in results], [False, False])
        sent = fake.requests("tools/call")[1:]
        self.assertEqual(sorted(m["params"]["_meta"]["n"] for m in sent), [0, 1])

    def test_reasons_passes_a_calls_meta_on(self) -> None:
        inner = Recorder()
        Reasons(inner).execute_tool_calls([
            call("1", "fs_write", {"path": "a.txt", REASON_PARAM: "asked"}, meta={"x": 1})])
        self.assertEqual(inner.received[0]["_meta"], {"x": 1})
        self.assertEqual(inner.received[0]["function"]["arguments"], {"path": "a.txt"})

    def test_call_tool_takes_meta(self) -> None:
        fake = fake_server({"tools": {}})
        fake.on("tools/call", {"content": []})
        client = Client(transport=fake)
        self.addCleanup(client.close)
        client.call_tool("write", {"path": "a"}, meta={LEASE_META: {"workspace": "w",
                                                                    "token": 3}})
        params = fake.requests("tools/call")[-1]["params"]
        self.assertEqual(params["_meta"][LEASE_META], {"workspace": "w", "token": 3})
        self.assertEqual(params["arguments"], {"path": "a"})


def load_files_server() -> Any:
    spec = importlib.util.spec_from_file_location("files_server_under_test", FILES)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class FilesServerFenceTest(LeakCheckingTestCase):
    """The reference check, in this process (the server object over no wire)."""

    def setUp(self) -> None:
        super().setUp()
        self.root = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, self.root)
        self.client = Client(transport=InProcessTransport(load_files_server().build(self.root)))
        self.addCleanup(self.client.close)

    def write(self, path: str, content: str, token: int | None = None,
              workspace: Any = "w") -> dict[str, Any]:
        meta = None if token is None else {LEASE_META: {"workspace": workspace, "token": token}}
        return dict(self.client.call_tool("write", {"path": path, "content": content}, meta=meta))

    def text(self, result: dict[str, Any]) -> str:
        return "".join(block.get("text", "") for block in result["content"])

    def test_an_older_token_is_refused_and_changes_nothing(self) -> None:
        self.assertFalse(self.write("a.txt", "five", 5).get("isError"))
        refused = self.write("a.txt", "three", 3)
        self.assertTrue(refused["isError"])
        self.assertIn("stale lease", self.text(refused))
        self.assertEqual((self.root / "a.txt").read_text(), "five")
        self.assertFalse(self.write("a.txt", "five again", 5).get("isError"))   # the same
        self.assertFalse(self.write("a.txt", "six", 6).get("isError"))          # newer

    def test_a_directory_above_counts_and_workspaces_are_apart(self) -> None:
        self.assertFalse(self.write("src/a.txt", "a", 7).get("isError"))
        self.assertFalse(self.write("src/b.txt", "b", 7).get("isError"))
        self.assertFalse(self.write("src/b.txt", "b", 8).get("isError"))
        self.assertFalse(self.write("src/a.txt", "a2", 7).get("isError"))
        self.assertFalse(self.write("src/a.txt", "other", 1, workspace="v").get("isError"))

    def test_edit_and_delete_are_fenced_too(self) -> None:
        self.write("a.txt", "hello", 4)
        for tool, arguments in (("edit", {"path": "a.txt", "old": "hello", "new": "bye"}),
                                ("delete", {"path": "a.txt"})):
            refused = self.client.call_tool(tool, arguments,
                                            meta={LEASE_META: {"workspace": "w", "token": 2}})
            self.assertTrue(refused.get("isError"), tool)
        self.assertEqual((self.root / "a.txt").read_text(), "hello")

    def test_no_lease_meta_is_accepted_and_malformed_lease_meta_is_refused(self) -> None:
        self.write("a.txt", "five", 5)
        self.assertFalse(self.write("a.txt", "plain").get("isError"))
        self.assertEqual((self.root / "a.txt").read_text(), "plain")
        for bad in ({"workspace": "w", "token": "9"}, {"token": 9}, "9",
                    {"workspace": "w", "token": True}):
            refused = self.client.call_tool("write", {"path": "a.txt", "content": "x"},
                                            meta={LEASE_META: bad})
            self.assertTrue(refused.get("isError"), bad)
            self.assertIn("malformed", self.text(dict(refused)))
        self.assertEqual((self.root / "a.txt").read_text(), "plain")


class Pausing:
    """A provider over a provider that, while ``paused``, keeps the calls it is handed
    instead of sending them: a process stopped (GC, SIGSTOP) after its lease layer
    built the request and before it reached the server."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.paused = False
        self.kept: list[dict[str, Any]] = []

    def tools_for_llm(self) -> list[Any]:
        return list(self.inner.tools_for_llm())

    def tool_annotations(self, name: str) -> Any:
        return self.inner.tool_annotations(name)

    def execute_tool_calls(self, calls: list[Any]) -> list[Any]:
        if not self.paused:
            return list(self.inner.execute_tool_calls(calls))
        self.kept.extend(calls)
        return [{"role": "tool", "tool_call_id": c["id"], "content": "(paused)",
                 "is_error": False} for c in calls]


class PausedHolderTest(LeakCheckingTestCase):
    """A holder that pauses past its TTL cannot write over the next holder's work."""

    def test_the_late_write_of_a_paused_holder_is_refused_by_token(self) -> None:
        workspace = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, workspace)
        client = Client.connect_stdio(PYTHON, args=[str(FILES), workspace])
        self.addCleanup(client.close)
        wire: list[dict[str, Any]] = []
        send_line = client.transport.send_line

        def recording_lines(data: bytes) -> None:   # requests go out as encoded lines
            wire.append(json.loads(data))
            send_line(data)

        client.transport.send_line = recording_lines  # type: ignore[method-assign]
        registry = Registry()
        self.addCleanup(registry.close)
        registry.add(client, prefix="fs")
        clock = Clock()
        table = LeaseTable(default_ttl=10, clock=clock)
        roots = {"fs": workspace, "lock": workspace}
        pausing = Pausing(registry)
        agent_a = Leases(pausing, table, "a", roots=roots, concurrent=lambda: 2)
        agent_b = Leases(registry, table, "b", roots=roots, concurrent=lambda: 2)
        target = str(Path(workspace, "a.txt"))

        def acquire(agent: Leases) -> None:
            answer = agent.execute_tool_calls([call("l", "lock_acquire",
                                                    {"paths": ["a.txt"], "ttl": 10, "wait": 0})])
            self.assertTrue(json.loads(answer[0]["content"])["acquired"], answer)

        def write(agent: Leases, ident: str, content: str) -> dict[str, Any]:
            answer = agent.execute_tool_calls([call(ident, "fs_write",
                                                    {"path": "a.txt", "content": content})])
            return dict(answer[0])

        acquire(agent_a)
        t1 = token_of(table, "a", target)
        self.assertFalse(write(agent_a, "a1", "A's first")["is_error"])
        pausing.paused = True                          # A stops just as its write leaves
        write(agent_a, "a2", "A's late write")
        self.assertEqual(len(pausing.kept), 1)
        self.assertEqual(pausing.kept[0]["_meta"][LEASE_META],
                         {"workspace": "default", "token": t1})
        clock.now += 11                                # ... past its lease's TTL
        acquire(agent_b)
        t2 = token_of(table, "b", target)
        self.assertGreater(t2, t1)
        self.assertFalse(write(agent_b, "b1", "B's work")["is_error"])
        late = registry.execute_tool_calls(pausing.kept)   # A wakes: its request goes out
        self.assertTrue(late[0]["is_error"], late)
        self.assertIn("stale lease", late[0]["content"])
        self.assertEqual(Path(target).read_text(), "B's work")
        calls = [m for m in wire if m.get("method") == "tools/call"]
        self.assertEqual([m["params"]["_meta"][LEASE_META]["token"] for m in calls],
                         [t1, t2, t1])
        self.assertEqual([m["params"]["arguments"]["content"] for m in calls],
                         ["A's first", "B's work", "A's late write"])
