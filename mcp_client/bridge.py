"""The LLM bridge: a server's catalogue for a model, and a model's tool calls run.

This module owns what :meth:`Client.tools_for_llm`,
:meth:`Client.execute_tool_calls` and :meth:`Client.tool_annotations` do
(seed "The LLM bridge and the Registry"; API.md "LLM bridge"), and the pieces
every provider layer shares: reading a tool call in any of the shapes a model
API produces, parsing its arguments, flattening a result's content blocks to
the text a model reads, and shaping the ``{"role": "tool", ...}`` entries.

It must not raise out of :func:`execute_tool_calls` (every failure becomes an
``is_error`` entry whose content says what went wrong), must not keep state
between batches (the names it publishes are recomputed from the catalogue,
deterministically), and must not touch the wire: it calls the client's
``list_tools`` and ``_call_tool_for_bridge`` (``call_tool`` that reports
progress under the model's ``tool_call_id``; plain ``call_tool`` on a client
without it) and reads its ``tool_concurrency``/``parallel_tools``/
``serial_tools`` options, nothing more.  The scheduling rule lives in :mod:`mcp_client.batch`,
the naming rule in :mod:`mcp_client.names`.

Decisions (API.md and the seed are silent):

* A declaration's ``description`` is the tool's ``description``, else its
  ``title`` or ``annotations.title`` (PROTOCOL §9.7 display-name precedence),
  else ``""``; ``parameters`` is a copy of ``inputSchema`` (an empty object
  schema when the server sent none).
* A tool name a model API would refuse is published under the name
  :class:`~mcp_client.names.NameMap` gives it, and only that name reaches the
  tool: the server's own spelling (``files.delete`` for ``files_delete``) is
  an unknown tool, so a rule or a lease about the published name cannot be
  walked around by the other one.
* A call with no ``id`` is still run; its entry's ``tool_call_id`` is None.
  A call whose ``type`` is present and not ``"function"`` is malformed.
  Missing ``arguments`` means no arguments, like ``""``; the JSON text
  ``null`` is not an object and is refused.
* A name the catalogue does not have triggers one refetch (``refresh=True``)
  before the call is answered "unknown tool" without reaching the server.
  Without a catalogue at all, a name goes to the server as given only if a
  model API accepts it (such a name is always published as itself).
* Binary payloads are named as ``[image: image/png, 67 bytes]`` (decoded
  size), an embedded text resource is its text under a ``[resource: uri]``
  line, a resource link is ``[resource link: uri (name, mimeType)]``.  A
  result with no content but ``structuredContent`` reads as that JSON.
* A dead server is reported to the model by exit code only: the stderr tail
  is operator diagnosis (``ServerGone.stderr_tail``), not transcript text.
* Identical calls merged in a widened batch are one request, so its progress
  is reported under the ``tool_call_id`` of the first of them.
"""

from __future__ import annotations

import copy
import functools
import json
import logging
from typing import TYPE_CHECKING, Any, Hashable, Iterable, Mapping, NamedTuple, Sequence, Union

from . import batch, protocol
from .exceptions import (Cancelled, InputLoopExceeded, MCPClientError, ProtocolError,
                         ServerGone, Timeout, TransportClosed, TransportError)
from .names import NameMap, is_llm_name

if TYPE_CHECKING:
    from concurrent.futures import Future

    from .client import Client

__all__ = ["tools_for_llm", "execute_tool_calls", "tool_annotations", "CallParts",
           "read_call", "parse_arguments", "declaration", "client_names", "tool_message",
           "error_message", "result_message", "flatten_content", "describe_failure",
           "arguments_key", "as_call_list"]

log = logging.getLogger(__name__)

_MISSING: Any = object()
#: What a call to the server came back as: the result, or the exception it raised.
Outcome = Union[Mapping[str, Any], BaseException]


# -- declarations ---------------------------------------------------------------

def _catalogue_tools(tools: Any) -> list[dict[str, Any]]:
    if not isinstance(tools, list):
        return []
    return [tool for tool in tools if isinstance(tool, dict)
            and isinstance(tool.get("name"), str) and tool["name"]]


def client_names(tools: Iterable[Mapping[str, Any]]) -> NameMap[str]:
    """The published names of a server's tools (each tool's own name is its key)."""
    return NameMap((tool["name"], tool["name"], tool["name"]) for tool in tools)


def _description(tool: Mapping[str, Any]) -> str:
    annotations = tool.get("annotations")
    title = annotations.get("title") if isinstance(annotations, dict) else None
    for text in (tool.get("description"), tool.get("title"), title):
        if isinstance(text, str) and text:
            return text
    return ""


def declaration(name: str, tool: Mapping[str, Any]) -> dict[str, Any]:
    """An OpenAI-style function declaration for one MCP tool, published as ``name``."""
    schema = tool.get("inputSchema")
    parameters = copy.deepcopy(schema) if isinstance(schema, dict) \
        else {"type": "object", "properties": {}}
    return {"type": "function",
            "function": {"name": name, "description": _description(tool),
                         "parameters": parameters}}


def tools_for_llm(client: Client) -> list[dict[str, Any]]:
    """The client's tools as OpenAI-style function declarations.

    Args:
        client: the connection.

    Returns:
        ``[{"type": "function", "function": {"name", "description",
        "parameters"}}, ...]`` in catalogue order, every name matching
        ``^[a-zA-Z0-9_-]{1,64}$``.

    Raises:
        MCPClientError: the catalogue could not be fetched.
    """
    tools = _catalogue_tools(client.list_tools())
    names = client_names(tools)
    seen: set[str] = set()
    declarations = []
    for tool in tools:
        published = names.name_for(tool["name"])
        if published is None or published in seen:
            continue
        seen.add(published)
        declarations.append(declaration(published, tool))
    return declarations


def tool_annotations(client: Client, name: str) -> dict[str, Any] | None:
    """What the server said about one tool (a copy of its ``annotations``).

    Args:
        client: the connection.
        name: the name :func:`tools_for_llm` published for the tool (the
            server's own name when it needed no rewriting).

    Returns:
        the annotations dict, or None when the tool has none or does not exist.

    Raises:
        MCPClientError: the catalogue could not be fetched.
    """
    catalogue = _Catalogue(_catalogue_tools(client.list_tools()))
    original = catalogue.resolve(name)
    if original is None:
        return None
    annotations = catalogue.tools[original].get("annotations")
    return copy.deepcopy(annotations) if isinstance(annotations, dict) else None


# -- reading calls -------------------------------------------------------------------

class CallParts(NamedTuple):
    """One tool call, read but not yet judged.

    Attributes:
        ident: the call's ``id`` (None when it had none, or one that is not a
            string or an integer).
        name: the function name, or None when the call is malformed.
        arguments: the arguments exactly as given (dict, JSON string, ...).
        problem: why the call is malformed, or None.
    """

    ident: Any
    name: str | None
    arguments: Any
    problem: str | None


_NOT_CALLS = (str, bytes, int, float, list, tuple)


def _member(obj: Any, key: str) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(key, _MISSING)
    if obj is None or isinstance(obj, _NOT_CALLS):
        return _MISSING
    return getattr(obj, key, _MISSING)


def read_call(call: Any) -> CallParts:
    """Read a tool call: a dict shaped like OpenAI's, or an object with those attributes.

    Accepts ``{"id", "type"?: "function", "function": {"name", "arguments"}}``
    and any object with ``.id`` and ``.function.name``/``.function.arguments``
    (the ``openai`` package's ``ChatCompletionMessageToolCall``).  Never
    raises: a call that cannot be read -- an object whose attributes raise --
    is malformed.
    """
    try:
        return _read_call(call)
    except Exception as exc:   # a model's call is data; its oddities are the call's problem
        return CallParts(None, None, None, f"the call cannot be read ({type(exc).__name__}: "
                         f"{exc})")


def _read_call(call: Any) -> CallParts:
    if call is None or isinstance(call, _NOT_CALLS):
        return CallParts(None, None, None, "a tool call must be an object with an id and a "
                         f"function, not {type(call).__name__}")
    ident = _member(call, "id")
    if isinstance(ident, bool) or not isinstance(ident, (str, int)):
        ident = None
    kind = _member(call, "type")
    if kind not in (_MISSING, None, "function"):
        return CallParts(ident, None, None, f"a call of type {kind!r} is not a function call")
    function = _member(call, "function")
    if function is _MISSING or function is None:
        return CallParts(ident, None, None, "the call has no function")
    name = _member(function, "name")
    if not isinstance(name, str) or not name:
        return CallParts(ident, None, None, "the call names no function")
    arguments = _member(function, "arguments")
    return CallParts(ident, name, None if arguments is _MISSING else arguments, None)


def parse_arguments(arguments: Any) -> dict[str, Any]:
    """A call's arguments as a dict.

    A dict is taken as is; a string must be a JSON object, except ``""`` (and
    whitespace), which models send for a tool that takes none; None means none.

    Raises:
        ValueError: the arguments are not a JSON object (the message says why).
    """
    if arguments is None:
        return {}
    if isinstance(arguments, Mapping):
        try:
            return dict(arguments)
        except Exception as exc:   # a Mapping of our caller's whose items raise
            raise ValueError(f"arguments cannot be read ({type(exc).__name__}: {exc})") from None
    if not isinstance(arguments, str):
        raise ValueError("arguments must be a JSON object or a string holding one, "
                         f"not {type(arguments).__name__}")
    if not arguments.strip():
        return {}
    try:
        value = json.loads(arguments)
    except ValueError as exc:
        detail = f"{exc.msg} at position {exc.pos}" \
            if isinstance(exc, json.JSONDecodeError) else str(exc)
        raise ValueError(f"arguments are not valid JSON ({detail})") from None
    except RecursionError:
        raise ValueError("arguments are nested too deeply to be read") from None
    if not isinstance(value, dict):
        raise ValueError(f"arguments are not a JSON object (got {_json_kind(value)})")
    return value


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "an array" if isinstance(value, list) else type(value).__name__


def arguments_key(name: str, arguments: Mapping[str, Any]) -> Hashable | None:
    """What makes two calls identical: the tool and its canonical JSON arguments."""
    try:
        text = json.dumps(arguments, sort_keys=True, separators=(",", ":"),
                          ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError):
        return None
    return (name, text)


# -- shaping entries -------------------------------------------------------------------

def tool_message(ident: Any, content: str, *, is_error: bool,
                 structured_content: Any = _MISSING) -> dict[str, Any]:
    """One ``{"role": "tool", "tool_call_id", "content", "is_error"}`` entry.

    ``structured_content`` (copied) is added only when given.
    """
    entry: dict[str, Any] = {"role": "tool", "tool_call_id": ident, "content": content,
                             "is_error": is_error}
    if structured_content is not _MISSING:
        entry["structured_content"] = copy.deepcopy(structured_content)
    return entry


def error_message(ident: Any, text: str) -> dict[str, Any]:
    """An ``is_error`` entry saying ``text``."""
    return tool_message(ident, text, is_error=True)


def result_message(ident: Any, result: Mapping[str, Any]) -> dict[str, Any]:
    """The entry for a ``tools/call`` result (``isError`` kept, content flattened)."""
    content = flatten_content(result.get("content"))
    is_error = result.get("isError") is True
    structured = result.get("structuredContent", _MISSING)
    if not content and structured is not _MISSING:
        try:
            content = json.dumps(structured, ensure_ascii=False)
        except (TypeError, ValueError):
            content = ""
    if not content and is_error:
        content = "the tool reported an error and said nothing more"
    return tool_message(ident, content, is_error=is_error, structured_content=structured)


def flatten_content(blocks: Any) -> str:
    """Content blocks as the text a model reads: one line (or more) per block.

    Text is kept; images, audio and blob resources are named with their MIME
    type and size, never inlined (a base64 payload costs a fortune in tokens
    and tells a model nothing it can act on).
    """
    if not isinstance(blocks, list):
        return ""
    return "\n".join(_block_text(block) for block in blocks)


def _block_text(block: Any) -> str:
    if not isinstance(block, dict):
        return "[unreadable content block]"
    kind = block.get("type")
    if kind == "text":
        text = block.get("text")
        return text if isinstance(text, str) else ""
    if kind in ("image", "audio"):
        return f"[{kind}: {_mime(block)}, {base64_size(block.get('data'))}]"
    if kind == "resource_link":
        return _link_text(block)
    if kind == "resource":
        return _resource_text(block.get("resource"))
    return f"[{kind if isinstance(kind, str) else 'unknown'} content omitted]"


def _mime(block: Mapping[str, Any]) -> str:
    mime = block.get("mimeType")
    return mime if isinstance(mime, str) and mime else "unknown type"


def base64_size(data: Any) -> str:
    """The decoded size of base64 ``data``, as text ("123 bytes"; "unknown size")."""
    if not isinstance(data, str):
        return "unknown size"
    text = "".join(data.split())
    padding = len(text) - len(text.rstrip("="))
    return f"{max(0, len(text) * 3 // 4 - padding)} bytes"


def _link_text(block: Mapping[str, Any]) -> str:
    details = [value for value in (block.get("title") or block.get("name"),
                                   block.get("mimeType")) if isinstance(value, str) and value]
    size = block.get("size")
    if isinstance(size, int) and not isinstance(size, bool):
        details.append(f"{size} bytes")
    text = f"[resource link: {block.get('uri')}"
    text += f" ({', '.join(details)})]" if details else "]"
    description = block.get("description")
    return f"{text} {description}" if isinstance(description, str) and description else text


def _resource_text(resource: Any) -> str:
    if not isinstance(resource, dict):
        return "[unreadable resource]"
    uri = resource.get("uri")
    text = resource.get("text")
    if isinstance(text, str):
        return f"[resource: {uri}]\n{text}"
    return f"[resource: {uri}, {_mime(resource)}, {base64_size(resource.get('blob'))}]"


def describe_failure(name: str, exc: BaseException) -> str:
    """What a model should read when the call to ``name`` failed with ``exc``."""
    if isinstance(exc, Timeout):
        return f"the call to {name} timed out after {exc.seconds:g}s"
    if isinstance(exc, Cancelled):
        return f"the call to {name} was cancelled"
    if isinstance(exc, InputLoopExceeded):
        return (f"{name} kept asking for input past {exc.rounds} rounds; "
                "the call was abandoned")
    if isinstance(exc, ServerGone):
        code = "" if exc.exit_code is None else f" (exit code {exc.exit_code})"
        return f"the server is gone{code}; {name} could not run"
    if isinstance(exc, TransportClosed):
        return f"the connection to the server is closed; {name} could not run"
    if isinstance(exc, ProtocolError):
        return _protocol_failure(name, exc)
    if isinstance(exc, TransportError):
        return f"the call to {name} failed on the wire: {exc}"
    if isinstance(exc, MCPClientError):
        return f"the call to {name} failed: {exc}"
    return f"the call to {name} failed inside the client: {type(exc).__name__}: {exc}"


def _protocol_failure(name: str, exc: ProtocolError) -> str:
    data = exc.data
    if exc.code == protocol.MISSING_CAPABILITY and isinstance(data, dict) \
            and isinstance(data.get("requiredCapabilities"), dict):
        needs = ", ".join(sorted(data["requiredCapabilities"])) or "a capability"
        return f"the server needs {needs}, which this client does not offer; {name} could not run"
    code = "" if exc.code is None else f" (code {exc.code})"
    return f"the server refused the call to {name}: {exc.message}{code}"


# -- running a batch -------------------------------------------------------------------

class _Catalogue:
    """A fetched tools/list: tools by name, and the names published for them."""

    def __init__(self, tools: Sequence[dict[str, Any]]) -> None:
        self.tools: dict[str, dict[str, Any]] = {}
        for tool in tools:
            self.tools.setdefault(tool["name"], tool)
        self.names = client_names(tools)

    def resolve(self, name: str) -> str | None:
        """The server's name for a published name, or None (any other spelling too)."""
        return self.names.key_for(name)

    def annotations(self) -> dict[str, Mapping[str, Any] | None]:
        return {name: tool.get("annotations") for name, tool in self.tools.items()}


def _fetch_catalogue(client: Client, *, refresh: bool = False) -> _Catalogue | None:
    try:
        tools = client.list_tools(refresh=refresh)
    except Exception as exc:  # no catalogue: names pass through and the batch is serial
        log.debug("no catalogue for the batch: %r", exc)
        return None
    return _Catalogue(_catalogue_tools(tools))


def _call(client: Client, name: str, arguments: dict[str, Any], ident: Any) -> Outcome:
    """One ``tools/call``; an exception is returned, never raised."""
    tool_call_id = None if ident is None else str(ident)
    try:
        bridged = getattr(client, "_call_tool_for_bridge", None)
        if callable(bridged):
            result: Any = bridged(name, arguments, tool_call_id=tool_call_id)
        else:
            result = client.call_tool(name, arguments)
    except Exception as exc:
        if not isinstance(exc, MCPClientError):
            log.exception("tools/call %s failed inside the client", name)
        return exc
    if not isinstance(result, Mapping):
        return MCPClientError(f"the answer to {name} is not a result object")
    return result


def _start(client: Client, name: str, arguments: dict[str, Any], ident: Any
           ) -> Future[Outcome]:
    """:func:`_call`, pipelined: the Future's result is the outcome (the client pipelines)."""
    try:
        params = client._tool_params(name, arguments)
    except MCPClientError as exc:   # an outcome: the Future's result, as for a failed call
        from concurrent.futures import Future

        refused: Future[Outcome] = Future()
        refused.set_result(exc)
        return refused
    return client._start_call(params, tool_call_id=None if ident is None else str(ident),
                              outcome=True)


def as_call_list(calls: Any) -> list[Any]:
    """``calls`` as a list; a single call, a string or a non-iterable is refused."""
    if isinstance(calls, (Mapping, str, bytes)) or not isinstance(calls, Iterable):
        raise MCPClientError("execute_tool_calls takes a list of tool calls, not "
                             f"{type(calls).__name__}")
    return list(calls)


def execute_tool_calls(client: Client, calls: Iterable[Any]) -> list[dict[str, Any]]:
    """Run the tool calls a model asked for; one entry per call, in call order.

    Never raises for a call: a malformed call, arguments that are not a JSON
    object, an unknown tool, ``isError``, a JSON-RPC error, a timeout, an
    exhausted input loop or a dead connection each become an ``is_error``
    entry saying what went wrong.  The batch has run when this returns
    (scheduled by :mod:`mcp_client.batch`).

    Args:
        client: the connection.
        calls: dicts shaped like OpenAI's tool calls, or objects with the same
            attributes.

    Returns:
        ``[{"role": "tool", "tool_call_id", "content", "is_error",
        "structured_content"?}, ...]``.

    Raises:
        MCPClientError: ``calls`` is not a list (a programming error, not a
            model's).
    """
    parts = [read_call(call) for call in as_call_list(calls)]
    catalogue = _catalogue_for(client, parts)
    entries, planned = _plan(parts, catalogue)
    outcomes = _run(client, planned, parts, catalogue)
    for (index, _, _), outcome in zip(planned, outcomes):
        part = parts[index]
        assert part.name is not None
        entries[index] = error_message(part.ident, describe_failure(part.name, outcome)) \
            if isinstance(outcome, BaseException) else result_message(part.ident, outcome)
    return [entry for entry in entries if entry is not None]


def _catalogue_for(client: Client, parts: Sequence[CallParts]) -> _Catalogue | None:
    """The catalogue for a batch, fetched again once if it lacks a name the model used."""
    if all(part.name is None for part in parts):
        return None
    catalogue = _fetch_catalogue(client)
    if catalogue is not None and any(part.name is not None and catalogue.resolve(part.name)
                                     is None for part in parts):
        catalogue = _fetch_catalogue(client, refresh=True) or catalogue
    return catalogue


def _plan(parts: Sequence[CallParts], catalogue: _Catalogue | None
          ) -> tuple[list[dict[str, Any] | None], list[tuple[int, str, dict[str, Any]]]]:
    """Answer the calls that cannot run; list the rest as (slot, server's name, arguments)."""
    entries: list[dict[str, Any] | None] = [None] * len(parts)
    planned: list[tuple[int, str, dict[str, Any]]] = []
    for index, part in enumerate(parts):
        if part.problem is not None or part.name is None:
            entries[index] = error_message(part.ident, f"malformed tool call: {part.problem}")
            continue
        if catalogue is None:
            target = part.name if is_llm_name(part.name) else None
        else:
            target = catalogue.resolve(part.name)
        if target is None:
            entries[index] = error_message(part.ident, f"unknown tool: {part.name}")
            continue
        try:
            planned.append((index, target, parse_arguments(part.arguments)))
        except ValueError as exc:
            entries[index] = error_message(part.ident, f"{part.name}: {exc}")
    return entries, planned


def _run(client: Client, planned: Sequence[tuple[int, str, dict[str, Any]]],
         parts: Sequence[CallParts], catalogue: _Catalogue | None) -> list[Outcome]:
    options: Mapping[str, Any] = getattr(client, "_opts", None) or {}
    concurrency = options.get("tool_concurrency", 4)
    widen = batch.may_overlap([target for _, target, _ in planned],
                              None if catalogue is None else catalogue.annotations(),
                              concurrency=concurrency,
                              parallel_tools=options.get("parallel_tools", ()),
                              serial_tools=options.get("serial_tools", ()))
    pipelining = getattr(client, "_pipelining", None)
    pipelined = widen and callable(pipelining) and pipelining()
    tasks = [batch.Task(functools.partial(_call, client, target, arguments, parts[index].ident),
                        arguments_key(target, arguments) if widen else None,
                        functools.partial(_start, client, target, arguments, parts[index].ident)
                        if pipelined else None)
             for index, target, arguments in planned]
    pool = getattr(client, "_batch_executor", None)
    return batch.run_batch(tasks, widen=widen, concurrency=concurrency,
                           executor=pool() if callable(pool) and widen and not pipelined
                           else None)
