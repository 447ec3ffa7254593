"""Interactive OAuth: the authorization code flow with PKCE, for a user at a browser.

:class:`OAuth` is what ``Client.connect_http(url, auth=OAuth(...))`` takes.
It obtains a client identity in the spec's order (2026-07-28
basic/authorization/client-registration: pre-registered credentials, then a
client ID metadata document when the server supports them, then dynamic
registration), picks the scopes (the challenge's, else the caller's, else the
resource's ``scopes_supported``; ``offline_access`` added when the
authorization server lists it, SEP-2207), sends the user agent to the
authorization URL and reads the code from where it came back, then keeps and
refreshes the tokens.  The user-agent step is ``on_authorize(url) ->
redirect URL``; by default a browser is opened and the redirect is received
on a loopback port (:mod:`._loopback`).

The loopback listener is accepting before the browser is started, and the
browser runs on a thread of its own, so a browser that stays in the
foreground until its page has answered (w3m, lynx, a curl wrapper) is
answered.  With no browser, or one that fails, ``on_no_browser(url)`` (when
given) gets the authorization URL and returns what the person pasted: the
address the browser ended on, held to the ``state`` and ``iss`` checks, or the
bare code (see :func:`._flow.read_pasted`).  The port a registered client's
redirect URI names is listened on again; when another program holds it, a
fresh port is taken and the client registered anew with it.
"""

from __future__ import annotations

import logging
import secrets
import threading
from typing import Any, Callable, Mapping
from urllib.parse import urlsplit

from .._redact import redact_url
from ._base import DEFAULT_TIMEOUT, BearerAuth, Discovered
from ._errors import AuthError
from ._flow import (authorization_url, check_pkce, choose_auth_method, exchange_code, new_pkce,
                    read_pasted, read_redirect, refresh, register, tokens_from)
from ._dpop import DPOP_ALGORITHM, DPoPKey
from ._loopback import (DEFAULT_CALLBACK_TIMEOUT, NO_BROWSER, Loopback, browser_available,
                        launch_browser)

__all__ = ["OAuth"]

log = logging.getLogger(__name__)

#: Step-ups (403 insufficient_scope) tried for one request before giving up.
MAX_STEP_UPS = 2
_GRANTS = ["authorization_code", "refresh_token"]


class OAuth(BearerAuth):
    """Authorization for a protected MCP server, on behalf of a user.

    Args:
        client_name: the name shown to the user on the consent page (and
            registered with dynamic client registration).
        scopes: the scopes to ask for when the server's challenge names none.
        redirect_uri: where the authorization server sends the user agent back;
            default ``http://127.0.0.1:<port>/callback`` on the loopback port.
        client_id: a client registered with the authorization server beforehand.
        client_secret: that client's secret, if it has one.
        client_metadata_url: the HTTPS URL of this client's metadata document,
            used as its ``client_id`` where the server supports that.
        storage: where tokens are kept (default: in memory, for this object).
        on_authorize: ``on_authorize(authorization_url) -> str``, the redirect
            URL the user agent came back to; default: open a browser and
            listen on 127.0.0.1.
        on_no_browser: ``on_no_browser(authorization_url) -> str``, called
            when the default browser login finds no browser or the browser
            fails: it shows the URL to the person and returns what they
            pasted, the address the browser ended on or the bare code
            (``mcp-client login`` reads it from stdin).  Without it, that
            is an :class:`AuthError`.
        timeout: seconds for each request to the authorization server.
        callback_port: the loopback port (default: any free one).
        callback_timeout: seconds to wait for the browser to come back.
        dpop: bind the tokens to a key of this object's (RFC 9449 DPoP) where
            the authorization server offers ES256 proofs (needs the ``oauth``
            extra).
        allow_private_network: let discovery and the flow contact loopback and
            private-network addresses (RFC 1918, unique local IPv6,
            ``*.internal``) that the MCP server is not itself on.  Without it
            such an authorization server is refused; cloud metadata and
            link-local addresses are refused either way, and an authorization
            server must use https unless it is on loopback
            (:mod:`mcp_client.auth._reach`).

    Raises:
        AuthError: from a request, when authorization fails in any way.
    """

    def __init__(self, *, client_name: str | None = None, scopes: list[str] | None = None,
                 redirect_uri: str | None = None, client_id: str | None = None,
                 client_secret: str | None = None, client_metadata_url: str | None = None,
                 storage: Any = None, on_authorize: Callable[[str], str] | None = None,
                 timeout: float = DEFAULT_TIMEOUT, callback_port: int | None = None,
                 callback_timeout: float = DEFAULT_CALLBACK_TIMEOUT, dpop: bool = False,
                 allow_private_network: bool = False,
                 on_no_browser: Callable[[str], str] | None = None) -> None:
        super().__init__(storage=storage, timeout=timeout, max_step_ups=MAX_STEP_UPS,
                         client_id=client_id, allow_private_network=allow_private_network)
        if client_secret is not None and client_id is None:
            raise AuthError("client_secret= needs the client_id= it belongs to")
        if redirect_uri is not None and on_authorize is None:
            raise AuthError("redirect_uri= needs on_authorize= (which receives the user "
                            "agent there); the default browser login listens on "
                            "127.0.0.1 itself (choose its port with callback_port=)")
        if on_no_browser is not None and on_authorize is not None:
            raise AuthError("on_no_browser= is for the default browser login, which "
                            "on_authorize= replaces: pass one of them")
        if client_metadata_url is not None and urlsplit(client_metadata_url).scheme != "https":
            raise AuthError("client_metadata_url must be an https URL")
        self._client_name = client_name or "mcp-client"
        self._scopes = list(scopes) if scopes else None
        self._redirect_uri = redirect_uri
        self._client_id = client_id
        self._client_secret = client_secret
        self._metadata_url = client_metadata_url
        self._on_authorize = on_authorize
        self._on_no_browser = on_no_browser
        self._browser: threading.Thread | None = None   # the last browser command started
        self._callback_port = callback_port
        self._callback_timeout = float(callback_timeout)
        self._want_dpop = bool(dpop)

    # -- renewing -----------------------------------------------------------------

    def _renew(self) -> str | None:
        record = self._current()
        tokens = record.get("tokens") or {}
        if not tokens.get("refresh_token") or not record.get("client") \
                or not record.get("metadata"):
            return None
        try:
            return self._refresh(record)
        except AuthError as exc:
            log.debug("refreshing the access token failed: %s", exc.reason)
            record.pop("tokens", None)
            self._store(record)
            return None

    def _refresh(self, record: dict[str, Any]) -> str:
        tokens = record["tokens"]
        self._check_endpoints(record["metadata"], "token_endpoint")
        with self._contacting("the token endpoint"):
            answer = refresh(self._session(), record["metadata"], record["client"],
                             refresh_token=tokens["refresh_token"],
                             resource=record.get("resource") or str(self._resource),
                             scopes=None, timeout=self._timeout,
                             dpop=self._proof_key(record["metadata"]))
        record["tokens"] = tokens_from(answer, resource=record.get("resource") or "",
                                       previous=tokens, requested=tokens.get("scopes"))
        self._store(record)
        log.debug("refreshed the access token for %s", redact_url(str(self._resource)))
        return str(record["tokens"]["access_token"])

    # -- a challenge ----------------------------------------------------------------

    def _obtain(self, status: int, challenge: Mapping[str, str], sent: str | None) -> str:
        found = self._discover(challenge)
        record = self._record_for(found)
        if status == 401 and (record.get("tokens") or {}).get("refresh_token") \
                and record.get("client"):
            try:
                return self._refresh(record)
            except AuthError as exc:   # revoked or expired: a new authorization follows
                log.debug("refresh refused (%s); authorizing anew", exc.error or exc.reason)
                record.pop("tokens", None)
        scopes = self._scopes_for(status, challenge, found, record)
        return self._authorize(found, record, scopes)

    def _scopes_for(self, status: int, challenge: Mapping[str, str], found: Discovered,
                    record: Mapping[str, Any]) -> list[str] | None:
        asked = challenge.get("scope", "").split()
        if status == 403:
            held = list(record.get("scopes") or (record.get("tokens") or {}).get("scopes") or [])
            scopes = held + [scope for scope in asked if scope not in held]
        else:
            supported = (found.resource_metadata or {}).get("scopes_supported")
            scopes = asked or self._scopes or (
                [str(s) for s in supported] if isinstance(supported, list) else [])
        offered = found.metadata.get("scopes_supported")
        if isinstance(offered, list) and "offline_access" in offered \
                and "offline_access" not in scopes:
            scopes.append("offline_access")   # SEP-2207: ask for a refresh token
        return scopes or None

    # -- the client's identity --------------------------------------------------------

    def _client(self, metadata: Mapping[str, Any], record: dict[str, Any],
                redirect_uri: str) -> dict[str, Any]:
        supported = metadata.get("token_endpoint_auth_methods_supported")
        if self._client_id is not None:
            return {"client_id": self._client_id, "client_secret": self._client_secret,
                    "method": choose_auth_method(
                        supported, has_secret=self._client_secret is not None)}
        if self._metadata_url and metadata.get("client_id_metadata_document_supported") is True:
            return {"client_id": self._metadata_url, "method": "none"}
        known = record.get("client")
        if isinstance(known, dict) and known.get("redirect_uri") == redirect_uri:
            return known
        self._check_endpoints(metadata, "registration_endpoint")
        return self._register(metadata, redirect_uri)

    def _register(self, metadata: Mapping[str, Any], redirect_uri: str) -> dict[str, Any]:
        supported = metadata.get("token_endpoint_auth_methods_supported")
        wanted = "none"
        if isinstance(supported, list) and "none" not in supported:
            wanted = choose_auth_method(supported, has_secret=True)
        offered = metadata.get("grant_types_supported")
        grants = [g for g in _GRANTS if not isinstance(offered, list) or g in offered]
        host = (urlsplit(redirect_uri).hostname or "").lower()
        document = {"client_name": self._client_name, "redirect_uris": [redirect_uri],
                    "grant_types": grants or ["authorization_code"],
                    "response_types": ["code"], "token_endpoint_auth_method": wanted,
                    # SEP-837: a loopback redirect means an app on the user's machine.
                    "application_type": "native" if host in ("127.0.0.1", "localhost", "::1")
                    or urlsplit(redirect_uri).scheme not in ("http", "https") else "web"}
        with self._contacting("the registration endpoint"):
            answer = register(self._session(), metadata, document, self._timeout)
        secret = answer.get("client_secret")
        return {"client_id": answer["client_id"],
                "client_secret": secret if isinstance(secret, str) else None,
                "method": choose_auth_method(supported, has_secret=isinstance(secret, str),
                                             registered=answer.get("token_endpoint_auth_method")
                                             or wanted),
                "redirect_uri": redirect_uri}

    # -- the authorization ----------------------------------------------------------

    def _authorize(self, found: Discovered, record: dict[str, Any],
                   scopes: list[str] | None) -> str:
        metadata = found.metadata
        check_pkce(metadata)
        self._check_endpoints(metadata, "authorization_endpoint", "token_endpoint")
        listener, browser = None, False
        if self._redirect_uri is None and self._on_authorize is None:
            browser = browser_available()
            if not browser and self._on_no_browser is None:
                raise AuthError(NO_BROWSER)   # early, before registering
            listener = self._listen(record)
        try:
            redirect_uri = self._redirect_uri or (
                listener.redirect_uri if listener else f"http://127.0.0.1:{_DEFAULT_PORT}/callback")
            client = self._client(metadata, record, redirect_uri)
            record["client"] = client
            verifier, challenge = new_pkce()
            state = secrets.token_urlsafe(24)
            url = authorization_url(metadata, client_id=client["client_id"],
                                    redirect_uri=redirect_uri, state=state, challenge=challenge,
                                    resource=found.resource, scopes=scopes)
            log.debug("authorizing at %s", redact_url(str(metadata.get("authorization_endpoint"))))
            came_back, pasted = self._user_agent(url, listener, state, browser)
        finally:
            if listener is not None:
                listener.close()
        read = read_pasted if pasted else read_redirect
        code = read(came_back, state=state, issuer=found.issuer,
                    iss_supported=metadata.get(
                        "authorization_response_iss_parameter_supported") is True)
        with self._contacting("the token endpoint"):
            answer = exchange_code(self._session(), metadata, client, code=code,
                                   verifier=verifier, redirect_uri=redirect_uri,
                                   resource=found.resource, timeout=self._timeout,
                                   dpop=self._proof_key(metadata))
        record["tokens"] = tokens_from(answer, resource=found.resource, previous=None,
                                       requested=scopes)
        record["scopes"] = scopes or []
        self._store(record)
        return str(record["tokens"]["access_token"])

    def _proof_key(self, metadata: Mapping[str, Any]) -> Any:
        """The DPoP key, when asked for and the server offers ES256 proofs (else None)."""
        offered = metadata.get("dpop_signing_alg_values_supported")
        if not self._want_dpop or not isinstance(offered, list) or DPOP_ALGORITHM not in offered:
            return None
        if self._dpop is None:
            self._dpop = DPoPKey()
        return self._dpop

    def wait_for_browser(self, timeout: float | None = None) -> bool:
        """Wait for the browser command a login started to end.

        A browser in the terminal (w3m, lynx) runs until the person quits it,
        after the login is complete; a program that owns the terminal only
        then (``mcp-client login``) waits here.  A graphical browser's
        command ends at once.

        Args:
            timeout: seconds to wait at most (None: until it ends; 0: only look).

        Returns:
            True when no browser command started by this object still runs.
        """
        browser = self._browser
        if browser is not None:
            browser.join(timeout)
        return browser is None or not browser.is_alive()

    def _listen(self, record: Mapping[str, Any]) -> Loopback:
        """The loopback listener: on ``callback_port``, else on the registered client's
        port, else (or when another program holds that one) on a fresh port."""
        if self._callback_port:
            return Loopback(self._callback_port, self._callback_timeout)
        remembered = _port_of(record)
        if remembered:
            try:
                return Loopback(remembered, self._callback_timeout)
            except AuthError as exc:   # _client() registers the new redirect URI
                log.debug("%s; listening on a fresh port", exc.reason)
        return Loopback(0, self._callback_timeout)

    def _user_agent(self, url: str, listener: Loopback | None, state: str,
                    browser: bool) -> tuple[str, bool]:
        """Where the user agent came back to, and whether a person pasted it."""
        if listener is not None:
            came_back = None
            if browser:   # the listener is already accepting
                self._browser = launch_browser(url, listener.interrupt)
                came_back = listener.wait(state)
            if came_back is not None:
                return came_back, False
            if self._on_no_browser is None:
                raise AuthError(NO_BROWSER)
            listener.close()   # a browser here gets a refusal at once, the address in its bar
            return _ask(self._on_no_browser, "on_no_browser", url), True
        assert self._on_authorize is not None   # no listener means on_authorize (see _authorize)
        came_back = _ask(self._on_authorize, "on_authorize", url)
        if not came_back:
            raise AuthError("the authorization was not completed (on_authorize returned nothing)")
        return came_back, False


def _ask(callback: Callable[[str], str], name: str, url: str) -> str:
    """What a user-agent callback returned ("" for nothing); its failure as an AuthError."""
    try:
        came_back = callback(url)
    except AuthError:
        raise
    except Exception as exc:
        raise AuthError(f"{name} raised {type(exc).__name__}") from exc
    return str(came_back or "")


#: Redirect port when ``on_authorize`` handles the user agent and no redirect_uri is given.
_DEFAULT_PORT = 33418


def _port_of(record: Mapping[str, Any]) -> int:
    """The loopback port a registered client's redirect URI names (0: any)."""
    client = record.get("client")
    uri = client.get("redirect_uri") if isinstance(client, dict) else None
    try:
        return int(urlsplit(str(uri)).port or 0) if uri else 0
    except ValueError:
        return 0
