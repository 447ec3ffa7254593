"""A protected MCP server and its authorization server, both stdlib HTTP servers in threads.

For the hardening tests of :mod:`mcp_client.auth`: unlike ``tests/servers/oauth_server.py``
(the official SDK in a child process), every piece here is scripted from the test -- where the
401 points, what the resource metadata names, where its fetch is redirected, which endpoints
the authorization server's metadata lists, how long tokens live -- and every request the
authorization server receives is recorded, with a count of token grants by type.

:class:`Resolver` is the mock resolver the tests run under: names it maps connect to
127.0.0.1, a loopback address connects as itself, and any other connection the client
attempts (``169.254.169.254``, ``10.0.0.1``, an unmapped name) is recorded and refused
without touching the network -- so a test fails if the client even tried.
"""

from __future__ import annotations

import json
import secrets
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from unittest import mock
from urllib.parse import parse_qs, urlencode, urlsplit

import urllib3.util.connection

from ..base import discover

#: What the stage's server answers to server/discover.
DISCOVERED = discover({"tools": {}}, name="stage")


class Recorded:
    """One request the authorization server received."""

    def __init__(self, method: str, path: str, headers: dict[str, str], body: bytes) -> None:
        self.method, self.path, self.headers, self.body = method, path, headers, body

    def __repr__(self) -> str:
        return f"<{self.method} {self.path}>"


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 10

    def log_message(self, *args: Any) -> None:
        pass

    def _body(self) -> bytes:
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def send(self, status: int, body: Any = None, headers: dict[str, str] | None = None) -> None:
        data = b"" if body is None else json.dumps(body).encode()
        self.send_response(status)
        if body is not None:
            self.send_header("Content-Type", "application/json")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        self._dispatch("GET", b"")

    def do_POST(self) -> None:
        self._dispatch("POST", self._body())

    def _dispatch(self, verb: str, body: bytes) -> None:
        stage: Stage = self.server.stage   # type: ignore[attr-defined]
        role: str = self.server.role   # type: ignore[attr-defined]
        getattr(stage, f"{role}_{verb.lower()}")(self, body)


class Stage:
    """The two servers; change the attributes to script them.

    Attributes:
        rs_url: the MCP endpoint (``http://127.0.0.1:<port>/mcp``).
        as_url: where the resource metadata says the authorization server is
            (default its real loopback URL; a test may name it otherwise).
        metadata_url: what the 401's ``resource_metadata`` names (None: leave it out).
        prm_redirect: where a resource metadata fetch is redirected (None: answered).
        endpoints: overrides of the authorization server metadata's members.
        expires_in: lifetime of the tokens issued from now on.
        seen: every request the authorization server received.
        grants: token requests by grant type.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._servers: list[ThreadingHTTPServer] = []
        self._threads: list[threading.Thread] = []
        self.rs_port = self._start("rs")
        self.as_port = self._start("as")
        self.rs_url = f"http://127.0.0.1:{self.rs_port}/mcp"
        self.as_origin = f"http://127.0.0.1:{self.as_port}"
        self.as_url = self.as_origin
        self.prm_url = f"http://127.0.0.1:{self.rs_port}/.well-known/oauth-protected-resource/mcp"
        self.metadata_url: str | None = self.prm_url
        self.prm_redirect: str | None = None
        self.endpoints: dict[str, Any] = {}
        self.expires_in: float = 3600
        self.token_delay = 0.0
        self.seen: list[Recorded] = []
        self.grants: dict[str, int] = {}
        self.tokens: dict[str, float] = {}   # access token -> expiry (time.time())
        self.mcp_posts = 0

    def _start(self, role: str) -> int:
        server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        server.daemon_threads = True
        server.stage = self   # type: ignore[attr-defined]
        server.role = role   # type: ignore[attr-defined]
        thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                                  name=f"stage-{role}-{server.server_address[1]}")
        thread.start()
        self._servers.append(server)
        self._threads.append(thread)
        return int(server.server_address[1])

    def stop(self) -> None:
        for server in self._servers:
            server.shutdown()
            server.server_close()
        for thread in self._threads:
            thread.join(10)

    # -- the resource server -----------------------------------------------------------

    def rs_get(self, handler: _Handler, body: bytes) -> None:
        if "/.well-known/oauth-protected-resource" not in handler.path:
            return handler.send(404, {"error": "not_found"})
        if self.prm_redirect is not None:
            return handler.send(302, headers={"Location": self.prm_redirect})
        handler.send(200, {"resource": self.rs_url, "authorization_servers": [self.as_url],
                           "scopes_supported": ["tools"]})

    def rs_post(self, handler: _Handler, body: bytes) -> None:
        value = handler.headers.get("Authorization") or ""
        token = value[7:] if value.startswith("Bearer ") else ""
        with self._lock:
            self.mcp_posts += 1
            good = self.tokens.get(token, 0) > time.time()
        if not good:
            challenge = "Bearer" + (f' resource_metadata="{self.metadata_url}"'
                                    if self.metadata_url else "")
            return handler.send(401, {"error": "invalid_token"},
                                {"WWW-Authenticate": challenge})
        message = json.loads(body or b"{}")
        if "id" not in message:
            return handler.send(202)
        result = DISCOVERED if message.get("method") == "server/discover" else {
            "resultType": "complete", "content": [], "isError": False}
        handler.send(200, {"jsonrpc": "2.0", "id": message["id"], "result": result})

    # -- the authorization server -------------------------------------------------------

    def _record(self, handler: _Handler, body: bytes) -> None:
        with self._lock:
            self.seen.append(Recorded(handler.command, handler.path,
                                      {k.lower(): v for k, v in handler.headers.items()}, body))

    def metadata(self) -> dict[str, Any]:
        issuer = self.as_url
        return {"issuer": issuer, "authorization_endpoint": f"{issuer}/authorize",
                "token_endpoint": f"{issuer}/token", "registration_endpoint": f"{issuer}/register",
                "response_types_supported": ["code"],
                "grant_types_supported": ["authorization_code", "refresh_token",
                                          "client_credentials"],
                "code_challenge_methods_supported": ["S256"],
                "token_endpoint_auth_methods_supported": ["client_secret_post"],
                **self.endpoints}

    def as_get(self, handler: _Handler, body: bytes) -> None:
        self._record(handler, body)
        if urlsplit(handler.path).path.startswith("/.well-known/oauth-authorization-server"):
            return handler.send(200, self.metadata())
        handler.send(404, {"error": "not_found"})

    def as_post(self, handler: _Handler, body: bytes) -> None:
        self._record(handler, body)
        path = urlsplit(handler.path).path
        if path == "/register":
            document = json.loads(body)
            return handler.send(201, {**document, "client_id": "cid-1",
                                      "client_secret": "client-secret-1",
                                      "token_endpoint_auth_method": "client_secret_post"})
        if path != "/token":
            return handler.send(404, {"error": "not_found"})
        form = {k: v[0] for k, v in parse_qs(body.decode()).items()}
        grant = form.get("grant_type", "")
        if self.token_delay:
            time.sleep(self.token_delay)   # widens the window in which other threads wait
        access = "at-" + secrets.token_urlsafe(12)
        with self._lock:
            self.grants[grant] = self.grants.get(grant, 0) + 1
            self.tokens[access] = time.time() + self.expires_in
            lifetime = self.expires_in
        handler.send(200, {"access_token": access, "token_type": "Bearer",
                           "expires_in": lifetime, "refresh_token": "rt-" + access})

    def expire_all(self) -> None:
        """Every access token issued so far stops working (the client does not know)."""
        with self._lock:
            for token in self.tokens:
                self.tokens[token] = 0


def approve(url: str) -> str:
    """An ``on_authorize`` that approves at once: the redirect URL with a code and the state."""
    query = {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}
    return query["redirect_uri"] + "?" + urlencode({"code": "code-1", "state": query["state"]})


class Resolver:
    """Connections by urllib3 under a mock resolver that never leaves 127.0.0.1.

    Args:
        names: host names that connect to 127.0.0.1 (a "remote" server that is local).

    Attributes:
        attempts: ``(host, port)`` of every connection refused (not loopback, not mapped).
    """

    def __init__(self, names: tuple[str, ...] = ()) -> None:
        self.names = {name.lower() for name in names}
        self.attempts: list[tuple[str, int]] = []
        self._real = urllib3.util.connection.create_connection
        self._patch = mock.patch("urllib3.util.connection.create_connection", self._connect)

    def _connect(self, address: tuple[str, int], *args: Any, **kwargs: Any) -> socket.socket:
        host, port = address
        if host.lower() in self.names:
            return self._real(("127.0.0.1", port), *args, **kwargs)
        if host in ("127.0.0.1", "localhost", "::1"):
            return self._real(address, *args, **kwargs)
        self.attempts.append((host, port))
        raise OSError(f"the test refused a connection to {host}:{port}")

    def __enter__(self) -> Resolver:
        self._patch.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._patch.stop()
