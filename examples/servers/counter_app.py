"""A counter with a view: an MCP App (``io.modelcontextprotocol/ui``) server.

Built with the official MCP Python SDK (``pip install mcp``); stdio, both protocol eras.

* ``show_counter`` -- the model's tool: the current count (``structuredContent``
  ``{"count": n}``), shown in the view ``ui://counter/view.html``;
* ``increment`` -- the view's tool (``visibility: ["app"]``, kept from the model): adds
  one and returns the new count the same way;
* ``ui://counter/view.html`` -- the view (``text/html;profile=mcp-app``): the count
  and a button whose ``tools/call`` for ``increment`` goes to the host over
  ``window.parent.postMessage`` (JSON-RPC 2.0, after ``ui/initialize``); the count
  shown is the reply's ``structuredContent.count``, a refusal is shown under it.

Show it in a browser (the host page is served on 127.0.0.1)::

    mcp-client app show_counter --stdio "python examples/servers/counter_app.py"

``--log FILE`` appends a line ``increment <count>`` to FILE for each ``increment`` the
server runs (tests count them there).  Exits on stdin EOF.
"""

from __future__ import annotations

import sys
from typing import Any

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel

URI = "ui://counter/view.html"
MIME_TYPE = "text/html;profile=mcp-app"

PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Counter</title>
<style>
  body { font-family: sans-serif; margin: 1rem; }
  #count { font-size: 2rem; }
  #error { color: #b00020; }
</style>
</head>
<body>
<p>Count: <span id="count">?</span></p>
<button id="increment" type="button" disabled>Increment</button>
<p id="error" role="alert"></p>
<script>
  // JSON-RPC 2.0 with the host over postMessage (MCP Apps, SEP-1865).
  let nextId = 1;
  const pending = new Map();
  function request(method, params) {
    const id = nextId++;
    window.parent.postMessage({ jsonrpc: "2.0", id: id, method: method, params: params }, "*");
    return new Promise(function (resolve, reject) { pending.set(id, { resolve, reject }); });
  }
  function notify(method, params) {
    window.parent.postMessage({ jsonrpc: "2.0", method: method, params: params }, "*");
  }
  function showCount(result) {
    const data = result && result.structuredContent;
    if (data && typeof data.count === "number") {
      document.getElementById("count").textContent = String(data.count);
    }
  }
  function showError(text) {
    document.getElementById("error").textContent = text;
  }
  window.addEventListener("message", function (event) {
    if (event.source !== window.parent) return;
    const message = event.data;
    if (!message || message.jsonrpc !== "2.0") return;
    if (message.method === undefined && pending.has(message.id)) {
      const waiter = pending.get(message.id);
      pending.delete(message.id);
      if (message.error) waiter.reject(new Error(message.error.message));
      else waiter.resolve(message.result);
    } else if (message.method === "ui/notifications/tool-result") {
      showCount(message.params);
    }
  });
  document.getElementById("increment").addEventListener("click", async function () {
    showError("");
    try {
      const result = await request("tools/call", { name: "increment", arguments: {} });
      if (result.isError) {
        const texts = (result.content || []).map(function (block) { return block.text || ""; });
        throw new Error(texts.join(" ") || "increment failed");
      }
      showCount(result);
    } catch (error) {
      showError(error.message);
    }
  });
  request("ui/initialize", {
    protocolVersion: "2026-01-26",
    appInfo: { name: "counter", version: "1.0.0" },
    appCapabilities: {},
  }).then(function () {
    notify("ui/notifications/initialized", {});
    document.getElementById("increment").disabled = false;
    document.body.dataset.ready = "true";
  }, function (error) {
    showError(error.message);
  });
</script>
</body>
</html>
"""


class Count(BaseModel):
    """The counter's value."""

    count: int


def build_server(log: str | None = None) -> MCPServer:
    """The counter server (not yet running); ``log`` is the file each increment is noted in."""
    server = MCPServer(name="counter-app", version="1.0.0", log_level="WARNING")
    state: dict[str, Any] = {"count": 0}

    @server.tool(meta={"ui": {"resourceUri": URI}})
    def show_counter() -> Count:
        """Show the counter (the view has a button that increments it)."""
        return Count(count=state["count"])

    @server.tool(meta={"ui": {"resourceUri": URI, "visibility": ["app"]}})
    def increment() -> Count:
        """Add one to the counter and return the new count."""
        state["count"] += 1
        if log is not None:
            with open(log, "a", encoding="utf-8") as notes:
                notes.write(f"increment {state['count']}\n")
        return Count(count=state["count"])

    @server.resource(URI, name="counter_view", mime_type=MIME_TYPE,
                     meta={"ui": {"prefersBorder": True}})
    def view() -> str:
        """The counter's view."""
        return PAGE

    return server


def main(argv: list[str]) -> None:
    log = argv[argv.index("--log") + 1] if "--log" in argv[:-1] else None
    build_server(log).run("stdio")


if __name__ == "__main__":
    main(sys.argv[1:])
