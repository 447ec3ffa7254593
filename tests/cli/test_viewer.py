"""The host page server of ``mcp-client app`` (mcp_client.cli._viewer), in process.

A recording bridge stands in for :class:`mcp_client.apps.AppBridge`: these tests are
about the door (tokens), the relay (a POST reaches ``handle`` and its answer comes
back), the view's headers (CSP from the resource) and stopping (beacon, heartbeat,
no thread left behind).  The browser's side is tests/cli/test_app_browser.py.
"""

from __future__ import annotations

import http.client
import json
import re
import threading
import urllib.parse
from dataclasses import dataclass, field
from typing import Any
from unittest import mock

from mcp_client.cli._viewer import SESSION_HEADER, MAX_MESSAGE, Viewer, frame_allow, view_csp

from ..base import LeakCheckingTestCase, of_type

SPEC_DEFAULT = ("default-src 'none'; script-src 'self' 'unsafe-inline'; "
                "style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
                "media-src 'self' data:; font-src 'self'; connect-src 'none'; frame-src 'none'; "
                "base-uri 'self'; object-src 'none'; form-action 'none'")


class RecordingBridge:
    """Answers every request with ``{"echo": method}``; notifications with None."""

    def __init__(self, fail: bool = False) -> None:
        self.seen: list[dict[str, Any]] = []
        self.fail = fail

    def handle(self, message: dict[str, Any]) -> dict[str, Any] | None:
        self.seen.append(message)
        if self.fail:
            raise RuntimeError("the bridge broke")
        if "id" not in message:
            return None
        return {"jsonrpc": "2.0", "id": message["id"], "result": {"echo": message["method"]}}

    def tool_input(self, arguments: dict[str, Any]) -> dict[str, Any]:
        return {"jsonrpc": "2.0", "method": "ui/notifications/tool-input",
                "params": {"arguments": arguments}}

    def tool_result(self, result: dict[str, Any]) -> dict[str, Any]:
        return {"jsonrpc": "2.0", "method": "ui/notifications/tool-result", "params": result}


@dataclass
class View:
    html: str = "<!DOCTYPE html><p id='hello'>hello</p>"
    uri: str = "ui://test/view.html"
    csp: dict[str, Any] | None = None
    permissions: dict[str, Any] | None = None
    meta: dict[str, Any] = field(default_factory=dict)


class Answer:
    def __init__(self, status: int, headers: http.client.HTTPMessage, body: bytes) -> None:
        self.status, self.headers, self.body = status, headers, body

    def json(self) -> Any:
        return json.loads(self.body)


class ViewerCase(LeakCheckingTestCase):
    def open_viewer(self, bridge: Any = None, view: View | None = None,
                    **options: Any) -> Viewer:
        options.setdefault("arguments", {"start": 1})
        options.setdefault("result", {"content": [], "structuredContent": {"count": 1}})
        viewer = Viewer(bridge or RecordingBridge(), view or View(), **options).start()
        self.addCleanup(viewer.close)
        return viewer

    def request(self, viewer: Viewer, method: str, path: str, body: Any = None,
                headers: dict[str, str] | None = None) -> Answer:
        connection = http.client.HTTPConnection("127.0.0.1", viewer.port, timeout=10)
        try:
            data = body if isinstance(body, bytes) or body is None else json.dumps(body).encode()
            connection.request(method, path, body=data, headers=headers or {})
            response = connection.getresponse()
            return Answer(response.status, response.headers, response.read())
        finally:
            connection.close()

    def load_page(self, viewer: Viewer) -> tuple[Answer, dict[str, Any]]:
        """GET the page with its token; (the answer, the page's configuration)."""
        path = viewer.url[len(viewer.origin):]
        answer = self.request(viewer, "GET", path)
        self.assertEqual(answer.status, 200, answer.body)
        found = re.search(rb'<script type="application/json" id="config">(.*?)</script>',
                          answer.body)
        assert found is not None
        return answer, of_type(json.loads(found.group(1)), dict)

    def rpc(self, viewer: Viewer, session: str, message: Any) -> Answer:
        return self.request(viewer, "POST", "/rpc", message,
                            {SESSION_HEADER: session, "Content-Type": "application/json"})


class TokenTest(ViewerCase):
    def test_the_page_needs_its_one_time_token(self) -> None:
        viewer = self.open_viewer()
        url = urllib.parse.urlsplit(viewer.url)
        self.assertEqual((url.scheme, url.hostname, url.path), ("http", "127.0.0.1", "/"))
        token = urllib.parse.parse_qs(url.query)["token"][0]
        self.assertGreaterEqual(len(token), 40)
        for path in ("/", "/?token=", "/?token=wrong", f"/?token={token[:-1]}",
                     "/?token=%C3%A9t%C3%A9", "/favicon.ico", "/view/", "/view/guess"):
            with self.subTest(path=path):
                self.assertEqual(self.request(viewer, "GET", path).status, 403)
        answer, config = self.load_page(viewer)
        self.assertIn("text/html", answer.headers["Content-Type"])
        self.assertEqual(answer.headers["Cache-Control"], "no-store")
        self.assertEqual(answer.headers["Referrer-Policy"], "no-referrer")
        self.assertIn("frame-ancestors 'none'", answer.headers["Content-Security-Policy"])
        frames = re.findall(rb"<iframe[^>]*>", answer.body)
        self.assertEqual(len(frames), 1)
        self.assertEqual(re.findall(rb'sandbox="([^"]*)"', frames[0]), [b"allow-scripts"])
        self.assertNotIn(b"allow-same-origin", answer.body)
        self.assertNotIn(token.encode(), answer.body)
        self.assertEqual(self.request(viewer, "GET", f"/?token={token}").status, 403,
                         "the token is single-use")
        self.assertEqual(viewer.url, "")
        self.assertEqual(sorted(config), ["header", "heartbeat", "session", "view"])
        self.assertNotEqual(config["session"], token)

    def test_another_host_name_is_refused_even_with_the_token(self) -> None:
        viewer = self.open_viewer()
        path = viewer.url[len(viewer.origin):]
        for host in ("evil.example", f"evil.example:{viewer.port}", "127.0.0.1:1", ""):
            with self.subTest(host=host):
                self.assertEqual(self.request(viewer, "GET", path, headers={"Host": host}).status,
                                 403)
        self.assertEqual(self.request(viewer, "POST", "/rpc", b"{}",
                                      {"Host": "evil.example"}).status, 403)
        answer = self.request(viewer, "GET", path, headers={"Host": f"localhost:{viewer.port}"})
        self.assertEqual(answer.status, 200, "the token was not spent by the refusals")

    def test_a_request_that_breaks_is_logged_not_printed(self) -> None:
        viewer = self.open_viewer()
        with self.assertLogs("mcp_client.cli._viewer", "DEBUG") as logs:
            try:
                raise BrokenPipeError("the browser hung up")
            except BrokenPipeError:
                viewer._server.handle_error(None, ("127.0.0.1", 1))
        self.assertIn("BrokenPipeError: the browser hung up", logs.output[0])

    def test_two_viewers_have_different_tokens(self) -> None:
        first, second = self.open_viewer(), self.open_viewer()
        self.assertNotEqual(first.url.split("token=")[1], second.url.split("token=")[1])
        self.assertNotEqual(first.port, second.port)

    def test_the_view_is_served_once_under_its_csp(self) -> None:
        view = View(csp={"connectDomains": ["https://api.example.com"]})
        viewer = self.open_viewer(view=view)
        _, config = self.load_page(viewer)
        answer = self.request(viewer, "GET", config["view"])
        self.assertEqual(answer.status, 200)
        self.assertEqual(answer.body.decode(), view.html)
        self.assertEqual(answer.headers["Content-Security-Policy"], view_csp(view.csp))
        self.assertIn("connect-src https://api.example.com;",
                      answer.headers["Content-Security-Policy"])
        self.assertEqual(self.request(viewer, "GET", config["view"]).status, 403)

    def test_posts_need_the_session_of_a_loaded_page(self) -> None:
        bridge = RecordingBridge()
        viewer = self.open_viewer(bridge)
        ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
        self.assertEqual(self.rpc(viewer, "anything", ping).status, 403)
        _, config = self.load_page(viewer)
        for session in ("", "wrong", config["session"] + "x"):
            with self.subTest(session=session):
                self.assertEqual(self.rpc(viewer, session, ping).status, 403)
        self.assertEqual(self.request(viewer, "POST", "/close").status, 403)
        self.assertEqual(bridge.seen, [])
        self.assertFalse(viewer.closed.is_set())


class RelayTest(ViewerCase):
    def test_a_request_reaches_the_bridge_and_its_reply_comes_back(self) -> None:
        bridge = RecordingBridge()
        viewer = self.open_viewer(bridge)
        _, config = self.load_page(viewer)
        message = {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                   "params": {"name": "increment", "arguments": {}}}
        answer = self.rpc(viewer, config["session"], message)
        self.assertEqual(answer.status, 200)
        self.assertEqual(answer.headers["Content-Type"], "application/json")
        self.assertEqual(answer.json(), {"reply": {"jsonrpc": "2.0", "id": 7,
                                                   "result": {"echo": "tools/call"}},
                                         "push": []})
        self.assertEqual(bridge.seen, [message])

    def test_initialized_is_answered_with_the_tool_input_and_result_once(self) -> None:
        viewer = self.open_viewer(arguments={"start": 3},
                                  result={"content": [{"type": "text", "text": "3"}],
                                          "structuredContent": {"count": 3}, "_meta": {"k": 1}})
        _, config = self.load_page(viewer)
        initialized = {"jsonrpc": "2.0", "method": "ui/notifications/initialized"}
        first = self.rpc(viewer, config["session"], initialized).json()
        self.assertIsNone(first["reply"])
        self.assertEqual(first["push"], [
            {"jsonrpc": "2.0", "method": "ui/notifications/tool-input",
             "params": {"arguments": {"start": 3}}},
            {"jsonrpc": "2.0", "method": "ui/notifications/tool-result",
             "params": {"content": [{"type": "text", "text": "3"}],
                        "structuredContent": {"count": 3}, "_meta": {"k": 1}}}])
        self.assertEqual(self.rpc(viewer, config["session"], initialized).json(),
                         {"reply": None, "push": []})

    def test_a_bridge_that_raises_answers_the_view_with_an_error(self) -> None:
        viewer = self.open_viewer(RecordingBridge(fail=True))
        _, config = self.load_page(viewer)
        answer = self.rpc(viewer, config["session"], {"jsonrpc": "2.0", "id": "a",
                                                      "method": "ping"})
        self.assertEqual(answer.json(), {"reply": {
            "jsonrpc": "2.0", "id": "a",
            "error": {"code": -32603, "message": "RuntimeError: the bridge broke"}},
            "push": []})
        note = self.rpc(viewer, config["session"], {"jsonrpc": "2.0", "method": "x/y"})
        self.assertEqual(note.json(), {"reply": None, "push": []})
        self.assertFalse(viewer.closed.is_set())

    def test_a_bridge_that_cannot_make_the_notifications_leaves_the_view_waiting(self) -> None:
        bridge = RecordingBridge()
        viewer = self.open_viewer(bridge)
        _, config = self.load_page(viewer)
        with mock.patch.object(bridge, "tool_result", side_effect=ValueError("no result")), \
                self.assertLogs("mcp_client.cli._viewer", "WARNING") as logs:
            answer = self.rpc(viewer, config["session"],
                              {"jsonrpc": "2.0", "method": "ui/notifications/initialized"})
        self.assertEqual(answer.json(), {"reply": None, "push": []})
        self.assertIn("ValueError: no result", "\n".join(logs.output))

    def test_bodies_that_are_not_a_message_are_refused(self) -> None:
        viewer = self.open_viewer()
        _, config = self.load_page(viewer)
        headers = {SESSION_HEADER: config["session"]}
        self.assertEqual(self.request(viewer, "POST", "/rpc", b"{not json", headers).status, 400)
        self.assertEqual(self.request(viewer, "POST", "/rpc", b"[1]", headers).status, 400)
        self.assertEqual(self.request(viewer, "POST", "/elsewhere", b"{}", headers).status, 404)
        big = {**headers, "Content-Length": str(MAX_MESSAGE + 1)}
        connection = http.client.HTTPConnection("127.0.0.1", viewer.port, timeout=10)
        self.addCleanup(connection.close)
        connection.putrequest("POST", "/rpc")
        for name, value in big.items():
            connection.putheader(name, value)
        connection.endheaders()
        self.assertEqual(connection.getresponse().status, 413)


class StoppingTest(ViewerCase):
    def test_the_close_beacon_ends_the_wait(self) -> None:
        viewer = self.open_viewer()
        _, config = self.load_page(viewer)
        self.assertFalse(viewer.wait(0.05))
        path = "/close?session=" + urllib.parse.quote(config["session"])
        self.assertEqual(self.request(viewer, "POST", path, b"").status, 200)
        self.assertTrue(viewer.wait(10))
        self.assertEqual(viewer.reason, "page closed")

    def test_a_lost_heartbeat_ends_the_wait_once_the_page_loaded(self) -> None:
        viewer = self.open_viewer(heartbeat=0.05, heartbeat_timeout=0.3)
        self.assertFalse(viewer.wait(0.5), "no page yet: nothing to lose")
        _, config = self.load_page(viewer)
        beat = self.request(viewer, "POST", "/heartbeat", b"{}",
                            {SESSION_HEADER: config["session"]})
        self.assertEqual((beat.status, beat.json()), (200, {}))
        self.assertTrue(viewer.wait(10))
        self.assertEqual(viewer.reason, "heartbeat lost")

    def test_close_stops_serving_and_leaves_no_thread(self) -> None:
        before = set(threading.enumerate())
        viewer = Viewer(RecordingBridge(), View(), arguments=None, result={})
        with viewer:
            self.load_page(viewer)
            idle = http.client.HTTPConnection("127.0.0.1", viewer.port, timeout=10)
            idle.connect()   # a connection that never sends a request
            self.addCleanup(idle.close)
        self.assertTrue(viewer.closed.is_set())
        self.assertEqual(set(threading.enumerate()) - before, set())
        viewer.close()   # idempotent
        with self.assertRaises(OSError):
            self.request(viewer, "GET", "/")

    def test_a_waiter_interrupted_by_close_on_another_thread_returns(self) -> None:
        viewer = self.open_viewer()
        done = threading.Event()

        def wait() -> None:
            viewer.wait()
            done.set()

        waiter = threading.Thread(target=wait)
        waiter.start()
        viewer.close()
        waiter.join(10)
        self.assertTrue(done.is_set())


class CspTest(LeakCheckingTestCase):
    def test_no_csp_is_the_spec_default(self) -> None:
        self.assertEqual(view_csp(None), SPEC_DEFAULT)
        self.assertEqual(view_csp({}), SPEC_DEFAULT)

    def test_each_list_widens_its_own_directives(self) -> None:
        policy = view_csp({"connectDomains": ["https://api.example.com", "wss://rt.example.com"],
                           "resourceDomains": ["https://*.cdn.example.com"],
                           "frameDomains": ["https://www.youtube.com"],
                           "baseUriDomains": ["https://base.example.com"]})
        directives = dict(part.split(" ", 1) for part in policy.split("; "))
        self.assertEqual(directives["connect-src"], "https://api.example.com wss://rt.example.com")
        for name, fixed in (("script-src", "'self' 'unsafe-inline'"),
                            ("style-src", "'self' 'unsafe-inline'"), ("img-src", "'self' data:"),
                            ("media-src", "'self' data:"), ("font-src", "'self'")):
            self.assertEqual(directives[name], f"{fixed} https://*.cdn.example.com")
        self.assertEqual(directives["frame-src"], "https://www.youtube.com")
        self.assertEqual(directives["base-uri"], "https://base.example.com")
        self.assertEqual(directives["default-src"], "'none'")
        self.assertEqual(directives["object-src"], "'none'")

    def test_what_is_not_a_plain_origin_is_dropped_and_named(self) -> None:
        dropped: list[str] = []
        policy = view_csp({"connectDomains": ["*", "'unsafe-eval'",
                                              "https://a.example; script-src *",
                                              "https://ok.example:8443", 7, "javascript:x"],
                           "resourceDomains": "https://not-a-list.example"}, dropped)
        self.assertIn("connect-src https://ok.example:8443;", policy)
        self.assertNotIn("unsafe-eval", policy)
        self.assertEqual(policy.count("script-src"), 1)
        self.assertEqual(dropped, ["connectDomains: '*'", "connectDomains: \"'unsafe-eval'\"",
                                   "connectDomains: 'https://a.example; script-src *'",
                                   "connectDomains: 7", "connectDomains: 'javascript:x'",
                                   "resourceDomains: 'https://not-a-list.example'"])

    def test_a_trailing_line_break_cannot_reach_the_header(self) -> None:
        dropped: list[str] = []
        policy = view_csp({"resourceDomains": ["https://cdn.example\n", "https://ok.example"],
                           "connectDomains": ["https://a.example\r\n"]}, dropped)
        self.assertNotIn("\n", policy)
        self.assertNotIn("\r", policy)
        self.assertIn("script-src 'self' 'unsafe-inline' https://ok.example;", policy)
        self.assertEqual(dropped, ["connectDomains: 'https://a.example\\r\\n'",
                                   "resourceDomains: 'https://cdn.example\\n'"])

    def test_the_viewer_names_each_dropped_origin(self) -> None:
        noted: list[str] = []
        viewer = Viewer(RecordingBridge(), View(csp={"connectDomains": ["*"]}), arguments=None,
                        result={}, on_dropped=noted.append)
        viewer.close()
        self.assertEqual(noted, ["connectDomains: '*'"])

    def test_permissions_become_the_frame_allow_attribute(self) -> None:
        self.assertEqual(frame_allow(None), "")
        self.assertEqual(frame_allow({}), "")
        self.assertEqual(frame_allow({"clipboardWrite": {}, "camera": {}, "telepathy": {}}),
                         "camera; clipboard-write")
