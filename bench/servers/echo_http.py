"""A minimal hand-written MCP server over Streamable HTTP, in both eras, with no SDK.

It exists so that an HTTP benchmark measures the client, not the server: raw
sockets, one thread per connection, HTTP/1.1 keep-alive, every answer written
with its headers in one ``send`` (``TCP_NODELAY`` set, so no Nagle delay).
It serves the same ``echo`` tool as ``echo_stdio.py``, whose answer bytes it
reuses for 2026-07-28 requests (stateless: no session), and it also speaks
the 2025-11-25 handshake: an ``initialize`` without a 2026-07-28 version
header opens a session (``Mcp-Session-Id``), ``notifications/initialized``
is accepted (202), later requests must carry the id (400 without, 404 for an
unknown one) and ``DELETE`` ends it (2025-11-25 basic/transports, "Session
Management").  A ``GET`` (the standalone stream) is refused with 405.

What an endpoint does is spelled in its path, whose last segment is ``mcp``;
the segments before it are flags, in any order:

* ``sse`` -- answer every request as a ``text/event-stream`` (one ``message``
  event, then the stream ends), instead of ``application/json``;
* ``legacy`` -- refuse every request whose ``MCP-Protocol-Version`` header is
  not a handshake version (400), as an mcp 1.x server does, so a client that
  probes falls back to ``initialize`` (the SDK's ``sdk_http.py
  --handshake-only`` does the same);
* ``auth`` -- require ``Authorization: Bearer <token>`` (``--token``,
  default ``bench-token``); anything else is a 401 with a ``WWW-Authenticate``
  challenge.

So ``/mcp`` is modern JSON, ``/sse/mcp`` modern SSE, ``/legacy/mcp`` and
``/legacy/sse/mcp`` the handshake era, ``/auth/mcp`` modern JSON behind a
token.  ``GET /stats`` answers the requests served so far, by verb and
JSON-RPC method (the era probe's cost is counted with it).

Usage: ``python bench/servers/echo_http.py [--token T]``; once it listens it
prints ``PORT=<n>`` on stdout, and it exits when its stdin reaches EOF.
"""

from __future__ import annotations

import collections
import json
import os
import socket
import sys
import threading
import uuid
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from echo_stdio import VERSION, answer as modern_answer  # noqa: E402

#: The versions of the handshake era this server negotiates (2025-11-25 first).
HANDSHAKE = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
_REFUSAL = (b'{"jsonrpc":"2.0","id":"server-error","error":{"code":-32600,'
            b'"message":"Bad Request: Unsupported protocol version"}}')
_TOOLS = [{
    "name": "echo", "description": "Return the text unchanged.",
    "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}},
                    "required": ["text"]},
    "annotations": {"readOnlyHint": True, "destructiveHint": False, "openWorldHint": False},
}]
_SERVER_INFO = {"name": "bench-echo-http", "version": "1.0.0"}
_REASONS = {200: b"OK", 202: b"Accepted", 400: b"Bad Request", 401: b"Unauthorized",
            404: b"Not Found", 405: b"Method Not Allowed", 411: b"Length Required"}
_dumps = json.JSONEncoder(separators=(",", ":")).encode


class Counts:
    """Requests served, by ``"VERB method"`` (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counts: collections.Counter[str] = collections.Counter()

    def add(self, what: str) -> None:
        with self._lock:
            self._counts[what] += 1

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            return {"total": sum(self._counts.values()), "by_method": dict(self._counts)}


class Server:
    """The sessions and the settings every connection shares."""

    def __init__(self, token: str) -> None:
        self.bearer = f"Bearer {token}"
        self.sessions: set[str] = set()
        self.lock = threading.Lock()
        self.counts = Counts()

    # -- one HTTP request -------------------------------------------------------

    def handle(self, verb: str, path: str, headers: dict[str, str], body: bytes) -> bytes:
        """The whole response (status line, headers and body) to one request."""
        if verb == "GET" and path == "/stats":
            return _response(200, _dumps(self.counts.snapshot()).encode())
        flags = set(path.strip("/").split("/"))
        if not path.endswith("/mcp"):
            return _response(404, b"no such endpoint")
        if "auth" in flags and headers.get("authorization") != self.bearer:
            self.counts.add(f"{verb} (unauthorized)")
            return _response(401, b"", extra=b'WWW-Authenticate: Bearer realm="bench"\r\n')
        version = headers.get("mcp-protocol-version")
        if "legacy" in flags and version is not None and version not in HANDSHAKE:
            self.counts.add(f"{verb} (refused)")
            return _response(400, _REFUSAL)
        if verb == "DELETE":
            self.counts.add("DELETE")
            with self.lock:
                self.sessions.discard(headers.get("mcp-session-id", ""))
            return _response(200, b"")
        if verb != "POST":
            self.counts.add(verb)
            return _response(405, b"", extra=b"Allow: POST, DELETE\r\n")
        try:
            message = json.loads(body)
        except ValueError:
            return _response(400, b'{"jsonrpc":"2.0","id":null,"error":'
                                  b'{"code":-32700,"message":"Parse error"}}')
        method = message.get("method") if isinstance(message, dict) else None
        self.counts.add(f"POST {method}")
        return self._post(message, method, version, headers, flags)

    def _post(self, message: Any, method: Any, version: str | None, headers: dict[str, str],
              flags: set[str]) -> bytes:
        sse = "sse" in flags
        if not isinstance(message, dict) or "id" not in message:
            return _response(202, b"")   # a notification or a response: accepted
        if "legacy" not in flags and (version == VERSION or method == "server/discover"):
            reply = modern_answer(_dumps(message).encode()).rstrip(b"\n")
            return _answer(reply, sse)
        if method == "initialize":
            return self._initialize(message, sse)
        session = headers.get("mcp-session-id")
        with self.lock:
            known = session in self.sessions
        if session is None:
            return _response(400, _error(message["id"], -32600, "Bad Request: Missing session ID"))
        if not known:
            return _response(404, _error(message["id"], -32001, "Session not found"))
        return _answer(_legacy_reply(message), sse)

    def _initialize(self, message: dict[str, Any], sse: bool) -> bytes:
        params = message.get("params") if isinstance(message.get("params"), dict) else {}
        asked = params.get("protocolVersion")
        chosen = asked if asked in HANDSHAKE else HANDSHAKE[0]
        session = uuid.uuid4().hex
        with self.lock:
            self.sessions.add(session)
        result = {"protocolVersion": chosen, "capabilities": {"tools": {}},
                  "serverInfo": _SERVER_INFO}
        body = _dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}).encode()
        return _answer(body, sse, extra=f"Mcp-Session-Id: {session}\r\n".encode())


def _legacy_reply(message: dict[str, Any]) -> bytes:
    """A 2025-11-25 session's answer to ``tools/list``, ``tools/call`` or ``ping``."""
    ident, method = message["id"], message.get("method")
    params = message.get("params") if isinstance(message.get("params"), dict) else {}
    if method == "tools/list":
        result: dict[str, Any] = {"tools": _TOOLS}
    elif method == "tools/call" and params.get("name") == "echo":
        text = (params.get("arguments") or {}).get("text")
        result = {"content": [{"type": "text", "text": text}], "isError": False}
    elif method == "ping":
        result = {}
    else:
        return _error(ident, -32601, "Method not found")
    return _dumps({"jsonrpc": "2.0", "id": ident, "result": result}).encode()


def _error(ident: Any, code: int, text: str) -> bytes:
    return _dumps({"jsonrpc": "2.0", "id": ident,
                   "error": {"code": code, "message": text}}).encode()


def _answer(reply: bytes, sse: bool, *, extra: bytes = b"") -> bytes:
    if sse:
        return _response(200, b"event: message\ndata: " + reply + b"\n\n",
                         kind=b"text/event-stream", extra=b"Cache-Control: no-cache\r\n" + extra)
    return _response(200, reply, extra=extra)


def _response(status: int, body: bytes, *, kind: bytes = b"application/json",
              extra: bytes = b"") -> bytes:
    head = b"HTTP/1.1 %d %s\r\nContent-Length: %d\r\n" % (status, _REASONS[status], len(body))
    if body:
        head += b"Content-Type: " + kind + b"\r\n"
    return head + extra + b"\r\n" + body


# -- the sockets -----------------------------------------------------------------

def _parse_head(head: bytes) -> tuple[str, str, dict[str, str]]:
    lines = head.decode("latin-1").split("\r\n")
    verb, path, _ = lines[0].split(" ", 2)
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return verb, path.split("?", 1)[0], headers


def serve_connection(server: Server, conn: socket.socket) -> None:
    """Answer the requests of one keep-alive connection until the client closes it."""
    buffer = b""
    try:
        while True:
            while b"\r\n\r\n" not in buffer:
                chunk = conn.recv(65536)
                if not chunk:
                    return
                buffer += chunk
            head, _, buffer = buffer.partition(b"\r\n\r\n")
            verb, path, headers = _parse_head(head)
            if "chunked" in headers.get("transfer-encoding", ""):
                conn.sendall(_response(411, b""))
                return
            length = int(headers.get("content-length", "0"))
            while len(buffer) < length:
                chunk = conn.recv(65536)
                if not chunk:
                    return
                buffer += chunk
            body, buffer = buffer[:length], buffer[length:]
            conn.sendall(server.handle(verb, path, headers, body))
            if headers.get("connection", "").lower() == "close":
                return
    except (OSError, ValueError):
        return
    finally:
        conn.close()


def main() -> None:
    token = "bench-token"
    if "--token" in sys.argv[1:]:
        token = sys.argv[sys.argv.index("--token") + 1]
    server = Server(token)
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(512)

    def accept() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            threading.Thread(target=serve_connection, args=(server, conn), daemon=True,
                             name="echo-http-conn").start()

    threading.Thread(target=accept, name="echo-http-accept", daemon=True).start()
    print(f"PORT={listener.getsockname()[1]}", flush=True)
    while sys.stdin.buffer.read(4096):
        pass
    listener.close()


if __name__ == "__main__":
    main()
