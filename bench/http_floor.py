"""The HTTP floor: the benchmark scenarios over Streamable HTTP with no client library.

:mod:`http.client` on keep-alive connections: one POST per request, body and
headers in one write, the answer read whole (``application/json``, or the
``data:`` of the last event of a ``text/event-stream``).  In the 2026-07-28
era each request carries the ``_meta`` envelope and the mirrored headers
(PROTOCOL §7.2); when ``server/discover`` is refused it speaks the 2025-11-25
handshake instead: ``initialize``, the ``Mcp-Session-Id`` it assigns on
every later request, ``notifications/initialized``.  No timeouts, no
cancellation, no validation -- the least any HTTP client must do.

Calls in flight: HTTP/1.1 carries one request at a time per connection, so
the floor opens :data:`~common.INFLIGHT` connections, one per thread, and
each round every thread sends one request; the rounds are fenced by a
barrier.
"""

from __future__ import annotations

import http.client
import json
import threading
import time
import urllib.parse
from typing import Any

from common import ECHO_TEXT, INFLIGHT, BenchError, Figure, NotAvailable, Sizes, Target, \
    check_echo, peak_rss_kb

__all__ = ["HttpWire", "connect", "sequential", "inflight"]

_META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
         "io.modelcontextprotocol/clientInfo": {"name": "bench-floor", "version": "1.0.0"},
         "io.modelcontextprotocol/clientCapabilities": {}}
_LEGACY = "2025-11-25"
_dumps = json.JSONEncoder(separators=(",", ":")).encode


class HttpWire:
    """One keep-alive HTTP connection, the era it speaks and a request counter.

    ``like``: an opened wire whose era and session this one shares (a second
    connection to the same server, for calls in flight).
    """

    def __init__(self, target: Target, like: HttpWire | None = None) -> None:
        assert target.url is not None
        url = urllib.parse.urlsplit(target.url)
        self.path = url.path or "/"
        self.conn = http.client.HTTPConnection(url.hostname or "127.0.0.1", url.port or 80)
        self.next_id = 0
        self.legacy = like.legacy if like else False
        self.session = like.session if like else None

    def post(self, message: dict[str, Any]) -> tuple[int, dict[str, Any] | None]:
        """POST one message; (status, the JSON-RPC answer or None)."""
        headers = {"Content-Type": "application/json",
                   "Accept": "application/json, text/event-stream"}
        if self.legacy:
            if message.get("method") != "initialize":
                headers["MCP-Protocol-Version"] = _LEGACY
            if self.session:
                headers["Mcp-Session-Id"] = self.session
        else:
            headers["MCP-Protocol-Version"] = "2026-07-28"
            headers["Mcp-Method"] = message["method"]
            name = message.get("params", {}).get("name")
            if name is not None:
                headers["Mcp-Name"] = name
        self.conn.request("POST", self.path, _dumps(message).encode(), headers)
        response = self.conn.getresponse()
        body = response.read()
        self.session = response.getheader("mcp-session-id") or self.session
        if not body:
            return response.status, None
        if response.getheader("content-type", "").startswith("text/event-stream"):
            body = [line[5:] for line in body.splitlines() if line.startswith(b"data:")][-1]
        answer: dict[str, Any] = json.loads(body)
        return response.status, answer

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """One request and its result (raises BenchError for anything else)."""
        self.next_id += 1
        ident = self.next_id
        message = {"jsonrpc": "2.0", "id": ident, "method": method,
                   "params": params if self.legacy else {**params, "_meta": _META}}
        _, answer = self.post(message)
        if answer is None or answer.get("id") != ident or "result" not in answer:
            raise BenchError(f"unexpected answer to {method}: {answer!r:.200}")
        result: dict[str, Any] = answer["result"]
        return result

    def open(self) -> list[dict[str, Any]]:
        """Discover (or, refused, the 2025-11-25 handshake) and the first tools/list."""
        status, answer = self.post({"jsonrpc": "2.0", "id": 0, "method": "server/discover",
                                    "params": {"_meta": _META}})
        if status != 200 or answer is None or "result" not in answer:
            self.legacy = True
            params = {"protocolVersion": _LEGACY, "capabilities": {},
                      "clientInfo": {"name": "bench-floor", "version": "1.0.0"}}
            self.request("initialize", params)
            self.post({"jsonrpc": "2.0", "method": "notifications/initialized"})
        tools: list[dict[str, Any]] = self.request("tools/list", {})["tools"]
        if not any(tool.get("name") == "echo" for tool in tools):
            raise NotAvailable("the server lists no echo tool")
        return tools

    def close(self) -> None:
        self.conn.close()


def _text(result: dict[str, Any]) -> Any:
    return result["content"][0]["text"]


def connect(target: Target, sizes: Sizes) -> Figure:
    """Discover (or handshake) and fetch the first tools/list (ms)."""
    start = time.perf_counter()
    wire = HttpWire(target)
    wire.open()
    elapsed = time.perf_counter() - start
    wire.close()
    return Figure(elapsed * 1000, "ms")


def sequential(target: Target, sizes: Sizes) -> Figure:
    """``sizes.calls`` tools/call round trips on one connection (calls/s)."""
    wire = HttpWire(target)
    try:
        wire.open()
        args = {"name": "echo", "arguments": {"text": ECHO_TEXT}}
        for _ in range(sizes.warmup):
            check_echo(_text(wire.request("tools/call", args)), ECHO_TEXT)
        start = time.perf_counter()
        for _ in range(sizes.calls):
            check_echo(_text(wire.request("tools/call", args)), ECHO_TEXT)
        elapsed = time.perf_counter() - start
    finally:
        wire.close()
    return Figure(sizes.calls / elapsed, "calls/s",
                  {"rss_kb": peak_rss_kb(), "us_per_call": elapsed / sizes.calls * 1e6})


def inflight(target: Target, sizes: Sizes) -> Figure:
    """Rounds of INFLIGHT requests, one per connection and thread (calls/s)."""
    first = HttpWire(target)
    first.open()
    wires = [first] + [HttpWire(target, like=first) for _ in range(INFLIGHT - 1)]
    fence = threading.Barrier(INFLIGHT + 1)
    failures: list[BaseException] = []

    def work(wire: HttpWire, text: str) -> None:
        args = {"name": "echo", "arguments": {"text": text}}
        try:
            for _ in range(sizes.rounds + 1):   # the first round warms the connections
                fence.wait()
                check_echo(_text(wire.request("tools/call", args)), text)
                fence.wait()
        except BaseException as exc:   # reported by the timing thread
            failures.append(exc)
            fence.abort()

    threads = [threading.Thread(target=work, args=(wire, f"m{i}"), daemon=True)
               for i, wire in enumerate(wires)]
    for thread in threads:
        thread.start()
    try:
        fence.wait()
        fence.wait()   # the warm-up round
        start = time.perf_counter()
        for _ in range(sizes.rounds):
            fence.wait()
            fence.wait()
        elapsed = time.perf_counter() - start
    except threading.BrokenBarrierError:
        raise BenchError(f"a connection failed: {failures[:1]!r}") from None
    finally:
        for thread in threads:
            thread.join(10)
        for wire in wires:
            wire.close()
    return Figure(sizes.rounds * INFLIGHT / elapsed, "calls/s")
