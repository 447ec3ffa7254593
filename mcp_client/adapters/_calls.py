"""What every framework adapter needs from a provider: its tools, and one call run.

The framework modules (:mod:`~mcp_client.adapters.langchain`,
:mod:`~mcp_client.adapters.openai_agents`, :mod:`~mcp_client.adapters.pydantic_ai`,
:mod:`~mcp_client.adapters.smolagents`) turn these into each framework's own
tool objects; this module knows no framework.

It must not import a framework, create an event loop, or keep a thread
beyond the call it serves.

Decisions:

* :func:`catalogue` reads ``tools_for_llm()`` once, as the formats read it
  (:func:`~._formats.functions`), and keeps the provider's names, descriptions and
  JSON Schemas as published (a schema is deep-copied, never rewritten: a framework
  may change its copy), with each tool's annotations.
* :func:`call` runs one tool call as a batch of one through
  ``execute_tool_calls``, so every layer of the provider judges it (a denied
  call is an ``is_error`` outcome that never reached the server).  Each call
  gets a fresh ``tool_call_id`` (``adapter-<hex>``): progress reports name it,
  and :func:`call_async` cancels by it.
* :func:`call_async` is the coroutine entry: the blocking call runs on a
  thread of its own that ends with the call, and the coroutine awaits its
  :class:`~concurrent.futures.Future` through :func:`asyncio.wrap_future` --
  no event loop is made, none is needed, and no pool outlives the call.  When
  the awaiting task is cancelled, the provider's optional
  ``cancel_tool_calls([id])`` is asked to abandon the call (the server is told),
  and the cancellation goes on up.
"""

from __future__ import annotations

import asyncio
import copy
import threading
import uuid
from concurrent.futures import Future
from typing import Any, Callable, Mapping, NamedTuple, TypeVar

from ..exceptions import MCPClientError
from ..provider import is_provider
from ._formats import functions

__all__ = ["Tool", "Outcome", "catalogue", "call", "call_async", "check_provider", "new_id",
           "off_loop", "cancel"]

T = TypeVar("T")


class Tool(NamedTuple):
    """One tool as a provider publishes it.

    Attributes:
        name: the published name (a model API accepts it: ``^[a-zA-Z0-9_-]{1,64}$``).
        description: the description (``""`` when none).
        parameters: the JSON Schema of its arguments (a copy; an object schema).
        annotations: what its server said about it (``readOnlyHint``...), or None.
    """

    name: str
    description: str
    parameters: dict[str, Any]
    annotations: dict[str, Any] | None

    @property
    def read_only(self) -> bool:
        """Whether the server says the tool changes nothing (``readOnlyHint``)."""
        return self.annotations is not None and self.annotations.get("readOnlyHint") is True


class Outcome(NamedTuple):
    """What one call came back with.

    Attributes:
        text: what the model reads (a refusal or a failure says why).
        is_error: the tool reported ``isError``, or the call was refused or failed.
        structured: the result's ``structuredContent``, or None when it sent none.
    """

    text: str
    is_error: bool
    structured: Any


def check_provider(provider: Any, where: str) -> None:
    """Raise :class:`~mcp_client.exceptions.MCPClientError` unless ``provider`` is one."""
    if not is_provider(provider):
        raise MCPClientError(f"{where} takes a provider (tools_for_llm() and "
                             f"execute_tool_calls(calls)), not {type(provider).__name__}")


def catalogue(provider: Any) -> list[Tool]:
    """The provider's tools, in its order.

    Raises:
        MCPClientError: ``provider`` is not a provider, or its tools cannot be listed.
    """
    check_provider(provider, "an adapter")
    lookup = getattr(provider, "tool_annotations", None)
    found = []
    for function in functions(provider):
        annotations = lookup(function.name) if callable(lookup) else None
        found.append(Tool(function.name, function.description or "",
                          copy.deepcopy(function.parameters),
                          dict(annotations) if isinstance(annotations, Mapping) else None))
    return found


def new_id() -> str:
    """A fresh ``tool_call_id`` for one adapter call."""
    return f"adapter-{uuid.uuid4().hex[:16]}"


def call(provider: Any, name: str, arguments: Any, *, ident: str | None = None) -> Outcome:
    """Run one call through ``provider`` (a batch of one); never raises for the call.

    Args:
        provider: any provider.
        name: the published tool name.
        arguments: a dict, or JSON text of one (None: no arguments).
        ident: the ``tool_call_id`` to run it under (default: a fresh one).

    Raises:
        MCPClientError: only when ``provider`` breaks its contract (raises, or does
            not answer the call with one entry).
    """
    call_dict = {"id": ident or new_id(), "type": "function",
                 "function": {"name": name, "arguments": {} if arguments is None
                              else arguments}}
    try:
        entries = provider.execute_tool_calls([call_dict])
    except MCPClientError:
        raise
    except Exception as exc:   # a provider that broke its contract, said once, at the edge
        raise MCPClientError(f"{name}: the provider raised {type(exc).__name__}: {exc}") from exc
    entry = entries[0] if isinstance(entries, list) and len(entries) == 1 else None
    if not isinstance(entry, Mapping) or not isinstance(entry.get("content"), str):
        raise MCPClientError(f"{name}: the provider did not answer the call with one entry")
    return Outcome(entry["content"], entry.get("is_error") is True,
                   entry.get("structured_content"))


async def off_loop(work: Callable[[], T], name: str, *,
                   on_cancel: Callable[[], None] | None = None) -> T:
    """``work()`` on a thread of its own that ends with it, awaited without blocking the loop.

    Cancelling the awaiting task calls ``on_cancel`` (when given) and re-raises the
    cancellation; ``work`` that has not started yet never starts.
    """
    done: Future[T] = Future()

    def target() -> None:
        if not done.set_running_or_notify_cancel():
            return
        try:
            done.set_result(work())
        except BaseException as exc:   # the Future carries it to the coroutine
            done.set_exception(exc)

    threading.Thread(target=target, name=name[:60], daemon=True).start()
    try:
        return await asyncio.wrap_future(done)
    except asyncio.CancelledError:
        if on_cancel is not None:
            on_cancel()
        raise


def cancel(provider: Any, ident: str) -> None:
    """Ask ``provider`` to abandon the call running under ``ident`` (when it can)."""
    abandon = getattr(provider, "cancel_tool_calls", None)
    if callable(abandon):
        abandon([ident])


async def call_async(provider: Any, name: str, arguments: Any, *,
                     ident: str | None = None) -> Outcome:
    """:func:`call`, awaited: the call runs on a thread of its own, ended with it.

    Cancelling the awaiting task asks the provider to abandon the call
    (``cancel_tool_calls``, when it has it) and re-raises the cancellation.
    """
    ident = ident or new_id()
    return await off_loop(lambda: call(provider, name, arguments, ident=ident),
                          f"mcp-adapter-{name}", on_cancel=lambda: cancel(provider, ident))
