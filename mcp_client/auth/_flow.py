"""The steps of an OAuth 2.1 authorization, each a function over dicts.

What the spec asks of the flow (2026-07-28 basic/authorization and
.../client-registration; 2025-11-25 basic/authorization):

* PKCE with ``S256`` only, refused when the server's metadata does not list
  it (:func:`new_pkce`, :func:`check_pkce`);
* ``state`` and the ``resource`` parameter (RFC 8707) in the authorization
  request, ``resource`` again in the token request
  (:func:`authorization_url`, :func:`exchange_code`);
* the ``iss`` response parameter compared with the recorded issuer by simple
  string comparison (RFC 9207 §2.4; :func:`read_redirect`);
* what a person pasted instead of a browser redirect (:func:`read_pasted`):
  an address is held to the same checks; a bare code, which carries no
  ``state`` or ``iss``, is taken because PKCE binds it to this login (the
  token endpoint exchanges only a code issued for this login's
  ``code_challenge``, and S256 is required), which is the protection
  ``state`` gives against a code slipped in from elsewhere (RFC 9700 §4.7.1),
  and the code still goes only to the token endpoint of the issuer this login
  began at;
* the token endpoint's client authentication chosen from what the server
  supports (:func:`choose_auth_method`, :func:`client_authentication`);
* dynamic client registration (RFC 7591) with ``application_type`` and the
  grant types the client uses (:func:`register`).

Token endpoint and registration answers become dicts or :class:`AuthError`;
the ``requests`` session is the caller's.  Secrets (codes, verifiers, client
secrets, tokens) are never put into a message or a log record.
"""

from __future__ import annotations

import base64
import hashlib
import logging
import re
import secrets
import time
from typing import TYPE_CHECKING, Any, Mapping
from urllib.parse import parse_qs, quote, urlencode, urlsplit

from .._redact import redact_url
from ._errors import AuthError

if TYPE_CHECKING:
    import requests

    from ._dpop import DPoPKey

__all__ = ["new_pkce", "check_pkce", "authorization_url", "read_redirect", "read_pasted",
           "choose_auth_method",
           "client_authentication", "token_request", "exchange_code", "refresh",
           "register", "tokens_from", "scope_text"]

log = logging.getLogger(__name__)

#: Authentication methods this client can use at the token endpoint, best first.
SECRET_METHODS = ("client_secret_basic", "client_secret_post")


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def new_pkce() -> tuple[str, str]:
    """A fresh ``(code_verifier, code_challenge)`` pair (RFC 7636 §4.1-4.2, S256)."""
    verifier = _b64url(secrets.token_bytes(48))
    return verifier, _b64url(hashlib.sha256(verifier.encode("ascii")).digest())


def check_pkce(metadata: Mapping[str, Any]) -> None:
    """Refuse a server that does not support S256 (2025-11-25 basic/authorization,
    "Authorization Code Protection": absent metadata field means no PKCE)."""
    methods = metadata.get("code_challenge_methods_supported")
    if not isinstance(methods, list) or "S256" not in methods:
        raise AuthError("the authorization server does not support PKCE with S256 "
                        "(code_challenge_methods_supported), so it cannot be used safely")


def scope_text(scopes: list[str] | None) -> str | None:
    """Scopes as one space-separated value, or None when there are none."""
    return " ".join(scopes) if scopes else None


def authorization_url(metadata: Mapping[str, Any], *, client_id: str, redirect_uri: str,
                      state: str, challenge: str, resource: str,
                      scopes: list[str] | None) -> str:
    """The URL the user agent is sent to."""
    endpoint = metadata.get("authorization_endpoint")
    if not isinstance(endpoint, str):
        raise AuthError("the authorization server metadata has no authorization_endpoint")
    query: dict[str, str] = {"response_type": "code", "client_id": client_id,
                             "redirect_uri": redirect_uri, "state": state,
                             "code_challenge": challenge, "code_challenge_method": "S256",
                             "resource": resource}
    scope = scope_text(scopes)
    if scope:
        query["scope"] = scope
    if scopes and "offline_access" in scopes:
        query["prompt"] = "consent"   # OIDC issues refresh tokens for offline_access only then
    joiner = "&" if urlsplit(endpoint).query else "?"
    return endpoint + joiner + urlencode(query, quote_via=quote)


def read_redirect(redirect_url: str, *, state: str, issuer: str,
                  iss_supported: bool) -> str:
    """The authorization code in the URL the user agent came back to.

    Raises:
        AuthError: ``state`` does not match, ``iss`` fails RFC 9207 §2.4, the
            server answered with an error (the user declined), or no code.
    """
    query = parse_qs(urlsplit(str(redirect_url)).query, keep_blank_values=True)
    got = {name: values[0] for name, values in query.items() if values}
    if got.get("state") != state:
        raise AuthError("the authorization response's state does not match the request "
                        "(a stale or forged redirect)")
    if "iss" in got:
        # Simple string comparison: no trailing-slash or case folding (RFC 3986 §6.2.1).
        if got["iss"] != issuer:
            raise AuthError(f"the authorization response came from the issuer "
                            f"{redact_url(got['iss'])}, not {redact_url(issuer)} (RFC 9207)")
    elif iss_supported:
        raise AuthError("the authorization server promised an iss parameter but the "
                        "authorization response has none (RFC 9207)")
    if "error" in got:
        raise AuthError("the authorization was refused", error=got["error"],
                        description=got.get("error_description"))
    code = got.get("code")
    if not code:
        raise AuthError("the authorization response carries no code")
    return code


#: Characters of an authorization code (RFC 6749 §A.11: VSCHAR).
_CODE_CHARS = frozenset(chr(c) for c in range(0x21, 0x7F))
#: An absolute address (RFC 3986 §3.1 scheme, then an authority).
_ADDRESS = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")
#: Parameters that make a paste a redirect's query rather than a code (RFC 6749 §4.1.2).
_QUERY_MARKS = ("code=", "state=", "error=", "iss=")


def read_pasted(text: str, *, state: str, issuer: str, iss_supported: bool) -> str:
    """The authorization code in what a person pasted: the address the browser
    ended on (or its query), checked as :func:`read_redirect` does, or the bare code.

    Raises:
        AuthError: nothing was pasted, an address fails :func:`read_redirect`,
            or the text is neither an address nor a code.
    """
    pasted = text.strip()
    if not pasted:
        raise AuthError("nothing was pasted for the login")
    if _ADDRESS.match(pasted) or pasted.startswith("?"):
        return read_redirect(pasted, state=state, issuer=issuer, iss_supported=iss_supported)
    if any(mark in pasted for mark in _QUERY_MARKS):   # the query alone
        return read_redirect("?" + pasted.lstrip("&"), state=state, issuer=issuer,
                             iss_supported=iss_supported)
    if not all(char in _CODE_CHARS for char in pasted):
        raise AuthError("what was pasted is neither the address the browser ended on nor "
                        "an authorization code")
    return pasted


def choose_auth_method(supported: Any, *, has_secret: bool, registered: str | None = None) -> str:
    """The token endpoint authentication method to use.

    ``registered`` (what a registration answered) wins; otherwise the best
    method the server lists (``client_secret_basic`` when it lists none, RFC
    8414 §2) that this client can perform.
    """
    if registered in ("none",) + SECRET_METHODS:
        return str(registered)
    methods = supported if isinstance(supported, list) else ["client_secret_basic"]
    if has_secret:
        for method in SECRET_METHODS:
            if method in methods:
                return method
    if "none" in methods or not has_secret:
        return "none"
    raise AuthError("the authorization server supports no token endpoint authentication "
                    f"method this client can use (it offers {', '.join(map(str, methods))})")


def client_authentication(method: str, client_id: str, secret: str | None,
                          data: dict[str, str], headers: dict[str, str]) -> None:
    """Put the client's credentials into a token request (RFC 6749 §2.3.1)."""
    if method == "client_secret_basic" and secret is not None:
        pair = f"{quote(client_id, safe='')}:{quote(secret, safe='')}"
        headers["Authorization"] = "Basic " + base64.b64encode(pair.encode()).decode("ascii")
    elif method == "client_secret_post" and secret is not None:
        data["client_id"], data["client_secret"] = client_id, secret
    else:
        data["client_id"] = client_id


def _answer_json(response: requests.Response) -> dict[str, Any]:
    try:
        data = response.json()
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def token_request(session: requests.Session, endpoint: str, data: dict[str, str],
                  headers: dict[str, str], timeout: float,
                  dpop: DPoPKey | None = None,
                  token_types: tuple[str, ...] = ("bearer",)) -> dict[str, Any]:
    """POST to the token endpoint; the token response.

    With ``dpop``, each attempt carries a fresh proof, and a ``use_dpop_nonce``
    answer is retried once with the nonce the server sent (RFC 9449 §8).
    ``token_types`` are the ``token_type`` values accepted (lower case; a
    token exchange answers ``N_A``, RFC 8693 §2.2.1).

    Raises:
        AuthError: not reachable, or an error answer (with its ``error`` and
            ``error_description``), or an answer without an access token.
    """
    import requests

    shown = redact_url(endpoint)
    headers = {"Accept": "application/json", **headers}
    for attempt in range(2):
        if dpop is not None:
            headers["DPoP"] = dpop.proof("POST", endpoint)
        try:
            response = session.post(endpoint, data=data, headers=headers, timeout=timeout,
                                    allow_redirects=False)
        except requests.RequestException as exc:
            raise AuthError(f"cannot reach the token endpoint {shown}: "
                            f"{type(exc).__name__}") from None
        with response:
            answer = _answer_json(response)
        nonce = response.headers.get("DPoP-Nonce")
        if dpop is not None and nonce:
            dpop.remember_nonce(endpoint, nonce)
            if answer.get("error") == "use_dpop_nonce" and attempt == 0:
                continue
        break
    if response.status_code != 200:
        error = answer.get("error")
        raise AuthError(f"the token endpoint {shown} refused the {data.get('grant_type')} "
                        f"request (HTTP {response.status_code})",
                        status=response.status_code,
                        error=error if isinstance(error, str) else None,
                        description=_text(answer.get("error_description")))
    if not isinstance(answer.get("access_token"), str) or not answer["access_token"]:
        raise AuthError(f"the token endpoint {shown} answered without an access_token",
                        status=response.status_code)
    kind = answer.get("token_type")
    wanted = token_types + ("dpop",) if dpop is not None else token_types
    if not isinstance(kind, str) or kind.lower() not in wanted:
        raise AuthError(f"the token endpoint {shown} issued a {kind!s} token, not a "
                        f"{' or '.join(w.capitalize() for w in wanted)} token",
                        status=response.status_code)
    log.debug("token endpoint %s issued a token (%s grant)", shown, data.get("grant_type"))
    return answer


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def tokens_from(answer: Mapping[str, Any], *, resource: str, previous: Mapping[str, Any] | None,
                requested: list[str] | None) -> dict[str, Any]:
    """The token record kept from a token response (the refresh token survives a
    response without one: rotation is optional, RFC 6749 §6).

    Raises:
        AuthError: the response names a resource other than ours.
    """
    named = answer.get("resource")
    if isinstance(named, str) and named.rstrip("/") != resource.rstrip("/"):
        raise AuthError(f"the token was issued for {redact_url(named)}, not for "
                        f"{redact_url(resource)}")
    record: dict[str, Any] = {"access_token": answer["access_token"]}
    if str(answer.get("token_type")).lower() == "dpop":
        record["token_type"] = "DPoP"
    refresh_token = answer.get("refresh_token") or (previous or {}).get("refresh_token")
    if isinstance(refresh_token, str):
        record["refresh_token"] = refresh_token
    lifetime = answer.get("expires_in")
    if isinstance(lifetime, (int, float)) and not isinstance(lifetime, bool):
        record["expires_at"] = time.time() + float(lifetime)
        record["lifetime"] = float(lifetime)   # bounds the renewal margin (see _base)
    scope = answer.get("scope")
    if isinstance(scope, str):
        record["scopes"] = scope.split()
    elif requested:
        record["scopes"] = list(requested)
    return record


def exchange_code(session: requests.Session, metadata: Mapping[str, Any], client: Mapping[str, Any],
                  *, code: str, verifier: str, redirect_uri: str, resource: str,
                  timeout: float, dpop: DPoPKey | None = None) -> dict[str, Any]:
    """The authorization code grant (RFC 6749 §4.1.3 with RFC 7636 and RFC 8707)."""
    data = {"grant_type": "authorization_code", "code": code, "redirect_uri": redirect_uri,
            "code_verifier": verifier, "resource": resource}
    headers: dict[str, str] = {}
    client_authentication(client["method"], client["client_id"], client.get("client_secret"),
                          data, headers)
    return token_request(session, metadata["token_endpoint"], data, headers, timeout, dpop)


def refresh(session: requests.Session, metadata: Mapping[str, Any], client: Mapping[str, Any],
            *, refresh_token: str, resource: str, scopes: list[str] | None,
            timeout: float, dpop: DPoPKey | None = None) -> dict[str, Any]:
    """The refresh token grant (RFC 6749 §6, with ``resource``)."""
    data = {"grant_type": "refresh_token", "refresh_token": refresh_token, "resource": resource}
    scope = scope_text(scopes)
    if scope:
        data["scope"] = scope
    headers: dict[str, str] = {}
    client_authentication(client["method"], client["client_id"], client.get("client_secret"),
                          data, headers)
    return token_request(session, metadata["token_endpoint"], data, headers, timeout, dpop)


def register(session: requests.Session, metadata: Mapping[str, Any], document: dict[str, Any],
             timeout: float) -> dict[str, Any]:
    """Dynamic client registration (RFC 7591 §3); the server's answer.

    Raises:
        AuthError: the server has no registration endpoint, or refused.
    """
    import requests

    endpoint = metadata.get("registration_endpoint")
    if not isinstance(endpoint, str):
        raise AuthError("the authorization server supports neither client ID metadata "
                        "documents nor dynamic client registration; pass client_id= "
                        "(and client_secret=) of a client registered with it")
    shown = redact_url(endpoint)
    try:
        response = session.post(endpoint, json=document, timeout=timeout,
                                headers={"Accept": "application/json"}, allow_redirects=False)
    except requests.RequestException as exc:
        raise AuthError(f"cannot reach the registration endpoint {shown}: "
                        f"{type(exc).__name__}") from None
    with response:
        answer = _answer_json(response)
    if response.status_code not in (200, 201) or not isinstance(answer.get("client_id"), str):
        error = answer.get("error")
        raise AuthError(f"the registration endpoint {shown} refused to register this client "
                        f"(HTTP {response.status_code})", status=response.status_code,
                        error=error if isinstance(error, str) else None,
                        description=_text(answer.get("error_description")))
    log.debug("registered with %s", shown)
    return answer
