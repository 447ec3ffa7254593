"""A local MCP registry: the ``/v0.1`` read API over documents shaped like published ones.

:class:`LocalRegistry` serves, on 127.0.0.1 and a free port, from a thread of its own:

* ``GET /v0.1/servers/{name}/versions/{version|latest}`` -> ``{"server", "_meta"}``;
* ``GET /v0.1/servers?search=&version=latest&cursor=&limit=`` -> ``{"servers", "metadata"}``,
  ``limit`` entries a page, the cursor an offset;
* ``GET /files/{name}`` -> the bytes of a file it was given (an ``mcpb`` bundle).

Each request's path is kept in ``requests``.  Used in-process by tests/discovery.
"""

from __future__ import annotations

import json
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

OFFICIAL = "io.modelcontextprotocol.registry/official"


def document(server: dict[str, Any], *, status: str = "active",
             latest: bool = True) -> dict[str, Any]:
    """A registry answer around a ``server.json``, with the registry's own ``_meta``."""
    return {"server": {"$schema": "https://static.modelcontextprotocol.io/schemas/2025-12-11/"
                                  "server.schema.json", **server},
            "_meta": {OFFICIAL: {"status": status, "isLatest": latest,
                                 "publishedAt": "2026-11-01T00:00:00Z"}}}


class LocalRegistry:
    """The registry, serving ``documents`` (each a :func:`document`) and ``files``."""

    def __init__(self, documents: list[dict[str, Any]],
                 files: dict[str, bytes] | None = None) -> None:
        self.documents = documents
        self.files = dict(files or {})
        self.requests: list[str] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                owner.requests.append(self.path)
                status, body, kind = owner.answer(self.path)
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.origin = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        name="local-registry", daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(10)

    def answer(self, raw: str) -> tuple[int, bytes, str]:
        url = urllib.parse.urlsplit(raw)
        if url.path.startswith("/files/"):
            data = self.files.get(url.path[len("/files/"):])
            return (200, data, "application/octet-stream") if data is not None else \
                (404, b"not found", "text/plain")
        if url.path == "/v0.1/servers":
            return self.search(urllib.parse.parse_qs(url.query))
        prefix = "/v0.1/servers/"
        if url.path.startswith(prefix) and "/versions/" in url.path:
            name, _, version = url.path[len(prefix):].partition("/versions/")
            found = self.version(urllib.parse.unquote(name), urllib.parse.unquote(version))
            if found is not None:
                return 200, json.dumps(found).encode(), "application/json"
        return 404, json.dumps({"title": "Not Found", "status": 404}).encode(), \
            "application/problem+json"

    def version(self, name: str, version: str) -> dict[str, Any] | None:
        for item in self.documents:
            server, meta = item["server"], item["_meta"][OFFICIAL]
            if server["name"] == name and (server["version"] == version or
                                           (version == "latest" and meta["isLatest"])):
                return item
        return None

    def search(self, query: dict[str, list[str]]) -> tuple[int, bytes, str]:
        text = query.get("search", [""])[0].lower()
        limit = int(query.get("limit", ["30"])[0])
        start = int(query.get("cursor", ["0"])[0])
        hits = [d for d in self.documents if d["_meta"][OFFICIAL]["isLatest"] and
                (text in d["server"]["name"].lower() or
                 text in d["server"].get("description", "").lower())]
        page = hits[start:start + limit]
        metadata: dict[str, Any] = {"count": len(page)}
        if start + limit < len(hits):
            metadata["nextCursor"] = str(start + limit)
        return 200, json.dumps({"servers": page, "metadata": metadata}).encode(), \
            "application/json"
