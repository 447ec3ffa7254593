"""A small filesystem MCP server: read, list, write, edit and delete under one root.

Built with the official MCP Python SDK; speaks both protocol eras over stdio, or over
Streamable HTTP on 127.0.0.1 with ``--http PORT``::

    python examples/servers/files_server.py /path/to/root
    python examples/servers/files_server.py /path/to/root --http 8765

Every path is taken relative to the root (or absolute inside it); anything that
resolves outside the root is refused -- the server's own sandbox, which no
client-side check replaces.  ``edit`` replaces an exact, unique ``old`` string,
which is what protects a single call from a concurrent change.

Fencing: a ``write``, ``edit`` or ``delete`` whose request ``_meta`` carries
``"mcp-client-sync/lease": {"workspace": str, "token": int}`` (what
``mcp_client.leases.Leases`` sends for a call its lease covers) is refused when
its token is older than the newest this server has seen, in that workspace, for
the path or a directory above it; an accepted one records its token for the
path.  So a client that paused past its lease's TTL, while another got the path
and wrote, cannot write over that afterwards.  A call with no lease ``_meta``
is accepted as before (a client that takes no leases); one whose lease
``_meta`` is malformed is refused.  The tokens live in memory: a restarted
server has seen none.
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations

LEASE_META = "mcp-client-sync/lease"
READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)
WRITES = ToolAnnotations(read_only_hint=False, destructive_hint=True, open_world_hint=False)


class Fence:
    """The newest lease token seen per (workspace, path); refuses an older one."""

    def __init__(self) -> None:
        self.lock = threading.Lock()   # held from the check through the change
        self.newest: dict[tuple[str, Path], int] = {}

    def check(self, meta: Any, target: Path) -> None:
        """Refuse a stale lease (ToolError); record this one.  Call under ``lock``."""
        lease = meta.get(LEASE_META) if isinstance(meta, dict) else None
        if lease is None:
            return   # no lease named: accepted as before
        workspace = lease.get("workspace") if isinstance(lease, dict) else None
        token = lease.get("token") if isinstance(lease, dict) else None
        if not isinstance(workspace, str) or type(token) is not int:
            raise ToolError(f"malformed {LEASE_META} in _meta: {lease!r}")
        for place in (target, *target.parents):
            seen = self.newest.get((workspace, place))
            if seen is not None and token < seen:
                raise ToolError(f"stale lease: token {token} is older than {seen}, already "
                                f"used for {place}; acquire the lease again and re-read first")
        self.newest[(workspace, target)] = max(token, self.newest.get((workspace, target), 0))


def build(root: Path) -> MCPServer:
    root = root.resolve()
    server = MCPServer(name="files", version="1.0.0", log_level="WARNING",
                       instructions=f"Files under {root}.")
    fence = Fence()

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
    def write(path: str, content: str, ctx: Context) -> str:
        """Write a text file (replacing it)."""
        target = inside(path)
        with fence.lock:
            fence.check(ctx.request_context.meta, target)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(content)
        return f"wrote {len(content)} characters to {path}"

    @server.tool(annotations=WRITES)
    def edit(path: str, old: str, new: str, ctx: Context) -> str:
        """Replace the one occurrence of ``old`` in a file with ``new``."""
        target = inside(path)
        with fence.lock:
            fence.check(ctx.request_context.meta, target)
            text = target.read_text()
            if text.count(old) != 1:
                raise ToolError(f"{old!r} occurs {text.count(old)} times in {path}, not once")
            target.write_text(text.replace(old, new))
        return f"edited {path}"

    @server.tool(annotations=WRITES)
    def delete(path: str, ctx: Context) -> str:
        """Delete a file."""
        target = inside(path)
        with fence.lock:
            fence.check(ctx.request_context.meta, target)
            target.unlink()
        return f"deleted {path}"

    return server


if __name__ == "__main__":
    # ``files_server.py ROOT`` speaks stdio; ``files_server.py ROOT --http PORT`` serves
    # Streamable HTTP on 127.0.0.1:PORT/mcp, so that several agents share one server
    # (and so one memory of the newest lease token per path).
    arguments = sys.argv[1:]
    if "--http" in arguments:
        at = arguments.index("--http")
        port = int(arguments[at + 1])
        del arguments[at:at + 2]
        server = build(Path(arguments[0] if arguments else "."))
        server.run("streamable-http", host="127.0.0.1", port=port)
    else:
        build(Path(arguments[0] if arguments else ".")).run("stdio")
