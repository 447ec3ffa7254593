"""The MCP Registry's read API (``/v0.1``), over HTTP: documents in, entries out.

This module owns the two reads a client needs -- one server version
(``GET /v0.1/servers/{name}/versions/{version}``) and a search
(``GET /v0.1/servers?search=&version=latest&cursor=&limit=``) -- and the rules
for the registry's URL.  What an entry means is :mod:`._entry`'s.

Decisions:

* ``registry`` is the registry's origin (``https://registry.modelcontextprotocol.io``,
  or a subregistry's); ``/v0.1`` is added here.  It must be ``https:``, or
  ``http:`` to a loopback host (a registry on this machine): an entry read over
  plain HTTP from elsewhere could be rewritten on the way into a command line.
* A document is at most 4 MiB, read with a timeout (10 s by default); the
  registry's answer must be a JSON object.  A 404 is ``not_found``; another
  failure, ``unreachable``.
* A search follows ``metadata.nextCursor`` until ``limit`` entries are had, 20
  pages at most.
"""

from __future__ import annotations

import json
import urllib.parse
from typing import Any

from .._origin import host_kind
from ..exceptions import DiscoveryError

__all__ = ["DEFAULT_REGISTRY", "API", "check_registry", "fetch", "get_json", "version_document",
           "search_documents", "literal"]


def literal(text: str) -> str:
    """A published ``text`` as a configuration must hold it to stay as it is.

    Every ``${`` is escaped (``$${``): the configuration expands ``${VAR}`` from
    the environment, and only the references the client makes may be expanded.
    """
    return text.replace("${", "$${")


#: The official MCP Registry.
DEFAULT_REGISTRY = "https://registry.modelcontextprotocol.io"
#: The read API's version, added to the registry's origin.
API = "/v0.1"
#: The most bytes one document may have.
MAX_DOCUMENT = 4 << 20
#: The most pages a search follows.
MAX_PAGES = 20


def check_registry(registry: Any) -> str:
    """The registry's origin, without a trailing slash.

    Raises:
        DiscoveryError: ``reason`` ``"invalid"``: not an ``https:`` URL (or
            ``http:`` to a loopback host), or one with a query or credentials.
    """
    if not isinstance(registry, str) or not registry:
        raise DiscoveryError(None, "invalid", f"the registry must be a URL, not {registry!r}")
    try:
        parts = urllib.parse.urlsplit(registry)
        host = parts.hostname
    except ValueError as exc:
        raise DiscoveryError(None, "invalid", f"the registry URL cannot be read: {exc}") from None
    if parts.query or parts.fragment or parts.username or parts.password or not host:
        raise DiscoveryError(None, "invalid", "the registry URL must be an origin (and a path), "
                             "with no query, fragment or credentials")
    if parts.scheme != "https" and not (parts.scheme == "http" and host_kind(host) == "loopback"):
        raise DiscoveryError(None, "invalid", "the registry must be reached over https: (plain "
                             "http: only on this machine's loopback)")
    return registry.rstrip("/")


def fetch(url: str, name: str | None, *, limit: int, timeout: float, what: str,
          missing: str = "not_found", accept: str = "*/*") -> bytes:
    """One GET of at most ``limit`` bytes (``limit + 1`` read: a longer answer shows).

    Raises:
        DiscoveryError: ``missing`` (a 404), ``unreachable`` (anything else); the
            message names ``what`` was asked for.
    """
    import urllib.error   # only when a registry is asked: the command line's start stays light
    import urllib.request

    request = urllib.request.Request(url, headers={"Accept": accept, "User-Agent": "mcp-client"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:  # noqa: S310 (checked)
            body: bytes = answer.read(limit + 1)
    except urllib.error.HTTPError as exc:
        exc.close()   # its connection: left open, it is a ResourceWarning when collected
        raise DiscoveryError(name, missing if exc.code == 404 else "unreachable",
                             f"{what} answered HTTP {exc.code}") from None
    except (urllib.error.URLError, OSError, ValueError) as exc:
        raise DiscoveryError(name, "unreachable", f"{what} cannot be reached: "
                             f"{getattr(exc, 'reason', exc)}") from None
    return body


def get_json(url: str, name: str | None, *, timeout: float) -> dict[str, Any]:
    """One GET, its answer a JSON object.

    Raises:
        DiscoveryError: ``not_found`` (404), ``unreachable`` (anything else).
    """
    body = fetch(url, name, limit=MAX_DOCUMENT, timeout=timeout, what="the registry",
                 accept="application/json")
    if len(body) > MAX_DOCUMENT:
        raise DiscoveryError(name, "unreachable", f"the registry's answer is over "
                             f"{MAX_DOCUMENT} bytes")
    try:
        document = json.loads(body)
    except ValueError:
        raise DiscoveryError(name, "unreachable", "the registry's answer is not JSON") from None
    if not isinstance(document, dict):
        raise DiscoveryError(name, "invalid", "the registry's answer is not a JSON object")
    return document


def version_document(registry: str, name: str, version: str, *,
                     timeout: float) -> dict[str, Any]:
    """``{"server", "_meta"}`` of one version of a server (``latest`` allowed)."""
    quoted = urllib.parse.quote(name, safe="")
    return get_json(f"{registry}{API}/servers/{quoted}/versions/"
                    f"{urllib.parse.quote(version, safe='')}", name, timeout=timeout)


def search_documents(registry: str, text: str, *, limit: int,
                     timeout: float) -> list[dict[str, Any]]:
    """The ``{"server", "_meta"}`` documents a search finds (latest versions), up to ``limit``."""
    found: list[dict[str, Any]] = []
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        query = {"search": text, "version": "latest", "limit": str(min(limit, 100))}
        if cursor:
            query["cursor"] = cursor
        page = get_json(f"{registry}{API}/servers?{urllib.parse.urlencode(query)}", None,
                        timeout=timeout)
        servers = page.get("servers")
        if not isinstance(servers, list):
            raise DiscoveryError(None, "invalid", "the search answer has no servers list")
        found.extend(item for item in servers if isinstance(item, dict))
        metadata = page.get("metadata")
        cursor = metadata.get("nextCursor") if isinstance(metadata, dict) else None
        if len(found) >= limit or not isinstance(cursor, str) or not cursor:
            break
    return found[:limit]
