"""mcp_client: a synchronous, thread-based client for Model Context Protocol servers.

Start a server as a child process (or reach one over Streamable HTTP), list
and call its tools, read its resources, render its prompts -- whichever
protocol era it speaks.  This module only re-exports; it imports nothing
heavier than the standard library (no ``requests``, ``jsonschema`` or ``mcp``).
"""

from __future__ import annotations


from ._version import __version__
from .client import Client
from .exceptions import (Cancelled, InputLoopExceeded, InvalidArgument, MCPClientError,
                         ProtocolError, ServerGone, SkillError, SpawnFailed, Timeout,
                         TransportClosed, TransportError, UnsupportedVersion)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "__version__", "Client", "Registry", "MCPClientError", "Timeout", "Cancelled", "ServerGone",
    "TransportClosed", "TransportError", "ProtocolError", "UnsupportedVersion", "InputLoopExceeded",
    "SpawnFailed", "SkillError", "InvalidArgument", "chat_messages",
]


if TYPE_CHECKING:
    from .provider import chat_messages
    from .registry import Registry

# The package logger's NullHandler is installed by mcp_client._log the first
# time anything logs (importing logging costs a third of the import budget);
# if the host has already imported logging, install it now.
if "logging" in __import__("sys").modules:
    from ._log import install_null_handler
    install_null_handler()


def __getattr__(name: str) -> Any:
    # Registry (and the bridge behind it) is loaded on first use, so that a
    # program that only talks to one server does not pay for it at import.
    if name == "Registry":
        from .registry import Registry
        return Registry
    if name == "chat_messages":   # the provider role's helpers, loaded on first use too
        from .provider import chat_messages
        return chat_messages
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
