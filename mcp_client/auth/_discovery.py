"""Finding the authorization server of a protected MCP server, and its endpoints.

Pure steps plus one fetch helper (the caller passes the ``requests`` session):

* :func:`parse_challenge` reads a ``WWW-Authenticate`` header (RFC 6750 §3:
  ``resource_metadata``, ``scope``, ``error``);
* :func:`find_resource_metadata` asks for the protected resource metadata
  (RFC 9728): the URL the challenge named, else the path-based well-known
  URL, else the root one (2026-07-28 basic/authorization, "Protected Resource
  Metadata Discovery Requirements"), and checks its ``resource`` against the
  server URL (RFC 9728 §3.3);
* :func:`find_server_metadata` asks for the authorization server metadata
  (RFC 8414 §3.1 path insertion, then OpenID Connect Discovery with path
  insertion and path appending) and checks its ``issuer`` (RFC 8414 §3.3);
* :func:`fallback_metadata` is the 2025-03-26 rule for servers without any:
  ``/authorize``, ``/token`` and ``/register`` at the server's origin.

Nothing here logs a token; URLs are logged through :func:`redact_url`.
"""

from __future__ import annotations

import json
import logging
import re
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from .._redact import redact_url
from ._errors import AuthError

if TYPE_CHECKING:
    import requests

__all__ = ["parse_challenge", "canonical_resource", "find_resource_metadata",
           "find_server_metadata", "fallback_metadata", "origin_of", "get_json"]

log = logging.getLogger(__name__)

#: One auth-param of a challenge: ``name=token`` or ``name="quoted \" string"``.
_PARAM = re.compile(r'([A-Za-z0-9_.\-]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^\s,]*)')
_PRM_WELL_KNOWN = "/.well-known/oauth-protected-resource"
#: Largest metadata document read (bytes): metadata is small; a huge answer is a mistake.
_MAX_DOCUMENT = 1024 * 1024


def parse_challenge(header: str | None) -> dict[str, str]:
    """The parameters of the ``Bearer`` (or ``DPoP``) challenge in a ``WWW-Authenticate`` value.

    Returns an empty dict when there is none.  Parameter names are lower-cased;
    quoted values are unquoted.
    """
    if not header:
        return {}
    at = re.search(r"(?:^|,|\s)(?:Bearer|DPoP)(?:\s+|$)", header, re.IGNORECASE)
    if at is None:
        return {}
    rest = header[at.end():]
    found: dict[str, str] = {}
    for match in _PARAM.finditer(rest):
        # A following challenge ("..., DPoP algs=...") starts a new scheme: stop there.
        before = rest[:match.start()].rstrip().rstrip(",").split(",")[-1].strip()
        if before and "=" not in before and found:
            break
        value = match.group(2)
        if value.startswith('"'):
            value = re.sub(r"\\(.)", r"\1", value[1:-1])
        found.setdefault(match.group(1).lower(), value)
    return found


def canonical_resource(url: str) -> str:
    """The canonical URI of the server at ``url`` (RFC 8707 §2): no query, no fragment,
    lower-case scheme and host."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), parts.path, "", ""))


def origin_of(url: str) -> str:
    """``scheme://host[:port]`` of ``url``."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def get_json(session: requests.Session, url: str, timeout: float) -> dict[str, Any] | None:
    """The JSON object at ``url``, or None when the server has none there (any 4xx,
    or an answer that is not a JSON object).

    Raises:
        AuthError: the server could not be reached, or answered 5xx.
    """
    import requests

    try:
        response = session.get(url, timeout=timeout, allow_redirects=True, stream=True,
                               headers={"Accept": "application/json"})
    except requests.RequestException as exc:
        raise AuthError(f"cannot fetch {redact_url(url)}: {type(exc).__name__}") from None
    with response:
        if response.status_code >= 500:
            raise AuthError(f"{redact_url(url)} answered HTTP {response.status_code}",
                            status=response.status_code)
        if response.status_code != 200:
            log.debug("no metadata at %s (HTTP %s)", redact_url(url), response.status_code)
            return None
        body = response.raw.read(_MAX_DOCUMENT + 1, decode_content=True)
    try:
        data = None if len(body) > _MAX_DOCUMENT else json.loads(body)
    except ValueError:
        data = None
    return data if isinstance(data, dict) else None


def _resource_metadata_urls(server_url: str, named: str | None) -> list[str]:
    parts = urlsplit(server_url)
    origin = f"{parts.scheme}://{parts.netloc}"
    urls = [named] if named else []
    path = parts.path.rstrip("/")
    if path:
        urls.append(f"{origin}{_PRM_WELL_KNOWN}{path}")
    urls.append(f"{origin}{_PRM_WELL_KNOWN}")
    return urls


def resource_covers(resource: str, server_url: str) -> bool:
    """True when the metadata's ``resource`` identifies ``server_url`` or a prefix of its path."""
    mine, theirs = urlsplit(canonical_resource(server_url)), urlsplit(canonical_resource(resource))
    if (mine.scheme, mine.netloc) != (theirs.scheme, theirs.netloc):
        return False
    base = theirs.path.rstrip("/")
    return not base or mine.path.rstrip("/") == base or mine.path.startswith(base + "/")


def find_resource_metadata(session: requests.Session, server_url: str, named: str | None,
                           timeout: float) -> dict[str, Any] | None:
    """The server's protected resource metadata, or None when it publishes none.

    Raises:
        AuthError: the metadata names another resource, or no authorization server.
    """
    for url in _resource_metadata_urls(server_url, named):
        data = get_json(session, url, timeout)
        if data is None:
            continue
        resource = data.get("resource")
        if not isinstance(resource, str) or not resource_covers(resource, server_url):
            raise AuthError(f"the protected resource metadata at {redact_url(url)} is for "
                            f"{redact_url(str(resource))}, not for {redact_url(server_url)}")
        servers = data.get("authorization_servers")
        if not isinstance(servers, list) or not servers or not isinstance(servers[0], str):
            raise AuthError(f"the protected resource metadata at {redact_url(url)} names "
                            "no authorization server")
        log.debug("protected resource metadata from %s", redact_url(url))
        return data
    return None


def _server_metadata_urls(issuer: str) -> list[str]:
    parts = urlsplit(issuer)
    origin = f"{parts.scheme}://{parts.netloc}"
    path = parts.path.rstrip("/")
    if not path:
        return [f"{origin}/.well-known/oauth-authorization-server",
                f"{origin}/.well-known/openid-configuration"]
    return [f"{origin}/.well-known/oauth-authorization-server{path}",
            f"{origin}/.well-known/openid-configuration{path}",
            f"{origin}{path}/.well-known/openid-configuration"]


def find_server_metadata(session: requests.Session, issuer: str,
                         timeout: float) -> dict[str, Any] | None:
    """The metadata of the authorization server ``issuer``, or None when it has none.

    Raises:
        AuthError: the document's ``issuer`` is not ``issuer`` (RFC 8414 §3.3),
            or it lacks the endpoints the flow needs.
    """
    for url in _server_metadata_urls(issuer):
        data = get_json(session, url, timeout)
        if data is None:
            continue
        if data.get("issuer") != issuer:
            raise AuthError(f"the authorization server metadata at {redact_url(url)} names "
                            f"the issuer {redact_url(str(data.get('issuer')))}, not "
                            f"{redact_url(issuer)}")
        if not isinstance(data.get("token_endpoint"), str):
            raise AuthError(f"the authorization server metadata at {redact_url(url)} has "
                            "no token_endpoint")
        log.debug("authorization server metadata from %s", redact_url(url))
        return data
    return None


def fallback_metadata(server_url: str) -> dict[str, Any]:
    """The default endpoints at the server's origin (2025-03-26 basic/authorization §2.3.3)."""
    origin = origin_of(server_url)
    return {"issuer": origin, "authorization_endpoint": f"{origin}/authorize",
            "token_endpoint": f"{origin}/token", "registration_endpoint": f"{origin}/register",
            "code_challenge_methods_supported": ["S256"], "_fallback": True}
