"""A small MCP server for the README quickstart.

Built with the official MCP Python SDK (``pip install mcp``).  It speaks both protocol eras
over stdio: the handshake era (2025-11-25, ``initialize`` first) and the stateless era
(2026-07-28, ``server/discover`` first).  Every answer is deterministic.

Run it directly::

    python examples/servers/quickstart_server.py

or let ``mcp_client`` start it as a child process over stdio.

Tools: ``echo(text)``, ``add(a, b)``, ``word_count(text)``.
Resource: ``quickstart://about``.  Prompt: ``summarize(text)``.
"""

from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations

mcp = MCPServer(
    name="quickstart",
    version="1.0.0",
    instructions="A tiny demo server: echo text, add numbers, count words.",
    log_level="WARNING",
)

READ_ONLY = ToolAnnotations(
    read_only_hint=True, idempotent_hint=True, destructive_hint=False, open_world_hint=False
)


@mcp.tool(annotations=READ_ONLY)
def echo(text: str) -> str:
    """Return the text unchanged."""
    return text


@mcp.tool(annotations=READ_ONLY)
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@mcp.tool(annotations=READ_ONLY)
def word_count(text: str) -> int:
    """Count the whitespace-separated words in the text."""
    return len(text.split())


@mcp.resource("quickstart://about", mime_type="text/plain")
def about() -> str:
    """What this server is."""
    return "quickstart: an example MCP server for mcp_client."


@mcp.prompt()
def summarize(text: str) -> str:
    """Ask the model to summarize a text."""
    return f"Please summarize the following text in one sentence:\n\n{text}"


if __name__ == "__main__":
    mcp.run("stdio")
