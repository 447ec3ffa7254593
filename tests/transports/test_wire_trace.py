"""The wire trace on ``mcp_client.wire``: every message in and out, per connection, redacted.

Each transport is traced against a real server -- the demo server over stdio, the official
SDK's (mcp 2.3.0) HTTP app in its modern, legacy-session and HTTP+SSE modes, and an SDK
server object in this process -- and the records are read back: one per message, HTTP
request and status lines with their headers, ``>>`` out and ``<<`` in.  Secrets given in a
URL, a header or a message never appear in any record; a 1 MB payload is cut with its size
shown; a connection that does not trace formats nothing.
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
from typing import Any, Iterator
from unittest import mock

from mcp_client import Client
from mcp_client import _log
from mcp_client._log import TRACE_CHARS, WIRE_LOGGER
from mcp_client._redact import redact_header, redact_payload

from ..base import PYTHON, LeakCheckingTestCase, server
from ..httpkit import LiveServer
from .test_secrets import every_log_record

#: what must never appear: a URL's password and query value, a bearer token, a tool's secret
SECRETS = ("pa55-w0rd", "t0ken-s3cret", "b3arer-t0ken", "m3ssage-s3cret")


class Trace(logging.Handler):
    """The records of ``mcp_client.wire``, the logger switched to DEBUG meanwhile."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    @property
    def texts(self) -> list[str]:
        return [str(getattr(record, "mcp_trace")) for record in self.records]

    def sent(self) -> list[dict[str, Any]]:
        """The JSON-RPC messages the records say were sent (a cut one as its method alone)."""
        return [_message(text[3:]) for text in self.texts if text.startswith(">> {")]

    def received(self) -> list[dict[str, Any]]:
        """The JSON-RPC messages read: plain bodies and the data of SSE events."""
        found = []
        for text in self.texts:
            for line in text.splitlines():
                for head in ("<< data: {", "<< {"):
                    if line.startswith(head):
                        found.append(_message(line[len(head) - 1:]))
        return found


def _message(text: str) -> dict[str, Any]:
    if re.search(r"\u2026 \([0-9,]+ bytes\)$", text):   # cut: what its start says
        found = re.search(r'"method":"([^"]+)"', text)
        return {"method": found.group(1)} if found else {"cut": text}
    loaded: dict[str, Any] = json.loads(text)
    return loaded


@contextlib.contextmanager
def tracing(level: int = logging.DEBUG) -> Iterator[Trace]:
    logger = logging.getLogger(WIRE_LOGGER)
    handler, before = Trace(), logger.level
    logger.addHandler(handler)
    logger.setLevel(level)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)
        logger.setLevel(before)


def methods(messages: list[dict[str, Any]]) -> list[str]:
    return [m["method"] for m in messages if "method" in m]


def texts_of(message: dict[str, Any]) -> list[str]:
    return [block.get("text") for block in message["result"]["content"]]


class TraceCase(LeakCheckingTestCase):
    def stdio(self, **options: Any) -> Client:
        client = Client.connect_stdio(PYTHON, args=server("dual_stdio.py"), **options)
        self.addCleanup(client.close)
        return client

    def live(self, *args: str) -> LiveServer:
        srv = LiveServer(*args)
        self.addCleanup(srv.stop)
        return srv

    def http(self, url: str, **options: Any) -> Client:
        client = Client.connect_http(url, request_timeout=30, **options)
        self.addCleanup(client.close)
        return client

    def assert_no_secret(self, texts: list[str]) -> None:
        for text in texts:
            for secret in SECRETS:
                self.assertNotIn(secret, text)

    def assert_all_debug(self, trace: Trace) -> None:
        self.assertTrue(trace.records)
        for record in trace.records:
            self.assertEqual((record.name, record.levelno), (WIRE_LOGGER, logging.DEBUG))
            self.assertIn(record.mcp_direction, ("out", "in"))   # type: ignore[attr-defined]
            self.assertEqual(record.getMessage(),
                             f"[{record.mcp_connection}] {record.mcp_trace}")  # type: ignore


class StdioTraceTest(TraceCase):
    def test_every_message_each_way_on_one_named_connection(self) -> None:
        with tracing() as trace:
            client = self.stdio()
            result = client.call_tool("echo", {"text": "hi"})
            pid = client.transport.pid   # type: ignore[attr-defined]  # None once closed
            client.close()
        self.assert_all_debug(trace)
        self.assertEqual(methods(trace.sent()), ["server/discover", "tools/call"])
        sent_call = trace.sent()[1]
        self.assertEqual(sent_call["params"]["arguments"], {"text": "hi"})
        answers = trace.received()
        self.assertEqual([m["id"] for m in answers], [1, 2])
        self.assertEqual(texts_of(answers[1]), texts_of({"result": result}))
        labels = [record.mcp_connection for record in trace.records]  # type: ignore[attr-defined]
        # named by the transport until the server says its name, then by both
        self.assertEqual(labels[0], f"stdio pid={pid}")
        self.assertEqual(set(labels[1:]), {f"demo-server stdio pid={pid}"})

    def test_a_megabyte_is_cut_with_its_size_shown(self) -> None:
        big = "x" * 1_000_000
        with tracing() as trace:
            client = self.stdio()
            client.call_tool("echo", {"text": big})
        cut = [t for t in trace.texts if len(t) > 1000]
        self.assertEqual(len(cut), 2, [t[:80] for t in cut])   # the call, and its echo
        out = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call"})
        for text in cut:
            size = re.fullmatch(r"(>>|<<) (.*)\u2026 \(([0-9,]+) bytes\)", text, re.DOTALL)
            assert size is not None, text[-80:]
            self.assertLessEqual(len(size.group(2)), TRACE_CHARS)
            self.assertGreater(int(size.group(3).replace(",", "")), 1_000_000)
        self.assertTrue(cut[0].startswith(">> " + out[:-1].replace(" ", "")[:20]))
        self.assertTrue(cut[1].startswith("<< "))

    def test_secrets_in_a_message_are_hidden(self) -> None:
        text = ("Authorization: Bearer m3ssage-s3cret and https://ada:pa55-w0rd@h.example/"
                "?token=t0ken-s3cret")
        with every_log_record() as everything, tracing() as trace:
            client = self.stdio()
            client.call_tool("echo", {"text": text, "api_key": "m3ssage-s3cret"})
        self.assertTrue(any("Bearer ***" in t for t in trace.texts))
        self.assertTrue(any('"api_key":"***"' in t for t in trace.texts))
        self.assert_no_secret(trace.texts)
        self.assert_no_secret(everything.texts)

    def test_nothing_is_logged_at_info_and_nothing_formatted(self) -> None:
        with every_log_record() as everything, tracing(logging.INFO) as trace, \
                mock.patch.object(_log, "_shown", side_effect=AssertionError("formatted")):
            client = self.stdio()
            client.call_tool("echo", {"text": "hi"})
            self.assertIsNone(client.transport._trace)   # type: ignore[attr-defined]
        self.assertEqual(trace.records, [])
        self.assertFalse([t for t in everything.texts if t.startswith(WIRE_LOGGER)])

    def test_a_connection_decides_when_it_starts(self) -> None:
        client = self.stdio()
        with tracing() as trace:
            client.call_tool("echo", {"text": "hi"})
        self.assertEqual(trace.records, [])


class HTTPTraceTest(TraceCase):
    def secret_url(self, url: str) -> str:
        return url.replace("127.0.0.1", "ada:pa55-w0rd@127.0.0.1") + "?token=t0ken-s3cret"

    def run_count(self, url: str) -> Trace:
        with every_log_record() as everything, tracing() as trace:
            client = self.http(self.secret_url(url),
                               headers={"Authorization": "Bearer b3arer-t0ken"})
            client.call_tool("count", {"n": 2}, progress_token="p-1")
            client.close()
        self.assert_all_debug(trace)
        self.assert_no_secret(trace.texts)
        self.assert_no_secret(everything.texts)
        return trace

    def test_streamable_http_modern(self) -> None:
        srv = self.live()
        trace = self.run_count(srv.url)
        # tools/list first: its x-mcp-header marks decide the call's headers
        self.assertEqual(methods(trace.sent()), ["server/discover", "tools/list", "tools/call"])
        posts = [t for t in trace.texts if t.startswith(">> POST ")]
        self.assertEqual(len(posts), 3)
        call = posts[2]
        self.assertTrue(call.startswith(">> POST /mcp?token=***  "), call)
        for header in ("Mcp-Method: tools/call", "Mcp-Name: count", "Authorization: Bearer ***",
                       "MCP-Protocol-Version: 2026-07-28", "User-Agent: mcp-client/"):
            self.assertIn(header, call)
        statuses = [t for t in trace.texts if t.startswith("<< HTTP 200 OK")]
        self.assertEqual(len(statuses), 3)
        self.assertIn("content-type: text/event-stream", statuses[2])
        events = [t for t in trace.texts if t.startswith("<< event: message\n")]
        self.assertEqual(len(events), 3)   # two progress notifications, then the answer
        self.assertEqual(methods(trace.received()), ["notifications/progress"] * 2)
        label = trace.records[-1].mcp_connection   # type: ignore[attr-defined]
        self.assertEqual(label, f"demo-server http http://***@127.0.0.1:{srv.port}/mcp?token=***")

    def test_the_direct_path_is_traced_as_requests_path_is(self) -> None:
        srv = self.live()
        with tracing() as trace, mock.patch(
                "mcp_client._http.wire.send", side_effect=AssertionError("went through requests")):
            client = self.http(srv.url, headers={"Authorization": "Bearer b3arer-t0ken"})
            client.call_tool("count", {"n": 2}, progress_token="p-1")
            client.close()
        self.assert_all_debug(trace)
        self.assert_no_secret(trace.texts)
        self.assertEqual(methods(trace.sent()), ["server/discover", "tools/list", "tools/call"])
        posts = [t for t in trace.texts if t.startswith(">> POST ")]
        self.assertEqual(len(posts), 3)
        for header in (f"Host: 127.0.0.1:{srv.port}", "Mcp-Method: tools/call",
                       "Mcp-Name: count", "Authorization: Bearer ***",
                       "User-Agent: mcp-client/", "Content-Length: "):
            self.assertIn(header, posts[2])
        statuses = [t for t in trace.texts if t.startswith("<< HTTP 200 OK")]
        self.assertEqual(len(statuses), 3)
        self.assertIn("content-type: text/event-stream", statuses[2])
        self.assertEqual(methods(trace.received()), ["notifications/progress"] * 2)

    def test_the_legacy_session_get_stream_and_delete(self) -> None:
        srv = self.live("--handshake-only")
        trace = self.run_count(srv.url)
        self.assertEqual(methods(trace.sent()),
                         ["server/discover", "initialize", "notifications/initialized",
                          "tools/call"])
        self.assertTrue(any(t.startswith("<< HTTP 400 Bad Request") for t in trace.texts))
        heads = [t.split("  ")[0] for t in trace.texts if t.startswith(">> ") and
                 not t.startswith(">> {")]
        self.assertIn(">> GET /mcp?token=***", heads)
        self.assertEqual(heads[-1], ">> DELETE /mcp?token=***")
        self.assertTrue(any("mcp-session-id: " in t.lower() for t in trace.texts
                            if t.startswith(">> DELETE")))

    def test_http_sse(self) -> None:
        srv = self.live("--sse")
        trace = self.run_count(srv.url.replace("/mcp", "/sse"))
        self.assertIn("<< event: endpoint\n<< data: /messages/?session_id=***", trace.texts)
        self.assertTrue(any(t.startswith(">> GET /sse?token=***  ") for t in trace.texts))
        self.assertTrue(any(t.startswith(">> POST /messages/?session_id=***  ")
                            for t in trace.texts))
        self.assertTrue(any(t.startswith("<< HTTP 202 Accepted") for t in trace.texts))
        self.assertEqual(methods(trace.sent())[-3:],
                         ["initialize", "notifications/initialized", "tools/call"])
        sse = [r.mcp_connection for r in trace.records   # type: ignore[attr-defined]
               if " sse " in f" {r.mcp_connection} "]     # type: ignore[attr-defined]
        self.assertTrue(sse)


class InProcessTraceTest(TraceCase):
    def test_an_sdk_server_object(self) -> None:
        from mcp.server.mcpserver import MCPServer

        from mcp_client.testing import InProcessTransport

        sdk = MCPServer("inproc")

        @sdk.tool()
        def shout(text: str) -> str:
            return text.upper()

        with tracing() as trace:
            client = Client(transport=InProcessTransport(sdk))
            self.addCleanup(client.close)
            client.call_tool("shout", {"text": "hi"})
            client.close()
        self.assert_all_debug(trace)
        self.assertEqual(methods(trace.sent())[-1], "tools/call")
        self.assertIn("HI", json.dumps(trace.received()[-1]))
        self.assertEqual(trace.records[-1].mcp_connection,   # type: ignore[attr-defined]
                         "inproc in-process inproc")


class RedactionTest(LeakCheckingTestCase):
    def test_headers(self) -> None:
        self.assertEqual(redact_header("Authorization", "Bearer abc"), "Bearer ***")
        self.assertEqual(redact_header("proxy-authorization", "Basic dXNlcg=="), "Basic ***")
        self.assertEqual(redact_header("Authorization", "opaque"), "***")
        for name in ("Cookie", "Set-Cookie", "X-API-Key", "X-Auth-Token", "Client-Secret"):
            self.assertEqual(redact_header(name, "value"), "***", name)
        self.assertEqual(redact_header("Location", "/mcp?token=abc"), "/mcp?token=***")
        for name, value in (("Mcp-Session-Id", "abc"), ("WWW-Authenticate", 'Bearer realm="x"'),
                            ("Content-Type", "application/json")):
            self.assertEqual(redact_header(name, value), value, name)

    def test_payloads(self) -> None:
        self.assertEqual(
            redact_payload('{"token":"a","progressToken":"p-1","clientSecret":"b\\"c",'
                           '"u":"https://u:p@h/x?k=v","t":"Bearer xyz"}'),
            '{"token":"***","progressToken":"p-1","clientSecret":"***",'
            '"u":"https://***@h/x?k=***","t":"Bearer ***"}')

    def test_a_url_cut_in_the_middle_is_hidden(self) -> None:
        from mcp_client._log import _shown

        text = "x" * (TRACE_CHARS - 20) + " https://ada:pa55-w0rd" + "w" * 10_000 + "@h/"
        shown = _shown(text.encode())
        self.assertNotIn("pa55-w0rd", shown)
        self.assertNotIn("ada", shown)
        self.assertTrue(shown.endswith(f"https://***\u2026 ({len(text):,} bytes)"), shown[-60:])

    def test_key_and_token_headers_of_every_spelling(self) -> None:
        for name in ("X_API_KEY", "Ocp-Apim-Subscription-Key", "X-Auth-Key", "X-Access-Key",
                     "X-Goog-Api-Key", "X-Passwd", "X-Signature"):
            self.assertEqual(redact_header(name, "s3cr3t"), "***", name)

    def test_secret_members_of_every_spelling(self) -> None:
        for name in ("apiToken", "api-token", "sessionToken", "github_token", "privateKey",
                     "private_key", "accessKey", "credentials", "credential", "signature"):
            shown = redact_payload(json.dumps({name: "s3cr3t", "progressToken": "p-1"}))
            self.assertNotIn("s3cr3t", shown, name)
            self.assertIn('"progressToken": "p-1"', shown, name)

    def test_a_secret_value_that_runs_past_the_cut_is_hidden(self) -> None:
        from mcp_client._log import _shown

        for name in ("password", "apiKey"):
            text = json.dumps({"x": "a" * 1000, name: "S" * 20_000})
            for payload in (text, text.encode()):
                shown = _shown(payload)
                self.assertNotIn("SSSS", shown, name)
                self.assertIn(f'"{name}": "***', shown)

    def test_a_servers_name_cannot_forge_a_trace_line(self) -> None:
        trace = _log.WireTrace(logging.getLogger(WIRE_LOGGER), "stdio pid=1")
        trace.received(json.dumps({"jsonrpc": "2.0", "id": 1, "result": {
            "protocolVersion": "2025-11-25",
            "serverInfo": {"name": "evil\n<< {\"forged\": 1}\x1b[2K", "version": "1"}}}))
        self.assertEqual(trace.label, 'evil<< {"forged": 1}[2K stdio pid=1')
