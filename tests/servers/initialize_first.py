"""Legacy demo server that insists on ``initialize`` being the first message.

Models old servers that die when a dual-era client probes them with ``server/discover``:
the first non-blank line on stdin is read before the SDK starts.  If it is not a JSON-RPC
``initialize`` request, the process writes ``expected initialize`` to stderr and exits with
status 4.  Otherwise that line is replayed to the SDK (nothing is lost) and the demo tools are
served in the legacy (2025-11-25 handshake) era by the SDK's handshake-only loop.  Exits with
status 0 on stdin EOF, including EOF before any message.

Usage: ``python tests/servers/initialize_first.py``
"""

import json
import os
import sys
from typing import IO, Any, Optional

EXIT_NOT_INITIALIZE = 4


class ReplayStdin:
    """Minimal text reader for ``stdio_server(stdin=...)``: replays one line, then reads on."""

    def __init__(self, first_line: bytes, buffer: IO[bytes]) -> None:
        self._first: Optional[bytes] = first_line
        self._buffer = buffer

    def readline(self) -> str:
        if self._first is not None:
            line, self._first = self._first, None
        else:
            line = self._buffer.readline()
        return line.decode("utf-8", errors="replace")


def is_initialize(line: bytes) -> bool:
    try:
        message: Any = json.loads(line)
    except ValueError:
        return False
    return isinstance(message, dict) and message.get("method") == "initialize" and "id" in message


def main() -> int:
    buffer = sys.stdin.buffer
    first = buffer.readline()
    while first and not first.strip():
        first = buffer.readline()
    if not first:
        return 0
    if not is_initialize(first):
        sys.stderr.write("expected initialize\n")
        sys.stderr.flush()
        return EXIT_NOT_INITIALIZE
    # Imported only now, so the refusal above is fast (the SDK takes about a second to import).
    import anyio

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from demo_server import build_server, serve_legacy_stdio

    # ReplayStdin has the methods of a text file that wrap_file calls, not the IO class
    stdin = anyio.wrap_file(ReplayStdin(first, buffer))  # type: ignore[arg-type]
    anyio.run(serve_legacy_stdio, build_server(), stdin)
    return 0


if __name__ == "__main__":
    sys.exit(main())
