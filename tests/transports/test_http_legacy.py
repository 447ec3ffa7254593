"""Legacy Streamable HTTP (2025-11-25) against scripted servers: the probe's fallback,
sessions, server requests, the GET stream, DELETE, session expiry and resumption."""

from __future__ import annotations

import json
import time
from typing import Any

from mcp_client import ProtocolError, Timeout, TransportError, UnsupportedVersion
from mcp_client.types import text_of

from ..base import wait_until
from ..httpkit import (WAIT, Everywhere, LegacyScript, Reply, ScriptedCase, ScriptedServer,
                       Seen, elapsed, event)


class LegacyCase(ScriptedCase):
    def legacy(self, **options: Any) -> tuple[ScriptedServer, LegacyScript]:
        script = LegacyScript(**options)
        srv = self.serve(script)
        self.addCleanup(script.stopped.set)   # before the server stops: its GET loops end
        return srv, script

    def methods(self, srv: ScriptedServer) -> list[str | None]:
        return [s.rpc_method if s.method == "POST" else s.method for s in srv.requests]


class ProbeFallbackTest(LegacyCase):
    def test_a_missing_session_answer_leads_to_the_handshake_in_a_session(self) -> None:
        srv, script = self.legacy()
        client = self.client(srv)
        self.assertEqual([t["name"] for t in client.list_tools()], ["echo"])
        self.assertEqual((client.era, client.protocol_version, client.session_id),
                         ("legacy", "2025-11-25", "s-1"))
        self.assertEqual(client.server_info, {"name": "legacy-script", "version": "1"})
        self.assertEqual([m for m in self.methods(srv) if m != "GET"],
                         ["server/discover", "initialize", "notifications/initialized",
                          "tools/list"])
        init = srv.seen("initialize")[0]
        self.assertNotIn("mcp-session-id", init.headers)
        self.assertNotIn("mcp-protocol-version", init.headers)
        self.assertEqual(init.json["params"]["protocolVersion"], "2025-11-25")
        for later in srv.seen("notifications/initialized") + srv.seen("tools/list"):
            self.assertEqual(later.headers["mcp-session-id"], "s-1")
            self.assertEqual(later.headers["mcp-protocol-version"], "2025-11-25")
            self.assertNotIn("mcp-method", later.headers)
        self.assertEqual(self.warnings, [])

    def test_an_older_handshake_version_is_accepted_and_named(self) -> None:
        for version in ("2025-06-18", "2025-03-26"):
            with self.subTest(version=version):
                srv, script = self.legacy(version=version)
                client = self.client(srv)
                client.call_tool("echo")
                self.assertEqual(client.protocol_version, version)
                self.assertEqual(srv.seen("tools/call")[0].headers["mcp-protocol-version"],
                                 version)

    def test_every_non_modern_answer_to_discover_means_the_handshake(self) -> None:
        answers = {
            "404 text": lambda reply, seen: reply.send(404, b"Not Found", "text/plain"),
            "405": lambda reply, seen: reply.send(405, b"", None, {"Allow": "GET, DELETE"}),
            "-32601": lambda reply, seen: reply.json(
                {"jsonrpc": "2.0", "id": seen.rpc_id,
                 "error": {"code": -32601, "message": "Method not found"}}, 404),
            "not initialized": lambda reply, seen: reply.json(
                {"jsonrpc": "2.0", "id": None,
                 "error": {"code": -32000, "message": "Bad Request: Server not initialized"}},
                400),
            "mcp 1.x version": lambda reply, seen: reply.json(
                {"jsonrpc": "2.0", "id": "server-error",
                 "error": {"code": -32600, "message": "Bad Request: Unsupported protocol "
                           "version: 2026-07-28. Supported versions: 2024-11-05, 2025-03-26, "
                           "2025-06-18, 2025-11-25"}}, 400),
            "-32022 legacy only": lambda reply, seen: reply.json(
                {"jsonrpc": "2.0", "id": seen.rpc_id,
                 "error": {"code": -32022, "message": "Unsupported protocol version",
                           "data": {"supported": ["2025-11-25", "2025-06-18"]}}}, 400),
        }
        for name, discover in answers.items():
            with self.subTest(name):
                srv, script = self.legacy(discover=discover)
                client = self.client(srv)
                self.assertEqual(client.protocol_version, "2025-11-25")
                self.assertEqual(len(srv.seen("initialize")), 1)

    def test_era_legacy_sends_no_discover(self) -> None:
        srv, script = self.legacy()
        client = self.client(srv, era="legacy")
        client.list_tools()
        self.assertEqual(srv.seen("server/discover"), [])
        self.assertEqual(client.era, "legacy")

    def test_a_wrong_path_is_a_404_naming_the_url(self) -> None:
        srv = self.serve(Everywhere(404, b"no such page here"))
        client = self.client(srv, url=srv.origin + "/wrong")
        with self.assertRaises(TransportError) as caught:
            client.list_tools()
        self.assertNotIsInstance(caught.exception, UnsupportedVersion)
        self.assertEqual(caught.exception.status, 404)
        self.assertIn(srv.origin + "/wrong", str(caught.exception))
        self.assertIn("no such page here", caught.exception.body)
        self.assertIn("server/discover, initialize and the HTTP+SSE GET were all answered 404",
                      str(caught.exception))
        self.assertEqual([s.method for s in srv.requests], ["POST", "POST", "GET"])

    def test_a_refused_initialize_keeps_the_servers_own_text(self) -> None:
        def discover(reply: Reply, seen: Seen) -> None:
            reply.json({"jsonrpc": "2.0", "id": "server-error", "error": {
                "code": -32600, "message": "Bad Request: Missing session ID"}}, 400)

        def respond(reply: Reply, seen: Seen) -> None:
            if seen.rpc_method == "initialize":
                reply.json({"jsonrpc": "2.0", "id": "server-error", "error": {
                    "code": -32600, "message": "Unsupported protocol version: 2025-11-25"}}, 400)
            else:
                discover(reply, seen)

        srv = self.serve(respond)
        with self.assertRaises(ProtocolError) as caught:
            self.client(srv).list_tools()
        self.assertIn("Unsupported protocol version: 2025-11-25", str(caught.exception))


class SessionTest(LegacyCase):
    def test_close_deletes_the_session(self) -> None:
        srv, script = self.legacy()
        client = self.client(srv)
        client.list_tools()
        client.close()
        self.assertEqual(script.deleted, ["s-1"])
        self.assertEqual(srv.verbs("DELETE")[0].headers["mcp-protocol-version"], "2025-11-25")

    def test_a_malformed_session_id_is_not_sent_back(self) -> None:
        def respond(reply: Reply, seen: Seen) -> None:
            if seen.rpc_method == "initialize":
                body = {"jsonrpc": "2.0", "id": seen.rpc_id, "result": {
                    "protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {}}}
                reply.send(200, json.dumps(body).encode(), "application/json",
                           {"Mcp-Session-Id": "bad id"})
            elif seen.rpc_method == "server/discover":
                reply.send(404)
            else:
                ScriptedServer.default(reply, seen)

        srv = self.serve(respond)
        client = self.client(srv)
        client.call_tool("echo")
        self.assertIsNone(client.session_id)
        self.assertNotIn("mcp-session-id", srv.seen("tools/call")[0].headers)
        self.assertTrue(any("malformed Mcp-Session-Id" in w for w in self.warnings))

    def test_a_405_to_delete_is_ignored(self) -> None:
        srv, script = self.legacy(delete_status=405)
        client = self.client(srv)
        client.list_tools()
        client.close()
        self.assertEqual(script.deleted, ["s-1"])
        self.assertEqual(self.warnings, [])

    def test_stateless_sends_no_session_and_no_delete(self) -> None:
        srv, script = self.legacy(stateful=False)
        client = self.client(srv)
        client.call_tool("echo")
        self.assertIsNone(client.session_id)
        client.close()
        self.assertEqual(srv.verbs("DELETE"), [])
        self.assertTrue(all("mcp-session-id" not in s.headers for s in srv.requests))

    def test_an_expired_session_is_renewed_once_and_the_request_retried(self) -> None:
        srv, script = self.legacy()
        client = self.client(srv)
        client.list_tools()
        script.expire()
        self.assertEqual(text_of(client.call_tool("echo")), "ok")
        self.assertEqual(client.session_id, "s-2")
        calls = srv.seen("tools/call")
        self.assertEqual([c.headers["mcp-session-id"] for c in calls], ["s-1", "s-2"])
        self.assertEqual(len(srv.seen("initialize")), 2)
        self.assertNotIn("mcp-session-id", srv.seen("initialize")[1].headers)
        self.assertEqual(srv.seen("notifications/initialized")[1].headers["mcp-session-id"],
                         "s-2")
        self.assertTrue(any("s-1" in w and "new session" in w for w in self.warnings),
                        self.warnings)

    def test_a_second_404_is_an_error(self) -> None:
        def call(reply: Reply, seen: Seen) -> None:
            script.expire()
            reply.send(404, b"Session not found", "text/plain")

        srv, script = self.legacy(on_call=call)
        client = self.client(srv)
        with self.assertRaises(TransportError) as caught:
            client.call_tool("echo")
        self.assertEqual(caught.exception.status, 404)
        self.assertEqual(len(srv.seen("tools/call")), 2)
        self.assertEqual(len(srv.seen("initialize")), 2)

    def test_a_404_that_says_method_not_found_is_that_answer(self) -> None:
        srv, script = self.legacy(on_call=lambda reply, seen: reply.json(
            {"jsonrpc": "2.0", "id": seen.rpc_id,
             "error": {"code": -32601, "message": "Method not found"}}, 404))
        client = self.client(srv)
        with self.assertRaises(ProtocolError) as caught:
            client.call_tool("echo")
        self.assertEqual(caught.exception.code, -32601)
        self.assertEqual(len(srv.seen("initialize")), 1)   # the session was not renewed
        self.assertEqual(client.session_id, "s-1")

    def test_concurrent_404s_renew_the_session_once(self) -> None:
        srv, script = self.legacy()
        client = self.client(srv)
        client.list_tools()
        script.expire()
        futures = [client.call_tool_async("echo") for _ in range(4)]
        for future in futures:
            self.assertEqual(text_of(future.result(WAIT)), "ok")
        self.assertEqual(len(srv.seen("initialize")), 2)


class ServerRequestTest(LegacyCase):
    def test_an_elicitation_on_a_post_stream_is_answered_by_post(self) -> None:
        def call(reply: Reply, seen: Seen) -> None:
            reply.stream_head()
            reply.stream_write(event({"jsonrpc": "2.0", "id": "e1", "method": "elicitation/create",
                                      "params": {"message": "name?", "requestedSchema": {
                                          "type": "object",
                                          "properties": {"name": {"type": "string"}}}}}))
            answer = script.answers.get(timeout=WAIT)
            reply.stream_write(event({"jsonrpc": "2.0", "id": seen.rpc_id, "result": {
                "content": [{"type": "text", "text": answer["result"]["content"]["name"]}]}}))
            reply.stream_end()

        srv, script = self.legacy(on_call=call)
        client = self.client(srv, on_elicit=lambda request: {"action": "accept",
                                                             "content": {"name": "Ada"}})
        self.assertEqual(text_of(client.call_tool("echo")), "Ada")
        posted = [s for s in srv.requests if s.method == "POST" and s.rpc_method is None]
        self.assertEqual(posted[0].json["id"], "e1")
        self.assertEqual(posted[0].headers["mcp-session-id"], "s-1")

    def test_the_get_stream_carries_requests_and_notifications(self) -> None:
        srv, script = self.legacy(get_stream=True)
        client = self.client(srv)
        client.list_tools()
        self.assertTrue(script.get_opened.wait(WAIT))
        get = srv.verbs("GET")[0]
        self.assertEqual((get.headers["mcp-session-id"], get.headers["accept"]),
                         ("s-1", "text/event-stream"))
        script.push({"jsonrpc": "2.0", "id": 7, "method": "ping"})
        self.assertEqual(script.answers.get(timeout=WAIT), {"jsonrpc": "2.0", "id": 7,
                                                            "result": {}})

    def test_a_refused_get_stream_is_quiet(self) -> None:
        srv, script = self.legacy(get_stream=False)
        client = self.client(srv)
        client.list_tools()
        client.close()
        self.assertEqual(len(srv.verbs("GET")), 1)
        self.assertEqual(self.warnings, [])


class CancelTest(LegacyCase):
    def test_a_timed_out_call_posts_notifications_cancelled(self) -> None:
        srv, script = self.legacy(on_call=lambda reply, seen: reply.wait_for_hang_up(WAIT))
        client = self.client(srv)
        client.list_tools()
        with self.assertRaises(Timeout):
            client.call_tool("echo", timeout=0.3)
        call = srv.seen("tools/call")[0]
        wait_until(lambda: srv.seen("notifications/cancelled"), WAIT)
        cancelled = srv.seen("notifications/cancelled")[0]
        self.assertEqual(cancelled.json["params"]["requestId"], call.rpc_id)
        self.assertEqual(cancelled.headers["mcp-session-id"], "s-1")


class GetStreamTest(LegacyCase):
    def test_a_dropped_get_stream_is_reopened(self) -> None:
        srv, script = self.legacy(get_stream=True)
        original = script.get
        opened: list[Seen] = []

        def get(reply: Reply, seen: Seen) -> None:
            opened.append(seen)
            if len(opened) == 1:   # the first one drops at once, asking for a quick retry
                reply.stream_head()
                reply.stream_write(b"id: g-1\nretry: 50\ndata: \n\n")
                reply.stream_end()
                return
            original(reply, seen)

        script.get = get   # type: ignore[method-assign]
        client = self.client(srv)
        client.list_tools()
        self.assertTrue(script.get_opened.wait(WAIT))   # the second one
        self.assertEqual(opened[1].headers.get("last-event-id"), "g-1")
        script.push({"jsonrpc": "2.0", "id": 8, "method": "ping"})
        self.assertEqual(script.answers.get(timeout=WAIT)["id"], 8)

    def test_the_first_request_waits_until_the_get_stream_was_answered(self) -> None:
        # A server slow to answer its GET must still see it before the session's
        # first request: otherwise a message it sends after that request is lost,
        # and a server may take the listener for a response stream's resumption.
        srv, script = self.legacy(get_stream=True)
        original = script.get
        order: list[str] = []

        def get(reply: Reply, seen: Seen) -> None:
            if not order:
                script.stopped.wait(0.3)   # slow to answer (ends early when the test does)
            order.append("GET answered")
            original(reply, seen)

        script.get = get   # type: ignore[method-assign]
        client = self.client(srv)
        client.list_tools()
        order.append("tools/list answered")
        self.assertEqual(order[0], "GET answered")

    def test_a_silent_get_stream_costs_nothing(self) -> None:
        srv, script = self.legacy(get_stream=True)
        client = self.client(srv)
        client.list_tools()
        self.assertTrue(script.get_opened.wait(WAIT))
        self.assertEqual(text_of(client.call_tool("echo")), "ok")
        started = time.monotonic()
        client.close()
        self.assertLess(elapsed(started), 5)
        self.assertEqual(script.deleted, ["s-1"])
        self.assertEqual(self.warnings, [])


class ResumeTest(LegacyCase):
    def test_a_stream_cut_after_a_priming_event_is_resumed_by_get(self) -> None:
        answered: dict[str, Any] = {}

        def call(reply: Reply, seen: Seen) -> None:
            answered["id"] = seen.rpc_id
            reply.stream_head()
            reply.stream_write(b"id: ev-1\nretry: 200\ndata: \n\n")
            reply.stream_end()
            answered["cut"] = time.monotonic()

        srv, script = self.legacy(on_call=call)
        original_get = script.get

        def get(reply: Reply, seen: Seen) -> None:
            if seen.headers.get("last-event-id") != "ev-1":
                original_get(reply, seen)
                return
            answered["resumed"] = time.monotonic()
            reply.stream_head()
            reply.stream_write(event({"jsonrpc": "2.0", "id": answered["id"],
                                      "result": {"content": [{"type": "text", "text": "late"}]}}))
            reply.stream_end()

        script.get = get   # type: ignore[method-assign]
        client = self.client(srv)
        self.assertEqual(text_of(client.call_tool("echo")), "late")
        self.assertGreaterEqual(answered["resumed"] - answered["cut"], 0.15)
        resumed = [s for s in srv.verbs("GET") if "last-event-id" in s.headers][0]
        self.assertEqual(resumed.headers["mcp-session-id"], "s-1")

    def test_a_resume_the_server_cannot_honour_fails_the_call(self) -> None:
        def call(reply: Reply, seen: Seen) -> None:
            reply.stream_head()
            reply.stream_write(b"id: ev-1\nretry: 10\ndata: \n\n")
            reply.stream_end()

        srv, script = self.legacy(on_call=call)
        client = self.client(srv)
        started = time.monotonic()
        with self.assertRaises(TransportError) as caught:
            client.call_tool("echo")
        self.assertLess(elapsed(started), WAIT)
        self.assertIn("would not resume", str(caught.exception))
        self.assertEqual(caught.exception.status, 405)


class ResumeBoundTest(LegacyCase):
    def test_resuming_gives_up_after_three_attempts(self) -> None:
        def call(reply: Reply, seen: Seen) -> None:
            reply.stream_head()
            reply.stream_write(b"id: ev-0\nretry: 10\ndata: \n\n")
            reply.stream_end()

        srv, script = self.legacy(on_call=call)
        original = script.get

        def get(reply: Reply, seen: Seen) -> None:
            last = seen.headers.get("last-event-id")
            if last is None:
                original(reply, seen)
                return
            reply.stream_head()   # resumes, and ends again without the answer
            reply.stream_write(f"id: {last}+\ndata: \n\n".encode())
            reply.stream_end()

        script.get = get   # type: ignore[method-assign]
        client = self.client(srv)
        with self.assertRaises(TransportError) as caught:
            client.call_tool("echo")
        self.assertIn("ended without the answer, after resuming it 3 times",
                      str(caught.exception))
        resumed = [s.headers["last-event-id"] for s in srv.verbs("GET")
                   if "last-event-id" in s.headers]
        self.assertEqual(resumed, ["ev-0", "ev-0+", "ev-0++"])


class ErrorContextTest(LegacyCase):
    def test_a_401_carries_its_headers(self) -> None:
        srv = self.serve(lambda reply, seen: reply.send(
            401, b"login first", "text/plain", {"WWW-Authenticate": 'Bearer realm="mcp"'}))
        with self.assertRaises(TransportError) as caught:
            self.client(srv).list_tools()
        self.assertEqual(caught.exception.status, 401)
        self.assertEqual(caught.exception.headers.get("WWW-Authenticate"), 'Bearer realm="mcp"')
        self.assertEqual(caught.exception.body, "login first")
