"""Legacy-only (2025-11-25 handshake) demo server over stdio.

Runs the SDK's handshake-only ``serve_loop`` instead of ``MCPServer.run("stdio")`` (which is
always dual-era), so the modern era is never served: ``server/discover`` is answered
``-32601 Method not found``.  With ``--empty-discover`` a middleware answers ``server/discover``
with ``{"supportedVersions":[],"capabilities":{}}`` instead (what some legacy-only servers send),
and the handshake is then served normally.  Exits on stdin EOF.

Usage: ``python tests/servers/legacy_stdio.py [--empty-discover]``
"""

import argparse
import os
import sys
from typing import Any

import anyio

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from demo_server import build_server, serve_legacy_stdio  # noqa: E402

EMPTY_DISCOVER: dict[str, Any] = {"supportedVersions": [], "capabilities": {}}


async def empty_discover(ctx: Any, call_next: Any) -> Any:
    """Server middleware: short-circuit ``server/discover`` with an empty DiscoverResult."""
    if ctx.method == "server/discover":
        return dict(EMPTY_DISCOVER)
    return await call_next(ctx)


def main(argv: "list[str] | None" = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--empty-discover",
        action="store_true",
        help='answer server/discover with {"supportedVersions":[],"capabilities":{}}',
    )
    args = parser.parse_args(argv)
    server = build_server()
    if args.empty_discover:
        server.middleware.append(empty_discover)
    anyio.run(serve_legacy_stdio, server)


if __name__ == "__main__":
    main()
