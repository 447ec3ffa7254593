"""Tool messages a model API accepts as they are (issue 27, item 14).

``execute_tool_calls`` entries carry ``is_error`` and ``structured_content``
for the layers that read them; the Chat Completions API documents a tool
message as exactly ``role``, ``tool_call_id`` and ``content``.
``mcp_client.chat_messages(entries)`` makes the message a user sends. The
keys are checked against the ``openai`` package's own type
(``ChatCompletionToolMessageParam``), and the request body the ``openai``
client builds is captured on 127.0.0.1 to show the messages go out unchanged.
"""

from __future__ import annotations

import http.server
import json
import threading
from typing import Any

from mcp_client import Client, MCPClientError
from mcp_client.policy import Policy
from mcp_client.registry import Registry
from mcp_client.testing import FakeTransport

from .. import base
from ..base import LeakCheckingTestCase
from ..tables import add_rows

OBJECT = {"type": "object", "properties": {"text": {"type": "string"}}}


def documented_keys() -> set[str]:
    """The keys the openai package's type gives a tool message."""
    from openai.types.chat import ChatCompletionToolMessageParam as Param

    return set(Param.__required_keys__) | set(Param.__optional_keys__)


def echo_server() -> FakeTransport:
    """A fake server whose tools echo, shape and fail answer as their names say."""
    fake = base.fake_server({"tools": {}})
    fake.on("tools/list", {"resultType": "complete", "tools": [
        {"name": "echo", "inputSchema": OBJECT},
        {"name": "shape", "inputSchema": OBJECT},
        {"name": "fail", "inputSchema": OBJECT}]})

    def call(request: dict[str, Any]) -> dict[str, Any]:
        name = request["params"]["name"]
        text = request["params"].get("arguments", {}).get("text", "")
        if name == "shape":
            return {"resultType": "complete", "content": [{"type": "text", "text": text}],
                    "structuredContent": {"text": text}}
        if name == "fail":
            return {"resultType": "complete", "isError": True,
                    "content": [{"type": "text", "text": "it broke"}]}
        return {"resultType": "complete", "content": [{"type": "text", "text": text}]}

    fake.on("tools/call", call)
    return fake


def call(name: str, arguments: Any, ident: str = "call_1") -> dict[str, Any]:
    return {"id": ident, "type": "function", "function": {"name": name, "arguments": arguments}}


# label, the call, the content the model reads, the entry's is_error
ROWS: list[tuple[str, dict[str, Any], str, bool]] = [
    ("a text result", call("echo", '{"text": "hi"}'), "hi", False),
    ("a result with structuredContent", call("shape", '{"text": "hi"}'), "hi", False),
    ("a tool that reports isError", call("fail", "{}"), "it broke", True),
    ("an unknown tool", call("nope", "{}"), "unknown tool: nope", True),
    ("arguments that are not JSON", call("echo", '{"text'),
     "echo: arguments are not valid JSON (Unterminated string starting at at position 1)",
     True),
    ("arguments that are not an object", call("echo", "[1]"),
     "echo: arguments are not a JSON object (got an array)", True),
]


class ChatMessagesTest(LeakCheckingTestCase):
    def client(self) -> Client:
        client = Client(transport=echo_server())
        self.addCleanup(client.close)
        return client

    def check_row(self, label: str, tool_call: dict[str, Any], content: str,
                  is_error: bool) -> None:
        from mcp_client import chat_messages

        [entry] = self.client().execute_tool_calls([tool_call])
        self.assertIs(entry["is_error"], is_error)          # what layers read is kept
        [message] = chat_messages([entry])
        self.assertEqual(set(message), documented_keys())
        self.assertEqual(message, {"role": "tool", "tool_call_id": "call_1", "content": content})

    def test_the_entries_themselves_are_not_what_the_api_documents(self) -> None:
        [entry] = self.client().execute_tool_calls([call("shape", '{"text": "hi"}')])
        self.assertEqual(set(entry) - documented_keys(), {"is_error", "structured_content"})

    def test_the_entries_are_left_as_they_were(self) -> None:
        from mcp_client import chat_messages

        entries = self.client().execute_tool_calls([call("shape", '{"text": "hi"}')])
        before = json.dumps(entries)
        messages = chat_messages(entries)
        self.assertEqual(json.dumps(entries), before)
        self.assertIsNot(messages[0], entries[0])

    def test_a_layered_stack_answers_with_the_same_clean_messages(self) -> None:
        from mcp_client import chat_messages

        registry = Registry()
        self.addCleanup(registry.close)
        registry.add(self.client(), prefix="srv")
        stack = Policy(registry, rules=[{"tool": "srv_echo", "decision": "allow"}])
        entries = stack.execute_tool_calls([call("srv_echo", '{"text": "a"}', "c1"),
                                            call("srv_fail", "{}", "c2")])
        self.assertEqual([entry["is_error"] for entry in entries], [False, True])
        messages = chat_messages(entries)
        self.assertEqual([set(message) for message in messages], [documented_keys()] * 2)
        self.assertEqual([m["tool_call_id"] for m in messages], ["c1", "c2"])
        self.assertEqual(messages[0]["content"], "a")

    def test_what_is_not_an_entry_is_refused(self) -> None:
        from mcp_client import chat_messages

        for bad in (None, {"role": "tool"}, [{"role": "tool", "content": "x"}],
                    [{"role": "user", "tool_call_id": "c", "content": "x"}],
                    [{"role": "tool", "tool_call_id": "c", "content": 5}]):
            with self.subTest(bad=bad), self.assertRaises(MCPClientError):
                chat_messages(bad)   # type: ignore[arg-type]

    def test_the_openai_client_sends_them_unchanged(self) -> None:
        from openai import OpenAI

        from mcp_client import chat_messages

        tool_calls = [call("echo", '{"text": "hi"}', "c1"), call("shape", '{"text": "x"}', "c2")]
        messages: list[Any] = [{"role": "user", "content": "go"},
                               {"role": "assistant", "content": None, "tool_calls": tool_calls}]
        tool_messages = chat_messages(self.client().execute_tool_calls(tool_calls))
        messages.extend(tool_messages)
        with CapturingServer() as server:
            model = OpenAI(api_key="test", base_url=server.url, max_retries=0)
            self.addCleanup(model.close)
            reply = model.chat.completions.create(model="m", messages=messages)
        self.assertEqual(reply.choices[0].message.content, "done")
        [body] = server.bodies
        self.assertEqual(body["messages"][2:], tool_messages)
        for sent in body["messages"][2:]:
            self.assertEqual(set(sent), documented_keys())


add_rows(ChatMessagesTest, "clean_message", ROWS, ChatMessagesTest.check_row)


class CapturingServer:
    """A chat-completions endpoint on 127.0.0.1 that keeps each request's JSON body."""

    REPLY = {"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "m",
             "choices": [{"index": 0, "finish_reason": "stop",
                          "message": {"role": "assistant", "content": "done"}}]}

    def __init__(self) -> None:
        self.bodies: list[dict[str, Any]] = []
        owner = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                owner.bodies.append(json.loads(self.rfile.read(length)))
                payload = json.dumps(owner.REPLY).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever,
                                       name="chat-capture", daemon=True)

    def __enter__(self) -> CapturingServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=10)
