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
  :class:`~mcp_client.names.NameMap` gives it, and a call under either name
  reaches the tool.
* A call with no ``id`` is still run; its entry's ``tool_call_id`` is None.
  A call whose ``type`` is present and not ``"function"`` is malformed.
  Missing ``arguments`` means no arguments, like ``""``; the JSON text
  ``null`` is not an object and is refused.
* A name the catalogue does not have triggers one refetch (``refresh=True``)
  before the call is answered "unknown tool" without reaching the server.
  Without a catalogue at all, names go to the server as given.
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
import logging
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence, Union

from . import batch
from .exceptions import MCPClientError
from .names import NameMap
from .provider import (CallParts, arguments_key, as_call_list, declaration, describe_failure,
                       error_message, parse_arguments, read_call, result_message)

if TYPE_CHECKING:
    from concurrent.futures import Future

    from .client import Client

__all__ = ["tools_for_llm", "execute_tool_calls", "tool_annotations", "client_names"]

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
        name: the server's tool name, or the name :func:`tools_for_llm`
            published for it.

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


# -- running a batch -------------------------------------------------------------------

class _Catalogue:
    """A fetched tools/list: tools by name, and the names published for them."""

    def __init__(self, tools: Sequence[dict[str, Any]]) -> None:
        self.tools: dict[str, dict[str, Any]] = {}
        for tool in tools:
            self.tools.setdefault(tool["name"], tool)
        self.names = client_names(tools)

    def resolve(self, name: str) -> str | None:
        """The server's name for a published (or original) name, or None."""
        original = self.names.key_for(name)
        if original is not None:
            return original
        return name if name in self.tools else None

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
        target = part.name if catalogue is None else catalogue.resolve(part.name)
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
