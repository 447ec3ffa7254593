"""The wire trace hides a secret-named member whatever its value's shape (issue 26, item 15).

One generated test per (name, value) row: the member's value is shown as ``"***"`` and
nothing of it survives; its neighbours are shown as they were.
"""

from __future__ import annotations

import json
import unittest
from typing import Any

from mcp_client._log import TRACE_CHARS, _shown
from mcp_client._redact import redact_payload

from ..tables import add_rows

#: Member names that say "secret", in each naming style.
NAMES = [
    "credentials", "credential", "password", "passwd", "passphrase", "apiKey", "api_key",
    "api-key", "API_KEY", "X-Api-Key", "clientSecret", "client_secret", "client-secret",
    "CLIENT_SECRET", "token", "accessToken", "access_token", "refresh-token", "ID_TOKEN",
    "secret", "Secret", "authorization", "Authorization", "privateKey", "private_key",
    "PRIVATE-KEY", "cookie", "Set-Cookie", "sessionToken", "signature", "db.password",
    "secretAccessKey", "pwd",
]
#: Values of every JSON shape; the marker ``7319`` or ``S3CR3T`` is in each but the bools.
VALUES: list[tuple[str, Any]] = [
    ("string", "S3CR3T"),
    ("object", {"user": "ada", "pass": "S3CR3T"}),
    ("array", ["S3CR3T", 7319]),
    ("nested", {"a": [{"b": {"c": "S3CR3T"}}], "d": "]}\"{["}),
    ("number", 7319),
    ("float", -7319.5e3),
    ("true", True),
    ("false", False),
    ("null", None),
    ("empty_object", {}),
]


class SecretShapesTest(unittest.TestCase):
    pass


def _masked(self: SecretShapesTest, label: str, name: str, value: Any) -> None:
    message = {"jsonrpc": "2.0", "id": 7, "params": {
        "before": 1, name: value, "progressToken": "p-1", "after": [1, 2]}}
    for text, separators in ((json.dumps(message), None),
                             (json.dumps(message, separators=(",", ":")), (",", ":"))):
        expected = {"jsonrpc": "2.0", "id": 7, "params": {
            "before": 1, name: "***", "progressToken": "p-1", "after": [1, 2]}}
        self.assertEqual(redact_payload(text), json.dumps(expected, separators=separators))
    shown = redact_payload(json.dumps(message, indent=2))
    self.assertEqual(json.loads(shown), expected)


add_rows(SecretShapesTest, "secret", [
    (f"{name} {shape}", name, value) for name in NAMES for shape, value in VALUES], _masked)


class SecretSpellingsTest(unittest.TestCase):
    def test_a_name_written_with_escapes_is_still_a_secret(self) -> None:
        text = '{"pass\\u0077ord": {"v": 7319}, "api\\u004bey": [7319]}'
        self.assertEqual(redact_payload(text), '{"pass\\u0077ord": "***", "api\\u004bey": "***"}')

    def test_what_is_not_a_secret_is_shown(self) -> None:
        message = {"progressToken": 5, "maxTokens": 100, "name": "password reset",
                   "description": "needs a token", "cursor": "abc", "keys": [1]}
        text = json.dumps(message)
        self.assertEqual(redact_payload(text), text)

    def test_a_value_that_runs_past_the_cut_is_hidden(self) -> None:
        for value in ({"k": "S" * 20_000}, ["S" * 20_000], list(range(10_000))):
            with self.subTest(shape=type(value).__name__):
                text = json.dumps({"x": "a" * 1000, "credentials": value})
                shown = _shown(text.encode())
                self.assertNotIn("SSSS", shown)
                self.assertNotIn("9999", shown)
                self.assertLess(len(shown), TRACE_CHARS + 100)
                self.assertIn('"credentials": ***', shown)

    def test_text_that_is_not_json_is_left_alone_around_a_secret(self) -> None:
        self.assertEqual(redact_payload('noise "token": 7319 } more'),
                         'noise "token": "***" } more')
        self.assertEqual(redact_payload('"a": "b": "c"'), '"a": "b": "c"')
        self.assertEqual(redact_payload('{"token"'), '{"token"')
        self.assertEqual(redact_payload('{"unterminated'), '{"unterminated')


if __name__ == "__main__":
    unittest.main()
