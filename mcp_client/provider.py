"""The role a provider implements, the contract it signs up to, and the data that crosses it.

A *provider* is what a model's tool loop talks to: it publishes tool declarations and runs the
tool calls a model makes.  :class:`~mcp_client.Client`, :class:`~mcp_client.local.LocalServer`,
:class:`~mcp_client.registry.Registry` and every layer (:class:`~mcp_client.policy.Policy`,
:class:`~mcp_client.leases.Leases`, :class:`~mcp_client.reasons.Reasons`,
:class:`~mcp_client.unknown_keys.UnknownKeys`) are one, so they stack.  The contract
(:class:`Provider`):

* ``tools_for_llm()`` returns a list of OpenAI-style function declarations, ``{"type":
  "function", "function": {"name", "description", "parameters"}}``, each name one a model API
  accepts (``^[a-zA-Z0-9_-]{1,64}$``) and none twice (a layer passes its inner provider's names
  on as they came).  It may raise :class:`~mcp_client.exceptions.MCPClientError` when the tools
  cannot be listed (a dead server).
* ``execute_tool_calls(calls)`` takes a *list* of tool calls (dicts shaped like OpenAI's, or
  objects with the same attributes) and returns **one entry per call, in call order**:
  ``{"role": "tool", "tool_call_id", "content", "is_error", "structured_content"?}``.  It
  **never raises for a call**: a malformed call, an unknown tool, a refusal, a failure on the
  wire each become that call's ``is_error`` entry.  ``calls`` that is not a list (None, a
  number, a single call dict) is a programming error, raised as
  :class:`~mcp_client.exceptions.MCPClientError`.  A call dict may carry a request ``_meta``
  for its ``tools/call`` (:func:`call_meta`); a provider that does not send MCP requests
  ignores it.  The entries are for the program and the layers; :func:`chat_messages` (also
  ``mcp_client.chat_messages``) turns them into the tool messages a Chat Completions request
  carries.
* ``tool_annotations(name)`` (optional) returns what the tool's server said about it (a copy of
  its ``annotations``), or None. ``app_tool_name(client, tool)`` (optional) returns the name
  under which a view's call to ``client``'s ``tool`` is addressed to this provider (MCP Apps,
  :mod:`mcp_client.apps`), or None when no tool of that client is reached through it.
  ``close()`` (optional) releases what the provider owns; it is idempotent.
* ``cancel_tool_calls(ids)`` (optional) abandons each running call of ``execute_tool_calls``
  under one of these ``tool_call_id`` values (the server is told: ``notifications/cancelled``;
  one not sent is not sent); its entry is ``the call to <name> was cancelled``.  It returns how
  many (bad ``ids`` raise: :func:`call_ids`); layers pass it down, registries to all.
* Every method may be called from any thread, concurrently.

:class:`Layer` is the base of a provider that wraps one provider: it holds it in
:attr:`Layer.provider`, refuses calls it cannot read, and delegates the rest.  The helpers
below read calls and shape entries the same way for every provider, so a call means the same
thing at every level of a stack.

This module imports only :mod:`mcp_client.exceptions` and :mod:`mcp_client.protocol`: it knows
nothing of clients, wires or policies.
"""

from __future__ import annotations

import copy
import json
import logging
from typing import (TYPE_CHECKING, Any, Callable, Hashable, Iterable, Mapping, NamedTuple,
                    Protocol, cast, runtime_checkable)

from . import protocol
from ._content import base64_size, flatten_content
from .exceptions import (Cancelled, InputLoopExceeded, MCPClientError, OutputMismatch,
                         ProtocolError, ServerGone, Timeout, TransportClosed, TransportError,
                         exit_status)

if TYPE_CHECKING:
    from .types import ChatToolMessage, ToolAnnotations, ToolDeclaration, ToolMessage

__all__ = ["Provider", "Layer", "is_provider", "declared_name", "CallParts", "read_call",
           "refuse_unreadable", "call_meta", "with_meta", "parse_arguments", "as_call_list",
           "call_ids", "arguments_key", "declaration", "tool_message", "error_message",
           "result_message", "chat_messages", "flatten_content", "base64_size", "describe_failure",
           "json_kind"]

log = logging.getLogger(__name__)

_MISSING: Any = object()


# -- the role -------------------------------------------------------------------------

@runtime_checkable
class Provider(Protocol):
    """What every provider has (see the module docstring for the contract).

    ``isinstance(obj, Provider)`` tells whether ``obj`` has both methods;
    :func:`is_provider` also checks that they are callable.
    """

    def tools_for_llm(self) -> list[ToolDeclaration]:
        """The tools as OpenAI-style function declarations.

        Raises:
            MCPClientError: the tools cannot be listed.
        """

    def execute_tool_calls(self, calls: Iterable[Any]) -> list[ToolMessage]:
        """One ``{"role": "tool", ...}`` entry per call, in call order; never raises for a call.

        Raises:
            MCPClientError: ``calls`` is not a list.
        """


def is_provider(obj: object) -> bool:
    """Whether ``obj`` has callable ``tools_for_llm`` and ``execute_tool_calls``."""
    return callable(getattr(obj, "tools_for_llm", None)) and \
        callable(getattr(obj, "execute_tool_calls", None))


class Layer:
    """A provider wrapping one provider, kept in :attr:`provider`.

    :meth:`execute_tool_calls` reads every call once: a call it cannot read
    is refused here, in place, with ``malformed tool call: ...``, and never
    forwarded; the readable ones go to :meth:`handle_calls`, whose answers are
    put back in call order.  A subclass overrides :meth:`handle_calls` (and
    :meth:`tools_for_llm` when it changes the declarations); by default both
    pass through to the inner provider.

    Args:
        provider: the provider underneath.

    Raises:
        MCPClientError: ``provider`` lacks ``tools_for_llm`` or
            ``execute_tool_calls``.
    """

    def __init__(self, provider: Any) -> None:
        if not is_provider(provider):
            raise MCPClientError(f"{type(self).__name__} needs a provider with tools_for_llm() "
                                 f"and execute_tool_calls(calls), not {type(provider).__name__}")
        #: The provider underneath (the one attribute a layer reaches down through).
        self.provider: Any = provider

    def __repr__(self) -> str:
        return f"<{type(self).__name__} over {self.provider!r}>"

    def tools_for_llm(self) -> list[ToolDeclaration]:
        """The inner provider's declarations."""
        return list(self.provider.tools_for_llm())

    def tool_annotations(self, name: str) -> ToolAnnotations | None:
        """The inner provider's annotations for ``name`` (None when it cannot say)."""
        lookup = getattr(self.provider, "tool_annotations", None)
        return cast("ToolAnnotations | None", lookup(name)) if callable(lookup) else None

    def app_tool_name(self, client: Any, tool: str) -> str | None:
        """The inner provider's name for a view's call to ``client``'s ``tool`` (a layer
        renames nothing); None when it cannot say."""
        ask = getattr(self.provider, "app_tool_name", None)
        found = ask(client, tool) if callable(ask) else None
        return found if isinstance(found, str) else None

    def cancel_tool_calls(self, ids: Iterable[str | int]) -> int:
        """The inner provider's ``cancel_tool_calls(ids)`` (0 without); a held call goes on."""
        return int(getattr(self.provider, "cancel_tool_calls", lambda _: 0)(call_ids(ids)))

    def execute_tool_calls(self, calls: Iterable[Any]) -> list[ToolMessage]:
        """Refuse the calls that cannot be read; hand the rest to :meth:`handle_calls`.

        Returns:
            One entry per call, in call order.

        Raises:
            MCPClientError: ``calls`` is not a list.
        """
        items = as_call_list(calls)
        parts = [read_call(call) for call in items]
        entries: list[ToolMessage | None] = [None] * len(items)
        readable = []
        for index, part in enumerate(parts):
            entries[index] = refuse_unreadable(part)
            if entries[index] is None:
                readable.append(index)
        if readable:
            answers = self.handle_calls([items[i] for i in readable], [parts[i] for i in readable])
            if not isinstance(answers, list) or len(answers) != len(readable):
                got = f"{len(answers)} results" if isinstance(answers, list) else \
                    type(answers).__name__
                log.warning("%r answered %d calls with %s", self, len(readable), got)
                answers = [error_message(parts[i].ident, f"{parts[i].name}: the provider "
                                         f"answered {len(readable)} calls with {got}")
                           for i in readable]
            for index, answer in zip(readable, answers):
                entries[index] = answer
        return [entry for entry in entries if entry is not None]

    def handle_calls(self, calls: list[Any], parts: list[CallParts]) -> list[ToolMessage]:
        """Answer calls that were all read (``parts[i]`` is ``calls[i]`` read).

        Returns:
            One entry per call, in order.  The default forwards ``calls`` to
            the inner provider unchanged.
        """
        return list(self.provider.execute_tool_calls(calls))


# -- declarations ---------------------------------------------------------------------

def declared_name(declaration: Any) -> str | None:
    """The function name a declaration publishes, or None when it has none that is usable."""
    # ``type(...) is dict`` first: the ABC's isinstance costs a microsecond, and every
    # layer asks this of every declaration on every tools_for_llm()
    function = declaration.get("function") \
        if type(declaration) is dict or isinstance(declaration, Mapping) else None
    name = function.get("name") if type(function) is dict or isinstance(function, Mapping) \
        else None
    return name if type(name) is str and name else None


def _description(tool: Mapping[str, Any]) -> str:
    annotations = tool.get("annotations")
    title = annotations.get("title") if isinstance(annotations, dict) else None
    for text in (tool.get("description"), tool.get("title"), title):
        if isinstance(text, str) and text:
            return text
    return ""


def declaration(name: str, tool: Mapping[str, Any]) -> ToolDeclaration:
    """An OpenAI-style function declaration for one MCP tool, published as ``name``.

    The description is the tool's ``description``, else its ``title`` or
    ``annotations.title`` (server/tools display-name precedence), else
    ``""``; ``parameters`` is a copy of ``inputSchema`` (an empty object
    schema when the server sent none).
    """
    schema = tool.get("inputSchema")
    parameters = copy.deepcopy(schema) if isinstance(schema, dict) \
        else {"type": "object", "properties": {}}
    return {"type": "function",
            "function": {"name": name, "description": _description(tool),
                         "parameters": parameters}}


# -- reading calls --------------------------------------------------------------------

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
    if type(obj) is dict or isinstance(obj, Mapping):   # dict first: no ABC look-up
        return obj.get(key, _MISSING)
    if obj is None or isinstance(obj, _NOT_CALLS):
        return _MISSING
    return getattr(obj, key, _MISSING)


def read_call(call: Any) -> CallParts:
    """Read a tool call: a dict shaped like OpenAI's, or an object with those attributes.

    Accepts ``{"id", "type"?: "function", "function": {"name", "arguments"}}``
    and any object with ``.id`` and ``.function.name``/``.function.arguments``
    (the ``openai`` package's ``ChatCompletionMessageToolCall``).  A call with
    no ``id`` is still read (its ``ident`` is None); a ``type`` other than
    ``"function"`` is malformed; missing ``arguments`` are None.  Never
    raises: a call that cannot be read -- an object whose attributes raise --
    is malformed.
    """
    try:
        return _read_call(call)
    except Exception as exc:   # a model's call is data; its oddities are the call's problem
        return CallParts(None, None, None, f"the call cannot be read ({type(exc).__name__}: "
                         f"{exc})")


def _read_call(call: Any) -> CallParts:
    if type(call) is dict:   # the common case, read without a frame per member
        function = call.get("function")
        if type(function) is dict and call.get("type", "function") in ("function", None):
            ident, name = call.get("id"), function.get("name")
            if type(ident) in (str, int) and type(name) is str and name:
                return CallParts(ident, name, function.get("arguments"), None)
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


def refuse_unreadable(parts: CallParts) -> ToolMessage | None:
    """The answer to a call :func:`read_call` could not read, or None when it could.

    Every provider refuses an unreadable call with this entry --
    ``malformed tool call: <the reader's problem>``, under the call's id when
    it had one -- and never runs it.
    """
    if parts.problem is None and parts.name is not None:
        return None
    return error_message(parts.ident, f"malformed tool call: {parts.problem}")


def call_meta(call: Any) -> dict[str, Any] | None:
    """The request ``_meta`` a call asks its ``tools/call`` to carry, or None.

    A call dict may hold a top-level ``"_meta"`` object beside ``id`` and
    ``function`` (a layer puts it there, :func:`with_meta`); a provider that
    sends MCP requests (a client, a registry passing calls on) carries it to
    the wire as ``params._meta``.  Anything else there is ignored.
    """
    meta = call.get("_meta") if type(call) is dict else None
    return dict(meta) if isinstance(meta, dict) and meta else None


def with_meta(call: Any, parts: CallParts, meta: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``call`` (read as ``parts``) as a dict, with ``meta`` merged into its
    ``_meta``: the call's other ``_meta`` keys are kept, ``meta``'s keys win."""
    merged = {**(call_meta(call) or {}), **meta}
    return {"id": parts.ident, "type": "function",
            "function": {"name": parts.name, "arguments": parts.arguments}, "_meta": merged}


def as_call_list(calls: Any) -> list[Any]:
    """``calls`` as a list.

    Raises:
        MCPClientError: ``calls`` is a single call (a mapping), a string, or
            not iterable (None, a number).
    """
    if isinstance(calls, (Mapping, str, bytes)) or not isinstance(calls, Iterable):
        raise MCPClientError("execute_tool_calls takes a list of tool calls, not "
                             f"{type(calls).__name__}")
    return list(calls)


def call_ids(ids: Any) -> list[str | int]:
    """``ids`` (``cancel_tool_calls``'s) as a list of str or int ids; else MCPClientError."""
    wanted: list[Any] = [None] if isinstance(ids, (Mapping, str, bytes)) or \
        not isinstance(ids, Iterable) else list(ids)   # None: no id, so refused below
    if any(isinstance(i, bool) or not isinstance(i, (str, int)) for i in wanted):
        raise MCPClientError(f"cancel_tool_calls takes tool call ids, not {ids!r:.80}")
    return wanted


def parse_arguments(arguments: Any) -> dict[str, Any]:
    """A call's arguments as a dict.

    A dict is taken as is; a string must be a JSON object, except ``""`` (and
    whitespace), which models send for a tool that takes none; None means none.
    The JSON text ``null`` is not an object and is refused.

    Raises:
        ValueError: the arguments are not a JSON object (the message says why).
    """
    if arguments is None:
        return {}
    if type(arguments) is not str and isinstance(arguments, Mapping):
        try:
            return dict(arguments)
        except Exception as exc:   # a Mapping of our caller's whose items raise
            raise ValueError(f"arguments cannot be read ({type(exc).__name__}: {exc})") from None
    if not isinstance(arguments, str):
        raise ValueError("arguments must be a JSON object or a string holding one, "
                         f"not {type(arguments).__name__}")
    if arguments[:1] == "{" and arguments[-1:] == "}":   # a JSON object alone: the common case
        try:
            value, end = _scan(arguments, 0)
        except (ValueError, StopIteration, RecursionError):
            pass   # the long way below says what is wrong with it
        else:
            if end == len(arguments) and type(value) is dict:
                return value
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
        raise ValueError(f"arguments are not a JSON object (got {json_kind(value)})")
    return value


def json_kind(value: Any) -> str:
    """What kind of JSON value ``value`` is, for a message: ``"an array"``, ``"null"``, ..."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (list, tuple)):
        return "an array"
    return "an object" if isinstance(value, Mapping) else type(value).__name__


def arguments_key(name: str, arguments: Mapping[str, Any]) -> Hashable | None:
    """What makes two calls identical: the tool and its canonical JSON arguments."""
    try:
        text = _canonical(arguments)
    except (TypeError, ValueError, RecursionError):   # RecursionError: a cycle, or too deep
        return None
    return (name, text)


#: ``json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=False,
#: allow_nan=False)``, its encoder made once.
_canonical = protocol.json_encoder(sort_keys=True, ensure_ascii=False)
#: ``json.loads`` without its wrappers: (value, end) of the JSON text at an index.
_scan: Callable[[str, int], tuple[Any, int]] = getattr(json.JSONDecoder(), "scan_once")


# -- shaping entries ------------------------------------------------------------------

def tool_message(ident: Any, content: str, *, is_error: bool,
                 structured_content: Any = _MISSING) -> ToolMessage:
    """One ``{"role": "tool", "tool_call_id", "content", "is_error"}`` entry.

    ``structured_content`` (copied) is added only when given.
    """
    entry: ToolMessage = {"role": "tool", "tool_call_id": ident, "content": content,
                          "is_error": is_error}
    if structured_content is not _MISSING:
        entry["structured_content"] = copy.deepcopy(structured_content)
    return entry


def error_message(ident: Any, text: str) -> ToolMessage:
    """An ``is_error`` entry saying ``text``."""
    return tool_message(ident, text, is_error=True)


def result_message(ident: Any, result: Mapping[str, Any]) -> ToolMessage:
    """The entry for a ``tools/call`` result (``isError`` kept, content flattened).

    A result with no content but ``structuredContent`` reads as that JSON.
    """
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


def chat_messages(entries: Iterable[Mapping[str, Any]]) -> list[ChatToolMessage]:
    """The tool messages to append to a Chat Completions ``messages`` list.

    An ``execute_tool_calls`` entry carries ``is_error`` and
    ``structured_content`` for the layers that read them; the API documents a
    tool message as ``role``, ``tool_call_id`` and ``content`` only.  This
    keeps those three, in order, and leaves the entries as they were.  Nothing
    is lost to the model: an error's text is in ``content``, and so is
    ``structuredContent`` when the tool sent no text (as JSON).

    Args:
        entries: what ``execute_tool_calls`` returned (any provider's).

    Returns:
        One ``{"role": "tool", "tool_call_id", "content"}`` per entry, new dicts.

    Raises:
        MCPClientError: ``entries`` is not a list of tool entries (a programming error).
    """
    if isinstance(entries, (str, bytes, Mapping)) or not isinstance(entries, Iterable):
        raise MCPClientError(f"chat_messages takes the list execute_tool_calls returned, "
                             f"not {json_kind(entries)}")
    messages: list[ChatToolMessage] = []
    for position, entry in enumerate(entries):
        if not isinstance(entry, Mapping) or entry.get("role") != "tool" or \
                "tool_call_id" not in entry or not isinstance(entry.get("content"), str):
            raise MCPClientError(f"entry {position} is not a tool entry "
                                 f"(role 'tool', tool_call_id, text content): {entry!r:.200}")
        messages.append({"role": "tool", "tool_call_id": entry["tool_call_id"],
                         "content": entry["content"]})
    return messages


def describe_failure(name: str, exc: BaseException) -> str:
    """What a model should read when the call to ``name`` failed with ``exc``.

    A dead server is reported by exit code only: the stderr tail is operator
    diagnosis (``ServerGone.stderr_tail``), not transcript text.
    """
    if isinstance(exc, Timeout):
        return f"the call to {name} timed out after {exc.seconds:g}s"
    if isinstance(exc, Cancelled):
        return f"the call to {name} was cancelled"
    if isinstance(exc, InputLoopExceeded):
        return (f"{name} kept asking for input past {exc.rounds} rounds; "
                "the call was abandoned")
    if isinstance(exc, ServerGone):
        code = "" if exc.exit_code is None else f" ({exit_status(exc.exit_code)})"
        return f"the server is gone{code}; {name} could not run"
    if isinstance(exc, TransportClosed):
        return f"the connection to the server is closed; {name} could not run"
    if isinstance(exc, OutputMismatch):
        return (f"{name} returned structuredContent that does not match its outputSchema "
                f"at {exc.path}: {exc.reason}")
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
