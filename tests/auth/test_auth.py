"""mcp_client.auth: the OAuth flow against the official SDK's resource server, and its parts.

The live tests run ``tests/servers/oauth_server.py`` (an SDK ``MCPServer`` with auth, in
front of a small authorization server whose tokens the test expires and revokes) and
check what the conformance suite does not: refresh on expiry and on a 401, one refresh for
sixteen threads, a revoked refresh token, tokens shared across processes through a file,
and that no secret reaches a log record.  The rest are the flow's parts without a network:
the challenge parser, the authorization response checks, the loopback listener.
"""

from __future__ import annotations

import json
import logging
import os
import selectors
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import webbrowser
from pathlib import Path
from typing import Any
from unittest import mock

import requests

from mcp_client import Client
from mcp_client.auth import (AuthError, ClientCredentials, FileTokenStorage, MemoryTokenStorage,
                             OAuth, TokenStorage, WorkloadIdentity)
from mcp_client.auth._discovery import parse_challenge, resource_covers
from mcp_client.auth._flow import check_pkce, read_redirect
from mcp_client.auth._loopback import Loopback

from ..base import PYTHON, LeakCheckingTestCase, server

#: seconds any one wait may take before it counts as a hang
WAIT = 30.0
REPO = Path(__file__).resolve().parents[2]


class ProtectedServer:
    """``oauth_server.py`` in a child process."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen([PYTHON, *server("oauth_server.py")], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            assert self.proc.stdout is not None
            with selectors.DefaultSelector() as selector:
                selector.register(self.proc.stdout, selectors.EVENT_READ)
                if not selector.select(WAIT):
                    raise RuntimeError("the protected server did not start")
            fields = dict(item.split("=") for item in self.proc.stdout.readline().decode().split())
        except BaseException:
            self.stop()
            raise
        self.url = f"http://127.0.0.1:{fields['PORT']}/mcp"
        self.issuer = f"http://127.0.0.1:{fields['AS']}"

    def control(self, **order: Any) -> None:
        requests.post(f"{self.issuer}/control", json=order, timeout=WAIT).raise_for_status()

    def stats(self) -> dict[str, Any]:
        answer: dict[str, Any] = requests.get(f"{self.issuer}/control", timeout=WAIT).json()
        return answer

    def stop(self) -> None:
        for escalate in (None, self.proc.terminate, self.proc.kill):
            if escalate is not None:
                escalate()
            try:
                self.proc.communicate(timeout=10)
                return
            except subprocess.TimeoutExpired:
                continue


class Browser:
    """An ``on_authorize`` that follows the redirect the way a browser would, counting."""

    def __init__(self) -> None:
        self.calls = 0
        self._lock = threading.Lock()

    def __call__(self, url: str) -> str:
        with self._lock:
            self.calls += 1
        response = requests.get(url, allow_redirects=False, timeout=WAIT)
        return str(response.headers["Location"])


def refuse(url: str) -> str:
    raise AssertionError("nobody should have been asked to log in")


class LiveCase(LeakCheckingTestCase):
    def setUp(self) -> None:
        super().setUp()
        self.server = ProtectedServer()
        self.addCleanup(self.server.stop)
        self.browser = Browser()

    def oauth(self, **options: Any) -> OAuth:
        options.setdefault("on_authorize", self.browser)
        options.setdefault("redirect_uri", "http://127.0.0.1:9/callback")
        return OAuth(**options)

    def echo(self, auth: OAuth, text: str = "hi") -> Any:
        with Client.connect_http(self.server.url, auth=auth, request_timeout=WAIT) as client:
            return client.call_tool("echo", {"text": text})["structuredContent"]["result"]


class TestLiveOAuth(LiveCase):
    def test_a_login_is_asked_once_and_its_tokens_reused(self) -> None:
        storage = MemoryTokenStorage()
        self.assertEqual(self.echo(self.oauth(storage=storage)), "hi")
        self.assertEqual(self.echo(self.oauth(storage=storage, on_authorize=refuse)), "hi")
        self.assertEqual(self.browser.calls, 1)
        self.assertEqual(self.server.stats()["grants"], {"authorization_code": 1})

    def test_a_token_the_server_stops_accepting_is_refreshed_without_asking(self) -> None:
        auth = self.oauth()
        self.echo(auth)
        self.server.control(expire=True)
        self.assertEqual(self.echo(auth, "again"), "again")
        self.assertEqual(self.browser.calls, 1)
        self.assertEqual(self.server.stats()["grants"],
                         {"authorization_code": 1, "refresh_token": 1})

    def test_a_token_about_to_expire_is_refreshed_before_it_is_sent(self) -> None:
        self.server.control(expires_in=20)   # its margin: a quarter of its life, 5 s
        auth = self.oauth()
        self.echo(auth)
        self.server.control(expires_in=3600)
        real = time.time
        with mock.patch("time.time", lambda: real() + 18):   # 2 s left: inside the margin
            self.echo(auth)   # refreshed before it is sent, then kept
            self.echo(auth)
        grants = self.server.stats()["grants"]
        self.assertEqual(grants, {"authorization_code": 1, "refresh_token": 1})
        self.assertEqual(self.browser.calls, 1)

    def test_sixteen_threads_on_a_stale_token_refresh_it_once(self) -> None:
        auth = self.oauth()
        results: list[Any] = []
        with Client.connect_http(self.server.url, auth=auth, request_timeout=WAIT,
                                 tool_concurrency=16) as client:
            client.call_tool("echo", {"text": "first"})
            self.server.control(expire=True)
            start = threading.Barrier(16, timeout=WAIT)

            def call(n: int) -> None:
                start.wait()
                results.append(client.call_tool("echo", {"text": str(n)})["isError"])

            threads = [threading.Thread(target=call, args=(n,)) for n in range(16)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(WAIT)
        self.assertEqual(results, [False] * 16)
        self.assertEqual(self.server.stats()["grants"],
                         {"authorization_code": 1, "refresh_token": 1})
        self.assertEqual(self.browser.calls, 1)

    def test_a_revoked_refresh_token_leads_to_one_new_login(self) -> None:
        auth = self.oauth()
        self.echo(auth)
        self.server.control(expire=True, revoke=True)
        self.assertEqual(self.echo(auth, "back"), "back")
        self.assertEqual(self.browser.calls, 2)
        self.assertEqual(self.server.stats()["grants"],
                         {"authorization_code": 2, "refresh_token": 1})

    def test_a_user_who_declines_ends_in_auth_error(self) -> None:
        with self.assertRaises(AuthError) as caught:
            self.echo(self.oauth(on_authorize=lambda url: ""))
        self.assertIn("not completed", caught.exception.reason)

    def test_without_a_browser_or_on_authorize_the_error_says_what_to_pass(self) -> None:
        with mock.patch.object(webbrowser, "get", side_effect=webbrowser.Error("none")):
            with self.assertRaises(AuthError) as caught:
                self.echo(OAuth())
        self.assertIn("on_authorize=", str(caught.exception))
        self.assertIsNone(caught.exception.status)


class TestSecrets(LiveCase):
    def test_no_secret_reaches_a_log_record_a_repr_or_the_storage_repr(self) -> None:
        records: list[logging.LogRecord] = []

        class Keep(logging.Handler):
            def emit(self, record: logging.LogRecord) -> None:
                records.append(record)

        handler = Keep(logging.DEBUG)
        root = logging.getLogger()
        level = root.level
        root.addHandler(handler)
        root.setLevel(logging.DEBUG)
        try:
            storage = MemoryTokenStorage()
            auth = self.oauth(storage=storage)
            self.echo(auth)
            self.server.control(expire=True)
            self.echo(auth)
            self.server.control(expire=True, revoke=True)
            self.echo(auth)
            shown = [repr(auth), repr(storage)]
        finally:
            root.removeHandler(handler)
            root.setLevel(level)
        texts = [record.getMessage() for record in records] + shown
        issued = self.server.stats()["secrets"]
        self.assertGreater(len(records), 10)
        self.assertGreaterEqual(len(issued), 8)
        leaks = [(secret, text) for secret in issued for text in texts if secret in text]
        self.assertEqual(leaks, [])


class TestFileStorage(LiveCase):
    def test_a_second_process_reuses_the_tokens_and_the_file_is_private(self) -> None:
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "sub" / "tokens.json"
            script = (
                "import sys, requests\n"
                "from mcp_client import Client\n"
                "from mcp_client.auth import OAuth, FileTokenStorage\n"
                "follow = lambda url: requests.get(url, allow_redirects=False)"
                ".headers['Location']\n"
                "auth = OAuth(storage=FileTokenStorage(sys.argv[2]), on_authorize=follow,\n"
                "             redirect_uri='http://127.0.0.1:9/callback')\n"
                "with Client.connect_http(sys.argv[1], auth=auth) as client:\n"
                "    client.call_tool('echo', {'text': 'child'})\n")
            done = subprocess.run([PYTHON, "-c", script, self.server.url, str(path)],
                                  env={**os.environ, "PYTHONPATH": str(REPO)},
                                  capture_output=True, timeout=WAIT)
            self.assertEqual(done.returncode, 0, done.stderr.decode())
            self.assertEqual(stat.S_IMODE(path.stat().st_mode), 0o600)
            self.assertEqual(self.echo(self.oauth(storage=FileTokenStorage(path),
                                                  on_authorize=refuse)), "hi")
            records = json.loads(path.read_text())
        self.assertEqual(list(records), [self.server.url])
        self.assertEqual(self.server.stats()["grants"], {"authorization_code": 1})


class TestSharedStorage(LiveCase):
    def test_a_refresh_by_one_holder_is_adopted_by_the_other(self) -> None:
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "tokens.json"
            first = self.oauth(storage=FileTokenStorage(path))
            self.echo(first)
            second = self.oauth(storage=FileTokenStorage(path), on_authorize=refuse)
            self.assertEqual(self.echo(second), "hi")
            self.server.control(expire=True)
            self.echo(first)    # refreshes: the refresh token the second one holds is spent
            self.assertEqual(self.echo(second, "still"), "still")
        self.assertEqual(self.server.stats()["grants"],
                         {"authorization_code": 1, "refresh_token": 1})


class TestStorage(unittest.TestCase):
    def test_both_storages_are_token_storages_and_round_trip(self) -> None:
        with tempfile.TemporaryDirectory() as folder:
            for storage in (MemoryTokenStorage(), FileTokenStorage(Path(folder) / "t.json")):
                self.assertIsInstance(storage, TokenStorage)
                self.assertIsNone(storage.load("k"))
                storage.save("k", {"tokens": {"access_token": "secret"}})
                loaded = storage.load("k")
                assert loaded is not None
                loaded["tokens"] = {}
                self.assertEqual(storage.load("k"), {"tokens": {"access_token": "secret"}})
                self.assertNotIn("secret", repr(storage))
                storage.delete("k")
                storage.delete("k")
                self.assertIsNone(storage.load("k"))

    def test_an_object_that_is_no_storage_is_refused(self) -> None:
        with self.assertRaises(AuthError):
            OAuth(storage={})


class TestChallenge(unittest.TestCase):
    def test_the_bearer_parameters_are_read(self) -> None:
        header = ('Bearer error="insufficient_scope", scope="a b", '
                  'resource_metadata="http://h/.well-known/oauth-protected-resource/mcp"')
        self.assertEqual(parse_challenge(header), {
            "error": "insufficient_scope", "scope": "a b",
            "resource_metadata": "http://h/.well-known/oauth-protected-resource/mcp"})

    def test_other_schemes_and_no_header_give_nothing(self) -> None:
        self.assertEqual(parse_challenge(None), {})
        self.assertEqual(parse_challenge('Basic realm="x"'), {})
        self.assertEqual(parse_challenge('Basic realm="x", Bearer scope=s'), {"scope": "s"})

    def test_the_resource_must_cover_the_server(self) -> None:
        self.assertTrue(resource_covers("http://h:1", "http://h:1/mcp"))
        self.assertTrue(resource_covers("http://h:1/mcp", "http://h:1/mcp"))
        self.assertFalse(resource_covers("http://h:1/mc", "http://h:1/mcp"))
        self.assertFalse(resource_covers("https://evil.example.com/mcp", "http://h:1/mcp"))


class TestAuthorizationResponse(unittest.TestCase):
    def read(self, url: str, *, supported: bool = True) -> str:
        return read_redirect(url, state="s1", issuer="http://as", iss_supported=supported)

    def test_the_code_comes_back_when_state_and_iss_match(self) -> None:
        self.assertEqual(self.read("http://c/cb?code=abc&state=s1&iss=http%3A%2F%2Fas"), "abc")
        self.assertEqual(self.read("http://c/cb?code=abc&state=s1", supported=False), "abc")

    def test_each_bad_response_is_refused_without_quoting_the_code(self) -> None:
        for url in ("http://c/cb?code=abc9&state=other&iss=http%3A%2F%2Fas",
                    "http://c/cb?code=abc9&state=s1",
                    "http://c/cb?code=abc9&state=s1&iss=http%3A%2F%2Fas%2F",
                    "http://c/cb?code=abc9&state=s1&iss=https%3A%2F%2Fevil"):
            with self.subTest(url=url), self.assertRaises(AuthError) as caught:
                self.read(url)
            self.assertNotIn("abc9", str(caught.exception))

    def test_a_declined_authorization_names_the_error(self) -> None:
        with self.assertRaises(AuthError) as caught:
            self.read("http://c/cb?error=access_denied&error_description=no+thanks&state=s1"
                      "&iss=http%3A%2F%2Fas")
        self.assertEqual((caught.exception.error, caught.exception.description),
                         ("access_denied", "no thanks"))

    def test_a_server_without_s256_is_refused(self) -> None:
        for metadata in ({}, {"code_challenge_methods_supported": ["plain"]}):
            with self.assertRaises(AuthError):
                check_pkce(metadata)
        check_pkce({"code_challenge_methods_supported": ["plain", "S256"]})


class TestLoopback(LeakCheckingTestCase):
    def get(self, url: str) -> requests.Response:
        return requests.get(url, timeout=WAIT)

    def test_a_wrong_state_is_ignored_and_the_right_one_accepted(self) -> None:
        listener = Loopback(0, timeout=WAIT)
        self.addCleanup(listener.close)
        answers: list[int] = []
        base = listener.redirect_uri

        def browser() -> None:
            answers.append(self.get(f"{base}?code=x&state=forged").status_code)
            answers.append(self.get(base.replace("/callback", "/favicon.ico")).status_code)
            answers.append(self.get(f"{base}?code=c1&state=good").status_code)

        thread = threading.Thread(target=browser)
        thread.start()
        came_back = listener.wait("good")
        thread.join(WAIT)
        self.assertEqual(came_back, f"{base}?code=c1&state=good")
        self.assertEqual(answers, [400, 404, 200])
        with self.assertRaises(requests.ConnectionError):   # a second callback: nobody listens
            self.get(f"{base}?code=c2&state=good")

    def test_no_browser_coming_back_times_out(self) -> None:
        listener = Loopback(0, timeout=0.3)
        self.addCleanup(listener.close)
        with self.assertRaises(AuthError) as caught:
            listener.wait("s")
        self.assertIn("did not come back", caught.exception.reason)

    def test_a_busy_port_is_an_auth_error(self) -> None:
        with socket.socket() as taken:
            taken.bind(("127.0.0.1", 0))
            taken.listen(1)
            with self.assertRaises(AuthError):
                Loopback(taken.getsockname()[1])


class TestSurface(unittest.TestCase):
    def test_import_mcp_client_does_not_load_the_auth_package(self) -> None:
        code = "import sys, mcp_client; print('mcp_client.auth' in sys.modules)"
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=WAIT)
        self.assertEqual(done.stdout.strip(), "False")

    def test_bad_arguments_are_auth_errors(self) -> None:
        for make in (lambda: OAuth(client_secret="s"),
                     lambda: OAuth(client_metadata_url="http://insecure/doc.json"),
                     lambda: ClientCredentials("id"),
                     lambda: ClientCredentials("id", client_secret="s", private_key="k"),
                     lambda: WorkloadIdentity("id", ""),
                     lambda: OAuth(redirect_uri="http://127.0.0.1:9/callback")):
            with self.assertRaises(AuthError):
                make()

    def test_an_auth_object_serves_one_origin(self) -> None:
        auth = OAuth(on_authorize=refuse)
        auth.bind("https://h/mcp")
        auth.bind("https://h/mcp/")   # a same-origin redirect
        with self.assertRaises(AuthError):
            auth.bind("https://other/mcp")
        self.assertEqual(repr(auth), "<OAuth https://h/mcp unauthorized>")

    def test_repr_shows_state_not_secrets(self) -> None:
        auth = OAuth(client_id="cid", client_secret="hunter2")
        self.assertEqual(repr(auth), "<OAuth unbound unauthorized>")

    def test_auth_error_pickles_with_its_attributes(self) -> None:
        import pickle
        error = pickle.loads(pickle.dumps(AuthError("r", status=400, error="invalid_grant",
                                                    description="d")))
        self.assertEqual((error.reason, error.status, error.error, error.description),
                         ("r", 400, "invalid_grant", "d"))


class FakeBrowser:
    """A ``webbrowser`` controller that follows the URL on a thread, as a user would."""

    def __init__(self) -> None:
        self.threads: list[threading.Thread] = []
        self.landed: list[int] = []

    def open(self, url: str) -> bool:
        def visit() -> None:
            self.landed.append(requests.get(url, timeout=WAIT).status_code)

        thread = threading.Thread(target=visit, name="fake-browser")
        self.threads.append(thread)
        thread.start()
        return True

    def join(self) -> None:
        for thread in self.threads:
            thread.join(WAIT)


class TestLoginAndCommandLine(LiveCase):
    def run_cli(self, *argv: str) -> tuple[int, str, str]:
        import io

        from mcp_client.cli import main

        out, err = io.StringIO(), io.StringIO()
        code = main(list(argv), stdin=io.StringIO(), stdout=out, stderr=err)
        return code, out.getvalue(), err.getvalue()

    def test_login_comes_before_the_probe_so_a_slow_person_is_not_cut_short(self) -> None:
        slow = threading.Event()

        def person(url: str) -> str:
            slow.wait(0.5)   # longer than the probe budget below
            return self.browser(url)

        auth = self.oauth(on_authorize=person)
        auth.login(self.server.url)
        with Client.connect_http(self.server.url, auth=auth, probe_timeout=0.2) as client:
            self.assertEqual(client.era, "modern")
        auth.forget()
        self.assertEqual(self.browser.calls, 1)

    def test_connect_http_logs_in_before_the_probe_on_its_own(self) -> None:
        slow = threading.Event()

        def person(url: str) -> str:
            slow.wait(0.5)   # longer than the probe budget below
            return self.browser(url)

        auth = self.oauth(on_authorize=person)
        with Client.connect_http(self.server.url, auth=auth, probe_timeout=0.2) as client:
            self.assertEqual(client.era, "modern")
            self.assertEqual(self.browser.calls, 1)
        with Client.connect_http(self.server.url, auth=auth, probe_timeout=0.2) as client:
            self.assertEqual(client.era, "modern")   # the kept token: nobody asked again
        auth.forget()
        self.assertEqual(self.browser.calls, 1)

    def test_cli_login_through_the_browser_then_use_then_logout(self) -> None:
        browser = FakeBrowser()
        with tempfile.TemporaryDirectory() as home, \
                mock.patch.dict(os.environ, {"XDG_CONFIG_HOME": home}), \
                mock.patch.object(webbrowser, "get", return_value=browser):
            code, out, err = self.run_cli("login", "--http", self.server.url)
            browser.join()
            self.assertEqual((code, browser.landed), (0, [200]), err)
            self.assertIn("logged in", err)
            path = Path(home) / "mcp-client" / "tokens.json"
            self.assertEqual(stat.S_IMODE(path.stat().st_mode), 0o600)
            with mock.patch.object(webbrowser, "get", side_effect=webbrowser.Error("none")):
                code, out, err = self.run_cli("tools", "--http", self.server.url, "--auth",
                                              "oauth", "--json")
                self.assertEqual(code, 0, err)
                self.assertEqual([tool["name"] for tool in json.loads(out)], ["echo"])
                self.assertEqual(self.run_cli("logout", "--http", self.server.url)[0], 0)
                self.assertEqual(json.loads(path.read_text()), {})
                code, out, err = self.run_cli("tools", "--http", self.server.url, "--auth",
                                              "oauth")
            self.assertEqual(code, 5)
            self.assertIn("on_authorize=", err)
        self.assertEqual(self.server.stats()["grants"], {"authorization_code": 1})

    def test_auth_without_http_is_a_usage_error(self) -> None:
        self.assertEqual(self.run_cli("login", "--stdio", "x")[0], 2)
        self.assertEqual(self.run_cli("tools", "--stdio", "x", "--auth", "oauth")[0], 2)


class TestConfig(LiveCase):
    def test_an_oauth_entry_uses_the_tokens_of_an_earlier_login(self) -> None:
        from mcp_client import Registry

        browser = FakeBrowser()
        with tempfile.TemporaryDirectory() as home, \
                mock.patch.dict(os.environ, {"XDG_CONFIG_HOME": home}):
            with mock.patch.object(webbrowser, "get", return_value=browser):
                OAuth(storage=FileTokenStorage(Path(home) / "mcp-client" / "tokens.json"),
                      client_name="mcp-client").login(self.server.url)
                browser.join()
            config = {"mcpServers": {"safe": {"url": self.server.url, "oauth": True}}}
            with mock.patch.object(webbrowser, "get", side_effect=webbrowser.Error("none")):
                registry = Registry.from_config(config)
                try:
                    self.assertEqual(registry.failures, [])
                    names = [tool["function"]["name"] if "function" in tool else tool["name"]
                             for tool in registry.tools_for_llm()]
                finally:
                    registry.close()
        self.assertEqual(len(names), 1)
        self.assertTrue(names[0].endswith("echo"), names)
        self.assertEqual(self.server.stats()["grants"], {"authorization_code": 1})


class TestConfigValues(unittest.TestCase):
    def parse(self, oauth: Any, **environ: str) -> Any:
        from mcp_client.config import parse_config

        entry = {"url": "https://h/mcp", "oauth": oauth}
        return parse_config({"mcpServers": {"s": entry}}, environ=environ)[0]

    def test_true_an_object_and_variables(self) -> None:
        self.assertEqual(self.parse(True).oauth, {})
        self.assertIsNone(self.parse(False).oauth)
        entry = self.parse({"client_id": "${CID}", "client_secret": "${SECRET}",
                            "scopes": ["a", "b"], "callback_port": 8765},
                           CID="me", SECRET="hunter2")
        self.assertEqual(entry.oauth, {"client_id": "me", "client_secret": "hunter2",
                                       "scopes": ["a", "b"], "callback_port": 8765})
        self.assertNotIn("hunter2", repr(entry))
        self.assertIn("oauth", repr(entry))
        self.assertEqual(self.parse({"allow_private_network": True}).oauth,
                         {"allow_private_network": True})

    def test_bad_values_name_the_key(self) -> None:
        from mcp_client.config import ConfigError, parse_config

        for bad in ("yes", {"client": "x"}, {"scopes": "a b"}, {"callback_port": 0},
                    {"client_id": 3}, {"allow_private_network": "yes"}):
            with self.subTest(bad=bad), self.assertRaises(ConfigError) as caught:
                self.parse(bad)
            self.assertEqual((caught.exception.server, caught.exception.key), ("s", "oauth"))
        with self.assertRaises(ConfigError):
            parse_config({"mcpServers": {"s": {"command": "x", "oauth": True}}})


class TestDPoP(unittest.TestCase):
    def test_a_proof_names_the_request_binds_the_token_and_carries_the_nonce(self) -> None:
        import base64
        import hashlib

        import jwt

        from mcp_client.auth._dpop import DPoPKey

        key = DPoPKey()
        first = key.proof("post", "https://h:8/mcp?x=1#f", token="tok")
        key.remember_nonce("https://h:8/other", "n-1")
        second = key.proof("POST", "https://h:8/mcp", token="tok")
        header = jwt.get_unverified_header(first)
        self.assertEqual((header["typ"], header["alg"]), ("dpop+jwt", "ES256"))
        self.assertNotIn("d", header["jwk"])
        public = jwt.PyJWK(header["jwk"]).key
        claims = jwt.decode(first, public, algorithms=["ES256"])
        later = jwt.decode(second, public, algorithms=["ES256"])
        ath = base64.urlsafe_b64encode(hashlib.sha256(b"tok").digest()).rstrip(b"=").decode()
        self.assertEqual((claims["htm"], claims["htu"], claims["ath"]),
                         ("POST", "https://h:8/mcp", ath))
        self.assertNotIn("nonce", claims)
        self.assertEqual(later["nonce"], "n-1")
        self.assertNotEqual(claims["jti"], later["jti"])
        self.assertEqual(repr(key), "<DPoPKey ES256>")
