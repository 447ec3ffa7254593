"""The LLM bridge: a server's catalogue for a model, and a model's tool calls run.

:class:`Bridge` is what :meth:`Client.tools_for_llm`,
:meth:`Client.execute_tool_calls` and :meth:`Client.tool_annotations` do.
It is driven by the callables it is handed -- ``list_tools``, ``call``, ``start`` and the
rest -- as :class:`mcp_client.era.Negotiator` is, so it knows nothing of the
client behind them; the pieces every provider shares (reading a call,
shaping an entry) live in :mod:`mcp_client.provider`.

It must not raise out of :meth:`Bridge.execute_tool_calls` (every failure
becomes an ``is_error`` entry whose content says what went wrong), must not
keep state between batches beyond what the catalogue determines and the names
it has published (the declarations are computed from the catalogue,
deterministically, and kept only while the ``stamp`` it is handed says the
catalogue is unchanged; the names given are remembered for the bridge's
life), and must not touch the wire.  The scheduling
rule lives in :mod:`mcp_client.batch`, the naming rule in :mod:`mcp_client.names`.

Decisions:

* A declaration's ``description`` is the tool's ``description``, else its
  ``title`` or ``annotations.title`` (server/tools display-name precedence),
  else ``""``; ``parameters`` is a copy of ``inputSchema`` (an empty object
  schema when the server sent none).
* A tool name a model API would refuse is published under the name
  :class:`~mcp_client.names.NameMap` gives it, and only that name reaches the
  tool: the server's own spelling (``files.delete`` for ``files_delete``) is
  an unknown tool, so a rule or a lease about the published name cannot be
  walked around by the other one.  A published name stays with the tool it
  was first given to while the catalogue changes (``files.delete`` keeps
  ``files_delete`` when a ``files_delete`` appears later, which gets the
  hashed name, logged); a name whose tool went away stays reserved
  (:class:`~mcp_client.names.Bindings`).
* A call with no ``id`` is still run; its entry's ``tool_call_id`` is None.
  A call whose ``type`` is present and not ``"function"`` is malformed.
  Missing ``arguments`` means no arguments, like ``""``; the JSON text
  ``null`` is not an object and is refused.
* A name the catalogue does not have triggers one refetch (``refresh=True``)
  before the call is answered "unknown tool" without reaching the server.
  Without a catalogue at all, a name goes to the server as given only if a
  model API accepts it (such a name is always published as itself).
* The text of one result is cut to ``max_chars`` (the client's ``max_result_chars``,
  100,000 by default) with a notice saying how many characters were left out and that
  the model may ask for less; ``structured_content`` is left whole, and
  :meth:`~mcp_client.Client.call_tool` still returns the raw result.  An error's
  text is the library's own and short, so it is never cut.
* Binary payloads are named as ``[image: image/png, 67 bytes]`` (decoded
  size), an embedded text resource is its text under a ``[resource: uri]``
  line, a resource link is ``[resource link: uri (name, mimeType)]``.  A
  result with no content but ``structuredContent`` reads as that JSON.
* A dead server is reported to the model by exit code only: the stderr tail
  is operator diagnosis (``ServerGone.stderr_tail``), not transcript text.
* Identical calls merged in a widened batch are one request, so its progress
  is reported under the ``tool_call_id`` of the first of them.
* A tool whose ``_meta.ui.visibility`` leaves out ``"model"`` (MCP Apps,
  SEP-1865 "Visibility") is never declared, and a model's call to it is an
  unknown tool, whether or not the client declared the extension: a server
  that sends one anyway is kept from the model.  Only a call carrying an
  :class:`~mcp_client.apps.AppCall` made for this bridge's ``owner`` (a view's,
  through :class:`~mcp_client.apps.AppBridge`) reaches it, and such a call
  reaches only tools whose visibility includes ``"app"``; the mark is taken
  out of the request's ``_meta`` (a forged one too) and the call's result is
  left on it, whole (as ``call_tool`` returns it).  A mark made for another
  client (a view of another server) refuses the call: it is neither a model's
  call nor one this server's view made.
* Each call of a running batch has a :class:`~._cancel.CallStop`, kept
  under its ``tool_call_id`` (as a string) until the batch returns;
  :meth:`Bridge.cancel_tool_calls` sets the stops of the ids it is given.  A
  call whose stop is set before it was sent is not sent; one in flight is
  given up (the client's requests are attached to the stop, with
  ``stoppable``).  Either way its entry says it was cancelled.  Identical
  calls merged into one request are cancelled through the first of them.
* While the catalogue is unchanged (the ``stamp``: the client's ``ttlMs``
  cache still holds every page, fresh, and no ``list_changed`` or refresh
  came in between) :meth:`Bridge.tools_for_llm` returns a new list of the
  *same* declaration objects: building 5,000 of them anew costs
  milliseconds, a list of them microseconds.  They are shared, so a caller
  that wants to change one copies it first.  Without a stamp (a server that
  sends no ``ttlMs``) every call builds them afresh, from a fresh fetch.
"""

from __future__ import annotations

import contextlib
import contextvars
import copy
import functools
import logging
import threading
from typing import (TYPE_CHECKING, Any, Callable, ContextManager, Hashable, Iterable, Mapping,
                    Protocol, Sequence, TypeVar, Union)

from .. import batch
from ..apps import APP_CALL, AppCall, app_may_call, model_may_see, take_app_call
from ..exceptions import Cancelled, MCPClientError
from ..names import Bindings
from ..provider import (CallParts, arguments_key, as_call_list, call_ids, call_meta,
                        declaration, describe_failure, error_message, read_call, result_message)
from ._cancel import CallStop, cancel_all
from ._plan import Catalogue, capped, catalogue_tools, client_names, plan

if TYPE_CHECKING:
    from concurrent.futures import Executor, Future

    from ..types import ToolDeclaration, ToolMessage

__all__ = ["Bridge", "Outcome"]

log = logging.getLogger(__name__)


class ListTools(Protocol):
    """``list_tools(refresh=False)``: the tools a model may be offered (the catalogue)."""

    def __call__(self, *, refresh: bool = False) -> list[Any]: ...


#: What a call to the server came back as: the result, or the exception it raised.
Outcome = Union[Mapping[str, Any], BaseException]
#: ``call(name, arguments, tool_call_id)``: one ``tools/call``'s result (it may raise);
#: a call that carries a request ``_meta`` (:func:`mcp_client.provider.call_meta`) is
#: ``call(name, arguments, tool_call_id, meta=meta)``; a ``stoppable`` bridge also
#: passes ``stop=`` (the call's :class:`~._cancel.CallStop`).
CallFunction = Callable[..., Any]
#: ``start(name, arguments, tool_call_id)``: a pipelined ``tools/call``; the Future's
#: *result* is the :data:`Outcome` (it may also raise :class:`MCPClientError` at once);
#: ``meta=`` as for :data:`CallFunction`.
StartFunction = Callable[..., "Future[Outcome]"]
#: ``volley([(name, arguments, tool_call_id), ...])``: pipelined ``tools/call`` requests
#: sent together, one :data:`Outcome` each, in order; None when they cannot be (a task tool).
#: A ``stoppable`` bridge passes the calls' stops as a second argument.
VolleyFunction = Callable[..., Union["list[Outcome]", None]]
#: ``check(tool, result)``: why a result breaks its tool's declaration, or None.
CheckFunction = Callable[[Union[Mapping[str, Any], None], Mapping[str, Any]],
                         Union[BaseException, None]]
#: ``stamp()``: ``(since, now, current)``: what was derived from the catalogue
#: while ``since`` held stays valid while ``now`` is unchanged and ``current``
#: is true (:meth:`mcp_client.cache.Cache.stamp`'s three values).
StampFunction = Callable[[], "tuple[Hashable, Hashable, bool]"]
T = TypeVar("T")


# -- the bridge -----------------------------------------------------------------

class Bridge:
    """One server's tools for a model, and a model's calls run against them.

    Args:
        list_tools: ``list_tools(refresh=False)`` -> the server's tools
            (``tools/list``, all pages); it may raise.
        call: ``call(name, arguments, tool_call_id)`` -> the ``tools/call``
            result; it may raise (the exception becomes the call's entry).
            ``tool_call_id`` is the model's id as a string, or None.
        start: like ``call``, but pipelined (see :data:`StartFunction`);
            None when the connection cannot pipeline.
        can_pipeline: whether ``start`` may be used now (asked per batch).
        executor: the pool a widened batch runs on, or None for threads of
            its own (asked per batch).
        concurrency: at most this many calls of a batch in flight.
        parallel_tools, serial_tools: the overlap overrides of
            :func:`mcp_client.batch.may_overlap`.
        check: ``check(tool, result)`` -> why a result breaks its catalogue
            entry (structured output against ``outputSchema``), or None; a
            result it objects to becomes an ``is_error`` entry naming why.
        stamp: when the catalogue ``list_tools()`` would return has changed
            (see :data:`StampFunction`); None: it may change at every call.
        hold, send_held: a pipelined batch's requests are held from
            ``hold()`` and written together by ``send_held(stop)``.
        wait_all: ``wait_all(futures, send)`` waits for a pipelined batch's
            futures, calling ``send`` first (it may read the wire on the
            batch's own thread meanwhile).
        volley: runs a pipelined batch's distinct calls together, when they
            are no more than ``concurrency`` (see :data:`VolleyFunction`);
            ``start`` is used otherwise.
        owner: the client whose :class:`~mcp_client.apps.AppCall` marks let a
            view's call reach an app-only tool (None: no mark does).
        batch_span: ``batch_span(n)`` -> a context manager around a batch of ``n``
            calls (the client's tracing; None: none), in which its calls run.
        stoppable: ``call``, ``start`` and ``volley`` take the calls' stops,
            and give up a call's requests when its stop is set
            (:meth:`cancel_tool_calls`).
    """

    def __init__(self, *, list_tools: ListTools, call: CallFunction,
                 start: StartFunction | None = None,
                 can_pipeline: Callable[[], bool] | None = None,
                 executor: Callable[[], Executor | None] | None = None,
                 concurrency: int = 4, parallel_tools: Iterable[str] = (),
                 serial_tools: Iterable[str] = (),
                 check: CheckFunction | None = None,
                 stamp: StampFunction | None = None,
                 hold: Callable[[], None] | None = None,
                 send_held: Callable[[bool], None] | None = None,
                 wait_all: Callable[[Sequence[Future[Outcome]], Callable[[], None]], None]
                 | None = None, volley: VolleyFunction | None = None,
                 max_chars: int | None = None, owner: Any = None,
                 stoppable: bool = False,
                 batch_span: Callable[[int], ContextManager[Any]] | None = None) -> None:
        self._list_tools = list_tools
        self._batch_span = batch_span
        self._max_chars = max_chars
        self._owner = owner
        self._app_only: frozenset[str] = frozenset()   # as the last catalogue said
        self._stoppable = stoppable
        self._stops: dict[str, list[CallStop]] = {}   # the running batches' calls, by id
        self._stops_lock = threading.Lock()
        self._bindings: Bindings[str] = Bindings()   # every name published, for life
        self._stamp = stamp
        self._kept: dict[str, tuple[tuple[Hashable, Hashable], Any]] = {}
        self._check = check
        self._call_tool = call
        self._start_tool = start
        self._can_pipeline = can_pipeline
        self._executor = executor
        self._concurrency = concurrency
        self._parallel_tools = tuple(parallel_tools)
        self._serial_tools = tuple(serial_tools)
        self._hold = hold
        self._send_held = send_held
        self._wait_all = wait_all
        self._volley = volley

    def __repr__(self) -> str:
        return f"<Bridge concurrency={self._concurrency}>"

    def tools_for_llm(self) -> list[ToolDeclaration]:
        """The tools as OpenAI-style function declarations.

        Returns:
            ``[{"type": "function", "function": {"name", "description",
            "parameters"}}, ...]`` in catalogue order, every name matching
            ``^[a-zA-Z0-9_-]{1,64}$``.

        Raises:
            MCPClientError: the catalogue could not be fetched.
        """
        return list(self._derived("declarations", self._declarations))

    def _declarations(self) -> tuple[ToolDeclaration, ...]:
        tools = catalogue_tools(self._list_tools())
        names = client_names(tools, self._bindings)
        seen: set[str] = set()
        declarations: list[ToolDeclaration] = []
        self._app_only = frozenset(tool["name"] for tool in tools if not model_may_see(tool))
        for tool in tools:
            if not model_may_see(tool):   # an app-only tool is the view's, not the model's
                continue
            published = names.name_for(tool["name"])
            if published is None or published in seen:
                continue
            seen.add(published)
            declarations.append(declaration(published, tool))
        return tuple(declarations)

    def _derived(self, what: str, build: Callable[[], T]) -> T:
        """``build()``, or what it gave last time if the catalogue has not changed since."""
        if self._stamp is None:
            return build()
        since, now, current = self._stamp()
        kept = self._kept.get(what)
        if kept is not None and current and kept[0] == (since, now):
            return kept[1]   # type: ignore[no-any-return]
        value = build()
        after, now, current = self._stamp()
        if current and after == since:   # nothing was evicted while it was built
            self._kept[what] = ((after, now), value)
        return value

    def tool_annotations(self, name: str) -> dict[str, Any] | None:
        """What the server said about one tool (a copy of its ``annotations``).

        Args:
            name: the name :meth:`tools_for_llm` published for the tool (the
                server's own name when it needed no rewriting).

        Returns:
            the annotations dict, or None when the tool has none or does not exist.

        Raises:
            MCPClientError: the catalogue could not be fetched.
        """
        catalogue = self._derived("catalogue", self._new_catalogue)
        original = catalogue.resolve(name)
        if original is None:
            return None
        annotations = catalogue.tools[original].get("annotations")
        return copy.deepcopy(annotations) if isinstance(annotations, dict) else None

    def app_name(self, tool: str) -> str | None:
        """The name a view's call to the server's ``tool`` goes by (the name the tool is,
        or would be, published under), or None when the tool is not the app's to call.

        Raises:
            MCPClientError: the catalogue could not be fetched.
        """
        catalogue = self._derived("catalogue", self._new_catalogue)
        found = catalogue.tools.get(tool)
        if found is None or not app_may_call(found):
            return None
        return catalogue.names.name_for(tool)

    def execute_tool_calls(self, calls: Iterable[Any]) -> list[ToolMessage]:
        """Run the tool calls a model asked for; one entry per call, in call order.

        Never raises for a call: a malformed call, arguments that are not a JSON
        object, an unknown tool, ``isError``, a JSON-RPC error, a timeout, an
        exhausted input loop or a dead connection each become an ``is_error``
        entry saying what went wrong.  The batch has run when this returns
        (scheduled by :mod:`mcp_client.batch`).

        Args:
            calls: dicts shaped like OpenAI's tool calls, or objects with the
                same attributes.

        Returns:
            ``[{"role": "tool", "tool_call_id", "content", "is_error",
            "structured_content"?}, ...]``.

        Raises:
            MCPClientError: ``calls`` is not a list (a programming error, not a
                model's).
        """
        items = as_call_list(calls)
        parts = [read_call(call) for call in items]
        metas = [call_meta(call) for call in items]
        foreign = {index for index, meta in enumerate(metas)
                   if isinstance((meta or {}).get(APP_CALL), AppCall)}
        taken = [take_app_call(meta, self._owner) for meta in metas]
        marks = [mark for _, mark in taken]
        foreign -= {index for index, mark in enumerate(marks) if mark is not None}
        catalogue = self._catalogue_for(parts)
        entries, planned = plan(parts, catalogue, self._bindings.key_for, marks,
                                self._app_only)
        for index in foreign & {slot[0] for slot in planned}:   # never run as a model's call
            entries[index] = error_message(parts[index].ident, f"{parts[index].name} is not "
                                           "callable by the app")
        planned = [slot for slot in planned if slot[0] not in foreign]
        stops = self._enter([parts[index].ident for index, _, _ in planned])
        traced = self._batch_span(len(planned)) if self._batch_span is not None and planned \
            else contextlib.nullcontext()
        try:
            with traced:
                outcomes = self._run(planned, parts, catalogue, [meta for meta, _ in taken],
                                     stops)
        finally:
            self._leave(stops)
        for (index, target, _), outcome in zip(planned, outcomes):
            part, mark = parts[index], marks[index]
            assert part.name is not None
            if mark is not None and not isinstance(outcome, BaseException):
                mark.result = outcome   # the view is shown the result whole
            if self._check is not None and catalogue is not None and \
                    not isinstance(outcome, BaseException):
                outcome = self._check(catalogue.tools.get(target), outcome) or outcome
            entries[index] = error_message(part.ident, describe_failure(part.name, outcome)) \
                if isinstance(outcome, BaseException) else \
                capped(result_message(part.ident, outcome), self._max_chars)
        return [entry for entry in entries if entry is not None]

    def _in_span(self, call: Callable[[], T]) -> Callable[[], T]:
        """``call``, run in the batch's span on whichever thread runs it (traced only)."""
        if self._batch_span is None:
            return call
        return functools.partial(contextvars.copy_context().run, call)

    def cancel_tool_calls(self, ids: Iterable[str | int]) -> int:
        """Cancel the calls of the running batches that have one of these ids.

        A call not yet sent is not sent; one in flight is given up (the server
        is told).  Each one's entry says it was cancelled.

        Returns:
            How many calls it cancelled (0 when none matched).

        Raises:
            MCPClientError: ``ids`` is not an iterable of call ids.
        """
        wanted = {str(ident) for ident in call_ids(ids)}
        with self._stops_lock:
            stops = [stop for ident in wanted for stop in self._stops.get(ident, ())]
        return cancel_all(stops)

    def _enter(self, idents: Sequence[Any]) -> list[tuple[str | None, CallStop]]:
        """A stop for each call of a batch, kept under its id while the batch runs."""
        stops = [(_call_id(ident), CallStop()) for ident in idents]
        with self._stops_lock:
            for key, stop in stops:
                if key is not None:
                    self._stops.setdefault(key, []).append(stop)
        return stops

    def _leave(self, stops: Sequence[tuple[str | None, CallStop]]) -> None:
        with self._stops_lock:
            for key, stop in stops:
                kept = self._stops.get(key) if key is not None else None
                if key is not None and kept is not None:
                    kept.remove(stop)
                    if not kept:
                        del self._stops[key]

    # -- one batch ---------------------------------------------------------------

    def _new_catalogue(self, *, refresh: bool = False) -> Catalogue:
        tools = self._list_tools(refresh=True) if refresh else self._list_tools()
        catalogue = Catalogue(catalogue_tools(tools), self._bindings)
        self._app_only = catalogue.app_only
        return catalogue

    def _fetch_catalogue(self, *, refresh: bool = False) -> Catalogue | None:
        try:
            if refresh:
                return self._new_catalogue(refresh=True)
            return self._derived("catalogue", self._new_catalogue)
        except Exception as exc:  # no catalogue: names pass through and the batch is serial
            log.debug("no catalogue for the batch: %r", exc)
            return None

    def _catalogue_for(self, parts: Sequence[CallParts]) -> Catalogue | None:
        """The catalogue for a batch, fetched again once if it lacks a name the model used."""
        if all(part.name is None for part in parts):
            return None
        catalogue = self._fetch_catalogue()
        if catalogue is not None and any(part.name is not None and catalogue.resolve(part.name)
                                         is None for part in parts):
            catalogue = self._fetch_catalogue(refresh=True) or catalogue
        return catalogue

    def _call(self, name: str, arguments: dict[str, Any], ident: Any,
              meta: dict[str, Any] | None = None, stop: CallStop | None = None) -> Outcome:
        """One ``tools/call``; an exception is returned, never raised."""
        extra: dict[str, Any] = {} if meta is None else {"meta": meta}
        if stop is not None:
            if stop.is_set():
                return Cancelled("tools/call")
            if self._stoppable:
                extra["stop"] = stop
        try:
            result = self._call_tool(name, arguments, _call_id(ident), **extra)
        except Exception as exc:
            if not isinstance(exc, MCPClientError):
                log.exception("tools/call %s failed inside the client", name)
            return exc
        finally:
            if stop is not None:
                stop.finish()
        if not isinstance(result, Mapping):
            return MCPClientError(f"the answer to {name} is not a result object")
        return result

    def _start(self, name: str, arguments: dict[str, Any], ident: Any,
               meta: dict[str, Any] | None = None,
               stop: CallStop | None = None) -> Future[Outcome]:
        """:meth:`_call`, pipelined: the Future's result is the outcome."""
        assert self._start_tool is not None
        extra: dict[str, Any] = {} if meta is None else {"meta": meta}
        if stop is not None and self._stoppable:
            extra["stop"] = stop
        try:
            if stop is not None and stop.is_set():
                raise Cancelled("tools/call")
            return self._start_tool(name, arguments, _call_id(ident), **extra)
        except MCPClientError as exc:   # an outcome: the Future's result, as for a failed call
            from concurrent.futures import Future

            refused: Future[Outcome] = Future()
            refused.set_result(exc)
            return refused

    def _run(self, planned: Sequence[tuple[int, str, dict[str, Any]]],
             parts: Sequence[CallParts], catalogue: Catalogue | None,
             metas: Sequence[dict[str, Any] | None],
             stops: Sequence[tuple[str | None, CallStop]]) -> list[Outcome]:
        """Run the planned calls; one with a request ``_meta`` is never merged with
        another, nor sent in a volley, and its ``_meta`` goes with it."""
        widen = batch.may_overlap([target for _, target, _ in planned],
                                  None if catalogue is None else catalogue.annotations(),
                                  concurrency=self._concurrency,
                                  parallel_tools=self._parallel_tools,
                                  serial_tools=self._serial_tools)
        pipelined = widen and self._start_tool is not None and \
            self._can_pipeline is not None and self._can_pipeline()
        if pipelined and self._volley is not None and not any(metas):
            together = self._together(planned, parts, [stop for _, stop in stops])
            if together is not None:
                return together
        tasks = [batch.Task(self._in_span(functools.partial(self._call, target, arguments,
                                                            parts[index].ident, metas[index],
                                                            stop)),
                            arguments_key(target, arguments) if widen and not metas[index]
                            else None,
                            functools.partial(self._start, target, arguments,
                                              parts[index].ident, metas[index], stop)
                            if pipelined else None)
                 for (index, target, arguments), (_, stop) in zip(planned, stops)]
        pool = self._executor() if self._executor is not None and widen and not pipelined \
            else None
        send_held = self._send_held
        if not pipelined or self._hold is None or send_held is None:
            return batch.run_batch(tasks, widen=widen, concurrency=self._concurrency,
                                   executor=pool)
        wait_all = self._wait_all
        self._hold()   # the batch's requests go out in one write, not one each
        try:
            return batch.run_batch(
                tasks, widen=widen, concurrency=self._concurrency, executor=pool,
                flush=lambda: send_held(False),
                wait_all=None if wait_all is None else
                lambda futures: wait_all(futures, lambda: send_held(False)))
        finally:
            send_held(True)

    def _together(self, planned: Sequence[tuple[int, str, dict[str, Any]]],
                  parts: Sequence[CallParts],
                  stops: Sequence[CallStop]) -> list[Outcome] | None:
        """A pipelined batch as one volley (identical calls sent once), or None when it
        has more distinct calls than may be in flight at once, or they cannot be sent so."""
        assert self._volley is not None
        groups = batch.distinct([arguments_key(target, arguments)
                                 for _, target, arguments in planned])
        if not 2 <= len(groups) <= self._concurrency:
            return None
        firsts = [planned[slots[0]] for slots in groups]
        calls = [(target, arguments, _call_id(parts[index].ident))
                 for index, target, arguments in firsts]
        outcomes = self._volley(calls, [stops[slots[0]] for slots in groups]) \
            if self._stoppable else self._volley(calls)
        for stop in stops:
            stop.finish()
        if outcomes is None:
            return None
        return batch.spread(groups, outcomes, len(planned))


def _call_id(ident: Any) -> str | None:
    """The model's id of a call as the client tracks it (progress reports name it)."""
    return None if ident is None else str(ident)
