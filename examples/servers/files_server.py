"""A small filesystem MCP server: read, list, write, edit and delete under one root.

Built with the official MCP Python SDK; speaks both protocol eras over stdio::

    python examples/servers/files_server.py /path/to/root

Every path is taken relative to the root (or absolute inside it); anything that
resolves outside the root is refused -- the server's own sandbox, which no
client-side check replaces.  ``edit`` replaces an exact, unique ``old`` string,
which is what protects a single call from a concurrent change.
"""

from __future__ import annotations

import sys
from pathlib import Path

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations

READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)
WRITES = ToolAnnotations(read_only_hint=False, destructive_hint=True, open_world_hint=False)


def build(root: Path) -> MCPServer:
    root = root.resolve()
    server = MCPServer(name="files", version="1.0.0", log_level="WARNING",
                       instructions=f"Files under {root}.")

    def inside(path: str) -> Path:
        target = (root / path).resolve()
        if target != root and root not in target.parents:
            raise ToolError(f"{path} is outside {root}")
        return target

    @server.tool(annotations=READ_ONLY)
    def read(path: str) -> str:
        """Read a text file."""
        return inside(path).read_text()

    @server.tool(annotations=READ_ONLY)
    def list(path: str = ".") -> str:  # noqa: A001 - the tool's public name
        """List a directory."""
        return "\n".join(sorted(p.name for p in inside(path).iterdir()))

    @server.tool(annotations=WRITES)
    def write(path: str, content: str) -> str:
        """Write a text file (replacing it)."""
        target = inside(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content)
        return f"wrote {len(content)} characters to {path}"

    @server.tool(annotations=WRITES)
    def edit(path: str, old: str, new: str) -> str:
        """Replace the one occurrence of ``old`` in a file with ``new``."""
        target = inside(path)
        text = target.read_text()
        if text.count(old) != 1:
            raise ToolError(f"{old!r} occurs {text.count(old)} times in {path}, not once")
        target.write_text(text.replace(old, new))
        return f"edited {path}"

    @server.tool(annotations=WRITES)
    def delete(path: str) -> str:
        """Delete a file."""
        inside(path).unlink()
        return f"deleted {path}"

    return server


if __name__ == "__main__":
    build(Path(sys.argv[1] if len(sys.argv) > 1 else ".")).run("stdio")
