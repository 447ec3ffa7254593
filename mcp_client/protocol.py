"""MCP on the wire, as pure functions: dicts in, dicts out.

This module owns the shape of every message the client sends and the reading
of every message it receives, for both protocol eras:

* the **modern** era (2026-07-28): stateless; every request carries
  ``params._meta`` with the protocol version, client identity and client
  capabilities (2026-07-28 basic/index "Request metadata");
* the **legacy** era (2025-11-25 and earlier): ``initialize`` handshake, bare
  params.

It must not do I/O, start threads or hold state: a protocol bug reproduces in a
three-line test.  Errors it detects are raised as
:class:`~mcp_client.exceptions.ProtocolError`.
"""

from __future__ import annotations

import json
import math

from .exceptions import MCPClientError, ProtocolError, URLElicitationRequired

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Iterable, Mapping, Sequence

__all__ = [
    "MODERN_VERSIONS", "LEGACY_VERSIONS", "LATEST_LEGACY_VERSION", "LOG_LEVELS",
    "META_PROTOCOL_VERSION", "META_CLIENT_INFO", "META_CLIENT_CAPABILITIES",
    "META_LOG_LEVEL", "META_SERVER_INFO", "CACHEABLE_METHODS", "INPUT_METHODS",
    "encode_line", "request_line", "json_encoder", "decode_message",
    "BOOKKEEPING_KEYS", "HEADER_MISMATCH", "MISSING_CAPABILITY", "UNSUPPORTED_VERSION",
    "URL_ELICITATION_REQUIRED",
    "METHOD_NOT_FOUND", "PARSE_ERROR", "INVALID_REQUEST", "INVALID_PARAMS", "INTERNAL_ERROR",
    "Kind", "classify", "is_modern_version", "envelope", "request", "notification",
    "response", "error_response", "error_from", "shape_result", "Shaped",
    "discover_versions", "pick_version", "legacy_version_ok", "MAX_DEPTH",
    "TASKS_EXTENSION", "TASK_METHODS", "TASK_STATE_METHODS",
]

# -- versions (2026-07-28 and 2025-11-25 versioning) --------------------------

#: Stateless versions this client speaks, newest first (2026-07-28 versioning).
MODERN_VERSIONS: tuple[str, ...] = ("2026-07-28",)
#: Handshake versions this client accepts back from ``initialize``.
LEGACY_VERSIONS: tuple[str, ...] = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
#: The version offered in ``initialize`` (2025-11-25 lifecycle: the latest we support).
LATEST_LEGACY_VERSION = "2025-11-25"


#: RFC 5424 severities, the values of ``logLevel`` (2026-07-28 utilities/logging).
LOG_LEVELS: tuple[str, ...] = (
    "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")

# -- the modern envelope (2026-07-28 basic/index) ----------------------------

META_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo"
META_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
META_LOG_LEVEL = "io.modelcontextprotocol/logLevel"
META_SERVER_INFO = "io.modelcontextprotocol/serverInfo"

#: Results a client may keep for ``ttlMs`` (2026-07-28 caching).
CACHEABLE_METHODS = frozenset({
    "server/discover", "tools/list", "prompts/list", "resources/list",
    "resources/templates/list", "resources/read"})
#: The only requests a server may answer with ``input_required`` (2026-07-28 multi round-trip).
INPUT_METHODS = frozenset({"tools/call", "resources/read", "prompts/get"})
#: The tasks extension's identifier (SEP-2663, ``capabilities.extensions``).
TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
#: Requests a server may answer with a task (``resultType: "task"``) once the
#: request declared :data:`TASKS_EXTENSION` (SEP-2663 "Supported Methods").
TASK_METHODS = frozenset({"tools/call"})
#: Requests whose result is a task: its ``ttlMs`` and ``inputRequests`` are the
#: task's own fields, not bookkeeping (SEP-2663 ``tasks/get``).
TASK_STATE_METHODS = frozenset({"tasks/get"})
#: Keys that are protocol bookkeeping and never reach a caller of ``call_tool`` and the rest.
BOOKKEEPING_KEYS = ("resultType", "_meta", "ttlMs", "cacheScope", "requestState",
                    "inputRequests")
#: The deepest nesting of objects and arrays a result may have.  Far beyond any real
#: result, and shallow enough that every recursive copy of one (``copy.deepcopy``
#: takes two frames a level) stays well inside Python's default recursion limit
#: (1000), which a JSON parser lets a server come close to.
MAX_DEPTH = 128

# -- error codes (JSON-RPC 2.0; 2026-07-28 basic/index) ----------------------

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
HEADER_MISMATCH = -32020
MISSING_CAPABILITY = -32021
UNSUPPORTED_VERSION = -32022
#: The server needs URL-mode elicitations first (2025-11-25 client/elicitation).
URL_ELICITATION_REQUIRED = -32042


def is_modern_version(version: object) -> bool:
    """True for a date-shaped version string that is not a handshake version."""
    return (isinstance(version, str) and len(version) == 10 and version[4] == version[7] == "-"
            and (version[:4] + version[5:7] + version[8:]).isdigit()
            and version.isascii() and version not in LEGACY_VERSIONS)


# -- classification (JSON-RPC 2.0: by shape, never by id) --------------------

class Kind:
    """What an inbound message is (plain constants: ``enum`` costs an import)."""

    RESPONSE = "response"
    ERROR = "error"
    NOTIFICATION = "notification"
    REQUEST = "request"
    INVALID = "invalid"


def _valid_id(value: object) -> bool:
    return isinstance(value, (str, int)) and not isinstance(value, bool)


def _integer(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def classify(message: object) -> str:
    """Say what an inbound JSON value is, by its shape.

    ``method`` with an ``id`` is a server request (legacy servers send them, with
    ids from their own counter that may equal ours); ``method`` alone is a
    notification; ``result`` or ``error`` is an answer to one of our requests.
    Anything else, including a batch array, is ``Kind.INVALID``.
    """
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        return Kind.INVALID
    method = message.get("method")
    if method is not None:
        if not isinstance(method, str):
            return Kind.INVALID
        if "id" in message:
            return Kind.REQUEST if _valid_id(message["id"]) else Kind.INVALID
        return Kind.NOTIFICATION
    if "result" in message and "error" not in message:
        return Kind.RESPONSE if _valid_id(message.get("id")) else Kind.INVALID
    if "error" in message and "result" not in message:
        error = message["error"]
        if not isinstance(error, dict) or not _integer(error.get("code")):
            return Kind.INVALID
        ident = message.get("id")
        return Kind.ERROR if ident is None or _valid_id(ident) else Kind.INVALID
    return Kind.INVALID


# -- building -----------------------------------------------------------------

def envelope(version: str, *, client_info: Mapping[str, Any],
             capabilities: Mapping[str, Any], log_level: str | None = None,
             progress_token: str | int | None = None) -> dict[str, Any]:
    """The ``params._meta`` of a modern request (2026-07-28 basic/index)."""
    meta: dict[str, Any] = {
        META_PROTOCOL_VERSION: version,
        META_CLIENT_INFO: dict(client_info),
        META_CLIENT_CAPABILITIES: dict(capabilities),
    }
    if log_level is not None:
        meta[META_LOG_LEVEL] = log_level
    if progress_token is not None:
        meta["progressToken"] = progress_token
    return meta


def request(ident: int | str, method: str, params: Mapping[str, Any] | None = None,
            *, meta: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """A JSON-RPC request.

    ``meta`` becomes ``params._meta`` (merged over any ``_meta`` in ``params``);
    a modern request passes :func:`envelope` here, a legacy one at most a
    ``progressToken``.  ``params`` is left out entirely when both are empty,
    which is how legacy ``ping`` and ``tools/list`` are sent.
    """
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": ident, "method": method}
    body = dict(params) if params else {}
    if meta:
        merged = dict(body.get("_meta") or {})
        merged.update(meta)
        body["_meta"] = merged
    if body:
        message["params"] = body
    return message


def _not_json(value: object) -> Any:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def json_encoder(*, sort_keys: bool = False,
                 ensure_ascii: bool = True) -> Callable[[object], str]:
    """A compact, strict encoder (``separators=(",", ":")``, ``allow_nan=False``), made once.

    ``json.dumps`` with options makes an encoder per call, and even a kept
    ``JSONEncoder.encode`` makes its C encoder anew each time; this one is
    made once.  A reference cycle is a RecursionError here, not a ValueError.
    """
    chunks = _c_encoder(sort_keys, ensure_ascii)
    if chunks is None:   # no C accelerator: the pure-Python encoder, kept
        return json.JSONEncoder(separators=(",", ":"), allow_nan=False, sort_keys=sort_keys,
                                ensure_ascii=ensure_ascii).encode
    join = "".join
    return lambda value: join(chunks(value, 0))


def _c_encoder(sort_keys: bool, ensure_ascii: bool) -> Callable[[object, int], Any] | None:
    """The C encoder behind :func:`json_encoder` (its chunks joined are the text), or None."""
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:
        return None
    strings = json.encoder.encode_basestring_ascii if ensure_ascii else \
        json.encoder.encode_basestring
    return make(None, _not_json, strings, None, ":", ",", sort_keys, False, False)  # type: ignore


_encode = json_encoder()
#: :data:`_encode` without its frame, for the params of every request line (None: no C).
_chunks = _c_encoder(False, True)


def encode_line(message: Mapping[str, Any]) -> bytes:
    """One message as one line of compact JSON, ``\\n``-terminated (stdio framing).

    Raises:
        MCPClientError: the message is not JSON (or nests too deeply to encode).
    """
    try:
        return (_encode(message) + "\n").encode()
    except (TypeError, ValueError, RecursionError) as exc:
        raise MCPClientError(f"cannot encode the message as JSON: {exc}") from exc


def request_line(ident: int, method: str, params: Mapping[str, Any] | None,
                 meta: Mapping[str, Any] | None = None, meta_text: str | None = None) -> bytes:
    """:func:`request` as :func:`encode_line` writes it, with one encode of ``params``.

    ``meta_text``, when given, is ``meta`` already encoded (a caller that sends
    the same envelope with every request keeps it): the line is spliced from
    it rather than the envelope being copied into each message and encoded again.

    Raises:
        MCPClientError: as :func:`encode_line`.
    """
    if not meta or not params or type(params) is not dict or "_meta" in params or \
            type(ident) is not int:
        return encode_line(request(ident, method, params, meta=meta))
    try:
        body = _encode(params) if _chunks is None else "".join(_chunks(params, 0))
        text = meta_text if meta_text is not None else _encode(meta)
    except (TypeError, ValueError, RecursionError) as exc:
        raise MCPClientError(f"cannot encode the message as JSON: {exc}") from exc
    name = _METHOD_TEXT.get(method)
    if name is None:
        name = _encode(method)
        if len(_METHOD_TEXT) < 64:   # the methods of the protocol, not every name a caller tries
            _METHOD_TEXT[method] = name
    return (f'{{"jsonrpc":"2.0","id":{ident},"method":{name},"params":'
            f'{body[:-1]},"_meta":{text}}}}}\n').encode()


_METHOD_TEXT: dict[str, str] = {}

#: json.loads' own decoder, kept: ``NaN`` and ``Infinity`` read as floats, a
#: repeated key's last value wins, as every reader of ours always did.
_decode = json.JSONDecoder().decode


def decode_message(data: str | bytes) -> dict[str, Any]:
    """One JSON-RPC message off the wire: a JSON object, as text or UTF-8 bytes.

    The one decoder of every transport (a stdio line, an HTTP body, an SSE
    event's data).  A leading byte order mark is skipped (some servers'
    runtimes write one); bytes must be UTF-8 (RFC 8259 §8.1), so a caller
    that tolerates bad bytes decodes them itself first.  Whether the object
    is a request, a notification or an answer is :func:`classify`'s question.

    Raises:
        ProtocolError: ``code`` ``PARSE_ERROR`` (-32700) and ``message`` ``"not
            JSON"`` (not UTF-8, not JSON, nested too deeply to parse), or
            ``INVALID_REQUEST`` (-32600) and ``"not a JSON-RPC message"`` (JSON,
            but not an object).
    """
    try:
        text = data if type(data) is str else data.decode("utf-8")  # type: ignore[union-attr]
        message = _decode(text[1:] if text[:1] == "\ufeff" else text)
    except (ValueError, RecursionError) as exc:   # UnicodeDecodeError is a ValueError
        raise ProtocolError(PARSE_ERROR, "not JSON") from exc
    if type(message) is not dict:
        raise ProtocolError(INVALID_REQUEST, "not a JSON-RPC message")
    return message


#: ``json.loads`` without its wrappers: (value, end) of the JSON text at an index.
_scan: Callable[[str, int], tuple[Any, int]] = getattr(json.JSONDecoder(), "scan_once")


def quick_message(text: str) -> dict[str, Any] | None:
    """:func:`decode_message`'s fast path, for a transport's reader loop: the message
    when ``text`` is one JSON object and nothing else (no byte order mark, no blank
    around it), else None -- and the caller asks :func:`decode_message`, which reads
    what is left over (a BOM, blanks) and says what is wrong.  It never raises, and
    what it returns is what :func:`decode_message` would."""
    try:
        message, end = _scan(text, 0)
    except (ValueError, StopIteration, RecursionError):
        return None
    return message if end == len(text) and type(message) is dict else None


def notification(method: str, params: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """A JSON-RPC notification (no id, nobody answers it)."""
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        message["params"] = dict(params)
    return message


def response(ident: int | str, result: Mapping[str, Any]) -> dict[str, Any]:
    """Our answer to a server request (legacy era)."""
    return {"jsonrpc": "2.0", "id": ident, "result": dict(result)}


def error_response(ident: int | str | None, code: int, message: str,
                   data: Any = None) -> dict[str, Any]:
    """Our error answer to a server request (legacy era)."""
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return {"jsonrpc": "2.0", "id": ident, "error": error}


# -- reading ------------------------------------------------------------------

def error_from(message: Mapping[str, Any], method: str | None = None) -> ProtocolError:
    """The :class:`ProtocolError` an error response (to ``method``, if known) stands for."""
    error = message.get("error")
    if not isinstance(error, dict):
        return ProtocolError(None, "malformed error response", message, method=method)
    code = error.get("code")
    text = error.get("message")
    kind = URLElicitationRequired if code == URL_ELICITATION_REQUIRED else ProtocolError
    return kind(code if _integer(code) else None,
                text if isinstance(text, str) else "error without a message",
                error.get("data"), method=method)


class Shaped:
    """A result read by :func:`shape_result`.

    Attributes:
        result_type: ``"complete"``, ``"input_required"`` or ``"task"``.
        body: the caller's view (bookkeeping stripped) for a complete result;
            for a task, the task itself with ``resultType: "task"`` kept.
        raw: the result as it came.
    """

    __slots__ = ("result_type", "body", "raw")

    def __init__(self, result_type: str, body: dict[str, Any], raw: dict[str, Any]) -> None:
        self.result_type = result_type
        self.body = body
        self.raw = raw

    @property
    def input_requests(self) -> dict[str, Any]:
        requests = self.raw.get("inputRequests")
        return requests if isinstance(requests, dict) else {}

    @property
    def request_state(self) -> str | None:
        state = self.raw.get("requestState")
        return state if isinstance(state, str) else None

    @property
    def server_info(self) -> dict[str, Any] | None:
        meta = self.raw.get("_meta")
        info = meta.get(META_SERVER_INFO) if isinstance(meta, dict) else None
        return info if isinstance(info, dict) else None

    @property
    def ttl_ms(self) -> int:
        """``ttlMs`` as a freshness budget: missing, not a finite number, or negative is 0."""
        ttl = self.raw.get("ttlMs")
        if isinstance(ttl, bool) or not isinstance(ttl, (int, float)):
            return 0
        if isinstance(ttl, float) and not math.isfinite(ttl):
            return 0   # NaN, or Infinity (json.loads reads both, and 1e999)
        return max(0, int(ttl))


_LEAVES = frozenset({str, int, float, bool, type(None)})
_BOOKKEEPING = frozenset(BOOKKEEPING_KEYS)
#: A task's own ``ttlMs`` and ``inputRequests`` are kept (see TASK_STATE_METHODS).
_TASK_STATE_BOOKKEEPING = frozenset({"resultType", "_meta"})


def _deeper_than(value: object, limit: int) -> bool:
    """Whether ``value`` nests objects and arrays more than ``limit`` levels (no recursion)."""
    stack: list[tuple[Iterable[object], int]] = [((value,), 0)]
    while stack:
        items, depth = stack.pop()
        for item in items:
            if type(item) in _LEAVES:   # most of a result: answered without isinstance
                continue
            if isinstance(item, dict):
                children: Iterable[object] = item.values()
            elif isinstance(item, list):
                children = item
            else:
                continue
            if depth >= limit:
                return True
            stack.append((children, depth + 1))
    return False


def _flat_enough(value: dict[str, Any]) -> bool:
    """Whether ``value`` nests at most three levels as most results do: an object of
    leaves, flat objects and arrays of leaves or flat objects (False: look closer).

    True means :func:`_deeper_than` is False for any limit from 3 (two levels of
    containers below ``value``), without its general walk."""
    leaves = _LEAVES
    for member in value.values():
        kind = type(member)
        if kind in leaves:
            continue
        if kind is list:
            for item in member:
                if type(item) in leaves:
                    continue
                if type(item) is not dict:
                    return False
                for leaf in item.values():
                    if type(leaf) not in leaves:
                        return False
        elif kind is dict:
            for leaf in member.values():
                if type(leaf) not in leaves:
                    return False
        else:
            return False
    return True


#: The list each result must carry (the schema's CallToolResult.content,
#: ReadResourceResult.contents, GetPromptResult.messages); a server that leaves
#: it out (or sends null) is read as having sent an empty one.
_REQUIRED_LIST = {"tools/call": "content", "resources/read": "contents",
                  "prompts/get": "messages"}


def shape_result(method: str, result: object, *, tasks: bool = False) -> Shaped:
    """Read a result: its ``resultType`` and the caller's view of it.

    A missing ``resultType`` is ``"complete"`` (legacy servers send none), and
    a missing list a complete result must carry (:data:`_REQUIRED_LIST`) is
    an empty one;
    ``input_required`` is accepted only for :data:`INPUT_METHODS` and must carry
    ``inputRequests`` or ``requestState``; ``task`` only for
    :data:`TASK_METHODS`, and only when the request declared the tasks
    extension (``tasks``; SEP-2663: a task the client did not ask to handle is
    an invalid response); any other value is invalid (2026-07-28 basic/index:
    an unrecognised resultType MUST be treated as invalid).

    Raises:
        ProtocolError: the result is not an object, its resultType is invalid,
            or it nests deeper than :data:`MAX_DEPTH`.
    """
    if not isinstance(result, dict):
        raise ProtocolError(None, f"{method}: the result is not an object", result)
    if not _flat_enough(result) and _deeper_than(result, MAX_DEPTH):
        raise ProtocolError(None, f"{method}: the result nests objects and arrays more than "
                            f"{MAX_DEPTH} levels deep")
    result_type = result.get("resultType", "complete")
    if result_type == "complete":
        body = dict(result)
        for key in (_TASK_STATE_BOOKKEEPING if method in TASK_STATE_METHODS
                    else _BOOKKEEPING).intersection(result):
            del body[key]
        listed = _REQUIRED_LIST.get(method)
        if listed is not None and body.get(listed) is None:
            body[listed] = []   # the caller's type promises the list: none is an empty one
        return Shaped("complete", body, result)
    if result_type == "input_required" and method in INPUT_METHODS:
        if not isinstance(result.get("inputRequests", {}), dict) or (
                "inputRequests" not in result and "requestState" not in result):
            raise ProtocolError(None, f"{method}: malformed input_required result", result)
        return Shaped("input_required", {}, result)
    if result_type == "task" and tasks and method in TASK_METHODS:
        return Shaped("task", {k: v for k, v in result.items() if k != "_meta"}, result)
    raise ProtocolError(None, f"{method}: invalid resultType {result_type!r}", result)


def discover_versions(result: object) -> list[str] | None:
    """The ``supportedVersions`` of a DiscoverResult, or None if it is not one."""
    if not isinstance(result, dict):
        return None
    versions = result.get("supportedVersions")
    if not isinstance(versions, list) or not all(isinstance(v, str) for v in versions):
        return None
    return list(versions)


def pick_version(ours: Sequence[str], theirs: Sequence[str]) -> str | None:
    """The first version *we* prefer that the server also named (the era probe)."""
    for version in ours:
        if version in theirs:
            return version
    return None


def legacy_version_ok(version: object) -> bool:
    """Whether ``initialize`` came back with a handshake version we implement."""
    return isinstance(version, str) and version in LEGACY_VERSIONS
