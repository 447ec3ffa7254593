"""mcp_client.sse: the incremental event-stream parser (pure: no I/O, no threads)."""

from __future__ import annotations

import json
import pickle

from mcp_client.exceptions import MCPClientError, TransportError
from mcp_client.sse import DEFAULT_MAX_EVENT_BYTES, EventTooLarge, SSEEvent, SSEParser

from ..base import LeakCheckingTestCase

#: What the SDK's server sent for a count(n=3) call with a progress token (PROTOCOL §13.9).
SDK_STREAM = b"".join(
    b"event: message\r\ndata: " + json.dumps(message).encode() + b"\r\n\r\n"
    for message in (
        {"jsonrpc": "2.0", "method": "notifications/progress",
         "params": {"progressToken": "p-4", "progress": 1, "total": 3, "message": "step 1/3"}},
        {"jsonrpc": "2.0", "method": "notifications/progress",
         "params": {"progressToken": "p-4", "progress": 2, "total": 3, "message": "step 2/3"}},
        {"jsonrpc": "2.0", "id": 4, "result": {"content": [{"text": "Zürich", "type": "text"}]}},
    )) + b": ping\r\n\r\n"

#: A stream using every line ending, comments, fields and multi-line data.
MIXED_STREAM = (b": hello\n"
                b"data: first\r\n\r\n"
                b"event: custom\rdata:second\r\r"
                b"data: a\ndata: b\r\ndata:\n\n"
                b"id: 7\nretry: 1500\ndata:  two spaces\n\n"
                b"data: crlf-after-lf\n\r\n"
                b"data: last\r\n\r\n")
MIXED_EVENTS = [
    SSEEvent("message", "first"),
    SSEEvent("custom", "second"),
    SSEEvent("message", "a\nb\n"),
    SSEEvent("message", " two spaces", "7", 1500),
    SSEEvent("message", "crlf-after-lf", "7", 1500),
    SSEEvent("message", "last", "7", 1500),
]


def parse(*chunks: bytes, limit: int = DEFAULT_MAX_EVENT_BYTES) -> list[SSEEvent]:
    parser = SSEParser(max_event_bytes=limit)
    events: list[SSEEvent] = []
    for chunk in chunks:
        events.extend(parser.feed(chunk))
    return events


class FramingTest(LeakCheckingTestCase):
    def test_the_sdk_stream_gives_its_three_messages(self) -> None:
        events = parse(SDK_STREAM)
        self.assertEqual([e.event for e in events], ["message"] * 3)
        messages = [json.loads(e.data) for e in events]
        self.assertEqual([m.get("id") for m in messages], [None, None, 4])
        self.assertEqual(messages[2]["result"]["content"][0]["text"], "Zürich")

    def test_every_line_ending_comments_fields_and_multiline_data(self) -> None:
        self.assertEqual(parse(MIXED_STREAM), MIXED_EVENTS)

    def test_lf_then_crlf_ends_an_event(self) -> None:
        # sseclient-py merges these two events into one ("a\nb").
        self.assertEqual(parse(b"data: a\n\r\ndata: b\n\n"),
                         [SSEEvent("message", "a"), SSEEvent("message", "b")])

    def test_comments_and_keepalives_make_no_event(self) -> None:
        self.assertEqual(parse(b": ping\r\n\r\n:\n\n: another\r\r"), [])

    def test_an_event_without_data_is_not_dispatched(self) -> None:
        self.assertEqual(parse(b"event: nothing\n\nid: 3\n\n"), [])

    def test_a_bare_data_line_is_an_empty_event(self) -> None:
        self.assertEqual(parse(b"data\n\n"), [SSEEvent("message", "")])

    def test_only_one_leading_space_is_removed_and_unknown_fields_are_ignored(self) -> None:
        self.assertEqual(parse(b"data:   x  \nfoo: bar\ndata\n\n"),
                         [SSEEvent("message", "  x  \n")])

    def test_retry_must_be_digits_and_id_must_not_hold_nul(self) -> None:
        events = parse(b"id: a\0b\nretry: 12x\ndata: x\n\nid: ok\nretry: 30\ndata: y\n\n")
        self.assertEqual(events, [SSEEvent("message", "x"), SSEEvent("message", "y", "ok", 30)])

    def test_a_byte_order_mark_at_the_start_is_dropped(self) -> None:
        self.assertEqual(parse(b"\xef\xbb", b"\xbfdata: x\n\n"), [SSEEvent("message", "x")])

    def test_invalid_utf8_becomes_replacement_characters(self) -> None:
        self.assertEqual(parse(b"data: \xff\xfe ok\n\n"), [SSEEvent("message", "\ufffd\ufffd ok")])

    def test_a_multibyte_character_split_across_chunks_survives(self) -> None:
        raw = "data: Zürich 世界\n\n".encode()
        for cut in range(len(raw) + 1):
            self.assertEqual(parse(raw[:cut], raw[cut:]), [SSEEvent("message", "Zürich 世界")])


class ChunkingTest(LeakCheckingTestCase):
    def test_every_two_way_split_gives_the_same_events(self) -> None:
        for stream, expected in ((MIXED_STREAM, MIXED_EVENTS), (SDK_STREAM, parse(SDK_STREAM))):
            for cut in range(len(stream) + 1):
                with self.subTest(cut=cut):
                    self.assertEqual(parse(stream[:cut], stream[cut:]), expected)

    def test_every_three_way_split_gives_the_same_events(self) -> None:
        stream = MIXED_STREAM
        for first in range(len(stream) + 1):
            for second in range(first, len(stream) + 1):
                got = parse(stream[:first], stream[first:second], stream[second:])
                if got != MIXED_EVENTS:
                    self.fail(f"split at {first}/{second}: {got}")

    def test_byte_at_a_time_and_empty_chunks_change_nothing(self) -> None:
        chunks = [b""]
        for index in range(len(MIXED_STREAM)):
            chunks += [MIXED_STREAM[index:index + 1], b""]
        self.assertEqual(parse(*chunks), MIXED_EVENTS)

    def test_a_cr_ending_one_chunk_and_lf_starting_the_next_are_one_line_end(self) -> None:
        self.assertEqual(parse(b"data: a\r", b"", b"\n\r", b"\ndata: b\r\n\r\n"),
                         [SSEEvent("message", "a"), SSEEvent("message", "b")])

    def test_events_come_out_as_soon_as_their_blank_line_arrives(self) -> None:
        parser = SSEParser()
        self.assertEqual(parser.feed(b"data: one\n"), [])
        self.assertEqual(parser.feed(b"\ndata: tw"), [SSEEvent("message", "one")])
        self.assertEqual(parser.feed(b"o\n\n"), [SSEEvent("message", "two")])


class PendingTest(LeakCheckingTestCase):
    def test_pending_tells_a_cut_mid_event_from_a_clean_end(self) -> None:
        parser = SSEParser()
        self.assertFalse(parser.pending)
        parser.feed(b"event: message\r\ndata: {\"jsonrpc\":")
        self.assertTrue(parser.pending)
        parser.feed(b"\"2.0\"}\r\n")
        self.assertTrue(parser.pending)   # the blank line has not come
        parser.feed(b"\r\n")
        self.assertFalse(parser.pending)

    def test_a_trailing_comment_is_pending_until_its_blank_line(self) -> None:
        parser = SSEParser()
        parser.feed(b"data: x\n\n: ping\n")
        self.assertTrue(parser.pending)
        parser.feed(b"\n")
        self.assertFalse(parser.pending)

    def test_last_event_id_and_repr(self) -> None:
        parser = SSEParser(max_event_bytes=64)
        parser.feed(b"id: 9\ndata: x\n\n")
        self.assertEqual(parser.last_event_id, "9")
        self.assertEqual(repr(parser), "<SSEParser idle limit=64>")

    def test_a_priming_event_without_data_still_sets_id_and_retry(self) -> None:
        parser = SSEParser()
        self.assertEqual(parser.feed(b"id: p-1\nretry: 500\n\n"), [])
        self.assertEqual((parser.last_event_id, parser.retry), ("p-1", 500))


class SizeBoundTest(LeakCheckingTestCase):
    def test_an_event_within_the_bound_passes(self) -> None:
        payload = b"x" * 1000
        self.assertEqual(parse(b"data: " + payload + b"\n\n", limit=1010),
                         [SSEEvent("message", "x" * 1000)])

    def test_an_event_past_the_bound_raises_and_the_parser_stays_failed(self) -> None:
        parser = SSEParser(max_event_bytes=100)
        with self.assertRaises(EventTooLarge) as caught:
            parser.feed(b"data: " + b"y" * 200 + b"\n\n")
        self.assertEqual(caught.exception.limit, 100)
        with self.assertRaises(EventTooLarge):
            parser.feed(b"data: small\n\n")
        self.assertIn("failed", repr(parser))

    def test_an_unterminated_line_is_refused_before_it_outgrows_the_bound(self) -> None:
        parser = SSEParser(max_event_bytes=10 * 1024)
        fed = 0
        with self.assertRaises(EventTooLarge):
            while fed < 1024 * 1024:
                parser.feed(b"z" * 1024)
                fed += 1024
        self.assertLessEqual(fed, 11 * 1024)

    def test_many_data_lines_count_towards_one_event(self) -> None:
        with self.assertRaises(EventTooLarge):
            parse(b"data: 0123456789\n" * 20, limit=100)

    def test_the_bound_is_per_event(self) -> None:
        stream = b"data: 0123456789\n\n" * 50
        self.assertEqual(len(parse(stream, limit=40)), 50)

    def test_the_default_bound_is_16_mib_and_a_16_mib_event_in_64_kib_chunks_passes(self) -> None:
        self.assertEqual(DEFAULT_MAX_EVENT_BYTES, 16 * 1024 * 1024)
        body = b"data: " + b"q" * (DEFAULT_MAX_EVENT_BYTES - 16) + b"\n\n"
        chunks = [body[i:i + 65536] for i in range(0, len(body), 65536)]
        events = parse(*chunks)
        self.assertEqual(len(events), 1)
        self.assertEqual(len(events[0].data), DEFAULT_MAX_EVENT_BYTES - 16)

    def test_the_error_is_a_transport_error_and_pickles(self) -> None:
        error = EventTooLarge(5)
        self.assertIsInstance(error, TransportError)
        self.assertIsInstance(error, MCPClientError)
        self.assertIsNone(error.status)
        copy = pickle.loads(pickle.dumps(error))
        self.assertEqual((type(copy), copy.limit, str(copy)), (EventTooLarge, 5, str(error)))

    def test_a_bad_bound_is_refused(self) -> None:
        for bad in (0, -1, 1.5, True, "10"):
            with self.assertRaises(ValueError):
                SSEParser(max_event_bytes=bad)  # type: ignore[arg-type]
