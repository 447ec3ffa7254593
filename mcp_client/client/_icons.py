"""Icons a client hands on: only those a user interface can show without being led astray.

A server's ``icons`` (on a tool, a prompt, a resource, a resource template, or
the server itself; 2025-11-25 ``Icon``) are URIs that a user interface will
fetch or render.  The spec says a client should accept ``https:`` and ``data:``
URIs only and refuse the rest (``javascript:``, ``file:``, a plain ``http:``
fetch that anyone on the path may change).  This module keeps an icon whose
``src`` is ``https:`` with a host, ``data:``, or ``http:`` to a loopback host (a
local development server, which nobody on a network can tamper with), and
drops every other one with a debug log; the entry is otherwise untouched.

It must not change an entry in place: the entries may be a cached page's.
"""

from __future__ import annotations

from typing import Any, Mapping
from urllib.parse import urlsplit

from .._log import get_logger
from .._origin import host_kind

__all__ = ["safe_icons", "acceptable_icon", "page_with_safe_icons", "ICON_LISTS"]

#: The list methods whose entries carry icons, and the key of the entries.
ICON_LISTS = {"tools/list": "tools", "prompts/list": "prompts", "resources/list": "resources",
              "resources/templates/list": "resourceTemplates",
              "resources/directory/read": "resources"}

log = get_logger(__name__)


def acceptable_icon(src: Any) -> bool:
    """Whether an icon's ``src`` may be handed to a user interface."""
    if not isinstance(src, str) or not src or src != src.strip() or \
            any(ord(char) < 32 or ord(char) == 127 for char in src):
        return False
    try:
        parts = urlsplit(src)
        host = parts.hostname
    except ValueError:   # a malformed authority ("https://[::1")
        return False
    scheme = parts.scheme.lower()
    if scheme == "data":
        return True
    if scheme == "https":
        return bool(host)
    if not host:
        return False
    return scheme == "http" and host is not None and host_kind(host) == "loopback"


def safe_icons(entry: Any) -> Any:
    """``entry`` with only its acceptable icons (a copy when one was dropped)."""
    if not isinstance(entry, Mapping) or "icons" not in entry:
        return entry
    icons = entry["icons"]
    kept = [icon for icon in icons if isinstance(icon, Mapping) and
            acceptable_icon(icon.get("src"))] if isinstance(icons, list) else []
    if isinstance(icons, list) and len(kept) == len(icons):
        return entry
    log.debug("dropped %d icon(s) of %r that are not https:, data: or loopback http:",
              len(icons) - len(kept) if isinstance(icons, list) else 1, entry.get("name"))
    copy = dict(entry)
    if kept:
        copy["icons"] = kept
    else:
        del copy["icons"]
    return copy


def page_with_safe_icons(page: Any, key: str) -> Any:
    """A list result whose ``key`` entries keep only acceptable icons (``page`` itself
    when none was dropped)."""
    entries = page.get(key) if isinstance(page, dict) else None
    if not isinstance(entries, list) or not any(isinstance(entry, Mapping) and "icons" in entry
                                                for entry in entries):
        return page
    cleaned = [safe_icons(entry) for entry in entries]
    if all(new is old for new, old in zip(cleaned, entries)):
        return page
    return {**page, key: cleaned}
