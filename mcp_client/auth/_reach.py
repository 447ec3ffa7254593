"""Where the authorization layer may send a request, decided from the URL before sending.

The URLs discovery follows come from the network: a 401's
``resource_metadata``, the metadata's ``authorization_servers``, each
document's endpoints, and any redirect of a metadata request.  A server that
names ``http://169.254.169.254/...`` or ``http://10.0.0.1/...`` would
otherwise make the client fetch from, and POST secrets to, whatever answers
there.  :class:`Reach` decides, for the MCP server one auth object serves,
whether a URL may be contacted, and raises :class:`AuthError` naming the URL
and the rule when not:

* the URL must read the same to every parser (:mod:`mcp_client._origin`: no
  backslash, whitespace or userinfo in its authority);
* **never**: a cloud metadata service (``169.254.169.254``, ``fd00:ec2::254``,
  ``100.100.100.200``, ``metadata.google.internal``, ``metadata.goog``,
  ``metadata``, ``instance-data``...), a link-local address (``169.254/16``,
  ``fe80::/10``), the unspecified address, a multicast or reserved one --
  whatever the options;
* an authorization server (its metadata, token, registration and
  authorization endpoints, and an IdP's token endpoint) only over
  ``https``; ``http`` only on a loopback address or ``localhost``, for
  development (2026-07-28 basic/authorization, "Communication Security"):
  codes, PKCE verifiers, client secrets and tokens never go in cleartext
  over a network;
* a loopback or private address (RFC 1918, RFC 6598 shared, IPv6 unique
  local and the older site-local ``fec0::/10``, and names under
  ``.internal``, ``.local`` and ``.home.arpa``) only when the MCP server
  itself is on the same kind of address, or the caller passed
  ``allow_private_network=True``;
* the MCP server's own origin is the caller's choice: its protected resource
  metadata is fetched there whatever the rules above say (but an
  authorization server there still needs ``https`` off loopback).

Names are **not resolved**: the decision is the URL's, made before any
connection, so it cannot race a DNS answer that changes between the check
and the connection (DNS rebinding).  A public name that resolves to a
private address is therefore not refused here; the ``https`` rule is what
guards it -- a metadata service or a private host does not present a
certificate for a public name.  Numeric IPv4 forms that the resolver
accepts (``2852039166``, ``0xa9fea9fe``, ``0251.0376.0251.0376``,
``169.254.43518``) and IPv4 inside IPv6 (``::ffff:a9fe:a9fe``, 6to4, NAT64)
are read as the address they stand for.

:class:`GuardedSession` is the ``requests`` session every auth object talks
to authorization servers through: it asks :class:`Reach` before *each*
request it sends -- a redirect's included, since requests sends every hop
through ``Session.send`` -- so nothing leaves for a refused URL, whatever
code path asked for it.  A caller says what it is contacting with
:meth:`GuardedSession.contacting` (an authorization server gets the https
rule); anything else is judged as a URL discovery found.

The rules themselves are pure: no I/O, no name resolution.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any, Iterator, NoReturn

import requests

from .._origin import UnsafeURL, connect_origin, host_kind
from .._redact import redact_url
from ._errors import AuthError

__all__ = ["Reach", "GuardedSession", "host_kind"]

#: What each kind is called in a refusal.
_SAID = {"metadata": "a cloud metadata service", "link-local": "a link-local address",
         "unusable": "not a unicast address", "loopback": "a loopback address",
         "private": "a private-network address"}


class Reach:
    """The rules above for the MCP server at ``server_url``.

    Args:
        server_url: the MCP server's URL (the protected resource).
        allow_private_network: allow loopback and private addresses the MCP
            server is not itself on (never metadata or link-local ones).
    """

    __slots__ = ("_server", "_kind", "_allow_private")

    def __init__(self, server_url: str, *, allow_private_network: bool) -> None:
        self._server: tuple[str, str, int] | None
        try:
            self._server = connect_origin(server_url, userinfo=True)
        except UnsafeURL:
            self._server = None   # every URL then gets the full rules
        self._kind = host_kind(self._server[1]) if self._server else "public"
        self._allow_private = bool(allow_private_network)

    def check(self, url: str, *, authorization_server: bool, what: str) -> None:
        """Refuse, before anything is sent, a request to ``url`` the rules forbid.

        Args:
            url: where the request would go.
            authorization_server: it goes to an authorization server (or an
                IdP), which must be reached over https off loopback.
            what: what the URL is, for the message (``the token endpoint``).

        Raises:
            AuthError: naming ``url`` and the rule that refuses it.
        """
        try:
            scheme, host, port = connect_origin(url)
        except UnsafeURL as exc:
            self._refuse(url, what, exc.rule)
        if (scheme, host, port) == self._server and not authorization_server:
            return   # the MCP server the caller chose
        kind = host_kind(host)
        if kind in ("metadata", "link-local", "unusable"):
            self._refuse(url, what, f"{_SAID[kind]} is never contacted")
        if authorization_server and scheme != "https" and kind != "loopback":
            self._refuse(url, what, "an authorization server is reached over https only "
                         "(http only on a loopback address), so that no secret goes in "
                         "cleartext")
        if kind in ("loopback", "private") and kind != self._kind \
                and (scheme, host, port) != self._server and not self._allow_private:
            self._refuse(url, what, f"{_SAID[kind]}, and the MCP server is not on one "
                         "(allow_private_network=True allows it)")

    @staticmethod
    def _refuse(url: str, what: str, rule: str) -> NoReturn:
        raise AuthError(f"refused to contact {what} at {redact_url(url)}: {rule}")


class GuardedSession(requests.Session):
    """A ``requests.Session`` that sends nothing :class:`Reach` refuses (redirects included).

    Args:
        reach: the rules, for the MCP server this session's auth object serves.
    """

    def __init__(self, reach: Reach) -> None:
        super().__init__()
        self.reach = reach
        self._role = threading.local()   # per thread: what the current request is for

    @contextlib.contextmanager
    def contacting(self, what: str, *, authorization_server: bool) -> Iterator[None]:
        """Judge the requests this thread sends inside the block as going to ``what``."""
        before = getattr(self._role, "value", None)
        self._role.value = (what, authorization_server)
        try:
            yield
        finally:
            self._role.value = before

    def send(self, request: requests.PreparedRequest, **kwargs: Any) -> requests.Response:
        what, authorization_server = getattr(self._role, "value", None) or (
            "a URL discovery found", False)
        self.reach.check(str(request.url), authorization_server=authorization_server,
                         what=what)
        response: requests.Response = super().send(request, **kwargs)
        return response
