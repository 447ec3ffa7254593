"""Tools run as tasks on a 2026-07-28 server: the ``io.modelcontextprotocol/tasks`` extension.

SEP-2663 moves 2025-11-25's experimental tasks into an extension, and changes
the wire (:mod:`.capability_2025_11_25` speaks the old one):

* the client declares the extension in a request's capabilities
  (``_meta["io.modelcontextprotocol/clientCapabilities"].extensions``); the
  server alone decides whether a ``tools/call`` becomes a task, and answers
  either the plain result or a flat ``CreateTaskResult``
  (``{"resultType": "task", "taskId", "status", "ttlMs", "pollIntervalMs"?, ...}``);
* ``tasks/get`` is polled at ``pollIntervalMs``; a terminal task carries its
  ``result`` (``completed``, a tool error included) or its JSON-RPC ``error``
  (``failed``) inline -- there is no ``tasks/result``;
* an ``input_required`` task lists ``inputRequests`` (keys unique over the
  task's life); the hooks' answers go back with ``tasks/update`` and its
  empty acknowledgement, and a key is answered once however often it is seen;
* ``tasks/cancel`` is acknowledged with an empty result (cancellation is
  cooperative), and ``notifications/cancelled`` is never used for a task;
* a server that cannot serve a client that did not declare the extension
  answers ``-32021`` naming it in ``data.requiredCapabilities``.

Every ``tasks/*`` request declares the extension too (servers refuse them
otherwise).  Like :mod:`.capability_2025_11_25`, this owns no thread and no state: it drives
the ``send`` and ``answer`` callables it is given, so the state machine's
edges are tested with a scripted transport.
"""

from __future__ import annotations

from ... import protocol
from ...exceptions import InputLoopExceeded, MCPClientError, ProtocolError
from .shared import POLL_BOUNDS, give_up, guarded, said, tell, wait_or_stop

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Mapping

    from .shared import Send

    #: ``answer(inputRequests) -> inputResponses`` (the hooks; may raise ProtocolError).
    Answer = Callable[[dict[str, Any]], dict[str, Any]]

__all__ = ["EXTENSION", "declares_tasks", "with_tasks", "asks_for_tasks", "wait_modern",
           "checked_task", "DEFAULT_POLL_MS"]

EXTENSION = protocol.TASKS_EXTENSION
#: Milliseconds between polls when the server suggests no ``pollIntervalMs``.
DEFAULT_POLL_MS = 1000
_TERMINAL = ("completed", "failed", "cancelled")
_STATUSES = ("working", "input_required") + _TERMINAL


def declares_tasks(capabilities: Mapping[str, Any]) -> bool:
    """Whether ``capabilities`` (a client's or a server's) declare the tasks extension."""
    extensions = capabilities.get("extensions")
    return isinstance(extensions, dict) and isinstance(extensions.get(EXTENSION), dict)


def with_tasks(capabilities: Mapping[str, Any]) -> dict[str, Any]:
    """``capabilities`` with the tasks extension declared (no settings are defined)."""
    extensions = capabilities.get("extensions")
    extensions = dict(extensions) if isinstance(extensions, dict) else {}
    extensions[EXTENSION] = {}
    return {**capabilities, "extensions": extensions}


def asks_for_tasks(error: ProtocolError) -> bool:
    """Whether an error is the server saying a call needs the tasks extension.

    That is ``-32021`` (missing required client capability, 2026-07-28
    basic/index) whose ``data.requiredCapabilities`` names the extension
    (SEP-2663 "Capability Negotiation").
    """
    if error.code != protocol.MISSING_CAPABILITY or not isinstance(error.data, dict):
        return False
    required = error.data.get("requiredCapabilities")
    return isinstance(required, dict) and declares_tasks(required)


def checked_task(task: Any, method: str) -> dict[str, Any]:
    """``task`` if it is one (a non-empty ``taskId``, a known ``status``), else ProtocolError."""
    if not isinstance(task, dict) or not isinstance(task.get("taskId"), str) or \
            not task["taskId"]:
        raise ProtocolError(None, f"{method}: the answer is not a task (no taskId)", task,
                            method=method)
    if task.get("status") not in _STATUSES:
        raise ProtocolError(None, f"task {task['taskId']} has an unknown status "
                            f"{task.get('status')!r}", method=method)
    return task


def wait_modern(send: Send, answer: Answer, task: Mapping[str, Any], *, timeout: float | None,
                deadline: float | None, cancelled: Any,
                on_status: Callable[[dict[str, Any]], None] | None = None,
                max_rounds: int = 8) -> dict[str, Any]:
    """Drive a task from its ``CreateTaskResult`` to its end and return the tool's result.

    Args:
        send: the connection's request (declaring the extension).
        answer: the hooks, for one round of ``inputRequests``.
        task: the ``CreateTaskResult``.
        timeout: the whole task's budget in seconds (for the Timeout's message).
        deadline: the ``time.monotonic()`` instant the budget ends (None: none).
        cancelled: an Event or Future; when it fires the task is cancelled.
        on_status: told every task status seen.
        max_rounds: how many rounds of input the task may ask for.

    Raises:
        Timeout: the budget ran out (``tasks/cancel`` was sent).
        Cancelled: ``cancelled`` fired (``tasks/cancel`` was sent).
        InputLoopExceeded: the task asked for input more than ``max_rounds`` times
            (``tasks/cancel`` was sent).
        ProtocolError: the task failed (the server's JSON-RPC error), the server
            cancelled it, a hook's answer cannot be sent (a declined sampling
            request: ``tasks/cancel`` was sent), or the server sent something
            that is not a task.
    """
    first = checked_task({k: v for k, v in task.items() if k != "resultType"}, "tools/call")
    task_id = first["taskId"]
    tell(on_status, dict(first))
    # the CreateTaskResult carries no result, error or inputRequests: a task that
    # is not working is asked about at once
    wait = _interval(first) if first["status"] == "working" else 0.0
    answered: set[str] = set()
    rounds = 0
    while True:
        wait_or_stop(send, task_id, wait, deadline, timeout, cancelled)
        current = checked_task(guarded(send, "tasks/get", task_id, deadline, cancelled),
                               "tasks/get")
        if current["taskId"] != task_id:
            raise ProtocolError(None, f"tasks/get for {task_id} answered about task "
                                f"{current['taskId']}", method="tasks/get")
        tell(on_status, dict(current))
        if current["status"] in _TERMINAL:
            return _outcome(current)
        wait = _interval(current)
        fresh = _fresh(current, answered)
        if fresh:
            if rounds >= max_rounds:
                give_up(send, task_id)
                raise InputLoopExceeded("tools/call", rounds)
            rounds += 1
            _update(send, answer, task_id, fresh, deadline, cancelled)
            answered.update(fresh)


def _fresh(task: Mapping[str, Any], answered: set[str]) -> dict[str, Any]:
    """The input requests of an ``input_required`` task not answered yet (SEP-2663:
    a key is unique over the task's life, and polls repeat the outstanding ones)."""
    if task["status"] != "input_required":
        return {}
    requests = task.get("inputRequests")
    if not isinstance(requests, dict):
        raise ProtocolError(None, f"task {task['taskId']} is input_required without an "
                            "inputRequests object", method="tasks/get")
    return {key: value for key, value in requests.items() if key not in answered}


def _update(send: Send, answer: Answer, task_id: str, requests: dict[str, Any],
            deadline: float | None, cancelled: Any) -> None:
    """Answer one round through the hooks and deliver it with ``tasks/update``."""
    try:
        responses = answer(requests)
    except MCPClientError:   # a declined sampling request: the task cannot go on
        give_up(send, task_id)
        raise
    guarded(send, "tasks/update", task_id, deadline, cancelled, {"inputResponses": responses})


def _outcome(task: Mapping[str, Any]) -> dict[str, Any]:
    """A terminal task's result, or the error it stands for."""
    task_id, status = task["taskId"], task["status"]
    if status == "cancelled":
        raise ProtocolError(None, f"the server cancelled task {task_id}" + said(task),
                            method="tools/call")
    if status == "failed":
        error = task.get("error")
        if not isinstance(error, dict):
            raise ProtocolError(None, f"task {task_id} failed" + (said(task) or
                                " (the server sent no error)"), method="tools/call")
        failure = protocol.error_from({"error": error}, "tools/call")
        raise ProtocolError(failure.code, f"task {task_id} failed: {failure.message}",
                            failure.data, method="tools/call")
    result = task.get("result")
    if not isinstance(result, dict):
        raise ProtocolError(None, f"task {task_id} completed without a result object",
                            method="tasks/get")
    return protocol.shape_result("tools/call", result).body


def _interval(task: Mapping[str, Any]) -> float:
    """The poll interval in seconds: ``pollIntervalMs``, kept within ``POLL_BOUNDS``."""
    found = task.get("pollIntervalMs", DEFAULT_POLL_MS)
    interval = float(found) if isinstance(found, (int, float)) and \
        not isinstance(found, bool) and found > 0 else float(DEFAULT_POLL_MS)
    return min(max(interval / 1000, POLL_BOUNDS[0]), POLL_BOUNDS[1])
