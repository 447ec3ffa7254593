"""The client's ``tools/call`` under the ``x-mcp-header`` rules of 2026-07-28 Streamable HTTP.

On a wire that wants them (``Transport.wants_tool_headers``), a ``tools/call``
carries the ``Mcp-Param-*`` headers that the tool's ``x-mcp-header``
annotations ask for (:mod:`mcp_client.xheaders` builds them).  So the
catalogue is fetched (or taken from the cache) before the first call; a tool
whose annotations are invalid is dropped from it, with one warning; and a
``-32020`` answer (the headers do not match the body) re-fetches it, bypassing
the cache, and the call is retried once with the rebuilt headers.  On any
other wire a call is the connection's plain request.

:class:`ToolHeaders` is held by the :class:`~mcp_client.client.Client`, which
it reaches only through :class:`Catalogue`: its ``list_tools``.
"""

from __future__ import annotations

from .. import protocol
from ..exceptions import ProtocolError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Protocol

    from ..types import Tool
    from ._connection import Connection

    class Catalogue(Protocol):
        """The client's catalogue: its ``list_tools`` (which hands the list to :meth:`kept`)."""

        def list_tools(self, *, refresh: bool = ..., timeout: float | None = ...,
                       cancelled: Any = ...) -> list[Tool]: ...

__all__ = ["ToolHeaders"]


class ToolHeaders:
    """``tools/call`` with the ``Mcp-Param-*`` headers a wire wants, and the catalogue they need.

    ``_annotated`` holds the tools of the latest catalogue that carry
    ``x-mcp-header`` annotations, by name (None before one was fetched): a call
    to any other tool needs no schema walk.
    """

    def __init__(self, connection: Connection, catalogue: Catalogue,
                 warn: Callable[[str], None]) -> None:
        self._connection = connection
        self._catalogue = catalogue
        self._warn = warn
        self._annotated: dict[str, dict[str, Any]] | None = None
        self._warned: set[Any] = set()   # the dropped tools already warned about

    def __repr__(self) -> str:
        known = "unknown" if self._annotated is None else len(self._annotated)
        return f"<ToolHeaders annotated={known}>"

    def call(self, params: dict[str, Any], *, timeout: float | None, cancelled: Any,
             progress_token: str | int | None = None,
             tool_call_id: str | None = None, tasks: bool = False) -> dict[str, Any]:
        """``tools/call``, with ``Mcp-Param-*`` headers on wires that want them.

        ``tasks``: the request declares the tasks extension and may come back as a task.
        """
        connection = self._connection
        if not connection.transport.wants_tool_headers:
            return connection.request("tools/call", params, timeout=timeout, cancelled=cancelled,
                                      progress_token=progress_token, tool_call_id=tool_call_id,
                                      tasks=tasks)
        for refresh in (False, True):
            headers = self._headers(params, refresh=refresh, timeout=timeout)
            try:
                return connection.request("tools/call", params, timeout=timeout,
                                          cancelled=cancelled, progress_token=progress_token,
                                          tool_call_id=tool_call_id, headers=headers,
                                          tasks=tasks)
            except ProtocolError as exc:
                if exc.code != protocol.HEADER_MISMATCH or refresh:
                    raise
        raise AssertionError("unreachable")  # pragma: no cover

    def kept(self, tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The catalogue as this wire may offer it: without the tools whose
        ``x-mcp-header`` annotations are invalid (each warned about once)."""
        if not self._connection.transport.wants_tool_headers:
            return tools
        from .. import xheaders

        kept = []
        for tool in tools:
            reason = xheaders.invalid_reason(tool)
            if reason is None:
                kept.append(tool)
                continue
            name = tool.get("name")
            if name not in self._warned:
                self._warned.add(name)
                self._warn(f"dropped tool {name!r} from the catalogue: {reason}")
        self._annotated = {t["name"]: t for t in kept
                           if isinstance(t.get("name"), str) and xheaders.header_paths(t)}
        return kept

    def _headers(self, params: dict[str, Any], *, refresh: bool,
                 timeout: float | None) -> dict[str, str]:
        from .. import xheaders

        if refresh or self._annotated is None:
            self._catalogue.list_tools(refresh=refresh, timeout=timeout)
        tool = (self._annotated or {}).get(params["name"])
        return xheaders.headers_for_call(tool, params["arguments"]) if tool else {}
