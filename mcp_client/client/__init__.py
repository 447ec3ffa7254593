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
# Outside __all__ (the "x as x" marks a re-export): for the command line's forms.
from ._schema import first_error as first_error, validator_for as validator_for  # noqa: F401

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ._inprocess import InProcessTransport as InProcessTransport  # noqa: F401

__all__ = ["Client"]


def __getattr__(name: str) -> Any:
    # Loaded on first use: it brings logging and queue, which a program that
    # starts no in-process server does not pay for at import.
    if name == "InProcessTransport":
        from ._inprocess import InProcessTransport as loaded
        return loaded
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> tuple[str, ...]:
    return tuple(__all__) + ("__doc__", "__file__", "__name__", "__path__")
