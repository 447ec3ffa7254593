"""An unknown option's "did you mean": ``timeout`` means ``request_timeout``, and says why.

``timeout=`` given to a constructor is, most likely, the budget of each
request; the closest spelling (``probe_timeout``) bounds only the era probe.
The error suggests ``request_timeout`` and says what every timeout option the
call accepts bounds; a slip in one of their names is still that name.
"""

from __future__ import annotations

from typing import Any, Callable

from mcp_client import Client, MCPClientError
from mcp_client.testing import FakeTransport

from ..base import LeakCheckingTestCase
from ..tables import add_rows


def fake(**options: Any) -> Any:
    return Client(transport=FakeTransport(), **options)


def http(**options: Any) -> Any:
    return Client.connect_http("http://127.0.0.1:9/mcp", **options)


def stdio(**options: Any) -> Any:
    return Client.connect_stdio("/nonexistent/mcp-server", **options)


class HintTest(LeakCheckingTestCase):
    def message(self, connect: Callable[..., Any], name: str) -> str:
        with self.assertRaises(MCPClientError) as caught:
            connect(**{name: 5})
        return str(caught.exception)


def _hint(self: HintTest, label: str, connect: Callable[..., Any], name: str, meant: str,
          explained: tuple[str, ...]) -> None:
    message = self.message(connect, name)
    self.assertTrue(message.startswith(f"unknown option: {name} (did you mean {meant}?"),
                    message)
    for option in explained:
        self.assertIn(f"{option} bounds ", message)


TIMEOUTS = ("request_timeout", "probe_timeout")
add_rows(HintTest, "hint", [
    ("timeout to a client", fake, "timeout", "request_timeout", TIMEOUTS),
    ("timeout to connect_stdio", stdio, "timeout", "request_timeout", TIMEOUTS),
    ("timeout to connect_http", http, "timeout", "request_timeout",
     TIMEOUTS + ("connect_timeout",)),
    ("timout", fake, "timout", "request_timeout", TIMEOUTS),
    ("time_out", fake, "time_out", "request_timeout", TIMEOUTS),
    ("Timeout", fake, "Timeout", "request_timeout", TIMEOUTS),
    ("read_timeout", fake, "read_timeout", "request_timeout", TIMEOUTS),
    ("call_timeout", fake, "call_timeout", "request_timeout", TIMEOUTS),
    ("a slip in probe_timeout", fake, "probe_timout", "probe_timeout", ()),
    ("a slip in request_timeout", fake, "reqest_timeout", "request_timeout", ()),
    ("not a timeout", fake, "on_elicitt", "on_elicit", ()),
], _hint)


class OtherOptionsTest(LeakCheckingTestCase):
    def test_an_option_far_from_any_timeout_lists_none(self) -> None:
        with self.assertRaises(MCPClientError) as caught:
            fake(on_elicitt=print)
        self.assertNotIn("bounds", str(caught.exception))

    def test_a_policy_with_no_timeout_options_suggests_none(self) -> None:
        from mcp_client.policy import Policy

        from ..policy.test_policy import FakeProvider

        with self.assertRaises(MCPClientError) as caught:
            Policy(FakeProvider(), timeout=5)
        self.assertEqual(str(caught.exception), "unknown option: timeout")
