"""The chaos echo server (``echo.py``) that floods the client with requests of its own.

``tools/call flood {"count", "method"}`` sends ``count`` server->client requests (``ping``,
``elicitation/create`` or ``sampling/createMessage``, ids ``s0``, ``s1``, ...) before its
answer, reading stdin between batches, so that the client's replies and its other requests
(a concurrent ``echo``) are served during the flood.  ``tools/call replies`` answers with
what came back so far: ``{"results", "errors": {code: n}}``.

Usage: ``python tests/servers/chaos/asking.py``
"""

import json
import os
import select
import sys
from typing import Any, Dict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from echo import Server, encode, result  # noqa: E402

PARAMS = {
    "ping": {},
    "elicitation/create": {"mode": "form", "message": "Name?", "requestedSchema": {
        "type": "object", "properties": {"name": {"type": "string"}}}},
    "sampling/createMessage": {"maxTokens": 10, "messages": [
        {"role": "user", "content": {"type": "text", "text": "Capital of France?"}}]},
}


class Asking(Server):
    def __init__(self) -> None:
        super().__init__()
        self.partial = b""
        self.results = 0
        self.errors: Dict[str, int] = {}

    def on_line(self, line: bytes) -> None:
        message = json.loads(line)
        if isinstance(message, dict) and "method" not in message and \
                str(message.get("id", "")).startswith("s"):
            if "error" in message:
                code = str(message["error"].get("code"))
                self.errors[code] = self.errors.get(code, 0) + 1
            else:
                self.results += 1
            return
        super().on_line(line)

    def on_call(self, ident: Any, name: Any, arguments: Dict[str, Any]) -> None:
        if name == "flood":
            self.flood(int(arguments["count"]), str(arguments["method"]))
            self.emit(result(ident, {"content": [{"type": "text", "text": "flooded"}]}))
        elif name == "replies":
            self.emit(result(ident, {"content": [], "structuredContent": {
                "results": self.results, "errors": self.errors}}))
        else:
            super().on_call(ident, name, arguments)

    def flood(self, count: int, method: str) -> None:
        template = encode({"jsonrpc": "2.0", "id": "s%d", "method": method,
                           "params": PARAMS[method]})
        for start in range(0, count, 1000):
            self.out.write(b"".join(template % n for n in range(start, min(start + 1000, count))))
            self.flush()
            self.pump(0)

    def pump(self, wait: Any) -> bool:
        """Serve the complete lines stdin has now (``wait``: select's timeout); False at EOF."""
        if not select.select([0], [], [], wait)[0]:
            return True
        chunk = os.read(0, 1 << 16)
        if not chunk:
            return False
        *lines, self.partial = (self.partial + chunk).split(b"\n")
        for line in lines:
            if line.strip():
                self.on_line(line)
        return True

    def read_stdin(self) -> None:
        while self.pump(None):
            self.flush()


if __name__ == "__main__":
    Asking().serve()
