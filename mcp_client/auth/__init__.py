"""OAuth 2.1 for protected remote MCP servers (2026-07-28 and 2025-11-25 basic/authorization).

``Client.connect_http(url, auth=OAuth(...))``: :class:`OAuth` (a user at a
browser) and the machine flows :class:`ClientCredentials`,
:class:`WorkloadIdentity` and :class:`IdentityAssertion` are
``requests.auth.AuthBase`` objects, safe to share between threads, that
answer the server's ``401``/``403`` challenges themselves -- discovery, client
registration, the user's consent, tokens and their refresh -- and then send
the request again.  Tokens are kept in a
:class:`TokenStorage` (:class:`MemoryTokenStorage` by default,
:class:`FileTokenStorage` to share them across processes).  Every failure is
an :class:`AuthError`.  The user's own token file, ``user_token_path()``
(outside ``__all__``), is where the command line and ``mcpServers`` entries
keep theirs.

This package imports ``requests``; ``import mcp_client`` does not import it.
"""

from __future__ import annotations

import logging

from ._errors import AuthError
from ._machine import ClientCredentials, IdentityAssertion, WorkloadIdentity
from ._oauth import OAuth
from ._storage import FileTokenStorage, MemoryTokenStorage, TokenStorage, UnsafeTokenFile
from ._storage import user_token_path as user_token_path  # noqa: F401 -- for cli, _config

# The package logger's NullHandler (mcp_client._log installs it lazily elsewhere).
_root = logging.getLogger(__name__.rpartition(".")[0])
if not any(isinstance(handler, logging.NullHandler) for handler in _root.handlers):
    _root.addHandler(logging.NullHandler())

__all__ = ["OAuth", "ClientCredentials", "WorkloadIdentity", "IdentityAssertion", "TokenStorage",
           "MemoryTokenStorage", "FileTokenStorage", "UnsafeTokenFile", "AuthError"]
