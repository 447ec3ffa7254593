"""Which tool calls run as tasks, in either era, and running them for the client.

A :class:`~mcp_client.client.Client` holds one :class:`Tasks`.  A call goes
through the task runner when:

* **2025-11-25** (:mod:`.capability_2025_11_25`): the server declares
  ``tasks.requests.tools.call`` and the tool's ``execution.taskSupport`` is
  ``"required"`` (the catalogue is fetched once to know);
* **2026-07-28** (:mod:`.extension_2026_07_28`): the client declares the
  ``io.modelcontextprotocol/tasks`` extension anyway (the ``tasks`` option: the
  server may then answer any call with a task); or the server declares the
  extension and the tool's ``taskSupport`` is ``"required"``; or the server
  answered a plain call to the tool with ``-32021`` naming the extension
  (the call is sent once more, declaring it, and the tool is remembered).

The runner declares the extension on that one request only (SEP-2663,
per-request capabilities), and returns a plain result as it came: the server
decides whether a task is made.  A tool whose ``taskSupport`` is
``"optional"`` is called plainly unless the client declares the extension.

What it needs of the client is typed, not reached for: the connection, the
client's catalogue (:class:`~mcp_client.client._toolheaders.Catalogue`, whose
``list_tools`` hands each list to :meth:`Tasks.note_tools`) and a
:class:`Caller` that sends a ``tools/call`` (the client's
:class:`~mcp_client.client._toolheaders.ToolHeaders`).
"""

from __future__ import annotations

import threading
import weakref

from ..._log import get_logger
from ...exceptions import Cancelled, MCPClientError, ProtocolError, TransportClosed
from .._cancel import CallStop
from .capability_2025_11_25 import create_task, run_task, server_runs_tasks, wait_task
from .extension_2026_07_28 import asks_for_tasks, checked_task, declares_tasks, wait_modern
from .shared import deadline_for, give_up, needs_task, said

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Mapping, Protocol

    from .._connection import Connection
    from .._era import EraInfo
    from .._toolheaders import Catalogue
    from .durable import Recorder
    from .handle import TaskHandle
    from .shared import Send

    class Caller(Protocol):
        """What sends one ``tools/call`` (``tasks``: declaring the tasks extension)."""

        def call(self, params: dict[str, Any], *, timeout: float | None, cancelled: Any,
                 progress_token: str | int | None = ..., tool_call_id: str | None = ...,
                 tasks: bool = ...) -> dict[str, Any]: ...

__all__ = ["Tasks"]

log = get_logger(__name__)


class Tasks:
    """Which of a client's calls run as tasks, running them, and the handles still polling.

    Args:
        connection: the client's connection.
        catalogue: the client (its ``list_tools``, fetched to know the task-only tools).
        caller: sends a ``tools/call``.
        declared: the client declares the tasks extension on every request.
        max_rounds: the ``max_input_rounds`` option.
        on_status: the ``on_task_status`` option.
    """

    def __init__(self, connection: Connection, *, catalogue: Catalogue, caller: Caller,
                 declared: bool, max_rounds: int,
                 on_status: Callable[[dict[str, Any]], None] | None) -> None:
        self._connection = connection
        self._catalogue = catalogue
        self._caller = caller
        self._declared = declared
        self._max_rounds = max_rounds
        self._hook = on_status
        #: the task-only tool names of the latest ``list_tools()`` (None before one)
        self._task_tools: frozenset[str] | None = None
        #: the tools a modern server asked the extension for
        self._asked: set[str] = set()
        #: ``(era info, its capabilities)`` once they were found to run no task: while the
        #: era is that one, only a name in ``_asked`` needs a second look
        self._taskless: tuple[EraInfo, dict[str, Any]] | None = None
        self._handles: weakref.WeakSet[TaskHandle] = weakref.WeakSet()   # still polling
        self._stops: weakref.WeakSet[CallStop] = weakref.WeakSet()   # bridge calls' runs
        self._closing = False                  # close() began: task requests are not sent
        self._stopped = threading.Event()      # set with _closing: wakes a paused runner

    def __repr__(self) -> str:
        state = "closing" if self._closing else "open"
        return f"<Tasks {state} polling={len(self._handles)}>"

    def _era_info(self, timeout: float | None = None, cancelled: Any = None) -> EraInfo:
        connection = self._connection
        return connection.era_info or connection.ensure_era(connection.budget(timeout),
                                                            cancelled, "tools/call")

    def possible(self, timeout: float | None = None, cancelled: Any = None, *,
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

    def runnable(self, tools: list[Any]) -> list[Any]:
        """``tools`` without those this client cannot run: a tool that can only be
        called as a task, where this client runs none."""
        if self.possible():
            return tools
        return [tool for tool in tools if not needs_task(tool)]

    def task_tool(self, name: str, timeout: float | None = None,
                  cancelled: Any = None) -> bool:
        """Whether a call to ``name`` goes through the task runner (see the module)."""
        taskless = self._taskless
        if taskless is not None and name not in self._asked:
            info = self._connection.era_info
            if info is taskless[0] and info.capabilities is taskless[1]:
                return False   # every call_tool_async asks: the answer found last time
        if (self._declared or name in self._asked) and \
                self._era_info(timeout, cancelled).era == "modern":
            return True
        if not self.possible(timeout, cancelled):
            # the era alone decided it: in this era only an asked name goes the first way
            info = self._connection.era_info
            if info is not None:
                self._taskless = (info, info.capabilities)
            return False
        if self._task_tools is None:
            self._catalogue.list_tools(timeout=timeout, cancelled=cancelled)
        return name in (self._task_tools or ())

    def note_tools(self, tools: list[dict[str, Any]]) -> None:
        """The client's latest catalogue: which of its tools can only run as tasks."""
        self._task_tools = frozenset(t["name"] for t in tools
                                     if needs_task(t) and isinstance(t.get("name"), str))

    def call(self, params: dict[str, Any], *, timeout: float | None, cancelled: Any,
             progress_token: str | int | None = None,
             tool_call_id: str | None = None) -> dict[str, Any]:
        """One ``tools/call`` as the client makes it: plainly, or through the task runner."""
        name = params["name"]
        if self.task_tool(name, timeout, cancelled):
            return self.run(params, timeout=timeout, cancelled=cancelled,
                            progress_token=progress_token, tool_call_id=tool_call_id)
        try:
            return self._caller.call(params, timeout=timeout, cancelled=cancelled,
                                     progress_token=progress_token, tool_call_id=tool_call_id)
        except ProtocolError as exc:
            if not asks_for_tasks(exc) or self._era_info().era != "modern":
                raise
        log.debug("the server needs the tasks extension for %s; calling again with it", name)
        self._asked.add(name)
        return self.run(params, timeout=timeout, cancelled=cancelled,
                        progress_token=progress_token, tool_call_id=tool_call_id)

    def run(self, params: dict[str, Any], *, timeout: float | None, cancelled: Any,
            progress_token: str | int | None = None,
            tool_call_id: str | None = None) -> dict[str, Any]:
        """Run one call as a task to its end; ``timeout`` bounds the whole task.

        A call given no ``cancelled`` pauses between polls on this object's
        own stop event, so ``close()`` ends it at once, with
        :class:`TransportClosed` as any call cut by close; the task is the
        server's to keep (no ``tasks/cancel``: task requests are refused by then).
        A bridge call's :class:`~.._cancel.CallStop` is set by ``close()`` too;
        set by ``cancel_tool_calls``, it cancels the task (``tasks/cancel``).
        """
        budget = self._connection.budget(timeout)
        signal = self._stopped if cancelled is None else cancelled
        if type(signal) is CallStop:
            self._stops.add(signal)
            if self._closing:
                signal.set()
        try:
            if self._era_info(timeout, cancelled).era == "legacy":
                return run_task(self._send(False), params, timeout=budget,
                                cancelled=signal, on_status=self._on_status)
            deadline = deadline_for(budget)
            created = self._caller.call(params, timeout=timeout, cancelled=cancelled,
                                        progress_token=progress_token,
                                        tool_call_id=tool_call_id, tasks=True)
            if created.get("resultType") != "task":
                return created   # the server ran it at once (or after input rounds)
            return wait_modern(self._send(True), self._answer_inputs, created,
                               timeout=budget, deadline=deadline, cancelled=signal,
                               on_status=self._on_status, max_rounds=self._max_rounds)
        except Cancelled:
            if self._closing and (signal is self._stopped or type(signal) is CallStop):
                raise TransportClosed() from None
            raise

    def outcome(self, params: dict[str, Any], stop: CallStop | None = None) -> Any:
        """:meth:`run` for the bridge's batches (``stop``: the call's): an exception
        is returned."""
        try:
            return self.run(params, timeout=None, cancelled=stop)
        except Exception as exc:
            return exc
        finally:
            if stop is not None:
                stop.finish()

    def start(self, params: dict[str, Any], *, timeout: float | None,
              recorder: Recorder | None = None) -> TaskHandle:
        """:meth:`Client.call_tool_task <mcp_client.client.Client.call_tool_task>`
        for checked ``params``: the task is created (and, with a ``recorder``,
        recorded: a store that fails cancels it) before this returns."""
        self._runs_tasks(timeout)
        budget = self._connection.budget(timeout)
        deadline = deadline_for(budget)
        if self._era_info().era == "legacy":
            send = self._send(False)
            created = create_task(send, params, timeout=budget, cancelled=None)
            if "result" in created:
                return _done(created["result"])
        else:
            send = self._send(True)
            created = self._caller.call(params, timeout=timeout, cancelled=None, tasks=True)
            if created.get("resultType") != "task":
                return _done(created)
            created = checked_task({k: v for k, v in created.items() if k != "resultType"},
                                   "tools/call")   # what the handle shows
        if recorder is not None:
            try:
                recorder.first(created)
            except BaseException:
                give_up(send, created["taskId"])   # nothing runs unrecorded
                raise
        return self._follow(created, send, budget, deadline, params["name"], recorder)

    def resume(self, task_id: str, *, timeout: float | None, tool: str | None = None,
               recorder: Recorder | None = None) -> TaskHandle:
        """:meth:`Client.resume_task <mcp_client.client.Client.resume_task>`: the
        task is asked about (``tasks/get``) before this returns, then polled."""
        self._runs_tasks(timeout)
        budget = self._connection.budget(timeout)
        deadline = deadline_for(budget)
        send = self._send(self._era_info().era != "legacy")
        found = send("tasks/get", {"taskId": task_id}, budget, None)
        current = checked_task({k: v for k, v in found.items() if k != "resultType"},
                               "tasks/get")
        if current["taskId"] != task_id:
            raise ProtocolError(None, f"tasks/get for {task_id} answered about task "
                                f"{current['taskId']}", method="tasks/get")
        if recorder is not None:
            recorder.seen(current)
        return self._follow(current, send, budget, deadline, tool, recorder)

    def _runs_tasks(self, timeout: float | None) -> None:
        if not self.possible(timeout, discover=True):
            raise MCPClientError("this server does not run tools as tasks (it declares neither "
                                 "the 2025-11-25 tasks.requests.tools.call capability nor the "
                                 "io.modelcontextprotocol/tasks extension)")

    def _follow(self, task: dict[str, Any], send: Send, budget: float | None,
                deadline: float | None, tool: str | None,
                recorder: Recorder | None) -> TaskHandle:
        """The handle of ``task``, polled to its end on the client's pool."""
        from .handle import TaskHandle   # concurrent.futures: on first use

        handle = TaskHandle(task, tool=tool)
        seen = handle.seen if recorder is None else _both(handle.seen, recorder.seen)
        legacy = self._era_info().era == "legacy"

        def wait(handle: TaskHandle) -> dict[str, Any]:
            if legacy:
                return wait_task(send, task, timeout=budget, deadline=deadline,
                                 cancelled=handle.stop, on_status=seen)
            return wait_modern(send, self._answer_inputs, task, timeout=budget,
                               deadline=deadline, cancelled=handle.stop,
                               on_status=seen, max_rounds=self._max_rounds)

        self._handles.add(handle)
        self._connection.submit(_poll, handle, wait, lambda: self._closing, recorder)
        return handle

    def stop(self) -> None:
        """For close(): wake every polling handle, before the connection closes.

        A poller waits up to ``POLL_BOUNDS[1]`` seconds between polls; woken,
        it would send ``tasks/cancel``, so task requests are refused first (the
        task is the server's to keep: closing this client does not end it),
        and the handle fails with :class:`TransportClosed`, as a call would.
        """
        self._closing = True
        self._stopped.set()
        for handle in list(self._handles):
            handle.stop.set()
        for stop in list(self._stops):
            stop.set()

    def _send(self, tasks: bool) -> Send:
        """The runner's ``send``: the connection's request (``tasks``: declaring the extension)."""
        connection = self._connection

        def send(method: str, body: dict[str, Any], budget: float | None,
                 signal: Any) -> dict[str, Any]:
            if self._closing:
                raise TransportClosed()
            return connection.request(method, body, timeout=budget, cancelled=signal,
                                      tasks=tasks)

        return send

    def _answer_inputs(self, requests: dict[str, Any]) -> dict[str, Any]:
        return self._connection.answer_inputs("tools/call", requests)

    def _on_status(self, task: dict[str, Any]) -> None:
        log.debug("task %s: %s%s", task.get("taskId"), task.get("status"), said(task))
        if self._hook is not None:
            self._hook(task)   # the runner's tell() reports a hook that raises


def _done(result: Mapping[str, Any]) -> TaskHandle:
    """The handle of a call the server answered at once: already done."""
    from .handle import TaskHandle   # concurrent.futures: on first use

    handle = TaskHandle({"taskId": "", "status": "completed"})
    handle.settle(dict(result), None)
    return handle


def _both(first: Callable[[dict[str, Any]], None],
          then: Callable[[dict[str, Any]], None]) -> Callable[[dict[str, Any]], None]:
    def both(task: dict[str, Any]) -> None:
        first(task)
        then(task)

    return both


def _poll(handle: TaskHandle, wait: Callable[[TaskHandle], dict[str, Any]],
          closing: Callable[[], bool], recorder: Recorder | None = None) -> None:
    """Poll a handle's task to its end, on a pool thread (its record is
    written before the handle is settled)."""
    try:
        result = wait(handle)
    except BaseException as exc:
        # woken by close(), not by handle.cancel(): the call's end is the connection's
        handle.settle(None, TransportClosed() if isinstance(exc, Cancelled) and closing()
                      else exc)
        return
    if recorder is not None:
        recorder.finished()
    handle.settle(result, None)
