"""mcp_client.xheaders: x-mcp-header validity, rendering and encoding (pure functions)."""

from __future__ import annotations

import base64
from typing import Any

from mcp.shared.inbound import encode_header_value, find_invalid_x_mcp_header

from mcp_client.exceptions import MCPClientError
from mcp_client.xheaders import (MAX_SAFE_INTEGER, encode_value, header_paths, headers_for_call,
                                 invalid_reason, render)

from ..base import LeakCheckingTestCase


def tool(properties: dict[str, Any], **schema: Any) -> dict[str, Any]:
    return {"name": "t", "inputSchema": {"type": "object", "properties": properties, **schema}}


def prop(kind: Any, header: Any = "Region") -> dict[str, Any]:
    return {"type": kind, "x-mcp-header": header}


#: The demo server's region_query, as the SDK lists it (PROTOCOL §13.1).
REGION_QUERY = {"name": "region_query", "inputSchema": {
    "type": "object", "title": "region_queryArguments", "required": ["region", "query"],
    "properties": {"region": {"title": "Region", "type": "string", "x-mcp-header": "Region"},
                   "query": {"title": "Query", "type": "string"}}}}

VALID = {
    "no annotations": tool({"q": {"type": "string"}}),
    "no schema": {"name": "t"},
    "schema not an object": {"name": "t", "inputSchema": "nope"},
    "region_query": REGION_QUERY,
    "integer and boolean": tool({"n": prop("integer", "N"), "b": prop("boolean", "B")}),
    "nested properties": tool({"outer": {"type": "object", "properties": {
        "inner": prop("string", "Inner")}}}),
    "every tchar": tool({"v": prop("string", "!#$%&'*+-.^_`|~09azAZ")}),
    "a property named x-mcp-header": tool({"x-mcp-header": {"type": "string"}}),
    "instance data is not walked": tool({"v": {"type": "object",
                                               "default": {"x-mcp-header": "No"}}}),
    "$ref is not followed": tool({"v": {"$ref": "#/$defs/r"}}, **{"$defs": {"r": {}}}),
}

INVALID = {
    "empty": tool({"v": prop("string", "")}),
    "not a string": tool({"v": prop("string", 5)}),
    "space": tool({"v": prop("string", "My Region")}),
    "colon": tool({"v": prop("string", "Region:Primary")}),
    "non-ascii": tool({"v": prop("string", "Région")}),
    "control character": tool({"v": prop("string", "Region\t1")}),
    "object": tool({"v": prop("object", "Data")}),
    "array": tool({"v": {"type": "array", "items": {"type": "string"}, "x-mcp-header": "I"}}),
    "null": tool({"v": prop("null", "Nil")}),
    "number": tool({"v": prop("number", "Num")}),
    "no type": tool({"v": {"x-mcp-header": "X"}}),
    "type list": tool({"v": prop(["string", "null"], "X")}),
    "duplicate": tool({"a": prop("string", "Region"), "b": prop("string", "Region")}),
    "duplicate, other case": tool({"a": prop("string", "MyField"), "b": prop("string", "myfield")}),
    "duplicate across levels": tool({"a": prop("string", "X"), "o": {
        "type": "object", "properties": {"b": prop("string", "x")}}}),
    "root": {"name": "t", "inputSchema": {"type": "object", "x-mcp-header": "Root"}},
    "under items": tool({"l": {"type": "array", "items": {"type": "object", "properties": {
        "v": prop("string")}}}}),
    "under anyOf": tool({}, anyOf=[{"properties": {"v": prop("string")}}]),
    "under allOf": tool({}, allOf=[{"properties": {"v": prop("string")}}]),
    "under oneOf": tool({"v": {"oneOf": [prop("string")]}}),
    "under not": tool({"v": {"not": prop("string")}}),
    "under if/then/else": tool({}, **{"if": {}, "then": {"properties": {"v": prop("string")}}}),
    "under $defs": tool({"v": {"$ref": "#/$defs/r"}}, **{"$defs": {"r": prop("string")}}),
    "under additionalProperties": tool({}, additionalProperties=prop("string")),
    "under patternProperties": tool({}, patternProperties={"^a": prop("string")}),
}


class ValidityTest(LeakCheckingTestCase):
    def test_valid_tools(self) -> None:
        for label, case in VALID.items():
            with self.subTest(label):
                self.assertIsNone(invalid_reason(case))

    def test_invalid_tools_each_get_a_reason(self) -> None:
        for label, case in INVALID.items():
            with self.subTest(label):
                reason = invalid_reason(case)
                self.assertIsInstance(reason, str)
                self.assertIn("x-mcp-header", reason or "")

    def test_the_reasons_name_the_property(self) -> None:
        self.assertIn("'v'", invalid_reason(INVALID["number"]) or "")
        self.assertIn("repeats property 'a'", invalid_reason(INVALID["duplicate"]) or "")
        self.assertIn("root", invalid_reason(INVALID["root"]) or "")
        self.assertIn("statically reachable", invalid_reason(INVALID["under items"]) or "")

    def test_verdicts_match_the_official_sdk(self) -> None:
        for label, case in {**VALID, **INVALID}.items():
            with self.subTest(label):
                sdk = find_invalid_x_mcp_header(case.get("inputSchema"))
                self.assertEqual(invalid_reason(case) is None, sdk is None)

    def test_a_tool_that_is_not_a_dict_is_refused(self) -> None:
        with self.assertRaises(MCPClientError):
            invalid_reason("tool")  # type: ignore[arg-type]


class PathsTest(LeakCheckingTestCase):
    def test_paths_in_schema_order_nested_included(self) -> None:
        case = tool({"b": prop("string", "B"), "o": {"type": "object", "properties": {
            "deep": {"type": "object", "properties": {"v": prop("integer", "Deep")}}}},
            "a": prop("boolean", "A")})
        self.assertEqual(header_paths(case),
                         [(("b",), "B"), (("o", "deep", "v"), "Deep"), (("a",), "A")])
        self.assertEqual(header_paths(REGION_QUERY), [(("region",), "Region")])
        self.assertEqual(header_paths(VALID["no schema"]), [])

    def test_an_invalid_tool_has_no_paths(self) -> None:
        with self.assertRaises(MCPClientError) as caught:
            header_paths(INVALID["number"])
        self.assertIn("'t'", str(caught.exception))


class RenderTest(LeakCheckingTestCase):
    def test_values(self) -> None:
        cases = [(None, None), ("us-west1", "us-west1"), ("", ""), (True, "true"),
                 (False, "false"), (0, "0"), (42, "42"), (-7, "-7"),
                 (MAX_SAFE_INTEGER, "9007199254740991"), (-MAX_SAFE_INTEGER, "-9007199254740991"),
                 (42.0, "42"), (3.5, "3.5"), (-0.25, "-0.25")]
        for value, expected in cases:
            with self.subTest(value=value):
                self.assertEqual(render(value), expected)

    def test_values_that_cannot_be_headers(self) -> None:
        for value in (MAX_SAFE_INTEGER + 1, -MAX_SAFE_INTEGER - 1, 2.0 ** 60, float("nan"),
                      float("inf"), {"a": 1}, [1], b"x"):
            with self.subTest(value=value), self.assertRaises(MCPClientError):
                render(value)


class EncodeTest(LeakCheckingTestCase):
    PLAIN = ["us-west1", "", "us west 1", "a=b?c", "=?base64?", "tools/call", "~!@#$%^&*()"]
    WRAPPED = [" padded ", " lead", "trail ", "\tindented", "line1\nline2", "line1\r\nline2",
               "Hello, 世界", "Zürich", "del\x7f", "nul\x00", "=?base64?abc?=", "=?base64??="]

    def test_plain_printable_ascii_goes_as_it_is(self) -> None:
        for value in self.PLAIN:
            self.assertEqual(encode_value(value), value)

    def test_everything_else_is_wrapped_in_the_base64_sentinel(self) -> None:
        for value in self.WRAPPED:
            with self.subTest(value=value):
                encoded = encode_value(value)
                self.assertTrue(encoded.startswith("=?base64?") and encoded.endswith("?="))
                self.assertEqual(base64.b64decode(encoded[9:-2]).decode("utf-8"), value)
                self.assertTrue(all(0x20 < ord(c) < 0x7f for c in encoded))

    def test_the_observed_transcript_value(self) -> None:
        self.assertEqual(encode_value("Zürich"), "=?base64?WsO8cmljaA==?=")   # PROTOCOL §13.9

    def test_encoding_matches_the_official_sdk(self) -> None:
        for value in self.PLAIN + self.WRAPPED:
            with self.subTest(value=value):
                self.assertEqual(encode_value(value), encode_header_value(value))


class CallHeadersTest(LeakCheckingTestCase):
    def test_region_query(self) -> None:
        self.assertEqual(headers_for_call(REGION_QUERY, {"region": "us-west1", "query": "q"}),
                         {"Mcp-Param-Region": "us-west1"})
        self.assertEqual(headers_for_call(REGION_QUERY, {"region": "Zürich"}),
                         {"Mcp-Param-Region": "=?base64?WsO8cmljaA==?="})

    def test_absent_and_null_values_are_omitted(self) -> None:
        self.assertEqual(headers_for_call(REGION_QUERY, {"query": "q"}), {})
        self.assertEqual(headers_for_call(REGION_QUERY, {"region": None}), {})
        self.assertEqual(headers_for_call(REGION_QUERY, None), {})

    def test_the_conformance_suites_custom_header_call(self) -> None:
        names = {"region": "Region", "priority": "Priority", "verbose": "Verbose",
                 "debug": "Debug", "empty_val": "EmptyVal", "method_val": "Method",
                 "non_ascii_val": "NonAscii", "whitespace_val": "Whitespace", "tab_val": "Tab",
                 "control_char_val": "ControlChar", "crlf_val": "CrLf"}
        kinds = {"priority": "integer", "verbose": "boolean", "debug": "boolean"}
        case = tool({key: prop(kinds.get(key, "string"), token) for key, token in names.items()}
                    | {"float_val": {"type": "number"}, "query": {"type": "string"}})
        arguments = {"region": "us-west1", "priority": 42, "verbose": False, "debug": True,
                     "empty_val": "", "method_val": "test-method", "non_ascii_val": "Hello, 世界",
                     "whitespace_val": " padded ", "tab_val": "\tindented",
                     "control_char_val": "line1\nline2", "crlf_val": "line1\r\nline2",
                     "float_val": 3.14159, "query": "SELECT * FROM users"}
        headers = headers_for_call(case, arguments)
        self.assertEqual(headers["Mcp-Param-Region"], "us-west1")
        self.assertEqual(headers["Mcp-Param-Priority"], "42")
        self.assertEqual((headers["Mcp-Param-Verbose"], headers["Mcp-Param-Debug"]),
                         ("false", "true"))
        self.assertEqual(headers["Mcp-Param-EmptyVal"], "")
        self.assertEqual(headers["Mcp-Param-Method"], "test-method")
        self.assertEqual(headers["Mcp-Param-NonAscii"], encode_header_value("Hello, 世界"))
        self.assertEqual(len(headers), len(names))   # float_val and query are not mirrored

    def test_nested_values(self) -> None:
        case = tool({"o": {"type": "object", "properties": {"v": prop("integer", "V")}}})
        self.assertEqual(headers_for_call(case, {"o": {"v": 7}}), {"Mcp-Param-V": "7"})
        self.assertEqual(headers_for_call(case, {"o": "not an object"}), {})

    def test_a_value_that_cannot_be_sent_names_the_argument(self) -> None:
        case = tool({"n": prop("integer", "N")})
        with self.assertRaises(MCPClientError) as caught:
            headers_for_call(case, {"n": 2 ** 60})
        self.assertIn("'n'", str(caught.exception))
        self.assertIn("Mcp-Param-N", str(caught.exception))
