"""A second hostile pass over where discovery may go (issue 26, item 9).

Each row is a URL a server could name, judged by :class:`Reach` from the URL
alone, before any connection.  Most rows held already and are kept so that
they keep holding; the site-local row (``fec0::/10``, the IPv6 private range
before unique local addresses) was judged a public address.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import threading
import unittest
import warnings
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from mcp_client.auth import AuthError, ClientCredentials, FileTokenStorage, OAuth

from ..base import LeakCheckingTestCase
from ..tables import add_rows
from .stage import Stage, approve
from .test_auth_hardening import check_reach

PUBLIC = "https://mcp.example.com/mcp"
LOCAL = "http://127.0.0.1:8000/mcp"

#: (label, MCP server, URL, authorization server?, allow_private_network, expected)
#: ``expected`` is ``ok`` or a fragment of the refusal.
REACH = [
    ("decimal metadata", PUBLIC, "http://2852039166/", False, True, "metadata"),
    ("hex metadata upper case", PUBLIC, "http://0xA9FEA9FE/", False, True, "metadata"),
    ("octal metadata", PUBLIC, "http://0251.0376.0251.0376/", False, True, "metadata"),
    ("octal metadata, long zeros", PUBLIC, "http://00000000000251.0376.0251.0376/", False,
     True, "metadata"),
    ("dotted hex loopback", PUBLIC, "http://0x7f.0x0.0x0.0x1/", False, False, "loopback"),
    ("two-part metadata", PUBLIC, "http://169.254.43518/", False, True, "metadata"),
    ("mapped metadata", PUBLIC, "http://[::ffff:169.254.169.254]/", False, True, "metadata"),
    ("mapped metadata with a zone", PUBLIC, "http://[::ffff:a9fe:a9fe%25x]/", False, True,
     "metadata"),
    ("compatible metadata", PUBLIC, "http://[::169.254.169.254]/", False, True,
     "not a unicast"),
    ("translated metadata", PUBLIC, "http://[::ffff:0:a9fe:a9fe]/", False, True,
     "not a unicast"),
    ("NAT64 metadata", PUBLIC, "http://[64:ff9b::a9fe:a9fe]/", False, True, "metadata"),
    ("local-use NAT64 metadata", PUBLIC, "http://[64:ff9b:1::a9fe:a9fe]/", False, True,
     "not a unicast"),
    ("6to4 metadata", PUBLIC, "http://[2002:a9fe:a9fe::]/", False, True, "metadata"),
    ("GCP name with a trailing dot", PUBLIC, "http://metadata.google.internal./", False, True,
     "metadata"),
    ("GCP name percent-encoded dots", PUBLIC, "http://metadata%2egoogle%2einternal/", False,
     True, "metadata"),
    ("metadata address percent-encoded dots", PUBLIC, "http://169%2e254%2e169%2e254/", False,
     True, "metadata"),
    ("bare metadata upper case", PUBLIC, "http://METADATA/", False, True, "metadata"),
    ("instance-data with a trailing dot", PUBLIC, "http://instance-data./", False, True,
     "metadata"),
    ("AWS IPv6 metadata", PUBLIC, "http://[fd00:ec2::254]/", False, True, "metadata"),
    ("AWS IPv6 metadata, other spelling", PUBLIC, "http://[fd00:ec2:0::0254]/", False, True,
     "metadata"),
    ("Alibaba metadata", PUBLIC, "http://100.100.100.200/", False, True, "metadata"),
    ("Oracle metadata", PUBLIC, "http://192.0.0.192/", False, True, "metadata"),
    ("link-local IPv6 with a zone", PUBLIC, "http://[fe80::1%25eth0]/", False, True,
     "link-local"),
    ("unspecified", PUBLIC, "http://0.0.0.0/", False, True, "not a unicast"),
    ("unspecified as one number", PUBLIC, "http://0/", False, True, "not a unicast"),
    ("unspecified IPv6", PUBLIC, "http://[::]/", False, True, "not a unicast"),
    ("broadcast", PUBLIC, "http://255.255.255.255/", False, True, "not a unicast"),
    ("multicast IPv6", PUBLIC, "http://[ff02::1]/", False, True, "not a unicast"),
    ("metadata with a trailing dot and port", PUBLIC, "http://169.254.169.254.:80/", False,
     True, "metadata"),
    ("metadata with a leading-zero port", PUBLIC, "http://169.254.169.254:0080/", False, True,
     "metadata"),
    ("metadata with a fragment holding @", PUBLIC, "http://169.254.169.254#@x/", False, True,
     "metadata"),
    ("upper-case scheme", PUBLIC, "HTTP://169.254.169.254/", False, True, "metadata"),
    ("fullwidth letters in a name", PUBLIC, "http://\uff4detadata.google.internal/", False,
     True, "requests can send"),
    ("ideographic full stops", PUBLIC, "http://169\u3002254\u3002169\u3002254/", False, True,
     "requests can send"),
    ("localhost with a trailing dot", PUBLIC, "http://localhost./", False, False, "loopback"),
    ("a .local name with a trailing dot", PUBLIC, "http://x.local./", False, False,
     "private-network"),
    ("an empty port on loopback", PUBLIC, "http://127.0.0.1:/", False, False, "loopback"),
    ("site-local IPv6 from a public server", PUBLIC, "https://[fec0::1]/", True, False,
     "private-network"),
    ("site-local IPv6, opted in", PUBLIC, "https://[fec0::1]/", True, True, "ok"),
    ("site-local IPv6 over http to an AS", LOCAL, "http://[fec0::1]/token", True, True,
     "https"),
]


class ReachReviewTest(unittest.TestCase):
    """Each URL against the rules, decided from the URL alone."""


add_rows(ReachReviewTest, "reach", REACH, check_reach)


class TokenFileReviewTest(unittest.TestCase):
    """A token file that is not a regular file is refused without waiting on it."""

    def setUp(self) -> None:
        super().setUp()
        scratch = tempfile.TemporaryDirectory()
        self.addCleanup(scratch.cleanup)
        self.folder = Path(scratch.name) / "config"
        self.folder.mkdir(mode=0o700)
        self.path = self.folder / "tokens.json"

    def test_a_fifo_as_the_token_file_is_refused_at_once(self) -> None:
        # Opening a FIFO for reading blocks until a writer comes: the check
        # (not a regular file) must come before any wait.
        os.mkfifo(self.path, 0o600)
        said: list[str] = []
        found: list[Any] = []

        def load() -> None:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                found.append(FileTokenStorage(self.path).load("k"))
            said.extend(str(w.message) for w in caught)

        worker = threading.Thread(target=load, daemon=True)
        worker.start()
        worker.join(10.0)
        if worker.is_alive():   # release the blocked open so the thread ends
            os.close(os.open(self.path, os.O_WRONLY | os.O_NONBLOCK))
            worker.join(10.0)
            self.fail("loading blocked on a FIFO planted as the token file")
        self.assertEqual(found, [None])
        self.assertEqual(len(said), 1, said)
        self.assertIn("not a regular file", said[0])

    def test_a_symlinked_token_file_to_a_private_file_is_read(self) -> None:
        # The descriptor is checked, whatever path led to it: a link to the
        # user's own private file reads that file (nothing foreign in it).
        target = self.folder / "real.json"
        target.write_text(json.dumps({"k": {"tokens": {}}}))
        os.chmod(target, 0o600)
        os.symlink(target, self.path)
        self.assertEqual(FileTokenStorage(self.path).load("k"), {"tokens": {}})

    def test_a_symlinked_token_file_to_a_loose_file_is_refused(self) -> None:
        target = self.folder / "loose.json"
        target.write_text(json.dumps({"k": {"tokens": {}}}))
        os.chmod(target, 0o666)
        os.symlink(target, self.path)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            self.assertIsNone(FileTokenStorage(self.path).load("k"))
        self.assertIn("writable by group or others", str(caught[0].message))

    def test_a_fifo_as_the_lock_file_does_not_block(self) -> None:
        os.mkfifo(f"{self.path}.lock", 0o600)
        storage = FileTokenStorage(self.path)
        storage.save("k", {"tokens": {}})
        self.assertEqual(storage.load("k"), {"tokens": {}})


class _Elsewhere(BaseHTTPRequestHandler):
    """Another origin on loopback: records what it receives, answers 401 like the MCP server."""

    protocol_version = "HTTP/1.1"
    timeout = 10

    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.do_GET()

    def do_GET(self) -> None:
        received: list[str] = self.server.received   # type: ignore[attr-defined]
        received.append(self.headers.get("Authorization") or "")
        prm: str = self.server.prm   # type: ignore[attr-defined]
        self.send_response(401)
        self.send_header("WWW-Authenticate", f'Bearer resource_metadata="{prm}"')
        self.send_header("Content-Length", "0")
        self.end_headers()


class LoginRedirectTest(LeakCheckingTestCase):
    """``login`` POSTs to the MCP server; a redirect of it to another origin must not
    end with the token sent there (the auth hook re-sends on 401)."""

    def setUp(self) -> None:
        super().setUp()
        self.stage = Stage()
        self.addCleanup(self.stage.stop)
        self.elsewhere = ThreadingHTTPServer(("127.0.0.1", 0), _Elsewhere)
        self.elsewhere.daemon_threads = True
        self.elsewhere.received = []   # type: ignore[attr-defined]
        self.elsewhere.prm = self.stage.prm_url   # type: ignore[attr-defined]
        thread = threading.Thread(target=self.elsewhere.serve_forever,
                                  kwargs={"poll_interval": 0.05})
        thread.start()
        self.addCleanup(thread.join, 10)
        self.addCleanup(self.elsewhere.server_close)
        self.addCleanup(self.elsewhere.shutdown)
        target = f"http://127.0.0.1:{self.elsewhere.server_address[1]}/mcp"

        def moved(handler: Any, body: bytes) -> None:
            handler.send(307, headers={"Location": target})

        self.stage.rs_post = moved   # type: ignore[method-assign]

    def check(self, auth: Any) -> None:
        self.addCleanup(auth.close)
        with contextlib.suppress(AuthError):
            auth.login(self.stage.rs_url)
        received: list[str] = self.elsewhere.received   # type: ignore[attr-defined]
        self.assertEqual([value for value in received if value], [],
                         "a token went to another origin")

    def test_client_credentials_login_redirected_elsewhere(self) -> None:
        self.check(ClientCredentials("c", client_secret="s"))

    def test_oauth_login_redirected_elsewhere(self) -> None:
        self.check(OAuth(on_authorize=approve, redirect_uri="http://127.0.0.1:9/callback"))
