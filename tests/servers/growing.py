"""A dual-era SDK server (stdio) whose ``grow`` tool adds a tool while it runs.

``grow {"name"}`` registers a tool ``name`` (answering ``"I am <name>"``) and announces the
change: on a 2026-07-28 connection through ``subscriptions/listen`` (``ctx.notify_tools_changed``,
delivered only to a listen that opted in), on a 2025-11-25 session with an unsolicited
``notifications/tools/list_changed``.  ``bump`` adds one to the resource ``res://counter``
and (modern) announces ``resources/updated`` to the listens subscribed to it.
``http_server.py --growing`` adds both tools to the demo server.  Exits on stdin EOF.

Usage: ``python tests/servers/growing.py``
"""

from mcp.server.caching import CacheHint
from mcp.server.mcpserver import Context, MCPServer
from mcp_types import LATEST_PROTOCOL_VERSION


def add_grow(server: MCPServer) -> None:
    """Give ``server`` the ``grow`` tool."""

    async def grow(name: str, ctx: Context) -> str:
        """Add a tool called ``name``."""
        def added() -> str:
            return f"I am {name}"

        server.add_tool(added, name=name, description=f"A tool added at run time: {name}.")
        request = ctx.request_context
        if request.protocol_version >= LATEST_PROTOCOL_VERSION:
            await ctx.notify_tools_changed()
        else:
            await request.session.send_tool_list_changed()
        return f"added {name}"

    server.add_tool(grow)

    count = [0]

    @server.resource("res://counter", name="counter")
    def counter() -> str:
        return str(count[0])

    @server.tool()
    async def bump(ctx: Context) -> str:
        """Add one to ``res://counter`` and announce it (modern: to listens subscribed to it)."""
        count[0] += 1
        request = ctx.request_context
        if request.protocol_version >= LATEST_PROTOCOL_VERSION:
            await ctx.notify_resource_updated("res://counter")
        return str(count[0])


if __name__ == "__main__":
    # a minute of ttlMs on tools/list and reads: without a notification the cache would stand
    growing = MCPServer(name="growing", version="1",
                        cache_hints={"tools/list": CacheHint(ttl_ms=60_000, scope="public"),
                                     "resources/read": CacheHint(ttl_ms=60_000,
                                                                 scope="private")})
    add_grow(growing)
    growing.run("stdio")
