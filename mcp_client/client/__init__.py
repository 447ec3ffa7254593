"""The client: one connection to one MCP server, whichever era it speaks.

This package is :class:`Client` and what only it uses: the era probe, the
input hooks, progress tickets, the notification stream and pipelined calls.
Every module in it is private; this face re-exports the one public name,
and, outside ``__all__``, what the package's other wings use: the in-process
transport (public as :class:`mcp_client.testing.InProcessTransport`; the
local server rests on it) and the bounded schema checks (the command line's
forms check an answer with them, as the client does).
"""

from __future__ import annotations

from ._client import Client
from ._inprocess import InProcessTransport
from ._schema import first_error, validator_for

__all__ = ["Client"]


def __dir__() -> tuple[str, ...]:
    return tuple(__all__) + ("__doc__", "__file__", "__name__", "__path__")
