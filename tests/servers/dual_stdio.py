"""Dual-era demo server over stdio (official SDK, ``MCPServer.run("stdio")``).

The client's first request decides the era for the life of the process: a request whose
``params._meta`` carries ``io.modelcontextprotocol/protocolVersion`` (e.g. ``server/discover``)
makes it a modern (2026-07-28) server; anything else (``initialize``) makes it a legacy
(2025-11-25) server.  Exits on stdin EOF.

Usage: ``python tests/servers/dual_stdio.py``
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from demo_server import build_server  # noqa: E402


def main() -> None:
    build_server().run("stdio")


if __name__ == "__main__":
    main()
