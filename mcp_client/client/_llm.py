"""The LLM bridge of one client, wired to its connection, its tasks and its catalogue.

:class:`~._bridge.Bridge` is given callables and knows no connection; this
module makes them.  A model's call is a plain ``tools/call``, a pipelined one
where the wire allows, or a task (:mod:`._tasks.calls`: a task tool is polled
on a worker, never pipelined or sent in a volley); the model is offered no
tool this client cannot run; and, unless ``validate_output`` is False, each
result's ``structuredContent`` is checked against the tool's ``outputSchema``.

The client builds its bridge here on first use (so this module, and
:mod:`._bridge`, are imported then).
"""

from __future__ import annotations

from ..exceptions import MCPClientError
from ._bridge import Bridge
from ._params import tool_params

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Mapping, Sequence

    from ..exceptions import OutputMismatch
    from ._cancel import CallStop
    from ._connection import Connection
    from ._outputs import OutputChecks
    from ._tasks.calls import Tasks
    from ._toolheaders import Catalogue

__all__ = ["bridge_for"]


def bridge_for(connection: Connection, tasks: Tasks, catalogue: Catalogue,
               outputs: OutputChecks, options: Mapping[str, Any]) -> Bridge:
    """The bridge over a client's ``connection``, ``tasks`` and ``catalogue``, with its options."""

    def call(name: str, arguments: dict[str, Any], tool_call_id: str | None,
             meta: dict[str, Any] | None = None, stop: CallStop | None = None) -> Any:
        # progress is reported under the model's tool_call_id, the join key
        # back to the model's tool card; a layer's request _meta goes as params._meta;
        # the call's stop is how cancel_tool_calls reaches its requests
        return tasks.call(tool_params(name, arguments, meta=meta), timeout=None,
                          cancelled=stop, tool_call_id=tool_call_id)

    def start(name: str, arguments: dict[str, Any], tool_call_id: str | None,
              meta: dict[str, Any] | None = None, stop: CallStop | None = None) -> Any:
        params = tool_params(name, arguments, meta=meta)
        if tasks.task_tool(name, cancelled=stop):   # polled on a worker: no single answer
            return connection.submit(tasks.outcome, params, stop)
        return connection.start_call(params, tool_call_id=tool_call_id, outcome=True,
                                     stop=stop)

    def volley(calls: Sequence[tuple[str, dict[str, Any], str | None]],
               stops: Sequence[CallStop | None] | None = None) -> list[Any] | None:
        try:   # a task tool is polled on a worker; a bad call says why on its own path
            if any(tasks.task_tool(name) for name in {name for name, _, _ in calls}):
                return None
            prepared = [(tool_params(name, arguments), ident)
                        for name, arguments, ident in calls]
        except MCPClientError:
            return None
        return connection.call_together(prepared, stops)

    def runnable(*, refresh: bool = False) -> list[Any]:
        """The tools a model may be offered: none this client cannot run (a tool whose
        ``execution.taskSupport`` is ``"required"``, where this client runs no task)."""
        return tasks.runnable(catalogue.list_tools(refresh=refresh))

    def checked(tool: Mapping[str, Any] | None,
                result: Mapping[str, Any]) -> OutputMismatch | None:
        """The output check: a schema's patterns get ``request_timeout`` at most."""
        return outputs.problem(tool, result, budget=connection.budget(None))

    return Bridge(list_tools=runnable, call=call, start=start, stoppable=True,
                  check=checked if options["validate_output"] else None, volley=volley,
                  can_pipeline=connection.can_pipeline, executor=connection.batch_executor,
                  hold=connection.hold_requests, send_held=connection.send_held,
                  wait_all=connection.wait_all, concurrency=options["tool_concurrency"],
                  parallel_tools=options["parallel_tools"], serial_tools=options["serial_tools"],
                  stamp=lambda: connection.cache_stamp("tools/list"),
                  max_chars=options["max_result_chars"], owner=catalogue,
                  batch_span=None if connection.tracing is None else connection.tracing.batch)
