"""The official-SDK servers behind :class:`~mcp_client.testing.TestKit` and ``ProgressKit``.

This module imports the ``mcp`` SDK at the top, which is why nothing imports it
but the kits' constructors and ``python -m mcp_client.testing.kits``: the SDK
derives each tool's schema from its signature, resolving the annotations in
this module's globals, so the SDK's types have to live here.

It owns the tools and the little state they share (a ticket counter, notes, the
rendezvous waiting room), one copy per server built.  It must not be imported
by ``import mcp_client`` or ``import mcp_client.testing``.
"""

from __future__ import annotations

import base64
from typing import Any

import anyio
from mcp.server.mcpserver import Audio, Context, Image, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import (BlobResourceContents, ContentBlock, EmbeddedResource, ResourceLink,
                       TextContent, TextResourceContents, ToolAnnotations)
from pydantic import BaseModel

__all__ = ["build_testkit", "build_progresskit", "KIT_VERSION", "TINY_PNG", "TINY_WAV"]

KIT_VERSION = "1.0.0"

#: A valid 1x1 transparent PNG (67 bytes).
TINY_PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000001e221bc33000000"
    "0049454e44ae426082")
#: A valid WAV file holding no samples (44 bytes: the RIFF header alone).
TINY_WAV = base64.b64decode("UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA=")

READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)


class Weather(BaseModel):
    # No docstring: pydantic would put it into the tool's outputSchema.
    temperature: float
    conditions: str


class _State:
    """What one kit server remembers between calls."""

    def __init__(self) -> None:
        self.tickets = 0
        self.notes: list[str] = []
        self.waiting: list[anyio.Event] = []


def _content_tools(server: MCPServer) -> None:
    """One tool per content shape."""

    def image() -> Image:
        """Return a 1x1 PNG image (67 bytes)."""
        return Image(data=TINY_PNG, format="png")

    def audio() -> Audio:
        """Return a silent WAV clip (44 bytes)."""
        return Audio(data=TINY_WAV, format="wav")

    def resource_link() -> ResourceLink:
        """Return a link to the kit's README resource."""
        return ResourceLink(type="resource_link", uri="kit://readme", name="readme",
                            mime_type="text/markdown", description="What the kit is for")

    def embedded_text() -> EmbeddedResource:
        """Return an embedded text resource."""
        return EmbeddedResource(type="resource", resource=TextResourceContents(
            uri="kit://notes.txt", mime_type="text/plain", text="line one\nline two"))

    def embedded_blob() -> EmbeddedResource:
        """Return an embedded binary resource (the PNG, as a blob)."""
        return EmbeddedResource(type="resource", resource=BlobResourceContents(
            uri="kit://pixel.png", mime_type="image/png",
            blob=base64.b64encode(TINY_PNG).decode("ascii")))

    def mixed() -> list[ContentBlock]:
        """Return a text block, an image and a resource link together."""
        return [TextContent(type="text", text="here is everything:"),
                Image(data=TINY_PNG, format="png").to_image_content(),
                ResourceLink(type="resource_link", uri="kit://readme", name="readme")]

    def weather(city: str) -> Weather:
        """Report the (made-up) weather in a city, as structured output."""
        return Weather(temperature=21.5, conditions=f"sunny in {city}")

    def silent() -> None:
        """Return nothing at all."""
        return None

    for tool in (image, audio, resource_link, embedded_text, embedded_blob, mixed, weather,
                 silent):
        server.add_tool(tool, annotations=READ_ONLY)


def _behaviour_tools(server: MCPServer, state: _State, dotted_name: str, long_name: str) -> None:
    """Tools that fail, wait, count and write."""

    def echo(text: str) -> str:
        """Echo the text back."""
        return text

    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    def fail(reason: str = "because") -> str:
        """Always fail: the result has isError true."""
        raise ToolError(f"failed: {reason}")

    async def slow(seconds: float) -> str:
        """Sleep, then say so."""
        await anyio.sleep(seconds)
        return f"slept {seconds:g}s"

    async def rendezvous(n: int, tag: str, timeout: float = 5.0) -> str:
        """Wait until n rendezvous calls are in flight together, then return the tag.

        Fails (isError) if fewer than n are in flight together within timeout
        seconds: a batch that ran its calls one at a time never meets.
        """
        arrived = anyio.Event()
        state.waiting.append(arrived)
        if len(state.waiting) >= n:
            for event in state.waiting:
                event.set()
            state.waiting.clear()
        with anyio.move_on_after(timeout):
            await arrived.wait()
        if not arrived.is_set():
            state.waiting.remove(arrived)
            raise ToolError(f"{tag}: fewer than {n} calls were in flight together "
                            f"within {timeout:g}s")
        return f"{tag}: met {n}"

    def ticket() -> int:
        """Return the next number: 1, 2, 3, ... (each call that reaches the server counts)."""
        state.tickets += 1
        return state.tickets

    def read_notes() -> str:
        """Read the notes written so far."""
        return "\n".join(state.notes) or "(no notes)"

    def files_read_text(path: str) -> str:
        """Pretend to read a file (a tool whose name has a dot)."""
        return f"contents of {path}"

    def long_named() -> str:
        """A tool whose name is longer than a model API accepts."""
        return "the statements are in order"

    for tool in (echo, add, slow, rendezvous, ticket, read_notes):
        server.add_tool(tool, annotations=READ_ONLY)
    server.add_tool(files_read_text, name=dotted_name, annotations=READ_ONLY)
    server.add_tool(long_named, name=long_name, annotations=READ_ONLY)
    server.add_tool(fail)

    def write_note(text: str) -> str:
        """Append a note (not annotated: a write, so a batch holding it runs in order)."""
        state.notes.append(text)
        return f"noted ({len(state.notes)} so far)"

    def no_args() -> str:
        """Take no arguments (not annotated)."""
        return "nothing needed"

    server.add_tool(write_note)
    server.add_tool(no_args)


def build_testkit(name: str = "testkit", *, dotted_name: str, long_name: str,
                  **settings: Any) -> MCPServer:
    """A fresh TestKit server: one tool of every shape, and a README resource.

    ``dotted_name`` and ``long_name`` are the two tools named as a model API
    would refuse (the kit module owns the names: ``DOTTED_TOOL_NAME``,
    ``LONG_TOOL_NAME``).
    """
    server = MCPServer(name=name, version=KIT_VERSION, log_level="WARNING",
                       instructions="Tools of every shape, for testing agents.", **settings)
    state = _State()
    _behaviour_tools(server, state, dotted_name, long_name)
    _content_tools(server)

    def readme() -> str:
        return "# The test kit\nOne tool of every shape."

    server.resource("kit://readme", mime_type="text/markdown")(readme)
    return server


def build_progresskit(name: str = "progresskit", **settings: Any) -> MCPServer:
    """A fresh ProgressKit server: tools that report progress."""
    server = MCPServer(name=name, version=KIT_VERSION, log_level="WARNING",
                       instructions="Tools that report progress.", **settings)

    async def count(n: int, ctx: Context, delay_ms: int = 0) -> str:
        """Count to n, reporting progress i of n ("step i/n") at each step."""
        for i in range(1, n + 1):
            await ctx.report_progress(i, n, f"step {i}/{n}")
            if delay_ms and i < n:
                await anyio.sleep(delay_ms / 1000)
        return f"counted to {n}"

    async def ticks(n: int, ctx: Context) -> str:
        """Report progress n times with no total and no message."""
        for i in range(1, n + 1):
            await ctx.report_progress(i)
        return f"ticked {n} times"

    async def count_then_fail(n: int, ctx: Context) -> str:
        """Report progress to n, then fail."""
        for i in range(1, n + 1):
            await ctx.report_progress(i, n)
        raise ToolError(f"gave up after {n} steps")

    server.add_tool(count, annotations=READ_ONLY)
    server.add_tool(ticks, annotations=READ_ONLY)
    server.add_tool(count_then_fail)
    return server
