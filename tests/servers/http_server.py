"""The demo server over Streamable HTTP (official SDK app, uvicorn) on 127.0.0.1, random port.

Prints ``PORT=<n>`` on stdout once it listens; the endpoint is ``/mcp``.  The SDK app is
dual-era and routes each POST by its ``MCP-Protocol-Version`` header (PROTOCOL §7.9).
``--json`` makes every answer ``application/json`` (the SDK then drops progress and log
notifications).  Exits on SIGTERM or when its stdin reaches EOF (PROTOCOL §12).

Beyond ``demo_server.build_server()`` it has three tools for watching cancellation from the
server's side: ``watched(tag, seconds)`` reports progress once (so the answer becomes an
event stream), then sleeps, noting whether it was cancelled; ``wait_started(tag, wait)`` and
``outcome(tag, wait)`` wait up to ``wait`` seconds for ``watched`` to start or to end and say
how it stands (``running``, ``cancelled``, ``finished`` or ``never started``).

``--stateless`` runs the SDK's stateless mode (no sessions); ``--handshake-only`` answers
every request whose ``MCP-Protocol-Version`` header is not a handshake version as an mcp 1.x
server does (400, "Unsupported protocol version"), so the SDK's legacy session transport is
what a client reaches; ``--sse`` serves the 2024-11-05 HTTP+SSE transport instead (GET
``/sse``, POSTs to ``/messages/``); ``--port`` listens on a given port (to restart a server
in place).

Usage: ``python tests/servers/http_server.py [--json] [--stateless] [--handshake-only]
[--sse] [--port N] [--growing]``
"""

import argparse
import json
import os
import socket
import sys
import threading
from typing import Any

import anyio
import uvicorn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from demo_server import build_server  # noqa: E402
from mcp.server.mcpserver import Context  # noqa: E402

OUTCOMES: dict[str, str] = {}
STARTED: dict[str, anyio.Event] = {}
ENDED: dict[str, anyio.Event] = {}


def _started(tag: str) -> anyio.Event:
    return STARTED.setdefault(tag, anyio.Event())


def _ended(tag: str) -> anyio.Event:
    return ENDED.setdefault(tag, anyio.Event())


async def watched(tag: str, seconds: float, ctx: Context) -> str:
    """Report progress once, then sleep ``seconds``; remember whether it was cancelled."""
    OUTCOMES[tag] = "running"
    _started(tag).set()
    try:
        await ctx.report_progress(0, 1, "started")
        await anyio.sleep(seconds)
        OUTCOMES[tag] = "finished"
        return "slept"
    except BaseException:
        OUTCOMES[tag] = "cancelled"
        raise
    finally:
        _ended(tag).set()


async def wait_started(tag: str, wait: float) -> str:
    """Wait up to ``wait`` seconds for ``watched(tag)`` to start; say how it stands."""
    with anyio.move_on_after(wait):
        await _started(tag).wait()
    return OUTCOMES.get(tag, "never started")


async def outcome(tag: str, wait: float) -> str:
    """Wait up to ``wait`` seconds for ``watched(tag)`` to end; say how it ended."""
    with anyio.move_on_after(wait):
        await _ended(tag).wait()
    return OUTCOMES.get(tag, "never started")


HANDSHAKE_VERSIONS = {b"2024-11-05", b"2025-03-26", b"2025-06-18", b"2025-11-25"}


def handshake_only(app: Any) -> Any:
    """Wrap ``app`` so that only handshake-era requests reach it (an mcp 1.x router)."""
    async def guarded(scope: Any, receive: Any, send: Any) -> None:
        headers = dict(scope.get("headers") or []) if scope["type"] == "http" else {}
        version = headers.get(b"mcp-protocol-version")
        if version is None or version in HANDSHAKE_VERSIONS:
            await app(scope, receive, send)
            return
        body = json.dumps({"jsonrpc": "2.0", "id": "server-error", "error": {
            "code": -32600, "message": f"Bad Request: Unsupported protocol version: "
            f"{version.decode('latin-1')}. Supported versions: 2024-11-05, 2025-03-26, "
            "2025-06-18, 2025-11-25"}}).encode()
        await send({"type": "http.response.start", "status": 400,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})
    return guarded


def main(argv: "list[str] | None" = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="answer every request with JSON")
    parser.add_argument("--stateless", action="store_true", help="no legacy sessions")
    parser.add_argument("--handshake-only", action="store_true",
                        help="refuse 2026-07-28 requests as an mcp 1.x server does")
    parser.add_argument("--sse", action="store_true", help="the HTTP+SSE transport at /sse")
    parser.add_argument("--port", type=int, default=0, help="the port (0: any free one)")
    parser.add_argument("--growing", action="store_true", help="add growing.py's grow tool")
    args = parser.parse_args(argv)
    server = build_server()
    server.add_tool(watched)
    server.add_tool(wait_started)
    server.add_tool(outcome)
    if args.growing:
        from growing import add_grow

        add_grow(server)
    app: Any = server.streamable_http_app(json_response=args.json, host="127.0.0.1",
                                          stateless_http=args.stateless)
    if args.handshake_only:
        app = handshake_only(app)
    if args.sse:
        app = server.sse_app(host="127.0.0.1")
    # Naming the protocol is what makes asyncio set TCP_NODELAY on accepted sockets.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", args.port))
    sock.listen(128)   # connections queue from here on, before uvicorn accepts them
    config = uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=1)
    web = uvicorn.Server(config)

    def watch_stdin() -> None:
        while sys.stdin.buffer.read(4096):
            pass
        web.should_exit = True

    threading.Thread(target=watch_stdin, name="stdin-watch", daemon=True).start()
    print(f"PORT={sock.getsockname()[1]}", flush=True)
    anyio.run(_serve, web, sock)


async def _serve(web: Any, sock: socket.socket) -> None:
    await web.serve(sockets=[sock])


if __name__ == "__main__":
    main()
