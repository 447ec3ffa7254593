"""The client: one connection to one MCP server, whichever era it speaks.

This package is :class:`Client` and what only it uses: the era probe, the
input hooks, progress tickets, the notification stream and pipelined calls.
Every module in it is private; this face re-exports the one public name.
"""

from __future__ import annotations

from ._client import Client

__all__ = ["Client"]


def __dir__() -> tuple[str, ...]:
    return tuple(__all__) + ("__doc__", "__file__", "__name__", "__path__")
