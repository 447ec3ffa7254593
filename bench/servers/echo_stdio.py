"""A minimal hand-written MCP server over stdio, modern era only (2026-07-28).

It exists so that a benchmark measures the client, not the server: no SDK, no
validation library, answers spliced from prebuilt bytes.  It serves
``server/discover``, ``tools/list`` (one tool, ``echo``, annotated
``readOnlyHint``; the result is cacheable: ``ttlMs`` 60000, ``cacheScope``
public, 2026-07-28 caching) and ``tools/call`` of ``echo``.  Every request
must carry the ``params._meta`` envelope (PROTOCOL §3.1); anything else gets
the error the SDK server would give (PROTOCOL §13.1).  Pipelined requests are
answered in one write per read.

``--tools N`` publishes N tools instead of one: ``echo`` and ``echo_1`` to
``echo_<N-1>``, every one answering as ``echo`` does (the scale benchmark's
catalogues of 50 tools a server).

Usage: ``python bench/servers/echo_stdio.py [--tools N]`` (exits at EOF on stdin).
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

#: The only version served (2026-07-28 versioning).
VERSION = "2026-07-28"
META_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CAPS = "io.modelcontextprotocol/clientCapabilities"
#: How long a client may keep tools/list, in ms (any value > 0 makes it cacheable).
TOOLS_TTL_MS = 60_000

_SERVER_META = {"io.modelcontextprotocol/serverInfo": {"name": "bench-echo", "version": "1.0.0"}}


def _tool(name: str) -> dict[str, Any]:
    return {"name": name, "description": "Return the text unchanged.",
            "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}},
                            "required": ["text"]},
            "annotations": {"readOnlyHint": True, "destructiveHint": False,
                            "openWorldHint": False}}


def _tool_count(argv: list[str]) -> int:
    if "--tools" in argv[:-1]:
        return max(1, int(argv[argv.index("--tools") + 1]))
    return 1


_TOOLS = [_tool("echo")]
_NAMES = frozenset(["echo"])


def _result_tail(result: dict[str, Any]) -> bytes:
    """``,"result":{...}}\\n``: everything of a response after its id."""
    return b',"result":' + json.dumps(result, separators=(",", ":")).encode() + b"}\n"


_DISCOVER = _result_tail({
    "resultType": "complete", "supportedVersions": [VERSION], "capabilities": {"tools": {}},
    "ttlMs": 0, "cacheScope": "public", "_meta": _SERVER_META})
_TOOLS_LIST = b""


def configure(tools: int) -> None:
    """Publish ``tools`` tools: ``echo``, then ``echo_1`` .. ``echo_<tools-1>``."""
    global _TOOLS, _NAMES, _TOOLS_LIST
    _TOOLS = [_tool("echo")] + [_tool(f"echo_{n}") for n in range(1, max(1, tools))]
    _NAMES = frozenset(tool["name"] for tool in _TOOLS)
    _TOOLS_LIST = _result_tail({
        "resultType": "complete", "tools": _TOOLS, "ttlMs": TOOLS_TTL_MS,
        "cacheScope": "public", "_meta": _SERVER_META})


configure(1)
_CALL_HEAD = b',"result":{"content":[{"type":"text","text":'
_CALL_TAIL = b'}],"isError":false,"resultType":"complete"}}\n'
_HEAD = b'{"jsonrpc":"2.0","id":'
_dumps = json.JSONEncoder(separators=(",", ":")).encode


def _error(ident: Any, code: int, message: str, data: Any = None) -> bytes:
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return _dumps({"jsonrpc": "2.0", "id": ident, "error": error}).encode() + b"\n"


def _call(ident: bytes, params: dict[str, Any]) -> bytes:
    arguments = params.get("arguments")
    text = arguments.get("text") if isinstance(arguments, dict) else None
    if params.get("name") not in _NAMES or not isinstance(text, str):
        body = {"content": [{"type": "text", "text": f"cannot call {params.get('name')!r}"}],
                "isError": True, "resultType": "complete"}
        return _HEAD + ident + _result_tail(body)
    return _HEAD + ident + _CALL_HEAD + _dumps(text).encode() + _CALL_TAIL


def answer(line: bytes) -> bytes:
    """The reply to one inbound line (empty for a notification)."""
    try:
        message = json.loads(line)
    except ValueError:
        return _error(None, -32700, "Parse error")
    if not isinstance(message, dict) or "id" not in message:
        return b""
    ident, method, params = message["id"], message.get("method"), message.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    if not isinstance(meta, dict) or META_VERSION not in meta or META_CAPS not in meta:
        return _error(ident, -32602, "params._meta must carry the 2026-07-28 envelope keys")
    if meta[META_VERSION] != VERSION:
        return _error(ident, -32022, "Unsupported protocol version",
                      {"supported": [VERSION], "requested": meta[META_VERSION]})
    assert isinstance(params, dict)
    raw_id = str(ident).encode() if type(ident) is int else _dumps(ident).encode()
    if method == "tools/call":
        return _call(raw_id, params)
    if method == "tools/list":
        return _HEAD + raw_id + _TOOLS_LIST
    if method == "server/discover":
        return _HEAD + raw_id + _DISCOVER
    return _error(ident, -32601, "Method not found", method)


def main() -> None:
    configure(_tool_count(sys.argv))
    read_fd, write_fd = sys.stdin.fileno(), sys.stdout.fileno()
    rest = b""
    while True:
        chunk = os.read(read_fd, 1 << 16)
        if not chunk:
            return
        *lines, rest = (rest + chunk).split(b"\n")
        out = b"".join(answer(line) for line in lines if line.strip())
        while out:
            out = out[os.write(write_fd, out):]


if __name__ == "__main__":
    main()
