"""MCP Apps with no subprocess: the bridge's answers to a view's messages (the spec's
examples), the view read and checked, visibility, options and config, and the seam a
view's call crosses (a Policy carries a call's request ``_meta`` down)."""

from __future__ import annotations

import base64
from typing import Any

from mcp_client import Client, MCPClientError
from mcp_client.apps import (APP_CALL, MIME_TYPE, AppBridge, AppCall, AppViewError,
                             app_may_call, model_may_see, resource_uri, take_app_call,
                             visibility)
from mcp_client.config import ConfigError, load_config
from mcp_client.policy import Policy

from ..base import ClientCase, LeakCheckingTestCase, fake_server

URI = "ui://weather-server/dashboard-template"
HTML = "<!DOCTYPE html><html><body>weather</body></html>"


def tool(name: str, ui: Any = None, **extra: Any) -> dict[str, Any]:
    found: dict[str, Any] = {"name": name, "inputSchema": {"type": "object"}, **extra}
    if ui is not None:
        found["_meta"] = {"ui": ui}
    return found


TOOLS = [tool("get_weather", {"resourceUri": URI, "visibility": ["model", "app"]}),
         tool("refresh_dashboard", {"resourceUri": URI, "visibility": ["app"]}),
         tool("model_only", {"visibility": ["model"]}),
         tool("plain"),
         tool("flat", _meta={"ui/resourceUri": URI}),
         tool("elsewhere", {"resourceUri": "https://example.com/view.html"}),
         tool("wrong_type", {"resourceUri": "ui://x/wrong"}),
         tool("blob_view", {"resourceUri": "ui://x/blob"})]
CONTENT: dict[str, Any] = {"uri": URI, "mimeType": MIME_TYPE, "text": HTML, "_meta": {"ui": {
    "csp": {"connectDomains": ["https://api.openweathermap.org"],
            "resourceDomains": ["https://cdn.jsdelivr.net"]},
    "permissions": {"camera": {}}, "prefersBorder": True}}}


def read_answer(request: dict[str, Any]) -> dict[str, Any]:
    uri = request["params"]["uri"]
    if uri == URI:
        return {"resultType": "complete", "contents": [CONTENT]}
    if uri == "ui://x/wrong":
        return {"resultType": "complete",
                "contents": [{"uri": uri, "mimeType": "text/html", "text": HTML}]}
    return {"resultType": "complete", "contents": [{
        "uri": uri, "mimeType": "text/html; profile=mcp-app",
        "blob": base64.b64encode(HTML.encode()).decode()}]}


def call_answer(request: dict[str, Any]) -> dict[str, Any]:
    name = request["params"]["name"]
    return {"resultType": "complete", "content": [{"type": "text", "text": f"ran {name}"}],
            "structuredContent": {"tool": name}, "_meta": {"source": "fake"}}


def message(ident: Any, method: str, params: Any = None) -> dict[str, Any]:
    found: dict[str, Any] = {"jsonrpc": "2.0", "id": ident, "method": method}
    if params is not None:
        found["params"] = params
    return found


def model_call(name: str, ident: str = "c1", **extra: Any) -> dict[str, Any]:
    return {"id": ident, "type": "function", "function": {"name": name, "arguments": "{}"},
            **extra}


class FakeAppCase(ClientCase):
    def app_client(self, **options: Any) -> Client:
        fake = fake_server({"tools": {}, "resources": {}})
        fake.on("tools/list", {"resultType": "complete", "tools": TOOLS})
        fake.on("resources/read", read_answer)
        fake.on("tools/call", call_answer)
        options.setdefault("apps", True)
        return self.connect(fake, **options)

    def calls(self) -> list[str]:
        return [m["params"]["name"] for m in self.fake.requests("tools/call")]


class VisibilityTest(LeakCheckingTestCase):
    def test_the_tool_metadata_as_the_spec_writes_it(self) -> None:
        by_name = {t["name"]: t for t in TOOLS}
        self.assertEqual(visibility(by_name["plain"]), ("model", "app"))
        self.assertEqual(visibility(by_name["refresh_dashboard"]), ("app",))
        self.assertFalse(model_may_see(by_name["refresh_dashboard"]))
        self.assertFalse(app_may_call(by_name["model_only"]))
        self.assertEqual(resource_uri(by_name["flat"]), URI)   # the deprecated flat key
        self.assertIsNone(resource_uri(by_name["plain"]))
        # a visibility that is not a list of strings is the default, not "hidden"
        self.assertEqual(visibility(tool("odd", {"visibility": "app"})), ("model", "app"))
        self.assertEqual(visibility({"name": "x", "_meta": {"ui": 3}}), ("model", "app"))

    def test_the_mark_is_taken_out_whatever_its_value(self) -> None:
        owner = object()
        mark = AppCall(owner, "t")
        self.assertEqual(take_app_call({APP_CALL: mark, "k": 1}, owner), ({"k": 1}, mark))
        self.assertEqual(take_app_call({APP_CALL: mark}, object()), (None, None))
        self.assertEqual(take_app_call({APP_CALL: "forged"}, owner), (None, None))
        self.assertEqual(take_app_call({"k": 1}, owner), ({"k": 1}, None))
        self.assertEqual(take_app_call(None, owner), (None, None))
        import copy

        self.assertIs(copy.deepcopy({"m": mark})["m"], mark)
        self.assertEqual(repr(mark), "<AppCall 't' pending>")


class ViewFromTest(LeakCheckingTestCase):
    def test_what_a_read_must_hold(self) -> None:
        from mcp_client.apps import view_from

        owner = tool("t", {"resourceUri": URI})
        one = {"uri": "ui://spelt/otherwise", "mimeType": MIME_TYPE, "text": HTML}
        self.assertEqual(view_from(owner, URI, {"contents": [one]}).html, HTML)
        bad: list[tuple[dict[str, Any], str]] = [
               ({"contents": []}, "has no content for it"),
               ({"contents": [one, dict(one)]}, "has no content for it"),
               ({"contents": "x"}, "has no content for it"),
               ({"contents": [{"uri": URI, "mimeType": MIME_TYPE, "blob": "%%"}]},
                "its blob is not base64"),
               ({"contents": [{"uri": URI, "mimeType": MIME_TYPE}]}, "neither text nor blob"),
               ({"contents": [{"uri": URI, "mimeType": None, "text": HTML}]},
                "its MIME type is None")]
        for result, reason in bad:
            with self.assertRaises(AppViewError) as caught:
                view_from(owner, URI, result)
            self.assertIn(reason, caught.exception.reason)


class SplitTest(FakeAppCase):
    def test_only_model_visible_tools_are_declared(self) -> None:
        client = self.app_client()
        self.assertEqual([d["function"]["name"] for d in client.tools_for_llm()],
                         ["get_weather", "model_only", "plain", "flat", "elsewhere",
                          "wrong_type", "blob_view"])
        self.assertEqual(len(client.list_tools()), len(TOOLS))

    def test_the_split_holds_without_the_extension_too(self) -> None:
        client = self.app_client(apps=False)
        self.assertNotIn("refresh_dashboard",
                         [d["function"]["name"] for d in client.tools_for_llm()])
        entry = client.execute_tool_calls([model_call("refresh_dashboard")])[0]
        self.assertEqual(entry["content"], "unknown tool: refresh_dashboard")
        self.assertEqual(self.calls(), [])

    def test_without_a_catalogue_a_known_app_only_tool_is_still_refused(self) -> None:
        client = self.app_client()
        client.tools_for_llm()
        self.fake.on("tools/list", {"resultType": "nonsense"})   # the catalogue breaks
        entry = client.execute_tool_calls([model_call("refresh_dashboard")])[0]
        self.assertEqual(entry["content"], "unknown tool: refresh_dashboard")
        self.assertEqual(self.calls(), [])

    def test_a_views_call_reaches_only_tools_the_app_may_call(self) -> None:
        client = self.app_client()
        mark = AppCall(client, "model_only")
        entries = client.execute_tool_calls([
            model_call("model_only", "a", _meta={APP_CALL: mark})])
        self.assertEqual(entries[0]["content"], "model_only is not callable by the app")
        self.assertIsNone(mark.result)
        self.assertEqual(self.calls(), [])

    def test_a_views_call_keeps_the_full_result_and_sends_no_mark(self) -> None:
        client = self.app_client()
        mark = AppCall(client, "refresh_dashboard")
        entries = client.execute_tool_calls([
            model_call("refresh_dashboard", "a", _meta={APP_CALL: mark, "trace": "t1"})])
        self.assertEqual(entries[0]["content"], "ran refresh_dashboard")
        # the result as call_tool gives it: the result's _meta is bookkeeping, never kept
        self.assertEqual(mark.result, {
            "content": [{"type": "text", "text": "ran refresh_dashboard"}],
            "structuredContent": {"tool": "refresh_dashboard"}})
        sent = self.fake.requests("tools/call")[0]["params"]["_meta"]
        self.assertEqual(sent.get("trace"), "t1")
        self.assertNotIn(APP_CALL, sent)


class ForeignMarkTest(FakeAppCase):
    """A view's call that reaches another server's client is refused, not run as a model's."""

    def test_a_mark_made_for_another_client_is_refused(self) -> None:
        client = self.app_client()
        for name, said in (("model_only", "model_only is not callable by the app"),
                           ("plain", "plain is not callable by the app"),
                           ("refresh_dashboard", "unknown tool: refresh_dashboard")):
            with self.subTest(name=name):
                mark = AppCall(object(), name)
                entry = client.execute_tool_calls([
                    model_call(name, "a", _meta={APP_CALL: mark})])[0]
                self.assertEqual(entry["content"], said)
                self.assertIs(entry["is_error"], True)
                self.assertIsNone(mark.result)
        self.assertEqual(self.calls(), [])

    def test_a_registry_does_not_route_a_views_call_to_another_provider(self) -> None:
        from mcp_client import Registry

        client = self.app_client()
        other = NamesTest.Provider(["dashboard"])
        registry = Registry()
        registry.add(other, prefix="refresh")   # publishes "refresh_dashboard"
        self.assertIsNone(registry.app_tool_name(client, "refresh_dashboard"))
        bridge = AppBridge(client, "get_weather", provider=registry)
        answer = bridge.handle(message("a", "tools/call", {"name": "refresh_dashboard"}))
        assert answer is not None
        self.assertEqual(answer["error"]["code"], -32000, answer)
        self.assertNotIn("result", answer)
        self.assertEqual(self.calls(), [])


class AppForTest(FakeAppCase):
    def test_a_view_carries_the_csp_and_permissions_unchanged(self) -> None:
        client = self.app_client()
        view = client.app_for("get_weather")
        assert view is not None
        self.assertEqual((view.uri, view.html, view.mime_type), (URI, HTML, MIME_TYPE))
        self.assertEqual(view.csp, CONTENT["_meta"]["ui"]["csp"])
        self.assertEqual(view.permissions, {"camera": {}})
        self.assertEqual(view.meta, CONTENT["_meta"]["ui"])
        self.assertEqual(client.app_for("flat"), view)

    def test_a_blob_is_decoded_and_the_tools_meta_is_the_fallback(self) -> None:
        client = self.app_client()
        view = client.app_for("blob_view")
        assert view is not None
        self.assertEqual(view.html, HTML)
        self.assertEqual(view.meta, {"resourceUri": "ui://x/blob"})
        self.assertIsNone(view.csp)

    def test_no_view_and_bad_views(self) -> None:
        client = self.app_client()
        self.assertIsNone(client.app_for("plain"))
        with self.assertRaises(AppViewError) as caught:
            client.app_for("elsewhere")
        self.assertEqual((caught.exception.tool, caught.exception.reason),
                         ("elsewhere", "a view's URI must use the ui:// scheme"))
        with self.assertRaises(AppViewError) as caught:
            client.app_for("wrong_type")
        self.assertIn("'text/html', not 'text/html;profile=mcp-app'", str(caught.exception))
        self.assertIsInstance(caught.exception, MCPClientError)
        with self.assertRaises(MCPClientError):
            client.app_for("no_such_tool")
        self.assertEqual(self.calls(), [])


class BridgeMessagesTest(FakeAppCase):
    def bridge(self, **options: Any) -> AppBridge:
        return AppBridge(self.app_client(), "get_weather", **options)

    def test_initialize_as_in_the_spec(self) -> None:
        bridge = self.bridge(host_context={"theme": "dark", "locale": "en-US"})
        answer = bridge.handle(message(1, "ui/initialize", {
            "appCapabilities": {}, "appInfo": {"name": "My UI", "version": "1.0.0"},
            "protocolVersion": "2026-01-26"}))
        assert answer is not None
        result = answer["result"]
        self.assertEqual(result["protocolVersion"], "2026-01-26")
        self.assertEqual(result["hostInfo"]["name"], "mcp_client")
        self.assertEqual(result["hostCapabilities"],
                         {"serverTools": {}, "serverResources": {}, "logging": {}})
        context = result["hostContext"]
        self.assertEqual((context["theme"], context["displayMode"], context["locale"]),
                         ("dark", "inline", "en-US"))
        self.assertEqual(context["toolInfo"]["tool"]["name"], "get_weather")
        assert bridge.app is not None
        self.assertEqual(bridge.app["appInfo"], {"name": "My UI", "version": "1.0.0"})

    def test_notifications_are_recorded_and_answered_with_none(self) -> None:
        bridge = self.bridge()
        for note in ({"jsonrpc": "2.0", "method": "ui/notifications/initialized"},
                     {"jsonrpc": "2.0", "method": "ui/notifications/size-changed",
                      "params": {"width": 400, "height": 300}},
                     {"jsonrpc": "2.0", "method": "notifications/message",
                      "params": {"level": "info", "data": "hi"}},
                     {"jsonrpc": "2.0", "id": 9, "result": {}}):
            self.assertIsNone(bridge.handle(note))
        self.assertTrue(bridge.initialized)
        self.assertEqual(bridge.size, {"width": 400, "height": 300})
        self.assertEqual(len(bridge.notifications), 4)
        self.assertEqual(repr(bridge), "<AppBridge 'get_weather' initialized calls=0>")

    def test_the_views_tool_calls(self) -> None:
        bridge = self.bridge()
        answer = bridge.handle(message("a", "tools/call", {"name": "refresh_dashboard"}))
        self.assertEqual(answer, {"jsonrpc": "2.0", "id": "a", "result": {
            "content": [{"type": "text", "text": "ran refresh_dashboard"}],
            "structuredContent": {"tool": "refresh_dashboard"}}})
        refused = {name: bridge.handle(message(2, "tools/call", {"name": name}))
                   for name in ("model_only", "nope")}
        self.assertEqual(refused["model_only"]["error"]["code"], -32000)   # type: ignore[index]
        self.assertEqual(refused["nope"]["error"]["code"], -32602)          # type: ignore[index]
        for params in ({}, {"name": 3}, {"name": "plain", "arguments": [1]}):
            answer = bridge.handle(message(3, "tools/call", params))
            assert answer is not None
            self.assertEqual(answer["error"]["code"], -32602, params)
        self.assertEqual(self.calls(), ["refresh_dashboard"])

    def test_a_server_error_goes_back_to_the_view(self) -> None:
        from mcp_client.testing import Error

        bridge = self.bridge()
        self.fake.on("tools/call", Error(-32602, "Unknown tool: plain"))
        answer = bridge.handle(message(4, "tools/call", {"name": "plain"}))
        assert answer is not None
        self.assertEqual(answer["error"], {"code": -32602, "message": "Unknown tool: plain"})

    def test_links_and_messages_are_refused_without_a_hook(self) -> None:
        bridge = self.bridge()
        for method, params in (("ui/open-link", {"url": "https://example.com"}),
                               ("ui/message", {"role": "user",
                                               "content": {"type": "text", "text": "hi"}})):
            answer = bridge.handle(message(5, method, params))
            assert answer is not None
            self.assertEqual(answer["error"]["code"], -32000, method)

    def test_hooks_decide_links_and_messages(self) -> None:
        opened: list[str] = []
        said: list[dict[str, Any]] = []

        def open_link(url: str) -> bool:
            opened.append(url)
            return True

        def take(params: dict[str, Any]) -> bool:
            said.append(params)
            return True

        bridge = self.bridge(on_open_link=open_link, on_message=take)
        answer = bridge.handle(message(1, "ui/initialize", {}))
        assert answer is not None
        self.assertEqual(answer["result"]["hostCapabilities"]["openLinks"], {})
        text = {"role": "user", "content": {"type": "text", "text": "hi"}}
        self.assertEqual(bridge.handle(message(6, "ui/open-link", {"url": "https://x.org"})),
                         {"jsonrpc": "2.0", "id": 6, "result": {}})
        self.assertEqual(bridge.handle(message(7, "ui/message", text)),
                         {"jsonrpc": "2.0", "id": 7, "result": {}})
        self.assertEqual((opened, said), (["https://x.org"], [text]))
        answer = bridge.handle(message(8, "ui/open-link", {"url": "javascript:alert(1)"}))
        assert answer is not None
        self.assertEqual(answer["error"]["code"], -32602)

    def test_a_hook_that_says_no_or_raises_refuses(self) -> None:
        def broken(url: str) -> bool:
            raise RuntimeError("no browser")

        for hook in (lambda url: False, broken):
            bridge = AppBridge(self.app_client(), "get_weather", on_open_link=hook)
            answer = bridge.handle(message(1, "ui/open-link", {"url": "https://x.org"}))
            assert answer is not None
            self.assertEqual(answer["error"]["code"], -32000)

    def test_bad_messages_are_errors_never_tracebacks(self) -> None:
        bridge = self.bridge()
        cases: list[tuple[Any, Any, int]] = [
                 (None, None, -32600), ("text", None, -32600), ([], None, -32600),
                 ({"id": 1, "method": "ping"}, 1, -32600),
                 ({"jsonrpc": "2.0", "id": 2}, 2, -32600),
                 ({"jsonrpc": "2.0", "id": True, "method": "ping"}, None, -32600),
                 ({"jsonrpc": "2.0", "id": 3, "method": "ping", "params": [1]}, 3, -32600),
                 ({"jsonrpc": "2.0", "id": 4, "method": "ui/unknown"}, 4, -32601),
                 ({"jsonrpc": "2.0", "id": 5, "method": "resources/read", "params": {}}, 5,
                  -32602)]
        for sent, ident, code in cases:
            answer = bridge.handle(sent)
            assert answer is not None, sent
            self.assertEqual((answer["id"], answer["error"]["code"]), (ident, code), sent)
        self.assertEqual(bridge.handle(message(6, "ping")),
                         {"jsonrpc": "2.0", "id": 6, "result": {}})
        answer = bridge.handle(message(7, "ui/request-display-mode", {"mode": "fullscreen"}))
        self.assertEqual(answer, {"jsonrpc": "2.0", "id": 7, "result": {"mode": "inline"}})

    def test_the_notifications_for_the_view(self) -> None:
        bridge = self.bridge()
        self.assertEqual(bridge.tool_input({"location": "San Francisco"})["params"],
                         {"arguments": {"location": "San Francisco"}})
        entry = {"role": "tool", "tool_call_id": "c", "content": "sunny", "is_error": True,
                 "structured_content": {"t": 72}}
        self.assertEqual(bridge.tool_result(entry)["params"], {
            "content": [{"type": "text", "text": "sunny"}], "structuredContent": {"t": 72},
            "isError": True})

    def test_bad_arguments(self) -> None:
        client = self.app_client()
        for args, options in ((("",), {}), (("t",), {"on_message": 3}),
                              (("t",), {"provider": object()})):
            with self.assertRaises(MCPClientError):
                AppBridge(client, *args, **options)


class SeamTest(FakeAppCase):
    def test_a_policy_carries_a_calls_request_meta_down(self) -> None:
        seen: list[Any] = []

        class Inner:
            def tools_for_llm(self) -> list[Any]:
                return []

            def execute_tool_calls(self, calls: list[Any]) -> list[Any]:
                seen.extend(calls)
                return [{"role": "tool", "tool_call_id": c["id"], "content": "ok",
                         "is_error": False} for c in calls]

        policy = Policy(Inner(), rules=[{"tool": "t", "decision": "allow"}])
        policy.execute_tool_calls([model_call("t", _meta={"k": "v"}), model_call("t", "c2")])
        self.assertEqual(seen[0]["_meta"], {"k": "v"})
        self.assertNotIn("_meta", seen[1])

    def test_a_bridge_through_a_policy_over_the_client(self) -> None:
        client = self.app_client()
        policy = Policy(client, rules=[{"tool": "refresh_dashboard", "decision": "allow"}])
        bridge = AppBridge(client, "get_weather", provider=policy)
        answer = bridge.handle(message(1, "tools/call", {"name": "refresh_dashboard"}))
        assert answer is not None
        self.assertEqual(answer["result"]["structuredContent"], {"tool": "refresh_dashboard"})

    def test_a_provider_that_drops_the_mark_gives_back_its_entry(self) -> None:
        client = self.app_client()

        class Plain:
            def tools_for_llm(self) -> list[Any]:
                return []

            def execute_tool_calls(self, calls: list[Any]) -> list[Any]:
                return [{"role": "tool", "tool_call_id": "x", "content": "done",
                         "is_error": False, "structured_content": {"n": 1}}]

        bridge = AppBridge(client, "get_weather", provider=Plain())
        answer = bridge.handle(message(1, "tools/call", {"name": "refresh_dashboard"}))
        assert answer is not None
        self.assertEqual(answer["result"], {"content": [{"type": "text", "text": "done"}],
                                            "structuredContent": {"n": 1}})


class OptionsTest(ClientCase):
    def test_apps_must_be_a_boolean(self) -> None:
        with self.assertRaises(MCPClientError) as caught:
            self.connect(apps="yes")
        self.assertEqual(str(caught.exception), "option apps must be True or False, not 'yes'")

    def test_a_config_entry_says_apps_with_a_boolean(self) -> None:
        config = load_config({"mcpServers": {"s": {"command": "x", "apps": True}}})
        self.assertIs(config[0].extra["apps"], True)
        with self.assertRaises(ConfigError) as caught:
            load_config({"mcpServers": {"s": {"command": "x", "apps": "true"}}})
        self.assertEqual(caught.exception.key, "apps")
        with self.assertRaises(ConfigError) as caught:
            load_config({"mcpServers": {"s": {"command": "x", "aps": True}}})
        self.assertIn("did you mean 'apps'", str(caught.exception))


class NamesTest(LeakCheckingTestCase):
    class Provider:
        """A provider with declared tools and, for ``owner``, tools only a view may call."""

        def __init__(self, names: list[str], app: tuple[str, ...] = (),
                     owner: Any = None) -> None:
            self.names, self.app, self.owner = names, app, owner

        def tools_for_llm(self) -> list[Any]:
            return [{"type": "function", "function": {"name": n, "description": "",
                                                      "parameters": {"type": "object"}}}
                    for n in self.names]

        def execute_tool_calls(self, calls: list[Any]) -> list[Any]:
            return [{"role": "tool", "tool_call_id": c["id"], "content": "ran",
                     "is_error": False} for c in calls]

        def app_tool_name(self, client: Any, tool: str) -> str | None:
            return tool if client is self.owner and tool in self.app else None

    def test_a_views_name_that_is_published_for_another_tool_is_none(self) -> None:
        from mcp_client import Registry

        owner = object()
        registry = Registry()
        registry.add(self.Provider(["b_c"]), prefix="a")
        registry.add(self.Provider([], ("c", "d"), owner), prefix="a_b")
        self.assertEqual([d["function"]["name"] for d in registry.tools_for_llm()], ["a_b_c"])
        self.assertIsNone(registry.app_tool_name(owner, "c"))
        self.assertEqual(registry.app_tool_name(owner, "d"), "a_b_d")
        self.assertIsNone(registry.app_tool_name(object(), "d"))
        marked = {"id": "1", "type": "function", "function": {"name": "a_b_d", "arguments": {}},
                  "_meta": {APP_CALL: AppCall(owner, "d")}}
        self.assertEqual(registry.execute_tool_calls([marked])[0]["content"], "ran")
        registry.remove("a_b")
        self.assertEqual(registry.execute_tool_calls([marked])[0]["content"],
                         "unknown tool: a_b_d")

    def test_a_layer_over_a_provider_that_cannot_say_says_none(self) -> None:
        from mcp_client.reasons import Reasons

        owner = object()
        self.assertEqual(Reasons(self.Provider([], ("x",), owner)).app_tool_name(owner, "x"),
                         "x")
        self.assertIsNone(Reasons(NamesTest.Plain()).app_tool_name(owner, "x"))

    class Plain:
        def tools_for_llm(self) -> list[Any]:
            return []

        def execute_tool_calls(self, calls: list[Any]) -> list[Any]:
            return []
