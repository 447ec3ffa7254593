"""A fast, hand-written MCP server over stdio (2026-07-28 era only), and the base of the chaos.

No SDK and no threads: one loop reads stdin in chunks, answers every complete line, and fires
the answers it holds back when they fall due.  ``server/discover`` gets a DiscoverResult,
``tools/list`` the four tools, and ``tools/call``:

* ``echo {"text"}`` -- answered at once with the text;
* ``slow {"ms"}`` -- answered after ``ms`` milliseconds, without holding up anything else;
* ``never`` -- never answered (until a ``notifications/cancelled`` forgets it);
* ``stats`` -- ``{"requests", "cancels", "held"}``: requests seen, cancellations received,
  answers still held back.

``notifications/cancelled`` drops the held answer it names.  A line that is not JSON, or a
request it does not know, gets a JSON-RPC error.  Exits 0 on stdin EOF.

The other scripts in this folder subclass :class:`Server` and override :meth:`Server.emit` (what
goes on stdout for an answer) or :meth:`Server.on_request` to misbehave.

Usage: ``python tests/servers/chaos/echo.py``
"""

import heapq
import json
import os
import select
import sys
import time
from typing import Any, Dict, List, Optional, Tuple

VERSION = "2026-07-28"
DISCOVER = {"resultType": "complete", "supportedVersions": [VERSION],
            "capabilities": {"tools": {}}, "ttlMs": 0, "cacheScope": "private",
            "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "chaos-echo",
                                                             "version": "1"}}}
TOOLS = [{"name": name, "description": text, "inputSchema": {"type": "object"}}
         for name, text in (("echo", "Return the text."), ("slow", "Answer after ms."),
                            ("never", "Never answer."), ("stats", "Counters."))]


def encode(message: Any) -> bytes:
    return json.dumps(message, separators=(",", ":")).encode() + b"\n"


def result(ident: Any, body: Dict[str, Any]) -> Dict[str, Any]:
    return {"jsonrpc": "2.0", "id": ident, "result": {"resultType": "complete", **body}}


def error(ident: Any, code: int, text: str) -> Dict[str, Any]:
    return {"jsonrpc": "2.0", "id": ident, "error": {"code": code, "message": text}}


def text_result(ident: Any, text: str) -> Dict[str, Any]:
    return result(ident, {"content": [{"type": "text", "text": text}]})


class Server:
    """The loop; subclasses misbehave by overriding :meth:`emit` or :meth:`on_request`."""

    def __init__(self) -> None:
        self.requests = 0
        self.cancels = 0
        self.held: Dict[Any, Dict[str, Any]] = {}
        self.timers: List[Tuple[float, int, Any]] = []
        self.serial = 0
        self.out = sys.stdout.buffer

    # -- what goes out -------------------------------------------------------------------

    def emit(self, message: Dict[str, Any]) -> None:
        """Put one outgoing message on stdout (a chaos server overrides this)."""
        self.out.write(encode(message))

    def flush(self) -> None:
        self.out.flush()

    # -- what comes in -------------------------------------------------------------------

    def on_line(self, line: bytes) -> None:
        try:
            message = json.loads(line)
        except ValueError:
            self.emit(error(None, -32700, "parse error"))
            return
        if not isinstance(message, dict):
            return
        if "id" in message and "method" in message:
            self.requests += 1
            self.on_request(message)
        elif message.get("method") == "notifications/cancelled":
            self.cancels += 1
            params = message.get("params") or {}
            self.held.pop(params.get("requestId"), None)

    def on_request(self, message: Dict[str, Any]) -> None:
        ident, method = message["id"], message["method"]
        params = message.get("params") or {}
        if method == "server/discover":
            self.emit(result(ident, DISCOVER))
        elif method == "tools/list":
            self.emit(result(ident, {"tools": TOOLS}))
        elif method == "tools/call":
            self.on_call(ident, params.get("name"), params.get("arguments") or {})
        else:
            self.emit(error(ident, -32601, f"method not found: {method}"))

    def on_call(self, ident: Any, name: Any, arguments: Dict[str, Any]) -> None:
        if name == "echo":
            self.emit(text_result(ident, str(arguments.get("text", ""))))
        elif name == "slow":
            self.hold(ident, text_result(ident, "slow"), float(arguments.get("ms", 0)))
        elif name == "never":
            self.hold(ident, text_result(ident, "never"), None)
        elif name == "stats":
            counts = {"requests": self.requests, "cancels": self.cancels,
                      "held": len(self.held)}
            self.emit(result(ident, {"content": [], "structuredContent": counts}))
        else:
            self.emit(result(ident, {"content": [{"type": "text", "text": f"no tool {name}"}],
                                     "isError": True}))

    def hold(self, ident: Any, answer: Dict[str, Any], ms: Optional[float]) -> None:
        self.held[ident] = answer
        if ms is not None:
            self.serial += 1
            heapq.heappush(self.timers, (time.monotonic() + ms / 1000.0, self.serial, ident))

    def fire_due(self) -> Optional[float]:
        """Send the held answers that fell due; seconds until the next one (None: none)."""
        now = time.monotonic()
        while self.timers and self.timers[0][0] <= now:
            _, _, ident = heapq.heappop(self.timers)
            answer = self.held.pop(ident, None)
            if answer is not None:
                self.emit(answer)
        return max(0.0, self.timers[0][0] - now) if self.timers else None

    # -- the loop ------------------------------------------------------------------------

    def read_stdin(self) -> None:
        """Serve until stdin ends."""
        partial = b""
        while True:
            wait = self.fire_due()
            self.flush()
            if wait is not None and not select.select([0], [], [], wait)[0]:
                continue
            chunk = os.read(0, 1 << 16)
            if not chunk:
                return
            *lines, partial = (partial + chunk).split(b"\n")
            for line in lines:
                if line.strip():
                    self.on_line(line)

    def serve(self) -> None:
        try:
            self.read_stdin()
            self.flush()
        except BrokenPipeError:
            pass   # the client went away first


if __name__ == "__main__":
    Server().serve()
