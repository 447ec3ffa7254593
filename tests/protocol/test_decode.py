"""mcp_client.protocol.decode_message: the one reader of a JSON-RPC message off the wire."""

from __future__ import annotations

import math
import unittest

from mcp_client.exceptions import ProtocolError
from mcp_client.protocol import INVALID_REQUEST, PARSE_ERROR, decode_message, quick_message

PING = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
PING_TEXT = '{"jsonrpc":"2.0","id":1,"method":"ping"}'


class DecodeMessageTest(unittest.TestCase):
    def refused(self, data: str | bytes) -> ProtocolError:
        with self.assertRaises(ProtocolError) as caught:
            decode_message(data)
        return caught.exception

    def test_text_and_bytes_read_alike(self) -> None:
        for data in (PING_TEXT, PING_TEXT.encode(), f" \r\n{PING_TEXT}\n\t"):
            with self.subTest(data=data):
                message = decode_message(data)
                self.assertIs(type(message), dict)
                self.assertEqual(message, PING)

    def test_a_leading_byte_order_mark_is_skipped(self) -> None:
        for data in ("\ufeff" + PING_TEXT, b"\xef\xbb\xbf" + PING_TEXT.encode()):
            with self.subTest(data=data):
                self.assertEqual(decode_message(data), PING)

    def test_a_byte_order_mark_elsewhere_is_not_json(self) -> None:
        for data in ("\ufeff\ufeff" + PING_TEXT, " \ufeff" + PING_TEXT, PING_TEXT + "\ufeff"):
            with self.subTest(data=data):
                error = self.refused(data)
                self.assertEqual((error.code, error.message), (PARSE_ERROR, "not JSON"))

    def test_utf8_text_is_kept(self) -> None:
        message = decode_message('{"text":"h\u00e9 \u2603 \U0001f600"}'.encode())
        self.assertEqual(message, {"text": "h\u00e9 \u2603 \U0001f600"})

    def test_bytes_that_are_not_utf8_are_not_json(self) -> None:
        for data in (b'{"text":"\xff"}', b'{"text":"\xe2\x98"}',
                     '{"a":1}'.encode("utf-16")):
            with self.subTest(data=data):
                error = self.refused(data)
                self.assertEqual((error.code, error.message), (PARSE_ERROR, "not JSON"))
                self.assertIsInstance(error.__cause__, UnicodeDecodeError)

    def test_text_that_is_not_json(self) -> None:
        for data in ("", "   ", "{", '{"a":1', '{"a":1}}', '{"a":1} {"b":2}', "{'a':1}",
                     "hello", b"", '{"a":01}'):
            with self.subTest(data=data):
                error = self.refused(data)
                self.assertEqual((error.code, error.message), (PARSE_ERROR, "not JSON"))
                self.assertIsInstance(error.__cause__, ValueError)

    def test_json_that_is_not_an_object(self) -> None:
        for data in ("[]", f"[{PING_TEXT}]", '"text"', "7", "1.5", "null", "true", "NaN"):
            with self.subTest(data=data):
                error = self.refused(data)
                self.assertEqual((error.code, error.message),
                                 (INVALID_REQUEST, "not a JSON-RPC message"))
                self.assertIsNone(error.method)

    def test_nan_and_infinity_read_as_floats(self) -> None:
        # What json.loads always did here: a server's NaN is not worth the whole answer.
        message = decode_message('{"a":NaN,"b":Infinity,"c":-Infinity}')
        self.assertTrue(math.isnan(message["a"]))
        self.assertEqual((message["b"], message["c"]), (math.inf, -math.inf))

    def test_a_repeated_key_keeps_its_last_value(self) -> None:
        self.assertEqual(decode_message('{"id":1,"id":2}'), {"id": 2})

    def test_nesting_too_deep_to_parse_is_not_json(self) -> None:
        for data in ('{"a":' + "[" * 100_000 + "]" * 100_000 + "}",
                     ('{"a":' + "[" * 100_000).encode()):
            with self.subTest(size=len(data)):
                error = self.refused(data)
                self.assertEqual((error.code, error.message), (PARSE_ERROR, "not JSON"))

    def test_the_error_is_said_as_a_protocol_error(self) -> None:
        error = self.refused("{")
        self.assertEqual(str(error), f"not JSON (code {PARSE_ERROR})")
        self.assertIsNone(error.data)


if __name__ == "__main__":
    unittest.main()


class QuickMessageTest(unittest.TestCase):
    """quick_message, the reader loops' fast path, never disagrees with decode_message:
    it returns the same message, or None and leaves the saying to decode_message."""

    AGREE = [PING_TEXT, '{"a":NaN}', '{"a":1,"a":2}', '{"text":"h\u00e9 \u2603"}', "{}",
             '{"nested":' * 50 + "1" + "}" * 50]
    LEAVE = ["\ufeff" + PING_TEXT, f" {PING_TEXT}", f"{PING_TEXT}\n", "", "{", '{"a":1}}',
             '{"a":1} {"b":2}', "[]", "7", "null", "NaN", "{'a':1}",
             "[" * 100_000 + "]" * 100_000, '{"a":' * 100_000]

    def test_a_lone_object_reads_as_decode_message_reads_it(self) -> None:
        for text in self.AGREE:
            with self.subTest(text=text[:40]):
                message = quick_message(text)
                self.assertIs(type(message), dict)
                self.assertEqual(repr(message), repr(decode_message(text)))

    def test_anything_else_is_left_to_decode_message(self) -> None:
        for text in self.LEAVE:
            with self.subTest(text=text[:40]):
                self.assertIsNone(quick_message(text))
