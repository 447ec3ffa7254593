"""Origins as the sending library reads them: redirects, ``endpoint`` events, credentials.

A table of hostile ``Location``/``endpoint`` values, each with what the client must make
of it against the URL it was configured with: ``same`` (followed), ``different`` (refused as
another origin) or ``refused`` (refused before any comparison: a backslash, whitespace or
userinfo in the authority, a port out of range...).  Then real servers on 127.0.0.1, two
ports being two origins: a redirect or an ``endpoint`` event whose authority ``urlsplit``
reads as the first server while urllib3 connects to the second must never bring the second
one a request, let alone the credentials.
"""

from __future__ import annotations

import unittest
from typing import Any

from mcp_client import Client, MCPClientError, TransportError
from mcp_client._origin import UnsafeURL, connect_origin, resolve, same_origin
from mcp_client.http import HTTPTransport

from ..httpkit import ScriptedCase, ScriptedServer, Reply, Seen, SSEScript
from ..tables import add_rows

BASE = "http://server.example:8080/mcp"

#: (label, Location or endpoint as the server sent it, expected, base URL or None for BASE)
ROWS: list[tuple[str, str, str, str | None]] = [
    ("absolute path", "/moved", "same", None),
    ("relative path", "moved", "same", None),
    ("query only", "?q=1", "same", None),
    ("scheme and host in upper case", "HTTP://SERVER.EXAMPLE:8080/x", "same", None),
    ("no path", "http://server.example:8080", "same", None),
    ("another host", "http://evil.example:8080/x", "different", None),
    ("https instead of http", "https://server.example:8080/x", "different", None),
    ("another port", "http://server.example:8081/x", "different", None),
    ("the default port instead of 8080", "http://server.example/x", "different", None),
    ("a trailing dot", "http://server.example.:8080/x", "different", None),
    ("backslash before @ with ports", "http://evil:8080\\@server.example:8080/x", "refused",
     None),
    ("backslash before @", "http://evil\\@server.example:8080/x", "refused", None),
    ("http:/\\evil is a path on the server", "http:/\\evil/x", "same", None),
    ("two backslashes are a path on the server", "\\\\evil/x", "same", None),
    ("scheme-relative to another host", "//evil/x", "different", None),
    ("scheme-relative with a backslash", "//evil:8080\\@server.example:8080/", "refused", None),
    ("userinfo, same host", "http://user@server.example:8080/x", "refused", None),
    ("user and password, same host", "http://user:pw@server.example:8080/x", "refused", None),
    ("the server as userinfo of another host", "http://server.example:8080@evil/x", "refused",
     None),
    ("@ in the path", "http://server.example:8080/x@evil", "same", None),
    ("@ in the query", "http://server.example:8080/x?u=a@evil", "same", None),
    ("@ in the fragment", "http://server.example:8080#@evil", "same", None),
    ("percent-encoded @ in the host", "http://evil%40server.example:8080/x", "different", None),
    ("percent-encoded : in userinfo", "http://server.example%3A8080@evil/", "refused", None),
    ("percent-encoded : in the host", "http://server.example%3a8080/x", "different", None),
    ("a tab after the port", "http://server.example:8080\t/x", "refused", None),
    ("a tab inside the host", "http://serv\ter.example:8080/x", "refused", None),
    ("a line feed after the port", "http://server.example:8080\n/x", "refused", None),
    ("a leading space", " http://server.example:8080/x", "refused", None),
    ("CR LF in the path", "http://server.example:8080/\r\nHost: evil", "refused", None),
    ("an ideographic space after the port", "http://server.example:8080\u3000/x", "refused",
     None),
    ("a no-break space after the port", "http://server.example:8080\u00a0/x", "refused", None),
    ("a leading zero in the port", "http://server.example:08080/x", "same", None),
    ("a port above 65535", "http://server.example:99999/x", "refused", None),
    ("a negative port", "http://server.example:-1/x", "refused", None),
    ("two ports", "http://server.example:8080:8080/x", "refused", None),
    ("IPv6 loopback", "http://[::1]:8080/x", "different", None),
    ("IPv6 with a zone id", "http://[::1%25eth0]:8080/x", "different", None),
    ("a hexadecimal IPv4 host", "http://0x7f.1:8080", "different", None),
    ("not http", "ftp://server.example:8080/x", "refused", None),
    ("javascript:", "javascript:alert(1)", "refused", None),
    ("a fullwidth letter in the host", "http://\uff53erver.example:8080/x", "refused", None),
    ("an ideographic full stop in the host", "http://server\u3002example:8080/x", "refused",
     None),
    ("backslash and @ in the path only", "http://server.example:8080/x\\@evil", "same", None),
    ("a backslash right after the port", "http://server.example:8080\\x", "refused", None),
    ("three slashes are a path on the server", "http:///server.example:8080/", "same", None),
    ("no slashes are a path on the server", "http:server.example:8080/x", "same", None),
    ("# before @ ends the authority", "http://evil:8080#@server.example:8080/", "different",
     None),
    ("? before @ ends the authority", "http://evil:8080?@server.example:8080/", "different",
     None),
    ("a space inside the path is encoded, not refused", "/other path", "same", None),
    ("a trailing space", "http://server.example:8080/x ", "refused", None),
    ("a leading NUL", "\x00http://evil/", "refused", None),
    ("a NUL in the host", "http://server.example\x00.evil:8080/", "refused", None),
    ("DEL in the host", "http://server.example\x7f:8080/", "refused", None),
    ("unicode host and its A-label", "http://xn--bcher-kva.example:8080/x", "same",
     "http://b\u00fccher.example:8080/mcp"),
    ("port 80 explicit against implicit", "http://server.example:80/x", "same",
     "http://server.example/mcp"),
    ("port 443 explicit against implicit", "https://server.example:443/x", "same",
     "https://server.example/mcp"),
    ("https on port 80 against http", "https://server.example:80/x", "different",
     "http://server.example/mcp"),
    ("another spelling of ::1 is another origin", "http://[0:0::1]:8080/x", "different",
     "http://[::1]:8080/mcp"),
    ("a decimal IPv4 host is another origin", "http://2130706433:8080/x", "different",
     "http://127.0.0.1:8080/mcp"),
    ("another zone id", "http://[::1%25eth1]:8080/x", "different",
     "http://[::1%25eth0]:8080/mcp"),
    ("userinfo in the configured URL is the caller's", "/moved", "same",
     "http://me:pw@server.example:8080/mcp"),
    ("same host after the configured URL's userinfo", "http://server.example:8080/x", "same",
     "http://me:pw@server.example:8080/mcp"),
]


def _decision(base: str, reference: str) -> str:
    try:
        target = resolve(base, reference)
    except UnsafeURL:
        return "refused"
    rule = same_origin(target, base)
    return "same" if rule is None else "different" if rule.startswith("another origin") \
        else "refused"


class OriginTableTest(unittest.TestCase):
    """Each hostile reference against the configured URL."""


def _check(self: OriginTableTest, label: str, reference: str, expected: str,
           base: str | None) -> None:
    self.assertEqual(_decision(base or BASE, reference), expected, f"{label}: {reference!r}")


add_rows(OriginTableTest, "origin", ROWS, _check)


class ConnectOriginTest(unittest.TestCase):
    def test_the_origin_is_what_urllib3_connects_to(self) -> None:
        self.assertEqual(connect_origin("HTTP://Server.Example/x"), ("http", "server.example", 80))
        self.assertEqual(connect_origin("https://b\u00fccher.example/"),
                         ("https", "xn--bcher-kva.example", 443))
        self.assertEqual(connect_origin("http://[::1]:81/"), ("http", "[::1]", 81))

    def test_a_refusal_names_its_rule(self) -> None:
        with self.assertRaises(UnsafeURL) as caught:
            connect_origin("http://evil:1\\@server:2/")
        self.assertEqual(caught.exception.rule, "a backslash in the authority")
        self.assertIsInstance(caught.exception, ValueError)

    def test_userinfo_only_where_the_caller_allows_it(self) -> None:
        with self.assertRaises(UnsafeURL):
            connect_origin("http://u:p@server/")
        self.assertEqual(connect_origin("http://u:p@server/", userinfo=True),
                         ("http", "server", 80))

    def test_a_configured_url_with_a_backslash_in_its_authority_is_refused(self) -> None:
        for url in ("http://evil:1\\@127.0.0.1:2/mcp", "http://127.0.0.1\t:2/mcp",
                    "http://127.0.0.1:2\\/mcp"):
            with self.subTest(url=url), self.assertRaises(MCPClientError):
                HTTPTransport(url)


def _hostile(port: int, target_port: int, path: str) -> str:
    """The authority urlsplit reads as 127.0.0.1:<target_port> and urllib3 as <port>."""
    return f"http://127.0.0.1:{port}\\@127.0.0.1:{target_port}{path}"


class TwoOriginsTest(ScriptedCase):
    """Two servers on 127.0.0.1: credentials meant for ``good`` never reach ``other``."""

    def setUp(self) -> None:
        super().setUp()
        self.other = self.serve()

    def assert_other_saw_nothing(self) -> None:
        self.assertEqual([(s.method, s.headers.get("authorization")) for s in
                          self.other.requests], [])

    def redirecting(self, location: Any) -> ScriptedServer:
        def respond(reply: Reply, seen: Seen) -> None:
            if seen.rpc_method == "server/discover":
                ScriptedServer.default(reply, seen)
            else:
                reply.send(307, headers={"Location": location(good)})

        good = self.serve(respond)
        return good

    def test_a_redirect_read_two_ways_is_refused_with_auth(self) -> None:
        good = self.redirecting(lambda good: _hostile(self.other.port, good.port, "/mcp"))
        client = self.client(good, auth=("user", "secret-password"))
        with self.assertRaises(TransportError) as caught:
            client.call_tool("t")
        self.assertEqual(caught.exception.status, 307)
        self.assertIn("a backslash in the authority", str(caught.exception))
        self.assert_other_saw_nothing()

    def test_a_redirect_read_two_ways_is_refused_with_a_header(self) -> None:
        good = self.redirecting(lambda good: _hostile(self.other.port, good.port, "/mcp"))
        client = self.client(good, headers={"Authorization": "Bearer secret-token"},
                             persistent=False)
        with self.assertRaises(TransportError):
            client.call_tool("t")
        self.assert_other_saw_nothing()

    def test_a_bearer_token_never_follows_a_redirect_read_two_ways(self) -> None:
        from mcp_client.auth import AuthError, ClientCredentials, MemoryTokenStorage
        from mcp_client.auth._discovery import canonical_resource
        from mcp_client.auth._storage import storage_key

        good = self.redirecting(lambda good: _hostile(self.other.port, good.port, "/mcp"))
        storage = MemoryTokenStorage()
        storage.save(storage_key(canonical_resource(good.url), "c"),
                     {"tokens": {"access_token": "tok-secret", "token_type": "Bearer"}})
        auth = ClientCredentials("c", client_secret="s", storage=storage)
        self.addCleanup(auth.close)
        client = self.client(good, auth=auth)
        with self.assertRaises(TransportError):
            client.call_tool("t")
        self.assert_other_saw_nothing()
        self.assertEqual(auth.direct_authorization(good.url), "Bearer tok-secret")
        with self.assertRaises(AuthError):   # the token goes to its own origin only
            auth.direct_authorization(_hostile(self.other.port, good.port, "/mcp"))

    def test_a_redirect_with_userinfo_is_refused(self) -> None:
        good = self.redirecting(lambda good: f"http://x@127.0.0.1:{good.port}/mcp")
        client = self.client(good, auth=("user", "secret-password"))
        with self.assertRaises(TransportError) as caught:
            client.call_tool("t")
        self.assertIn("userinfo in the authority", str(caught.exception))

    def test_an_endpoint_event_read_two_ways_is_refused(self) -> None:
        script = SSEScript()
        good = self.serve(script)
        self.addCleanup(script.stopped.set)
        script.endpoint = _hostile(self.other.port, good.port, "/messages?session_id=abc")
        client = Client.connect_sse(good.url, auth=("user", "secret-password"),
                                    headers={"X-Api-Key": "secret-key"}, request_timeout=10)
        self.addCleanup(client.close)
        with self.assertRaises(TransportError) as caught:
            client.list_tools()
        self.assertIn("a backslash in the authority", str(caught.exception))
        self.assert_other_saw_nothing()

    def test_an_endpoint_event_with_a_tab_in_the_host_is_refused(self) -> None:
        script = SSEScript()
        good = self.serve(script)
        self.addCleanup(script.stopped.set)
        script.endpoint = f"http://127.0.0.1:{good.port}\t/messages?session_id=abc"
        client = Client.connect_sse(good.url, request_timeout=10)
        self.addCleanup(client.close)
        with self.assertRaises(TransportError):
            client.list_tools()
        self.assertEqual([s.method for s in good.requests], ["GET"])


if __name__ == "__main__":
    unittest.main()
