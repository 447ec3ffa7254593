"""The direct HTTP path: its answer reader (``_http/framing.py``) and its connections.

Every other HTTP test runs on the direct path too (plain ``http://``, no proxy); these
check what only it does: the framing rules one by one, on bytes; and against scripted
servers, that POSTs skip requests, share one keep-alive connection, survive a connection
the server closed while idle, decode gzip, keep cookies, merge headers without
duplicates -- and that the requests way is kept where it must be.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import os
import socket
import threading
import zlib
from typing import Any
from unittest import mock

import requests

from mcp_client import TransportError
from mcp_client._http import direct
from mcp_client._http.framing import BadAnswer, Body, read_head

from ..base import LeakCheckingTestCase
from ..httpkit import (WAIT, Reply, ScriptedCase, ScriptedServer, Seen, TLSCase, event,
                       read_request)

JSON_RESULT = {"content": [{"type": "text", "text": "ok"}]}


def answer(data: bytes) -> tuple[int, Any, Body]:
    fp: Any = io.BufferedReader(io.BytesIO(data))
    status, version, headers, _ = read_head(fp)
    return status, headers, Body(fp, status, version, headers)


class FramingTest(LeakCheckingTestCase):
    def test_a_json_answer_with_a_length(self) -> None:
        status, headers, body = answer(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                                       b"Content-Length: 2\r\n\r\n{}")
        self.assertEqual((status, headers.get("content-type")), (200, "application/json"))
        self.assertEqual((body.read(100), body.done, body.will_close), (b"{}", True, False))
        self.assertEqual(body.read(100), b"")

    def test_informational_answers_are_skipped(self) -> None:
        status, _, body = answer(b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\n"
                                 b"Link: </a>\r\n\r\nHTTP/1.1 202 Accepted\r\n"
                                 b"Content-Length: 0\r\n\r\n")
        self.assertEqual((status, body.done), (202, True))

    def test_headers_fold_repeat_and_ignore_case(self) -> None:
        _, headers, _ = answer(b"HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Bearer\r\n"
                               b"  realm=x\r\nwww-authenticate: DPoP\r\nContent-Length: 0\r\n\r\n")
        self.assertEqual(headers["Www-Authenticate"], "Bearer realm=x, DPoP")
        self.assertEqual(headers.get_all("WWW-AUTHENTICATE"), ["Bearer realm=x", "DPoP"])
        self.assertEqual(dict(headers), {"WWW-Authenticate": "Bearer realm=x, DPoP",
                                         "Content-Length": "0"})
        self.assertIn("content-length", headers)
        self.assertNotIn("Location", headers)

    def test_a_bare_cr_or_nul_in_a_value_becomes_a_space(self) -> None:
        _, headers, _ = answer(b"HTTP/1.1 200 OK\r\nMcp-Session-Id: a\rX-Evil: 1\r\n"
                               b"X-B: c\0d\r\nContent-Length: 0\r\n\r\n")
        self.assertEqual((headers["mcp-session-id"], headers["x-b"]), ("a X-Evil: 1", "c d"))
        self.assertNotIn("X-Evil", headers)

    def test_malformed_heads_are_refused(self) -> None:
        cases = {b"": "Remote end closed connection without response",
                 b"SSH-2.0-OpenSSH\r\n\r\n": "not an HTTP/1.x status line",
                 b"HTTP/1.1 2000 OK\r\n\r\n": "not an HTTP/1.x status line",
                 b"HTTP/2 200\r\n\r\n": "not an HTTP/1.x status line",
                 b"HTTP/1.1 200 OK\r\nNo colon here\r\n\r\n": "malformed header line",
                 b"HTTP/1.1 200 OK\r\n Leading: space\r\n\r\n": "malformed header line",
                 b"HTTP/1.1 200 OK\r\nA: b\r\n": "ended in the headers",
                 b"HTTP/1.1 200 OK\r\nX: " + b"y" * 70000 + b"\r\n\r\n": "longer than",
                 b"HTTP/1.1 200 OK\r\n" + b"X: y\r\n" * 101 + b"\r\n": "more than 100"}
        for data, why in cases.items():
            with self.subTest(data=data[:30]):
                with self.assertRaises(BadAnswer) as caught:
                    answer(data)
                self.assertIn(why, str(caught.exception))

    def test_a_chunked_body_with_extensions_and_trailers(self) -> None:
        _, _, body = answer(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n"
                            b"Content-Length: 999\r\n\r\n"   # chunked wins (RFC 9112 6.3)
                            b"5;ext=1\r\nhello\r\n1\r\n \r\n5\r\nworld\r\n"
                            b"0\r\nX-Trailer: 1\r\n\r\n")
        self.assertEqual(body.read(100), b"hello world")
        self.assertTrue(body.done)
        self.assertFalse(body.will_close)

    def test_bodies_that_break_off(self) -> None:
        cases = {b"Content-Length: 10\r\n\r\n12345": "5 bytes before the body did",
                 b"Transfer-Encoding: chunked\r\n\r\n5\r\nhel": "middle of a chunk",
                 b"Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n": "before the last chunk",
                 b"Transfer-Encoding: chunked\r\n\r\nzz\r\n": "bad chunk size",
                 b"Transfer-Encoding: chunked\r\n\r\n2\r\nhiXX0\r\n\r\n": "not followed by CRLF"}
        for rest, why in cases.items():
            with self.subTest(rest=rest):
                _, _, body = answer(b"HTTP/1.1 200 OK\r\n" + rest)
                with self.assertRaises(BadAnswer) as caught:
                    body.read(100)
                self.assertIn(why, str(caught.exception))

    def test_content_length_must_be_one_number(self) -> None:
        for lengths in ((b"2", b"3"), (b"-1",), (b"0x2",)):
            head = b"".join(b"Content-Length: " + n + b"\r\n" for n in lengths)
            with self.subTest(lengths=lengths), self.assertRaises(BadAnswer):
                answer(b"HTTP/1.1 200 OK\r\n" + head + b"\r\nhi")
        _, _, body = answer(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nhi")
        self.assertEqual(body.read(10), b"hi")

    def test_what_closes_the_connection(self) -> None:
        cases = {b"HTTP/1.1 200 OK\r\n\r\nuntil the end": (True, b"until the end"),
                 b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 1\r\n\r\nx":
                     (True, b"x"),
                 b"HTTP/1.0 200 OK\r\nContent-Length: 1\r\n\r\nx": (True, b"x"),
                 b"HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 1\r\n\r\nx":
                     (False, b"x"),
                 b"HTTP/1.1 204 No Content\r\n\r\n": (False, b"")}
        for data, (closes, text) in cases.items():
            with self.subTest(data=data[:40]):
                _, _, body = answer(data)
                self.assertEqual((body.will_close, body.read(100), body.done), (closes, text, True))

    def test_gzip_and_deflate_are_decoded_in_bounded_steps(self) -> None:
        text = b"0123456789" * 10_000
        for name, packed in (("gzip", gzip.compress(text)), ("deflate", zlib.compress(text)),
                             ("deflate", zlib.compress(text)[2:-4])):   # raw, as some send
            with self.subTest(name=name, raw=packed[:1]):
                _, _, body = answer(b"HTTP/1.1 200 OK\r\nContent-Encoding: " + name.encode()
                                    + b"\r\nContent-Length: %d\r\n\r\n" % len(packed) + packed)
                self.assertEqual(len(body.read1(10)), 10)
                self.assertEqual(body.read(len(text)), text[10:])
                self.assertEqual(body.read(10), b"")

    def test_an_encoding_not_asked_for_or_broken_is_refused(self) -> None:
        for encoding, data in ((b"br", b"\x8b\x00"), (b"gzip", b"not gzip at all")):
            with self.subTest(encoding=encoding):
                _, _, body = answer(b"HTTP/1.1 200 OK\r\nContent-Encoding: " + encoding
                                    + b"\r\nContent-Length: %d\r\n\r\n" % len(data) + data)
                with self.assertRaises(BadAnswer):
                    body.read(100)


class EligibilityTest(LeakCheckingTestCase):
    def session(self, **settings: Any) -> Any:
        session = requests.Session()
        self.addCleanup(session.close)
        session.proxies, session.auth = settings.get("proxies", {}), settings.get("auth")
        session.verify, session.cert = settings.get("verify", True), settings.get("cert")
        return session

    def test_which_urls_and_sessions_go_direct(self) -> None:
        plain = self.session()
        cases = {("http://127.0.0.1:8000/mcp", plain): True,
                 ("http://[::1]:8000/mcp", plain): True,
                 ("https://example.com/mcp", plain): True,
                 ("https://example.com/mcp", self.session(verify=False)): False,
                 ("https://example.com/mcp", self.session(verify="/nonexistent/ca.pem")): False,
                 ("https://example.com/mcp", self.session(cert="/some/client.pem")): False,
                 ("http://user:pw@127.0.0.1/mcp", plain): False,
                 ("http://127.0.0.1/mcp", self.session(proxies={"http": "http://proxy:3128"})):
                     False,
                 ("http://127.0.0.1/mcp", self.session(auth=("u", "p"))): False}
        for (url, session), goes in cases.items():
            with self.subTest(url=url):
                self.assertEqual(direct.pool_for(url, session, size=4) is not None, goes)

    def test_which_auth_goes_direct(self) -> None:
        class Offers:
            def __init__(self, value: Any) -> None:
                self.value = value

            def direct_authorization(self, url: str) -> Any:
                return self.value

        cases = [(None, (True, None)), (("u", "p"), (False, None)),
                 (lambda request: request, (False, None)),
                 (Offers("Bearer t"), (True, "Bearer t")), (Offers(None), (False, None)),
                 (Offers("Bearer t\r\nX-Evil: 1"), (False, None))]
        for auth, expected in cases:
            with self.subTest(auth=auth):
                self.assertEqual(direct.authorization(auth, "http://h/mcp"), expected)

    def test_the_request_bytes(self) -> None:
        pool = direct.DirectPool("127.0.0.1", 8000, size=1,
                                 headers={"User-Agent": "ua", "Accept": "*/*"})
        data = pool.head("/mcp?x=1", b"{}", {"accept": "application/json", "X-A": "1"})
        self.assertEqual(data, b"POST /mcp?x=1 HTTP/1.1\r\nHost: 127.0.0.1:8000\r\n"
                               b"User-Agent: ua\r\naccept: application/json\r\n"
                               b"Accept-Encoding: gzip, deflate\r\nX-A: 1\r\n"
                               b"Content-Length: 2\r\n\r\n{}")
        for value in ("\u2713", "1\r\nX-Evil: 1", "1\nX-Evil: 1", "1\rX", "1\0"):
            with self.subTest(value=value), self.assertRaises(ValueError):
                pool.head("/", b"", {"X-A": value})
            self.assertIsNone(pool.prepare("http://h/", b"", {"X-A": value}, None))


class DirectPathTest(ScriptedCase):
    def no_requests(self) -> None:
        """Fail the test if a POST takes the requests way from now on."""
        patch = mock.patch("mcp_client._http.wire.send",
                           side_effect=AssertionError("a POST went through requests"))
        patch.start()
        self.addCleanup(patch.stop)

    def test_posts_skip_requests_and_share_one_connection(self) -> None:
        srv = self.serve()
        client = self.client(srv, era="2026-07-28")
        self.no_requests()
        for _ in range(3):
            client.call_tool("t")
        calls = srv.seen("tools/call")
        self.assertEqual(len({seen.port for seen in calls}), 1)
        self.assertEqual(calls[0].headers["accept-encoding"], "gzip, deflate")
        self.assertEqual([name for name, _ in calls[0].raw_headers].count("Content-Length"), 1)

    def test_headers_are_merged_without_duplicates(self) -> None:
        srv = self.serve()
        client = self.client(srv, era="2026-07-28", headers={"user-agent": "mine/1"})
        client.call_tool("t")
        names = [name.lower() for name, _ in srv.seen("tools/call")[0].raw_headers]
        self.assertEqual(names.count("user-agent"), 1)
        self.assertEqual(srv.seen("tools/call")[0].headers["user-agent"], "mine/1")

    def test_a_server_that_closes_after_each_answer(self) -> None:
        def respond(reply: Reply, seen: Seen) -> None:
            if seen.rpc_method == "tools/call":
                reply.handler.close_connection = True
                reply.send(200, b'{"jsonrpc": "2.0", "id": %s, "result": {"content": []}}'
                           % str(seen.rpc_id).encode(), "application/json",
                           {"Connection": "close"})
            else:
                ScriptedServer.default(reply, seen)

        srv = self.serve(respond)
        client = self.client(srv, era="2026-07-28")
        for _ in range(3):
            self.assertEqual(client.call_tool("t")["content"], [])
        self.assertEqual(len({seen.port for seen in srv.seen("tools/call")}), 3)

    def test_an_idle_connection_the_server_closed_is_not_used(self) -> None:
        closed = threading.Event()
        served: list[int] = []

        def handle(conn: socket.socket, stopped: threading.Event) -> None:
            request = read_request(conn)
            served.append(1)
            ident = b"1" if b'"id":1' in request else b"2"
            body = b'{"jsonrpc":"2.0","id":%s,"result":{"content":[]}}' % ident
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                         b"Content-Length: %d\r\n\r\n" % len(body) + body)
            conn.close()   # without a word: the client has pooled the connection
            closed.set()

        srv = self.raw(handle)
        from ..httpkit import Wire

        wire = Wire(self, srv.url)
        wire.request(1, "tools/list")
        self.assertEqual(wire.answer()["id"], 1)
        self.assertTrue(closed.wait(WAIT))
        wire.request(2, "tools/list")
        self.assertEqual(wire.answer()["id"], 2)
        self.assertEqual(len(served), 2)

    def test_a_stream_that_ends_with_its_answer_keeps_its_connection(self) -> None:
        def respond(reply: Reply, seen: Seen) -> None:
            reply.stream_head()
            data = event({"jsonrpc": "2.0", "id": seen.rpc_id, "result": {"content": []}})
            reply.handler.wfile.write(b"%x\r\n%s\r\n0\r\n\r\n" % (len(data), data))
            reply.handler.wfile.flush()   # the last chunk with the answer: nothing to wait for

        srv = self.serve(self.on_call(respond))
        client = self.client(srv, era="2026-07-28")
        for _ in range(3):
            self.assertEqual(client.call_tool("t")["content"], [])
        self.assertEqual(len({seen.port for seen in srv.seen("tools/call")}), 1)

    def test_a_gzip_answer_is_decoded(self) -> None:
        def respond(reply: Reply, seen: Seen) -> None:
            body = gzip.compress(b'{"jsonrpc": "2.0", "id": %s, "result": {"content": '
                                 b'[{"type": "text", "text": "unzipped"}]}}'
                                 % str(seen.rpc_id).encode())
            reply.send(200, body, "application/json", {"Content-Encoding": "gzip"})

        srv = self.serve(self.on_call(respond))
        client = self.client(srv, era="2026-07-28")
        self.no_requests()
        block: Any = client.call_tool("t")["content"][0]
        self.assertEqual(block["text"], "unzipped")

    def test_cookies_are_kept_and_sent_back(self) -> None:
        def respond(reply: Reply, seen: Seen) -> None:
            reply.send(200, b'{"jsonrpc": "2.0", "id": %s, "result": {"content": []}}'
                       % str(seen.rpc_id).encode(), "application/json",
                       {"Set-Cookie": "route=b7; Path=/"})

        srv = self.serve(self.on_call(respond))
        client = self.client(srv, era="2026-07-28")
        client.call_tool("t")
        client.call_tool("t")
        cookies = [seen.headers.get("cookie") for seen in srv.seen("tools/call")]
        self.assertEqual(cookies, [None, "route=b7"])

    def test_a_header_that_is_not_latin_1_fails_typed(self) -> None:
        srv = self.serve()
        client = self.client(srv, era="2026-07-28", headers={"X-Note": "\u2713"})
        with self.assertRaises(TransportError):
            client.list_tools()

    def test_a_bearer_token_goes_direct(self) -> None:
        from mcp_client.auth import ClientCredentials, MemoryTokenStorage
        from mcp_client.auth._discovery import canonical_resource
        from mcp_client.auth._storage import storage_key

        srv = self.serve()
        storage = MemoryTokenStorage()
        storage.save(storage_key(canonical_resource(srv.url), "c"),
                     {"tokens": {"access_token": "tok-1", "token_type": "Bearer"}})
        client = self.client(srv, era="2026-07-28",
                             auth=ClientCredentials("c", client_secret="s", storage=storage))
        self.no_requests()
        client.call_tool("t")
        self.assertEqual(srv.seen("tools/call")[0].headers["authorization"], "Bearer tok-1")


class TLSTest(TLSCase):
    """https:// to a scripted server with a certificate of its own, on both paths."""

    def test_https_goes_direct_and_verifies_against_the_bundle_given(self) -> None:
        srv, cert = self.tls_server()
        url = srv.url.replace("http://", "https://")
        with mock.patch.dict("os.environ", {"REQUESTS_CA_BUNDLE": cert}):
            client = self.client(srv, url=url, era="2026-07-28")
        self.no_requests_on(client)
        for _ in range(2):
            self.assertEqual(client.call_tool("t")["content"], [])
        self.assertEqual(len({seen.port for seen in srv.seen("tools/call")}), 1)

    def test_https_via_requests(self) -> None:
        srv, cert = self.tls_server()
        url = srv.url.replace("http://", "https://")
        with mock.patch.dict("os.environ", {"REQUESTS_CA_BUNDLE": cert}), \
                mock.patch("mcp_client._http.direct.pool_for", return_value=None):
            client = self.client(srv, url=url, era="2026-07-28")
            self.assertEqual(client.call_tool("t")["content"], [])

    def test_a_certificate_nobody_vouches_for_is_refused(self) -> None:
        srv, _ = self.tls_server()
        url = srv.url.replace("http://", "https://")
        unset = {name: value for name, value in os.environ.items()
                 if name not in ("REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE")}
        for direct_path in (True, False):
            with self.subTest(direct=direct_path), mock.patch.dict(os.environ, unset, clear=True):
                path: Any = contextlib.nullcontext() if direct_path else \
                    mock.patch("mcp_client._http.direct.pool_for", return_value=None)
                with path, self.assertRaises(TransportError) as caught:
                    self.client(srv, url=url, era="2026-07-28").list_tools()
                self.assertIsNone(caught.exception.status)
                self.assertIn("certificate verify failed", str(caught.exception))

    def no_requests_on(self, client: Any) -> None:
        patch = mock.patch("mcp_client._http.wire.send",
                           side_effect=AssertionError("a POST went through requests"))
        patch.start()
        self.addCleanup(patch.stop)
