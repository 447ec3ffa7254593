"""Tools run as tasks on a 2025-11-25 server: the experimental ``tasks`` capability.

2025-11-25 (basic/utilities/tasks, experimental, in core): a server that
declares ``tasks.requests.tools.call`` runs a tool whose
``execution.taskSupport`` is ``"required"`` only when the ``tools/call`` carries
a ``task`` field; it answers at once with a ``CreateTaskResult``
(``{"task": {"taskId", "status", "pollInterval"?, ...}}``) and runs the tool on
its own.  :func:`run_task` drives one such task to its end: it polls
``tasks/get`` at the server's ``pollInterval``, fetches the outcome with
``tasks/result`` once the task is terminal or asks for input (the server then
sends its ``elicitation/create`` or ``sampling`` requests, answered by the
client's hooks as any other), and sends ``tasks/cancel`` when the caller's
budget runs out or ``cancelled`` fires.

It owns no thread and no state: everything goes through the ``send``
callable it is given (the connection's request), so the state machine's
edges are tested with a scripted transport.  The 2026-07-28 extension is
:mod:`.extension_2026_07_28`; which calls run as tasks, and
:class:`~.handle.TaskHandle`'s polling, are :mod:`.calls`.
"""

from __future__ import annotations

import time

from ...exceptions import ProtocolError
from .shared import POLL_BOUNDS, guarded, said, tell, wait_or_stop

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Mapping

    from .shared import Send

__all__ = ["run_task", "create_task", "wait_task", "server_runs_tasks", "DEFAULT_POLL",
           "TASK_TTL_MS"]

#: Seconds between polls when the server suggests no ``pollInterval``.
DEFAULT_POLL = 1.0
#: The ``ttl`` asked for (milliseconds): how long the server keeps the task's result.
TASK_TTL_MS = 300_000
_TERMINAL = ("completed", "failed", "cancelled")
_STATUSES = ("working", "input_required") + _TERMINAL


def server_runs_tasks(capabilities: Mapping[str, Any]) -> bool:
    """Whether the server declares task-augmented ``tools/call`` (``tasks.requests.tools.call``)."""
    tasks = capabilities.get("tasks")
    requests = tasks.get("requests") if isinstance(tasks, dict) else None
    tools = requests.get("tools") if isinstance(requests, dict) else None
    return isinstance(tools, dict) and isinstance(tools.get("call"), dict)


def create_task(send: Send, params: Mapping[str, Any], *, timeout: float | None,
                cancelled: Any) -> dict[str, Any]:
    """Send a task-augmented ``tools/call``; the task, or ``{"result": ...}`` if it ran at once."""
    answer = send("tools/call", {**params, "task": {"ttl": TASK_TTL_MS}}, timeout, cancelled)
    task = answer.get("task")
    if task is None and "content" in answer:   # the server ran it as a plain call
        return {"result": answer}
    return _checked(task, "tools/call")


def run_task(send: Send, params: Mapping[str, Any], *, timeout: float | None, cancelled: Any,
             on_status: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:
    """Run one ``tools/call`` as a task and return the tool's final result.

    Args:
        send: the connection's request.
        params: the ``tools/call`` params (``name``, ``arguments``).
        timeout: seconds for the whole task (None: no budget of its own).
        cancelled: an Event or Future; when it fires the task is cancelled.
        on_status: told every task status seen (``{"taskId", "status", ...}``).

    Raises:
        Timeout: the budget ran out (``tasks/cancel`` was sent).
        Cancelled: ``cancelled`` fired (``tasks/cancel`` was sent).
        ProtocolError: the server cancelled the task, answered with an error,
            or sent a task that cannot be read.
    """
    deadline = None if timeout is None else time.monotonic() + timeout
    task = create_task(send, params, timeout=timeout, cancelled=cancelled)
    if "result" in task:
        return dict(task["result"])
    return wait_task(send, task, timeout=timeout, deadline=deadline, cancelled=cancelled,
                     on_status=on_status)


def wait_task(send: Send, task: dict[str, Any], *, timeout: float | None,
              deadline: float | None, cancelled: Any,
              on_status: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:
    """Poll ``task`` to its end (``deadline``, from a budget of ``timeout`` seconds) and
    return its result; see :func:`run_task`."""
    task_id = task["taskId"]
    while True:
        tell(on_status, task)
        status = task["status"]
        if status == "cancelled":
            raise ProtocolError(None, f"the server cancelled task {task_id}"
                                + said(task), method="tools/call")
        if status in ("completed", "failed", "input_required"):
            # tasks/result waits for the end; meanwhile the server's own requests
            # (input_required) reach the hooks
            return _result(send, task_id, deadline, cancelled)
        wait_or_stop(send, task_id, _poll_interval(task), deadline, timeout, cancelled)
        task = _checked(guarded(send, "tasks/get", task_id, deadline, cancelled), "tasks/get")


def _result(send: Send, task_id: str, deadline: float | None, cancelled: Any) -> dict[str, Any]:
    return dict(guarded(send, "tasks/result", task_id, deadline, cancelled))


def _checked(task: Any, method: str) -> dict[str, Any]:
    if not isinstance(task, dict) or not isinstance(task.get("taskId"), str) or \
            not task["taskId"]:
        raise ProtocolError(None, "the answer is not a task (no taskId)", task, method=method)
    if task.get("status") not in _STATUSES:
        raise ProtocolError(None, f"task {task['taskId']} has an unknown status "
                            f"{task.get('status')!r}", method=method)
    return task


def _poll_interval(task: Mapping[str, Any]) -> float:
    interval = task.get("pollInterval")
    if isinstance(interval, bool) or not isinstance(interval, (int, float)) or interval <= 0:
        return DEFAULT_POLL
    return min(max(interval / 1000, POLL_BOUNDS[0]), POLL_BOUNDS[1])
