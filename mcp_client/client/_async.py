"""The ``*_async`` twins of the client's blocking methods, and the pool they run on.

Each twin runs its blocking method on the client's
:class:`~concurrent.futures.ThreadPoolExecutor` (made on first use, shut down
by ``close()``) and returns the :class:`~concurrent.futures.Future` (API.md
"Client"); ``call_tool_async`` is pipelined where the wire allows
(:mod:`mcp_client.client._flights`).  They live in this mixin so the client module
keeps to the connection itself.
"""

from __future__ import annotations

import os
import threading

from ..exceptions import TransportClosed

TYPE_CHECKING = False
if TYPE_CHECKING:
    from concurrent.futures import Future, ThreadPoolExecutor
    from typing import Any, Callable, Mapping, TypeVar
    R = TypeVar("R")

#: Worker threads for ``*_async`` calls (created on demand).
ASYNC_WORKERS = 64

__all__ = ["AsyncTwins"]


class AsyncTwins:
    """Mixin: ``*_async`` twins over the blocking methods of :class:`~mcp_client.Client`."""

    # Provided by the class this is mixed into.
    list_tools: Callable[..., list[dict[str, Any]]]
    list_resources: Callable[..., list[dict[str, Any]]]
    list_resource_templates: Callable[..., list[dict[str, Any]]]
    list_prompts: Callable[..., list[dict[str, Any]]]
    call_tool: Callable[..., dict[str, Any]]
    read_resource: Callable[..., dict[str, Any]]
    get_prompt: Callable[..., dict[str, Any]]
    ping: Callable[..., bool]
    _state: str
    _state_lock: threading.Lock
    _executor: ThreadPoolExecutor | None

    def _submit(self, fn: Callable[..., R], *args: Any, **kwargs: Any) -> Future[R]:
        self._check_usable()
        with self._state_lock:
            return self._pool().submit(fn, *args, **kwargs)

    def _pool(self) -> ThreadPoolExecutor:
        """The client's thread pool, made on first use (state lock held)."""
        if self._state == "closed":
            raise TransportClosed()
        if self._executor is None:
            from concurrent.futures import ThreadPoolExecutor
            self._executor = ThreadPoolExecutor(
                ASYNC_WORKERS, thread_name_prefix=f"mcp-client-{os.getpid()}")
        return self._executor

    def _batch_executor(self) -> ThreadPoolExecutor | None:
        """The pool a widened batch runs on (its threads outlive the batch).

        None -- the batch starts threads of its own -- when called from one of
        the pool's own threads, where waiting on the pool could deadlock it.
        """
        if threading.current_thread().name.startswith("mcp-client-"):
            return None
        with self._state_lock:
            return None if self._state == "closed" else self._pool()

    def _pipelining(self) -> bool:
        raise NotImplementedError

    def _check_usable(self) -> None:
        raise NotImplementedError

    def _start_call(self, params: dict[str, Any], *, timeout: float | None = None,
                    progress_token: str | int | None = None, tool_call_id: str | None = None,
                    outcome: bool = False) -> Future[Any]:
        raise NotImplementedError

    def _tool_params(self, name: str, arguments: Mapping[str, Any] | None,
                     progress_token: Any = None) -> dict[str, Any]:
        raise NotImplementedError

    @staticmethod
    def _failed(exc: BaseException) -> Future[Any]:
        from concurrent.futures import Future

        future: Future[Any] = Future()
        future.set_exception(exc)
        return future

    def list_tools_async(self, **kwargs: Any) -> Future[list[dict[str, Any]]]:
        """:meth:`list_tools` on the client's thread pool."""
        return self._submit(self.list_tools, **kwargs)

    def list_resources_async(self, **kwargs: Any) -> Future[list[dict[str, Any]]]:
        """:meth:`list_resources` on the client's thread pool."""
        return self._submit(self.list_resources, **kwargs)

    def list_resource_templates_async(self, **kwargs: Any) -> Future[list[dict[str, Any]]]:
        """:meth:`list_resource_templates` on the client's thread pool."""
        return self._submit(self.list_resource_templates, **kwargs)

    def list_prompts_async(self, **kwargs: Any) -> Future[list[dict[str, Any]]]:
        """:meth:`list_prompts` on the client's thread pool."""
        return self._submit(self.list_prompts, **kwargs)

    def call_tool_async(self, name: str, arguments: Mapping[str, Any] | None = None,
                        **kwargs: Any) -> Future[dict[str, Any]]:
        """:meth:`call_tool`, pipelined where it can be, else on the client's thread pool.

        Pipelined (see :mod:`mcp_client.client._flights`): the request is sent before
        this returns and no thread waits for its answer.  Either way, the
        Future's result and exceptions are those of :meth:`call_tool`.
        """
        self._check_usable()   # a closed or dead client raises here, whichever path
        if self._pipelining() and kwargs.keys() <= {"timeout", "progress_token"}:
            try:
                params = self._tool_params(name, arguments, kwargs.get("progress_token"))
            except Exception as exc:
                return self._failed(exc)
            return self._start_call(params, **kwargs)
        return self._submit(self.call_tool, name, arguments, **kwargs)

    def read_resource_async(self, uri: str, **kwargs: Any) -> Future[dict[str, Any]]:
        """:meth:`read_resource` on the client's thread pool."""
        return self._submit(self.read_resource, uri, **kwargs)

    def get_prompt_async(self, name: str, arguments: Mapping[str, Any] | None = None,
                         **kwargs: Any) -> Future[dict[str, Any]]:
        """:meth:`get_prompt` on the client's thread pool."""
        return self._submit(self.get_prompt, name, arguments, **kwargs)

    def ping_async(self, **kwargs: Any) -> Future[bool]:
        """:meth:`ping` on the client's thread pool."""
        return self._submit(self.ping, **kwargs)
