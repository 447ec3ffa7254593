"""The ttlMs result cache, progress reports and log routing, over FakeTransport."""

from __future__ import annotations

import threading
import time
from typing import Any, Iterable

from mcp_client import Client, Timeout
from mcp_client.cache import MAX_TTL_MS, Cache
from mcp_client.testing import NO_ANSWER, Error, FakeTransport
from mcp_client.types import ToolDeclaration

from ..base import ClientCase, LeakCheckingTestCase, fake_server


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class CacheUnitTest(LeakCheckingTestCase):
    def test_expiry_by_the_clock(self) -> None:
        clock = Clock()
        cache = Cache(clock=clock)
        key = Cache.key("tools/list", {})
        self.assertTrue(cache.put(key, {"tools": [1]}, 5000))
        clock.now += 4.999
        self.assertEqual(cache.get(key), {"tools": [1]})
        clock.now += 0.001
        self.assertIsNone(cache.get(key))

    def test_no_ttl_no_storage_and_the_cap(self) -> None:
        clock = Clock()
        cache = Cache(clock=clock)
        key = Cache.key("resources/read", {"uri": "a"})
        self.assertFalse(cache.put(key, {}, 0))
        self.assertIsNone(cache.get(key))
        cache.put(key, {"x": 1}, 10 * MAX_TTL_MS)
        clock.now += MAX_TTL_MS / 1000 - 1
        self.assertIsNotNone(cache.get(key))
        clock.now += 1
        self.assertIsNone(cache.get(key))

    def test_keys_separate_params_and_values_are_copied(self) -> None:
        cache = Cache()
        first, second = Cache.key("tools/list", {}), Cache.key("tools/list", {"cursor": "2"})
        value = {"tools": [{"name": "a"}]}
        cache.put(first, value, 1000)
        value["tools"][0]["name"] = "mutated"
        got = cache.get(first)
        self.assertEqual(got, {"tools": [{"name": "a"}]})
        got["tools"].clear()
        self.assertEqual(cache.get(first), {"tools": [{"name": "a"}]})
        self.assertIsNone(cache.get(second))

    def test_bounded_and_evictable(self) -> None:
        cache = Cache(max_entries=3)
        for n in range(5):
            cache.put(Cache.key("resources/read", {"uri": str(n)}), {"n": n}, 1000)
        self.assertEqual(len(cache), 3)
        self.assertIsNone(cache.get(Cache.key("resources/read", {"uri": "0"})))
        self.assertEqual(cache.evict("resources/read", "4"), 1)
        self.assertEqual(cache.evict("resources/read"), 2)


class ClientCacheTest(ClientCase):
    def test_ttl_refresh_and_expiry(self) -> None:
        fake = fake_server()
        fake.on("tools/list", {"tools": [{"name": "a"}], "ttlMs": 60000, "cacheScope": "public",
                               "resultType": "complete"})
        client = self.connect(fake)
        clock = Clock()
        client._connection._cache.clock = clock
        self.assertEqual(client.list_tools(), [{"name": "a"}])
        self.assertEqual(client.list_tools(), [{"name": "a"}])
        self.assertEqual(len(fake.requests("tools/list")), 1)
        client.list_tools(refresh=True)
        self.assertEqual(len(fake.requests("tools/list")), 2)
        clock.now += 60
        client.list_tools()
        self.assertEqual(len(fake.requests("tools/list")), 3)
        client.list_tools()
        self.assertEqual(len(fake.requests("tools/list")), 3)

    def test_zero_ttl_and_legacy_results_are_not_stored(self) -> None:
        fake = fake_server()
        fake.on("prompts/list", {"prompts": [], "ttlMs": 0})
        client = self.connect(fake)
        client.list_prompts()
        client.list_prompts()
        self.assertEqual(len(fake.requests("prompts/list")), 2)
        fake = FakeTransport()
        fake.on("initialize", {"protocolVersion": "2025-11-25", "capabilities": {}})
        fake.on("tools/list", {"tools": [], "ttlMs": 60000})
        client = self.connect(fake, era="legacy")
        client.list_tools()
        client.list_tools()
        self.assertEqual(len(fake.requests("tools/list")), 2)

    def test_pages_and_uris_are_separate_entries(self) -> None:
        fake = fake_server()
        pages = {None: {"resources": [{"uri": "a"}], "nextCursor": "2", "ttlMs": 1000},
                 "2": {"resources": [{"uri": "b"}], "ttlMs": 1000}}
        fake.on("resources/list", lambda m: pages[m["params"].get("cursor")])
        fake.on("resources/read", lambda m: {"contents": [{"uri": m["params"]["uri"]}],
                                             "ttlMs": 1000})
        client = self.connect(fake)
        self.assertEqual(len(client.list_resources()), 2)
        self.assertEqual(len(client.list_resources()), 2)
        self.assertEqual(len(fake.requests("resources/list")), 2)
        self.assertEqual(client.read_resource("x")["contents"][0]["uri"], "x")
        self.assertEqual(client.read_resource("y")["contents"][0]["uri"], "y")
        self.assertEqual(client.read_resource("x")["contents"][0]["uri"], "x")
        self.assertEqual(len(fake.requests("resources/read")), 2)

    def test_list_changed_and_updated_notifications_evict(self) -> None:
        fake = fake_server()
        fake.on("tools/list", {"tools": [], "ttlMs": 60000})
        fake.on("resources/read", {"contents": [], "ttlMs": 60000})
        fake.on("ping", {})
        client = self.connect(fake)
        client.list_tools()
        client.read_resource("res://a")
        fake.notify("notifications/tools/list_changed")
        fake.notify("notifications/resources/updated", {"uri": "res://a"})
        client.ping()   # the notifications are handled before this answer
        client.list_tools()
        client.read_resource("res://a")
        self.assertEqual(len(fake.requests("tools/list")), 2)
        self.assertEqual(len(fake.requests("resources/read")), 2)

    def test_a_stale_cursor_restarts_from_the_top(self) -> None:
        fake = fake_server()
        fake.on("tools/list", {"tools": [{"name": "a"}], "nextCursor": "c1", "ttlMs": 60000},
                when=lambda m: "cursor" not in m["params"])
        fake.on("tools/list", {"tools": [{"name": "b"}], "ttlMs": 1},
                Error(-32602, "invalid cursor"),
                {"tools": [{"name": "b2"}], "ttlMs": 1},
                when=lambda m: m["params"].get("cursor") == "c1")
        client = self.connect(fake)
        clock = Clock()
        client._connection._cache.clock = clock
        self.assertEqual([t["name"] for t in client.list_tools()], ["a", "b"])
        clock.now += 1   # page two expired, page one is still fresh
        self.assertEqual([t["name"] for t in client.list_tools()], ["a", "b2"])

    def test_an_invalid_params_error_on_a_call_drops_the_catalogue(self) -> None:
        fake = fake_server()
        fake.on("tools/list", {"tools": [], "ttlMs": 60000})
        fake.on("tools/call", Error(-32602, "Unknown tool"))
        client = self.connect(fake)
        client.list_tools()
        with self.assertRaises(Exception):
            client.call_tool("gone")
        client.list_tools()
        self.assertEqual(len(fake.requests("tools/list")), 2)


class ProgressAndLogTest(LeakCheckingTestCase):
    def test_minted_tokens_reports_and_unknown_tokens(self) -> None:
        fake = fake_server()
        reports: list[dict[str, Any]] = []
        seen = threading.Event()

        def answer(message: dict[str, Any]) -> Any:
            token = message["params"]["_meta"]["progressToken"]
            fake.notify("notifications/progress", {"progressToken": token, "progress": 1,
                                                   "total": 2, "message": "half"})
            fake.notify("notifications/progress", {"progressToken": "stranger",
                                                   "progress": 1})
            fake.notify("notifications/progress", {"progressToken": token, "progress": 2})
            return {"content": []}

        fake.on("tools/call", answer)
        client = Client(transport=fake, on_progress=reports.append)
        self.addCleanup(client.close)
        client.notifications.subscribe(
            lambda n: seen.set() if n["params"].get("progress") == 2 else None)
        client.call_tool("a")
        self.assertTrue(seen.wait(5))
        client.execute_tool_calls([{"id": "call_7", "function": {"name": "b", "arguments": ""}}])
        tokens = [m["params"]["_meta"]["progressToken"] for m in fake.requests("tools/call")]
        self.assertEqual(len(set(tokens)), 2)
        self.assertFalse(set(tokens) & {m["id"] for m in fake.requests("tools/call")})
        self.assertEqual(reports[:2], [
            {"tool_call_id": None, "progress": 1, "total": 2, "message": "half"},
            {"tool_call_id": None, "progress": 2}])
        self.assertEqual([r["tool_call_id"] for r in reports[2:]], ["call_7", "call_7"])
        self.assertEqual(len(reports), 4)   # "stranger" was dropped

    def test_no_hook_no_token(self) -> None:
        fake = fake_server()
        fake.on("tools/call", {"content": []})
        client = Client(transport=fake)
        self.addCleanup(client.close)
        client.call_tool("a")
        self.assertNotIn("progressToken", fake.requests("tools/call")[0]["params"]["_meta"])

    def pump(self, fake: FakeTransport, token: str, stop: threading.Event) -> threading.Thread:
        """Report progress every 50 ms until ``stop`` is set."""
        def run() -> None:
            n = 0
            while not stop.wait(0.05):
                n += 1
                fake.notify("notifications/progress", {"progressToken": token, "progress": n})

        thread = threading.Thread(target=run, name="progress-pump")
        thread.start()
        self.addCleanup(thread.join)
        self.addCleanup(stop.set)
        return thread

    def test_progress_keeps_a_long_call_alive(self) -> None:
        budget = 0.5
        started = time.monotonic()
        outlived = threading.Event()   # a report arrived after two budgets, or the call ended

        def on_progress(report: Any) -> None:
            if time.monotonic() - started > 2 * budget:
                outlived.set()

        fake = fake_server()
        fake.on("tools/call", NO_ANSWER)
        client = Client(transport=fake, on_progress=on_progress,
                        reset_timeout_on_progress=True, max_total_timeout=30)
        self.addCleanup(client.close)
        future = client.call_tool_async("slow", timeout=budget)
        future.add_done_callback(lambda _: outlived.set())
        sent = fake.wait_for("tools/call")
        stop = threading.Event()
        self.pump(fake, sent["params"]["_meta"]["progressToken"], stop)
        # Progress keeps arriving for two budgets' worth of time: the call still waits.
        self.assertTrue(outlived.wait(10))
        self.assertFalse(future.done())
        stop.set()
        fake.push({"jsonrpc": "2.0", "id": sent["id"], "result": {"content": []}})
        self.assertEqual(future.result(5), {"content": []})

    def test_max_total_timeout_caps_the_stretching(self) -> None:
        fake = fake_server()
        fake.on("tools/call", NO_ANSWER)
        client = Client(transport=fake, on_progress=lambda p: None,
                        reset_timeout_on_progress=True, max_total_timeout=1.0)
        self.addCleanup(client.close)
        future = client.call_tool_async("slow", timeout=0.3)
        sent = fake.wait_for("tools/call")
        self.pump(fake, sent["params"]["_meta"]["progressToken"], threading.Event())
        with self.assertRaises(Timeout):
            future.result(10)

    def test_log_level_rides_in_meta_and_legacy_logs_are_filtered(self) -> None:
        fake = fake_server()
        fake.on("tools/list", {"tools": []})
        logs: list[dict[str, Any]] = []
        client = Client(transport=fake, log_level="warning", on_log=logs.append)
        self.addCleanup(client.close)
        client.list_tools()
        meta = fake.requests("tools/list")[0]["params"]["_meta"]
        self.assertEqual(meta["io.modelcontextprotocol/logLevel"], "warning")
        fake = FakeTransport()
        fake.on("initialize", {"protocolVersion": "2025-11-25",
                               "capabilities": {"logging": {}}})
        fake.on("logging/setLevel", Error(-32601, "Method not found"))
        fake.on("ping", {})
        client = Client(transport=fake, era="legacy", log_level="warning", on_log=logs.append)
        self.addCleanup(client.close)
        client.era
        self.assertEqual(fake.requests("logging/setLevel")[0]["params"], {"level": "warning"})
        for level in ("debug", "info", "warning", "error"):
            fake.notify("notifications/message", {"level": level, "data": level})
        client.ping()
        self.assertEqual([entry["level"] for entry in logs], ["warning", "error"])


def _tools(*names: str, ttl: int = 60000) -> dict[str, Any]:
    return {"tools": [{"name": n, "inputSchema": {"type": "object"}} for n in names],
            "ttlMs": ttl, "cacheScope": "public", "resultType": "complete"}


def _names(declarations: Iterable[ToolDeclaration]) -> list[str]:
    return [d["function"]["name"] for d in declarations]


class ToolsForLLMCacheTest(ClientCase):
    """tools_for_llm() is built once per catalogue, and built again when it changes."""

    def open(self, *answers: dict[str, Any]) -> tuple[Client, FakeTransport]:
        fake = fake_server()
        fake.on("tools/list", *answers)
        return self.connect(fake), fake

    def test_kept_while_the_catalogue_is_cached(self) -> None:
        client, fake = self.open(_tools("a", "b"))
        first, second = client.tools_for_llm(), client.tools_for_llm()
        self.assertEqual(_names(first), ["a", "b"])
        self.assertEqual(first, second)
        self.assertIsNot(first, second)   # a new list each time...
        self.assertTrue(all(x is y for x, y in zip(first, second)))   # ...of the same entries
        self.assertEqual(len(fake.requests("tools/list")), 1)

    def test_a_list_changed_notification_builds_it_again(self) -> None:
        client, fake = self.open(_tools("a"), _tools("a", "b"))
        self.assertEqual(_names(client.tools_for_llm()), ["a"])
        seen = threading.Event()
        client.notifications.subscribe(lambda message: seen.set())
        fake.notify("notifications/tools/list_changed")
        self.assertTrue(seen.wait(5))
        self.assertEqual(_names(client.tools_for_llm()), ["a", "b"])
        self.assertEqual(_names(client.tools_for_llm()), ["a", "b"])
        self.assertEqual(len(fake.requests("tools/list")), 2)

    def test_a_refresh_builds_it_again(self) -> None:
        client, fake = self.open(_tools("a"), _tools("c"))
        self.assertEqual(_names(client.tools_for_llm()), ["a"])
        self.assertEqual(client.list_tools(refresh=True)[0]["name"], "c")
        self.assertEqual(_names(client.tools_for_llm()), ["c"])

    def test_expiry_builds_it_again(self) -> None:
        client, fake = self.open(_tools("a"), _tools("d"))
        clock = Clock()
        client._connection._cache.clock = clock
        self.assertEqual(_names(client.tools_for_llm()), ["a"])
        clock.now += 60
        self.assertEqual(_names(client.tools_for_llm()), ["d"])
        self.assertEqual(len(fake.requests("tools/list")), 2)

    def test_without_ttl_it_is_fetched_and_built_every_time(self) -> None:
        client, fake = self.open(_tools("a", ttl=0), _tools("e", ttl=0))
        first = client.tools_for_llm()
        self.assertEqual(_names(client.tools_for_llm()), ["e"])
        self.assertEqual(_names(first), ["a"])
        self.assertEqual(len(fake.requests("tools/list")), 2)

    def test_a_page_that_cannot_be_cached_keeps_nothing(self) -> None:
        fake = fake_server()
        fake.on("tools/list", {**_tools("a"), "nextCursor": "2"},
                when=lambda request: "cursor" not in request.get("params", {}))
        fake.on("tools/list", _tools("b", ttl=0), _tools("f", ttl=0),
                when=lambda request: request.get("params", {}).get("cursor") == "2")
        client = self.connect(fake)
        self.assertEqual(_names(client.tools_for_llm()), ["a", "b"])
        self.assertEqual(_names(client.tools_for_llm()), ["a", "f"])
