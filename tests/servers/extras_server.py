"""A dual-era stdio server for the rest of the protocol (official SDK, mcp 2.3.0).

It offers argument completion (a prompt and a resource template), tools whose
``outputSchema`` their ``structuredContent`` matches or breaks, and a tool that logs at
each level.  Exits on stdin EOF.

Usage: ``python tests/servers/extras_server.py``
"""

import warnings
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp_types import CallToolResult, Completion, PromptReference, TextContent
from pydantic import BaseModel

warnings.filterwarnings("ignore", category=MCPDeprecationWarning)

LANGUAGES = ["python", "perl", "php", "rust", "ruby"]
WEATHER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"temperature": {"type": "number"}, "conditions": {"type": "string"}},
    "required": ["temperature", "conditions"],
}


class Weather(BaseModel):
    temperature: float
    conditions: str


def weather(city: str) -> Weather:
    """The (fake) weather in a city, as structured output that matches its schema."""
    return Weather(temperature=21.5, conditions=f"sunny in {city}")


def broken_weather(city: str) -> CallToolResult:
    """The (fake) weather, as structured output that breaks its declared schema."""
    return CallToolResult(content=[TextContent(type="text", text="hot")],
                          structured_content={"temperature": "hot", "conditions": "x"})


async def levels(ctx: Context) -> str:
    """Log once at debug, info, warning and error, then return "logged"."""
    await ctx.debug("debug line")
    await ctx.info("info line")
    await ctx.warning("warning line")
    await ctx.error("error line")
    return "logged"


def build_server() -> MCPServer:
    """Build the server (not yet running)."""
    server: MCPServer = MCPServer(name="extras-server", version="0.1.0", log_level="WARNING")
    server.add_tool(weather)
    server.add_tool(broken_weather)
    # a schema published without a model is advertised and never checked by the server
    tool = server._tool_manager.get_tool("broken_weather")
    assert tool is not None
    tool.fn_metadata.output_schema = WEATHER_SCHEMA
    server.add_tool(levels)

    @server.prompt()
    def code_review(language: str, code: str) -> str:
        """Review code in a language."""
        return f"Review this {language}:\n{code}"

    @server.resource("repo://{owner}/{name}")
    def repository(owner: str, name: str) -> str:
        return f"{owner}/{name}"

    @server.completion()   # type: ignore[no-untyped-call, untyped-decorator]   # the SDK: untyped
    async def complete(ref: Any, argument: Any, context: Any) -> Completion | None:
        if isinstance(ref, PromptReference) and argument.name == "language":
            found = [lang for lang in LANGUAGES if lang.startswith(argument.value)]
            return Completion(values=found, total=len(found), has_more=False)
        if argument.name == "name":
            owner = (context.arguments or {}).get("owner", "") if context else ""
            return Completion(values=[f"{owner}-app", f"{owner}-lib"])
        return None

    return server


if __name__ == "__main__":
    build_server().run("stdio")
