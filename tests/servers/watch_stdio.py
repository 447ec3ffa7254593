"""The demo server over stdio, with ``http_server.py``'s tools for watching cancellation.

Beyond ``demo_server.build_server()`` it has ``watched(tag, seconds)`` (reports progress
once, then waits ``seconds``, noting whether it was cancelled), ``wait_started(tag,
wait)`` and ``outcome(tag, wait)`` (see ``http_server.py``), so a test can see from the
server's side that a request it abandoned was cancelled there.  Dual-era, as
``dual_stdio.py``; exits on stdin EOF.

Usage: ``python tests/servers/watch_stdio.py``
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from demo_server import build_server  # noqa: E402
from http_server import outcome, wait_started, watched  # noqa: E402


def main() -> None:
    server = build_server()
    server.add_tool(watched)
    server.add_tool(wait_started)
    server.add_tool(outcome)
    server.run("stdio")


if __name__ == "__main__":
    main()
