"""A tool's view (MCP Apps, ``io.modelcontextprotocol/ui``): :meth:`Apps.app_for`.

:class:`Apps` is a mixin of :class:`~mcp_client.Client` (like
:class:`~._resources.Resources`): one method over the client's own
``list_tools`` and ``read_resource``, no state of its own.  Reading the
tool's metadata and checking the resource is :mod:`mcp_client.apps`'s.
"""

from __future__ import annotations

from ..apps import AppView, AppViewError, resource_uri, view_from
from ..exceptions import MCPClientError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ..types import ReadResourceResult, Tool
    from ._bridge import Bridge

__all__ = ["Apps"]


class Apps:
    """Mixin: ``app_for`` and ``app_tool_name``."""

    if TYPE_CHECKING:   # the Client's own, and ._resources'
        @property
        def _bridge(self) -> Bridge: ...

        def list_tools(self, *, refresh: bool = False, timeout: float | None = None,
                       cancelled: Any = None) -> list[Tool]: ...

        def read_resource(self, uri: str, *, refresh: bool = False,
                          timeout: float | None = None,
                          cancelled: Any = None) -> ReadResourceResult: ...

    def app_for(self, tool_name: str, *, refresh: bool = False,
                timeout: float | None = None) -> AppView | None:
        """The view of one tool: its ``ui://`` resource, read and checked.

        The URI is the tool's ``_meta.ui.resourceUri`` (or the deprecated flat
        ``_meta["ui/resourceUri"]``); the resource is read with
        ``resources/read`` (SEP-1865: a host MUST), which the result cache
        keeps as it keeps any read (a server's ``ttlMs``).  ``csp``,
        ``permissions`` and ``meta`` come from the content's ``_meta.ui``, else
        the tool's, unchanged: the host page applies them.

        Args:
            tool_name: the server's name of the tool (any visibility).
            refresh: bypass the result cache (the tool list's and the read's).
            timeout: seconds for each request (None: ``request_timeout``).

        Returns:
            the :class:`~mcp_client.apps.AppView`, or None when the tool names no view.

        Raises:
            AppViewError: the URI is not ``ui://``, or the resource is not
                ``text/html;profile=mcp-app`` HTML.
            MCPClientError: the server lists no such tool.  ProtocolError,
                Timeout, ServerGone: as any request.
        """
        tool = next((found for found in self.list_tools(refresh=refresh, timeout=timeout)
                     if found.get("name") == tool_name), None)
        if tool is None:
            raise MCPClientError(f"the server lists no tool named {tool_name!r}")
        uri = resource_uri(tool)
        if uri is None:
            return None
        if not uri.startswith("ui://"):
            raise AppViewError("a view's URI must use the ui:// scheme", tool=tool_name, uri=uri)
        result = self.read_resource(uri, refresh=refresh, timeout=timeout)
        return view_from(tool, uri, result)

    def app_tool_name(self, client: Any, tool: str) -> str | None:
        """The name a view's call to ``tool`` goes by on this provider (MCP Apps).

        Args:
            client: the client the view came from: a view of another client's
                server reaches nothing here.
            tool: the server's name of the tool.

        Returns:
            the name the LLM bridge has for the tool (its own name, unless a
            model API would refuse it), or None: another client, or a tool
            whose ``visibility`` leaves out ``"app"``.

        Raises:
            MCPClientError: the catalogue could not be fetched.
        """
        if client is not self:
            return None
        found = self._bridge.app_name(tool)
        return found if isinstance(found, str) else None
