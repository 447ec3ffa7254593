"""Demo MCP server used by the protocol tests of ``mcp_client``.

``build_server()`` returns an ``mcp.server.mcpserver.MCPServer`` (official SDK, mcp 2.3.0)
carrying every feature the client tests exercise: plain tools, structured output,
tool errors, progress, logging, cancellation-friendly sleeps, concurrency, elicitation
(hand-rolled MRTR and the SDK's resolvers), sampling, roots, ``x-mcp-header``,
images, a resource, a prompt and a process that dies mid-request.

This module is imported by the runnable scripts next to it (``dual_stdio.py``,
``legacy_stdio.py``, ``initialize_first.py``, ``garbage_stdio.py``); it also holds the
legacy-only stdio runner they share.  Resolvers live at module level because the SDK
derives their wire keys from ``module:qualname`` (``demo_server:ask_name`` when the
scripts import this file as ``demo_server``).
"""

import os
import sys
import warnings
from typing import Annotated, Any

import anyio
from mcp.server.caching import CacheHint
from mcp.server.mcpserver import Context, Elicit, Image, ListRoots, MCPServer, Resolve, Sample
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp_types import (
    CreateMessageResult,
    ElicitRequest,
    ElicitRequestFormParams,
    InputRequiredResult,
    ListRootsResult,
    SamplingMessage,
    TextContent,
    ToolAnnotations,
)
from pydantic import BaseModel, Field

# ctx.debug()/info()/warning() emit an MCPDeprecationWarning (a UserWarning) on stderr the first
# time they run (logging is deprecated in 2026-07-28).  Keep stderr clean so tests can assert on it.
warnings.filterwarnings("ignore", category=MCPDeprecationWarning)

SERVER_VERSION = "0.1.0"
INSTRUCTIONS = "Demo server for protocol tests."

# A valid 1x1 transparent PNG.
TINY_PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000001e221bc33000000"
    "0049454e44ae426082"
)


# ----------------------------------------------------------------------------- models/resolvers


class Name(BaseModel):
    # No docstring: pydantic would put it into the elicitation schema as "description".
    name: str


class Weather(BaseModel):
    # No docstring: pydantic would put it into the tool's outputSchema as "description".
    temperature: float
    conditions: str


async def ask_name(ctx: Context) -> Elicit[Name]:
    """Resolver: ask the user for a name (MRTR in modern, elicitation/create in legacy)."""
    return Elicit("What is your name?", Name)


async def capital(ctx: Context) -> Sample:
    """Resolver: sample the client's LLM."""
    return Sample(
        [SamplingMessage(role="user", content=TextContent(type="text", text="Capital of France?"))],
        max_tokens=50,
    )


async def roots(ctx: Context) -> ListRoots:
    """Resolver: ask the client for its roots."""
    return ListRoots()


# ----------------------------------------------------------------------------- tools


def echo(text: str) -> str:
    """Echo the text back."""
    return text


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


async def delay(ms: int, tag: str) -> str:
    """Sleep ``ms`` milliseconds, then return ``tag`` (for out-of-order answers)."""
    await anyio.sleep(ms / 1000)
    return tag


async def slow(seconds: float) -> str:
    """Sleep ``seconds`` seconds, then return "slept" (for timeouts and cancellation)."""
    await anyio.sleep(seconds)
    return "slept"


async def count(n: int, ctx: Context) -> str:
    """Count to n, reporting progress i/n every 0.1 s (only with a progressToken)."""
    for i in range(1, n + 1):
        await ctx.report_progress(i, n, f"step {i}/{n}")
        if i < n:
            await anyio.sleep(0.1)
    return f"counted to {n}"


async def chatty(ctx: Context) -> str:
    """Emit an info, a debug and a warning log message, then return "done"."""
    await ctx.info("info from chatty")
    await ctx.debug("debug from chatty")
    await ctx.warning("warning from chatty")
    return "done"


async def confirm(action: str, ctx: Context) -> str | InputRequiredResult:
    """Ask the user to confirm an action (hand-rolled MRTR: modern era only)."""
    answer = (ctx.input_responses or {}).get("confirm")
    if answer is None:
        schema: dict[str, Any] = {
            "type": "object",
            "properties": {"ok": {"type": "boolean", "title": "Proceed"}},
            "required": ["ok"],
        }
        params = ElicitRequestFormParams(message=f"Really {action}?", requested_schema=schema)
        return InputRequiredResult(
            input_requests={"confirm": ElicitRequest(params=params)},
            request_state=f"pending:{action}",
        )
    action_taken = getattr(answer, "action", None)
    content = getattr(answer, "content", None) or {}
    return f"state={ctx.request_state!r} action={action_taken} content={content}"


async def greet(who: Annotated[Name, Resolve(ask_name)]) -> str:
    """Greet the user, whose name is elicited."""
    return f"Hello, {who.name}!"


async def ask_llm(answer: Annotated[CreateMessageResult, Resolve(capital)]) -> str:
    """Ask the client's LLM for the capital of France."""
    return f"LLM said: {answer}"


async def where_am_i(found: Annotated[ListRootsResult, Resolve(roots)]) -> str:
    """Report the client's roots."""
    return f"roots: {found}"


def weather(city: str) -> Weather:
    """Report the (fake) weather in a city as structured output."""
    return Weather(temperature=21.5, conditions=f"sunny in {city}")


def fail() -> str:
    """Always fail: the result has isError true."""
    raise ToolError("failed: because")


def region_query(
    region: Annotated[str, Field(json_schema_extra={"x-mcp-header": "Region"})], query: str
) -> str:
    """Run a query in a region (region is mirrored into Mcp-Param-Region over HTTP)."""
    return f"{region}: {query}"


def die(code: int = 3, message: str = "fatal: out of cheese") -> str:
    """Write ``message`` to stderr and exit the process with ``code`` mid-request."""
    sys.stderr.write(message + "\n")
    sys.stderr.flush()
    os._exit(code)


def image() -> Image:
    """Return a tiny PNG image content block."""
    return Image(data=TINY_PNG, format="png")


# ----------------------------------------------------------------------------- resource/prompt


def readme() -> str:
    return "# Demo\nhello"


def review(code: str) -> str:
    """Code review prompt."""
    return f"Please review:\n{code}"


# ----------------------------------------------------------------------------- assembly


def build_server(name: str = "demo-server") -> MCPServer:
    """Build the demo server (not yet running)."""
    server: MCPServer = MCPServer(
        name=name,
        version=SERVER_VERSION,
        instructions=INSTRUCTIONS,
        # The SDK logs handled tool errors at INFO on stderr; keep stderr for real trouble.
        log_level="WARNING",
        cache_hints={
            "tools/list": CacheHint(ttl_ms=60_000, scope="public"),
            "resources/read": CacheHint(ttl_ms=5_000, scope="private"),
        },
    )
    server.add_tool(
        echo,
        annotations=ToolAnnotations(
            read_only_hint=True, idempotent_hint=True, destructive_hint=False, open_world_hint=False
        ),
    )
    server.add_tool(add)
    server.add_tool(delay)
    server.add_tool(slow)
    server.add_tool(count)
    server.add_tool(chatty)
    server.add_tool(confirm)
    server.add_tool(greet)
    server.add_tool(ask_llm)
    server.add_tool(where_am_i)
    server.add_tool(weather)
    server.add_tool(fail)
    server.add_tool(
        region_query, annotations=ToolAnnotations(read_only_hint=True, idempotent_hint=True)
    )
    server.add_tool(die)
    server.add_tool(image)
    server.resource("res://readme", mime_type="text/plain")(readme)
    server.prompt()(review)
    return server


async def serve_legacy_stdio(server: MCPServer, stdin: Any = None) -> None:
    """Serve ``server`` over stdio in the legacy (handshake-only) era.

    ``MCPServer.run("stdio")`` is always dual-era; the SDK's handshake-only ``serve_loop`` is
    what its legacy HTTP sessions use, and it never serves the modern envelope.  ``stdin``
    may be an ``anyio.AsyncFile[str]`` to read from instead of the process's stdin.
    """
    from mcp.server.runner import serve_loop
    from mcp.server.stdio import stdio_server

    low = server._lowlevel_server
    async with low.lifespan(low) as lifespan_state:
        async with stdio_server(stdin=stdin) as (read_stream, write_stream):
            await serve_loop(
                low,
                read_stream,
                write_stream,
                lifespan_state=lifespan_state,
                init_options=low.create_initialization_options(),
            )
