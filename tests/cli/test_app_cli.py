"""``mcp-client app TOOL [JSON]`` run in process on ``examples/servers/counter_app.py``.

:class:`AppCommandTest` plays the browser's part with plain HTTP (the page's
relay is a POST), so the command's whole path -- connect with ``apps=True``,
call, read the view, serve, relay to the bridge, stop on the page's beacon --
is measured without a browser.  :class:`CounterInBrowserTest` is the issue's
test in headless Chromium: the view's button clicked inside the iframe, the
count shown changes, the server saw exactly one ``increment``; with a Policy
rule denying it, the view shows the refusal and the server saw none.  The
server notes each ``increment`` it runs in the file given by ``--log``.
"""

from __future__ import annotations

import http.client
import io
import json
import os
import re
import shlex
import sys
import tempfile
import threading
import urllib.parse
from pathlib import Path
from typing import Any
from unittest import mock

from mcp_client.cli import EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, main
from mcp_client.cli._app import graphical_browser_possible
from mcp_client.cli._viewer import SESSION_HEADER, Viewer

from ..base import LeakCheckingTestCase
from .test_app_browser import PATIENCE, BrowserCase

ROOT = Path(__file__).resolve().parents[2]
COUNTER = ROOT / "examples" / "servers" / "counter_app.py"
QUICKSTART = ROOT / "examples" / "servers" / "quickstart_server.py"
VIEW_SERVER = ROOT / "tests" / "servers" / "view_server.py"


class Lines(io.StringIO):
    """A stdout that signals its first full line."""

    def __init__(self) -> None:
        super().__init__()
        self.first_line = threading.Event()

    def write(self, text: str) -> int:
        written = super().write(text)
        if "\n" in self.getvalue():
            self.first_line.set()
        return written


class Command:
    """``main(argv)`` on a thread of its own, its streams kept."""

    def __init__(self, case: LeakCheckingTestCase, argv: list[str]) -> None:
        self.stdout, self.stderr = Lines(), io.StringIO()
        self.codes: list[int] = []
        self.thread = threading.Thread(target=self._run, args=(argv,), name="mcp-client app")
        self.thread.start()
        case.addCleanup(self.thread.join, PATIENCE)

    def _run(self, argv: list[str]) -> None:
        self.codes.append(main(argv, stdin=io.StringIO(), stdout=self.stdout,
                               stderr=self.stderr))

    def url(self) -> str:
        if not self.stdout.first_line.wait(PATIENCE):
            raise AssertionError(f"no address printed; stderr: {self.stderr.getvalue()}")
        return self.stdout.getvalue().splitlines()[0]

    def finished(self) -> int:
        self.thread.join(PATIENCE)
        if self.thread.is_alive():
            raise AssertionError("the command did not stop")
        return self.codes[0]


class AppCase(LeakCheckingTestCase):
    def setUp(self) -> None:
        super().setUp()
        folder = tempfile.TemporaryDirectory(prefix="mcp-counter-")
        self.addCleanup(folder.cleanup)
        self.folder = Path(folder.name)
        self.log = self.folder / "increments"

    def counter(self) -> str:
        return f"{sys.executable} {COUNTER} --log {self.log}"

    def increments(self) -> list[str]:
        return self.log.read_text().splitlines() if self.log.exists() else []

    def start(self, *options: str, tool: str = "show_counter") -> Command:
        return Command(self, ["app", "--no-open", "--stdio", self.counter(), *options, tool])

    def rules(self, rules: Any, name: str = "rules.json") -> str:
        path = self.folder / name
        path.write_text(rules if isinstance(rules, str) else json.dumps(rules))
        return str(path)


def _exchange(url: str, method: str, path: str, body: Any = None,
              headers: dict[str, str] | None = None) -> tuple[int, bytes]:
    where = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection("127.0.0.1", where.port, timeout=PATIENCE)
    try:
        data = None if body is None else json.dumps(body).encode()
        connection.request(method, path, body=data, headers=headers or {})
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def _view(page: Page) -> tuple[int, http.client.HTTPMessage, str]:
    where = urllib.parse.urlsplit(page.url)
    connection = http.client.HTTPConnection("127.0.0.1", where.port, timeout=PATIENCE)
    try:
        connection.request("GET", page.config["view"])
        response = connection.getresponse()
        return response.status, response.headers, response.read().decode()
    finally:
        connection.close()


class Page:
    """What the host page does, over plain HTTP: load, relay, close."""

    def __init__(self, url: str) -> None:
        self.url = url
        where = urllib.parse.urlsplit(url)
        status, body = _exchange(url, "GET", f"{where.path}?{where.query}")
        if status != 200:
            raise AssertionError(f"the page answered {status}")
        found = re.search(rb'id="config">(.*?)</script>', body)
        assert found is not None
        self.config = json.loads(found.group(1))
        self.html = body.decode()

    def view(self) -> str:
        status, body = _exchange(self.url, "GET", self.config["view"])
        assert status == 200, status
        return body.decode()

    def send(self, message: dict[str, Any]) -> dict[str, Any]:
        status, body = _exchange(self.url, "POST", "/rpc", message,
                                 {SESSION_HEADER: self.config["session"]})
        assert status == 200, status
        answer: dict[str, Any] = json.loads(body)
        return answer

    def close(self) -> None:
        path = "/close?session=" + urllib.parse.quote(self.config["session"])
        _exchange(self.url, "POST", path, {})


INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "ui/initialize",
              "params": {"protocolVersion": "2026-01-26", "appCapabilities": {},
                         "appInfo": {"name": "test", "version": "1"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "ui/notifications/initialized", "params": {}}
INCREMENT = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
             "params": {"name": "increment", "arguments": {}}}


class AppCommandTest(AppCase):
    def test_the_view_is_served_and_its_calls_reach_the_server(self) -> None:
        command = self.start()
        url = command.url()
        self.assertRegex(url, r"^http://127\.0\.0\.1:\d+/\?token=[\w-]{40,}$")
        page = Page(url)
        self.assertIn("<title>show_counter on counter-app</title>", page.html)
        self.assertIn('id="increment"', page.view())
        initialized = page.send(INITIALIZE)["reply"]["result"]
        self.assertEqual(initialized["hostInfo"]["name"], "mcp_client")
        self.assertEqual(initialized["hostContext"]["toolInfo"]["tool"]["name"], "show_counter")
        pushed = page.send(INITIALIZED)
        self.assertIsNone(pushed["reply"])
        self.assertEqual([m["method"] for m in pushed["push"]],
                         ["ui/notifications/tool-input", "ui/notifications/tool-result"])
        self.assertEqual(pushed["push"][1]["params"]["structuredContent"], {"count": 0})
        reply = page.send(INCREMENT)["reply"]
        self.assertEqual(reply["result"]["structuredContent"], {"count": 1})
        self.assertEqual(self.increments(), ["increment 1"])
        page.close()
        self.assertEqual(command.finished(), EXIT_OK)
        self.assertIn("stopped (page closed)", command.stderr.getvalue())

    def test_the_server_may_come_from_a_config_file(self) -> None:
        config = self.folder / "mcp.json"
        config.write_text(json.dumps({"mcpServers": {
            "counter": {"command": sys.executable, "args": [str(COUNTER), "--log", str(self.log)]},
            "other": {"command": "/nonexistent/server"}}}))
        command = Command(self, ["app", "--no-open", "--config", str(config), "--server",
                                 "counter", "show_counter"])
        page = Page(command.url())
        self.assertIn("<title>show_counter on counter</title>", page.html)
        page.send(INITIALIZE)
        self.assertEqual(page.send(INCREMENT)["reply"]["result"]["structuredContent"],
                         {"count": 1})
        self.assertEqual(self.increments(), ["increment 1"])
        page.close()
        self.assertEqual(command.finished(), EXIT_OK)

    def test_a_deny_rule_refuses_the_views_call_before_the_server(self) -> None:
        rules = self.rules([{"tool": "increment", "decision": "deny", "note": "not today"},
                            {"tool": "*", "decision": "allow"}])
        command = self.start("--rules", rules, "--json")
        printed = json.loads(command.url())
        self.assertEqual(list(printed), ["url"])
        page = Page(printed["url"])
        page.send(INITIALIZE)
        error = page.send(INCREMENT)["reply"]["error"]
        self.assertIn("not today", error["message"])
        self.assertEqual(self.increments(), [])
        page.close()
        self.assertEqual(command.finished(), EXIT_OK)

    def test_the_browser_is_opened_unless_no_open(self) -> None:
        opened: list[str] = []

        def no_browser(url: str) -> bool:
            opened.append(url)
            return False

        display = {"DISPLAY": ":0", "WAYLAND_DISPLAY": "", "BROWSER": ""}
        with mock.patch("webbrowser.open", side_effect=no_browser), \
                mock.patch.dict(os.environ, display), mock.patch.object(sys, "platform", "linux"):
            command = Command(self, ["app", "--stdio", self.counter(), "show_counter"])
            url = command.url()
            Page(url).close()
            self.assertEqual(command.finished(), EXIT_OK)
        self.assertEqual(opened, [url])
        self.assertIn("no browser could be opened here", command.stderr.getvalue())

    def test_no_text_browser_is_started_without_a_display(self) -> None:
        opened: list[str] = []
        headless = {"DISPLAY": "", "WAYLAND_DISPLAY": "", "BROWSER": ""}
        with mock.patch("webbrowser.open", side_effect=opened.append), \
                mock.patch.dict(os.environ, headless), mock.patch.object(sys, "platform", "linux"):
            command = Command(self, ["app", "--stdio", self.counter(), "show_counter"])
            Page(command.url()).close()
            self.assertEqual(command.finished(), EXIT_OK)
        self.assertEqual(opened, [])
        self.assertIn("no graphical display here", command.stderr.getvalue())

    def test_the_view_may_talk_but_opens_no_link(self) -> None:
        command = self.start()
        page = Page(command.url())
        said = page.send({"jsonrpc": "2.0", "id": 5, "method": "ui/message",
                          "params": {"role": "user", "content": [{"type": "text",
                                                                  "text": "hello"}]}})
        self.assertEqual(said["reply"]["result"], {})
        link = page.send({"jsonrpc": "2.0", "id": 6, "method": "ui/open-link",
                          "params": {"url": "https://example.com/x"}})
        self.assertIn("error", link["reply"])
        page.close()
        self.assertEqual(command.finished(), EXIT_OK)
        stderr = command.stderr.getvalue()
        self.assertIn('the view says: {"role": "user"', stderr)
        self.assertIn("the view asked to open https://example.com/x; not opened", stderr)

    def test_ctrl_c_stops_the_viewer_and_the_server(self) -> None:
        with mock.patch.object(Viewer, "wait", side_effect=KeyboardInterrupt):
            code = main(["app", "--no-open", "--stdio", self.counter(), "show_counter"],
                        stdin=io.StringIO(), stdout=io.StringIO(), stderr=io.StringIO())
        self.assertEqual(code, EXIT_INTERRUPTED)

    def test_a_tool_without_a_view_is_a_usage_error(self) -> None:
        stderr = io.StringIO()
        code = main(["app", "--no-open", "--stdio", f"{sys.executable} {QUICKSTART}", "echo",
                     '{"text": "hi"}'], stdin=io.StringIO(), stdout=io.StringIO(),
                    stderr=stderr)
        self.assertEqual(code, EXIT_USAGE, stderr.getvalue())
        self.assertIn("tool 'echo' has no view", stderr.getvalue())
        self.assertIn("use: call echo", stderr.getvalue())

    def test_bad_rules_are_a_usage_error(self) -> None:
        cases = {"cannot read": str(self.folder / "missing.json"),
                 "is not JSON": self.rules("{nope", "bad.json"),
                 "must hold a JSON list": self.rules({"tool": "x"}, "dict.json"),
                 "decision": self.rules([{"tool": "x", "decision": "maybe"}], "rule.json")}
        for said, path in cases.items():
            with self.subTest(said):
                stderr = io.StringIO()
                # A bad file is found before the server is started: this one is never run.
                code = main(["app", "--no-open", "--stdio", "/nonexistent/server", "--rules",
                             path, "show_counter"], stdin=io.StringIO(), stdout=io.StringIO(),
                            stderr=stderr)
                self.assertEqual(code, EXIT_USAGE, stderr.getvalue())
                self.assertIn("--rules", stderr.getvalue())
                self.assertIn(said, stderr.getvalue())

    def test_the_views_csp_and_permissions_reach_the_page(self) -> None:
        command = Command(self, ["app", "--no-open", "--stdio",
                                 f"{sys.executable} {VIEW_SERVER}", "show_page"])
        page = Page(command.url())
        self.assertIn('allow="camera"', page.html)
        status, headers, body = _view(page)
        self.assertEqual(status, 200)
        self.assertIn("id='page'", body)
        self.assertIn("connect-src https://api.example.com;", headers["Content-Security-Policy"])
        page.close()
        self.assertEqual(command.finished(), EXIT_OK)
        self.assertIn("warning: the view's CSP origin connectDomains: '*' is not a plain "
                      "origin; left out", command.stderr.getvalue())


class GraphicalBrowserTest(LeakCheckingTestCase):
    def test_which_systems_can_show_the_page(self) -> None:
        cases = [("linux", {}, False), ("linux", {"DISPLAY": ":0"}, True),
                 ("linux", {"WAYLAND_DISPLAY": "wayland-0"}, True),
                 ("linux", {"BROWSER": "firefox"}, True), ("darwin", {}, True),
                 ("win32", {}, True), ("freebsd14", {}, False)]
        for platform, variables, expected in cases:
            with self.subTest(platform=platform, variables=variables):
                environ = {"DISPLAY": "", "WAYLAND_DISPLAY": "", "BROWSER": "", **variables}
                with mock.patch.dict(os.environ, environ), \
                        mock.patch.object(sys, "platform", platform):
                    self.assertIs(graphical_browser_possible(), expected)


class CounterInBrowserTest(AppCase, BrowserCase):
    def finish(self, command: Command) -> None:
        self.leave_page()
        self.assertEqual(command.finished(), EXIT_OK, command.stderr.getvalue())
        self.assertIn("stopped (page closed)", command.stderr.getvalue())

    def test_a_click_in_the_view_increments_the_servers_counter_once(self) -> None:
        command = self.start()
        self.browser.get(command.url())
        self.enter_view()
        self.shown("count", "0")
        self.click("increment")
        self.shown("count", "1")
        self.assertEqual(self.increments(), ["increment 1"])
        self.finish(command)

    def test_a_deny_rule_shows_the_refusal_and_the_server_sees_none(self) -> None:
        from selenium.webdriver.common.by import By
        from selenium.webdriver.support.ui import WebDriverWait

        command = self.start("--rules", self.rules([
            {"tool": "increment", "decision": "deny", "note": "no counting today"},
            {"tool": "*", "decision": "allow"}]))
        self.browser.get(command.url())
        self.enter_view()
        self.shown("count", "0")
        self.click("increment")
        WebDriverWait(self.browser, PATIENCE).until(
            lambda browser: browser.find_element(By.ID, "error").text)
        self.assertIn("no counting today", self.browser.find_element(By.ID, "error").text)
        self.assertEqual(self.browser.find_element(By.ID, "count").text, "0")
        self.assertEqual(self.increments(), [])
        self.finish(command)


#: The README's one command for the counter's view.
README_COMMAND = 'mcp-client app show_counter --stdio "python examples/servers/counter_app.py"'


class ReadmeCommandTest(AppCase):
    def test_the_readmes_command_serves_the_counters_view(self) -> None:
        readme = (ROOT / "README.rst").read_text(encoding="utf-8")
        self.assertIn(f"\n    {README_COMMAND}\n", readme)
        self.assertIn(f"\n    {README_COMMAND}\n", COUNTER.read_text(encoding="utf-8"),
                      "the example's docstring says the same")
        program, *argv = shlex.split(README_COMMAND)
        self.assertEqual(program, "mcp-client")
        # This interpreter for "python", and the checkout's examples from any folder.
        argv = [word.replace("python examples/", f"{sys.executable} {ROOT}/examples/")
                for word in argv]
        command = Command(self, [*argv, "--no-open"])
        page = Page(command.url())
        page.send(INITIALIZE)
        self.assertEqual(page.send(INITIALIZED)["push"][1]["params"]["structuredContent"],
                         {"count": 0})
        self.assertEqual(page.send(INCREMENT)["reply"]["result"]["structuredContent"],
                         {"count": 1})
        page.close()
        self.assertEqual(command.finished(), EXIT_OK)
