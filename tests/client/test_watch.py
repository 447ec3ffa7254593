"""``watch=True``: a tool added on a running server is in the next ``list_tools()``.

Against the official SDK server ``tests/servers/growing.py`` in both eras (modern: through
``subscriptions/listen``; legacy: on the session), and the listen protocol's edges on a
FakeTransport.
"""

from __future__ import annotations

import os
import signal
import threading
from typing import Any, Callable, Iterable, Mapping

from mcp_client import Client, MCPClientError
from mcp_client.stdio import StdioTransport
from mcp_client.testing import NO_ANSWER, Error, FakeTransport
from mcp_client.types import Notification, resource_text, text_of

from ..base import ClientCase, fake_server, server, wait_until
from ..httpkit import LiveServer


def names(tools: Iterable[Mapping[str, Any]]) -> set[str]:
    return {t["name"] for t in tools}


def recorder(into: list[str], seen: threading.Event) -> Callable[[str], None]:
    """A callback that appends what it is given to ``into``, then sets ``seen``."""
    def record(item: str) -> None:
        into.append(item)
        seen.set()
    return record


class GrowingServerTest(ClientCase):
    def grow(self, **options: Any) -> tuple[Client, list[str], threading.Event]:
        kinds: list[str] = []
        changed = threading.Event()

        def on_list_changed(kind: str) -> None:
            kinds.append(kind)
            changed.set()

        client = self.connect(args=server("growing.py"), on_list_changed=on_list_changed,
                              **options)
        self.assertEqual(names(client.list_tools()), {"grow", "bump"})
        self.assertEqual(text_of(client.call_tool("grow", {"name": "fresh"})),
                         "added fresh")
        return client, kinds, changed

    def test_modern_with_watch(self) -> None:
        client, kinds, changed = self.grow(watch=True)
        self.assertEqual(client.era, "modern")
        self.assertTrue(changed.wait(10), self.warnings)
        self.assertEqual(kinds, ["tools"])
        self.assertEqual(names(client.list_tools()), {"grow", "bump", "fresh"})
        self.assertIn("fresh", [d["function"]["name"] for d in client.tools_for_llm()])
        self.assertEqual(text_of(client.call_tool("fresh")), "I am fresh")

    def test_modern_without_watch_keeps_the_cached_list(self) -> None:
        client, kinds, _ = self.grow()
        self.assertEqual(names(client.list_tools()), {"grow", "bump"})   # ttlMs has not run out
        self.assertEqual(names(client.list_tools(refresh=True)), {"grow", "bump", "fresh"})
        self.assertEqual(kinds, [])

    def test_a_subscribed_resource_that_changes(self) -> None:
        client, _, _ = self.grow()   # no watch=True: a subscription alone opens a listen
        self.assertEqual(resource_text(client.read_resource("res://counter")), "0")
        acknowledged, updated = threading.Event(), threading.Event()

        def seen(message: Notification) -> None:
            params = message.get("params") or {}
            if message["method"] == "notifications/subscriptions/acknowledged" and \
                    params.get("notifications", {}).get("resourceSubscriptions"):
                acknowledged.set()
            if message["method"] == "notifications/resources/updated" and \
                    params.get("uri") == "res://counter":
                updated.set()

        client.notifications.subscribe(seen)
        client.subscribe_resource("res://counter")
        self.assertTrue(acknowledged.wait(10), self.warnings)
        self.assertEqual(text_of(client.call_tool("bump")), "1")
        self.assertTrue(updated.wait(10))
        self.assertEqual(resource_text(client.read_resource("res://counter")), "1")
        listen = client._connection.watch
        self.assertEqual(listen.subscriptions, ["res://counter"])
        self.assertEqual(listen.honoured, {"resourceSubscriptions": ["res://counter"]})
        client.unsubscribe_resource("res://counter")
        self.assertEqual(listen.subscriptions, [])

    def test_calls_made_while_the_listen_is_open_keep_the_pipe(self) -> None:
        # The open listen is nobody's call: a caller that read its own answer must not hand
        # the pipe straight back to the reader thread for it (an urgent kick), or every
        # call under watch=True pays a wake-up of the reader thread.
        client, _, changed = self.grow(watch=True)
        self.assertTrue(changed.wait(10), self.warnings)
        transport = client.transport
        assert isinstance(transport, StdioTransport)
        pipe = transport._pipe
        assert pipe is not None
        kicks: list[bool] = []
        kick = pipe._kick

        def recorded(urgent: bool = False) -> None:
            kicks.append(urgent)
            kick(urgent)

        pipe._kick = recorded   # type: ignore[method-assign]
        for _ in range(20):
            self.assertEqual(text_of(client.call_tool("fresh")), "I am fresh")
        self.assertEqual(kicks.count(True), 0, kicks)
        correlator = client._connection._correlator
        self.assertEqual((len(correlator), correlator.waiting()), (1, 0))   # the listen

    def test_the_listen_is_reopened_after_a_restart(self) -> None:
        ended = threading.Event()

        def warned(text: str) -> None:
            self.warnings.append(text)
            if "subscriptions/listen ended" in text:
                ended.set()

        client, kinds, changed = self.grow(watch=True, restart="on-failure", on_warn=warned)
        self.assertTrue(changed.wait(10), self.warnings)
        transport = client.transport
        assert isinstance(transport, StdioTransport) and transport.pid is not None
        os.kill(transport.pid, signal.SIGKILL)
        self.assertTrue(ended.wait(10))   # the death ended the listen: the client knows
        self.assertIn("killed by SIGKILL", " ".join(self.warnings))
        changed.clear()
        self.assertEqual(names(client.list_tools()), {"grow", "bump"})   # a new child
        client.call_tool("grow", {"name": "again"})
        self.assertTrue(changed.wait(10), self.warnings)
        self.assertEqual(names(client.list_tools()), {"grow", "bump", "again"})

    def test_legacy_session(self) -> None:
        client, kinds, changed = self.grow(era="legacy", watch=True)
        self.assertTrue(changed.wait(10))
        self.assertEqual(kinds, ["tools"])
        self.assertEqual(names(client.list_tools()), {"grow", "bump", "fresh"})
        self.assertIn("fresh", [d["function"]["name"] for d in client.tools_for_llm()])


class GrowingHTTPServerTest(ClientCase):
    def test_modern_and_legacy_over_http(self) -> None:
        live = LiveServer("--growing")
        self.addCleanup(live.stop)
        for era, watch in (("auto", True), ("legacy", False)):
            with self.subTest(era=era):
                changed = threading.Event()
                client = self.connect(url=live.url, era=era, watch=watch,
                                      on_list_changed=lambda kind: changed.set())
                before = names(client.list_tools())
                self.assertNotIn(f"fresh_{era}", before)
                client.call_tool("grow", {"name": f"fresh_{era}"})
                self.assertTrue(changed.wait(10), self.warnings)
                self.assertIn(f"fresh_{era}", names(client.list_tools()))
                self.assertIn(f"fresh_{era}",
                              [d["function"]["name"] for d in client.tools_for_llm()])
                client.close()
                self.assertEqual(self.warnings, [])


#: A server that says when its lists change and lets a client subscribe to a resource.
WATCHED = {"tools": {"listChanged": True}, "prompts": {"listChanged": True},
           "resources": {"subscribe": True}}
TOOLS: dict[str, Any] = {"tools": [{"name": "a", "inputSchema": {"type": "object"}}],
                         "ttlMs": 60000, "cacheScope": "public"}


class ListenProtocolTest(ClientCase):
    def watched(self, *listen: Any, hold: bool = False,
                **options: Any) -> tuple[Client, FakeTransport]:
        fake = fake_server(WATCHED)
        fake.on("tools/list", TOOLS)
        fake.on("subscriptions/listen", *(listen or (NO_ANSWER,)), hold=hold)
        client = self.connect(fake, watch=True, **options)
        client.list_tools()
        return client, fake

    def test_the_listen_asks_for_what_the_capabilities_offer(self) -> None:
        client, fake = self.watched()
        listen = fake.wait_for("subscriptions/listen")
        self.assertEqual(listen["params"]["notifications"],
                         {"toolsListChanged": True, "promptsListChanged": True})
        self.assertIn("io.modelcontextprotocol/protocolVersion", listen["params"]["_meta"])
        client.close()
        [cancelled] = fake.notifications("notifications/cancelled")
        self.assertEqual(cancelled["params"]["requestId"], listen["id"])
        self.assertEqual(self.warnings, [])

    def test_an_acknowledgment_of_a_subset_and_a_change(self) -> None:
        kinds: list[str] = []
        changed = threading.Event()
        client, fake = self.watched(on_list_changed=recorder(kinds, changed))
        listen = fake.wait_for("subscriptions/listen")
        meta = {"io.modelcontextprotocol/subscriptionId": listen["id"]}
        fake.notify("notifications/subscriptions/acknowledged",
                    {"notifications": {"toolsListChanged": True}, "_meta": meta})
        fake.notify("notifications/tools/list_changed", {"_meta": meta})
        self.assertTrue(changed.wait(5))
        self.assertEqual(client._connection._watch.honoured, {"toolsListChanged": True})
        client.list_tools()
        self.assertEqual(len(fake.requests("tools/list")), 2)   # evicted: asked again
        self.assertEqual(kinds, ["tools"])

    def test_a_listen_answered_with_a_result_is_reopened(self) -> None:
        client, fake = self.watched({"_meta": {}}, NO_ANSWER, hold=True)
        fake.wait_for("subscriptions/listen")
        fake.release("subscriptions/listen")   # the listen ends once the list is cached
        fake.wait_for("subscriptions/listen", count=2)
        self.assertTrue(any("reopening it in 0.1s" in w for w in self.warnings), self.warnings)
        client.list_tools()
        self.assertEqual(len(fake.requests("tools/list")), 2)   # what it missed is unknown

    def test_a_listen_refused_with_method_not_found_is_not_reopened(self) -> None:
        warned = threading.Event()
        warnings: list[str] = []
        client, fake = self.watched(Error(-32601, "no listen"),
                                    on_warn=recorder(warnings, warned))
        self.assertTrue(warned.wait(5))
        client.close()
        self.assertEqual(len(fake.requests("subscriptions/listen")), 1)
        self.assertTrue(any("does not serve subscriptions/listen" in w for w in warnings),
                        warnings)

    def test_calls_to_a_server_offering_no_list_changes_do_not_wake_the_watch(self) -> None:
        # Nothing to listen for: the watch thread waits for something to change (a new
        # negotiation, a subscription), not for every call (a wake-up of a thread per call).
        fake = fake_server({"tools": {}, "resources": {"subscribe": True}})
        fake.on("tools/list", TOOLS)
        fake.on("tools/call", {"content": [{"type": "text", "text": "ok"}]})
        fake.on("subscriptions/listen", NO_ANSWER)
        client = self.connect(fake, watch=True)
        client.list_tools()
        watch = client._connection._watch
        wait_until(lambda: watch._idle and watch._idle_on is not None, 5)   # it looked
        wakes: list[int] = []
        real = watch._wake.set

        def counted() -> None:
            wakes.append(1)
            real()

        watch._wake.set = counted   # type: ignore[method-assign]
        for _ in range(5):
            self.assertEqual(text_of(client.call_tool("a")), "ok")
        self.assertEqual(wakes, [])
        self.assertEqual(fake.requests("subscriptions/listen"), [])
        client.subscribe_resource("res://a")   # something to listen for: it wakes, and listens
        listen = fake.wait_for("subscriptions/listen")
        self.assertEqual(listen["params"]["notifications"],
                         {"resourceSubscriptions": ["res://a"]})
        self.assertEqual(wakes, [1])

    def test_no_listen_without_watch_or_on_legacy(self) -> None:
        fake = fake_server(WATCHED)
        fake.on("tools/list", TOOLS)
        client = self.connect(fake)
        client.list_tools()
        client.close()
        self.assertEqual(fake.requests("subscriptions/listen"), [])

    def test_legacy_subscribe_and_unsubscribe(self) -> None:
        fake = FakeTransport()
        fake.on("initialize", {"protocolVersion": "2025-11-25",
                               "capabilities": {"resources": {"subscribe": True}}})
        fake.on("resources/subscribe", {})
        fake.on("resources/unsubscribe", {})
        client = self.connect(fake, era="legacy")
        client.subscribe_resource("res://a")
        client.unsubscribe_resource("res://a")
        self.assertEqual([m["params"]["uri"] for m in fake.requests("resources/subscribe")],
                         ["res://a"])
        self.assertEqual(len(fake.requests("resources/unsubscribe")), 1)

    def test_refused_without_the_capability(self) -> None:
        fake = fake_server({"resources": {}})
        client = self.connect(fake)
        with self.assertRaises(MCPClientError) as caught:
            client.subscribe_resource("res://a")
        self.assertIn("does not declare resources.subscribe", str(caught.exception))
        with self.assertRaises(MCPClientError):
            client.subscribe_resource("")
        self.assertEqual(fake.requests("subscriptions/listen"), [])

    def test_modern_subscriptions_reissue_the_listen(self) -> None:
        client, fake = self.watched()
        first = fake.wait_for("subscriptions/listen")
        client.subscribe_resource("res://a")
        second = fake.wait_for("subscriptions/listen", count=2)
        self.assertEqual(second["params"]["notifications"]["resourceSubscriptions"], ["res://a"])
        self.assertEqual([m["params"]["requestId"]
                          for m in fake.notifications("notifications/cancelled")], [first["id"]])
        self.assertEqual(self.warnings, [])

    def test_a_tool_that_disappeared_is_an_error_entry(self) -> None:
        """Issue 17 item 4: after a list change the bridge offers the current catalogue, and
        a call to the tool that went away is answered as an unknown tool, not sent."""
        changed = threading.Event()
        fake = fake_server(WATCHED)
        gone = {"name": "gone", "inputSchema": {"type": "object"}}
        both = {**TOOLS, "tools": TOOLS["tools"] + [gone]}
        fake.on("tools/list", both, TOOLS)
        fake.on("subscriptions/listen", NO_ANSWER)
        client = self.connect(fake, watch=True, on_list_changed=lambda kind: changed.set())
        self.assertEqual(names(client.list_tools()), {"a", "gone"})
        fake.wait_for("subscriptions/listen")
        fake.notify("notifications/tools/list_changed")
        self.assertTrue(changed.wait(10))
        self.assertEqual([d["function"]["name"] for d in client.tools_for_llm()], ["a"])
        [entry] = client.execute_tool_calls(
            [{"id": "1", "function": {"name": "gone", "arguments": "{}"}}])
        self.assertEqual((entry["is_error"], entry["content"]), (True, "unknown tool: gone"))
        self.assertEqual(fake.requests("tools/call"), [])

    def test_bad_watch_option(self) -> None:
        with self.assertRaises(MCPClientError):
            Client(transport=FakeTransport(), watch="yes")
