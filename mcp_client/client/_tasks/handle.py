"""The handle of a tool running as a task (:meth:`Client.call_tool_task`).

Apart from the rest of the task code because it is a
:class:`concurrent.futures.Future`: that module is imported on first use, not
by ``import mcp_client``.
"""

from __future__ import annotations

import threading
from concurrent.futures import CancelledError, Future
from typing import Any

from ...exceptions import Cancelled

__all__ = ["TaskHandle", "TaskCancelled"]


class TaskCancelled(Cancelled, CancelledError):
    """A cancelled :class:`TaskHandle`'s ``result()``: the library's
    :class:`~mcp_client.exceptions.Cancelled`, and still the
    :class:`concurrent.futures.CancelledError` that futures code expects."""


class TaskHandle(Future):  # type: ignore[type-arg]
    """A tool running as a task on the server: a :class:`~concurrent.futures.Future`
    of its final result (what :meth:`Client.call_tool` would return).

    Attributes:
        task_id: the server's id for the task.
        status: the latest status seen (``working``, ``input_required``,
            ``completed``, ``failed``, ``cancelled``).
        task: the latest task object the server sent (a copy).
        tool: the tool the task runs (None: a task resumed without a store,
            whose tool this process cannot know).

    :meth:`cancel` cancels the task on the server too (``tasks/cancel``), even
    while it runs; a task the server finishes first is not cancelled.  Once
    cancelled, ``status`` is ``"cancelled"`` and :meth:`result` and
    :meth:`exception` raise :class:`~mcp_client.exceptions.Cancelled` (which
    is also a :class:`concurrent.futures.CancelledError`).
    """

    def __init__(self, task: dict[str, Any], *, tool: str | None = None) -> None:
        super().__init__()
        self.tool = tool
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
            self.status = "cancelled"
            self.stop.set()
        return cancelled

    def result(self, timeout: float | None = None) -> Any:
        """The task's final result (see :meth:`concurrent.futures.Future.result`).

        Raises:
            Cancelled: the handle was cancelled.
        """
        try:
            return super().result(timeout)
        except CancelledError as exc:
            raise self._cancelled(exc) from None

    def exception(self, timeout: float | None = None) -> BaseException | None:
        """The task's exception, or None (see :meth:`concurrent.futures.Future.exception`).

        Raises:
            Cancelled: the handle was cancelled.
        """
        try:
            return super().exception(timeout)
        except CancelledError as exc:
            raise self._cancelled(exc) from None

    @staticmethod
    def _cancelled(exc: CancelledError) -> CancelledError:
        return exc if isinstance(exc, Cancelled) else TaskCancelled("tools/call")

    def seen(self, task: dict[str, Any]) -> None:
        """A status from the server (the polling loop's callback)."""
        if self.cancelled():   # what a poll in flight brought back no longer counts
            return
        self.task, self.status = dict(task), str(task["status"])

    def settle(self, result: Any, exc: BaseException | None) -> None:
        """The loop's end; dropped when the handle was cancelled meanwhile."""
        if self.cancelled():
            return
        if exc is not None:
            self.set_exception(exc)
        else:
            self.set_result(result)
