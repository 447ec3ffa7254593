"""Hooks, progress, logging and caching against real SDK servers, in both eras."""

from __future__ import annotations

import json
import threading
from typing import Any

from mcp_client import ProtocolError
from mcp_client.types import Notification, text_of

from ..base import ClientCase

SAMPLED = {"role": "assistant", "content": {"type": "text", "text": "Paris"},
           "model": "m1", "stopReason": "endTurn"}


def name_it(request: dict[str, Any]) -> dict[str, Any]:
    return {"action": "accept", "content": {"name": "Ada"}}


class BothErasTest(ClientCase):
    script = "dual_stdio.py"

    def each_era(self) -> list[str]:
        return ["auto", "legacy"]

    def test_elicitation_sampling_and_roots(self) -> None:
        for era in self.each_era():
            with self.subTest(era=era):
                asked: list[dict[str, Any]] = []

                def elicit(request: dict[str, Any]) -> dict[str, Any]:
                    asked.append(request)
                    return name_it(request)

                client = self.connect(era=era, on_elicit=elicit, on_sample=lambda r: SAMPLED,
                                      on_list_roots=lambda r: {"roots": [
                                          {"uri": "file:///srv", "name": "srv"}]})
                self.assertEqual(text_of(client.call_tool("greet")), "Hello, Ada!")
                self.assertEqual(asked[0]["method"], "elicitation/create")
                self.assertEqual(asked[0]["params"]["message"], "What is your name?")
                self.assertIn("text='Paris'", text_of(client.call_tool("ask_llm")))
                self.assertIn("file:///srv", text_of(client.call_tool("where_am_i")))
                client.close()

    def test_a_declined_elicitation_is_the_servers_to_report(self) -> None:
        for era in self.each_era():
            with self.subTest(era=era):
                client = self.connect(era=era, on_elicit=lambda r: {"action": "decline"})
                result = client.call_tool("greet")
                self.assertTrue(result["isError"])
                self.assertIn("decline", text_of(result))
                client.close()

    def test_the_hand_rolled_round_trip(self) -> None:
        client = self.connect(era="auto", on_elicit=lambda r: {
            "action": "accept", "content": {"ok": True}})
        self.assertEqual(text_of(client.call_tool("confirm", {"action": "deploy"})),
                         "state='pending:deploy' action=accept content={'ok': True}")

    def test_declined_sampling_fails_the_call(self) -> None:
        client = self.connect(era="auto", on_sample=lambda r: None)
        with self.assertRaises(ProtocolError) as caught:
            client.call_tool("ask_llm")
        self.assertIn("declined", str(caught.exception))
        client = self.connect(era="legacy", on_sample=lambda r: None)
        with self.assertRaises(ProtocolError) as caught:
            client.call_tool("ask_llm")
        self.assertEqual(caught.exception.code, -1)

    def test_a_tool_that_needs_an_undeclared_capability(self) -> None:
        for era in self.each_era():
            with self.subTest(era=era):
                client = self.connect(era=era)
                with self.assertRaises(ProtocolError) as caught:
                    client.call_tool("greet")
                self.assertEqual(caught.exception.code, -32021)
                self.assertEqual(caught.exception.data,
                                 {"requiredCapabilities": {"elicitation": {"form": {}}}})
                client.close()

    def test_progress_reaches_on_progress(self) -> None:
        for era in self.each_era():
            with self.subTest(era=era):
                reports: list[dict[str, Any]] = []
                client = self.connect(era=era, on_progress=reports.append)
                self.assertEqual(text_of(client.call_tool("count", {"n": 3})), "counted to 3")
                self.assertEqual(reports, [
                    {"tool_call_id": None, "progress": n, "total": 3, "message": f"step {n}/3"}
                    for n in (1, 2, 3)])
                client.close()

    def test_a_callers_own_progress_token(self) -> None:
        client = self.connect(era="auto")
        notes: list[Notification] = []
        client.notifications.subscribe(notes.append)
        client.call_tool("count", {"n": 2}, progress_token="mine")
        self.assertEqual([n["params"]["progressToken"] for n in notes], ["mine", "mine"])

    def test_logging(self) -> None:
        for era, level, expected in [("auto", "info", ["info", "warning"]),
                                     ("legacy", "info", ["info", "warning"]),
                                     ("legacy", None, ["info", "debug", "warning"]),
                                     ("auto", None, [])]:
            with self.subTest(era=era, level=level):
                logs: list[dict[str, Any]] = []
                client = self.connect(era=era, on_log=logs.append, log_level=level)
                client.call_tool("chatty")
                client.call_tool("echo", {"text": "sync"})  # logs precede this answer
                self.assertEqual([entry["level"] for entry in logs], expected)
                client.close()

    def test_a_catalogue_with_a_ttl_is_cached(self) -> None:
        client = self.connect(era="auto")
        sent: list[str] = []
        lock = threading.Lock()
        original = client.transport.send

        def counting(message: dict[str, Any], **kwargs: Any) -> None:
            with lock:
                sent.append(message.get("method", ""))
            original(message, **kwargs)

        original_line = client.transport.send_line

        def counting_lines(data: bytes) -> None:   # requests go out as encoded lines
            with lock:
                sent.append(json.loads(data).get("method", ""))
            original_line(data)

        client.transport.send = counting  # type: ignore[method-assign]
        client.transport.send_line = counting_lines  # type: ignore[method-assign]
        first = client.list_tools()
        self.assertEqual(client.list_tools(), first)
        self.assertEqual(sent.count("tools/list"), 1)      # ttlMs 60000 on this server
        client.list_tools(refresh=True)
        self.assertEqual(sent.count("tools/list"), 2)
        client.list_resources()
        client.list_resources()
        self.assertEqual(sent.count("resources/list"), 2)  # ttlMs 0: never stored
