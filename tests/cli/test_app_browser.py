"""``mcp-client app`` in a real browser: headless Chromium (Debian's) driven by selenium.

:class:`ViewerInBrowserTest` serves a view written here through the
host page server with a recording bridge, and checks what only a browser can:
the view runs sandboxed (it cannot reach the page), under its CSP (it cannot
reach the viewer's endpoints), and its messages make the round trip.

The command's own run on the counter server is tests/cli/test_app_cli.py.
Skipped, saying why, without chromium and chromedriver; failed instead under
``MCP_REQUIRE_BROWSER=1`` (CI installs both).  Every wait is a WebDriverWait on
what the page shows, or an event.
"""

from __future__ import annotations

import threading
from typing import Any, ClassVar

from mcp_client.cli._viewer import Viewer

from ..base import LeakCheckingTestCase
from .browserkit import start_browser

#: How long the browser gets for one thing to show.
PATIENCE = 30

#: A view written for these tests: the spec's few lines of "talk MCP without an SDK".
TEST_VIEW = """<!DOCTYPE html>
<html><body>
<p>count: <span id="count">?</span> input: <span id="input"></span></p>
<button id="increment">+1</button>
<p id="error"></p><p id="parent">?</p><p id="fetch">?</p><p id="host"></p>
<script>
let next = 1;
const pending = {};
function show(id, text) { document.getElementById(id).textContent = text; }
function request(method, params) {
  const id = next++;
  window.parent.postMessage({jsonrpc: "2.0", id: id, method: method, params: params}, "*");
  return new Promise(function (resolve, reject) { pending[id] = [resolve, reject]; });
}
window.addEventListener("message", function (event) {
  const m = event.data;
  if (m.id !== undefined && pending[m.id]) {
    const [resolve, reject] = pending[m.id];
    delete pending[m.id];
    if (m.error) { reject(m.error); } else { resolve(m.result); }
    return;
  }
  if (m.method === "ui/notifications/tool-input") {
    show("input", JSON.stringify(m.params.arguments));
  }
  if (m.method === "ui/notifications/tool-result") {
    show("count", m.params.structuredContent.count);
  }
});
try { show("parent", "reached " + window.parent.document.title); }
catch (e) { show("parent", "blocked"); }
fetch("VIEWER_ORIGIN/heartbeat", {method: "POST"}).then(
  function () { show("fetch", "reached"); }, function () { show("fetch", "blocked"); });
request("ui/initialize", {appCapabilities: {}, appInfo: {name: "test", version: "1"},
                          protocolVersion: "2026-01-26"}).then(function (result) {
  show("host", result.hostInfo.name);
  window.parent.postMessage({jsonrpc: "2.0", method: "ui/notifications/initialized"}, "*");
});
document.getElementById("increment").addEventListener("click", function () {
  request("tools/call", {name: "increment", arguments: {}}).then(
    function (result) { show("count", result.structuredContent.count); },
    function (error) { show("error", error.message); });
});
</script>
</body></html>
"""


class CountingBridge:
    """Stands in for AppBridge: a counter, its ``increment`` refused when ``deny``."""

    def __init__(self, deny: bool = False) -> None:
        self.count = 1
        self.increments = 0
        self.deny = deny
        self.lock = threading.Lock()

    def handle(self, message: dict[str, Any]) -> dict[str, Any] | None:
        method, ident = message.get("method"), message.get("id")
        if ident is None:
            return None
        if method == "ui/initialize":
            return {"jsonrpc": "2.0", "id": ident,
                    "result": {"protocolVersion": "2026-01-26", "hostCapabilities": {},
                               "hostInfo": {"name": "counting-bridge", "version": "1"},
                               "hostContext": {}}}
        if self.deny:
            return {"jsonrpc": "2.0", "id": ident,
                    "error": {"code": -32603, "message": "refused: increment is denied"}}
        with self.lock:
            self.increments += 1
            self.count += 1
            count = self.count
        return {"jsonrpc": "2.0", "id": ident,
                "result": {"content": [{"type": "text", "text": str(count)}],
                           "structuredContent": {"count": count}}}

    def tool_input(self, arguments: dict[str, Any]) -> dict[str, Any]:
        return {"jsonrpc": "2.0", "method": "ui/notifications/tool-input",
                "params": {"arguments": arguments}}

    def tool_result(self, result: dict[str, Any]) -> dict[str, Any]:
        return {"jsonrpc": "2.0", "method": "ui/notifications/tool-result", "params": result}


class View:
    def __init__(self, html: str) -> None:
        self.html, self.uri = html, "ui://test/view.html"
        self.csp: dict[str, Any] | None = None
        self.permissions: dict[str, Any] | None = None
        self.meta: dict[str, Any] = {}


class BrowserCase(LeakCheckingTestCase):
    browser: ClassVar[Any]

    @classmethod
    def setUpClass(cls) -> None:
        super().setUpClass()
        cls.browser = start_browser(cls)

    def shown(self, element_id: str, text: str) -> None:
        """Wait until the element ``element_id`` of the current frame shows ``text``."""
        from selenium.webdriver.common.by import By
        from selenium.webdriver.support import expected_conditions
        from selenium.webdriver.support.ui import WebDriverWait

        try:
            WebDriverWait(self.browser, PATIENCE).until(
                expected_conditions.text_to_be_present_in_element((By.ID, element_id), text))
        except Exception:
            found = self.browser.find_element(By.ID, element_id).text
            self.fail(f"#{element_id} shows {found!r}, not {text!r}; browser log: "
                      f"{self.browser.get_log('browser')}")
        self.assertEqual(self.browser.find_element(By.ID, element_id).text, text)

    def enter_view(self) -> None:
        from selenium.webdriver.common.by import By
        from selenium.webdriver.support import expected_conditions
        from selenium.webdriver.support.ui import WebDriverWait

        WebDriverWait(self.browser, PATIENCE).until(
            expected_conditions.frame_to_be_available_and_switch_to_it((By.ID, "view")))

    def click(self, element_id: str) -> None:
        from selenium.webdriver.common.by import By

        self.browser.find_element(By.ID, element_id).click()

    def leave_page(self) -> None:
        """Navigate away: the page's pagehide beacon closes the viewer."""
        self.browser.switch_to.default_content()
        self.browser.get("about:blank")


class ViewerInBrowserTest(BrowserCase):
    def open_viewer(self, bridge: CountingBridge) -> Viewer:
        view = View(TEST_VIEW)
        viewer = Viewer(bridge, view, arguments={"start": 1},
                        result={"content": [{"type": "text", "text": "1"}],
                                "structuredContent": {"count": 1}}).start()
        self.addCleanup(viewer.close)
        view.html = TEST_VIEW.replace("VIEWER_ORIGIN", viewer.origin)
        return viewer

    def test_the_view_runs_sandboxed_and_its_messages_round_trip(self) -> None:
        bridge = CountingBridge()
        viewer = self.open_viewer(bridge)
        self.browser.get(viewer.url)
        self.shown("status", "the view is running")
        self.enter_view()
        self.shown("host", "counting-bridge")
        self.shown("count", "1")
        self.shown("input", '{"start":1}')
        self.shown("parent", "blocked")     # no allow-same-origin: the page is out of reach
        self.shown("fetch", "blocked")      # connect-src 'none': so is the viewer
        self.click("increment")
        self.shown("count", "2")
        self.assertEqual(bridge.increments, 1)
        self.leave_page()
        self.assertTrue(viewer.wait(PATIENCE))
        self.assertEqual(viewer.reason, "page closed")

    def test_a_refusal_reaches_the_view(self) -> None:
        bridge = CountingBridge(deny=True)
        viewer = self.open_viewer(bridge)
        self.browser.get(viewer.url)
        self.enter_view()
        self.shown("count", "1")
        self.click("increment")
        self.shown("error", "refused: increment is denied")
        self.shown("count", "1")
        self.leave_page()
        self.assertTrue(viewer.wait(PATIENCE))

    def test_a_second_load_of_the_address_is_refused(self) -> None:
        viewer = self.open_viewer(CountingBridge())
        url = viewer.url
        self.browser.get(url)
        self.enter_view()
        self.shown("count", "1")
        self.browser.switch_to.default_content()
        self.browser.get(url)          # the first page's beacon closes the viewer...
        self.assertTrue(viewer.wait(PATIENCE))
        self.assertIn("403", self.browser.page_source)   # ...and the token is spent
