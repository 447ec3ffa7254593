"""Tasks that outlive their process: recording them in a store, and finding them again.

``call_tool_task(..., store=store)`` keeps a
:class:`~mcp_client.store.TaskRecord` of the task it started -- the server,
the task id, the tool, a digest of the arguments and the status -- and updates
the status each time polling sees it change (:class:`Recorder`).  A later
process, connected to the same server, finds the record with
:func:`recorded` and resumes polling the task
(:meth:`Client.resume_task <mcp_client.client.Client.resume_task>`).

The server's identity (:func:`server_identity`) is how the client names the
server it talks to, the same in every process that reaches that server the
same way:

* over HTTP (Streamable HTTP or HTTP+SSE): the endpoint's URL with its
  userinfo, query values and fragment hidden (:func:`mcp_client._redact.redact_url`:
  ``https://***@host/mcp?token=***``), so no secret is written to the store
  and two clients holding different tokens for one server agree;
* over stdio: ``stdio:`` and the command line, quoted as a shell would
  (``stdio:python server.py --http 0``); its environment and working
  directory are not part of it, so keep secrets out of the arguments;
* any other transport: its ``server_identity`` attribute, a string, if it
  has one; else the client refuses to record or resume (no guess that could
  take one server's task for another's).

What the client needs of a store is :class:`TaskStore` (``now``,
``put_task``, ``get_task``): every :class:`mcp_client.store.Store` is one.
"""

from __future__ import annotations

import hashlib
import json
import shlex

from ..._log import get_logger
from ..._redact import redact_url
from ...exceptions import MCPClientError, StoreError, TaskNotResumable

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Mapping, Protocol

    from ...store import TaskRecord
    from ...transport import Transport

    class TaskStore(Protocol):
        """What a client needs of a store to record and resume tasks."""

        def now(self) -> float: ...

        def put_task(self, record: TaskRecord) -> None: ...

        def get_task(self, task_id: str, server: str | None = None) -> TaskRecord | None: ...

__all__ = ["server_identity", "digest", "Recorder", "recorded"]

log = get_logger(__name__)

_TERMINAL = ("completed", "failed", "cancelled")


def server_identity(transport: Transport) -> str:
    """How the task records name the server behind ``transport`` (see the module).

    Raises:
        MCPClientError: the transport cannot name its server.
    """
    named = getattr(transport, "server_identity", None)
    if isinstance(named, str) and named:
        return named
    url = getattr(transport, "url", None)
    if isinstance(url, str) and url:
        return redact_url(url)
    argv = getattr(transport, "argv", None)
    if isinstance(argv, list) and argv and all(isinstance(arg, str) for arg in argv):
        return "stdio:" + shlex.join(argv)
    raise MCPClientError(f"{type(transport).__name__} cannot name its server, so its tasks "
                         "cannot be recorded or resumed (a transport may say with a "
                         "server_identity attribute)")


def digest(arguments: Mapping[str, Any] | None) -> str:
    """The SHA-256 (hex) of the arguments' canonical JSON: sorted keys, no spaces, UTF-8."""
    text = json.dumps(dict(arguments or {}), sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def recorded(store: TaskStore, task_id: str, server: str) -> TaskRecord:
    """The store's record of ``task_id`` on ``server``.

    Raises:
        TaskNotResumable: no record of it, or only on another server.
        StoreError: the store failed.
    """
    record = store.get_task(task_id, server)
    if record is not None:
        return record
    other = store.get_task(task_id)
    if other is not None:
        raise TaskNotResumable(task_id, "other_server", server, other.server)
    raise TaskNotResumable(task_id, "unknown", server)


class Recorder:
    """Keeps one task's record up to date: written when the task is made (or resumed),
    then once for each status change polling sees.

    Args:
        store: where the record lives.
        server: :func:`server_identity` of the client's server.
        tool: the tool the task runs.
        arguments_digest: :func:`digest` of its arguments.
    """

    def __init__(self, store: TaskStore, server: str, tool: str,
                 arguments_digest: str) -> None:
        self.store = store
        self.server = server
        self.tool = tool
        self.digest = arguments_digest
        self.task_id = ""
        self.status: str | None = None   # the status last written

    def __repr__(self) -> str:
        return f"<Recorder {self.task_id or '-'} {self.status} on {self.server}>"

    @classmethod
    def resuming(cls, store: TaskStore, record: TaskRecord) -> Recorder:
        """The recorder of a task found in ``store``: its status is written as it changes."""
        recorder = cls(store, record.server, record.tool, record.digest)
        recorder.task_id, recorder.status = record.task_id, record.status
        return recorder

    def first(self, task: Mapping[str, Any]) -> None:
        """Write the record of a task just made (``task``: its ``taskId`` and ``status``).

        Raises:
            StoreError: the store failed (the caller decides what becomes of the task).
        """
        self.task_id = str(task["taskId"])
        self._put(str(task["status"]))

    def seen(self, task: Mapping[str, Any]) -> None:
        """A status polling saw: written when it changed.  A store that fails is logged:
        the task goes on, and its record keeps the status before."""
        status = task.get("status")
        if isinstance(status, str) and status != self.status:
            self._quietly(status)

    def finished(self) -> None:
        """The task's result arrived: ``completed``, unless a terminal status was written."""
        if self.status not in _TERMINAL:
            self._quietly("completed")

    def _quietly(self, status: str) -> None:
        try:
            self._put(status)
        except StoreError as exc:
            log.warning("task %s: status %s not recorded: %s", self.task_id, status, exc)

    def _put(self, status: str) -> None:
        from ...store import TaskRecord   # a store was given: its package is loaded

        now = self.store.now()
        self.store.put_task(TaskRecord(self.task_id, self.server, self.tool, self.digest,
                                       status, now, now))
        self.status = status
