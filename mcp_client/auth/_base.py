"""The ``requests`` auth object both OAuth flows share: token in, 401/403 handled, retried.

:class:`BearerAuth` is a ``requests.auth.AuthBase``.  For each request it
puts the current access token into ``Authorization`` (refreshing it first
when it has expired or is about to) and registers a response hook.  The hook
handles the answers the flow exists for, then sends the same request again
on the same connection adapter:

* **401** (2026-07-28 basic/authorization, "Authorization Server Discovery"):
  the ``WWW-Authenticate`` challenge leads to new discovery, then to a
  refresh when the token was merely stale, else to a new authorization
  (:meth:`BearerAuth._obtain`, which the subclass defines).  A second 401 for
  the same request is an :class:`AuthError`, never a loop.
* **403 ``insufficient_scope``** ("Step-Up Authorization Flow"): a new
  authorization asking for the union of the scopes held and the scopes the
  challenge names (SEP-2350), at most ``max_step_ups`` times per request.

"About to" expire is within 30 s of the end, but never more than a quarter of
the token's lifetime: a token that lives 30 s or less is used for three
quarters of its life, not renewed for every request.  A client-credentials
token is therefore reused for its lifetime too.

Threads: any number of requests may run through one object at once.  One
lock (``_flow``) lets a single thread refresh or authorize at a time; a
thread that waited for it and finds the token changed meanwhile simply uses
the new one unless it has already expired (single flight: one renewal
however many threads found the token stale).  Network I/O for the authorization server
happens on the requesting thread, through a private ``requests`` session
that contacts nothing :mod:`._reach` refuses (cloud metadata and link-local
addresses, private ones the MCP server is not on, an authorization server
over cleartext http), checked before every request and every redirect.
A 401 or 403 is answered (a token obtained and the request sent again) only
when it comes from the origin the object is bound to, never from where a
redirect led.

Tokens live in a record (issuer, authorization server metadata, client
registration, tokens) kept in a :class:`TokenStorage` under the canonical
resource URL, so a second process with the same storage reuses them.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from typing import TYPE_CHECKING, Any

import requests
from requests.auth import AuthBase

from .._origin import UnsafeURL, connect_origin
from .._redact import redact_url
from ._discovery import (canonical_resource, fallback_metadata, find_resource_metadata,
                         find_server_metadata, origin_of, parse_challenge)
from ._errors import AuthError
from ._reach import GuardedSession, Reach
from ._storage import MemoryTokenStorage, TokenStorage, storage_key

if TYPE_CHECKING:
    from typing import Mapping

    from ._dpop import DPoPKey

__all__ = ["BearerAuth", "Discovered", "DEFAULT_TIMEOUT"]

log = logging.getLogger(__name__)

#: Seconds allowed for each request to an authorization server (not a spec value).
DEFAULT_TIMEOUT = 30.0
#: A token this close to its expiry (seconds) is refreshed before it is used ...
_EXPIRY_MARGIN = 30.0
#: ... but never earlier than this share of its lifetime before the end: a token
#: that lives 30 s or less would otherwise be stale from birth and be renewed for
#: every request (a bound of ours; the official SDK keeps no margin at all).
_MARGIN_SHARE = 0.25


class Discovered:
    """What discovery found: the resource to ask for, and the authorization server."""

    __slots__ = ("resource", "metadata", "resource_metadata")

    def __init__(self, resource: str, metadata: dict[str, Any],
                 resource_metadata: dict[str, Any] | None) -> None:
        self.resource = resource
        self.metadata = metadata
        self.resource_metadata = resource_metadata

    @property
    def issuer(self) -> str:
        return str(self.metadata["issuer"])


def _bearer(request: requests.PreparedRequest) -> str | None:
    value = str(request.headers.get("Authorization") or "")
    scheme, _, token = value.partition(" ")
    return token if scheme.lower() in ("bearer", "dpop") and token else None


class BearerAuth(AuthBase):
    """Base of :class:`~mcp_client.auth.OAuth` and :class:`~mcp_client.auth.ClientCredentials`."""

    def __init__(self, *, storage: TokenStorage | None, timeout: float, max_step_ups: int,
                 client_id: str | None, allow_private_network: bool = False) -> None:
        if storage is not None and not isinstance(storage, TokenStorage):
            raise AuthError("storage must have load(key), save(key, data) and delete(key)")
        self._storage: TokenStorage = storage if storage is not None else MemoryTokenStorage()
        self._timeout = float(timeout)
        self._max_step_ups = int(max_step_ups)
        self._key_client = client_id
        self._lock = threading.Lock()    # guards _resource and _record
        self._flow = threading.Lock()    # one refresh or authorization at a time
        self._resource: str | None = None
        self._origin: tuple[str, str, int] | None = None   # _resource's, as it is connected to
        self._record: dict[str, Any] | None = None
        self._http: GuardedSession | None = None
        self._allow_private = bool(allow_private_network)
        self._dpop: DPoPKey | None = None   # set by a subclass that binds tokens to a key

    def __repr__(self) -> str:
        with self._lock:
            tokens = (self._record or {}).get("tokens") or {}
            resource = redact_url(self._resource) if self._resource else None
        state = "authorized" if tokens.get("access_token") else "unauthorized"
        return f"<{type(self).__name__} {resource or 'unbound'} {state}>"

    # -- the requests side -------------------------------------------------------------

    def __call__(self, request: requests.PreparedRequest) -> requests.PreparedRequest:
        self.bind(str(request.url))
        token = self._usable_token()
        if token:
            self._present(request, token)
        request.register_hook("response", self._on_response)  # type: ignore[no-untyped-call]
        return request

    def direct_authorization(self, url: str) -> str | None:
        """The ``Authorization`` value for a request to ``url`` sent without requests.

        The transport's direct path (no proxy, no client certificate) asks this
        instead of calling the object on a ``PreparedRequest``; a 401 or 403
        to what it sent is sent again the requests way, where
        :meth:`__call__`'s response hook recovers.  None sends the request
        the requests way from the start: there is no token yet (the first
        request learns how to get one), or the token is DPoP-bound (each
        request needs a proof of its own).

        Raises:
            AuthError: as :meth:`__call__` would (another server's object, a
                refresh that failed).
        """
        self.bind(url)
        token = self._usable_token()
        # The type is that of the token just returned: renewing it may have
        # adopted a DPoP-bound one (another process's), never to go as a Bearer.
        if not token or (self._dpop is not None and self._tokens().get("token_type") == "DPoP"):
            return None
        return f"Bearer {token}"

    def bind(self, url: str) -> None:
        """Tie this object to the server at ``url`` (done by the first request).

        Later requests may go elsewhere on the same origin (a same-origin
        redirect, ``/mcp`` to ``/mcp/``); the tokens stay those of the first URL.

        Raises:
            AuthError: it is already tied to a server of another origin (as
                requests and urllib3 connect to it), or ``url`` has a
                backslash or whitespace in its authority.
        """
        resource = canonical_resource(url)
        try:   # the origin the request goes to, as requests and urllib3 read the URL
            here = connect_origin(url, userinfo=True)
        except UnsafeURL as exc:
            raise AuthError(f"refusing to send credentials to {redact_url(url)}: "
                            f"{exc.rule}") from None
        with self._lock:
            if self._resource is None:
                self._resource, self._origin = resource, here
                self._record = self._storage.load(self._key()) or {}
            elif self._origin != here:
                raise AuthError(f"this auth object belongs to {redact_url(self._resource)}; "
                                f"make another one for {redact_url(resource)}")

    def _present(self, request: requests.PreparedRequest, token: str) -> None:
        """Put ``token`` into ``request``: ``Bearer``, or ``DPoP`` with a fresh proof."""
        if self._tokens().get("token_type") == "DPoP" and self._dpop is not None:
            request.headers["Authorization"] = f"DPoP {token}"
            request.headers["DPoP"] = self._dpop.proof(str(request.method), str(request.url),
                                                       token=token)
        else:
            request.headers["Authorization"] = f"Bearer {token}"

    def _key(self) -> str:
        return storage_key(str(self._resource), self._key_client)

    def _on_response(self, response: requests.Response, **kwargs: Any) -> requests.Response:
        # requests runs this hook on every hop of a redirect it follows too (the
        # login probe follows them): a challenge from another origin is not
        # answered, so no token is obtained for it or re-sent to it.
        try:
            there: tuple[str, str, int] | None = connect_origin(str(response.request.url),
                                                                userinfo=True)
        except UnsafeURL:
            there = None
        with self._lock:
            mine = self._origin
        if there is None or there != mine:
            return response
        step_ups = recoveries = nonces = 0
        while response.status_code in (401, 403):
            challenge = parse_challenge(response.headers.get("WWW-Authenticate"))
            status = response.status_code
            if status == 403 and challenge.get("error") != "insufficient_scope":
                return response
            sent = _bearer(response.request)
            nonce = response.headers.get("DPoP-Nonce")
            if status == 401 and challenge.get("error") == "use_dpop_nonce" and nonce \
                    and self._dpop is not None and sent and nonces < 2:
                nonces += 1   # RFC 9449 §9: the same token, a proof with the server's nonce
                self._dpop.remember_nonce(str(response.request.url), nonce)
                self._release(response)
                response = self._again(response, sent, kwargs)
                continue
            if status == 403:
                step_ups += 1
                if step_ups > self._max_step_ups:
                    self._release(response)
                    raise AuthError(f"the server still refuses the request for lack of scope "
                                    f"after {self._max_step_ups} new authorizations",
                                    status=403, error="insufficient_scope")
            else:
                recoveries += 1
                if recoveries > 1:
                    self._release(response)
                    raise AuthError("the server refused a freshly issued access token",
                                    status=401, error=challenge.get("error"))
            self._release(response)
            token = self._recover(status, challenge, sent)
            response = self._again(response, token, kwargs)
        return response

    def _again(self, response: requests.Response, token: str,
               kwargs: Mapping[str, Any]) -> requests.Response:
        """Send ``response``'s request once more, with ``token``, on the same adapter."""
        again = response.request.copy()
        self._present(again, token)
        fresh: requests.Response = response.connection.send(again, **kwargs)
        fresh.history.append(response)
        fresh.request = again
        return fresh

    @staticmethod
    def _release(response: requests.Response) -> None:
        try:
            response.content   # read the body so the connection can be reused
        except requests.RequestException:
            pass
        response.close()

    # -- tokens --------------------------------------------------------------------

    def _tokens(self) -> dict[str, Any]:
        with self._lock:
            return dict((self._record or {}).get("tokens") or {})

    def _usable_token(self) -> str | None:
        tokens = self._tokens()
        token = tokens.get("access_token")
        if token and not _expiring(tokens):
            return str(token)
        if not token:
            return None
        with self._flow:
            self._reload()
            now = self._tokens()
            if now.get("access_token") and now.get("access_token") != token \
                    and not _expired(now):
                # Another thread (or process) renewed it while this one waited: the
                # single flight's token is used, even a short-lived one inside its margin.
                return str(now["access_token"])
            return self._renew()

    def _recover(self, status: int, challenge: Mapping[str, str], sent: str | None) -> str:
        with self._flow:
            self._reload()
            tokens = self._tokens()
            current = tokens.get("access_token")
            if current and current != sent and not _expired(tokens):
                wanted = set(challenge.get("scope", "").split())
                if status == 401 or wanted <= set(tokens.get("scopes") or ()):
                    return str(current)   # another thread already answered this challenge
            return self._obtain(status, challenge, sent)

    def _reload(self) -> None:
        """Adopt the stored record when another process renewed the tokens meanwhile
        (its refresh may have rotated the refresh token this one holds)."""
        stored = self._storage.load(self._key())
        if not stored:
            return
        theirs = (stored.get("tokens") or {}).get("access_token")
        if theirs and theirs != self._tokens().get("access_token"):
            log.debug("adopting the tokens another process stored")
            with self._lock:
                self._record = stored

    def _renew(self) -> str | None:
        """A new access token without a challenge (expiry), or None to let the server ask."""
        return None

    def _obtain(self, status: int, challenge: Mapping[str, str], sent: str | None) -> str:
        """A new access token for the challenge (called holding ``_flow``)."""
        raise NotImplementedError

    # -- the record ----------------------------------------------------------------

    def _current(self) -> dict[str, Any]:
        with self._lock:
            return dict(self._record or {})

    def _store(self, record: dict[str, Any]) -> None:
        with self._lock:
            self._record = record
        self._storage.save(self._key(), record)

    def login_if_asked(self, url: str) -> None:
        """Authorize before a connection's first request, if the server asks and no token is kept.

        ``Client.connect_http`` and ``connect_sse`` call this, so that a person
        logging in is never cut short by ``probe_timeout`` (a budget for
        servers' answers, not for a human).  Unlike :meth:`login`, a server
        that asks for nothing, or cannot be reached, is no error here: the
        connection's first request meets it and says so.

        Raises:
            AuthError: the server asked for authorization and the flow failed.
        """
        self._authorize_now(url, required=False)

    def login(self, url: str) -> None:
        """Authorize for the server at ``url`` now, unless a usable token is kept.

        What ``mcp-client login`` does, and what to call before connecting when
        a person has to log in: inside a connection the first request (the era
        probe) is bounded by ``probe_timeout``, which is not meant for a human.
        It sends one unauthenticated ``server/discover`` and answers the 401.

        Raises:
            AuthError: the flow failed, or the server asked for no authorization.
        """
        self._authorize_now(url, required=True)

    def _authorize_now(self, url: str, *, required: bool) -> None:
        self.bind(url)
        if self._usable_token():
            return
        body = {"jsonrpc": "2.0", "id": "login", "method": "server/discover", "params": {}}
        try:
            response = self._session().post(
                url, json=body, auth=self, timeout=self._timeout, stream=True,
                headers={"Accept": "application/json, text/event-stream",
                         "Mcp-Method": "server/discover"})
        except requests.RequestException as exc:
            if not required:
                return        # the connection's first request reports it
            raise AuthError(f"cannot reach {redact_url(url)}: {type(exc).__name__}") from None
        response.close()
        if required and not self._tokens().get("access_token"):
            raise AuthError(f"{redact_url(url)} did not ask for authorization "
                            f"(HTTP {response.status_code})", status=response.status_code)

    def forget(self) -> None:
        """Drop the tokens and client registration kept for the server (log out)."""
        with self._lock:
            self._record = {}
            bound = self._resource is not None
        if bound:
            self._storage.delete(self._key())

    # -- discovery -----------------------------------------------------------------

    def _session(self) -> GuardedSession:
        """The session for discovery and authorization servers: it sends nothing
        :class:`~mcp_client.auth._reach.Reach` refuses (redirects included)."""
        with self._lock:
            if self._http is None:
                reach = Reach(self._resource or "", allow_private_network=self._allow_private)
                self._http = GuardedSession(reach)
                self._http.headers["User-Agent"] = "mcp-client-oauth"
            return self._http

    def _check_endpoints(self, metadata: Mapping[str, Any], *names: str) -> None:
        """Refuse, before the flow sends anything, an endpoint it would use that
        :mod:`._reach` refuses (each is checked again when it is contacted).

        Raises:
            AuthError: naming the endpoint, its URL and the rule.
        """
        reach = self._session().reach
        for name in names:
            url = metadata.get(name)
            if isinstance(url, str):
                reach.check(url, authorization_server=True, what=f"the {name.replace('_', ' ')}")

    def _contacting(self, what: str) -> contextlib.AbstractContextManager[None]:
        """Judge this thread's requests in the block as going to an authorization server."""
        return self._session().contacting(what, authorization_server=True)

    def _discover(self, challenge: Mapping[str, str]) -> Discovered:
        """Resource metadata, then the authorization server's metadata (new each challenge,
        so a server that moved to another authorization server is followed, SEP-2352)."""
        server = str(self._resource)
        session = self._session()
        prm = find_resource_metadata(session, server, challenge.get("resource_metadata"),
                                     self._timeout)
        if prm is not None:
            issuer = prm["authorization_servers"][0]
            with self._contacting("the authorization server"):
                metadata = find_server_metadata(session, issuer, self._timeout)
            if metadata is None:
                raise AuthError(f"the authorization server {redact_url(issuer)} publishes no "
                                "metadata (RFC 8414 or OpenID Connect Discovery)")
            return Discovered(canonical_resource(str(prm["resource"])), metadata, prm)
        # 2025-03-26: no resource metadata; the server's origin is the authorization server.
        issuer = origin_of(server)
        with self._contacting("the authorization server"):
            metadata = find_server_metadata(session, issuer, self._timeout)
        return Discovered(server, metadata or fallback_metadata(server), None)

    def _record_for(self, found: Discovered) -> dict[str, Any]:
        """The record, emptied when it belongs to another authorization server (SEP-2352:
        credentials are bound to the issuer that issued them)."""
        record = self._current()
        if record.get("issuer") != found.issuer:
            if record.get("issuer"):
                log.debug("authorization server changed to %s: registering anew",
                          redact_url(found.issuer))
            record = {"issuer": found.issuer}
        record["metadata"] = found.metadata
        record["resource"] = found.resource
        return record

    def close(self) -> None:
        """Close the connections to the authorization server (idempotent)."""
        with self._lock:
            http, self._http = self._http, None
        if http is not None:
            http.close()


def _expiring(tokens: Mapping[str, Any]) -> bool:
    """Whether the token is within its renewal margin: :data:`_EXPIRY_MARGIN`, bounded
    by :data:`_MARGIN_SHARE` of its lifetime (a record of old, without one: the margin)."""
    expires = tokens.get("expires_at")
    if not isinstance(expires, (int, float)):
        return False
    lifetime = tokens.get("lifetime")
    margin = _EXPIRY_MARGIN
    if isinstance(lifetime, (int, float)) and not isinstance(lifetime, bool) and lifetime >= 0:
        margin = min(margin, _MARGIN_SHARE * lifetime)
    return expires - margin <= time.time()


def _expired(tokens: Mapping[str, Any]) -> bool:
    """Whether the token is past its end (no margin): a token another thread just
    obtained is used unless this holds."""
    expires = tokens.get("expires_at")
    return isinstance(expires, (int, float)) and expires <= time.time()
