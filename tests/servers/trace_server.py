"""A server that says what ``_meta`` it received (official SDK, stdio, both eras).

``seen_meta`` returns, as JSON, the ``_meta`` of its own ``tools/call`` request: a
test reads the W3C trace context a traced client put there.  ``fail`` reports
``isError``.

Usage: ``python tests/servers/trace_server.py``
"""

import json
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError


def seen_meta(ctx: Context) -> str:
    """The _meta this call arrived with."""
    meta: Any = ctx.request_context.meta
    if hasattr(meta, "model_dump"):
        meta = meta.model_dump(by_alias=True, exclude_none=True)
    return json.dumps(meta or {}, default=str)


def fail() -> str:
    """Always fail: the result has isError true."""
    raise ToolError("failed")


def main() -> None:
    server = MCPServer(name="trace-server", log_level="WARNING")
    server.add_tool(seen_meta)
    server.add_tool(fail)
    server.run("stdio")


if __name__ == "__main__":
    main()
