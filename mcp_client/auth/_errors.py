"""The one exception of the authorization layer.

Every way the OAuth flow can fail -- metadata missing or inconsistent, an
issuer that does not match, a refused registration, a user who declined, a
``state`` that does not match, an error from the token endpoint -- ends in
:class:`AuthError`, never in a ``requests`` exception or a hang.  Its text
never holds a token, a code, a verifier or a client secret: it is built here
from what the flow chose to say, and the OAuth ``error_description`` a server
sent is cut to one short line.
"""

from __future__ import annotations

from typing import Any

from ..exceptions import MCPClientError

__all__ = ["AuthError", "INSTALL_OAUTH"]

#: What to run when the ``oauth`` extra (PyJWT with its crypto extra) is missing:
#: the published distribution is ``mcp-client-sync`` (setup.cfg ``[metadata] name``).
INSTALL_OAUTH = "pip install 'mcp-client-sync[oauth]'"

#: How much of a server's ``error_description`` is quoted.
_DESCRIPTION_CHARS = 200


class AuthError(MCPClientError):
    """Authorization with the server's authorization server failed.

    Attributes:
        reason: what went wrong, in one sentence (also the message).
        status: the HTTP status of the answer that ended the flow, or None
            when no answer was involved (a user who declined, a timeout).
        error: the OAuth ``error`` code the server sent (``invalid_grant``),
            or None.
        description: the server's ``error_description``, shortened, or None.
    """

    def __init__(self, reason: str, *, status: int | None = None, error: str | None = None,
                 description: str | None = None) -> None:
        if description is not None:
            description = " ".join(str(description).split())[:_DESCRIPTION_CHARS]
        text = reason
        if error:
            text += f" ({error}{': ' + description if description else ''})"
        super().__init__(text)
        self.reason = reason
        self.status = status
        self.error = error
        self.description = description

    def __reduce__(self) -> Any:
        return (_rebuild, (self.reason, self.status, self.error, self.description))


def _rebuild(reason: str, status: int | None, error: str | None,
             description: str | None) -> AuthError:
    return AuthError(reason, status=status, error=error, description=description)
