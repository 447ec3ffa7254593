"""Dual-era demo server whose stdout carries garbage between the real JSON-RPC messages.

Exercises a client's stdio reader: it must skip lines that are not JSON-RPC messages.  The
server writes a banner line at startup and, before every real message, one garbage line
(cycling through non-JSON text, JSON that is not JSON-RPC, a JSON array, whitespace) followed
by a blank line.  Every real message stays intact on a line of its own.  Otherwise this is
exactly ``dual_stdio.py`` (the first request decides the era).  Exits on stdin EOF.

Usage: ``python tests/servers/garbage_stdio.py``
"""

import os
import sys
from typing import BinaryIO

import anyio

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from demo_server import build_server  # noqa: E402

BANNER = "garbage_stdio: starting up (this line is not JSON-RPC)"
GARBAGE = (
    "this is not json",
    '{"not": "jsonrpc"}',
    "[1,2,3]",
    "   ",
    '{"jsonrpc": "1.0", "note": "wrong version"}',
    "",
    "42",
    "INFO server: this is a log line on stdout",
)


class GarbageWriter:
    """Text sink for ``stdio_server(stdout=...)`` that interleaves garbage with real messages.

    The SDK writes each message as one ``write(json + "\\n")`` followed by ``flush()``.
    """

    def __init__(self, wire: BinaryIO) -> None:
        self._wire = wire
        self._count = 0

    def write(self, text: str) -> int:
        junk = GARBAGE[self._count % len(GARBAGE)]
        self._count += 1
        self._wire.write((junk + "\n\n" + text).encode("utf-8"))
        return len(text)

    def flush(self) -> None:
        self._wire.flush()


def claim_stdout() -> BinaryIO:
    """Take fd 1 for the wire and point fd 1 at stderr, so stray prints cannot corrupt it."""
    wire_fd = os.dup(1)
    os.dup2(2, 1)
    return os.fdopen(wire_fd, "wb")


async def serve(wire: BinaryIO) -> None:
    from mcp.server.stdio import stdio_server

    low = build_server()._lowlevel_server
    writer = GarbageWriter(wire)
    # GarbageWriter has the methods of a text file that wrap_file calls, not the IO class
    stdout = anyio.wrap_file(writer)  # type: ignore[arg-type]
    async with stdio_server(stdout=stdout) as (read_stream, write_stream):
        await low.run(read_stream, write_stream, low.create_initialization_options())


def main() -> None:
    wire = claim_stdout()
    wire.write((BANNER + "\n").encode("utf-8"))
    wire.flush()
    anyio.run(serve, wire)


if __name__ == "__main__":
    main()
