"""The official SDK's echo server over Streamable HTTP, on 127.0.0.1 and a random port.

The same server as ``sdk_echo.py``, served by the SDK's Starlette app under
uvicorn (PROTOCOL §12 (b)); the endpoint is ``/mcp``.  Once it listens it
prints ``PORT=<n>`` on stdout; it exits when its stdin reaches EOF (or on
SIGTERM).

Usage: ``python bench/servers/sdk_http.py``
"""

from __future__ import annotations

import socket
import sys
import threading

import anyio
import uvicorn

from sdk_echo import build_server


def main() -> None:
    app = build_server().streamable_http_app(host="127.0.0.1")
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
