"""A server whose tool's view declares a CSP and permissions (MCP Apps), over stdio.

The official SDK (mcp 2.3.0).  ``show_page`` has the view ``ui://page/view.html``,
whose ``_meta.ui`` declares ``connectDomains`` (one plain origin, and a bare ``*``
a host must not copy) and the camera; ``mcp-client app``'s tests read what
the host page makes of them.  Exits on stdin EOF.

Usage: ``python tests/servers/view_server.py``
"""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer

URI = "ui://page/view.html"
MIME_TYPE = "text/html;profile=mcp-app"
PAGE = "<!DOCTYPE html><html><body><p id='page'>a page</p></body></html>"
UI = {"csp": {"connectDomains": ["https://api.example.com", "*"]},
      "permissions": {"camera": {}}}

server = MCPServer(name="view-server", version="1.0.0", log_level="WARNING")


@server.tool(meta={"ui": {"resourceUri": URI, **UI}})
def show_page() -> str:
    """Show the page."""
    return "a page"


@server.resource(URI, name="page_view", mime_type=MIME_TYPE, meta={"ui": UI})
def view() -> str:
    """The page's view."""
    return PAGE


if __name__ == "__main__":
    server.run("stdio")
