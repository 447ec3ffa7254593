"""The handle of a tool running as a task (:meth:`Client.call_tool_task`).

Apart from the rest of the task code because it is a
:class:`concurrent.futures.Future`: that module is imported on first use, not
by ``import mcp_client``.
"""

from __future__ import annotations

import threading
from concurrent.futures import Future
from typing import Any

__all__ = ["TaskHandle"]


class TaskHandle(Future):  # type: ignore[type-arg]
    """A tool running as a task on the server: a :class:`~concurrent.futures.Future`
    of its final result (what :meth:`Client.call_tool` would return).

    Attributes:
        task_id: the server's id for the task.
        status: the latest status seen (``working``, ``input_required``,
            ``completed``, ``failed``, ``cancelled``).
        task: the latest task object the server sent (a copy).

    :meth:`cancel` cancels the task on the server too (``tasks/cancel``), even
    while it runs; a task the server finishes first is not cancelled.
    """

    def __init__(self, task: dict[str, Any]) -> None:
        super().__init__()
        self.task_id: str = task["taskId"]
        self.status: str = task["status"]
        self.task = dict(task)
        self.stop = threading.Event()   # what the polling loop watches

    def __repr__(self) -> str:
        return f"<TaskHandle {self.task_id} {self.status} done={self.done()}>"

    def cancel(self) -> bool:
        """Cancel the task here and on the server; False once it has finished."""
        cancelled = super().cancel()
        if cancelled:
            self.stop.set()
        return cancelled

    def seen(self, task: dict[str, Any]) -> None:
        """A status from the server (the polling loop's callback)."""
        self.task, self.status = dict(task), str(task["status"])

    def settle(self, result: Any, exc: BaseException | None) -> None:
        """The loop's end; dropped when the handle was cancelled meanwhile."""
        if self.cancelled():
            return
        if exc is not None:
            self.set_exception(exc)
        else:
            self.set_result(result)
