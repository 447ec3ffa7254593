"""The official SDK's echo server (``mcp==2.3.0``), over stdio.

``build_server()`` is a stock ``MCPServer`` with one tool, ``echo(text)``,
annotated ``readOnlyHint``, and ``cache_hints`` that give ``tools/list`` a
60 s public ``ttlMs`` (PROTOCOL §12), so clients with a cache may keep it.
``sdk_http.py`` serves the same server over Streamable HTTP.

Usage: ``python bench/servers/sdk_echo.py`` (dual-era stdio, ``MCPServer.run("stdio")``).
"""

from __future__ import annotations

from mcp.server.caching import CacheHint
from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations

#: How long a client may keep tools/list, in ms (any value > 0 makes it cacheable).
TOOLS_TTL_MS = 60_000


def build_server() -> MCPServer:
    """The echo server, not yet running."""
    server: MCPServer = MCPServer(
        name="bench-sdk-echo", version="1.0.0", log_level="WARNING",
        cache_hints={"tools/list": CacheHint(ttl_ms=TOOLS_TTL_MS, scope="public")})

    @server.tool(annotations=ToolAnnotations(read_only_hint=True, destructive_hint=False,
                                             open_world_hint=False))
    def echo(text: str) -> str:
        """Return the text unchanged."""
        return text

    return server


if __name__ == "__main__":
    build_server().run("stdio")
