"""A legacy stdio server that complains at length about the probe, then crashes on a call.

What ``mcp`` 1.x servers do: every ``server/discover`` (a method they do not
know) costs ~95 lines of validation errors on stderr, before the handshake
is served.  ``tools/list`` then dies with a three-line traceback (exit 1), so
the server's own last words are three lines long.

Usage: ``python tests/servers/noisy_probe.py``
"""

import json
import sys
from typing import Any

NOISE = 95


def answer(ident: Any, result: Any = None, error: Any = None) -> None:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": ident}
    message.update({"error": error} if error is not None else {"result": result})
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main() -> None:
    for line in sys.stdin:
        message = json.loads(line)
        method = message.get("method")
        if method == "server/discover":
            for n in range(NOISE):
                sys.stderr.write(f"validation error {n}: server/discover is not a known method\n")
            sys.stderr.flush()
            answer(message["id"], error={"code": -32601, "message": "Method not found"})
        elif method == "initialize":
            answer(message["id"], {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                                   "serverInfo": {"name": "noisy", "version": "1"}})
        elif method == "tools/list":
            sys.stderr.write("Traceback (most recent call last):\n"
                             '  File "server.py", line 3, in list_tools\n'
                             "KeyError: 'API_TOKEN'\n")
            sys.stderr.flush()
            sys.exit(1)


if __name__ == "__main__":
    main()
