"""The authorization scenarios (``auth/*``) of the conformance suite, for ``client.py``.

The suite's authorization server approves every request at once: its
``/authorize`` answers with a redirect that carries the code.  The
``on_authorize`` hook here plays the browser: it fetches the authorization
URL with ``requests`` (not following the redirect) and returns where it
pointed.  Pre-registered credentials and the client-credentials keys come
in ``MCP_CONFORMANCE_CONTEXT``.
"""

from __future__ import annotations

import sys
from typing import Any

import requests

from mcp_client import Client
from mcp_client.auth import ClientCredentials, IdentityAssertion, OAuth, WorkloadIdentity

__all__ = ["run"]

#: The client ID metadata document URL the suite's ``auth/basic-cimd`` expects.
CIMD_URL = "https://conformance-test.local/client-metadata.json"
REDIRECT_URI = "http://localhost:3030/callback"


def follow(authorization_url: str) -> str:
    """The browser's step: the URL the authorization endpoint redirects to."""
    response = requests.get(authorization_url, allow_redirects=False, timeout=10)
    location = response.headers.get("Location")
    if response.status_code not in (301, 302, 303, 307, 308) or not location:
        raise RuntimeError(f"the authorization endpoint answered HTTP {response.status_code}")
    return location


def auth_for(name: str, context: dict[str, Any]) -> Any:
    """The ``auth=`` object the scenario calls for."""
    if name == "auth/client-credentials-jwt":
        return ClientCredentials(context["client_id"], private_key=context["private_key_pem"],
                                 signing_algorithm=context.get("signing_algorithm"))
    if name == "auth/enterprise-managed-authorization":
        return IdentityAssertion(context["client_id"], context["client_secret"],
                                 id_token=context["idp_id_token"],
                                 idp_token_endpoint=context["idp_token_endpoint"],
                                 idp_client_id=context["idp_client_id"])
    if name == "auth/wif-jwt-bearer":
        return WorkloadIdentity(context["client_id"], context["valid_jwt"])
    if name == "auth/client-credentials-basic":
        return ClientCredentials(context["client_id"], client_secret=context["client_secret"])
    return OAuth(client_name="mcp-client conformance", redirect_uri=REDIRECT_URI,
                 client_id=context.get("client_id"), client_secret=context.get("client_secret"),
                 client_metadata_url=CIMD_URL, on_authorize=follow,
                 dpop=name.startswith("auth/dpop"))


def run(name: str, url: str, context: dict[str, Any]) -> int:
    """Play scenario ``name`` against ``url``; the exit status."""
    try:
        with Client.connect_http(url, auth=auth_for(name, context), request_timeout=20,
                                 on_warn=lambda text: print(f"warning: {text}",
                                                            file=sys.stderr)) as client:
            client.era   # the probe (2026-07-28) or the handshake
            tools = client.list_tools()
            if tools:
                client.call_tool(tools[0]["name"], {})
    except Exception as exc:
        print(f"{name}: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    return 0
