"""Bounds on what a server can make the client hold or spend: list calls in bytes,
server-supplied regular expressions in time."""

from __future__ import annotations

import re
import time
import unittest
from typing import Any
from unittest import mock

from mcp_client import Client, ProtocolError
from mcp_client.client import _schema
from mcp_client.client._outputs import OutputChecks
from mcp_client.client._paging import MAX_LIST_BYTES
from mcp_client.testing import FakeTransport

from ..base import ClientCase, fake_server, server
from ..tables import add_rows

MIB = 1 << 20


def modern_fake() -> FakeTransport:
    return fake_server(uncached=True)


def endless_pages(key: str, entry: dict[str, Any], count: int) -> Any:
    """An answer for ``count`` pages of one ``entry`` each, chained by cursors."""
    def answer(message: dict[str, Any]) -> dict[str, Any]:
        number = int(message["params"].get("cursor", "0"))
        page: dict[str, Any] = {key: [entry]}
        if number + 1 < count:
            page["nextCursor"] = str(number + 1)
        return page
    return answer


class ListBytesTest(ClientCase):
    def test_pages_of_one_big_tool_each_stop_at_the_byte_bound(self) -> None:
        fake = modern_fake()
        tool = {"name": "big", "description": "x" * (4 * MIB), "inputSchema": {}}
        fake.on("tools/list", endless_pages("tools", tool, 60))
        client = self.connect(fake)
        with self.assertRaises(ProtocolError) as caught:
            client.list_tools()
        self.assertEqual(caught.exception.message,
                         f"tools/list: more than {MAX_LIST_BYTES} bytes across its pages; "
                         "giving up")
        self.assertEqual(caught.exception.data, {"limit_bytes": MAX_LIST_BYTES})
        # each page is a little over 4 MiB: the one that passes the bound is the last read
        self.assertEqual(len(fake.requests("tools/list")), MAX_LIST_BYTES // (4 * MIB))

    def test_the_bound_counts_every_list_method(self) -> None:
        for method, key, entry in [
                ("resources/list", "resources", {"uri": "a", "name": "n" * MIB}),
                ("prompts/list", "prompts", {"name": "p" * MIB}),
                ("resources/templates/list", "resourceTemplates",
                 {"uriTemplate": "a/{b}", "name": "t" * MIB})]:
            with self.subTest(method=method):
                fake = modern_fake()
                fake.on(method, endless_pages(key, entry, 1000))
                client = self.connect(fake)
                call = {"resources/list": client.list_resources,
                        "prompts/list": client.list_prompts,
                        "resources/templates/list": client.list_resource_templates}[method]
                with self.assertRaises(ProtocolError) as caught:
                    call()
                self.assertEqual(caught.exception.data, {"limit_bytes": MAX_LIST_BYTES})
                self.assertLessEqual(len(fake.requests(method)), MAX_LIST_BYTES // MIB + 1)

    def test_a_list_under_the_bound_is_whole(self) -> None:
        fake = modern_fake()
        tool = {"name": "big", "description": "x" * MIB, "inputSchema": {}}
        fake.on("tools/list", endless_pages("tools", tool, 20))
        self.assertEqual(len(self.connect(fake).list_tools()), 20)


#: Exponential for a backtracking engine: ``re`` needs about 2**27 steps (~10 s) to fail.
EVIL = "^(a|a)*$"
LONG = "a" * 27 + "b"
#: What a call may take here: the ``timeout`` the caller gave.
CALL_BUDGET = 3.0
#: The patterns' cap while a test only needs some cap to be reached: every case that hits
#: it burns the whole cap in the regex engine, so the library's 1 s would cost a second each.
SHORT_CAP = 0.2


def short_pattern_cap() -> Any:
    """Lower :data:`mcp_client.client._schema.PATTERN_BUDGET` to :data:`SHORT_CAP` for a test."""
    return mock.patch.object(_schema, "PATTERN_BUDGET", SHORT_CAP)


def tool_with(schema: dict[str, Any]) -> dict[str, Any]:
    return {"name": "t", "inputSchema": {"type": "object"}, "outputSchema": schema}


def answer(structured: Any) -> dict[str, Any]:
    return {"resultType": "complete", "content": [], "structuredContent": structured}


class OutputPatternTimeTest(ClientCase):
    """A hostile ``outputSchema`` costs a call at most its budget, and reports a mismatch."""

    def client_for(self, schema: dict[str, Any], structured: Any, **options: Any) -> Client:
        fake = fake_server({"tools": {}})
        fake.on("tools/list", {"resultType": "complete", "tools": [tool_with(schema)]})
        fake.on("tools/call", answer(structured))
        return self.connect(fake, **options)

    def timed_mismatch(self, schema: dict[str, Any], structured: Any) -> ProtocolError:
        client = self.client_for(schema, structured)
        client.list_tools()
        start = time.monotonic()
        with short_pattern_cap(), self.assertRaises(ProtocolError) as caught:
            client.call_tool("t", {}, timeout=CALL_BUDGET, validate=True)
        self.assertLess(time.monotonic() - start, CALL_BUDGET)
        return caught.exception

    def test_a_backtracking_pattern_is_a_mismatch_within_the_budget(self) -> None:
        schema = {"type": "object", "properties": {"s": {"type": "string", "pattern": EVIL}}}
        mismatch = self.timed_mismatch(schema, {"s": LONG})
        self.assertIsNone(mismatch.code)
        self.assertEqual(mismatch.data["tool"], "t")
        self.assertIn("did not finish", mismatch.data["reason"])

    def test_every_keyword_that_runs_a_pattern_is_bounded(self) -> None:
        evil_key = {LONG: 1}
        cases: list[tuple[str, dict[str, Any], Any]] = [
                ("patternProperties", {"patternProperties": {EVIL: {}}}, evil_key),
                ("additionalProperties", {"patternProperties": {EVIL: {}},
                                          "additionalProperties": False}, evil_key),
                ("unevaluatedProperties", {"patternProperties": {EVIL: {}},
                                           "unevaluatedProperties": False}, evil_key),
                ("unevaluatedProperties under allOf",
                 {"allOf": [{"patternProperties": {EVIL: {}}}],
                  "unevaluatedProperties": False}, evil_key),
                ("pattern in $defs by $ref",
                 {"$defs": {"s": {"pattern": EVIL}}, "properties": {"s": {"$ref": "#/$defs/s"}}},
                 {"s": LONG}),
                ("propertyNames", {"propertyNames": {"pattern": EVIL}}, evil_key),
                ("pattern in items", {"properties": {"s": {"items": {"pattern": EVIL}}}},
                 {"s": [LONG]}),
                ("draft-07 pattern", {"$schema": "http://json-schema.org/draft-07/schema#",
                                      "properties": {"s": {"pattern": EVIL}}}, {"s": LONG})]
        for name, schema, structured in cases:
            with self.subTest(name):
                mismatch = self.timed_mismatch(schema, structured)
                self.assertIn("did not finish", mismatch.data["reason"])

    def test_a_pattern_that_cannot_be_decided_never_passes_under_not(self) -> None:
        """Neither "matches" nor "does not" is assumed: either could pass under ``not``."""
        schemas: list[dict[str, Any]] = [
            {"properties": {"s": {"not": {"pattern": EVIL}}}},
            {"properties": {"s": {"anyOf": [{"pattern": EVIL}, {"type": "number"}]}}}]
        for schema in schemas:
            with self.subTest(schema=schema):
                mismatch = self.timed_mismatch(schema, {"s": LONG})
                self.assertIn("did not finish", mismatch.data["reason"])

    def test_the_bridge_reports_it_to_the_model_within_request_timeout(self) -> None:
        schema = {"type": "object", "properties": {"s": {"type": "string", "pattern": EVIL}}}
        client = self.client_for(schema, {"s": LONG}, request_timeout=CALL_BUDGET)
        client.tools_for_llm()
        start = time.monotonic()
        with short_pattern_cap():
            entries = client.execute_tool_calls([{"id": "1", "function": {"name": "t",
                                                                          "arguments": "{}"}}])
        self.assertLess(time.monotonic() - start, CALL_BUDGET)
        self.assertTrue(entries[0]["is_error"])
        self.assertIn("does not match its outputSchema", entries[0]["content"])

    def test_a_request_timeout_under_the_cap_bounds_the_patterns(self) -> None:
        schema = {"type": "object", "properties": {"s": {"type": "string", "pattern": EVIL}}}
        client = self.client_for(schema, {"s": LONG}, request_timeout=0.3)
        client.tools_for_llm()
        start = time.monotonic()
        entries = client.execute_tool_calls([{"id": "1", "function": {"name": "t"}}])
        self.assertLess(time.monotonic() - start, 0.8)   # the cap alone would take 1 s
        self.assertIn("did not finish within 0.", entries[0]["content"])


class PatternMeaningTest(unittest.TestCase):
    """The bounded engine decides ordinary patterns as ``jsonschema`` always did."""

    def decide(self, schema: dict[str, Any], structured: Any) -> bool:
        return OutputChecks().problem(tool_with(schema), answer(structured)) is None


def _meaning(self: PatternMeaningTest, label: str, pattern: str, value: str,
             valid: bool) -> None:
    schema = {"properties": {"v": {"type": "string", "pattern": pattern}}}
    self.assertEqual(self.decide(schema, {"v": value}), valid)
    self.assertEqual(bool(re.search(pattern, value)), valid)   # as re decides it


add_rows(PatternMeaningTest, "pattern", [
    ("anchored", r"^[a-z]+$", "abc", True),
    ("anchored_miss", r"^[a-z]+$", "abc1", False),
    ("unanchored_search", r"b", "abc", True),
    ("digits", r"^\d{3}-\d{4}$", "555-1234", True),
    ("digits_miss", r"^\d{3}-\d{4}$", "555-12345", False),
    ("lookahead", r"^(?=.*\d)(?=.*[a-z]).{6,}$", "abc123", True),
    ("lookahead_miss", r"^(?=.*\d)(?=.*[a-z]).{6,}$", "abcdef", False),
    ("negative_lookahead", r"^(?!admin$).*", "admin", False),
    ("backreference", r"^(\w)\1$", "aa", True),
    ("backreference_miss", r"^(\w)\1$", "ab", False),
    ("unicode_word", r"^\w+$", "h\u00e9llo", True),
    ("alternation", r"^(cat|dog)s?$", "dogs", True),
    ("alternation_miss", r"^(cat|dog)s?$", "cow", False),
    ("empty_pattern", r"", "anything", True),
    ("email_like", r"^[^@\s]+@[^@\s]+\.[a-z]{2,}$", "a@b.io", True),
    ("email_like_miss", r"^[^@\s]+@[^@\s]+\.[a-z]{2,}$", "a@b", False),
    ("nested_quantifier_short", EVIL, "aaaa", True),
    ("nested_quantifier_short_miss", EVIL, "aab", False),
], _meaning)


class PatternPropertiesMeaningTest(unittest.TestCase):
    def test_pattern_properties_and_the_keywords_that_use_them(self) -> None:
        checks = OutputChecks()
        rows: list[tuple[dict[str, Any], Any, bool]] = [
                ({"patternProperties": {"^x-": {"type": "number"}}}, {"x-a": 1}, True),
                ({"patternProperties": {"^x-": {"type": "number"}}}, {"x-a": "s"}, False),
                ({"patternProperties": {"^x-": {}}, "additionalProperties": False},
                 {"x-a": 1, "b": 2}, False),
                ({"patternProperties": {"^x-": {}}, "additionalProperties": False},
                 {"x-a": 1}, True),
                ({"allOf": [{"patternProperties": {"^x-": {}}}], "unevaluatedProperties": False},
                 {"x-a": 1}, True),
                ({"allOf": [{"patternProperties": {"^x-": {}}}], "unevaluatedProperties": False},
                 {"x-a": 1, "y": 2}, False),
                ({"$defs": {"p": {"patternProperties": {"^x-": {}}}}, "$ref": "#/$defs/p",
                  "unevaluatedProperties": False}, {"x-a": 1}, True)]
        for schema, structured, valid in rows:
            with self.subTest(schema=schema, structured=structured):
                found = checks.problem(tool_with(schema), answer(structured))
                self.assertEqual(found is None, valid, found)

    def test_a_pattern_the_engine_cannot_compile_is_an_invalid_schema(self) -> None:
        found = OutputChecks().problem(tool_with({"properties": {"s": {"pattern": "(unclosed"}}}),
                                       answer({"s": "x"}))
        assert found is not None
        self.assertIn("not valid JSON Schema", found.reason)


class ElicitationPatternTimeTest(ClientCase):
    """A hostile ``requestedSchema`` pattern with a ``default`` declines within the budget."""

    def test_the_default_is_checked_within_the_budget_and_declined(self) -> None:
        schema = {"type": "object",
                  "properties": {"name": {"type": "string", "pattern": EVIL, "default": LONG}}}
        fake = fake_server()
        fake.on("tools/call", {"resultType": "input_required", "requestState": "s",
                               "inputRequests": {"e": {"method": "elicitation/create", "params": {
                                   "mode": "form", "message": "Name?",
                                   "requestedSchema": schema}}}},
                {"resultType": "complete", "content": []})
        client = self.connect(fake, on_elicit=lambda r: {"action": "accept", "content": {}})
        start = time.monotonic()
        with short_pattern_cap():
            self.assertEqual(client.call_tool("t", {}, timeout=CALL_BUDGET), {"content": []})
        self.assertLess(time.monotonic() - start, CALL_BUDGET)
        retry = fake.requests("tools/call")[1]
        self.assertEqual(retry["params"]["inputResponses"], {"e": {"action": "decline"}})
        self.assertTrue(any("did not finish" in warning for warning in self.warnings),
                        self.warnings)


class RealServerPatternTest(ClientCase):
    """The SDK server of ``tests/servers/pattern_server.py``, over stdio, in both eras."""

    def test_call_tool_and_the_bridge_return_within_their_budget(self) -> None:
        for era in ("auto", "legacy"):
            with self.subTest(era=era):
                client = self.connect(args=server("pattern_server.py"), era=era,
                                      request_timeout=CALL_BUDGET * 10)
                self.assertEqual(client.list_tools()[0]["outputSchema"]["properties"]["code"]
                                 ["pattern"], EVIL)
                start = time.monotonic()
                with short_pattern_cap(), self.assertRaises(ProtocolError) as caught:
                    client.call_tool("code", timeout=CALL_BUDGET, validate=True)
                self.assertLess(time.monotonic() - start, CALL_BUDGET)
                self.assertEqual(caught.exception.data["path"], "$")
                self.assertIn("did not finish", caught.exception.data["reason"])
                start = time.monotonic()
                with short_pattern_cap():
                    entries = client.execute_tool_calls([{"id": "1",
                                                          "function": {"name": "code"}}])
                self.assertLess(time.monotonic() - start, CALL_BUDGET)
                self.assertTrue(entries[0]["is_error"])
                client.close()


class PatternCompileSizeTest(unittest.TestCase):
    """``regex`` unrolls counted repetitions: a pattern that would expand past the bound is
    refused before it is compiled, wherever it stands in the schema."""

    BOMB = "(?:(?:a+){1000}){1000}"   # 800 MiB and 2 s for regex.compile; re never unrolls

    def test_a_pattern_that_unrolls_too_far_is_refused_at_once(self) -> None:
        schemas: list[dict[str, Any]] = [
            {"properties": {"s": {"pattern": self.BOMB}}},
            {"patternProperties": {self.BOMB: {}}},
            {"properties": {"s": {"pattern": "(?:a{100}){101}"}}},
            {"properties": {"s": {"pattern": "a" * 10_001}}}]
        for schema in schemas:
            with self.subTest(schema=str(schema)[:60]):
                start = time.monotonic()
                found = OutputChecks().problem(tool_with(schema), answer({"s": "a"}))
                self.assertLess(time.monotonic() - start, 0.5)
                assert found is not None
                self.assertIn("not valid JSON Schema", found.reason)
                self.assertLess(len(found.reason), 400)

    def test_patterns_under_the_bound_compile(self) -> None:
        host = r"^[a-z0-9]{1,63}(\.[a-z0-9]{1,63}){0,126}$"
        for pattern, value, valid in [(host, "a.b.example", True), (host, "a..b", False),
                                      ("(?:a{100}){100}", "a" * 10_000, True),
                                      ("^(?:[A-Za-z0-9+/]{4})*$", "QUJD", True)]:
            with self.subTest(pattern=pattern):
                found = OutputChecks().problem(
                    tool_with({"properties": {"s": {"pattern": pattern}}}), answer({"s": value}))
                self.assertEqual(found is None, valid, found)

    def test_what_re_cannot_read_is_refused_as_it_always_was(self) -> None:
        found = OutputChecks().problem(tool_with({"properties": {"s": {"pattern": r"\p{L}"}}}),
                                       answer({"s": "a"}))
        assert found is not None
        self.assertIn("not valid JSON Schema", found.reason)
