"""The direct HTTP path against hostile or broken servers, beside the requests path.

Each case here is one the requests path (the reference) gets right and the direct
path once did not; the ``ViaRequests`` variants show that the reference behaves as
asserted.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import socket
import threading
import time
from typing import Any
from unittest import mock

import requests

from mcp_client import TransportError
from mcp_client._http import direct
from mcp_client._http.framing import BadAnswer, Body, read_head

from ..base import LeakCheckingTestCase, of_type, wait_until
from ..httpkit import (WAIT, Reply, ScriptedCase, ScriptedServer, Seen, TLSCase, ViaRequests,
                       Wire, elapsed, event)


def answer(data: bytes) -> tuple[int, Any, Body]:
    fp: Any = io.BufferedReader(io.BytesIO(data))
    status, version, headers, _ = read_head(fp)
    return status, headers, Body(fp, status, version, headers)


def json_answer(ident: Any, text: str, status: int = 200) -> bytes:
    body = json.dumps({"jsonrpc": "2.0", "id": ident, "result": {"text": text}}).encode()
    return (b"HTTP/1.1 %d OK\r\nContent-Type: application/json\r\n"
            b"Content-Length: %d\r\n\r\n" % (status, len(body))) + body


def read_message(conn: socket.socket, buffered: bytearray) -> Any:
    """The JSON body of the next request on ``conn`` (None once it ends)."""
    while b"\r\n\r\n" not in buffered:
        data = conn.recv(65536)
        if not data:
            return None
        buffered += data
    head, _, rest = bytes(buffered).partition(b"\r\n\r\n")
    length = next(int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                  if line.lower().startswith(b"content-length:"))
    while len(rest) < length:
        data = conn.recv(65536)
        if not data:
            return None
        rest += data
    buffered[:] = rest[length:]
    return json.loads(rest[:length])


class FramingBoundsTest(LeakCheckingTestCase):
    def test_folded_lines_count_towards_the_header_limit(self) -> None:
        data = (b"HTTP/1.1 200 OK\r\nX: a\r\n" + (b" " + b"y" * 1000 + b"\r\n") * 200
                + b"Content-Length: 0\r\n\r\n")
        with self.assertRaises(BadAnswer) as caught:
            answer(data)
        self.assertIn("more than 100 header lines", str(caught.exception))

    def test_a_bare_cr_or_nul_in_a_folded_line_becomes_a_space(self) -> None:
        _, headers, _ = answer(b"HTTP/1.1 200 OK\r\nMcp-Session-Id: a\r\n b\rX-Evil:\0001\r\n"
                               b"Content-Length: 0\r\n\r\n")
        self.assertEqual(headers["mcp-session-id"], "a b X-Evil: 1")
        self.assertNotIn("X-Evil", headers)


class ContentLengthTest(ScriptedCase):
    def test_a_content_length_of_digits_that_are_not_ascii_is_refused(self) -> None:
        for value in (b"\xb2", b"\xb9\xb2", b"1\xb3"):   # superscripts: str.isdigit() says yes
            with self.subTest(value=value), self.assertRaises(BadAnswer):
                answer(b"HTTP/1.1 200 OK\r\nContent-Length: " + value + b"\r\n\r\nhi")

    def test_it_fails_the_request_as_a_broken_answer(self) -> None:
        def handle(conn: socket.socket, stopped: threading.Event) -> None:
            if read_message(conn, bytearray()) is not None:
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                             b"Content-Length: \xb2\r\n\r\n{}")
                stopped.wait(WAIT)

        wire = Wire(self, self.raw(handle).url)
        wire.request(1, "tools/list")
        ident, error = wire.error()
        self.assertEqual(ident, 1)
        self.assertIsInstance(error, TransportError)
        self.assertIn("a bad Content-Length", str(error))
        self.assertNotIn("unexpectedly", str(error))


class ReuseTest(ScriptedCase):
    """What follows an answer on its connection is never read as the next one's."""

    def serve_then(self, first: Any) -> tuple[Any, list[Any]]:
        """A raw server: ``first(ident)`` answers the first request, the rest are genuine."""
        answered: list[Any] = []

        def handle(conn: socket.socket, stopped: threading.Event) -> None:
            buffered = bytearray()
            while True:
                message = read_message(conn, buffered)
                if message is None:
                    return
                answered.append(message["id"])
                conn.sendall(first(message["id"]) if len(answered) == 1
                             else json_answer(message["id"], "genuine"))

        return self.raw(handle), answered

    def test_an_answer_smuggled_after_a_body_is_not_taken_for_the_next(self) -> None:
        srv, answered = self.serve_then(
            lambda ident: json_answer(ident, "first") + json_answer(2, "smuggled"))
        wire = Wire(self, srv.url)
        wire.request(1, "tools/list")
        self.assertEqual(wire.answer()["result"], {"text": "first"})
        # The answer is delivered before its worker releases the connection: wait for that.
        wait_until(lambda: len(wire.transport._workers._idle) == 1, WAIT)
        wire.request(2, "tools/list")
        self.assertEqual(wire.answer()["result"], {"text": "genuine"})
        self.assertEqual(answered, [1, 2])

    def test_a_body_after_a_204_does_not_break_the_next_request(self) -> None:
        srv, answered = self.serve_then(
            lambda ident: b"HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\nhello")
        wire = Wire(self, srv.url)
        wire.request(1, "tools/list")
        self.assertEqual(wire.error()[0], 1)   # no JSON: it fails, its connection released
        wire.request(2, "tools/list")
        self.assertEqual(wire.answer()["result"], {"text": "genuine"})


class ReuseViaRequestsTest(ViaRequests, ReuseTest):
    pass


class RequestLineTest(ScriptedCase):
    def test_the_path_and_query_are_percent_encoded_as_requests_does(self) -> None:
        srv = self.serve()
        client = self.client(srv, url=srv.url + "/caf\u00e9 x?q=a b", era="2026-07-28")
        client.list_tools()
        self.assertEqual({seen.path for seen in srv.requests}, {"/mcp/caf%C3%A9%20x?q=a%20b"})

    def test_a_redirect_target_is_percent_encoded(self) -> None:
        def respond(reply: Reply, seen: Seen) -> None:
            if seen.path == "/mcp" and seen.rpc_method == "tools/list":
                reply.send(307, b"", None, {"Location": "/other path"})
            else:
                ScriptedServer.default(reply, seen)

        srv = self.serve(respond)
        self.client(srv, era="2026-07-28").list_tools()
        self.assertEqual(srv.seen("tools/list")[-1].path, "/other%20path")


class RequestLineViaRequestsTest(ViaRequests, RequestLineTest):
    pass


class HostHeaderTest(LeakCheckingTestCase):
    def test_an_international_host_name_goes_as_its_a_label(self) -> None:
        session = requests.Session()
        self.addCleanup(session.close)
        pool = direct.pool_for("http://b\u00fccher.example/mcp", session, size=1)
        assert pool is not None
        self.assertIn(b"\r\nHost: xn--bcher-kva.example\r\n", pool.head("/mcp", b"", {}))


class TLSHostTest(TLSCase):
    def test_a_host_named_only_in_the_common_name_is_refused_on_both_paths(self) -> None:
        srv, cert = self.tls_server(common_name="localhost", san=False)
        url = srv.url.replace("http://127.0.0.1", "https://localhost")   # resolves to it
        for direct_path in (True, False):
            path: Any = contextlib.nullcontext() if direct_path else \
                mock.patch("mcp_client._http.direct.pool_for", return_value=None)
            with self.subTest(direct=direct_path), path, \
                    mock.patch.dict("os.environ", {"REQUESTS_CA_BUNDLE": cert}), \
                    self.assertRaises(TransportError) as caught:
                self.client(srv, url=url, era="2026-07-28").list_tools()
            self.assertIsNone(caught.exception.status)
            self.assertIn("Hostname mismatch", str(caught.exception))


class TLSFinishTest(TLSCase):
    def test_a_partial_tls_record_after_the_answer_does_not_hold_the_call(self) -> None:
        def respond(reply: Reply, seen: Seen) -> None:
            reply.stream_head()
            reply.stream_write(event({"jsonrpc": "2.0", "id": seen.rpc_id,
                                      "result": {"content": []}}))
            # The head of an application-data record and a few of its bytes, then
            # nothing: the socket is readable, but TLS has no data to give.
            raw = socket.socket(fileno=os.dup(reply.handler.connection.fileno()))
            try:
                raw.sendall(b"\x17\x03\x03\x40\x00" + b"x" * 10)
            finally:
                raw.close()
            reply.wait_for_hang_up(2 * WAIT)   # with the answer, the client should hang up
            reply.hang_up()

        srv, cert = self.tls_server(self.on_call(respond))
        url = srv.url.replace("http://", "https://")
        with mock.patch.dict("os.environ", {"REQUESTS_CA_BUNDLE": cert}):
            client = self.client(srv, url=url, era="2026-07-28")
        started = time.monotonic()
        self.assertEqual(client.call_tool("t", timeout=3 * WAIT)["content"], [])
        self.assertLess(elapsed(started), WAIT)


class BearerRefusalTest(ScriptedCase):
    def test_a_403_no_token_can_cure_is_posted_once(self) -> None:
        from mcp_client.auth import ClientCredentials, MemoryTokenStorage
        from mcp_client.auth._discovery import canonical_resource
        from mcp_client.auth._storage import storage_key

        def respond(reply: Reply, seen: Seen) -> None:
            reply.send(403, b"forbidden", "text/plain",
                       {"WWW-Authenticate": 'Bearer error="invalid_token"'})

        srv = self.serve(self.on_call(respond))
        storage = MemoryTokenStorage()
        storage.save(storage_key(canonical_resource(srv.url), "c"),
                     {"tokens": {"access_token": "tok-1", "token_type": "Bearer"}})
        client = self.client(srv, era="2026-07-28",
                             auth=ClientCredentials("c", client_secret="s", storage=storage))
        with self.assertRaises(TransportError) as caught:
            client.call_tool("t")
        self.assertEqual(caught.exception.status, 403)
        self.assertEqual(len(srv.seen("tools/call")), 1)


class BearerRefusalViaRequestsTest(ViaRequests, BearerRefusalTest):
    pass


class TransferEncodingTest(LeakCheckingTestCase):
    def test_only_chunked_frames_a_body_in_chunks(self) -> None:
        chunks = b"Content-Length: 10\r\n\r\n5\r\nhello\r\n0\r\n\r\n"
        for coding in (b"gzip, chunked", b"xchunked", b"chunked, gzip", b"chunked;q=1"):
            with self.subTest(coding=coding), self.assertRaises(BadAnswer):
                answer(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: " + coding + b"\r\n" + chunks)
        for coding in (b"Chunked", b"identity, chunked", b"chunked, identity"):
            with self.subTest(coding=coding):
                _, _, body = answer(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: " + coding
                                    + b"\r\n" + chunks)
                self.assertEqual((body.read(100), body.done), (b"hello", True))
        _, _, body = answer(b"HTTP/1.1 204 No Content\r\nTransfer-Encoding: xchunked\r\n\r\n")
        self.assertTrue(body.done)   # no body: nothing to frame


class DPoPDirectTest(ScriptedCase):
    def test_a_dpop_token_adopted_while_renewing_never_goes_direct_as_a_bearer(self) -> None:
        from mcp_client.auth import MemoryTokenStorage, OAuth
        from mcp_client.auth._discovery import canonical_resource
        from mcp_client.auth._dpop import DPoPKey
        from mcp_client.auth._storage import storage_key

        srv = self.serve()
        storage = MemoryTokenStorage()
        key = storage_key(canonical_resource(srv.url), "c")
        expiring = {"access_token": "old", "token_type": "Bearer", "expires_at": time.time()}
        storage.save(key, {"tokens": expiring})
        auth = OAuth(client_id="c", storage=storage, dpop=True)
        auth._dpop = DPoPKey()   # as a DPoP-bound authorization leaves it
        client = self.client(srv, era="2026-07-28", auth=auth)   # "old" cannot be renewed
        # Another process stored a fresh DPoP-bound token meanwhile: this one adopts it.
        storage.save(key, {"tokens": {"access_token": "bound", "token_type": "DPoP",
                                      "expires_at": time.time() + 3600}})
        client.call_tool("t")
        sent = [(seen.rpc_method, seen.headers.get("authorization"), "dpop" in seen.headers)
                for seen in srv.requests if "bound" in seen.headers.get("authorization", "")]
        self.assertTrue(sent)
        self.assertEqual([(auth, proof) for _, auth, proof in sent],
                         [("DPoP bound", True)] * len(sent), sent)


class EarlyAnswerTest(ScriptedCase):
    def test_an_answer_given_before_the_body_was_read_is_reported(self) -> None:
        def handle(conn: socket.socket, stopped: threading.Event) -> None:
            head = b""
            while b"\r\n\r\n" not in head:
                data = conn.recv(65536)
                if not data:
                    return
                head += data
            conn.sendall(b"HTTP/1.1 413 Payload Too Large\r\nContent-Type: text/plain\r\n"
                         b"Content-Length: 8\r\nConnection: close\r\n\r\ntoo big!")
            conn.shutdown(socket.SHUT_WR)   # then closed with the body unread: a reset

        wire = Wire(self, self.raw(handle).url)
        wire.request(1, "tools/call", {"name": "t", "arguments": {"x": "y" * 8_000_000}})
        ident, error = wire.error()
        self.assertEqual((ident, of_type(error, TransportError).status), (1, 413))
        self.assertIn("too big!", str(error))


class EarlyAnswerViaRequestsTest(ViaRequests, EarlyAnswerTest):
    pass
