"""mcp_client.http against misbehaving servers: errors, broken streams, redirects, legacy
endpoints, and cancellation seen from the server's side of the connection.

Each server is a stdlib ``http.server`` in a thread (``tests/httpkit.py``) answering POSTs the
way one test needs.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from concurrent.futures import Future
from typing import Any
from unittest import mock

from mcp_client import (Cancelled, MCPClientError, ProtocolError, Timeout, TransportClosed,
                        TransportError)
from mcp_client.sse import EventTooLarge
from mcp_client.types import Notification

from ..base import of_type
from ..httpkit import (WAIT, Everywhere, Reply, ScriptedCase, ScriptedServer, Seen, ViaRequests,
                       Wire, elapsed, event)


class ErrorsTest(ScriptedCase):
    def test_a_500_with_an_html_body_is_a_transport_error(self) -> None:
        html = b"<html><body><h1>500 Internal Server Error</h1>\n\n  nginx</body></html>"
        srv = self.serve(self.on_call(lambda reply, seen: reply.send(500, html, "text/html")))
        with self.assertRaises(TransportError) as caught:
            self.client(srv).call_tool("t")
        error = caught.exception
        self.assertEqual(error.status, 500)
        self.assertTrue(error.body.startswith("<html><body><h1>500 Internal Server Error"))
        self.assertIn("tools/call", str(error))

    def test_a_json_rpc_error_under_a_500_is_that_error(self) -> None:
        body = {"jsonrpc": "2.0", "id": None, "error": {"code": -32603, "message": "boom"}}
        srv = self.serve(self.on_call(lambda reply, seen: reply.json(body, 500)))
        with self.assertRaises(ProtocolError) as caught:
            self.client(srv).call_tool("t")
        self.assertEqual((caught.exception.code, caught.exception.message), (-32603, "boom"))

    def test_a_json_body_that_is_not_json_rpc(self) -> None:
        srv = self.serve(self.on_call(lambda reply, seen: reply.json({"error": "nope"}, 401)))
        with self.assertRaises(TransportError) as caught:
            self.client(srv).call_tool("t")
        self.assertEqual((caught.exception.status, caught.exception.body),
                         (401, '{"error": "nope"}'))

    def test_a_success_that_is_neither_json_nor_a_stream(self) -> None:
        srv = self.serve(self.on_call(lambda reply, seen: reply.send(200, b"ok", "text/plain")))
        with self.assertRaises(TransportError) as caught:
            self.client(srv).call_tool("t")
        self.assertIn("text/plain", str(caught.exception))

    def test_a_request_answered_202(self) -> None:
        srv = self.serve(self.on_call(lambda reply, seen: reply.send(202)))
        with self.assertRaises(TransportError) as caught:
            self.client(srv).call_tool("t")
        self.assertEqual(caught.exception.status, 202)

    def test_an_unreachable_server_fails_each_request_alone(self) -> None:
        srv = self.serve()
        url = srv.url
        srv.stop()   # nothing listens on that port any more
        wire = Wire(self, url, connect_timeout=2)
        wire.request(7, "tools/list")
        ident, error = wire.error()
        self.assertEqual(ident, 7)
        self.assertIsNone(of_type(error, TransportError).status)
        self.assertIn("cannot reach", str(error))
        self.assertEqual(wire.closes, [])
        client = self.client(srv, url=url, era="2026-07-28")   # no probe to hide the error
        with self.assertRaises(TransportError):
            client.list_tools()

    def test_connect_timeout_bounds_connecting(self) -> None:
        listener = socket.socket()
        self.addCleanup(listener.close)
        listener.bind(("127.0.0.1", 0))
        listener.listen(0)   # never accepts: once its queue is full, connecting hangs
        port = listener.getsockname()[1]
        for _ in range(8):
            filler = socket.socket()
            self.addCleanup(filler.close)
            filler.settimeout(0.2)
            try:
                filler.connect(("127.0.0.1", port))
            except OSError:
                break   # this one could not connect: the queue is full
        else:
            self.skipTest("could not fill the listener's accept queue")
        wire = Wire(self, f"http://127.0.0.1:{port}/mcp", connect_timeout=0.5)
        started = time.monotonic()
        wire.request(1, "tools/list")
        ident, error = wire.error()
        self.assertLess(elapsed(started), 3)
        self.assertEqual((ident, of_type(error, TransportError).status), (1, None))
        self.assertIn("could not connect", str(error))
        self.assertIn("within 0.5s", str(error))

    def test_a_body_larger_than_max_event_bytes(self) -> None:
        big = {"content": [{"type": "text", "text": "x" * 5000}]}
        srv = self.serve(self.on_call(lambda reply, seen: reply.result(seen, big)))
        with self.assertRaises(TransportError) as caught:
            self.client(srv, max_event_bytes=4096).call_tool("t")
        self.assertIn("max_event_bytes", str(caught.exception))

    def test_an_event_larger_than_max_event_bytes(self) -> None:
        def answer(reply: Reply, seen: Seen) -> None:
            reply.stream_head()
            reply.stream_write(event({"jsonrpc": "2.0", "id": seen.rpc_id,
                                      "result": {"content": [{"text": "y" * 5000}]}}))
            reply.stream_end()

        srv = self.serve(self.on_call(answer))
        with self.assertRaises(EventTooLarge):
            self.client(srv, max_event_bytes=4096).call_tool("t")


class StreamTest(ScriptedCase):
    def progress(self, n: int) -> dict[str, Any]:
        return {"jsonrpc": "2.0", "method": "notifications/progress",
                "params": {"progressToken": "tok", "progress": n}}

    def test_notifications_come_before_the_answer_and_the_rest_is_not_waited_for(self) -> None:
        hung_up = threading.Event()

        def answer(reply: Reply, seen: Seen) -> None:
            reply.stream_head()
            reply.stream_write(b": ping\r\n\r\n" + event(self.progress(1)))
            reply.stream_write(event(self.progress(2), crlf=False))
            reply.stream_write(event({"jsonrpc": "2.0", "id": seen.rpc_id,
                                      "result": {"content": []}}))
            if reply.wait_for_hang_up(WAIT):   # the stream stays open after the answer
                hung_up.set()

        srv = self.serve(self.on_call(answer))
        client = self.client(srv)
        notes: list[Notification] = []
        client.notifications.subscribe(notes.append)
        started = time.monotonic()
        self.assertEqual(client.call_tool("t", progress_token="tok"), {"content": []})
        self.assertLess(elapsed(started), 5)
        self.assertEqual([n["params"]["progress"] for n in notes], [1, 2])
        self.assertTrue(hung_up.wait(WAIT))

    def test_a_stream_closed_mid_event(self) -> None:
        def answer(reply: Reply, seen: Seen) -> None:
            reply.stream_head(chunked=False)
            reply.stream_write(event(self.progress(1)), chunked=False)
            reply.stream_write(b'event: message\r\ndata: {"jsonrpc":"2.0","id":', chunked=False)
            reply.hang_up()

        srv = self.serve(self.on_call(answer))
        with self.assertRaises(TransportError) as caught:
            self.client(srv).call_tool("t")
        self.assertIn("ended in the middle of an event", str(caught.exception))
        self.assertEqual(caught.exception.status, 200)

    def test_a_chunked_stream_cut_off(self) -> None:
        def answer(reply: Reply, seen: Seen) -> None:
            reply.stream_head()
            reply.stream_write(event(self.progress(1)))
            reply.handler.wfile.write(b"40\r\nevent: mess")   # a chunk that never completes
            reply.handler.wfile.flush()
            reply.hang_up()

        srv = self.serve(self.on_call(answer))
        with self.assertRaises(TransportError) as caught:
            self.client(srv).call_tool("t")
        self.assertIn("broke before the answer", str(caught.exception))

    def test_a_stream_that_ends_without_the_answer(self) -> None:
        def answer(reply: Reply, seen: Seen) -> None:
            reply.stream_head()
            reply.stream_write(event(self.progress(1)))
            reply.stream_end()

        srv = self.serve(self.on_call(answer))
        with self.assertRaises(TransportError) as caught:
            self.client(srv).call_tool("t")
        self.assertIn("ended without the answer", str(caught.exception))

    def test_junk_and_server_requests_on_a_stream_are_skipped(self) -> None:
        def answer(reply: Reply, seen: Seen) -> None:
            reply.stream_head()
            reply.stream_write(b"data: not json\n\n" + b"event: other\ndata: {}\n\n")
            reply.stream_write(event({"jsonrpc": "2.0", "id": 99, "method": "roots/list"}))
            reply.stream_write(event({"jsonrpc": "2.0", "id": None,
                                      "error": {"code": -32000, "message": "late"}}))
            reply.stream_end()

        srv = self.serve(self.on_call(answer))
        client = self.client(srv)
        with self.assertRaises(ProtocolError) as caught:   # a null id: ours
            client.call_tool("t")
        self.assertEqual(caught.exception.code, -32000)
        self.assertIn("not JSON", self.warnings[0])
        if self.era == "modern":   # 2026-07-28 HTTP has no server requests
            self.assertEqual(len(self.warnings), 2, self.warnings)
            self.assertIn("server request", self.warnings[1])
        else:   # a session's server request is answered (here: no roots hook, so refused)
            self.assertEqual(len(self.warnings), 1, self.warnings)


class RedirectTest(ScriptedCase):
    def test_same_origin_307_and_308_are_followed(self) -> None:
        def respond(reply: Reply, seen: Seen) -> None:
            if seen.path == "/mcp":
                reply.send(307, headers={"Location": "/moved"})
            elif seen.path == "/moved":
                reply.send(308, headers={"Location": f"http://127.0.0.1:{srv.port}/final"})
            else:
                ScriptedServer.default(reply, seen)

        srv = self.serve(respond)
        client = self.client(srv)
        self.assertEqual(client.call_tool("t"), {"content": []})
        calls = srv.seen("tools/call")
        self.assertEqual([s.path for s in calls], ["/mcp", "/moved", "/final"])
        self.assertEqual({s.body for s in calls}, {calls[0].body})
        if self.era == "modern":
            self.assertEqual(calls[2].headers["mcp-name"], "t")
        else:
            self.assertEqual(calls[2].headers["mcp-session-id"], "s-1")

    def test_other_redirects_are_errors_that_say_where(self) -> None:
        cases = [(307, "http://localhost:{port}/mcp"), (308, "https://127.0.0.1:{port}/mcp"),
                 (302, "/elsewhere"), (301, "/elsewhere"), (303, "/elsewhere")]
        for status, target in cases:
            with self.subTest(status=status, target=target):
                location = target.format(port=0)

                def respond(reply: Reply, seen: Seen, status: int = status,
                            location: str = location) -> None:
                    if seen.rpc_method == "server/discover":
                        ScriptedServer.default(reply, seen)
                    else:
                        reply.send(status, headers={"Location": location})

                srv = self.serve(respond)
                with self.assertRaises(TransportError) as caught:
                    self.client(srv).call_tool("t")
                self.assertEqual(caught.exception.status, status)
                self.assertIn(location if "://" in location else srv.origin + location,
                              str(caught.exception))

    def test_a_redirect_loop_ends(self) -> None:
        srv = self.serve(self.on_call(
            lambda reply, seen: reply.send(307, headers={"Location": "/mcp"})))
        with self.assertRaises(TransportError) as caught:
            self.client(srv).call_tool("t")
        self.assertIn("more than 5 redirects", str(caught.exception))


class RefusesEverythingTest(ScriptedCase):
    """A server that refuses the probe and ``initialize`` alike: the handshake's own
    failure is raised, promptly, with the server's text (never "legacy-only")."""

    MISSING_SESSION = {"jsonrpc": "2.0", "id": None,
                       "error": {"code": -32600, "message": "Bad Request: Missing session ID"}}

    def check(self, respond: Any, error: type[MCPClientError], probe_timeout: float = 3.0,
              sse: bool = False, **options: Any) -> MCPClientError:
        srv = self.serve(respond)
        client = self.client(srv, probe_timeout=probe_timeout, **options)
        started = time.monotonic()
        with self.assertRaises(error) as caught:
            client.list_tools()
        self.assertLess(elapsed(started), probe_timeout + 2)
        # a 400/404/405 to initialize sends the HTTP+SSE GET (2025-11-25 backward compatibility)
        self.assertEqual([s.rpc_method if s.method == "POST" else s.method for s in srv.requests],
                         ["server/discover", "initialize"] + (["GET"] if sse else []))
        return caught.exception

    def test_missing_session_id(self) -> None:
        raised = self.check(lambda reply, seen: reply.json(self.MISSING_SESSION, 400),
                            ProtocolError)   # a JSON-RPC error: no HTTP+SSE attempt
        self.assertIn("Missing session ID", str(raised))

    def test_404_and_405_without_a_json_rpc_body(self) -> None:
        raised = self.check(Everywhere(404, b"Not Found"), TransportError, sse=True)
        self.assertEqual(getattr(raised, "status", None), 404)
        self.assertIn("HTTP+SSE", str(raised))
        raised = self.check(Everywhere(405, b"", None, {"Allow": "DELETE"}), TransportError,
                            sse=True)
        self.assertEqual(getattr(raised, "status", None), 405)

    def test_method_not_found(self) -> None:
        raised = self.check(lambda reply, seen: reply.json(
            {"jsonrpc": "2.0", "id": seen.rpc_id,
             "error": {"code": -32601, "message": "Method not found"}}, 404), ProtocolError)
        self.assertIn("initialize", str(raised))

    def test_silence(self) -> None:
        self.check(lambda reply, seen: reply.wait_for_hang_up(WAIT), Timeout,
                   probe_timeout=0.5, request_timeout=1.0)


class CancellationTest(ScriptedCase):
    def holding(self) -> tuple[ScriptedServer, threading.Event, threading.Event]:
        """A server that never answers tools/call and notes when the client hangs up."""
        arrived, hung_up = threading.Event(), threading.Event()

        def answer(reply: Reply, seen: Seen) -> None:
            if seen.rpc_method != "tools/call":
                ScriptedServer.default(reply, seen)
                return
            arrived.set()
            if reply.wait_for_hang_up(WAIT):
                hung_up.set()

        return self.serve(self.on_call(answer)), arrived, hung_up

    def test_cancelling_before_the_status_line_drops_the_connection(self) -> None:
        srv, arrived, hung_up = self.holding()
        client = self.client(srv)
        stop: Future[None] = Future()
        future = client.call_tool_async("t", cancelled=stop)
        self.assertTrue(arrived.wait(WAIT))
        stop.set_result(None)
        with self.assertRaises(Cancelled):
            future.result(WAIT)
        self.assertTrue(hung_up.wait(WAIT))
        client.list_resources()   # on a new connection: the cancelled one was never pooled
        ports = {s.rpc_method: s.port for s in srv.requests}
        self.assertNotEqual(ports["resources/list"], ports["tools/call"])

    def test_a_timeout_drops_the_connection(self) -> None:
        srv, arrived, hung_up = self.holding()
        client = self.client(srv)
        with self.assertRaises(Timeout):   # long enough for the request to arrive on a busy host
            client.call_tool("t", timeout=1.5)
        self.assertTrue(arrived.is_set())
        self.assertTrue(hung_up.wait(WAIT))

    def test_close_aborts_what_is_in_flight(self) -> None:
        srv, arrived, hung_up = self.holding()
        client = self.client(srv)
        future = client.call_tool_async("t")
        self.assertTrue(arrived.wait(WAIT))
        started = time.monotonic()
        client.close()
        self.assertLess(elapsed(started), 2)
        with self.assertRaises(TransportClosed):
            future.result(WAIT)
        self.assertTrue(hung_up.wait(WAIT))
        with self.assertRaises(TransportClosed):
            client.transport.send({"jsonrpc": "2.0", "id": 1, "method": "x"})


class EnvironmentTest(ScriptedCase):
    """Proxies from the environment: read once, when the connection is made."""

    PROXY_VARIABLES = ("http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY", "no_proxy",
                       "NO_PROXY")

    def environment(self, **values: str) -> Any:
        clean = {k: v for k, v in os.environ.items() if k not in self.PROXY_VARIABLES}
        return mock.patch.dict(os.environ, {**clean, **values}, clear=True)

    def test_a_proxy_in_the_environment_carries_the_requests(self) -> None:
        proxy = self.serve()
        with self.environment(http_proxy=proxy.origin):
            client = self.client(proxy, url="http://mcp-server.invalid/mcp")
        client.list_tools()   # after the environment changed back: the connection keeps it
        self.assertEqual({seen.path for seen in proxy.requests}, {"http://mcp-server.invalid/mcp"})

    def test_no_proxy_is_respected(self) -> None:
        srv = self.serve()
        dead = socket.socket()
        dead.bind(("127.0.0.1", 0))   # bound, never listening: a proxy that refuses
        self.addCleanup(dead.close)
        with self.environment(http_proxy=f"http://127.0.0.1:{dead.getsockname()[1]}",
                              no_proxy="127.0.0.1"):
            client = self.client(srv)
            client.list_tools()
        self.assertEqual([seen.path for seen in srv.seen("tools/list")], ["/mcp"])


# -- the same faults in the other era: behind a 2025-11-25 session -------------------


class LegacyErrorsTest(ErrorsTest):
    era = "legacy"


class LegacyStreamTest(StreamTest):
    era = "legacy"


class LegacyRedirectTest(RedirectTest):
    era = "legacy"


class LegacyCancellationTest(CancellationTest):
    era = "legacy"


# -- the same faults on requests' path (what proxies, TLS, cookies and auth hooks take) --


class ErrorsViaRequestsTest(ViaRequests, ErrorsTest):
    pass


class StreamViaRequestsTest(ViaRequests, StreamTest):
    pass


class RedirectViaRequestsTest(ViaRequests, RedirectTest):
    pass


class CancellationViaRequestsTest(ViaRequests, CancellationTest):
    pass


class LegacyCancellationViaRequestsTest(ViaRequests, LegacyCancellationTest):
    pass
