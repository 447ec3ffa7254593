"""The last protocol completions: sampling with tools, and a cap on a result's text.

Sampling with tools runs against ``tests/servers/sampling_server.py`` (the official SDK,
which sends a sampling request with tools only to a client that declared
``sampling.tools``), in both eras.
"""

from __future__ import annotations

import json
from typing import Any

from mcp_client import MCPClientError, ProtocolError
from mcp_client.types import text_of

from ..base import ClientCase, fake_server

TOOL_USE = {"role": "assistant", "model": "m1", "stopReason": "toolUse",
            "content": [{"type": "tool_use", "id": "t1", "name": "lookup_city",
                         "input": {"city": "Lyon"}}]}


class SamplingWithToolsTest(ClientCase):
    script = "sampling_server.py"

    def test_the_capability_is_declared_and_the_hook_sees_the_tools(self) -> None:
        for era in ("auto", "legacy"):
            with self.subTest(era=era):
                asked: list[dict[str, Any]] = []

                def sample(request: dict[str, Any]) -> dict[str, Any]:
                    asked.append(request)
                    return TOOL_USE

                client = self.connect(era=era, on_sample=sample, sampling_tools=True)
                self.assertEqual(client.declared_capabilities["sampling"], {"tools": {}})
                answer = json.loads(text_of(client.call_tool("plan_trip")))
                self.assertEqual(answer, {"stopReason": "toolUse",
                                          "content": TOOL_USE["content"]})
                params = asked[0]["params"]
                self.assertEqual([tool["name"] for tool in params["tools"]], ["lookup_city"])
                self.assertEqual(params["tools"][0]["inputSchema"]["required"], ["city"])
                self.assertEqual(params["toolChoice"], {"mode": "auto"})
                client.close()

    def test_without_the_capability_the_server_does_not_get_tool_use(self) -> None:
        for era in ("auto", "legacy"):
            with self.subTest(era=era):
                client = self.connect(era=era, on_sample=lambda request: TOOL_USE)
                self.assertEqual(client.declared_capabilities["sampling"], {})
                try:
                    result: Any = client.call_tool("plan_trip")
                except ProtocolError as exc:   # the server refused before asking
                    result = {"isError": True, "content": [{"type": "text", "text": str(exc)}]}
                self.assertTrue(result.get("isError"), result)
                client.close()

    def test_the_option_is_checked(self) -> None:
        with self.assertRaisesRegex(MCPClientError, "needs an on_sample hook"):
            self.connect(sampling_tools=True)
        with self.assertRaisesRegex(MCPClientError, "sampling_tools must be True or False"):
            self.connect(on_sample=lambda r: TOOL_USE, sampling_tools="yes")


class UndeclaredToolSamplingTest(ClientCase):
    """A server that sends tools anyway is refused, in each era's way (the spec's MUST)."""

    def request(self, **params: Any) -> dict[str, Any]:
        return {"jsonrpc": "2.0", "id": 7, "method": "sampling/createMessage",
                "params": {"messages": [], "maxTokens": 5, **params}}

    def test_legacy_refuses_with_invalid_params(self) -> None:
        seen: list[Any] = []

        def sample(request: dict[str, Any]) -> dict[str, Any]:
            seen.append(request)
            return TOOL_USE

        client = self.connect(on_sample=sample)
        inputs = client._connection._inputs
        extras: list[dict[str, Any]] = [{"tools": []}, {"toolChoice": {"mode": "none"}}]
        for extra in extras:
            with self.subTest(extra=extra):
                reply = inputs.answer_request(self.request(**extra))
                self.assertEqual(reply["error"]["code"], -32602)
                self.assertIn("did not declare sampling.tools", reply["error"]["message"])
        self.assertEqual(seen, [])
        self.assertIn("refused the server's sampling request", self.warnings[0])
        plain = inputs.answer_request(self.request())
        self.assertEqual(plain["result"], TOOL_USE)

    def test_modern_fails_the_call(self) -> None:
        client = self.connect(on_sample=lambda request: TOOL_USE)
        with self.assertRaisesRegex(ProtocolError, "declined"):
            client._connection._inputs.answer_round("tools/call", {
                "s": {"method": "sampling/createMessage",
                      "params": {"messages": [], "maxTokens": 5, "tools": []}}})


class ResultCapTest(ClientCase):
    def run_dump(self, text: str, **options: Any) -> dict[str, Any]:
        fake = fake_server({"tools": {}})
        fake.on("tools/list", {"tools": [{"name": "dump", "inputSchema": {"type": "object"}}]})
        fake.on("tools/call", {"content": [{"type": "text", "text": text}],
                               "structuredContent": {"rows": text}})
        client = self.connect(transport=fake, **options)
        entry: dict[str, Any] = dict(client.execute_tool_calls([
            {"id": "1", "function": {"name": "dump", "arguments": "{}"}}])[0])
        return entry

    def test_a_long_text_is_cut_with_a_notice_and_the_structure_kept(self) -> None:
        entry = self.run_dump("é" * 150_000)
        self.assertEqual(entry["content"][:100_000], "é" * 100_000)
        self.assertEqual(entry["content"][100_000:],
                         "\n[cut: 50,000 more characters of 150,000 not shown; ask the tool "
                         "for less, e.g. a narrower query or one page]")
        self.assertEqual(entry["structured_content"], {"rows": "é" * 150_000})
        self.assertFalse(entry["is_error"])

    def test_at_the_limit_nothing_is_cut_and_none_turns_it_off(self) -> None:
        self.assertEqual(self.run_dump("x" * 10, max_result_chars=10)["content"], "x" * 10)
        self.assertEqual(self.run_dump("x" * 11, max_result_chars=10)["content"][:11],
                         "x" * 10 + "\n")
        self.assertEqual(self.run_dump("x" * 200_000, max_result_chars=None)["content"],
                         "x" * 200_000)

    def test_the_option_is_checked(self) -> None:
        for bad in (0, -1, 1.5, True, "10"):
            with self.subTest(bad=bad):
                with self.assertRaisesRegex(MCPClientError, "max_result_chars"):
                    self.connect(max_result_chars=bad)
