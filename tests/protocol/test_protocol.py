"""mcp_client.protocol: pure functions, no threads, no I/O."""

from __future__ import annotations

import unittest
from typing import Any

from mcp_client import protocol
from mcp_client.exceptions import MCPClientError, ProtocolError
from mcp_client.protocol import Kind


class ClassifyTest(unittest.TestCase):
    def test_shapes(self) -> None:
        cases = [
            ({"jsonrpc": "2.0", "id": 1, "result": {}}, Kind.RESPONSE),
            ({"jsonrpc": "2.0", "id": "a", "error": {"code": -1, "message": "x"}}, Kind.ERROR),
            ({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "x"}},
             Kind.ERROR),
            ({"jsonrpc": "2.0", "method": "notifications/progress"}, Kind.NOTIFICATION),
            ({"jsonrpc": "2.0", "id": 1, "method": "ping"}, Kind.REQUEST),
            ({"jsonrpc": "2.0", "id": 1, "method": "roots/list", "params": {}}, Kind.REQUEST),
            ({"jsonrpc": "1.0", "id": 1, "result": {}}, Kind.INVALID),
            ({"id": 1, "result": {}}, Kind.INVALID),
            ({"jsonrpc": "2.0", "id": 1}, Kind.INVALID),
            ({"jsonrpc": "2.0", "id": 1, "result": {}, "error": {"code": 1}}, Kind.INVALID),
            ({"jsonrpc": "2.0", "id": True, "result": {}}, Kind.INVALID),
            ({"jsonrpc": "2.0", "id": [1], "result": {}}, Kind.INVALID),
            ({"jsonrpc": "2.0", "id": 1, "error": "boom"}, Kind.INVALID),
            ({"jsonrpc": "2.0", "method": 7}, Kind.INVALID),
            ({"jsonrpc": "2.0", "id": None, "method": "ping"}, Kind.INVALID),
            ([{"jsonrpc": "2.0", "id": 1, "result": {}}], Kind.INVALID),
            ("text", Kind.INVALID),
            (None, Kind.INVALID),
        ]
        for message, kind in cases:
            with self.subTest(message=message):
                self.assertIs(protocol.classify(message), kind)

    def test_server_request_with_colliding_id_is_a_request(self) -> None:
        # PROTOCOL §2: legacy servers number their own requests from 1.
        self.assertIs(protocol.classify(
            {"jsonrpc": "2.0", "id": 1, "method": "elicitation/create", "params": {}}),
            Kind.REQUEST)


class BuildTest(unittest.TestCase):
    def test_modern_request_carries_the_envelope(self) -> None:
        meta = protocol.envelope("2026-07-28", client_info={"name": "c", "version": "1"},
                                 capabilities={"roots": {}}, log_level="info",
                                 progress_token="tok")
        message = protocol.request(4, "tools/call", {"name": "echo", "arguments": {}}, meta=meta)
        self.assertEqual(message, {
            "jsonrpc": "2.0", "id": 4, "method": "tools/call",
            "params": {"name": "echo", "arguments": {}, "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"},
                "io.modelcontextprotocol/clientCapabilities": {"roots": {}},
                "io.modelcontextprotocol/logLevel": "info",
                "progressToken": "tok"}}})

    def test_legacy_request_has_bare_params(self) -> None:
        self.assertEqual(protocol.request(2, "ping"),
                         {"jsonrpc": "2.0", "id": 2, "method": "ping"})
        self.assertEqual(protocol.request(3, "tools/list", {}),
                         {"jsonrpc": "2.0", "id": 3, "method": "tools/list"})
        self.assertEqual(protocol.request(6, "tools/call", {"name": "n"},
                                          meta={"progressToken": 7}),
                         {"jsonrpc": "2.0", "id": 6, "method": "tools/call",
                          "params": {"name": "n", "_meta": {"progressToken": 7}}})

    def test_request_does_not_mutate_params(self) -> None:
        params = {"name": "x", "_meta": {"a": 1}}
        protocol.request(1, "m", params, meta={"b": 2})
        self.assertEqual(params, {"name": "x", "_meta": {"a": 1}})

    def test_notification_and_responses(self) -> None:
        self.assertEqual(protocol.notification("notifications/initialized"),
                         {"jsonrpc": "2.0", "method": "notifications/initialized"})
        self.assertEqual(protocol.response(1, {}), {"jsonrpc": "2.0", "id": 1, "result": {}})
        self.assertEqual(protocol.error_response(2, -32601, "nope"),
                         {"jsonrpc": "2.0", "id": 2,
                          "error": {"code": -32601, "message": "nope"}})


class LineTest(unittest.TestCase):
    """``request_line`` writes what ``encode_line(request(...))`` writes, byte for byte."""

    META = protocol.envelope("2026-07-28", client_info={"name": "t", "version": "1"},
                             capabilities={"elicitation": {}}, log_level="info")

    def test_the_spliced_line_is_the_encoded_request(self) -> None:
        cases: list[tuple[Any, Any]] = [
            ({"name": "echo", "arguments": {"text": "h\u00e9llo \u2713", "n": [1, 2.5, None]}},
             self.META),
            ({"name": "x", "_meta": {"progressToken": 7}}, self.META),   # merged, not spliced
            ({}, self.META), (None, self.META), ({"uri": "file:///a"}, None),
            ({"cursor": "c"}, {"progressToken": "p"}),
        ]
        for params, meta in cases:
            with self.subTest(params=params, meta=meta):
                text = protocol.encode_line(meta)[:-1].decode() if meta else None
                line = protocol.request_line(3, "tools/call", params, meta)
                kept = protocol.request_line(3, "tools/call", params, meta, text)
                expected = protocol.encode_line(protocol.request(3, "tools/call", params,
                                                                 meta=meta))
                self.assertEqual(line, expected)
                self.assertEqual(kept, expected)
                self.assertTrue(line.endswith(b"\n"))
                self.assertEqual(line.count(b"\n"), 1)

    def test_what_is_not_json_is_a_client_error(self) -> None:
        for params in ({"name": "x", "arguments": {"n": float("nan")}},
                       {"name": "x", "arguments": {"o": object()}}):
            with self.subTest(params=params):
                with self.assertRaisesRegex(MCPClientError, "cannot encode the message as JSON"):
                    protocol.request_line(1, "tools/call", params, self.META)
        looped: dict[str, object] = {}
        looped["self"] = looped
        with self.assertRaisesRegex(MCPClientError, "cannot encode"):
            protocol.request_line(1, "tools/call", {"name": "x", "arguments": looped}, self.META)


class ShapeTest(unittest.TestCase):
    def test_complete_strips_bookkeeping(self) -> None:
        raw = {"resultType": "complete", "content": [], "isError": False, "ttlMs": 5,
               "cacheScope": "public", "_meta": {protocol.META_SERVER_INFO: {"name": "s"}}}
        shaped = protocol.shape_result("tools/call", raw)
        self.assertEqual(shaped.result_type, "complete")
        self.assertEqual(shaped.body, {"content": [], "isError": False})
        self.assertEqual(shaped.server_info, {"name": "s"})
        self.assertEqual(shaped.ttl_ms, 5)

    def test_missing_result_type_is_complete(self) -> None:
        shaped = protocol.shape_result("tools/list", {"tools": []})
        self.assertEqual((shaped.result_type, shaped.body), ("complete", {"tools": []}))

    def test_input_required(self) -> None:
        raw = {"resultType": "input_required", "inputRequests": {"k": {"method": "roots/list"}},
               "requestState": "s1"}
        shaped = protocol.shape_result("tools/call", raw)
        self.assertEqual(shaped.result_type, "input_required")
        self.assertEqual(shaped.input_requests, {"k": {"method": "roots/list"}})
        self.assertEqual(shaped.request_state, "s1")

    def test_invalid_result_types(self) -> None:
        for method, raw in [("tools/call", {"resultType": "task", "taskId": "t"}),
                            ("tools/list", {"resultType": "input_required",
                                            "requestState": "x"}),
                            ("tools/call", {"resultType": "input_required"}),
                            ("tools/call", {"resultType": 3}),
                            ("tools/call", ["not", "an", "object"]),
                            ("tools/call", None)]:
            with self.subTest(raw=raw), self.assertRaises(ProtocolError) as caught:
                protocol.shape_result(method, raw)
            self.assertIsNone(caught.exception.code)

    def test_ttl_is_clamped(self) -> None:
        for ttl, expected in [(None, 0), (-5, 0), ("9", 0), (True, 0), (1.9, 1), (60000, 60000)]:
            with self.subTest(ttl=ttl):
                self.assertEqual(protocol.Shaped("complete", {}, {"ttlMs": ttl}).ttl_ms, expected)

    def test_error_from(self) -> None:
        error = protocol.error_from({"jsonrpc": "2.0", "id": 1, "error": {
            "code": -32022, "message": "Unsupported", "data": {"supported": ["2026-07-28"]}}})
        self.assertEqual((error.code, error.message, error.data),
                         (-32022, "Unsupported", {"supported": ["2026-07-28"]}))


class VersionTest(unittest.TestCase):
    def test_versions(self) -> None:
        self.assertTrue(protocol.is_modern_version("2026-07-28"))
        self.assertTrue(protocol.is_modern_version("2027-01-01"))
        self.assertFalse(protocol.is_modern_version("2025-11-25"))
        self.assertFalse(protocol.is_modern_version("latest"))
        self.assertEqual(protocol.pick_version(["b", "a"], ["a", "b"]), "b")
        self.assertIsNone(protocol.pick_version(["a"], []))
        self.assertEqual(protocol.discover_versions({"supportedVersions": []}), [])
        self.assertIsNone(protocol.discover_versions({"capabilities": {}}))
        self.assertIsNone(protocol.discover_versions({"supportedVersions": [1]}))
        self.assertTrue(protocol.legacy_version_ok("2024-11-05"))
        self.assertFalse(protocol.legacy_version_ok("2026-07-28"))


if __name__ == "__main__":
    unittest.main()
