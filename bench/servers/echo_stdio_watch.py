"""``echo_stdio.py`` plus ``subscriptions/listen``: the server a ``watch=True`` client listens on.

The same prebuilt answers, except that ``server/discover`` declares
``tools.listChanged`` and a ``subscriptions/listen`` request is acknowledged
(``notifications/subscriptions/acknowledged``, 2026-07-28 ``subscriptions/listen``)
and then kept open -- never answered, as a listen that nothing changes.  So a
client with ``watch=True`` runs with its listen open, and the benchmark can
compare its calls with those of a client without it.

Usage: ``python bench/servers/echo_stdio_watch.py`` (exits at EOF on stdin).
"""

from __future__ import annotations

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import echo_stdio  # noqa: E402

_plain_answer = echo_stdio.answer
_DISCOVER = echo_stdio._result_tail({
    "resultType": "complete", "supportedVersions": [echo_stdio.VERSION],
    "capabilities": {"tools": {"listChanged": True}}, "ttlMs": 0, "cacheScope": "public",
    "_meta": echo_stdio._SERVER_META})


def answer(line: bytes) -> bytes:
    """The reply to one inbound line; a listen gets its acknowledgment and stays open."""
    if b'"subscriptions/listen"' not in line and b'"server/discover"' not in line:
        return _plain_answer(line)
    message = json.loads(line)
    if message.get("method") == "server/discover":
        return echo_stdio._HEAD + json.dumps(message["id"]).encode() + _DISCOVER
    if message.get("method") != "subscriptions/listen":
        return _plain_answer(line)
    wanted = (message.get("params") or {}).get("notifications") or {}
    honoured = {key: value for key, value in wanted.items() if key == "toolsListChanged"}
    ack = {"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
           "params": {"notifications": honoured}}
    return json.dumps(ack, separators=(",", ":")).encode() + b"\n"


if __name__ == "__main__":
    echo_stdio.answer = answer   # main() looks it up on every line
    echo_stdio.main()
