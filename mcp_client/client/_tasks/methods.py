"""The client's task methods: starting a tool as a task, and resuming one.

:class:`TaskMethods` is a mixin of :class:`~mcp_client.client.Client` (like
:class:`~mcp_client.client._extras.Extras`): methods over the client's
``_tasks`` (:class:`~.calls.Tasks`) and ``_connection``, no state of its own.
Recording a task in a store, and finding it there again, is :mod:`.durable`.
"""

from __future__ import annotations

from collections.abc import Mapping

from ...exceptions import InvalidArgument
from .._params import tool_params
from .durable import Recorder, digest, recorded, server_identity

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ...store import Store
    from .._connection import Connection
    from .calls import Tasks
    from .handle import TaskHandle

__all__ = ["TaskMethods"]


class TaskMethods:
    """Mixin: ``call_tool_task`` and ``resume_task``."""

    _connection: Connection
    _tasks: Tasks

    def call_tool_task(self, name: str, arguments: Mapping[str, Any] | None = None, *,
                       timeout: float | None = None,
                       store: Store | None = None) -> TaskHandle:
        """Start a tool as a task and return its handle at once.

        The task is created before this returns (its ``task_id`` is known);
        it is then polled on the client's thread pool, and the handle's result
        is the tool's final result.  ``timeout`` bounds the whole task (None:
        ``request_timeout``; 0: none); when it runs out, or the handle is
        cancelled, ``tasks/cancel`` is sent.  A server that answers at once
        instead of making a task (a 2026-07-28 server may) gives a handle that
        is already done, with an empty ``task_id`` (and nothing is recorded).

        With a ``store`` (:class:`mcp_client.store.Store`) the task is recorded
        there before this returns -- the server (see
        :mod:`mcp_client.client._tasks.durable` for how it is named), the task
        id, the tool, a digest of the arguments, the status -- and its status
        is updated each time polling sees it change, so that another process
        can :meth:`resume_task` it.  A store that cannot record it raises, and
        the task is cancelled on the server; a status update that fails later
        is logged and the task goes on.

        Raises:
            MCPClientError: the server does not run tasks (a 2025-11-25 server
                declaring ``tasks.requests.tools.call``, or a 2026-07-28 one
                declaring the ``io.modelcontextprotocol/tasks`` extension), or
                bad arguments, or (with a store) a transport that cannot name
                its server.
            ProtocolError: the server refused to create the task.
            ~mcp_client.exceptions.StoreError: the store could not record the task.
        """
        params = tool_params(name, arguments)
        recorder = None
        if store is not None:
            recorder = Recorder(store, server_identity(self._connection.transport),
                                params["name"], digest(params.get("arguments")))
        return self._tasks.start(params, timeout=timeout, recorder=recorder)

    def resume_task(self, task_id: str, *, store: Store | None = None,
                    timeout: float | None = None) -> TaskHandle:
        """Go on polling a task this server runs, started by another client or process
        (one that exited or restarted), and return its handle.

        The server is asked about the task (``tasks/get``) before this
        returns; the task is then polled as :meth:`call_tool_task` polls,
        input it asks for going through this client's hooks, and the handle's
        result is the tool's final result.  ``timeout`` bounds the polling
        from now (None: ``request_timeout``; 0: none).

        Without a store, the server's word is all there is: the handle's
        ``tool`` is None.  With a ``store``, the task must be recorded there
        (by :meth:`call_tool_task` with a store) as started on this client's
        server; the record gives the handle its ``tool``, and its status is
        updated as polling sees it change.

        Raises:
            TaskNotResumable: (with a store) it has no record of the task, or
                only one on another server; nothing was sent.
            ProtocolError: the server does not know the task (its JSON-RPC error).
            MCPClientError: the server does not run tasks, a bad ``task_id``, or
                (with a store) a transport that cannot name its server.
            ~mcp_client.exceptions.StoreError: the store failed.
        """
        if not isinstance(task_id, str) or not task_id:
            raise InvalidArgument("task_id", task_id, "must be a non-empty string")
        if store is None:
            return self._tasks.resume(task_id, timeout=timeout)
        record = recorded(store, task_id, server_identity(self._connection.transport))
        return self._tasks.resume(task_id, timeout=timeout, tool=record.tool,
                                  recorder=Recorder.resuming(store, record))
