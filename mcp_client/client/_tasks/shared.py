"""What the task wires of both eras share: pausing between polls, and giving up.

A task's poll loop (:mod:`.capability_2025_11_25`, :mod:`.extension_2026_07_28`)
waits between polls, bounds each request about the task by what is left of
the whole task's budget, and sends ``tasks/cancel`` when that budget runs out
or the caller cancels.  Both wires spell those the same way.  Like them, this
owns no thread and no state: everything goes through the ``send`` callable it
is given (the connection's request).

A tool whose ``execution.taskSupport`` is ``"required"`` (:func:`needs_task`)
can only be called as a task, in either era.
"""

from __future__ import annotations

import time

from ..._log import get_logger
from ...exceptions import Cancelled, MCPClientError, Timeout
from .._cancel import pause

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Mapping

    #: ``send(method, params, timeout, cancelled)`` -> the result (it may raise).
    Send = Callable[[str, dict[str, Any], "float | None", Any], dict[str, Any]]

__all__ = ["needs_task", "wait_or_stop", "guarded", "give_up", "said", "tell", "deadline_for",
           "POLL_BOUNDS"]

log = get_logger(__name__)

#: The poll interval is kept within these seconds, whatever the server says.
POLL_BOUNDS = (0.05, 10.0)


def needs_task(tool: Mapping[str, Any] | None) -> bool:
    """Whether a tool can only be run as a task (``execution.taskSupport: "required"``)."""
    execution = tool.get("execution") if tool is not None else None
    return isinstance(execution, dict) and execution.get("taskSupport") == "required"


def wait_or_stop(send: Send, task_id: str, wait: float, deadline: float | None,
                 timeout: float | None, cancelled: Any) -> None:
    """Wait ``wait`` seconds before the next poll, or stop the task if its budget ends first.

    Raises:
        Timeout: the deadline comes before the poll would (``tasks/cancel`` was sent).
        Cancelled: ``cancelled`` fired meanwhile (``tasks/cancel`` was sent).
    """
    left = _left(deadline)
    if left is not None and left <= wait:
        if left > 0:
            _pause(send, task_id, left, cancelled)
        give_up(send, task_id)
        raise Timeout("tools/call", timeout or 0.0)
    if wait > 0:
        _pause(send, task_id, wait, cancelled)


def guarded(send: Send, method: str, task_id: str, deadline: float | None,
            cancelled: Any, extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """One request about the task (``{"taskId", **extra}``); the task is cancelled if
    the request times out or is cancelled."""
    left = _left(deadline)
    if left is None:   # no budget: tasks/result waits for the end, tasks/get is short
        budget = 0.0 if method == "tasks/result" else None
    else:
        budget = max(left, 0.001)
    try:
        return send(method, {"taskId": task_id, **(extra or {})}, budget, cancelled)
    except (Timeout, Cancelled):
        give_up(send, task_id)
        raise


def _pause(send: Send, task_id: str, seconds: float, cancelled: Any) -> None:
    try:
        pause(seconds, cancelled, "tools/call")
    except Cancelled:
        give_up(send, task_id)
        raise


def give_up(send: Send, task_id: str) -> None:
    """Best effort ``tasks/cancel``: the caller is told why it stopped whatever the answer."""
    try:
        send("tasks/cancel", {"taskId": task_id}, 5.0, None)
    except MCPClientError as exc:
        log.debug("tasks/cancel for %s failed: %s", task_id, exc)


def _left(deadline: float | None) -> float | None:
    return None if deadline is None else deadline - time.monotonic()


def said(task: Mapping[str, Any]) -> str:
    """``": <statusMessage>"``, or nothing."""
    message = task.get("statusMessage")
    return f": {message}" if isinstance(message, str) and message else ""


def tell(on_status: Callable[[dict[str, Any]], None] | None, task: dict[str, Any]) -> None:
    """Give ``on_status`` a copy of ``task``; a callback that raises is logged."""
    if on_status is None:
        return
    try:
        on_status(dict(task))
    except Exception as exc:   # a display callback must not end the task
        log.warning("a task status callback raised %r", exc)


def deadline_for(budget: float | None) -> float | None:
    """The ``time.monotonic()`` instant a budget of ``budget`` seconds ends (None: none)."""
    return None if budget is None else time.monotonic() + budget
