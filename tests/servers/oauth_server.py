"""A protected MCP server: the official SDK as the resource server, a small OAuth server beside it.

The resource server is an ``MCPServer`` (mcp 2.3.0) with ``AuthSettings``: it publishes
protected resource metadata and answers 401 with ``WWW-Authenticate``; its token verifier asks
the authorization server's table.  The authorization server (stdlib ``http.server``, a thread
in the same process) has RFC 8414 metadata, dynamic registration, an ``/authorize`` that
approves at once (redirecting with ``code``, ``state`` and ``iss``), and a ``/token`` endpoint
for the authorization code grant (PKCE S256 checked) and refresh tokens (rotated on use).

Control, for the tests: ``POST /control`` on the authorization server with a JSON object:
``{"expires_in": n}`` (lifetime of the tokens issued from now on), ``{"expire": true}`` (every
access token issued so far stops working), ``{"revoke": true}`` (every refresh token too);
``GET /control`` answers the counts of grants (``authorization_code``, ``refresh_token``) and
every secret issued or received (tokens, codes, verifiers, client secrets), so a test can look
for them where they must not be.

Prints ``PORT=<resource server port> AS=<authorization server port>`` once both listen; the
endpoint is ``/mcp``.  Exits when stdin reaches EOF.

Usage: ``python tests/servers/oauth_server.py``
"""

import base64
import hashlib
import json
import secrets
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import anyio
import uvicorn
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer

LOCK = threading.Lock()
STATE: dict[str, Any] = {"expires_in": 3600, "grants": {}, "secrets": [], "access": {},
                         "refresh": {}, "codes": {}, "clients": {}}


def _remember(*values: Any) -> None:
    STATE["secrets"].extend(str(v) for v in values if v)


def _issue(scopes: list[str], resource: str) -> dict[str, Any]:
    access, refresh = "at-" + secrets.token_urlsafe(16), "rt-" + secrets.token_urlsafe(16)
    STATE["access"][access] = {"scopes": scopes, "resource": resource,
                               "expires": time.time() + STATE["expires_in"]}
    STATE["refresh"][refresh] = {"scopes": scopes, "resource": resource}
    _remember(access, refresh)
    return {"access_token": access, "token_type": "Bearer", "expires_in": STATE["expires_in"],
            "refresh_token": refresh, "scope": " ".join(scopes)}


class AuthorizationServer(BaseHTTPRequestHandler):
    issuer = ""

    def log_message(self, *args: Any) -> None:
        pass

    def _json(self, status: int, body: Any) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _form(self) -> dict[str, str]:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode()
        return {k: v[0] for k, v in parse_qs(raw).items()}

    def do_GET(self) -> None:
        url = urlsplit(self.path)
        if url.path == "/.well-known/oauth-authorization-server":
            self._json(200, {"issuer": self.issuer, "authorization_endpoint":
                             f"{self.issuer}/authorize", "token_endpoint": f"{self.issuer}/token",
                             "registration_endpoint": f"{self.issuer}/register",
                             "response_types_supported": ["code"],
                             "grant_types_supported": ["authorization_code", "refresh_token"],
                             "code_challenge_methods_supported": ["S256"],
                             "token_endpoint_auth_methods_supported": ["client_secret_post"],
                             "authorization_response_iss_parameter_supported": True,
                             "scopes_supported": ["tools", "offline_access"]})
        elif url.path == "/authorize":
            query = {k: v[0] for k, v in parse_qs(url.query).items()}
            code = "code-" + secrets.token_urlsafe(12)
            with LOCK:
                STATE["codes"][code] = query
                _remember(code)
            target = query["redirect_uri"] + "?" + urlencode(
                {"code": code, "state": query.get("state", ""), "iss": self.issuer})
            self.send_response(302)
            self.send_header("Location", target)
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif url.path == "/control":
            with LOCK:
                self._json(200, {"grants": STATE["grants"], "secrets": STATE["secrets"]})
        else:
            self._json(404, {"error": "not_found"})

    def do_POST(self) -> None:
        path = urlsplit(self.path).path
        if path == "/register":
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
            client_id = "client-" + secrets.token_urlsafe(6)
            secret = "cs-" + secrets.token_urlsafe(12)
            with LOCK:
                STATE["clients"][client_id] = secret
                _remember(secret)
            self._json(201, {**body, "client_id": client_id, "client_secret": secret,
                             "token_endpoint_auth_method": "client_secret_post"})
        elif path == "/token":
            self._token(self._form())
        elif path == "/control":
            order = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
            with LOCK:
                if "expires_in" in order:
                    STATE["expires_in"] = order["expires_in"]
                if order.get("expire"):
                    for record in STATE["access"].values():
                        record["expires"] = 0
                if order.get("revoke"):
                    STATE["refresh"].clear()
            self._json(200, {})
        else:
            self._json(404, {"error": "not_found"})

    def _token(self, form: dict[str, str]) -> None:
        with LOCK:
            _remember(form.get("code_verifier"), form.get("client_secret"))
            if STATE["clients"].get(form.get("client_id", "")) != form.get("client_secret"):
                return self._json(401, {"error": "invalid_client"})
            grant = form.get("grant_type", "")
            STATE["grants"][grant] = STATE["grants"].get(grant, 0) + 1
            if grant == "authorization_code":
                asked = STATE["codes"].pop(form.get("code", ""), None)
                verifier = form.get("code_verifier", "")
                challenge = base64.urlsafe_b64encode(
                    hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
                if asked is None or asked.get("code_challenge") != challenge:
                    return self._json(400, {"error": "invalid_grant"})
                return self._json(200, _issue(asked.get("scope", "").split(), form["resource"]))
            if grant == "refresh_token":
                held = STATE["refresh"].pop(form.get("refresh_token", ""), None)
                if held is None:
                    return self._json(400, {"error": "invalid_grant",
                                            "error_description": "the refresh token is revoked"})
                return self._json(200, _issue(held["scopes"], held["resource"]))
            return self._json(400, {"error": "unsupported_grant_type"})


class Verifier:
    async def verify_token(self, token: str) -> AccessToken | None:
        with LOCK:
            record = STATE["access"].get(token)
        if record is None or record["expires"] <= time.time():
            return None
        return AccessToken(token=token, client_id="any", scopes=record["scopes"],
                           resource=record["resource"])


def main() -> None:
    as_server = ThreadingHTTPServer(("127.0.0.1", 0), AuthorizationServer)
    AuthorizationServer.issuer = f"http://127.0.0.1:{as_server.server_address[1]}"
    threading.Thread(target=as_server.serve_forever, name="oauth-as", daemon=True).start()
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    port = sock.getsockname()[1]
    server: MCPServer = MCPServer(
        name="protected", log_level="WARNING", token_verifier=Verifier(),
        auth=AuthSettings(issuer_url=AuthorizationServer.issuer,  # type: ignore[arg-type]
                          resource_server_url=f"http://127.0.0.1:{port}/mcp",  # type: ignore
                          validate_token_resource=True))

    @server.tool()
    def echo(text: str) -> str:
        """Say ``text`` back."""
        return text

    app = server.streamable_http_app(host="127.0.0.1")
    web = uvicorn.Server(uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=1))

    def watch_stdin() -> None:
        while sys.stdin.buffer.read(4096):
            pass
        web.should_exit = True

    threading.Thread(target=watch_stdin, name="stdin-watch", daemon=True).start()
    print(f"PORT={port} AS={as_server.server_address[1]}", flush=True)
    anyio.run(_serve, web, sock)


async def _serve(web: Any, sock: socket.socket) -> None:
    await web.serve(sockets=[sock])


if __name__ == "__main__":
    main()
