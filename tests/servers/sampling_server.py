"""A server whose tool samples the client's model *with tools* (official SDK, stdio, both eras).

``plan_trip`` asks the client's LLM, through a ``Sample`` resolver that offers one tool
(``lookup_city``) with ``toolChoice`` ``auto``; the SDK sends that only to a client that
declared ``sampling: {"tools": {}}`` and fails the call otherwise.  The tool's text is the
content the model answered, so a test sees what came back.

Usage: ``python tests/servers/sampling_server.py``
"""

import json
import warnings
from typing import Annotated

from mcp.server.mcpserver import Context, MCPServer, Resolve, Sample
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp_types import CreateMessageResultWithTools, SamplingMessage, TextContent, Tool, ToolChoice

warnings.filterwarnings("ignore", category=MCPDeprecationWarning)

LOOKUP = Tool(name="lookup_city", description="Find a city's country.",
              input_schema={"type": "object", "properties": {"city": {"type": "string"}},
                            "required": ["city"]})


async def with_tools(ctx: Context) -> Sample:
    """Resolver: sample the client's LLM, offering it one tool."""
    return Sample([SamplingMessage(role="user", content=TextContent(
        type="text", text="Where is Lyon?"))], max_tokens=50, tools=[LOOKUP],
        tool_choice=ToolChoice(mode="auto"))


async def plan_trip(answer: Annotated[CreateMessageResultWithTools, Resolve(with_tools)]) -> str:
    """Ask the client's model, with a tool it may use; return what it answered."""
    blocks = answer.content if isinstance(answer.content, list) else [answer.content]
    return json.dumps({"stopReason": answer.stop_reason,
                       "content": [block.model_dump(mode="json", exclude_none=True)
                                   for block in blocks]})


def main() -> None:
    server = MCPServer(name="sampling-server", log_level="WARNING")
    server.add_tool(plan_trip)
    server.run("stdio")


if __name__ == "__main__":
    main()
