"""The client against hostile HTTP servers: drips, endless streams, resets, silence, garbage.

Builds on ``tests/transports/test_http_faults.py``, which already covers an HTML 500,
streams cut mid-event and mid-chunk, a redirect loop, a 200 that is text/plain, and a
server that reads the request and never answers; these are the faults it does not.  Every
test is bounded in time (:meth:`within`) and in memory (200 MiB), and leaves no thread
behind.
"""

from __future__ import annotations

import json
import random
import socket
import threading
import time
import zlib
from typing import Any

from mcp_client import Timeout, TransportError
from mcp_client.sse import EventTooLarge

from ..chaoskit import BoundedCase, scale
from ..httpkit import (WAIT, Reply, ScriptedCase, ScriptedServer, Seen, elapsed, event,
                       read_request, reset)


def answer(seen: Seen, result: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": seen.rpc_id, "result": result or {"content": []}}


def progress(n: int, token: Any = "tok") -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": "notifications/progress",
            "params": {"progressToken": token, "progress": n}}


def gzip_bomb(mib: int) -> bytes:
    """An SSE body of ``data: 000...`` (``mib`` MiB, no line end), gzipped to a few KiB."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)   # 31: the gzip container
    block = b"0" * (1 << 20)
    parts = [packer.compress(b"data: ")] + [packer.compress(block) for _ in range(mib)]
    return b"".join(parts) + packer.flush()


class HTTPChaosCase(ScriptedCase, BoundedCase):
    def hang_ups(self) -> tuple[threading.Event, Any]:
        """An event set when a responder saw the client hang up, and a wrapper that sets it."""
        gone = threading.Event()

        def noting(respond: Any) -> Any:
            def wrapped(reply: Reply, seen: Seen) -> None:
                if respond(reply, seen) is False:
                    gone.set()
            return wrapped

        return gone, noting


class DripTest(HTTPChaosCase):
    """One byte a second: the call ends on its budget, and the connection with it."""

    def check(self, respond: Any, **options: Any) -> None:
        gone, noting = self.hang_ups()
        client = self.client(self.serve(self.on_call(noting(respond))), **options)
        self.assertEqual(client.era, self.era)
        with self.within(3), self.assertRaises(Timeout):
            client.call_tool("t", timeout=1)
        self.assertTrue(gone.wait(WAIT), "the server never saw the client hang up")

    def test_the_status_line_and_headers(self) -> None:
        head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"
        self.check(lambda reply, seen: reply.drip(head, 1.0))

    def test_an_event_stream(self) -> None:
        """Regression: a stream ended by closing the connection (``Connection: close``) was
        not cut when the call timed out; the worker read on until the server stopped."""
        def respond(reply: Reply, seen: Seen) -> bool:
            reply.stream_head(chunked=False)
            return reply.drip(event(answer(seen)), 1.0)

        self.check(respond)

    def test_a_json_body(self) -> None:
        def respond(reply: Reply, seen: Seen) -> bool:
            body = json.dumps(answer(seen)).encode()
            reply.handler.send_response(200)
            reply.handler.send_header("Content-Type", "application/json")
            reply.handler.send_header("Content-Length", str(len(body)))
            reply.handler.end_headers()
            return reply.drip(body, 1.0)

        self.check(respond)


class EndlessStreamTest(HTTPChaosCase):
    def endless(self, write: Any, *, chunked: bool = True
                ) -> tuple[ScriptedServer, threading.Event]:
        """A server whose tools/call stream never ends: ``write(reply, seen, n)`` until the
        client hangs up."""
        gone = threading.Event()

        def respond(reply: Reply, seen: Seen) -> None:
            reply.stream_head(chunked=chunked)
            for n in range(10 ** 9):
                try:
                    write(reply, seen, n)
                except OSError:
                    break
                if reply.wait_for_hang_up(0.0 if n % 100 else 0.01):
                    break
            gone.set()

        return self.serve(self.on_call(respond)), gone

    def test_keep_alives_and_no_answer(self) -> None:
        for chunked in (True, False):
            with self.subTest(chunked=chunked):
                srv, gone = self.endless(lambda reply, seen, n: reply.stream_write(
                    b": ping\n\n", chunked=chunked), chunked=chunked)
                client = self.client(srv)
                with self.within(3), self.assertRaises(Timeout):
                    client.call_tool("t", timeout=0.5)
                self.assertTrue(gone.wait(WAIT))
                with self.within(2):
                    client.close()

    def test_notifications_and_no_answer(self) -> None:
        srv, gone = self.endless(
            lambda reply, seen, n: reply.stream_write(event(progress(n, "tok"))))
        client = self.client(srv)
        notes: list[Any] = []
        client.notifications.subscribe(notes.append)
        with self.within(3), self.assertRaises(Timeout):
            client.call_tool("t", timeout=0.5, progress_token="tok")
        self.assertTrue(gone.wait(WAIT))
        self.assertGreater(len(notes), 10)

    def test_progress_keeps_the_call_alive_only_up_to_max_total_timeout(self) -> None:
        def write(reply: Reply, seen: Seen, n: int) -> None:
            token = seen.json["params"]["_meta"]["progressToken"]
            reply.stream_write(event(progress(n, token)))

        srv, gone = self.endless(write)
        seen: list[Any] = []
        client = self.client(srv, on_progress=seen.append, reset_timeout_on_progress=True,
                             max_total_timeout=1.2)
        started = time.monotonic()
        with self.within(3), self.assertRaises(Timeout):
            client.call_tool("t", timeout=0.3)
        self.assertGreater(elapsed(started), 1.1)   # kept alive past 0.3s, up to the cap
        self.assertTrue(gone.wait(WAIT))
        self.assertGreater(len(seen), 10)

    def test_bytes_without_a_line_end(self) -> None:
        srv, gone = self.endless(lambda reply, seen, n: reply.stream_write(b"x" * 65536))
        client = self.client(srv, max_event_bytes=scale(4, 16) << 20)
        with self.within(10), self.assertRaises(EventTooLarge):
            client.call_tool("t", timeout=10)
        self.assertTrue(gone.wait(WAIT))

    def test_a_decompression_bomb(self) -> None:
        bomb = gzip_bomb(scale(64, 1024))

        def respond(reply: Reply, seen: Seen) -> None:
            reply.send(200, bomb, "text/event-stream", {"Content-Encoding": "gzip"})

        client = self.client(self.serve(self.on_call(respond)), max_event_bytes=1 << 20)
        with self.within(10), self.assertRaises(EventTooLarge):
            client.call_tool("t", timeout=10)


class WrongAnswerTest(HTTPChaosCase):
    """Successes that are not what they say (test_http_faults covers text/plain)."""

    def test_bodies_that_are_not_what_their_type_says(self) -> None:
        html = b"<html><body>{\"jsonrpc\": \"2.0\"}</body></html>"
        cases = [("text/html", html, "Content-Type text/html"),
                 ("application/json", html, "not a JSON-RPC response"),
                 ("application/json", b"[" * 100_000, "not a JSON-RPC response"),
                 ("text/event-stream", b'{"jsonrpc": "2.0", "id": 2, "result": {}}',
                  "ended in the middle of an event"),
                 ("application/json; charset=latin-1", b'{"jsonrpc": "2.0", "id": 2, \xff',
                  "not a JSON-RPC response"),
                 (None, b"{}", "no Content-Type")]
        for kind, body, said in cases:
            with self.subTest(kind=kind, body=body[:20]):
                srv = self.serve(self.on_call(
                    lambda reply, seen, b=body, k=kind: reply.send(200, b, k)))
                with self.within(5), self.assertRaises(TransportError) as caught:
                    self.client(srv).call_tool("t", timeout=5)
                self.assertIn(said, str(caught.exception))

    def test_an_event_too_deep_to_parse_is_skipped(self) -> None:
        """Regression: a notification nested too deeply failed the whole request."""
        def respond(reply: Reply, seen: Seen) -> None:
            reply.stream_head()
            reply.stream_write(b"data: " + b"[" * 100_000 + b"\n\n")
            reply.stream_write(event(answer(seen)))
            reply.stream_end()

        client = self.client(self.serve(self.on_call(respond)))
        self.assertEqual(client.call_tool("t", timeout=5), {"content": []})
        self.assertTrue(any("not JSON" in w for w in self.warnings), self.warnings)

    def test_arguments_too_deep_to_encode(self) -> None:
        """Regression: they raised RecursionError, not an MCPClientError."""
        from mcp_client import MCPClientError
        client = self.client(self.serve())
        deep: Any = 0
        for _ in range(5000):
            deep = [deep]
        with self.assertRaises(MCPClientError) as caught:
            client.call_tool("t", {"deep": deep})
        self.assertIn("cannot encode", str(caught.exception))
        self.assertEqual(client.call_tool("t"), {"content": []})


class ResetTest(HTTPChaosCase):
    """TCP RSTs at every stage of the answer."""

    def check(self, respond: Any, status: int | None) -> None:
        client = self.client(self.serve(self.on_call(respond)))
        with self.within(5), self.assertRaises(TransportError) as caught:
            client.call_tool("t", timeout=5)
        self.assertEqual(caught.exception.status, status)

    def test_before_the_status_line(self) -> None:
        self.check(lambda reply, seen: reply.reset(), None)

    def test_in_the_headers(self) -> None:
        def respond(reply: Reply, seen: Seen) -> None:
            reply.stream_write(b"HTTP/1.1 200 OK\r\nContent-Ty", chunked=False)
            reply.reset()

        self.check(respond, None)

    def test_in_a_json_body(self) -> None:
        def respond(reply: Reply, seen: Seen) -> None:
            reply.stream_write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                               b"Content-Length: 100\r\n\r\n{\"jsonrpc\"", chunked=False)
            reply.reset()

        self.check(respond, 200)

    def test_in_an_event_stream(self) -> None:
        def respond(reply: Reply, seen: Seen) -> None:
            reply.stream_head()
            reply.stream_write(event(progress(1)))
            reply.reset()

        self.check(respond, 200)

    def test_on_accepting(self) -> None:
        srv = self.raw(lambda conn, stopped: reset(conn))
        with self.within(5), self.assertRaises(TransportError) as caught:
            self.client(srv, era="2026-07-28").call_tool("t", timeout=5)
        self.assertIsNone(caught.exception.status)


class SilenceAndGarbageTest(HTTPChaosCase):
    def test_a_server_that_accepts_and_never_reads(self) -> None:
        srv = self.raw(lambda conn, stopped: stopped.wait())
        client = self.client(srv, era="2026-07-28")
        big = "x" * (32 << 20)   # more than the socket buffers hold: the POST itself blocks
        with self.within(4):
            for arguments in ({}, {"pad": big}):
                with self.assertRaises(Timeout):
                    client.call_tool("t", arguments, timeout=0.5)
        with self.within(3):
            client.close()

    def test_garbage_instead_of_http(self) -> None:
        def handle(conn: socket.socket, stopped: threading.Event) -> None:
            read_request(conn)
            conn.sendall(random.Random(7).randbytes(5000))

        with self.within(5), self.assertRaises(TransportError) as caught:
            self.client(self.raw(handle), era="2026-07-28").call_tool("t", timeout=5)
        self.assertIsNone(caught.exception.status)

    def test_a_flood_of_headers(self) -> None:
        def handle(conn: socket.socket, stopped: threading.Event) -> None:
            read_request(conn)
            conn.sendall(b"HTTP/1.1 200 OK\r\n" + b"X-Junk: y\r\n" * 10_000 + b"\r\n")

        with self.within(5), self.assertRaises(TransportError):
            self.client(self.raw(handle), era="2026-07-28").call_tool("t", timeout=5)

    def test_a_server_that_hangs_up_at_once(self) -> None:
        def handle(conn: socket.socket, stopped: threading.Event) -> None:
            read_request(conn)

        with self.within(5), self.assertRaises(TransportError):
            self.client(self.raw(handle), era="2026-07-28").call_tool("t", timeout=5)


# -- the same faults in the other era: behind a 2025-11-25 session -------------------


class LegacyDripTest(DripTest):
    era = "legacy"


class LegacyEndlessStreamTest(EndlessStreamTest):
    era = "legacy"


class LegacyWrongAnswerTest(WrongAnswerTest):
    era = "legacy"


class LegacyResetTest(ResetTest):
    era = "legacy"


class LegacySilenceAndGarbageTest(SilenceAndGarbageTest):
    era = "legacy"
