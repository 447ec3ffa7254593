"""A dual-era stdio server for the client's interactive paths (official SDK, mcp 2.3.0).

It offers URL-mode elicitation (an ``InputRequiredResult`` round in 2026-07-28,
``elicitation/create`` with ``notifications/elicitation/complete`` in 2025-11-25), a tool
that answers ``-32042`` (URLElicitationRequiredError) until its elicitation is done, a
tool that reports the client's declared elicitation capability, display metadata (titles,
``annotations.title``, icons) on tools, prompts, resources and templates, a prompt
whose arguments complete (the second from the first), and one whose completion fails.
Exits on stdin EOF.

Usage: ``python tests/servers/interactive_server.py``
"""

import json
import warnings
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPDeprecationWarning, UrlElicitationRequiredError
from mcp_types import (
    Completion,
    ElicitRequest,
    ElicitRequestURLParams,
    Icon,
    InputRequiredResult,
    PromptReference,
    ToolAnnotations,
)

warnings.filterwarnings("ignore", category=MCPDeprecationWarning)

MODERN = "2026-07-28"
CONNECT_URL = "https://accounts.example.com/connect?session=42"
ICON = Icon(src="https://example.com/icon.png", mime_type="image/png", sizes=["48x48"])
TEAMS = {"Engineering": ["Alice", "Bob", "Charlie"], "Sales": ["David", "Eve", "Frank"],
         "Support": ["John", "Kim", "Lee"]}
#: Services whose URL elicitation was accepted (the -32042 tool's "out-of-band" state).
_connected: set[str] = set()


async def connect(service: str, ctx: Context) -> str | InputRequiredResult:
    """Ask the user to open a URL to connect a service, and report their answer."""
    message = f"Connect your {service} account"
    if ctx.protocol_version == MODERN:
        answer = (ctx.input_responses or {}).get("connect")
        if answer is None:
            params = ElicitRequestURLParams(message=message, url=CONNECT_URL)
            return InputRequiredResult(input_requests={"connect": ElicitRequest(params=params)},
                                       request_state=f"connect:{service}")
        action, state = getattr(answer, "action", None), ctx.request_state
        return f"action={action} state={state} content={getattr(answer, 'content', None)}"
    result = await ctx.elicit_url(message, CONNECT_URL, f"connect-{service}")
    if result.action == "accept":
        await ctx.session.send_elicit_complete(f"connect-{service}")
    return f"action={result.action}"


def files(service: str) -> str:
    """List the files of a connected service; -32042 until it is connected."""
    if service not in _connected:
        _connected.add(service)   # the retry finds it "connected"
        raise UrlElicitationRequiredError([ElicitRequestURLParams(
            message=f"Authorize access to your {service} files", url=CONNECT_URL,
            elicitation_id=f"files-{service}")], "This request requires authorization.")
    return f"{service}: a.txt, b.txt"


def declared(ctx: Context) -> str:
    """The elicitation capability the client declared, as JSON."""
    caps = ctx.client_capabilities
    found = caps.elicitation if caps is not None else None
    return json.dumps(None if found is None else found.model_dump(exclude_none=True))


def build_server() -> MCPServer:
    """Build the server (not yet running)."""
    server: MCPServer = MCPServer(name="interactive-server", version="0.1.0",
                                  log_level="WARNING")
    server.add_tool(connect, title="Connect an Account", icons=[ICON])
    server.add_tool(files, annotations=ToolAnnotations(title="Remote Files", read_only_hint=True))
    server.add_tool(declared)

    @server.prompt(title="Team Management", icons=[ICON])
    def lead(department: str, name: str) -> str:
        """Promote someone to lead a department."""
        return f"Please promote {name} to the head of the {department} team."

    @server.prompt()
    def brainstorm(topic: str, style: str = "short") -> str:
        """Brainstorm a topic (its completion always fails)."""
        return f"Brainstorm {topic}, {style}."

    @server.resource("doc://handbook", title="The Handbook", icons=[ICON])
    def handbook() -> str:
        return "Be kind."

    @server.resource("team://{department}", title="A Team")
    def team(department: str) -> str:
        return ", ".join(TEAMS.get(department, []))

    @server.completion()   # type: ignore[no-untyped-call, untyped-decorator]   # the SDK: untyped
    async def complete(ref: Any, argument: Any, context: Any) -> Completion | None:
        if not isinstance(ref, PromptReference):
            return None
        if ref.name == "brainstorm":
            raise ValueError("the idea engine is down")
        if argument.name == "department":
            found = [d for d in TEAMS if d.startswith(argument.value)]
            return Completion(values=found, total=len(found), has_more=False)
        if argument.name == "name":
            department = (context.arguments or {}).get("department", "") if context else ""
            return Completion(values=[n for n in TEAMS.get(department, [])
                                      if n.startswith(argument.value)])
        return None

    return server


if __name__ == "__main__":
    build_server().run("stdio")
