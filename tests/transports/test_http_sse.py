"""The 2024-11-05 HTTP+SSE transport against a scripted server: connect_sse, the fallback
from connect_http, server requests, and endpoint events that are missing, foreign or late."""

from __future__ import annotations

import json
import queue
import time
from typing import Any
from unittest import mock

from mcp_client import Client, MCPClientError, TransportError
from mcp_client.http_sse import SSETransport
from mcp_client.types import text_of

from .. import httpkit
from ..httpkit import WAIT, Everywhere, ScriptedCase, ScriptedServer, SSEScript, elapsed


class SSECase(ScriptedCase):
    def sse_server(self, **options: Any) -> tuple[ScriptedServer, SSEScript]:
        script = SSEScript(**options)
        srv = self.serve(script)
        self.addCleanup(script.stopped.set)
        return srv, script

    def sse_client(self, srv: ScriptedServer, **options: Any) -> Client:
        self.warnings: list[str] = []
        options.setdefault("on_warn", self.warnings.append)
        client = Client.connect_sse(srv.url, **options)
        self.addCleanup(client.close)
        return client


class ConnectSSETest(SSECase):
    def test_list_and_call(self) -> None:
        srv, script = self.sse_server()
        client = self.sse_client(srv)
        self.assertEqual([t["name"] for t in client.list_tools()], ["echo"])
        self.assertEqual(text_of(client.call_tool("echo")), "ok")
        self.assertEqual((client.era, client.protocol_version), ("legacy", "2024-11-05"))
        self.assertEqual(srv.seen("server/discover"), [])
        posted = srv.seen("tools/call")[0]
        self.assertEqual(posted.path, "/messages?session_id=abc")
        self.assertIsInstance(client.transport, SSETransport)
        self.assertEqual(self.warnings, [])

    def test_a_server_request_on_the_stream_is_answered_by_post(self) -> None:
        srv, script = self.sse_server()
        client = self.sse_client(srv)
        client.list_tools()
        script.push({"jsonrpc": "2.0", "id": "p1", "method": "ping"})
        self.assertEqual(script.answers.get(timeout=WAIT),
                         {"jsonrpc": "2.0", "id": "p1", "result": {}})

    def test_an_event_that_holds_no_message_is_skipped_and_said(self) -> None:
        srv, script = self.sse_server()
        said: queue.Queue[str] = queue.Queue()
        client = self.sse_client(srv, on_warn=said.put)
        client.list_tools()
        framed = httpkit.event
        with mock.patch.object(httpkit, "event",
                               lambda m: m if isinstance(m, bytes) else framed(m)):
            script.push(b"event: message\r\ndata: {broken\r\n\r\n")
            script.push(b"event: message\r\ndata: [1, 2]\r\n\r\n")
            first, second = said.get(timeout=WAIT), said.get(timeout=WAIT)
        self.assertEqual(first, "skipped an SSE event that is not JSON: '{broken'")
        self.assertEqual(second, "skipped an SSE event that is not a JSON-RPC message: '[1, 2]'")
        self.assertEqual(text_of(client.call_tool("echo")), "ok")

    def test_a_late_endpoint_is_waited_for(self) -> None:
        srv, script = self.sse_server(endpoint_delay=0.3)
        client = self.sse_client(srv)
        self.assertEqual(text_of(client.call_tool("echo")), "ok")

    def test_a_missing_endpoint_fails_in_time(self) -> None:
        srv, script = self.sse_server(endpoint=None)
        client = self.sse_client(srv, connect_timeout=0.5)
        started = time.monotonic()
        with self.assertRaises(TransportError) as caught:
            client.list_tools()
        self.assertLess(elapsed(started), WAIT)
        self.assertIn("no endpoint event within 0.5s", str(caught.exception))

    def test_an_endpoint_on_another_origin_is_refused(self) -> None:
        srv, script = self.sse_server(endpoint="http://127.0.0.2:1/steal")
        client = self.sse_client(srv)
        with self.assertRaises(TransportError) as caught:
            client.list_tools()
        self.assertIn("another origin", str(caught.exception))
        self.assertEqual([s.method for s in srv.requests], ["GET"])

    def test_no_stream_there(self) -> None:
        srv = self.serve(Everywhere(404, b"nope"))
        client = self.sse_client(srv)
        with self.assertRaises(TransportError) as caught:
            client.list_tools()
        self.assertEqual((caught.exception.status, caught.exception.body), (404, "nope"))
        self.assertIn("no HTTP+SSE stream there", str(caught.exception))

    def test_bad_settings(self) -> None:
        for kwargs in ({"connect_timeout": 0}, {"headers": {"Accept": "x"}}):
            with self.subTest(kwargs=kwargs), self.assertRaises(MCPClientError):
                SSETransport("http://127.0.0.1:1/sse", **kwargs)
        with self.assertRaises(MCPClientError):
            SSETransport("ftp://x/sse")


class FallbackTest(SSECase):
    def test_connect_http_falls_back_to_http_sse(self) -> None:
        for refuse in (400, 404, 405):
            with self.subTest(refuse=refuse):
                srv, script = self.sse_server(refuse=refuse)
                client = self.client(srv)
                self.assertEqual(text_of(client.call_tool("echo")), "ok")
                self.assertEqual(client.protocol_version, "2024-11-05")
                self.assertIsInstance(client.transport, SSETransport)
                self.assertEqual([s.method for s in srv.requests][:3], ["POST", "POST", "GET"])
                self.assertEqual([s.rpc_method for s in srv.requests[:2]],
                                 ["server/discover", "initialize"])
                client.close()


class ConfigAndCLITest(SSECase):
    def test_a_config_entry_of_type_sse(self) -> None:
        from mcp_client.config import load_config

        srv, script = self.sse_server()
        entry, = load_config({"mcpServers": {"old": {"type": "sse", "url": srv.url}}})
        client = entry.connect()
        self.addCleanup(client.close)
        self.assertIsInstance(client.transport, SSETransport)
        self.assertEqual(text_of(client.call_tool("echo")), "ok")

    def test_the_cli_reaches_http_sse(self) -> None:
        import io

        from mcp_client.cli import main

        srv, script = self.sse_server()
        stdout, stderr = io.StringIO(), io.StringIO()
        code = main(["tools", "--sse", srv.url, "--header", "X-Test: 1", "--json"],
                    stdin=io.StringIO(), stdout=stdout, stderr=stderr)
        self.assertEqual(code, 0, stderr.getvalue())
        self.assertEqual([tool["name"] for tool in json.loads(stdout.getvalue())], ["echo"])
        self.assertTrue(all(s.headers.get("x-test") == "1" for s in srv.requests))
