"""Pagination: every entry of a list method, following ``nextCursor`` to the end, bounded.

A server whose cursors never end, repeat, or whose pages add up to more than a
client can hold, gets a :class:`~mcp_client.exceptions.ProtocolError` naming
the bound, never a hang.  Each page is one request through the connection (so
the cache and the era's envelope apply to each).
"""

from __future__ import annotations

from ..exceptions import ProtocolError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

    #: ``request(method, params, *, timeout, cancelled, refresh) -> the result``.
    Request = Callable[..., dict[str, Any]]

__all__ = ["MAX_LIST_ITEMS", "MAX_PAGES", "pages"]

#: A bound on pages per list call, against servers whose cursors never end.
MAX_PAGES = 1000
#: A bound on the entries of one list call, all its pages together: each page is bounded
#: by the wire (stdio: ``max_line_bytes``), their sum only by this.
MAX_LIST_ITEMS = 100_000


def pages(request: Request, method: str, key: str, refresh: bool, timeout: float | None,
          cancelled: Any) -> list[dict[str, Any]]:
    """The ``key`` entries of every page of ``method``, in order.

    Raises:
        ProtocolError: a page out of shape, a repeated or non-string cursor, or
            more than :data:`MAX_PAGES` pages or :data:`MAX_LIST_ITEMS` entries.
    """
    items: list[dict[str, Any]] = []
    seen: set[str] = set()
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        params = {} if cursor is None else {"cursor": cursor}
        page = request(method, params, timeout=timeout, cancelled=cancelled, refresh=refresh)
        entries = page.get(key, [])
        if not isinstance(entries, list):
            raise ProtocolError(None, f"{method}: {key} is not a list", page)
        if len(items) + len(entries) > MAX_LIST_ITEMS:
            raise ProtocolError(None, f"{method}: more than {MAX_LIST_ITEMS} entries across "
                                "its pages; giving up", {"limit": MAX_LIST_ITEMS})
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
