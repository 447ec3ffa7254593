"""mcp_client.auth under attack: where discovery may go, secrets in cleartext, short tokens,
planted token files.

Discovery's targets come from the network, so the rules (:mod:`mcp_client.auth._reach`)
are checked twice: as a table of URLs against the rules alone, and live against
``tests/auth/stage.py`` -- a scripted protected server and authorization server on
127.0.0.1 -- under a mock resolver that refuses, and records, any connection that is not to
127.0.0.1.  Every refusal must happen before a connection: a test fails when the client even
tried to reach ``169.254.169.254``.
"""

from __future__ import annotations

import threading
import unittest
from typing import Any
from unittest import mock

from mcp_client import Client
from mcp_client.auth import AuthError, ClientCredentials, OAuth
from mcp_client.auth._reach import Reach

from ..base import LeakCheckingTestCase
from ..tables import add_rows
from .stage import Resolver, Stage, approve

WAIT = 30.0
LOCAL = "http://127.0.0.1:8000/mcp"
PUBLIC = "https://mcp.example.com/mcp"
PRIVATE = "http://10.0.0.5/mcp"

#: (label, MCP server URL, URL to contact, an authorization server?, allow_private_network,
#:  expected: "ok" or the words the refusal must contain)
REACH: list[tuple[str, str, str, bool, bool, str]] = [
    ("https AS of a public server", PUBLIC, "https://auth.example.com/token", True, False, "ok"),
    ("loopback http AS of a loopback server", LOCAL, "http://127.0.0.1:9000/token", True,
     False, "ok"),
    ("localhost AS of a loopback server", LOCAL, "http://localhost:9000/token", True, False,
     "ok"),
    ("IPv6 loopback AS of a loopback server", LOCAL, "http://[::1]:9000/token", True, False,
     "ok"),
    ("the server's own PRM over http", PRIVATE,
     "http://10.0.0.5/.well-known/oauth-protected-resource/mcp", False, False, "ok"),
    ("AWS metadata", LOCAL, "http://169.254.169.254/latest/meta-data/", False, False,
     "cloud metadata"),
    ("AWS metadata, opted in to private networks", LOCAL, "http://169.254.169.254/", False,
     True, "cloud metadata"),
    ("AWS metadata over https", PUBLIC, "https://169.254.169.254/", True, True,
     "cloud metadata"),
    ("AWS metadata as a decimal number", LOCAL, "http://2852039166/", False, False,
     "cloud metadata"),
    ("AWS metadata in hexadecimal", LOCAL, "http://0xa9fea9fe/", False, False, "cloud metadata"),
    ("AWS metadata in octal", LOCAL, "http://0251.0376.0251.0376/", False, False,
     "cloud metadata"),
    ("AWS metadata, short form", LOCAL, "http://169.254.43518/", False, False,
     "cloud metadata"),
    ("AWS metadata, IPv4-mapped IPv6", LOCAL, "http://[::ffff:169.254.169.254]/", False, False,
     "cloud metadata"),
    ("AWS metadata, IPv4-mapped IPv6 in hex", LOCAL, "http://[::ffff:a9fe:a9fe]/", False,
     False, "cloud metadata"),
    ("AWS metadata, NAT64", LOCAL, "http://[64:ff9b::a9fe:a9fe]/", False, False,
     "cloud metadata"),
    ("AWS metadata, 6to4", LOCAL, "http://[2002:a9fe:a9fe::]/", False, False, "cloud metadata"),
    ("AWS IPv6 metadata", LOCAL, "http://[fd00:ec2::254]/", False, True, "cloud metadata"),
    ("ECS task metadata", LOCAL, "http://169.254.170.2/v2/credentials", False, True,
     "cloud metadata"),
    ("Alibaba metadata", LOCAL, "http://100.100.100.200/latest/", False, True,
     "cloud metadata"),
    ("GCP metadata by name", LOCAL, "http://metadata.google.internal/computeMetadata/v1/",
     False, True, "cloud metadata"),
    ("GCP metadata by name, trailing dot", LOCAL, "http://metadata.google.internal./", False,
     True, "cloud metadata"),
    ("GCP metadata by name, upper case", LOCAL, "http://METADATA.Google.Internal/", False,
     True, "cloud metadata"),
    ("GCP metadata short name", LOCAL, "http://metadata/computeMetadata/v1/", False, True,
     "cloud metadata"),
    ("metadata.goog", LOCAL, "https://metadata.goog/", True, True, "cloud metadata"),
    ("AWS instance-data name", LOCAL, "http://instance-data/latest/", False, True,
     "cloud metadata"),
    ("another link-local address", LOCAL, "http://169.254.1.1/", False, True, "link-local"),
    ("IPv6 link-local with a zone", LOCAL, "http://[fe80::1%25eth0]/", False, True,
     "link-local"),
    ("the unspecified address", LOCAL, "http://0.0.0.0:9000/", False, True, "not a unicast"),
    ("zero as a number", LOCAL, "http://0:9000/", False, True, "not a unicast"),
    ("IPv6 unspecified", LOCAL, "http://[::]:9000/", False, True, "not a unicast"),
    ("multicast", LOCAL, "http://224.0.0.1/", False, True, "not a unicast"),
    ("broadcast", LOCAL, "http://255.255.255.255/", False, True, "not a unicast"),
    ("10/8 from a public server", PUBLIC, "https://10.0.0.1/", True, False, "private-network"),
    ("10/8 from a loopback server", LOCAL, "http://10.0.0.1/", False, False, "private-network"),
    ("172.16/12 from a public server", PUBLIC, "https://172.16.0.1/", True, False,
     "private-network"),
    ("192.168/16 from a public server", PUBLIC, "https://192.168.1.1/", True, False,
     "private-network"),
    ("shared address space", PUBLIC, "https://100.64.0.1/", True, False, "private-network"),
    ("IPv6 unique local", PUBLIC, "https://[fd12::1]/", True, False, "private-network"),
    ("a 6to4 address of loopback is private", PUBLIC, "https://[2002:7f00:1::]/", True, False,
     "private-network"),
    ("an .internal name", PUBLIC, "https://auth.corp.internal/", True, False,
     "private-network"),
    ("a .local name", PUBLIC, "https://auth.local/", True, False, "private-network"),
    ("a .home.arpa name", PUBLIC, "https://router.home.arpa/", True, False, "private-network"),
    ("loopback from a public server", PUBLIC, "http://127.0.0.1:9000/", True, False,
     "loopback address"),
    ("loopback as a short number from a public server", PUBLIC, "http://127.1:9000/", True,
     False, "loopback address"),
    ("localhost from a public server", PUBLIC, "http://localhost:9000/", True, False,
     "loopback address"),
    ("IPv4-mapped loopback from a public server", PUBLIC, "http://[::ffff:127.0.0.1]/", True,
     False, "loopback address"),
    ("private AS of a private server", PRIVATE, "https://10.0.0.1/", True, False, "ok"),
    ("private AS, opted in", PUBLIC, "https://10.0.0.1/", True, True, "ok"),
    ("loopback AS, opted in", PUBLIC, "http://127.0.0.1:9000/", True, True, "ok"),
    ("loopback AS of a private server", PRIVATE, "http://127.0.0.1:9000/", True, False,
     "loopback address"),
    ("http AS on a public name", PUBLIC, "http://auth.example.com/token", True, False, "https"),
    ("http AS on a private address of a private server", PRIVATE, "http://10.0.0.1/token",
     True, False, "https"),
    ("http AS on a private address, opted in", PUBLIC, "http://10.0.0.1/token", True, True,
     "https"),
    ("http AS at the private server's own origin", PRIVATE, "http://10.0.0.5/token", True,
     False, "https"),
    ("http AS on a name under .localhost", LOCAL, "http://auth.localhost:9000/token", True,
     False, "ok"),
    ("http AS on a name that merely starts with localhost", LOCAL,
     "http://localhost.example.com/token", True, False, "https"),
    ("http AS on a public IP", LOCAL, "http://8.8.8.8/token", True, False, "https"),
    ("a backslash in the authority", LOCAL, "http://169.254.169.254\\@127.0.0.1:9000/", True,
     True, "backslash"),
    ("userinfo in the authority", PUBLIC, "https://user@auth.example.com/", True, True,
     "userinfo"),
    ("a tab in the host", PUBLIC, "https://auth.exa\tmple.com/", True, True, "whitespace"),
    ("a file URL", PUBLIC, "file:///etc/passwd", True, True, "not http or https"),
    ("no authority", PUBLIC, "https:auth.example.com/token", True, True, "not of the form"),
    ("ftp", PUBLIC, "ftp://auth.example.com/", True, True, "not http or https"),
    ("a port out of range", PUBLIC, "https://auth.example.com:70000/", True, True,
     "requests can send"),
]


class ReachTableTest(unittest.TestCase):
    """Each URL against the rules, decided from the URL alone."""


def check_reach(self: unittest.TestCase, label: str, server: str, url: str, authorization: bool,
                private: bool, expected: str) -> None:
    reach = Reach(server, allow_private_network=private)
    if expected == "ok":
        reach.check(url, authorization_server=authorization, what="the target")
        return
    with self.assertRaises(AuthError) as caught:
        reach.check(url, authorization_server=authorization, what="the target")
    self.assertIn(expected, str(caught.exception), label)
    self.assertIn("refused to contact the target at", str(caught.exception))


add_rows(ReachTableTest, "reach", REACH, check_reach)


class StageCase(LeakCheckingTestCase):
    def setUp(self) -> None:
        super().setUp()
        self.stage = Stage()
        self.addCleanup(self.stage.stop)

    def oauth(self, **options: Any) -> OAuth:
        options.setdefault("on_authorize", approve)
        options.setdefault("redirect_uri", "http://127.0.0.1:9/callback")
        return OAuth(**options)

    def connect(self, auth: Any, **options: Any) -> Client:
        self.addCleanup(auth.close)   # its connections to the authorization server
        client = Client.connect_http(self.stage.rs_url, auth=auth, request_timeout=WAIT,
                                     **options)
        self.addCleanup(client.close)
        return client

    def refused(self, auth: Any, *words: str, names: tuple[str, ...] = ()) -> AuthError:
        """Connecting fails with an AuthError holding ``words``; no connection was tried."""
        self.addCleanup(auth.close)
        with Resolver(names) as resolver:
            with self.assertRaises(AuthError) as caught:
                self.connect(auth)
        self.assertEqual(resolver.attempts, [], "the client tried to connect")
        for word in words:
            self.assertIn(word, str(caught.exception))
        return caught.exception


class DiscoveryReachTest(StageCase):
    def test_the_stage_works_with_loopback_servers(self) -> None:
        with Resolver() as resolver:
            self.connect(self.oauth()).call_tool("t")
        self.assertEqual(resolver.attempts, [])
        self.assertEqual(self.stage.grants, {"authorization_code": 1})

    def test_a_challenge_naming_the_metadata_service_is_refused(self) -> None:
        self.stage.metadata_url = "http://169.254.169.254/latest/meta-data/iam/"
        self.refused(self.oauth(), "http://169.254.169.254/latest/meta-data/iam/",
                     "cloud metadata")

    def test_an_authorization_server_on_a_private_address_is_refused(self) -> None:
        self.stage.as_url = "https://10.0.0.1"
        self.refused(self.oauth(), "https://10.0.0.1", "private-network",
                     "allow_private_network")
        self.assertEqual(self.stage.seen, [])

    def test_an_authorization_server_named_metadata_google_internal_is_refused(self) -> None:
        self.stage.as_url = "http://metadata.google.internal"
        self.refused(ClientCredentials("c", client_secret="s"), "metadata.google.internal",
                     "cloud metadata")

    def test_a_redirected_metadata_fetch_is_refused_before_connecting(self) -> None:
        self.stage.prm_redirect = "http://169.254.169.254/latest/meta-data/"
        self.refused(self.oauth(), "169.254.169.254", "cloud metadata")

    def test_a_token_endpoint_on_a_private_address_is_refused(self) -> None:
        self.stage.endpoints = {"token_endpoint": "https://10.0.0.1/token"}
        self.refused(ClientCredentials("c", client_secret="s"), "the token endpoint",
                     "https://10.0.0.1/token", "private-network")
        self.assertEqual([r.method for r in self.stage.seen], ["GET"])

    def test_opting_in_allows_a_private_network_but_never_metadata(self) -> None:
        self.stage.as_url = "http://169.254.169.254"
        self.refused(self.oauth(allow_private_network=True), "cloud metadata")


class CleartextTest(StageCase):
    """An authorization server at a non-loopback http:// URL gets nothing at all.

    ``as.example`` connects to the stage's authorization server (the mock resolver), so
    anything the client sent there would be recorded.
    """

    def setUp(self) -> None:
        super().setUp()
        self.stage.as_url = f"http://as.example:{self.stage.as_port}"

    def test_oauth_sends_nothing_to_an_http_authorization_server(self) -> None:
        self.refused(self.oauth(), f"http://as.example:{self.stage.as_port}", "https",
                     names=("as.example",))
        self.assertEqual(self.stage.seen, [])

    def test_client_credentials_send_no_secret_in_cleartext(self) -> None:
        self.refused(ClientCredentials("c", client_secret="the-client-secret"), "https",
                     names=("as.example",))
        self.assertEqual(self.stage.seen, [])

    def test_http_endpoints_of_an_https_or_loopback_issuer_are_refused_too(self) -> None:
        self.stage.as_url = self.stage.as_origin
        self.stage.endpoints = {
            "token_endpoint": f"http://as.example:{self.stage.as_port}/token",
            "registration_endpoint": f"http://as.example:{self.stage.as_port}/register"}
        self.refused(self.oauth(), "https", names=("as.example",))
        self.assertEqual([r.method for r in self.stage.seen], ["GET"])


class Clock:
    """``time.time`` moved forward by ``offset`` seconds, for everything in this process
    (client and stage alike, so a token expires for both at once): expiry without a sleep."""

    def __init__(self) -> None:
        import time

        self.offset = 0.0
        self._real = time.time
        self._patch = mock.patch("time.time", lambda: self._real() + self.offset)

    def __enter__(self) -> Clock:
        self._patch.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._patch.stop()


class ShortTokenTest(StageCase):
    """Tokens that live 30 s or less: refreshed once when they expire, not on every request."""

    def setUp(self) -> None:
        super().setUp()
        self.stage.expires_in = 20   # less than the 30 s margin of old
        self.clock = Clock()
        self.clock.__enter__()
        self.addCleanup(self.clock.__exit__)

    def burst(self, client: Client, count: int = 16) -> list[Any]:
        """``count`` threads calling a tool at once; their isError values."""
        start = threading.Barrier(count, timeout=WAIT)
        results: list[Any] = []

        def call() -> None:
            start.wait()
            results.append(client.call_tool("t")["isError"])

        threads = [threading.Thread(target=call, name=f"burst-{n}") for n in range(count)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(WAIT)
        return results

    def test_a_twenty_second_token_is_used_until_it_nears_its_end(self) -> None:
        client = self.connect(self.oauth())
        for _ in range(5):
            client.call_tool("t")
        self.assertEqual(self.stage.grants, {"authorization_code": 1})

    def test_sixteen_threads_after_expiry_refresh_a_short_token_once(self) -> None:
        client = self.connect(self.oauth(), tool_concurrency=16)
        client.call_tool("t")
        self.clock.offset = 25.0   # past the token's end, for the client and the server
        self.stage.token_delay = 0.2   # the other fifteen arrive while the refresh runs
        self.assertEqual(self.burst(client), [False] * 16)
        self.assertEqual(self.stage.grants, {"authorization_code": 1, "refresh_token": 1})

    def test_a_client_credentials_token_is_reused_for_its_lifetime(self) -> None:
        client = self.connect(ClientCredentials("c", client_secret="s"))
        for _ in range(5):
            client.call_tool("t")
        self.assertEqual(self.stage.grants, {"client_credentials": 1})
        self.clock.offset = 25.0
        client.call_tool("t")
        client.call_tool("t")
        self.assertEqual(self.stage.grants, {"client_credentials": 2})

    def test_sixteen_threads_after_expiry_fetch_one_client_credentials_token(self) -> None:
        client = self.connect(ClientCredentials("c", client_secret="s"), tool_concurrency=16)
        client.call_tool("t")
        self.clock.offset = 25.0
        self.stage.token_delay = 0.2
        self.assertEqual(self.burst(client), [False] * 16)
        self.assertEqual(self.stage.grants, {"client_credentials": 2})

    def test_a_long_token_keeps_the_thirty_second_margin(self) -> None:
        self.stage.expires_in = 3600
        client = self.connect(ClientCredentials("c", client_secret="s"))
        client.call_tool("t")
        self.clock.offset = 3600 - 29   # 29 s left: inside the margin, renewed before use
        client.call_tool("t")
        self.assertEqual(self.stage.grants, {"client_credentials": 2})


if __name__ == "__main__":
    unittest.main()
