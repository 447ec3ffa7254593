"""Logging in as people do: twice in a row, with a browser that stays in the foreground, with none.

Against ``tests/servers/oauth_server.py`` (see ``test_auth.ProtectedServer``) and the real
loopback listener.  A second login at once must find its remembered port again although
the first left it in TIME_WAIT, and must not share a port another program listens on.
``mcp-client login`` runs as a process: with ``BROWSER`` set to ``foreground_browser.py``
(which, like w3m, returns only once the redirect page has answered), and with ``BROWSER``
a command that fails, where the test reads the printed URL, authorizes itself and pastes
the redirect address (or the code) on stdin.
"""

from __future__ import annotations

import json
import os
import queue
import shlex
import socket
import subprocess
import tempfile
import threading
import unittest
import webbrowser
from pathlib import Path
from typing import IO, Any
from unittest import mock
from urllib.parse import parse_qs, urlsplit

import requests

from mcp_client.auth import AuthError, MemoryTokenStorage, OAuth
from mcp_client.auth._flow import read_pasted
from mcp_client.auth._loopback import Loopback, launch_browser

from ..base import PYTHON, LeakCheckingTestCase
from ..tables import add_rows
from .test_auth import WAIT, LiveCase

REPO = Path(__file__).resolve().parents[2]
SCRIPT = Path(__file__).with_name("foreground_browser.py")
#: /proc/net/tcp's state number for TIME_WAIT (include/net/tcp_states.h).
TIME_WAIT = "06"


def time_wait_ports() -> set[int]:
    """Local ports of IPv4 TCP sockets in TIME_WAIT (Linux)."""
    ports = set()
    with open("/proc/net/tcp", encoding="ascii") as table:
        next(table)
        for line in table:
            fields = line.split()
            if fields[3] == TIME_WAIT:
                ports.add(int(fields[1].split(":")[1], 16))
    return ports


def redirect_port(authorization_url: str) -> int:
    redirect = parse_qs(urlsplit(authorization_url).query)["redirect_uri"][0]
    return int(urlsplit(redirect).port or 0)


class Tokens(MemoryTokenStorage):
    """Memory storage that can lose its tokens but keep the client registration."""

    def drop_tokens(self) -> None:
        for key in list(self._records):
            record = self.load(key) or {}
            record.pop("tokens", None)
            self.save(key, record)


class RecordingBrowser:
    """A ``webbrowser`` controller that follows each URL on a thread, as a user would.

    It reads the loopback's answer to the end before closing, so the listener's side
    closes first and its port is left in TIME_WAIT, as a real browser leaves it.
    """

    def __init__(self) -> None:
        self.opened: list[str] = []
        self.landed: list[int] = []
        self.threads: list[threading.Thread] = []

    def open(self, url: str, new: int = 0, autoraise: bool = True) -> bool:
        self.opened.append(url)
        thread = threading.Thread(target=self._visit, args=(url,), name="recording-browser")
        self.threads.append(thread)
        thread.start()
        return True

    def _visit(self, url: str) -> None:
        location = requests.get(url, allow_redirects=False, timeout=WAIT).headers["Location"]
        target = urlsplit(location)
        assert target.port is not None, location
        with socket.create_connection((target.hostname, target.port), timeout=WAIT) as conn:
            conn.sendall(f"GET {target.path}?{target.query} HTTP/1.1\r\nHost: {target.netloc}"
                         f"\r\nConnection: close\r\n\r\n".encode())
            answer = b""
            while chunk := conn.recv(4096):   # to the end: the listener closes first
                answer += chunk
        self.landed.append(int(answer.split()[1]))

    def join(self) -> None:
        for thread in self.threads:
            thread.join(WAIT)


class TestLoginTwice(LiveCase):
    def login(self, storage: Tokens) -> None:
        auth = OAuth(client_name="twice", storage=storage)
        try:
            auth.login(self.server.url)
        finally:
            auth.close()

    def first_login(self, storage: Tokens, browser: RecordingBrowser) -> int:
        self.login(storage)
        browser.join()
        port = redirect_port(browser.opened[0])
        if os.path.exists("/proc/net/tcp"):   # the precondition: the port is in TIME_WAIT
            self.assertIn(port, time_wait_ports())
        storage.drop_tokens()
        return port

    def test_a_second_login_at_once_listens_again_on_the_port_in_time_wait(self) -> None:
        storage, browser = Tokens(), RecordingBrowser()
        with mock.patch.object(webbrowser, "get", return_value=browser):
            port = self.first_login(storage, browser)
            self.login(storage)
            browser.join()
        self.assertEqual(redirect_port(browser.opened[1]), port)   # the same registration
        self.assertEqual(browser.landed, [200, 200])
        self.assertEqual(self.server.stats()["grants"], {"authorization_code": 2})

    def test_a_port_another_program_listens_on_is_not_shared_but_replaced(self) -> None:
        storage, browser = Tokens(), RecordingBrowser()
        with mock.patch.object(webbrowser, "get", return_value=browser):
            port = self.first_login(storage, browser)
            with socket.socket() as squatter:
                squatter.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                squatter.bind(("127.0.0.1", port))
                squatter.listen(8)
                self.login(storage)
                browser.join()
                squatter.setblocking(False)
                with self.assertRaises(BlockingIOError):   # no redirect reached it
                    squatter.accept()
        self.assertNotEqual(redirect_port(browser.opened[1]), port)
        self.assertEqual(browser.landed, [200, 200])
        self.assertEqual(self.server.stats()["grants"], {"authorization_code": 2})


class LoginProcess:
    """``python -m mcp_client login --http URL`` with its own token file and ``BROWSER``."""

    def __init__(self, url: str, home: str, browser: str, **extra: str) -> None:
        env = {**os.environ, "XDG_CONFIG_HOME": home, "BROWSER": browser,
               "PYTHONPATH": str(REPO), "FOREGROUND_BROWSER_LOG": str(Path(home) / "browser.log"),
               **extra}
        for name in ("DISPLAY", "WAYLAND_DISPLAY"):
            env.pop(name, None)
        self.home = Path(home)
        self.proc = subprocess.Popen([PYTHON, "-m", "mcp_client", "login", "--http", url],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, env=env)
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.err: list[str] = []
        self.reader = threading.Thread(target=self._read, args=(self.proc.stderr,),
                                       name="login-stderr")
        self.reader.start()

    def _read(self, stream: IO[str]) -> None:
        for line in stream:
            self.err.append(line)
            self.lines.put(line)
        self.lines.put(None)

    def line_with(self, text: str) -> str:
        """The first stderr line that contains ``text``."""
        while True:
            try:
                line = self.lines.get(timeout=WAIT)
            except queue.Empty:
                raise AssertionError(f"no line with {text!r} within {WAIT:g}s in "
                                     f"{''.join(self.err)!r}") from None
            if line is None:
                raise AssertionError(f"no line with {text!r} in {''.join(self.err)!r}")
            if text in line:
                return line

    def finish(self, stdin: str = "") -> tuple[int, str]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        try:
            if not self.proc.stdin.closed:
                self.proc.stdin.write(stdin)
                self.proc.stdin.close()
        except BrokenPipeError:
            pass
        try:
            code = self.proc.wait(timeout=WAIT * 2)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            self.reader.join(WAIT)
            self.proc.stdout.close()
        return code, "".join(self.err)

    def tokens(self) -> dict[str, Any]:
        records = json.loads((self.home / "mcp-client" / "tokens.json").read_text())
        return {key: record.get("tokens") for key, record in records.items()}

    def browser_log(self) -> list[str]:
        path = self.home / "browser.log"
        return path.read_text().splitlines() if path.exists() else []


class TestCommandLineLogin(LiveCase):
    def login(self, browser: str, **extra: str) -> LoginProcess:
        home = tempfile.TemporaryDirectory()
        self.addCleanup(home.cleanup)
        process = LoginProcess(self.server.url, home.name, browser, **extra)
        self.addCleanup(process.finish)   # its stdin closed: a lingering browser ends too
        return process

    def test_a_foreground_text_browser_is_answered_while_it_runs(self) -> None:
        process = self.login(f"{shlex.quote(PYTHON)} {shlex.quote(str(SCRIPT))} %s")
        code, err = process.finish()
        self.assertEqual(code, 0, err)
        self.assertIn("logged in", err)
        self.assertEqual(process.browser_log(), ["200 /callback"])
        self.assertEqual([bool(tokens and tokens.get("access_token"))
                          for tokens in process.tokens().values()], [True])
        self.assertEqual(self.server.stats()["grants"], {"authorization_code": 1})

    def test_login_returns_once_a_browser_in_the_terminal_is_quit(self) -> None:
        process = self.login(f"{shlex.quote(PYTHON)} {shlex.quote(str(SCRIPT))} %s",
                             FOREGROUND_BROWSER_LINGER="1")   # it stays until stdin ends
        process.line_with("logged in")
        process.line_with("quit it to return")
        self.assertIsNone(process.proc.poll())   # not gone from under the browser
        self.assertEqual(process.browser_log(), ["200 /callback"])
        code, err = process.finish()   # stdin ends: the person quits the browser
        self.assertEqual(code, 0, err)

    def check_paste(self, label: str, paste: str, code: int, said: str) -> None:
        process = self.login("false")   # a browser command that fails at once
        url = process.line_with("/authorize?").strip()
        self.assertTrue(url.startswith(self.server.issuer + "/authorize?"), url)
        location = requests.get(url, allow_redirects=False, timeout=WAIT).headers["Location"]
        got = parse_qs(urlsplit(location).query)
        pasted = paste.format(location=location, code=got["code"][0],
                              wrong=location.replace("state=", "state=x"))
        exit_code, err = process.finish(pasted)
        self.assertEqual(exit_code, code, err)
        self.assertIn(said, err)
        grants = {"authorization_code": 1} if code == 0 else {}
        self.assertEqual(self.server.stats()["grants"], grants)


add_rows(TestCommandLineLogin, "no_browser", [
    ("the redirect address pasted", "{location}\n", 0, "logged in"),
    ("the bare code pasted", "{code}\n", 0, "logged in"),
    ("an address with another state is refused", "{wrong}\n", 5, "state does not match"),
    ("nothing pasted before stdin ends", "", 5, "nothing was pasted"),
], TestCommandLineLogin.check_paste)


ISSUER = "http://127.0.0.1:9000"
BACK = "http://127.0.0.1:5000/callback?"


class TestPasted(unittest.TestCase):
    def check(self, label: str, pasted: str, supported: bool, code: str | None,
              said: str) -> None:
        def read() -> str:
            return read_pasted(pasted, state="s1", issuer=ISSUER, iss_supported=supported)

        if code is not None:
            self.assertEqual(read(), code)
            return
        with self.assertRaises(AuthError) as caught:
            read()
        self.assertIn(said, caught.exception.reason)
        self.assertNotIn("c0de", caught.exception.reason)


add_rows(TestPasted, "paste", [
    ("the redirect address", f"{BACK}code=c0de&state=s1&iss={ISSUER}", True, "c0de", ""),
    ("the address with a newline", f" {BACK}code=c0de&state=s1&iss={ISSUER}\n", True, "c0de",
     ""),
    ("the query alone", f"code=c0de&state=s1&iss={ISSUER}", True, "c0de", ""),
    ("the query with its question mark", f"?code=c0de&state=s1&iss={ISSUER}", True, "c0de", ""),
    ("the bare code", "c0de\n", True, "c0de", ""),
    ("a bare code with URL characters", "4/0Ab-c_d.e~f", True, "4/0Ab-c_d.e~f", ""),
    ("an address with another state", f"{BACK}code=c0de&state=s2&iss={ISSUER}", True, None,
     "state does not match"),
    ("an address with no state", f"{BACK}code=c0de&iss={ISSUER}", True, None,
     "state does not match"),
    ("a query with another state", f"code=c0de&state=s2&iss={ISSUER}", True, None,
     "state does not match"),
    ("an address from another issuer", f"{BACK}code=c0de&state=s1&iss=http://evil", True,
     None, "came from the issuer"),
    ("an address without the promised iss", f"{BACK}code=c0de&state=s1", True, None,
     "promised an iss"),
    ("a declined authorization", f"{BACK}error=access_denied&state=s1&iss={ISSUER}", True,
     None, "refused"),
    ("nothing", "  \n", True, None, "nothing was pasted"),
    ("words with spaces", "c0de and more", True, None, "neither the address"),
    ("a control character", "c0de\x1b[2J", True, None, "neither the address"),
], TestPasted.check)


class TestOptions(unittest.TestCase):
    def test_on_no_browser_with_on_authorize_is_refused(self) -> None:
        with self.assertRaises(AuthError) as caught:
            OAuth(on_authorize=str, on_no_browser=str)
        self.assertIn("on_authorize=", caught.exception.reason)


class TestInterrupt(LeakCheckingTestCase):
    def test_an_interrupt_before_the_wait_ends_it_with_none(self) -> None:
        listener = Loopback(0, timeout=WAIT)
        self.addCleanup(listener.close)
        listener.interrupt()
        self.assertIsNone(listener.wait("s1"))
        listener.close()
        listener.interrupt()   # harmless once closed

    def test_a_redirect_already_waiting_wins_over_an_interrupt(self) -> None:
        listener = Loopback(0, timeout=WAIT)
        self.addCleanup(listener.close)
        with socket.create_connection(("127.0.0.1", listener.port), timeout=WAIT) as conn:
            conn.sendall(b"GET /callback?code=c&state=s1 HTTP/1.1\r\nHost: x\r\n\r\n")
            listener.interrupt()
            self.assertEqual(listener.wait("s1"), listener.redirect_uri + "?code=c&state=s1")
            self.assertIn(b" 200 OK", conn.recv(4096))

    def test_a_failing_browser_command_interrupts_the_wait(self) -> None:
        listener = Loopback(0, timeout=WAIT)
        self.addCleanup(listener.close)
        with mock.patch.object(webbrowser, "get",
                               return_value=webbrowser.GenericBrowser(["false"])):
            thread = launch_browser(listener.redirect_uri, listener.interrupt)
            self.assertIsNone(listener.wait("s1"))
        thread.join(WAIT)
        self.assertFalse(thread.is_alive())
