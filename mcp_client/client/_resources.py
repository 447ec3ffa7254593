"""Resources, their templates and subscriptions, and prompts: the client's reads.

:class:`Resources` is a mixin of :class:`~mcp_client.Client` (like
:class:`~._extras.Extras`): methods over the client's ``_connection``, no
state of its own.  Lists follow every page and are cached as the connection
caches them; a subscription is the connection's watch
(:mod:`mcp_client.client._watch`).
"""

from __future__ import annotations

from ..exceptions import MCPClientError
from ._params import prompt_params

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Mapping, cast

    from ..types import GetPromptResult, Prompt, ReadResourceResult, Resource, ResourceTemplate
    from ._connection import Connection
else:
    def cast(_type: object, value: object) -> object:
        """:func:`typing.cast` without importing :mod:`typing` at run time."""
        return value

__all__ = ["Resources"]


class Resources:
    """Mixin: ``list_resources``, ``list_resource_templates``, ``read_resource``,
    ``subscribe_resource``, ``unsubscribe_resource``, ``list_prompts`` and ``get_prompt``."""

    _connection: Connection

    def list_resources(self, *, refresh: bool = False, timeout: float | None = None,
                       cancelled: Any = None) -> list[Resource]:
        """Every resource the server offers (all pages); see :meth:`list_tools`."""
        return cast("list[Resource]", self._connection.list_all(
            "resources/list", "resources", refresh=refresh, timeout=timeout, cancelled=cancelled))

    def list_resource_templates(self, *, refresh: bool = False, timeout: float | None = None,
                                cancelled: Any = None) -> list[ResourceTemplate]:
        """Every resource template (all pages); see :meth:`list_tools`."""
        return cast("list[ResourceTemplate]", self._connection.list_all(
            "resources/templates/list", "resourceTemplates", refresh=refresh, timeout=timeout,
            cancelled=cancelled))

    def list_prompts(self, *, refresh: bool = False, timeout: float | None = None,
                     cancelled: Any = None) -> list[Prompt]:
        """Every prompt the server offers (all pages); see :meth:`list_tools`."""
        return cast("list[Prompt]", self._connection.list_all(
            "prompts/list", "prompts", refresh=refresh, timeout=timeout, cancelled=cancelled))

    def read_resource(self, uri: str, *, refresh: bool = False, timeout: float | None = None,
                      cancelled: Any = None) -> ReadResourceResult:
        """Read one resource: ``{"contents": [...]}``; see :meth:`call_tool`."""
        if not isinstance(uri, str) or not uri:
            raise MCPClientError(f"a resource URI must be a non-empty string, not {uri!r}")
        return cast("ReadResourceResult", self._connection.request(
            "resources/read", {"uri": uri}, timeout=timeout, cancelled=cancelled,
            refresh=refresh))

    def subscribe_resource(self, uri: str, *, timeout: float | None = None) -> None:
        """Be told of changes to one resource (``notifications/resources/updated``).

        Legacy: ``resources/subscribe``.  Modern: the URI joins the
        ``subscriptions/listen`` request's ``resourceSubscriptions`` (reissued
        now).  Each update evicts the URI's cached read and reaches
        :attr:`notifications`.

        Raises:
            MCPClientError: a bad URI, or the server does not declare
                ``resources.subscribe``.  ProtocolError, Timeout, ServerGone.
        """
        self._connection.watch.subscribe(uri, True, timeout)

    def unsubscribe_resource(self, uri: str, *, timeout: float | None = None) -> None:
        """End :meth:`subscribe_resource` for ``uri`` (legacy ``resources/unsubscribe``)."""
        self._connection.watch.subscribe(uri, False, timeout)

    def get_prompt(self, name: str, arguments: Mapping[str, Any] | None = None, *,
                   timeout: float | None = None, cancelled: Any = None) -> GetPromptResult:
        """Render a prompt: ``{"description"?, "messages": [...]}``."""
        return cast("GetPromptResult", self._connection.request(
            "prompts/get", prompt_params(name, arguments), timeout=timeout, cancelled=cancelled))
