"""The seams inside the HTTP transports, with no server: the legacy session against a fake
Carrier, the shared answer Reader, and the one translation of requests' failures."""

from __future__ import annotations

import io
import json
import unittest
from typing import Any, Mapping

import requests

from mcp_client.exceptions import TransportError
from mcp_client.sse import SSEEvent, SSEParser
from mcp_client._http.answers import Reader
from mcp_client._http.failures import Failures
from mcp_client._http.session import LegacySession

URL = "http://127.0.0.1:9/mcp"
SECRET_URL = "http://127.0.0.1:9/mcp?token=abc"


class _Raw:
    """A response's ``raw``: its body, read by ``read``/``read1``, then maybe a failure."""

    def __init__(self, body: bytes, *, then: BaseException | None = None) -> None:
        self._body, self._then = io.BytesIO(body), then

    def read(self, size: int = -1, decode_content: bool = True) -> bytes:
        return self.read1(size)

    def read1(self, size: int = -1, decode_content: bool = True) -> bytes:
        chunk = self._body.read(size)
        if not chunk and self._then is not None:
            raise self._then
        return chunk


class _Response:
    def __init__(self, body: bytes = b"", *, status: int = 200,
                 headers: Mapping[str, str] | None = None,
                 then: BaseException | None = None) -> None:
        self.status_code, self.headers = status, dict(headers or {})
        self.raw = _Raw(body, then=then)
        self.closed = False

    def close(self) -> None:
        self.closed = True

    def __enter__(self) -> _Response:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class _Carrier:
    """A Carrier that records what the session asks of it."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, str, dict[str, str], float | None]] = []
        self.posted: list[dict[str, Any]] = []
        self.response = _Response(status=204)

    def request(self, pool: Any, verb: str, what: str, headers: Mapping[str, str], *,
                read_timeout: float | None = None) -> Any:
        self.requests.append((verb, what, dict(headers), read_timeout))
        return self.response

    def post_own(self, message: dict[str, Any], *, pool: Any,
                 handle: Any) -> dict[str, Any] | None:
        self.posted.append(message)
        if "id" not in message:
            return None
        return {"jsonrpc": "2.0", "id": message["id"], "result": {"protocolVersion": "2025-11-25"}}

    def open_pool(self) -> Any:
        return "pool"

    def close_pool(self, pool: Any) -> None:
        pass


def _reader(warnings: list[str] | None = None, delivered: list[Any] | None = None,
            *, max_event_bytes: int = 1024, url: str = URL) -> Reader:
    reader = Reader(Failures(url, 2.0), max_event_bytes=max_event_bytes,
                    warn=(warnings if warnings is not None else []).append,
                    deliver=(delivered if delivered is not None else []).append)
    reader.start(None)
    return reader


class LegacySessionSeamTest(unittest.TestCase):
    def setUp(self) -> None:
        self.warnings: list[str] = []
        self.carrier = _Carrier()
        self.session = LegacySession(self.carrier, _reader(self.warnings))

    def test_capture_says_whether_a_session_began(self) -> None:
        self.assertFalse(self.session.capture({"capabilities": {}}, "s-1"))
        self.assertFalse(self.session.active)
        self.assertTrue(self.session.capture({"protocolVersion": "2025-11-25"}, "s-1"))
        self.assertEqual((self.session.active, self.session.version, self.session.session_id),
                         (True, "2025-11-25", "s-1"))
        self.assertFalse(hasattr(self.carrier, "wants_tool_headers"))   # it only says so

    def test_a_malformed_session_id_is_said_through_the_reader(self) -> None:
        self.assertTrue(self.session.capture({"protocolVersion": "2025-11-25"}, "bad id"))
        self.assertIsNone(self.session.session_id)
        self.assertEqual(self.warnings, ["ignored a malformed Mcp-Session-Id 'bad id'"])

    def test_end_deletes_through_the_carrier(self) -> None:
        self.session.capture({"protocolVersion": "2025-11-25"}, "s-1")
        self.session.end("pool", 3.5)  # type: ignore[arg-type]  # the carrier double's pool
        self.assertEqual(self.carrier.requests, [(
            "DELETE", "ending the session", {"Accept": "text/event-stream",
                                             "MCP-Protocol-Version": "2025-11-25",
                                             "Mcp-Session-Id": "s-1"}, 3.5)])
        self.assertTrue(self.carrier.response.closed)

    def test_renew_posts_the_handshake_through_the_carrier(self) -> None:
        self.session.note_initialize({"protocolVersion": "2025-11-25", "capabilities": {}})
        self.session.capture({"protocolVersion": "2025-11-25"}, "s-1")
        self.session.renew("pool", "s-1", None)  # type: ignore[arg-type]  # as above
        self.assertEqual([(m["method"], m.get("id")) for m in self.carrier.posted],
                         [("initialize", "mcp-client-reinitialize-1"),
                          ("notifications/initialized", None)])
        self.assertEqual(len(self.warnings), 1)
        self.assertIn("no longer knows session s-1", self.warnings[0])

    def test_expired_reads_a_404_through_the_reader(self) -> None:
        unknown = {"jsonrpc": "2.0", "id": None, "error": {"code": -32601, "message": "no"}}
        cases = [
            ({"Content-Type": "application/json"}, json.dumps(unknown).encode(), unknown),
            ({"Content-Type": "application/json"},
             json.dumps({**unknown, "error": {"code": -32600, "message": "x"}}).encode(), None),
            ({"Content-Type": "application/json"}, b"\xef\xbb\xbf" + json.dumps(unknown).encode(),
             unknown),
            ({"Content-Type": "application/json"}, b"{not json", None),
            ({"Content-Type": "application/json"}, b"[]", None),
            ({"Content-Type": "application/json"}, b"x" * 2000, None),   # over max_event_bytes
            ({"Content-Type": "text/html"}, json.dumps(unknown).encode(), None),
        ]
        for headers, body, expected in cases:
            with self.subTest(body=body[:40]):
                response = _Response(body, status=404, headers=headers)
                answer = self.session.expired(response, "tools/call")  # type: ignore[arg-type]
                self.assertEqual(answer, expected)


class ReaderTest(unittest.TestCase):
    def setUp(self) -> None:
        self.warnings: list[str] = []
        self.delivered: list[Any] = []
        self.reader = _reader(self.warnings, self.delivered)

    def test_message_of_an_event(self) -> None:
        cases = [
            (SSEEvent(event="message", data='{"jsonrpc":"2.0","method":"x"}'),
             {"jsonrpc": "2.0", "method": "x"}, []),
            (SSEEvent(event="endpoint", data="/messages"), None, []),
            (SSEEvent(event="message", data="  "), None, []),   # a priming event
            (SSEEvent(event="message", data="{broken"), None,
             ["skipped an SSE event that is not JSON: '{broken'"]),
            (SSEEvent(event="message", data="[1]"), None,
             ["skipped an SSE event that is not a JSON-RPC message: '[1]'"]),
        ]
        for event, message, warnings in cases:
            with self.subTest(event=event):
                self.warnings.clear()
                self.assertEqual(self.reader.message(event), message)
                self.assertEqual(self.warnings, warnings)

    def test_drain_says_how_a_stream_ended(self) -> None:
        one = b"event: message\ndata: {}\n\n"
        cases = [
            (one, None, "the answer", "ended without the answer"),
            (one, None, "", "ended"),
            (one + b"data: {", None, "the answer", "ended in the middle of an event"),
            (one, ConnectionResetError(104, "Connection reset by peer"), "the answer",
             "broke before the answer: Connection reset by peer"),
            (one, ConnectionResetError(104, "Connection reset by peer"), "",
             "broke: Connection reset by peer"),
        ]
        for body, then, awaiting, why in cases:
            with self.subTest(why=why, awaiting=awaiting):
                seen: list[SSEEvent] = []

                def keep(event: SSEEvent) -> bool:
                    seen.append(event)
                    return False

                got = self.reader.drain(_Response(body, then=then), SSEParser(), keep,
                                        awaiting=awaiting)
                self.assertEqual((got, len(seen)), (why, 1))

    def test_drain_stops_when_the_handler_says_so_or_going_is_false(self) -> None:
        body = b"data: 1\n\ndata: 2\n\n"
        seen: list[str] = []

        def first_only(event: SSEEvent) -> bool:
            seen.append(event.data)
            return True

        self.assertIsNone(self.reader.drain(_Response(body), SSEParser(), first_only))
        self.assertEqual(seen, ["1"])
        reads: list[None] = []
        self.assertEqual(self.reader.drain(_Response(body), SSEParser(), lambda e: False,
                                           going=lambda: False,
                                           before_read=lambda: reads.append(None)), "ended")
        self.assertEqual(reads, [])

    def test_body_is_bounded_and_a_broken_one_said(self) -> None:
        self.assertEqual(self.reader.body(_Response(b"{}"), "tools/call"), b"{}")
        with self.assertRaises(TransportError) as caught:
            self.reader.body(_Response(b"x" * 1025, status=200), "tools/call")
        self.assertEqual((str(caught.exception), caught.exception.status),
                         ("tools/call: the response body is larger than "
                          "max_event_bytes=1024 (HTTP 200)", 200))
        broken = _Response(status=200)
        broken.raw.read = lambda *a, **k: (_ for _ in ()).throw(  # type: ignore[method-assign]
            OSError(5, "I/O error"))
        with self.assertRaises(TransportError) as caught:
            self.reader.body(broken, "tools/call")
        self.assertIn("tools/call: the response broke off: I/O error", str(caught.exception))

    def test_excerpt_is_one_short_line(self) -> None:
        self.assertEqual(self.reader.excerpt(_Response(b"  a\n\n b " + b"c" * 1000)),
                         "a b " + "c" * 296)


class FailuresTest(unittest.TestCase):
    def translated(self, exc: BaseException, url: str = URL) -> TransportError:
        with self.assertRaises(TransportError) as caught:
            with Failures(url, 2.0).mapped("tools/call", "POST", url):
                raise exc
        return caught.exception

    def test_requests_failures_are_said_once(self) -> None:
        cases = [
            (requests.exceptions.ConnectTimeout("slow"),
             "tools/call: could not connect to http://127.0.0.1:9/mcp within 2s"),
            (requests.exceptions.ConnectionError(ConnectionRefusedError(111, "Connection refused")),
             "tools/call: cannot reach http://127.0.0.1:9/mcp: Connection refused"),
            (requests.exceptions.ReadTimeout("too slow"),
             "tools/call: the POST to http://127.0.0.1:9/mcp failed: too slow"),
        ]
        for exc, text in cases:
            with self.subTest(exc=exc):
                error = self.translated(exc)
                self.assertEqual((str(error), error.status), (text, None))
                self.assertIs(error.__cause__, exc)

    def test_a_cause_quoting_a_secret_url_is_not_chained(self) -> None:
        error = self.translated(requests.exceptions.ConnectionError(f"no {SECRET_URL}"),
                                url=SECRET_URL)
        self.assertIsNone(error.__cause__)
        self.assertTrue(error.__suppress_context__)
        self.assertNotIn("abc", str(error))

    def test_other_exceptions_pass_through(self) -> None:
        with self.assertRaises(KeyError):
            with Failures(URL, 2.0).mapped("tools/call", "POST", URL):
                raise KeyError("mine")
        with Failures(URL, 2.0).mapped("tools/call", "POST", URL):
            pass


if __name__ == "__main__":
    unittest.main()
