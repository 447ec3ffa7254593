"""Pagination: every entry of a list method, following ``nextCursor`` to the end, bounded.

A server whose cursors never end, repeat, or whose pages add up to more than a
client can hold, gets a :class:`~mcp_client.exceptions.ProtocolError` naming
the bound, never a hang.  Each page is one request through the connection (so
the cache and the era's envelope apply to each).

Pages add up in two ways, and each is bounded: in entries
(:data:`MAX_LIST_ITEMS`) and in bytes (:data:`MAX_LIST_BYTES`) -- a few
entries can be huge (one 4 MiB tool a page).  A page's bytes are its entries
as compact UTF-8 JSON: this layer sees parsed pages (the raw lines stay with the
transport, and a page served from the cache was never read at all), and that
encoding is at most as long as the text it was parsed from (whitespace and
escapes only shrink; a number may be spelled longer) -- close enough for a bound
on memory.
"""

from __future__ import annotations

import json

from ..exceptions import ProtocolError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

    #: ``request(method, params, *, timeout, cancelled, refresh) -> the result``.
    Request = Callable[..., dict[str, Any]]

__all__ = ["MAX_LIST_BYTES", "MAX_LIST_ITEMS", "MAX_PAGES", "pages"]

#: A bound on pages per list call, against servers whose cursors never end.
MAX_PAGES = 1000
#: A bound on the entries of one list call, all its pages together: each page is bounded
#: by the wire (stdio: ``max_line_bytes``), their sum only by this.
MAX_LIST_ITEMS = 100_000
#: A bound on the bytes of one list call, all its pages together (see the module
#: docstring for what is counted): twice the largest stdio line (``max_line_bytes``,
#: 16 MiB), so two pages of the largest size the wire takes still fit.
MAX_LIST_BYTES = 32 << 20


def pages(request: Request, method: str, key: str, refresh: bool, timeout: float | None,
          cancelled: Any, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """The ``key`` entries of every page of ``method``, in order (each page asked with
    ``params`` and its cursor).

    Raises:
        ProtocolError: a page out of shape, a repeated or non-string cursor, or
            more than :data:`MAX_PAGES` pages, :data:`MAX_LIST_ITEMS` entries or
            :data:`MAX_LIST_BYTES` bytes.
    """
    items: list[dict[str, Any]] = []
    size = 0
    seen: set[str] = set()
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        asked = dict(params or {}) if cursor is None else {**(params or {}), "cursor": cursor}
        page = request(method, asked, timeout=timeout, cancelled=cancelled, refresh=refresh)
        entries = page.get(key, [])
        if not isinstance(entries, list):
            raise ProtocolError(None, f"{method}: {key} is not a list", page)
        if len(items) + len(entries) > MAX_LIST_ITEMS:
            raise ProtocolError(None, f"{method}: more than {MAX_LIST_ITEMS} entries across "
                                "its pages; giving up", {"limit": MAX_LIST_ITEMS})
        size += _bytes(entries)
        if size > MAX_LIST_BYTES:
            raise ProtocolError(None, f"{method}: more than {MAX_LIST_BYTES} bytes across "
                                "its pages; giving up", {"limit_bytes": MAX_LIST_BYTES})
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


def _bytes(entries: list[Any]) -> int:
    """The size of ``entries`` as compact UTF-8 JSON (a lone surrogate counts its 3 bytes)."""
    text = json.dumps(entries, ensure_ascii=False, separators=(",", ":"), default=str)
    return len(text.encode("utf-8", "surrogatepass"))
