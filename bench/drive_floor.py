"""The floor: the benchmark scenarios with no client library at all.

Hand-written JSON lines over the child's pipes, on one thread: each request
is built and encoded with :mod:`json` (with the 2026-07-28 ``_meta``
envelope, PROTOCOL §3.1), written and flushed; each answer is a
``readline`` and a ``json.loads``, matched by id.  No era probe beyond one
``server/discover``, no timeouts, no cancellation, no validation -- the least
any stdio client must do, so ``mcp_client / floor`` is the price of the
library.  Calls in flight are written in one go, then read back.

Over Streamable HTTP the floor is :mod:`http_floor`: :mod:`http.client` on
keep-alive connections, one POST per request (in either era), and one
connection per thread for calls in flight.
"""

from __future__ import annotations

import json
import subprocess
import time
from typing import IO, TYPE_CHECKING, Any

from common import ECHO_TEXT, INFLIGHT, BenchError, Figure, NotAvailable, Sizes, Target, \
    check_echo, peak_rss_kb

if TYPE_CHECKING:
    from http_floor import HttpWire

__all__ = ["connect", "sequential", "inflight", "batch", "cached_list"]

_META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
         "io.modelcontextprotocol/clientInfo": {"name": "bench-floor", "version": "1.0.0"},
         "io.modelcontextprotocol/clientCapabilities": {}}


class Wire:
    """One child process and a request counter."""

    def __init__(self, target: Target) -> None:
        assert target.url is None
        self.proc = subprocess.Popen(target.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.stdin: IO[bytes] = self.proc.stdin
        self.stdout: IO[bytes] = self.proc.stdout
        self.next_id = 0

    def encode(self, method: str, params: dict[str, Any]) -> tuple[int, bytes]:
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method,
                   "params": {**params, "_meta": _META}}
        return self.next_id, json.dumps(message, separators=(",", ":")).encode() + b"\n"

    def read(self) -> dict[str, Any]:
        while True:
            line = self.stdout.readline()
            if not line:
                raise BenchError("the server closed its stdout")
            message = json.loads(line)
            if isinstance(message, dict) and "id" in message and "method" not in message:
                return message

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        ident, data = self.encode(method, params)
        self.stdin.write(data)
        self.stdin.flush()
        answer = self.read()
        if answer.get("id") != ident or "result" not in answer:
            raise BenchError(f"unexpected answer to {method}: {answer!r:.200}")
        result: dict[str, Any] = answer["result"]
        return result

    def open(self) -> list[dict[str, Any]]:
        discovered = self.request("server/discover", {})
        if "2026-07-28" not in discovered.get("supportedVersions", ()):
            raise NotAvailable("the server does not speak 2026-07-28")
        tools: list[dict[str, Any]] = self.request("tools/list", {})["tools"]
        if not any(tool.get("name") == "echo" for tool in tools):
            raise NotAvailable("the server lists no echo tool")
        return tools

    def close(self) -> None:
        self.stdin.close()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.stdout.close()


def _wire(target: Target) -> Wire | HttpWire:
    if target.url is None:
        return Wire(target)
    from http_floor import HttpWire   # here: the stdio floor's RSS should not carry http.client
    return HttpWire(target)


def _text(result: dict[str, Any]) -> Any:
    return result["content"][0]["text"]


def connect(target: Target, sizes: Sizes) -> Figure:
    """Spawn, discover and fetch the first tools/list (ms)."""
    start = time.perf_counter()
    wire = _wire(target)
    wire.open()
    elapsed = time.perf_counter() - start
    wire.close()
    return Figure(elapsed * 1000, "ms")


def sequential(target: Target, sizes: Sizes) -> Figure:
    """``sizes.calls`` tools/call round trips, one after another (calls/s)."""
    wire = _wire(target)
    try:
        wire.open()
        args = {"name": "echo", "arguments": {"text": ECHO_TEXT}}
        for _ in range(sizes.warmup):
            check_echo(_text(wire.request("tools/call", args)), ECHO_TEXT)
        start, cpu = time.perf_counter(), time.process_time()
        for _ in range(sizes.calls):
            check_echo(_text(wire.request("tools/call", args)), ECHO_TEXT)
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    finally:
        wire.close()
    return Figure(sizes.calls / elapsed, "calls/s",
                  {"rss_kb": peak_rss_kb(), "us_per_call": elapsed / sizes.calls * 1e6,
                   "cpu_us_per_call": cpu / sizes.calls * 1e6})


def inflight(target: Target, sizes: Sizes) -> Figure:
    """Rounds of INFLIGHT requests written at once, then read back (calls/s)."""
    if target.url is not None:
        from http_floor import inflight as http_inflight
        return http_inflight(target, sizes)   # a connection per request in flight
    texts = [f"m{i}" for i in range(INFLIGHT)]
    wire = Wire(target)

    def one_round() -> None:
        expected: dict[Any, str] = {}
        chunks = []
        for text in texts:
            ident, data = wire.encode("tools/call", {"name": "echo", "arguments": {"text": text}})
            expected[ident] = text
            chunks.append(data)
        wire.stdin.write(b"".join(chunks))
        wire.stdin.flush()
        for _ in texts:
            answer = wire.read()
            check_echo(_text(answer["result"]), expected.pop(answer["id"]))

    try:
        wire.open()
        one_round()
        start, cpu = time.perf_counter(), time.process_time()
        for _ in range(sizes.rounds):
            one_round()
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    finally:
        wire.close()
    return Figure(sizes.rounds * INFLIGHT / elapsed, "calls/s",
                  {"cpu_us_per_call": cpu / (sizes.rounds * INFLIGHT) * 1e6})


def batch(target: Target, sizes: Sizes) -> Figure:
    """No library, no batch API: its counterpart is :func:`inflight`."""
    raise NotAvailable("no batch API without a library; compare with the floor's in-flight figure")


def cached_list(target: Target, sizes: Sizes) -> Figure:
    """Without a library there is no cache to measure."""
    raise NotAvailable("no cache without a library")
