"""The rest of the protocol against a real SDK server, in both eras: the raw request,
notifications, the log level, argument completion and structured-output checks."""

from __future__ import annotations

import pickle
import unittest
from typing import Any

from mcp_client import Client, MCPClientError, ProtocolError
from mcp_client.client._outputs import OutputChecks

from ..base import ClientCase

ERAS = ("auto", "legacy")
PROMPT = {"type": "ref/prompt", "name": "code_review"}
TEMPLATE = {"type": "ref/resource", "uri": "repo://{owner}/{name}"}


class ExtrasCase(ClientCase):
    script = "extras_server.py"


class RawRequestTest(ExtrasCase):
    def test_request_returns_the_result_without_bookkeeping(self) -> None:
        for era in ERAS:
            with self.subTest(era=era):
                client = self.connect(era=era)
                result = client.request("completion/complete", {
                    "ref": PROMPT, "argument": {"name": "language", "value": "r"}})
                self.assertEqual(result, {"completion": {"values": ["rust", "ruby"],
                                                         "total": 2, "hasMore": False}})
                self.assertEqual(client.request_async("tools/list").result(30)["tools"][0]["name"],
                                 "weather")
                client.close()

    def test_an_unknown_method_is_the_servers_error(self) -> None:
        client = self.connect()
        with self.assertRaises(ProtocolError) as caught:
            client.request("no/such/method")
        self.assertEqual(caught.exception.code, -32601)

    def test_bad_arguments_are_refused_before_the_wire(self) -> None:
        client = self.connect()
        for method, params in (("", None), (3, None), ("tools/list", [1])):
            with self.subTest(method=method), self.assertRaises(MCPClientError):
                client.request(method, params)   # type: ignore[arg-type]
        with self.assertRaises(MCPClientError):
            client.notify("tools/list")   # not a notification's name
        client.notify("notifications/roots/list_changed")
        self.assertIsNone(client.notify_async("notifications/roots/list_changed").result(30))
        self.assertEqual(client.call_tool("weather", {"city": "Oslo"})["structuredContent"],
                         {"temperature": 21.5, "conditions": "sunny in Oslo"})


class LoggingLevelTest(ExtrasCase):
    def test_the_level_is_honoured_in_both_eras(self) -> None:
        for era in ERAS:
            with self.subTest(era=era):
                seen: list[str] = []
                client = self.connect(era=era, on_log=lambda params: seen.append(params["level"]))
                client.set_logging_level("warning")
                self.assertEqual(client.call_tool("levels")["structuredContent"],
                                 {"result": "logged"})
                client.ping()   # the log lines came before the answer; a round trip more
                self.assertEqual(seen, ["warning", "error"])
                client.close()


class CompletionTest(ExtrasCase):
    def test_prompt_and_template_arguments_in_both_eras(self) -> None:
        for era in ERAS:
            with self.subTest(era=era):
                client = self.connect(era=era)
                self.assertEqual(client.complete(PROMPT, {"name": "language", "value": "p"}),
                                 {"values": ["python", "perl", "php"], "total": 3,
                                  "hasMore": False})
                self.assertEqual(client.complete(TEMPLATE, {"name": "name", "value": ""},
                                                 context={"owner": "ada"}),
                                 {"values": ["ada-app", "ada-lib"]})
                self.assertEqual(client.complete_async(
                    TEMPLATE, {"name": "name", "value": ""},
                    context={"arguments": {"owner": "bo"}}).result(30)["values"],
                    ["bo-app", "bo-lib"])
                client.close()


class StructuredOutputTest(ExtrasCase):
    def test_call_tool_validate_raises_with_the_path(self) -> None:
        for era in ERAS:
            with self.subTest(era=era):
                client = self.connect(era=era)
                self.assertEqual(client.call_tool("broken_weather", {"city": "x"})
                                 ["structuredContent"], {"temperature": "hot", "conditions": "x"})
                with self.assertRaises(ProtocolError) as caught:
                    client.call_tool("broken_weather", {"city": "x"}, validate=True)
                self.assertIsNone(caught.exception.code)
                self.assertEqual(caught.exception.data["path"], "$.temperature")
                self.assertEqual(caught.exception.method, "tools/call")
                good = client.call_tool("weather", {"city": "x"}, validate=True)
                self.assertEqual(good["structuredContent"]["temperature"], 21.5)
                client.close()

    def test_the_bridge_reports_a_mismatch_to_the_model(self) -> None:
        client = self.connect()
        entries = client.execute_tool_calls([
            {"id": "1", "function": {"name": "broken_weather", "arguments": '{"city": "x"}'}},
            {"id": "2", "function": {"name": "weather", "arguments": '{"city": "x"}'}}])
        self.assertTrue(entries[0]["is_error"])
        self.assertIn("does not match its outputSchema", entries[0]["content"])
        self.assertIn("$.temperature", entries[0]["content"])
        self.assertFalse(entries[1]["is_error"])

    def test_validate_output_false_turns_the_check_off(self) -> None:
        client = self.connect(validate_output=False)
        entries = client.execute_tool_calls([
            {"id": "1", "function": {"name": "broken_weather", "arguments": '{"city": "x"}'}}])
        self.assertFalse(entries[0]["is_error"])
        self.assertEqual(entries[0]["structured_content"]["temperature"], "hot")


WEATHER = {"type": "object", "properties": {"t": {"type": "number"}}, "required": ["t"]}


def result(structured: Any = None, **extra: Any) -> dict[str, Any]:
    found: dict[str, Any] = {"resultType": "complete", "content": [], **extra}
    if structured is not None:
        found["structuredContent"] = structured
    return found


class FakeCase(ClientCase):
    def fake_client(self, *tools: dict[str, Any], **options: Any) -> Client:
        client = self.connect(capabilities={"tools": {}}, **options)
        self.fake.on("tools/list", {"resultType": "complete", "tools": list(tools)})
        return client


class TaskRequiredTest(FakeCase):
    def test_a_tool_only_a_task_can_run_is_not_offered(self) -> None:
        client = self.fake_client(
            {"name": "plain", "inputSchema": {"type": "object"}},
            {"name": "maybe", "inputSchema": {"type": "object"},
             "execution": {"taskSupport": "optional"}},
            {"name": "long", "inputSchema": {"type": "object"},
             "execution": {"taskSupport": "required"}})
        self.assertEqual([d["function"]["name"] for d in client.tools_for_llm()],
                         ["plain", "maybe"])
        self.assertEqual(len(client.list_tools()), 3)
        entries = client.execute_tool_calls([{"id": "1", "function": {"name": "long"}}])
        self.assertTrue(entries[0]["is_error"])
        self.assertIn("unknown tool", entries[0]["content"])
        self.assertEqual(self.fake.requests("tools/call"), [])


class OutputChecksTest(unittest.TestCase):
    def setUp(self) -> None:
        self.checks = OutputChecks()

    def problem(self, schema: Any, found: dict[str, Any]) -> Any:
        return self.checks.problem({"name": "w", "outputSchema": schema}, found)

    def test_what_is_not_checked(self) -> None:
        self.assertIsNone(self.checks.problem(None, result({"t": "x"})))
        self.assertIsNone(self.checks.problem({"name": "w"}, result({"t": "x"})))
        self.assertIsNone(self.problem(WEATHER, result({"t": "x"}, isError=True)))
        self.assertIsNone(self.problem(WEATHER, result({"t": 1})))

    def test_each_mismatch(self) -> None:
        missing = self.problem(WEATHER, result())
        assert missing is not None
        self.assertEqual((missing.tool, missing.path), ("w", "$"))
        self.assertIn("no structuredContent", missing.reason)
        wrong = self.problem(WEATHER, result({"t": "x"}))
        assert wrong is not None
        self.assertIsInstance(wrong, ProtocolError)
        self.assertEqual(wrong.data, {"tool": "w", "path": "$.t", "reason": wrong.reason})
        self.assertEqual(pickle.loads(pickle.dumps(wrong)).path, "$.t")
        broken = self.problem({"type": 3}, result({"t": 1}))
        assert broken is not None
        self.assertIn("not valid JSON Schema", broken.reason)

    def test_drafts_and_local_refs(self) -> None:
        draft7 = {"$schema": "http://json-schema.org/draft-07/schema#",
                  "definitions": {"n": {"type": "number"}},
                  "properties": {"t": {"$ref": "#/definitions/n"}}}
        self.assertIsNone(self.problem(draft7, result({"t": 1})))
        self.assertIsNotNone(self.problem(draft7, result({"t": "x"})))
        remote = {"properties": {"t": {"$ref": "http://127.0.0.1:9/never.json"}}}
        found = self.problem(remote, result({"t": 1}))
        assert found is not None
        self.assertIn("could not be applied", found.reason)

    def test_each_schema_is_compiled_once(self) -> None:
        for _ in range(3):
            self.problem(WEATHER, result({"t": 1}))
            self.problem(dict(WEATHER), result({"t": 2}))
        self.assertEqual(len(self.checks._validators), 1)


class RefusedBeforeTheWireTest(FakeCase):
    """What the client refuses itself: no server is needed to see that nothing is sent."""

    def fake_client(self, *tools: dict[str, Any], **options: Any) -> Client:
        # a server that offers both, so that a refusal is the arguments', not a capability's
        client = self.connect(capabilities={"tools": {}, "completions": {}, "logging": {}},
                              **options)
        self.fake.on("completion/complete", {"resultType": "complete", "completion": {
            "values": ["python"], "total": 1, "hasMore": False}})
        self.assertEqual(client.complete(PROMPT, {"name": "language", "value": "p"})["values"],
                         ["python"])
        return client

    def test_an_unknown_level_is_refused(self) -> None:
        client = self.fake_client()
        with self.assertRaises(MCPClientError):
            client.set_logging_level("loud")
        self.assertIsInstance(client.set_logging_level_async("error").result(30), type(None))
        self.assertEqual(self.fake.requests("logging/setLevel"), [])

    def test_bad_references_and_arguments_are_refused(self) -> None:
        client = self.fake_client()
        bad: list[tuple[Any, Any, Any]] = [
            ({"type": "ref/tool", "name": "x"}, {"name": "a", "value": ""}, None),
            ({"type": "ref/prompt"}, {"name": "a", "value": ""}, None),
            (PROMPT, {"name": "a"}, None),
            (PROMPT, {"name": "a", "value": 3}, None),
            (PROMPT, {"name": "a", "value": ""}, {"owner": 3})]
        for ref, argument, context in bad:
            with self.subTest(ref=ref, argument=argument), self.assertRaises(MCPClientError):
                client.complete(ref, argument, context=context)
        self.assertEqual(len(self.fake.requests("completion/complete")), 1)   # fake_client's


class LogLevelWireTest(FakeCase):
    def test_a_modern_server_is_told_in_every_request(self) -> None:
        client = self.fake_client()
        client.list_tools()
        client.set_logging_level("error")
        client.list_tools(refresh=True)
        metas = [m["params"]["_meta"] for m in self.fake.requests("tools/list")]
        self.assertNotIn("io.modelcontextprotocol/logLevel", metas[0])
        self.assertEqual(metas[1]["io.modelcontextprotocol/logLevel"], "error")
        self.assertEqual(self.fake.requests("logging/setLevel"), [])
