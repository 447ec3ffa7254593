"""The ``*_async`` twins of the client's blocking methods.

Each twin runs its blocking method on the connection's
:class:`~concurrent.futures.ThreadPoolExecutor` (made on first use, shut down
by ``close()``) and returns the :class:`~concurrent.futures.Future`;
``call_tool_async`` is pipelined where the wire allows
(:mod:`mcp_client.client._flights`).

:class:`AsyncTwins` is a mixin in the ``collections.abc`` sense: methods over
the blocking methods and two hooks, ``_connection`` and ``_tasks``, which
its class provides (:class:`_Blocking` says exactly what, so that mypy checks
every call).  It holds no state.
"""

from __future__ import annotations

from ._params import tool_params

TYPE_CHECKING = False
if TYPE_CHECKING:
    from concurrent.futures import Future
    from typing import Any, Iterable, Mapping, Protocol

    from ..types import (CallToolResult, Completion, GetPromptResult, Prompt,
                         ReadResourceResult, Resource, ResourceTemplate, Tool)
    from ._connection import Connection
    from ._tasks.calls import Tasks

    # A class body only mypy reads: importing typing at run time is not free.
    class _Blocking(Protocol):
        """What the twins are built over: the blocking methods and the connection."""

        _connection: Connection
        _tasks: Tasks

        def list_tools(self, *, refresh: bool = ..., timeout: float | None = ...,
                       cancelled: Any = ...) -> list[Tool]: ...

        def list_resources(self, *, refresh: bool = ..., timeout: float | None = ...,
                           cancelled: Any = ...) -> list[Resource]: ...

        def list_resource_templates(self, *, refresh: bool = ..., timeout: float | None = ...,
                                    cancelled: Any = ...) -> list[ResourceTemplate]: ...

        def list_prompts(self, *, refresh: bool = ..., timeout: float | None = ...,
                         cancelled: Any = ...) -> list[Prompt]: ...

        def call_tool(self, name: str, arguments: Mapping[str, Any] | None = ..., *,
                      timeout: float | None = ..., cancelled: Any = ...,
                      progress_token: str | int | None = ...,
                      validate: bool = ...,
                      meta: Mapping[str, Any] | None = ...) -> CallToolResult: ...

        def read_resource(self, uri: str, *, refresh: bool = ..., timeout: float | None = ...,
                          cancelled: Any = ...) -> ReadResourceResult: ...

        def get_prompt(self, name: str, arguments: Mapping[str, Any] | None = ..., *,
                       timeout: float | None = ..., cancelled: Any = ...) -> GetPromptResult: ...

        def ping(self, *, timeout: float | None = ...) -> bool: ...

        def request(self, method: str, params: Mapping[str, Any] | None = ..., *,
                    timeout: float | None = ..., cancelled: Any = ...) -> dict[str, Any]: ...

        def set_logging_level(self, level: str, *, timeout: float | None = ...) -> None: ...

        def notify(self, method: str, params: Mapping[str, Any] | None = ...) -> None: ...

        def complete(self, ref: Mapping[str, Any], argument: Mapping[str, Any], *,
                     context: Mapping[str, Any] | None = ..., timeout: float | None = ...,
                     cancelled: Any = ...) -> Completion: ...

        def list_skills(self, *, timeout: float | None = ...,
                        cancelled: Any = ...) -> list[dict[str, Any]]: ...

        def read_skill(self, skill: str | Mapping[str, Any], *,
                       files: bool | Iterable[str] = ..., allow_dynamic: bool = ...,
                       timeout: float | None = ..., cancelled: Any = ...) -> dict[str, Any]: ...

        def read_directory(self, uri: str, *, timeout: float | None = ...,
                           cancelled: Any = ...) -> list[dict[str, Any]]: ...


__all__ = ["AsyncTwins"]


class AsyncTwins:
    """Mixin: ``*_async`` twins over the blocking methods of :class:`~mcp_client.Client`."""

    def list_tools_async(self: _Blocking, **kwargs: Any) -> Future[list[Tool]]:
        """:meth:`list_tools` on the client's thread pool."""
        return self._connection.submit(self.list_tools, **kwargs)

    def list_resources_async(self: _Blocking, **kwargs: Any) -> Future[list[Resource]]:
        """:meth:`list_resources` on the client's thread pool."""
        return self._connection.submit(self.list_resources, **kwargs)

    def list_resource_templates_async(self: _Blocking,
                                      **kwargs: Any) -> Future[list[ResourceTemplate]]:
        """:meth:`list_resource_templates` on the client's thread pool."""
        return self._connection.submit(self.list_resource_templates, **kwargs)

    def list_prompts_async(self: _Blocking, **kwargs: Any) -> Future[list[Prompt]]:
        """:meth:`list_prompts` on the client's thread pool."""
        return self._connection.submit(self.list_prompts, **kwargs)

    def call_tool_async(self: _Blocking, name: str, arguments: Mapping[str, Any] | None = None,
                        **kwargs: Any) -> Future[CallToolResult]:
        """:meth:`call_tool`, pipelined where it can be, else on the client's thread pool.

        Pipelined (see :mod:`mcp_client.client._flights`): the request is sent
        before this returns and no thread waits for its answer.  Either way, the
        Future's result and exceptions are those of :meth:`call_tool`.
        """
        connection = self._connection
        # a closed or dead client raises here, whichever path
        if connection.pipelines_now() and kwargs.keys() <= {"timeout", "progress_token"} and \
                not self._tasks.task_tool(name):
            try:
                params = tool_params(name, arguments, kwargs.get("progress_token"))
            except Exception as exc:
                return _failed(exc)
            return connection.start_call(params, **kwargs)
        return connection.submit(self.call_tool, name, arguments, **kwargs)

    def read_resource_async(self: _Blocking, uri: str,
                            **kwargs: Any) -> Future[ReadResourceResult]:
        """:meth:`read_resource` on the client's thread pool."""
        return self._connection.submit(self.read_resource, uri, **kwargs)

    def get_prompt_async(self: _Blocking, name: str, arguments: Mapping[str, Any] | None = None,
                         **kwargs: Any) -> Future[GetPromptResult]:
        """:meth:`get_prompt` on the client's thread pool."""
        return self._connection.submit(self.get_prompt, name, arguments, **kwargs)

    def ping_async(self: _Blocking, **kwargs: Any) -> Future[bool]:
        """:meth:`ping` on the client's thread pool."""
        return self._connection.submit(self.ping, **kwargs)

    def request_async(self: _Blocking, method: str, params: Mapping[str, Any] | None = None,
                      **kwargs: Any) -> Future[dict[str, Any]]:
        """:meth:`request` on the client's thread pool."""
        return self._connection.submit(self.request, method, params, **kwargs)

    def notify_async(self: _Blocking, method: str,
                     params: Mapping[str, Any] | None = None) -> Future[None]:
        """:meth:`notify` on the client's thread pool."""
        return self._connection.submit(self.notify, method, params)

    def set_logging_level_async(self: _Blocking, level: str, **kwargs: Any) -> Future[None]:
        """:meth:`set_logging_level` on the client's thread pool."""
        return self._connection.submit(self.set_logging_level, level, **kwargs)

    def complete_async(self: _Blocking, ref: Mapping[str, Any], argument: Mapping[str, Any],
                       **kwargs: Any) -> Future[Completion]:
        """:meth:`complete` on the client's thread pool."""
        return self._connection.submit(self.complete, ref, argument, **kwargs)

    def list_skills_async(self: _Blocking, **kwargs: Any) -> Future[list[dict[str, Any]]]:
        """:meth:`list_skills` on the client's thread pool."""
        return self._connection.submit(self.list_skills, **kwargs)

    def read_skill_async(self: _Blocking, skill: str | Mapping[str, Any],
                         **kwargs: Any) -> Future[dict[str, Any]]:
        """:meth:`read_skill` on the client's thread pool."""
        return self._connection.submit(self.read_skill, skill, **kwargs)

    def read_directory_async(self: _Blocking, uri: str,
                             **kwargs: Any) -> Future[list[dict[str, Any]]]:
        """:meth:`read_directory` on the client's thread pool."""
        return self._connection.submit(self.read_directory, uri, **kwargs)


def _failed(exc: BaseException) -> Future[Any]:
    from concurrent.futures import Future

    future: Future[Any] = Future()
    future.set_exception(exc)
    return future
