"""DPoP proofs (RFC 9449): tokens bound to a key this client holds.

:class:`DPoPKey` is one P-256 key pair, made when first needed, and the
proofs signed with it: a ``dpop+jwt`` whose header carries the public key
and whose claims name the request (``htm``, ``htu`` without query or
fragment, §4.2), a fresh ``jti`` and ``iat``, the hash of the access token
it accompanies (``ath``, §4.3) and the server's nonce when one was asked for
(§8 for the authorization server, §9 for the resource server).  The key
never leaves the process; the proofs are secrets of a kind and are never
logged.  Needs PyJWT with its crypto extra (``pip install 'mcp-client-sync[oauth]'``).
"""

from __future__ import annotations

import base64
import hashlib
import secrets
import threading
import time
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from ._errors import INSTALL_OAUTH, AuthError

__all__ = ["DPoPKey", "DPOP_ALGORITHM"]

#: The one proof algorithm used (RFC 9449 §11.6 asks for an asymmetric one).
DPOP_ALGORITHM = "ES256"


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


class DPoPKey:
    """A DPoP key pair and the nonces the servers handed out for it."""

    def __init__(self) -> None:
        try:
            import jwt  # noqa: F401  (checked here, used in proof())
            from cryptography.hazmat.primitives.asymmetric import ec
        except ImportError:
            raise AuthError("DPoP needs PyJWT with its crypto extra: "
                            + INSTALL_OAUTH) from None
        self._key = ec.generate_private_key(ec.SECP256R1())
        numbers = self._key.public_key().public_numbers()
        self.jwk = {"kty": "EC", "crv": "P-256", "x": _b64url(numbers.x.to_bytes(32, "big")),
                    "y": _b64url(numbers.y.to_bytes(32, "big"))}
        self._lock = threading.Lock()
        self._nonces: dict[str, str] = {}

    def __repr__(self) -> str:
        return "<DPoPKey ES256>"

    def remember_nonce(self, url: str, nonce: str | None) -> None:
        """Keep the ``DPoP-Nonce`` a server at ``url`` sent (its origin's, from now on)."""
        if nonce:
            with self._lock:
                self._nonces[_origin(url)] = nonce

    def proof(self, method: str, url: str, *, token: str | None = None) -> str:
        """A fresh proof for one request."""
        import jwt

        parts = urlsplit(url)
        claims: dict[str, Any] = {
            "jti": secrets.token_urlsafe(16), "htm": method.upper(), "iat": int(time.time()),
            "htu": urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))}
        if token is not None:
            claims["ath"] = _b64url(hashlib.sha256(token.encode("ascii")).digest())
        with self._lock:
            nonce = self._nonces.get(_origin(url))
        if nonce is not None:
            claims["nonce"] = nonce
        return str(jwt.encode(claims, self._key, algorithm=DPOP_ALGORITHM,
                              headers={"typ": "dpop+jwt", "jwk": self.jwk}))


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()
