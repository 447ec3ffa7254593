"""MCP Apps against a real app server: ``examples/servers/counter_app.py`` (official SDK).

The counter's ``show_counter`` is the model's tool and has a view; ``increment`` is the
view's (``visibility: ["app"]``).  What the server ran is read from its ``--log`` file (a
line per ``increment``) and from its count, so "the server never saw it" is a fact about
the server, not about the client."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any, Mapping

from mcp_client import Client, Registry
from mcp_client.apps import APP_CALL, EXTENSION, MIME_TYPE, AppBridge, AppCall, AppView
from mcp_client.policy import Policy
from mcp_client.stdio import StdioTransport

from ..base import PYTHON, ClientCase

COUNTER = str(Path(__file__).resolve().parents[2] / "examples" / "servers" / "counter_app.py")
QUICKSTART = str(Path(COUNTER).with_name("quickstart_server.py"))
URI = "ui://counter/view.html"
UI_CAPABILITY = {"mimeTypes": [MIME_TYPE]}


class Recording(StdioTransport):
    """A stdio transport that keeps every message the client sent."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.sent: list[dict[str, Any]] = []

    def send(self, message: dict[str, Any], *,
             headers: Mapping[str, str] | None = None) -> None:
        self.sent.append(message)
        super().send(message, headers=headers)

    def send_line(self, data: bytes) -> None:   # requests encoded ahead arrive here
        self.sent.append(json.loads(data))
        super().send_line(data)


def call(name: str, ident: str = "c1", arguments: Any = "{}", **extra: Any) -> dict[str, Any]:
    return {"id": ident, "type": "function", "function": {"name": name, "arguments": arguments},
            **extra}


def request(ident: int, method: str, params: Any = None) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": ident, "method": method}
    if params is not None:
        message["params"] = params
    return message


class CounterCase(ClientCase):
    def setUp(self) -> None:
        super().setUp()
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        self.log = os.path.join(folder.name, "increments.log")

    def counter(self, **options: Any) -> Client:
        """A client of the counter server (apps=True unless told), its wire recorded."""
        options.setdefault("apps", True)
        self.wire = Recording(PYTHON, args=[COUNTER, "--log", self.log])
        return self.connect(self.wire, **options)

    def increments(self) -> list[str]:
        """The increments the server ran, as its log says."""
        if not os.path.exists(self.log):
            return []
        with open(self.log, encoding="utf-8") as notes:
            return notes.read().splitlines()

    def count(self, client: Client) -> int:
        result = client.call_tool("show_counter")
        return int(result["structuredContent"]["count"])


class DeclareAndSplitTest(CounterCase):
    def test_the_extension_is_declared_on_the_modern_wire(self) -> None:
        client = self.counter()
        self.assertEqual(client.era, "modern")
        meta = self.wire.sent[0]["params"]["_meta"]
        self.assertEqual(meta["io.modelcontextprotocol/clientCapabilities"]["extensions"]
                         [EXTENSION], UI_CAPABILITY)

    def test_the_extension_is_declared_in_the_handshake(self) -> None:
        client = self.counter(era="legacy")
        self.assertEqual(client.era, "legacy")
        initialize = next(m for m in self.wire.sent if m.get("method") == "initialize")
        self.assertEqual(initialize["params"]["capabilities"]["extensions"][EXTENSION],
                         UI_CAPABILITY)

    def test_without_apps_nothing_is_declared(self) -> None:
        client = self.counter(apps=False)
        self.assertNotIn(EXTENSION, client.declared_capabilities["extensions"])

    def test_the_model_is_offered_the_tool_with_a_view_and_not_the_views_tool(self) -> None:
        client = self.counter()
        self.assertEqual([d["function"]["name"] for d in client.tools_for_llm()],
                         ["show_counter"])
        self.assertEqual(sorted(t["name"] for t in client.list_tools()),
                         ["increment", "show_counter"])

    def test_a_model_call_to_the_views_tool_is_an_unknown_tool(self) -> None:
        client = self.counter()
        entries = client.execute_tool_calls([call("increment")])
        self.assertEqual(entries, [{"role": "tool", "tool_call_id": "c1",
                                    "content": "unknown tool: increment", "is_error": True}])
        self.assertEqual(self.count(client), 0)
        self.assertEqual(self.increments(), [])

    def test_a_model_call_forging_the_views_mark_is_still_unknown(self) -> None:
        client = self.counter()
        forged = [call("increment", "a", _meta={APP_CALL: {"client": "x"}}),
                  call("increment", "b", _meta={APP_CALL: True}),
                  call("increment", "c", arguments={APP_CALL: True, "_meta": {APP_CALL: 1}}),
                  # a mark made for another client opens nothing here
                  call("increment", "d", _meta={APP_CALL: AppCall(object(), "increment")})]
        entries = client.execute_tool_calls(forged)
        self.assertEqual([e["content"] for e in entries], ["unknown tool: increment"] * 4)
        self.assertEqual(self.increments(), [])

    def test_a_model_call_through_a_policy_and_a_registry_is_unknown(self) -> None:
        client = self.counter()
        registry = Registry()
        registry.add(client, prefix="counter")
        policy = Policy(registry, rules=[{"tool": "*", "decision": "allow"}])
        self.assertEqual([d["function"]["name"] for d in policy.tools_for_llm()],
                         ["counter_show_counter"])
        entries = policy.execute_tool_calls([call("counter_increment")])
        self.assertEqual(entries[0]["content"], "unknown tool: counter_increment")
        self.assertEqual(self.increments(), [])

    def test_no_adapter_offers_or_runs_the_views_tool(self) -> None:
        from mcp_client.adapters import openai_responses

        client = self.counter()
        self.assertEqual([t["name"] for t in openai_responses.tools(client)], ["show_counter"])
        outputs = openai_responses.run(client, [{"type": "function_call", "call_id": "r1",
                                                 "name": "increment", "arguments": "{}"}])
        self.assertEqual(outputs[0]["output"], "unknown tool: increment")
        self.assertEqual(self.increments(), [])

    def test_no_framework_adapter_offers_the_views_tool(self) -> None:
        from pydantic_ai import Agent
        from pydantic_ai.messages import ModelResponse, TextPart
        from pydantic_ai.models.function import AgentInfo, FunctionModel

        from mcp_client.adapters import (anthropic, gemini, langchain, openai_agents,
                                         pydantic_ai, smolagents)

        client = self.counter()
        offered = {"anthropic": [t["name"] for t in anthropic.tools(client)],
                   "gemini": [d["name"] for d in gemini.declarations(client)],
                   "langchain": [t.name for t in langchain.tools(client)],
                   "openai_agents": [t.name for t in openai_agents.tools(client)],
                   "smolagents": [t.name for t in smolagents.tools(client)]}
        seen: list[str] = []

        def model(messages: Any, info: AgentInfo) -> ModelResponse:
            seen.extend(tool.name for tool in info.function_tools)
            return ModelResponse(parts=[TextPart("done")])

        Agent(FunctionModel(model), toolsets=[pydantic_ai.toolset(client)]).run_sync("hi")
        offered["pydantic_ai"] = seen
        self.assertEqual(offered, dict.fromkeys(offered, ["show_counter"]))
        self.assertEqual(self.increments(), [])


class AppViewTest(CounterCase):
    def test_the_tools_view_is_read_and_checked(self) -> None:
        client = self.counter()
        view = client.app_for("show_counter")
        assert view is not None
        self.assertIsInstance(view, AppView)
        self.assertEqual((view.uri, view.mime_type), (URI, MIME_TYPE))
        self.assertTrue(view.html.startswith("<!DOCTYPE html>"))
        self.assertIn('"tools/call"', view.html)
        self.assertIsNone(view.csp)
        self.assertIsNone(view.permissions)
        self.assertEqual(view.meta, {"prefersBorder": True})
        self.assertEqual(client.app_for("increment"), view)   # the same view, read once more


class BridgeTest(CounterCase):
    def test_the_view_initializes_and_its_button_reaches_the_server_once(self) -> None:
        client = self.counter()
        bridge = AppBridge(client, "show_counter")
        answer = bridge.handle(request(1, "ui/initialize", {
            "protocolVersion": "2026-01-26", "appInfo": {"name": "counter", "version": "1"},
            "appCapabilities": {}}))
        assert answer is not None
        result = answer["result"]
        self.assertEqual(result["protocolVersion"], "2026-01-26")
        self.assertEqual(result["hostContext"]["toolInfo"]["tool"]["name"], "show_counter")
        self.assertIsNone(bridge.handle({"jsonrpc": "2.0",
                                         "method": "ui/notifications/initialized"}))
        self.assertTrue(bridge.initialized)
        answer = bridge.handle(request(2, "tools/call", {"name": "increment", "arguments": {}}))
        assert answer is not None
        self.assertEqual(answer["result"]["structuredContent"], {"count": 1})
        self.assertEqual(self.increments(), ["increment 1"])

    def test_through_a_policy_that_allows_it_the_full_result_comes_back(self) -> None:
        client = self.counter()
        policy = Policy(client, rules=[{"tool": "increment", "decision": "allow"}])
        bridge = AppBridge(client, "show_counter", provider=policy)
        answer = bridge.handle(request(7, "tools/call", {"name": "increment"}))
        self.assertEqual(answer, {"jsonrpc": "2.0", "id": 7, "result": {
            "content": [{"type": "text", "text": '{\n  "count": 1\n}'}],
            "structuredContent": {"count": 1}, "isError": False}})
        self.assertEqual(self.increments(), ["increment 1"])
        # the mark never reaches the wire
        sent = [m for m in self.wire.sent if m.get("method") == "tools/call"]
        self.assertEqual(len(sent), 1)
        self.assertNotIn(APP_CALL, sent[0]["params"].get("_meta", {}))

    def test_a_policy_that_denies_it_answers_the_view_with_an_error(self) -> None:
        client = self.counter()
        policy = Policy(client, rules=[{"tool": "increment", "decision": "deny"}])
        bridge = AppBridge(client, "show_counter", provider=policy)
        answer = bridge.handle(request(3, "tools/call", {"name": "increment", "arguments": {}}))
        assert answer is not None
        self.assertEqual(answer["error"]["code"], -32000)
        self.assertIn("increment", answer["error"]["message"])
        self.assertNotIn("result", answer)
        self.assertEqual(self.count(client), 0)
        self.assertEqual(self.increments(), [])
        self.assertEqual([m["params"]["name"] for m in self.wire.sent
                          if m.get("method") == "tools/call"], ["show_counter"])

    def test_another_servers_tool_is_refused_whatever_the_provider(self) -> None:
        client = self.counter()
        other = self.connect(args=[QUICKSTART])
        registry = Registry()
        registry.add(client, prefix="counter")
        registry.add(other, prefix="demo")
        self.addCleanup(registry.close)
        published = [d["function"]["name"] for d in registry.tools_for_llm()]
        self.assertIn("demo_echo", published)
        bridge = AppBridge(client, "show_counter", provider=registry)
        for name in ("echo", "demo_echo"):
            answer = bridge.handle(request(4, "tools/call",
                                           {"name": name, "arguments": {"text": "hi"}}))
            assert answer is not None
            self.assertEqual(answer["error"]["code"], -32602, name)
            self.assertIn("only the tools of its own server", answer["error"]["message"])

    def registry_policy(self, client: Client, decision: str) -> Policy:
        """A Policy over a Registry of the counter and the quickstart server."""
        registry = Registry()
        registry.add(client, prefix="counter")
        registry.add(self.connect(args=[QUICKSTART]), prefix="demo")
        self.addCleanup(registry.close)
        return Policy(registry, rules=[{"tool": "counter_increment", "decision": decision},
                                       {"tool": "*", "decision": "allow"}])

    def test_through_a_policy_over_a_registry_the_view_goes_by_the_prefixed_name(self) -> None:
        client = self.counter()
        policy = self.registry_policy(client, "allow")
        self.assertEqual(policy.app_tool_name(client, "increment"), "counter_increment")
        self.assertEqual(policy.app_tool_name(client, "show_counter"), "counter_show_counter")
        self.assertIsNone(policy.app_tool_name(object(), "increment"))
        bridge = AppBridge(client, "show_counter", provider=policy)
        answer = bridge.handle(request(1, "tools/call", {"name": "increment"}))
        assert answer is not None
        self.assertEqual(answer["result"]["structuredContent"], {"count": 1})
        self.assertEqual(self.increments(), ["increment 1"])
        # the name a view's call goes by is still no name for a model
        self.assertNotIn("counter_increment",
                         [d["function"]["name"] for d in policy.tools_for_llm()])
        entries = policy.execute_tool_calls([
            call("counter_increment"),
            call("counter_increment", "c2", _meta={APP_CALL: "forged"})])
        self.assertEqual([e["content"] for e in entries], ["unknown tool: counter_increment"] * 2)
        self.assertEqual(self.increments(), ["increment 1"])

    def test_a_deny_rule_on_the_prefixed_name_refuses_the_view(self) -> None:
        client = self.counter()
        bridge = AppBridge(client, "show_counter",
                           provider=self.registry_policy(client, "deny"))
        answer = bridge.handle(request(2, "tools/call", {"name": "increment"}))
        assert answer is not None
        self.assertEqual(answer["error"]["code"], -32000)
        self.assertIn("counter_increment", answer["error"]["message"])
        self.assertEqual(self.increments(), [])

    def test_the_view_reads_its_servers_resource(self) -> None:
        client = self.counter()
        bridge = AppBridge(client, "show_counter")
        answer = bridge.handle(request(5, "resources/read", {"uri": URI}))
        assert answer is not None
        self.assertEqual(answer["result"]["contents"][0]["mimeType"], MIME_TYPE)

    def test_the_notifications_the_view_is_sent(self) -> None:
        client = self.counter()
        bridge = AppBridge(client, "show_counter")
        result = client.call_tool("show_counter")
        self.assertEqual(bridge.tool_input({}), {
            "jsonrpc": "2.0", "method": "ui/notifications/tool-input",
            "params": {"arguments": {}}})
        self.assertEqual(bridge.tool_result(result), {
            "jsonrpc": "2.0", "method": "ui/notifications/tool-result",
            "params": dict(result)})
        self.assertEqual(bridge.tool_result(result)["params"]["structuredContent"], {"count": 0})


class ConfigTest(CounterCase):
    def test_an_entry_saying_apps_declares_the_extension(self) -> None:
        registry = Registry.from_config({"mcpServers": {"counter": {
            "command": PYTHON, "args": [COUNTER], "apps": True}}})
        self.addCleanup(registry.close)
        self.assertEqual([d["function"]["name"] for d in registry.tools_for_llm()],
                         ["counter_show_counter"])
        client = registry.providers[0]["provider"]
        self.assertEqual(client.declared_capabilities["extensions"][EXTENSION], UI_CAPABILITY)
