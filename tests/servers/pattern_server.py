"""A dual-era stdio server whose tool publishes a backtracking ``pattern`` (mcp 2.3.0 SDK).

Its tool ``code`` declares an ``outputSchema`` whose ``pattern`` is ``^(a|a)*$`` and
returns ``structuredContent`` that a backtracking engine needs about 2**27 steps to
refuse.  Exits on stdin EOF.

Usage: ``python tests/servers/pattern_server.py``
"""

import warnings
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp_types import CallToolResult, TextContent

warnings.filterwarnings("ignore", category=MCPDeprecationWarning)

EVIL = "^(a|a)*$"
LONG = "a" * 27 + "b"
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"code": {"type": "string", "pattern": EVIL}},
    "required": ["code"],
}


def code() -> CallToolResult:
    """A code that the published pattern cannot decide quickly."""
    return CallToolResult(content=[TextContent(type="text", text=LONG)],
                          structured_content={"code": LONG})


def build_server() -> MCPServer:
    """Build the server (not yet running)."""
    server: MCPServer = MCPServer(name="pattern-server", version="0.1.0", log_level="WARNING")
    server.add_tool(code)
    # a schema published without a model is advertised and never checked by the server
    tool = server._tool_manager.get_tool("code")
    assert tool is not None
    tool.fn_metadata.output_schema = SCHEMA
    return server


if __name__ == "__main__":
    build_server().run("stdio")
