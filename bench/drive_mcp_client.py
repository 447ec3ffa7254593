"""The benchmark scenarios, driven through ``mcp_client`` (this repository's client).

Blocking calls on the caller's thread; ``call_tool_async`` futures for calls
in flight; ``execute_tool_calls`` (a widened batch of read-only calls) where
the client has it; ``Client.connect_http`` where the client has it.
"""

from __future__ import annotations

import json
import time
from concurrent.futures import wait
from typing import Any

from common import ECHO_TEXT, INFLIGHT, BenchError, Figure, NotAvailable, Sizes, Target, \
    check_echo, peak_rss_kb

from mcp_client import Client

__all__ = ["connect", "sequential", "inflight", "batch", "cached_list"]


def _open(target: Target, **options: Any) -> Client:
    if target.url is not None:
        if not hasattr(Client, "connect_http"):
            raise NotAvailable("Client.connect_http does not exist in this checkout")
        client: Client = getattr(Client, "connect_http")(target.url, **options)
        return client
    return Client.connect_stdio(target.argv[0], args=list(target.argv[1:]), **options)


def _text(result: dict[str, Any]) -> Any:
    return result["content"][0]["text"]


def _echo_names(tools: list[dict[str, Any]]) -> None:
    if not any(tool.get("name") == "echo" for tool in tools):
        raise NotAvailable("the server lists no echo tool")


def connect(target: Target, sizes: Sizes) -> Figure:
    """Connect and fetch the first list_tools (ms)."""
    start = time.perf_counter()
    client = _open(target)
    tools = client.list_tools()
    elapsed = time.perf_counter() - start
    client.close()
    _echo_names(tools)
    return Figure(elapsed * 1000, "ms")


def sequential(target: Target, sizes: Sizes) -> Figure:
    """``sizes.calls`` blocking call_tool round trips, one after another (calls/s)."""
    with _open(target) as client:
        _echo_names(client.list_tools())
        args = {"text": ECHO_TEXT}
        for _ in range(sizes.warmup):
            check_echo(_text(client.call_tool("echo", args)), ECHO_TEXT)
        start, cpu = time.perf_counter(), time.process_time()
        for _ in range(sizes.calls):
            check_echo(_text(client.call_tool("echo", args)), ECHO_TEXT)
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    return Figure(sizes.calls / elapsed, "calls/s",
                  {"rss_kb": peak_rss_kb(), "us_per_call": elapsed / sizes.calls * 1e6,
                   "cpu_us_per_call": cpu / sizes.calls * 1e6})


def inflight(target: Target, sizes: Sizes) -> Figure:
    """Rounds of INFLIGHT ``call_tool_async`` calls on one connection (calls/s)."""
    texts = [f"m{i}" for i in range(INFLIGHT)]
    with _open(target) as client:
        _echo_names(client.list_tools())

        def one_round() -> None:
            futures = [client.call_tool_async("echo", {"text": text}) for text in texts]
            wait(futures)
            for text, future in zip(texts, futures):
                check_echo(_text(future.result()), text)

        one_round()   # warm-up: the worker threads exist from here on
        start, cpu = time.perf_counter(), time.process_time()
        for _ in range(sizes.rounds):
            one_round()
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    return Figure(sizes.rounds * INFLIGHT / elapsed, "calls/s",
                  {"cpu_us_per_call": cpu / (sizes.rounds * INFLIGHT) * 1e6})


def batch(target: Target, sizes: Sizes) -> Figure:
    """Rounds of one ``execute_tool_calls`` batch of INFLIGHT distinct read-only calls,
    widened with ``tool_concurrency=INFLIGHT`` (calls/s)."""
    if not hasattr(Client, "execute_tool_calls"):
        raise NotAvailable("Client.execute_tool_calls does not exist in this checkout")
    texts = [f"m{i}" for i in range(INFLIGHT)]
    calls = [{"id": f"call-{i}", "type": "function",
              "function": {"name": "echo", "arguments": json.dumps({"text": text})}}
             for i, text in enumerate(texts)]
    with _open(target, tool_concurrency=INFLIGHT) as client:
        _echo_names(client.list_tools())
        run = getattr(client, "execute_tool_calls")

        def one_round() -> None:
            entries = run(calls)
            for text, entry in zip(texts, entries):
                if entry.get("is_error"):
                    raise BenchError(f"the batch failed: {entry.get('content')!r}")
                check_echo(entry.get("content"), text)

        one_round()
        start, cpu = time.perf_counter(), time.process_time()
        for _ in range(sizes.rounds):
            one_round()
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    return Figure(sizes.rounds * INFLIGHT / elapsed, "calls/s",
                  {"cpu_us_per_call": cpu / (sizes.rounds * INFLIGHT) * 1e6})


def cached_list(target: Target, sizes: Sizes) -> Figure:
    """list_tools served from the ttlMs cache (µs per call); also one uncached call."""
    with _open(target) as client:
        _echo_names(client.list_tools())
        start = time.perf_counter()
        client.list_tools(refresh=True)
        uncached = time.perf_counter() - start
        for _ in range(100):
            client.list_tools()
        start = time.perf_counter()
        for _ in range(sizes.lookups):
            client.list_tools()
        elapsed = time.perf_counter() - start
    return Figure(elapsed / sizes.lookups * 1e6, "µs", {"uncached_us": uncached * 1e6})
