"""Multi round-trip requests and the hooks, over FakeTransport (PROTOCOL §6, S6, S8)."""

from __future__ import annotations

import threading
from typing import Any

from mcp_client import InputLoopExceeded, ProtocolError
from mcp_client.testing import Error, FakeTransport
from mcp_client.types import text_of

from ..base import ClientCase, fake_server

FORM = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}


def elicit(message: str = "Sure?", schema: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"method": "elicitation/create",
            "params": {"mode": "form", "message": message, "requestedSchema": schema or FORM}}


def asking(requests: dict[str, Any], state: str | None = "s1") -> dict[str, Any]:
    result: dict[str, Any] = {"resultType": "input_required", "inputRequests": requests}
    if state is not None:
        result["requestState"] = state
    return result


DONE = {"resultType": "complete", "content": [{"type": "text", "text": "done"}]}


class InputTestCase(ClientCase):
    """Each test answers ``fake_server()``'s requests with input requests, then a result."""


class ModernRoundTripTest(InputTestCase):
    def test_the_retry_carries_the_answers_and_the_state_byte_for_byte(self) -> None:
        fake = fake_server()
        state = "v1.\u00e9 opaque/+== state"
        fake.on("tools/call", asking({"confirm": elicit()}, state), DONE)
        client = self.connect(fake, on_elicit=lambda r: {"action": "accept",
                                                         "content": {"ok": True}})
        self.assertEqual(client.call_tool("deploy", {"env": "prod"}),
                         {"content": [{"type": "text", "text": "done"}]})
        first, retry = fake.requests("tools/call")
        self.assertNotEqual(first["id"], retry["id"])
        self.assertEqual(retry["params"]["name"], "deploy")
        self.assertEqual(retry["params"]["arguments"], {"env": "prod"})
        self.assertEqual(retry["params"]["_meta"], first["params"]["_meta"])
        self.assertEqual(retry["params"]["inputResponses"],
                         {"confirm": {"action": "accept", "content": {"ok": True}}})
        self.assertEqual(retry["params"]["requestState"], state)

    def test_no_request_state_is_sent_when_the_server_sent_none(self) -> None:
        fake = fake_server()
        fake.on("tools/call", asking({"k": elicit()}, state=None), DONE)
        client = self.connect(fake, on_elicit=lambda r: {"action": "decline"})
        client.call_tool("t")
        retry = fake.requests("tools/call")[1]
        self.assertNotIn("requestState", retry["params"])
        self.assertEqual(retry["params"]["inputResponses"], {"k": {"action": "decline"}})

    def test_several_entries_are_answered_concurrently(self) -> None:
        fake = fake_server()
        fake.on("tools/call", asking({"a": elicit("A?"), "b": elicit("B?"),
                                      "r": {"method": "roots/list"}}), DONE)
        barrier = threading.Barrier(3, timeout=10)

        def ask(request: dict[str, Any]) -> dict[str, Any]:
            barrier.wait()   # only passes if all three hooks run at once
            return {"action": "accept", "content": {"ok": request["params"]["message"] == "A?"}}

        def roots(request: dict[str, Any]) -> dict[str, Any]:
            barrier.wait()
            return {"roots": [{"uri": "file:///srv"}]}

        client = self.connect(fake, on_elicit=ask, on_list_roots=roots)
        client.call_tool("t")
        self.assertEqual(fake.requests("tools/call")[1]["params"]["inputResponses"], {
            "a": {"action": "accept", "content": {"ok": True}},
            "b": {"action": "accept", "content": {"ok": False}},
            "r": {"roots": [{"uri": "file:///srv"}]}})

    def test_a_state_only_round_is_retried_after_a_backoff(self) -> None:
        fake = fake_server()
        fake.on("resources/read", {"resultType": "input_required", "requestState": "poll-1"},
                {"resultType": "input_required", "requestState": "poll-2"},
                {"resultType": "complete", "contents": [{"uri": "r", "text": "x"}],
                 "ttlMs": 60000})
        client = self.connect(fake)
        self.assertEqual(client.read_resource("r"), {"contents": [{"uri": "r", "text": "x"}]})
        reads = fake.requests("resources/read")
        self.assertEqual([m["params"].get("requestState") for m in reads],
                         [None, "poll-1", "poll-2"])
        self.assertNotIn("inputResponses", reads[1]["params"])
        client.read_resource("r")   # reached through a retry: never cached (PROTOCOL §8)
        self.assertEqual(len(fake.requests("resources/read")), 4)
        client.read_resource("r")   # answered at once this time, with a ttl: cached
        self.assertEqual(len(fake.requests("resources/read")), 4)

    def test_a_server_that_never_stops_asking(self) -> None:
        fake = fake_server()
        fake.on("tools/call", asking({"k": elicit()}))
        client = self.connect(fake, on_elicit=lambda r: {"action": "accept",
                                                         "content": {"ok": True}},
                              max_input_rounds=3)
        with self.assertRaises(InputLoopExceeded) as caught:
            client.call_tool("t")
        self.assertEqual((caught.exception.method, caught.exception.rounds), ("tools/call", 3))
        self.assertEqual(len(fake.requests("tools/call")), 4)   # the call and 3 retries

    def test_default_budget_is_eight_rounds(self) -> None:
        fake = fake_server()
        fake.on("prompts/get", asking({"k": elicit()}))
        client = self.connect(fake, on_elicit=lambda r: {"action": "decline"})
        with self.assertRaises(InputLoopExceeded) as caught:
            client.get_prompt("p")
        self.assertEqual(caught.exception.rounds, 8)
        self.assertEqual(len(fake.requests("prompts/get")), 9)

    def test_a_hook_that_raises_or_returns_junk_declines(self) -> None:
        for hook in (lambda r: 1 / 0, lambda r: "yes", lambda r: {"action": "maybe"}):
            with self.subTest(hook=hook):
                fake = fake_server()
                fake.on("tools/call", asking({"k": elicit(), "r": {"method": "roots/list"}}),
                        DONE)
                client = self.connect(fake, on_elicit=hook, on_list_roots=hook)
                client.call_tool("t")
                self.assertEqual(fake.requests("tools/call")[1]["params"]["inputResponses"],
                                 {"k": {"action": "decline"}, "r": {"roots": []}})
                self.assertEqual(len(self.warnings), 2, self.warnings)
                client.close()

    def test_no_hook_declines(self) -> None:
        fake = fake_server()
        fake.on("tools/call", asking({"k": elicit()}), DONE)
        client = self.connect(fake)
        client.call_tool("t")
        self.assertEqual(fake.requests("tools/call")[1]["params"]["inputResponses"],
                         {"k": {"action": "decline"}})

    def test_declined_sampling_fails_the_call_at_once(self) -> None:
        sample = {"method": "sampling/createMessage",
                  "params": {"messages": [], "maxTokens": 5}}
        for options in ({}, {"on_sample": lambda r: None}, {"on_sample": lambda r: 1 / 0}):
            with self.subTest(options=options):
                fake = fake_server()
                fake.on("tools/call", asking({"llm": sample}))
                client = self.connect(fake, **options)
                with self.assertRaises(ProtocolError) as caught:
                    client.call_tool("ask_llm")
                self.assertIn("declined", str(caught.exception))
                self.assertEqual(len(fake.requests("tools/call")), 1)
                client.close()

    def test_an_unknown_input_method_fails_the_call(self) -> None:
        fake = fake_server()
        fake.on("tools/call", asking({"k": {"method": "tasks/get", "params": {}}}))
        with self.assertRaises(ProtocolError):
            self.connect(fake).call_tool("t")

    def test_elicitation_defaults_are_filled_and_bad_answers_declined(self) -> None:
        schema = {"type": "object",
                  "properties": {"name": {"type": "string", "default": "Ada"},
                                 "age": {"type": "integer", "minimum": 0},
                                 "tier": {"type": "string", "enum": ["a", "b"],
                                          "default": "b"}},
                  "required": ["name", "age"]}
        fake = fake_server()
        fake.on("tools/call", asking({"k": elicit(schema=schema)}), DONE)
        client = self.connect(fake, on_elicit=lambda r: {"action": "accept",
                                                         "content": {"age": 3}})
        client.call_tool("t")
        self.assertEqual(fake.requests("tools/call")[1]["params"]["inputResponses"]["k"],
                         {"action": "accept", "content": {"age": 3, "name": "Ada", "tier": "b"}})
        fake = fake_server()
        fake.on("tools/call", asking({"k": elicit(schema=schema)}), DONE)
        client = self.connect(fake, on_elicit=lambda r: {"action": "accept",
                                                         "content": {"age": -1}})
        client.call_tool("t")
        self.assertEqual(fake.requests("tools/call")[1]["params"]["inputResponses"]["k"],
                         {"action": "decline"})
        self.assertTrue(any("does not satisfy" in w for w in self.warnings), self.warnings)

    def test_missing_capability_is_a_protocol_error_with_data(self) -> None:
        fake = fake_server()
        fake.on("tools/call", Error(-32021, "Client did not declare elicitation",
                                    {"requiredCapabilities": {"elicitation": {"form": {}}}}))
        with self.assertRaises(ProtocolError) as caught:
            self.connect(fake).call_tool("greet")
        self.assertEqual(caught.exception.code, -32021)
        self.assertEqual(caught.exception.data,
                         {"requiredCapabilities": {"elicitation": {"form": {}}}})


class LegacyServerRequestTest(InputTestCase):
    def legacy(self) -> FakeTransport:
        fake = FakeTransport()
        fake.on("server/discover", Error(-32601, "nope"))
        fake.on("initialize", {"protocolVersion": "2025-11-25", "capabilities": {}})
        return fake

    def test_requests_reach_the_hooks_off_the_reader_thread(self) -> None:
        fake = self.legacy()
        threads: list[str] = []

        def ask(request: dict[str, Any]) -> dict[str, Any]:
            threads.append(threading.current_thread().name)
            return {"action": "accept", "content": {"ok": True}}

        client = self.connect(fake, on_elicit=ask,
                              on_list_roots=lambda r: {"roots": [{"uri": "file:///a"}]})
        client.era
        self.assertEqual(fake.requests("initialize")[0]["params"]["capabilities"],
                         {"elicitation": {"form": {}}, "roots": {},
                          "extensions": {"io.modelcontextprotocol/skills": {}}})
        answer = fake.request("elicitation/create", elicit()["params"], ident=1).result(5)
        self.assertEqual(answer, {"jsonrpc": "2.0", "id": 1,
                                  "result": {"action": "accept", "content": {"ok": True}}})
        self.assertNotEqual(threads, ["mcp-fake-reader"])
        roots = fake.request("roots/list", ident=2).result(5)
        self.assertEqual(roots["result"], {"roots": [{"uri": "file:///a"}]})

    def test_declines_and_undeclared(self) -> None:
        fake = self.legacy()
        client = self.connect(fake, on_elicit=lambda r: 1 / 0, on_sample=lambda r: None)
        client.era
        declined = fake.request("elicitation/create", elicit()["params"]).result(5)
        self.assertEqual(declined["result"], {"action": "decline"})
        sampling = fake.request("sampling/createMessage", {"messages": []}).result(5)
        self.assertEqual(sampling["error"], {"code": -1,
                                             "message": "User rejected sampling request"})
        undeclared = fake.request("roots/list").result(5)
        self.assertEqual(undeclared["error"]["code"], -32601)

    def test_a_hook_waiting_on_a_human_does_not_block_the_reader(self) -> None:
        fake = self.legacy()
        fake.on("tools/call", DONE, hold=True)
        release = threading.Event()

        def slow(request: dict[str, Any]) -> dict[str, Any]:
            release.wait(10)
            return {"action": "cancel"}

        client = self.connect(fake, on_elicit=slow)
        client.era
        pending = fake.request("elicitation/create", elicit()["params"])
        fake.release()
        future = client.call_tool_async("t")
        fake.wait_for("tools/call")
        fake.release()
        self.assertEqual(text_of(future.result(5)), "done")  # reader kept reading
        self.assertFalse(pending.done())
        release.set()
        self.assertEqual(pending.result(5)["result"], {"action": "cancel"})
