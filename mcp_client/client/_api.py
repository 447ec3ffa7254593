"""The typed API of :class:`~mcp_client.Client`: lists, calls, reads, prompts, ping.

Each method validates its arguments, builds the request's params and hands
them to the client's ``_request`` (era, envelope, multi round-trip, cache,
progress); the lists follow ``nextCursor`` to the end.  This mixin holds no
state of its own.
"""

from __future__ import annotations


from collections.abc import Iterable, Mapping

from .. import protocol
from ._async import AsyncTwins
from ..cache import Cache
from ..exceptions import MCPClientError, ProtocolError
from ..transport import Transport

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

__all__ = ["TypedAPI", "MAX_PAGES"]

#: A bound on pages per list call, against servers whose cursors never end.
MAX_PAGES = 1000


class TypedAPI(AsyncTwins):
    """Mixin: the blocking typed methods, over ``_request``."""

    _cache: Cache
    _transport: Transport
    _header_tools: dict[str, dict[str, Any]] | None
    _header_warned: set[Any]
    _warn: Callable[[str], None]

    def _request(self, method: str, params: Mapping[str, Any], *, timeout: float | None,
                 cancelled: Any, progress_token: str | int | None = None,
                 tool_call_id: str | None = None, refresh: bool = False,
                 headers: Mapping[str, str] | None = None) -> dict[str, Any]:
        raise NotImplementedError

    def _list_all(self, method: str, key: str, *, refresh: bool, timeout: float | None,
                  cancelled: Any) -> list[dict[str, Any]]:
        try:
            return self._pages(method, key, refresh, timeout, cancelled)
        except ProtocolError as exc:
            if refresh or exc.code != protocol.INVALID_PARAMS or not self._cache.evict(method):
                raise
            # A cursor that was valid when cached went stale: drop every page and
            # start again from the top (2026-07-28 caching, PROTOCOL §8).
            return self._pages(method, key, True, timeout, cancelled)

    def _pages(self, method: str, key: str, refresh: bool, timeout: float | None,
               cancelled: Any) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = []
        seen: set[str] = set()
        cursor: str | None = None
        for _ in range(MAX_PAGES):
            params = {} if cursor is None else {"cursor": cursor}
            page = self._request(method, params, timeout=timeout, cancelled=cancelled,
                                 refresh=refresh)
            entries = page.get(key, [])
            if not isinstance(entries, list):
                raise ProtocolError(None, f"{method}: {key} is not a list", page)
            items.extend(entries)
            cursor = page.get("nextCursor")
            if cursor is None:
                return items
            if not isinstance(cursor, str):
                raise ProtocolError(None, f"{method}: nextCursor is not a string", cursor)
            if cursor in seen:
                raise ProtocolError(None, f"{method}: the server repeated cursor {cursor!r}")
            seen.add(cursor)
        raise ProtocolError(None, f"{method}: more than {MAX_PAGES} pages; giving up")

    def list_tools(self, *, refresh: bool = False, timeout: float | None = None,
                   cancelled: Any = None) -> list[dict[str, Any]]:
        """Every tool the server offers (all pages).

        Args:
            refresh: bypass the result cache.
            timeout: seconds for each page (None: ``request_timeout``; 0: none).
            cancelled: a ``threading.Event`` or ``Future`` that abandons the call.

        Raises:
            ProtocolError: the server refused, or broke the protocol.
            Timeout, Cancelled, ServerGone, TransportClosed.
        """
        tools = self._list_all("tools/list", "tools", refresh=refresh, timeout=timeout,
                               cancelled=cancelled)
        return self._valid_for_headers(tools) if self._transport.wants_tool_headers else tools

    def list_resources(self, *, refresh: bool = False, timeout: float | None = None,
                       cancelled: Any = None) -> list[dict[str, Any]]:
        """Every resource the server offers (all pages); see :meth:`list_tools`."""
        return self._list_all("resources/list", "resources", refresh=refresh, timeout=timeout,
                              cancelled=cancelled)

    def list_resource_templates(self, *, refresh: bool = False, timeout: float | None = None,
                                cancelled: Any = None) -> list[dict[str, Any]]:
        """Every resource template (all pages); see :meth:`list_tools`."""
        return self._list_all("resources/templates/list", "resourceTemplates",
                              refresh=refresh, timeout=timeout, cancelled=cancelled)

    def list_prompts(self, *, refresh: bool = False, timeout: float | None = None,
                     cancelled: Any = None) -> list[dict[str, Any]]:
        """Every prompt the server offers (all pages); see :meth:`list_tools`."""
        return self._list_all("prompts/list", "prompts", refresh=refresh, timeout=timeout,
                              cancelled=cancelled)

    def call_tool(self, name: str, arguments: Mapping[str, Any] | None = None, *,
                  timeout: float | None = None, cancelled: Any = None,
                  progress_token: str | int | None = None) -> dict[str, Any]:
        """Call a tool and return its result.

        A tool that fails reports ``isError`` in a perfectly good result; that
        is returned, not raised.

        Args:
            name: the tool's name.
            arguments: a JSON object (dict); None means none.
            timeout: seconds (None: ``request_timeout``; 0: no budget).
            cancelled: a ``threading.Event`` or ``Future`` that abandons the call.
            progress_token: ask the server for progress under this token; the
                reports arrive on :attr:`notifications`.

        Returns:
            ``{"content": [...], "isError"?: True, "structuredContent"?: ...}``.

        Raises:
            ProtocolError: the server answered with a JSON-RPC error.
            Timeout, Cancelled, ServerGone, TransportClosed, MCPClientError.
        """
        return self._call(self._tool_params(name, arguments, progress_token), timeout=timeout,
                          cancelled=cancelled, progress_token=progress_token)

    def _tool_params(self, name: str, arguments: Mapping[str, Any] | None,
                     progress_token: Any = None) -> dict[str, Any]:
        """A ``tools/call``'s params, checked."""
        if not isinstance(name, str) or not name:
            raise MCPClientError(f"a tool name must be a non-empty string, not {name!r}")
        if progress_token is not None and (isinstance(progress_token, bool) or
                                           not isinstance(progress_token, (str, int))):
            raise MCPClientError("progress_token must be a string or an integer")
        return {"name": name, "arguments": self._arguments(arguments)}

    def _call_tool_for_bridge(self, name: str, arguments: Mapping[str, Any] | None, *,
                              tool_call_id: str | None,
                              timeout: float | None = None) -> dict[str, Any]:
        """:meth:`call_tool` for the LLM bridge: progress is reported under the
        model's ``tool_call_id`` (the join key back to the model's tool card)."""
        return self._call(self._tool_params(name, arguments), timeout=timeout, cancelled=None,
                          tool_call_id=tool_call_id)

    # -- the LLM bridge (mcp_client.bridge) -------------------------------------------

    def tools_for_llm(self) -> list[dict[str, Any]]:
        """The server's tools as OpenAI-style function declarations.

        Every name matches ``^[a-zA-Z0-9_-]{1,64}$`` (see :mod:`mcp_client.names`).

        Raises:
            MCPClientError: the catalogue could not be fetched.
        """
        from .. import bridge

        return bridge.tools_for_llm(self)  # type: ignore[arg-type]

    def execute_tool_calls(self, calls: Iterable[Any]) -> list[dict[str, Any]]:
        """Run a model's tool calls: one ``{"role": "tool", ...}`` entry per call, in order.

        Never raises for a call (each failure is an ``is_error`` entry); the
        batch has run when this returns.  See :mod:`mcp_client.bridge` and
        :mod:`mcp_client.batch`.

        Raises:
            MCPClientError: ``calls`` is not a list.
        """
        from .. import bridge

        return bridge.execute_tool_calls(self, calls)  # type: ignore[arg-type]

    def tool_annotations(self, name: str) -> dict[str, Any] | None:
        """What the server said about one tool (its ``annotations``), or None."""
        from .. import bridge

        return bridge.tool_annotations(self, name)  # type: ignore[arg-type]

    # -- x-mcp-header (2026-07-28 Streamable HTTP; PROTOCOL §7.4, S17) ------------------

    def _call(self, params: dict[str, Any], *, timeout: float | None, cancelled: Any,
              progress_token: str | int | None = None,
              tool_call_id: str | None = None) -> dict[str, Any]:
        """``tools/call``, with ``Mcp-Param-*`` headers on wires that want them.

        The catalogue is fetched (or taken from the cache) before the first
        call; a ``-32020`` answer re-fetches it, bypassing the cache, and the
        call is retried once with the rebuilt headers.
        """
        if not self._transport.wants_tool_headers:
            return self._request("tools/call", params, timeout=timeout, cancelled=cancelled,
                                 progress_token=progress_token, tool_call_id=tool_call_id)
        for refresh in (False, True):
            headers = self._param_headers(params, refresh=refresh, timeout=timeout)
            try:
                return self._request("tools/call", params, timeout=timeout,
                                     cancelled=cancelled, progress_token=progress_token,
                                     tool_call_id=tool_call_id, headers=headers)
            except ProtocolError as exc:
                if exc.code != protocol.HEADER_MISMATCH or refresh:
                    raise
        raise AssertionError("unreachable")  # pragma: no cover

    def _param_headers(self, params: dict[str, Any], *, refresh: bool,
                       timeout: float | None) -> dict[str, str]:
        from .. import xheaders

        if refresh or self._header_tools is None:
            self.list_tools(refresh=refresh, timeout=timeout)
        tool = (self._header_tools or {}).get(params["name"])
        return xheaders.headers_for_call(tool, params["arguments"]) if tool else {}

    def _valid_for_headers(self, tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Drop tools whose ``x-mcp-header`` annotations are invalid (with a warning)."""
        from .. import xheaders

        kept = []
        for tool in tools:
            reason = xheaders.invalid_reason(tool)
            if reason is None:
                kept.append(tool)
                continue
            name = tool.get("name")
            if name not in self._header_warned:
                self._header_warned.add(name)
                self._warn(f"dropped tool {name!r} from the catalogue: {reason}")
        self._header_tools = {t["name"]: t for t in kept if isinstance(t.get("name"), str)}
        return kept

    @staticmethod
    def _arguments(arguments: Mapping[str, Any] | None) -> dict[str, Any]:
        if arguments is None:
            return {}
        if not isinstance(arguments, Mapping):
            raise MCPClientError("arguments must be a dict (a JSON object), not "
                                 f"{type(arguments).__name__}")
        return dict(arguments)

    def read_resource(self, uri: str, *, refresh: bool = False, timeout: float | None = None,
                      cancelled: Any = None) -> dict[str, Any]:
        """Read one resource: ``{"contents": [...]}``; see :meth:`call_tool`."""
        if not isinstance(uri, str) or not uri:
            raise MCPClientError(f"a resource URI must be a non-empty string, not {uri!r}")
        return self._request("resources/read", {"uri": uri}, timeout=timeout,
                             cancelled=cancelled, refresh=refresh)

    def get_prompt(self, name: str, arguments: Mapping[str, Any] | None = None, *,
                   timeout: float | None = None, cancelled: Any = None) -> dict[str, Any]:
        """Render a prompt: ``{"description"?, "messages": [...]}``."""
        if not isinstance(name, str) or not name:
            raise MCPClientError(f"a prompt name must be a non-empty string, not {name!r}")
        return self._request("prompts/get", {"name": name, "arguments": self._arguments(arguments)},
                             timeout=timeout, cancelled=cancelled)

    def ping(self, *, timeout: float | None = None) -> bool:
        """True if the server answered; False if it does not implement ping.

        2026-07-28 removed ``ping``, so a modern server's "method not found" is
        a healthy answer.  The probe runs first (S9): a bare ``ping`` would lock
        a dual-era server into the legacy era.

        Raises:
            ProtocolError: any other error.  Timeout, ServerGone, TransportClosed.
        """
        try:
            self._request("ping", {}, timeout=timeout, cancelled=None)
        except ProtocolError as exc:
            if exc.code == protocol.METHOD_NOT_FOUND:
                return False
            raise
        return True
