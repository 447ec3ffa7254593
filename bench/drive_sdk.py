"""The benchmark scenarios, driven through the official SDK's client (``mcp==2.3.0``).

``mcp.client.Client`` in its default ``mode="auto"`` (``server/discover``,
falling back to ``initialize``), with its default response cache
(``CacheConfig()``, which honours the server's ``ttlMs``), driven by
``asyncio.run``.  A stdio server is given as ``StdioServerParameters``; a
Streamable HTTP server as its URL string.  Calls in flight are
``asyncio.gather`` over one connection.
"""

from __future__ import annotations

import asyncio
import os
import time
from typing import Any, Callable, Coroutine

from common import ECHO_TEXT, INFLIGHT, Figure, NotAvailable, Sizes, Target, check_echo, \
    peak_rss_kb

from mcp.client import Client
from mcp.client.stdio import StdioServerParameters

__all__ = ["connect", "sequential", "inflight", "batch", "cached_list"]


def _client(target: Target) -> Client:
    if target.url is not None:
        return Client(target.url)
    # The SDK starts a child from a filtered environment; hand it ours, like the other clients.
    server = StdioServerParameters(command=target.argv[0], args=list(target.argv[1:]),
                                   env=dict(os.environ))
    return Client(server)


def _text(result: Any) -> Any:
    if result.is_error:
        return f"isError: {result.content!r}"
    return result.content[0].text


async def _listed(client: Client) -> None:
    tools = await client.list_tools()
    if not any(tool.name == "echo" for tool in tools.tools):
        raise NotAvailable("the server lists no echo tool")


def _run(main: Callable[[], Coroutine[Any, Any, Figure]]) -> Figure:
    return asyncio.run(main())


def connect(target: Target, sizes: Sizes) -> Figure:
    """Enter the client (it probes at once) and fetch the first list_tools (ms)."""
    async def main() -> Figure:
        start = time.perf_counter()
        async with _client(target) as client:
            await _listed(client)
            elapsed = time.perf_counter() - start
        return Figure(elapsed * 1000, "ms")
    return _run(main)


def sequential(target: Target, sizes: Sizes) -> Figure:
    """``sizes.calls`` awaited call_tool round trips, one after another (calls/s)."""
    async def main() -> Figure:
        async with _client(target) as client:
            await _listed(client)
            args = {"text": ECHO_TEXT}
            for _ in range(sizes.warmup):
                check_echo(_text(await client.call_tool("echo", args)), ECHO_TEXT)
            start = time.perf_counter()
            for _ in range(sizes.calls):
                check_echo(_text(await client.call_tool("echo", args)), ECHO_TEXT)
            elapsed = time.perf_counter() - start
        return Figure(sizes.calls / elapsed, "calls/s",
                      {"rss_kb": peak_rss_kb(), "us_per_call": elapsed / sizes.calls * 1e6})
    return _run(main)


def inflight(target: Target, sizes: Sizes) -> Figure:
    """Rounds of INFLIGHT calls awaited together with asyncio.gather (calls/s)."""
    texts = [f"m{i}" for i in range(INFLIGHT)]

    async def main() -> Figure:
        async with _client(target) as client:
            await _listed(client)

            async def one_round() -> None:
                results = await asyncio.gather(
                    *(client.call_tool("echo", {"text": text}) for text in texts))
                for text, result in zip(texts, results):
                    check_echo(_text(result), text)

            await one_round()
            start = time.perf_counter()
            for _ in range(sizes.rounds):
                await one_round()
            elapsed = time.perf_counter() - start
        return Figure(sizes.rounds * INFLIGHT / elapsed, "calls/s")
    return _run(main)


def batch(target: Target, sizes: Sizes) -> Figure:
    """The SDK has no tool-call batch: its counterpart is :func:`inflight`."""
    raise NotAvailable("the SDK client has no batch API; compare with its asyncio.gather figure")


def cached_list(target: Target, sizes: Sizes) -> Figure:
    """list_tools with the default cache (µs per call); also one refreshed call."""
    async def main() -> Figure:
        async with _client(target) as client:
            await _listed(client)
            start = time.perf_counter()
            await client.list_tools(cache_mode="refresh")
            uncached = time.perf_counter() - start
            for _ in range(100):
                await client.list_tools()
            start = time.perf_counter()
            for _ in range(sizes.lookups):
                await client.list_tools()
            elapsed = time.perf_counter() - start
        return Figure(elapsed / sizes.lookups * 1e6, "µs", {"uncached_us": uncached * 1e6})
    return _run(main)
