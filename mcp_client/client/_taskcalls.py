"""Which tool calls run as tasks, in either era, and running them for the client.

:class:`TaskCalls` is a mixin of :class:`~mcp_client.Client`.  A call goes
through the task runner when:

* **2025-11-25** (:mod:`._tasks`): the server declares
  ``tasks.requests.tools.call`` and the tool's ``execution.taskSupport`` is
  ``"required"`` (the catalogue is fetched once to know);
* **2026-07-28** (:mod:`._taskext`): the client declares the
  ``io.modelcontextprotocol/tasks`` extension anyway (the ``tasks`` option: the
  server may then answer any call with a task); or the server declares the
  extension and the tool's ``taskSupport`` is ``"required"``; or the server
  answered a plain call to the tool with ``-32021`` naming the extension
  (the call is sent once more, declaring it, and the tool is remembered).

The runner declares the extension on that one request only (SEP-2663,
per-request capabilities), and returns a plain result as it came: the server
decides whether a task is made.  A tool whose ``taskSupport`` is
``"optional"`` is called plainly unless the client declares the extension.
"""

from __future__ import annotations

import threading
import weakref

from .._log import get_logger
from ..exceptions import Cancelled, MCPClientError, ProtocolError, TransportClosed
from ._tasks import create_task, needs_task, run_task, said, server_runs_tasks, \
    wait_task
from ._taskext import asks_for_tasks, checked_task, deadline_for, declares_tasks, wait_modern

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Mapping

    from ..types import Tool
    from ._connection import Connection
    from ._era import EraInfo
    from ._taskhandle import TaskHandle
    from ._tasks import Send

__all__ = ["TaskCalls"]

log = get_logger(__name__)


class TaskCalls:
    """Mixin of :class:`~mcp_client.Client`: which calls run as tasks, and running them.

    ``_task_tools`` is the set of task-only tool names of the latest
    ``list_tools()`` (None before one); the client's ``list_tools`` keeps it.
    ``_asked_tasks`` holds the tools a modern server asked the extension for.
    """

    _connection: Connection
    _opts: dict[str, Any]
    _tasks_declared: bool   # the client declares the extension on every request
    _task_tools: frozenset[str] | None
    _asked_tasks: set[str]
    #: ``(era info, its capabilities)`` once they were found to run no task: while the
    #: era is that one, only a name in ``_asked_tasks`` needs a second look
    _taskless: tuple[EraInfo, dict[str, Any]] | None
    _handles: weakref.WeakSet[TaskHandle]   # the call_tool_task handles still polling
    _tasks_closing: bool                    # close() began: task requests are not sent
    _tasks_stopped: threading.Event         # set with _tasks_closing: wakes a paused runner

    list_tools: Callable[..., list[Tool]]   # the client's own
    _tool_params: Callable[..., dict[str, Any]]
    _call: Callable[..., dict[str, Any]]

    def _era_info(self, timeout: float | None = None, cancelled: Any = None) -> EraInfo:
        connection = self._connection
        return connection.era_info or connection.ensure_era(connection.budget(timeout),
                                                            cancelled, "tools/call")

    def _tasks_possible(self, timeout: float | None = None, cancelled: Any = None, *,
                        discover: bool = False) -> bool:
        """Whether this client can run a task here: the server declares tasks, in its era.

        The era is negotiated first if it is not known, within the call's budget.
        A modern server's capabilities are those its DiscoverResult gave; with a
        pinned era there is none, and only ``discover`` sends one to know (a
        plain call must not cost a round trip more; a task-only tool is then
        found out by the server's ``-32021``).
        """
        info = self._era_info(timeout, cancelled)
        if info.era == "legacy":
            return server_runs_tasks(info.capabilities)
        connection = self._connection
        return declares_tasks(connection.discovered().capabilities if discover
                              else info.capabilities)

    def _task_tool(self, name: str, timeout: float | None = None,
                   cancelled: Any = None) -> bool:
        """Whether a call to ``name`` goes through the task runner (see the module)."""
        taskless = self._taskless
        if taskless is not None and name not in self._asked_tasks:
            info = self._connection.era_info
            if info is taskless[0] and info.capabilities is taskless[1]:
                return False   # every call_tool_async asks: the answer found last time
        if (self._tasks_declared or name in self._asked_tasks) and \
                self._era_info(timeout, cancelled).era == "modern":
            return True
        if not self._tasks_possible(timeout, cancelled):
            # the era alone decided it: in this era only an asked name goes the first way
            info = self._connection.era_info
            if info is not None:
                self._taskless = (info, info.capabilities)
            return False
        if self._task_tools is None:
            self.list_tools(timeout=timeout, cancelled=cancelled)
        return name in (self._task_tools or ())

    def _note_tools(self, tools: list[dict[str, Any]]) -> None:
        self._task_tools = frozenset(t["name"] for t in tools
                                     if needs_task(t) and isinstance(t.get("name"), str))

    def _tool_call(self, params: dict[str, Any], *, timeout: float | None, cancelled: Any,
                   progress_token: str | int | None = None,
                   tool_call_id: str | None = None) -> dict[str, Any]:
        """One ``tools/call`` as the client makes it: plainly, or through the task runner."""
        name = params["name"]
        if self._task_tool(name, timeout, cancelled):
            return self._run_task(params, timeout=timeout, cancelled=cancelled,
                                  progress_token=progress_token, tool_call_id=tool_call_id)
        try:
            return self._call(params, timeout=timeout, cancelled=cancelled,
                              progress_token=progress_token, tool_call_id=tool_call_id)
        except ProtocolError as exc:
            if not asks_for_tasks(exc) or self._era_info().era != "modern":
                raise
        log.debug("the server needs the tasks extension for %s; calling again with it", name)
        self._asked_tasks.add(name)
        return self._run_task(params, timeout=timeout, cancelled=cancelled,
                              progress_token=progress_token, tool_call_id=tool_call_id)

    def _run_task(self, params: dict[str, Any], *, timeout: float | None, cancelled: Any,
                  progress_token: str | int | None = None,
                  tool_call_id: str | None = None) -> dict[str, Any]:
        """Run one call as a task to its end; ``timeout`` bounds the whole task.

        A call given no ``cancelled`` pauses between polls on the client's
        own stop event, so ``close()`` ends it at once, with
        :class:`TransportClosed` as any call cut by close; the task is the
        server's to keep (no ``tasks/cancel``: task requests are refused by then).
        """
        budget = self._connection.budget(timeout)
        signal = self._tasks_stopped if cancelled is None else cancelled
        try:
            if self._era_info(timeout, cancelled).era == "legacy":
                return run_task(self._task_send(False), params, timeout=budget,
                                cancelled=signal, on_status=self._on_task_status)
            deadline = deadline_for(budget)
            created = self._call(params, timeout=timeout, cancelled=cancelled,
                                 progress_token=progress_token, tool_call_id=tool_call_id,
                                 tasks=True)
            if created.get("resultType") != "task":
                return created   # the server ran it at once (or after input rounds)
            return wait_modern(self._task_send(True), self._answer_inputs, created,
                               timeout=budget, deadline=deadline, cancelled=signal,
                               on_status=self._on_task_status,
                               max_rounds=self._opts["max_input_rounds"])
        except Cancelled:
            if signal is self._tasks_stopped and self._tasks_closing:
                raise TransportClosed() from None
            raise

    def call_tool_task(self, name: str, arguments: Mapping[str, Any] | None = None, *,
                       timeout: float | None = None) -> TaskHandle:
        """Start a tool as a task and return its handle at once.

        The task is created before this returns (its ``task_id`` is known);
        it is then polled on the client's thread pool, and the handle's result
        is the tool's final result.  ``timeout`` bounds the whole task (None:
        ``request_timeout``; 0: none); when it runs out, or the handle is
        cancelled, ``tasks/cancel`` is sent.  A server that answers at once
        instead of making a task (a 2026-07-28 server may) gives a handle that
        is already done, with an empty ``task_id``.

        Raises:
            MCPClientError: the server does not run tasks (a 2025-11-25 server
                declaring ``tasks.requests.tools.call``, or a 2026-07-28 one
                declaring the ``io.modelcontextprotocol/tasks`` extension), or
                bad arguments.
            ProtocolError: the server refused to create the task.
        """
        params = self._tool_params(name, arguments)
        if not self._tasks_possible(timeout, discover=True):
            raise MCPClientError("this server does not run tools as tasks (it declares neither "
                                 "the 2025-11-25 tasks.requests.tools.call capability nor the "
                                 "io.modelcontextprotocol/tasks extension)")
        budget = self._connection.budget(timeout)
        deadline = deadline_for(budget)
        if self._era_info().era == "legacy":
            send = self._task_send(False)
            created = create_task(send, params, timeout=budget, cancelled=None)
            if "result" in created:
                return _done(created["result"])

            def wait(handle: TaskHandle) -> dict[str, Any]:
                return wait_task(send, created, timeout=budget, deadline=deadline,
                                 cancelled=handle.stop, on_status=handle.seen)
        else:
            created = self._call(params, timeout=timeout, cancelled=None, tasks=True)
            if created.get("resultType") != "task":
                return _done(created)
            created = checked_task({k: v for k, v in created.items() if k != "resultType"},
                                   "tools/call")   # what the handle shows
            send = self._task_send(True)

            def wait(handle: TaskHandle) -> dict[str, Any]:
                return wait_modern(send, self._answer_inputs, created, timeout=budget,
                                   deadline=deadline, cancelled=handle.stop,
                                   on_status=handle.seen,
                                   max_rounds=self._opts["max_input_rounds"])

        from ._taskhandle import TaskHandle   # concurrent.futures: on first use

        handle = TaskHandle(created)
        self._handles.add(handle)
        self._connection.submit(_poll, handle, wait, lambda: self._tasks_closing)
        return handle

    def _stop_handles(self) -> None:
        """For close(): wake every polling handle, before the connection closes.

        A poller waits up to ``POLL_BOUNDS[1]`` seconds between polls; woken,
        it would send ``tasks/cancel``, so task requests are refused first (the
        task is the server's to keep: closing this client does not end it),
        and the handle fails with :class:`TransportClosed`, as a call would.
        """
        self._tasks_closing = True
        self._tasks_stopped.set()
        for handle in list(self._handles):
            handle.stop.set()

    def _task_send(self, tasks: bool) -> Send:
        """The runner's ``send``: the connection's request (``tasks``: declaring the extension)."""
        connection = self._connection

        def send(method: str, body: dict[str, Any], budget: float | None,
                 signal: Any) -> dict[str, Any]:
            if self._tasks_closing:
                raise TransportClosed()
            return connection.request(method, body, timeout=budget, cancelled=signal,
                                      tasks=tasks)

        return send

    def _answer_inputs(self, requests: dict[str, Any]) -> dict[str, Any]:
        return self._connection.answer_inputs("tools/call", requests)

    def _on_task_status(self, task: dict[str, Any]) -> None:
        log.debug("task %s: %s%s", task.get("taskId"), task.get("status"), said(task))
        hook = self._opts["on_task_status"]
        if hook is not None:
            hook(task)   # the runner's tell() reports a hook that raises

    def _task_outcome(self, params: dict[str, Any]) -> Any:
        """:meth:`_run_task` for the bridge's batches: an exception is returned."""
        try:
            return self._run_task(params, timeout=None, cancelled=None)
        except Exception as exc:
            return exc


def _done(result: Mapping[str, Any]) -> TaskHandle:
    """The handle of a call the server answered at once: already done."""
    from ._taskhandle import TaskHandle   # concurrent.futures: on first use

    handle = TaskHandle({"taskId": "", "status": "completed"})
    handle.settle(dict(result), None)
    return handle


def _poll(handle: TaskHandle, wait: Callable[[TaskHandle], dict[str, Any]],
          closing: Callable[[], bool]) -> None:
    """Poll a handle's task to its end, on a pool thread."""
    try:
        result = wait(handle)
    except BaseException as exc:
        # woken by close(), not by handle.cancel(): the call's end is the connection's
        handle.settle(None, TransportClosed() if isinstance(exc, Cancelled) and closing()
                      else exc)
        return
    handle.settle(result, None)
