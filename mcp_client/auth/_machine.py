"""Machine-to-machine authorization: the client credentials grant.

:class:`ClientCredentials` asks the authorization server for a token with
the client's own credentials -- nobody is asked anything (the
``io.modelcontextprotocol/oauth-client-credentials`` extension, SEP-1046).
The client authenticates with ``client_secret_basic`` (RFC 6749 §2.3.1) or
``private_key_jwt`` (RFC 7523 §2.2: a JWT signed with the client's private
key, its ``aud`` the authorization server's issuer).  Signing needs PyJWT
with its crypto extra (``pip install 'mcp-client-sync[oauth]'``), imported only
when a private key is used.
"""

from __future__ import annotations

import logging
import secrets
import time
from typing import Any, Callable, Mapping

from ._base import DEFAULT_TIMEOUT, BearerAuth, Discovered
from ._errors import INSTALL_OAUTH, AuthError
from ._flow import client_authentication, scope_text, token_request, tokens_from

__all__ = ["ClientCredentials", "WorkloadIdentity", "IdentityAssertion"]

log = logging.getLogger(__name__)

_ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
_JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
_TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
_ID_JAG = "urn:ietf:params:oauth:token-type:id-jag"
#: Lifetime of a client assertion, seconds (short: it is used at once).
_ASSERTION_LIFETIME = 300


class ClientCredentials(BearerAuth):
    """Authorization for a protected MCP server as a service, without a user.

    Args:
        client_id: the client registered with the authorization server.
        client_secret: its secret (``client_secret_basic``, or
            ``client_secret_post`` when the server supports only that).
        private_key: a PEM private key (str or bytes) for ``private_key_jwt``.
        signing_algorithm: the JWS algorithm (default: ES256 for an EC key,
            RS256 for an RSA key).
        scopes: the scopes to ask for when the challenge names none.
        storage: where tokens are kept (default: in memory).
        timeout: seconds for each request to the authorization server.
        allow_private_network: let discovery and the token requests contact
            loopback and private-network addresses the MCP server is not
            itself on (as for :class:`~mcp_client.auth.OAuth`; cloud metadata
            and link-local addresses, and http off loopback, are refused
            either way).

    Raises:
        AuthError: neither or both of client_secret and private_key are given.
    """

    def __init__(self, client_id: str, *, client_secret: str | None = None,
                 private_key: str | bytes | None = None, signing_algorithm: str | None = None,
                 scopes: list[str] | None = None, storage: Any = None,
                 timeout: float = DEFAULT_TIMEOUT, allow_private_network: bool = False) -> None:
        if (client_secret is None) == (private_key is None):
            raise AuthError("ClientCredentials needs exactly one of client_secret= and "
                            "private_key=")
        super().__init__(storage=storage, timeout=timeout, max_step_ups=1, client_id=client_id,
                         allow_private_network=allow_private_network)
        self._client_id = client_id
        self._secret = client_secret
        self._private_key = private_key
        self._algorithm = signing_algorithm
        self._scopes = list(scopes) if scopes else None

    def _renew(self) -> str | None:
        record = self._current()
        if not record.get("metadata"):
            return None
        found = Discovered(record.get("resource") or str(self._resource), record["metadata"], None)
        tokens = record.get("tokens") or {}
        return self._grant(found, record, tokens.get("scopes") or self._scopes)

    def _obtain(self, status: int, challenge: Mapping[str, str], sent: str | None) -> str:
        found = self._discover(challenge)
        record = self._record_for(found)
        asked = challenge.get("scope", "").split()
        if status == 403:
            held = list((record.get("tokens") or {}).get("scopes") or [])
            scopes = held + [scope for scope in asked if scope not in held]
        else:
            supported = (found.resource_metadata or {}).get("scopes_supported")
            scopes = asked or self._scopes or (
                [str(s) for s in supported] if isinstance(supported, list) else [])
        return self._grant(found, record, scopes or None)

    def _grant(self, found: Discovered, record: dict[str, Any], scopes: list[str] | None) -> str:
        self._check_endpoints(found.metadata, "token_endpoint")
        data = {"grant_type": "client_credentials", "resource": found.resource}
        scope = scope_text(scopes)
        if scope:
            data["scope"] = scope
        headers = self._authenticate(found, data)
        with self._contacting("the token endpoint"):
            answer = token_request(self._session(), found.metadata["token_endpoint"], data,
                                   headers, self._timeout)
        record["tokens"] = tokens_from(answer, resource=found.resource, previous=None,
                                       requested=scopes)
        self._store(record)
        return str(record["tokens"]["access_token"])

    def _authenticate(self, found: Discovered, data: dict[str, str]) -> dict[str, str]:
        """Put the client's credentials into a token request; the headers it needs."""
        headers: dict[str, str] = {}
        if self._private_key is not None:
            data["client_assertion_type"] = _ASSERTION_TYPE
            data["client_assertion"] = self._assertion(found)
            data["client_id"] = self._client_id
        else:
            supported = found.metadata.get("token_endpoint_auth_methods_supported")
            method = "client_secret_post" if isinstance(supported, list) and \
                "client_secret_basic" not in supported and "client_secret_post" in supported \
                else "client_secret_basic"
            client_authentication(method, self._client_id, self._secret, data, headers)
        return headers

    def _assertion(self, found: Discovered) -> str:
        try:
            import jwt
        except ImportError:
            raise AuthError("private_key= needs PyJWT with its crypto extra: "
                            + INSTALL_OAUTH) from None
        now = int(time.time())
        claims = {"iss": self._client_id, "sub": self._client_id, "aud": found.issuer,
                  "iat": now, "exp": now + _ASSERTION_LIFETIME, "jti": secrets.token_urlsafe(16)}
        key = self._private_key
        assert key is not None
        try:
            return str(jwt.encode(claims, key, algorithm=self._algorithm or _algorithm(key)))
        except Exception as exc:   # PyJWT and cryptography raise many types for a bad key
            raise AuthError(f"cannot sign the client assertion: {type(exc).__name__}") from None


def _algorithm(key: Any) -> str:
    text = key.decode("ascii", "replace") if isinstance(key, bytes) else str(key)
    return "RS256" if "RSA PRIVATE KEY" in text else "ES256" if "EC PRIVATE KEY" in text \
        else _from_loaded(text)


def _from_loaded(text: str) -> str:
    """The algorithm for a PKCS#8 key, by loading it (needs ``cryptography``)."""
    try:
        from cryptography.hazmat.primitives.asymmetric import ec, rsa
        from cryptography.hazmat.primitives.serialization import load_pem_private_key
    except ImportError:
        return "RS256"
    try:
        loaded = load_pem_private_key(text.encode(), password=None)
    except (ValueError, TypeError):
        raise AuthError("private_key is not a PEM private key") from None
    if isinstance(loaded, ec.EllipticCurvePrivateKey):
        return {"secp384r1": "ES384", "secp521r1": "ES512"}.get(loaded.curve.name, "ES256")
    if isinstance(loaded, rsa.RSAPrivateKey):
        return "RS256"
    return "EdDSA"


class WorkloadIdentity(ClientCredentials):
    """Authorization as a workload: a JWT from the platform is the grant (RFC 7523 §2.1).

    The ``io.modelcontextprotocol/auth/wif`` extension (SEP-1933): the token
    request is ``grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer`` with
    the workload's identity token as ``assertion``.  A refusal
    (``invalid_grant``, ``invalid_scope``, ``unauthorized_client``) is raised as
    it is: another grant type is never tried.

    Args:
        client_id: the client the authorization server knows the workload as.
        assertion: the workload JWT, or a function returning a fresh one
            (called for each token request, since such tokens are short-lived).
        scopes, storage, timeout, allow_private_network: as for :class:`ClientCredentials`.
    """

    def __init__(self, client_id: str, assertion: str | Callable[[], str], *,
                 scopes: list[str] | None = None, storage: Any = None,
                 timeout: float = DEFAULT_TIMEOUT, allow_private_network: bool = False) -> None:
        if not callable(assertion) and not (isinstance(assertion, str) and assertion):
            raise AuthError("assertion must be the workload JWT or a function returning one")
        super().__init__(client_id, client_secret="", scopes=scopes, storage=storage,
                         timeout=timeout, allow_private_network=allow_private_network)
        self._workload = assertion

    def _authenticate(self, found: Discovered, data: dict[str, str]) -> dict[str, str]:
        try:
            token = self._workload() if callable(self._workload) else self._workload
        except AuthError:
            raise
        except Exception as exc:
            raise AuthError(f"the workload token function raised {type(exc).__name__}") \
                from exc
        data["grant_type"] = _JWT_BEARER
        data["assertion"] = str(token)
        data["client_id"] = self._client_id
        return {}


class IdentityAssertion(ClientCredentials):
    """Enterprise-managed authorization: the user's IdP vouches for them (SEP-990).

    Two token requests, nobody asked: first a token exchange (RFC 8693) at the
    enterprise IdP turns the user's ID token into an identity assertion grant
    (``urn:ietf:params:oauth:token-type:id-jag``) for the MCP server's
    authorization server; then that assertion is the ``jwt-bearer`` grant
    (RFC 7523) at the authorization server, with this client's credentials.

    Args:
        client_id, client_secret: this client at the MCP server's authorization
            server (``client_secret_basic``).
        id_token: the user's ID token from the IdP, or a function returning one.
        idp_token_endpoint: the IdP's token endpoint.
        idp_client_id: this client at the IdP.
        idp_client_secret: its secret there, if it has one.
        scopes, storage, timeout, allow_private_network: as for :class:`ClientCredentials`
            (the IdP's token endpoint is held to the same rules).
    """

    def __init__(self, client_id: str, client_secret: str, *, id_token: str | Callable[[], str],
                 idp_token_endpoint: str, idp_client_id: str,
                 idp_client_secret: str | None = None, scopes: list[str] | None = None,
                 storage: Any = None, timeout: float = DEFAULT_TIMEOUT,
                 allow_private_network: bool = False) -> None:
        super().__init__(client_id, client_secret=client_secret, scopes=scopes,
                         storage=storage, timeout=timeout,
                         allow_private_network=allow_private_network)
        self._id_token = id_token
        self._idp = (idp_token_endpoint, idp_client_id, idp_client_secret)

    def _authenticate(self, found: Discovered, data: dict[str, str]) -> dict[str, str]:
        endpoint, idp_client, idp_secret = self._idp
        try:
            subject = self._id_token() if callable(self._id_token) else self._id_token
        except Exception as exc:
            raise AuthError(f"the ID token function raised {type(exc).__name__}") from exc
        exchange = {"grant_type": _TOKEN_EXCHANGE, "subject_token": str(subject),
                    "subject_token_type": "urn:ietf:params:oauth:token-type:id_token",
                    "requested_token_type": _ID_JAG, "audience": found.issuer,
                    "resource": found.resource}
        if "scope" in data:
            exchange["scope"] = data["scope"]
        idp_headers: dict[str, str] = {}
        client_authentication("client_secret_post" if idp_secret else "none", idp_client,
                              idp_secret, exchange, idp_headers)
        self._check_endpoints({"IdP token endpoint": endpoint}, "IdP token endpoint")
        with self._contacting("the IdP token endpoint"):
            answer = token_request(self._session(), endpoint, exchange, idp_headers,
                                   self._timeout, token_types=("n_a", "bearer"))
        data["grant_type"] = _JWT_BEARER
        data["assertion"] = str(answer["access_token"])
        headers: dict[str, str] = {}
        client_authentication("client_secret_basic", self._client_id, self._secret, data, headers)
        return headers
