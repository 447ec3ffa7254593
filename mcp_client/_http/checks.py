"""What an HTTP transport may send and follow: origins, header names and values.

Shared by the Streamable HTTP transport (:mod:`mcp_client.http`) and the
2024-11-05 HTTP+SSE one (:mod:`mcp_client.http_sse`).  Pure functions: no I/O.
Whether two URLs are one origin is :mod:`mcp_client._origin`'s question (it
reads them as the sending library does); :func:`follow` asks it for both
transports.
"""

from __future__ import annotations

import logging
import re
from typing import Any, Mapping
from urllib.parse import urlsplit

from .._origin import UnsafeURL, authority_of, resolve, same_origin
from .._redact import redact_url
from ..exceptions import MCPClientError, TransportError

__all__ = ["OWNED_HEADERS", "media_type", "follow", "redirect", "check_header",
           "check_settings"]

log = logging.getLogger(__name__)

#: Headers the transport sets itself; a caller may not (lower case).
OWNED_HEADERS = frozenset({"content-type", "accept", "mcp-protocol-version", "mcp-method",
                           "mcp-name", "mcp-session-id", "last-event-id", "content-length",
                           "transfer-encoding", "host", "connection"})
_BAD_HEADER_CHARS = ("\r", "\n", "\0")
_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")   # RFC 9110 §5.6.2


def media_type(value: str | None) -> str:
    """A ``Content-Type`` value's media type, lower case (``""`` for none)."""
    return (value or "").split(";", 1)[0].strip().lower()


def follow(base: str, reference: str) -> tuple[str | None, str]:
    """``(rule, target)``: where a server's ``reference`` points, and why not to go there.

    ``target`` is ``reference`` made absolute against ``base`` (``reference``
    itself when that is refused); ``rule`` is None when it is ``base``'s
    origin as requests and urllib3 connect to it, else what refuses it (a
    backslash or userinfo in the authority, another origin, ...).
    """
    try:
        target = resolve(base, reference)
    except UnsafeURL as exc:
        return exc.rule, reference
    return same_origin(target, base), target


def redirect(what: str, url: str, response: Any) -> str:
    """Where a redirect of the request ``what`` to ``url`` leads, if it may be followed.

    Only a 307/308 to the same origin is (a POST elsewhere would leak the
    request and its credentials).

    Raises:
        TransportError: any other redirect, naming where it pointed and the rule.
    """
    location = response.headers.get("Location")
    rule, target = follow(url, location) if location else ("no Location header", None)
    if response.status_code in (307, 308) and target and rule is None:
        log.debug("%s: following HTTP %s to %s", what, response.status_code, redact_url(target))
        return target
    shown = redact_url(target) if target else "(no Location header)"
    why = f" ({rule})" if rule and target else ""
    raise TransportError(f"{what}: the server redirected to {shown}{why}; only same-origin "
                         "307/308 redirects are followed", status=response.status_code)


def _parts(url: str) -> tuple[str, str, int | None]:
    """``(scheme, host, port)`` of ``url`` as ``urlsplit`` reads it; port -1 when it is
    not a number (a settings check only: origins are compared by :func:`follow`)."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    try:
        port = parts.port or {"http": 80, "https": 443}.get(scheme)
    except ValueError:   # a port that is not a number: no origin matches it
        port = -1
    return scheme, (parts.hostname or "").lower(), port


def check_header(name: Any, value: Any, *, allow_params: bool) -> None:
    """Refuse a header a caller may not send (raises :class:`MCPClientError`)."""
    if not isinstance(name, str) or not isinstance(value, str):
        raise MCPClientError(f"header {name!r}: names and values must be strings")
    if not _TOKEN.fullmatch(name):
        raise MCPClientError(f"header {name!r}: not a valid header name (RFC 9110 token)")
    if any(c in value for c in _BAD_HEADER_CHARS) or value[:1] in (" ", "\t"):
        raise MCPClientError(f"header {name}: the value has a line break, a NUL or "
                             "leading whitespace")
    lowered = name.lower()
    if lowered in OWNED_HEADERS or (lowered.startswith("mcp-param-") and not allow_params):
        raise MCPClientError(f"header {name} is set by the transport "
                             "(2026-07-28 Streamable HTTP)")


def check_settings(url: Any, *, headers: Any, connect_timeout: Any, auth: Any,
                   max_event_bytes: Any, max_redirects: Any) -> None:
    """Refuse a bad URL, header, timeout, bound or ``auth`` (raises :class:`MCPClientError`)."""
    scheme, host, port = _parts(url) if isinstance(url, str) else ("", "", None)
    if scheme not in ("http", "https") or not host or port == -1:
        raise MCPClientError(f"url must be an http:// or https:// URL, not {redact_url(url)!r}")
    try:
        authority_of(url, userinfo=True)
    except UnsafeURL as exc:   # where urlsplit and urllib3 would read two hosts
        raise MCPClientError(f"url {redact_url(url)!r} is refused: {exc.rule}") from None
    if headers is not None and not isinstance(headers, Mapping):
        raise MCPClientError("headers must be a dict of strings")
    for name, value in (headers or {}).items():
        check_header(name, value, allow_params=False)
    if isinstance(connect_timeout, bool) or not isinstance(connect_timeout, (int, float)) \
            or not connect_timeout > 0:
        raise MCPClientError(f"connect_timeout must be a number > 0, not {connect_timeout!r}")
    for name, number, least in (("max_event_bytes", max_event_bytes, 1),
                                ("max_redirects", max_redirects, 0)):
        if isinstance(number, bool) or not isinstance(number, int) or number < least:
            raise MCPClientError(f"{name} must be an integer >= {least}, not {number!r}")
    if auth is not None and not callable(auth) and not (
            isinstance(auth, tuple) and len(auth) == 2):
        raise MCPClientError("auth must be a requests.auth.AuthBase (or a callable, "
                             "or a (user, password) pair)")
