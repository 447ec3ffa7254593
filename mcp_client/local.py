"""An official-SDK server object in this process, used as a provider.

:class:`LocalServer` takes a server written with the official MCP SDK -- an
``mcp.server.mcpserver.MCPServer``, or a low-level ``mcp.server.Server`` -- and
makes it a provider (``tools_for_llm()`` / ``execute_tool_calls(calls)``) with
no subprocess and no pipe, so a toolkit in this process and a server on the
other side of a pipe are interchangeable to the caller.
:class:`~mcp_client.registry.Registry` wraps such an object in a
``LocalServer`` automatically.

It owns one :class:`~mcp_client.Client` over an
:class:`~mcp_client.testing.InProcessTransport`, kept in :attr:`LocalServer.client`, and
delegates the provider methods to it.  That is the whole design:
the messages cross the same JSON encoding a stdio pipe would, and the same
bridge reads them, so the output is byte-identical to the same server reached
over stdio (the golden-parity test pins it).

It must not import the SDK: :func:`is_sdk_server` recognises an SDK object
through ``sys.modules`` (if the SDK was never imported, nothing can be one).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, Iterable

from .client import Client, InProcessTransport

if TYPE_CHECKING:
    from .types import ToolAnnotations, ToolDeclaration, ToolMessage

__all__ = ["LocalServer", "is_sdk_server"]

#: The SDK's server classes, by module (mcp 2.x).
_SDK_SERVER_CLASSES = (("mcp.server.mcpserver.server", "MCPServer"),
                       ("mcp.server.lowlevel.server", "Server"))


def is_sdk_server(obj: object) -> bool:
    """True for an official-SDK server object (``MCPServer`` or low-level ``Server``).

    Never imports the SDK.
    """
    for module_name, class_name in _SDK_SERVER_CLASSES:
        cls = getattr(sys.modules.get(module_name), class_name, None)
        if isinstance(cls, type) and isinstance(obj, cls):
            return True
    return False


class LocalServer:
    """An SDK server object as a provider, in this process, with no wire.

    Args:
        server: an ``MCPServer`` or a low-level ``Server``, not yet running.
        **options: client options (``on_progress``, ``tool_concurrency``,
            ``parallel_tools``, ``request_timeout``, ...; see
            :class:`~mcp_client.Client`).

    Raises:
        MCPClientError: ``server`` is not an SDK server object, or an option
            is unknown or bad.
    """

    def __init__(self, server: Any, **options: Any) -> None:
        self._server = server
        self._client = Client(transport=InProcessTransport(server), **options)

    @property
    def client(self) -> Client:
        """The client in front of the server (call tools, read resources, ...)."""
        return self._client

    @property
    def server(self) -> Any:
        """The SDK server object."""
        return self._server

    def tools_for_llm(self) -> list[ToolDeclaration]:
        """The server's tools as function declarations (:meth:`Client.tools_for_llm`)."""
        return self._client.tools_for_llm()

    def execute_tool_calls(self, calls: Iterable[Any]) -> list[ToolMessage]:
        """Run a model's tool calls; one entry per call, never raising
        (:meth:`Client.execute_tool_calls`)."""
        return self._client.execute_tool_calls(calls)

    def tool_annotations(self, name: str) -> ToolAnnotations | None:
        """What the server said about one tool, or None (:meth:`Client.tool_annotations`)."""
        return self._client.tool_annotations(name)

    def cancel_tool_calls(self, ids: Iterable[str | int]) -> int:
        """Cancel running calls with these ids (:meth:`Client.cancel_tool_calls`):
        the server's handler is told as an SDK server is (``notifications/cancelled``)."""
        return self._client.cancel_tool_calls(ids)

    def close(self) -> None:
        """Stop the server and its threads; idempotent."""
        self._client.close()

    def __enter__(self) -> LocalServer:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<LocalServer {self._client!r}>"
