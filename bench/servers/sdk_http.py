"""The official SDK's echo server over Streamable HTTP, on 127.0.0.1 and a random port.

The same server as ``sdk_echo.py``, served by the SDK's Starlette app under
uvicorn (PROTOCOL §12 (b)); the endpoint is ``/mcp``.  Once it listens it
prints ``PORT=<n>`` on stdout; it exits when its stdin reaches EOF (or on
SIGTERM).  ``--handshake-only`` refuses every request whose
``MCP-Protocol-Version`` header is not a handshake version, as an mcp 1.x
server does (400), so clients reach the SDK's legacy Streamable HTTP
sessions: the "legacy" bench server.

Usage: ``python bench/servers/sdk_http.py [--handshake-only]``
"""

from __future__ import annotations

import socket
import sys
import threading
from typing import Any

import anyio
import uvicorn

from sdk_echo import build_server


_HANDSHAKE = (b"2024-11-05", b"2025-03-26", b"2025-06-18", b"2025-11-25")
_REFUSAL = (b'{"jsonrpc":"2.0","id":"server-error","error":{"code":-32600,'
            b'"message":"Bad Request: Unsupported protocol version"}}')


def handshake_only(app: Any) -> Any:
    """``app`` behind a router that lets only handshake-era requests through."""
    async def routed(scope: Any, receive: Any, send: Any) -> None:
        version = dict(scope.get("headers") or []).get(b"mcp-protocol-version") \
            if scope["type"] == "http" else None
        if version is None or version in _HANDSHAKE:
            await app(scope, receive, send)
            return
        await send({"type": "http.response.start", "status": 400, "headers": [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(_REFUSAL)).encode())]})
        await send({"type": "http.response.body", "body": _REFUSAL})
    return routed


def main() -> None:
    app: Any = build_server().streamable_http_app(host="127.0.0.1")
    if "--handshake-only" in sys.argv[1:]:
        app = handshake_only(app)
    # proto=IPPROTO_TCP, not the default 0: asyncio sets TCP_NODELAY on accepted sockets
    # only when it can see they are TCP.  Without it Nagle holds each response body back
    # until the client's delayed ACK (~40 ms per request), which a stock
    # uvicorn.run(host=, port=) -- whose sockets come from getaddrinfo -- never does.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(256)   # connections queue from here on, before uvicorn accepts them
    web = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False,
                                        timeout_graceful_shutdown=1))

    def watch_stdin() -> None:
        while sys.stdin.buffer.read(4096):
            pass
        web.should_exit = True

    threading.Thread(target=watch_stdin, name="stdin-watch", daemon=True).start()
    print(f"PORT={sock.getsockname()[1]}", flush=True)

    async def serve() -> None:
        await web.serve(sockets=[sock])

    anyio.run(serve)


if __name__ == "__main__":
    main()
