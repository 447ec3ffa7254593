"""The ``*_async`` twins of the client's blocking methods.

Each twin runs its blocking method on the client's
:class:`~concurrent.futures.ThreadPoolExecutor` and returns the
:class:`~concurrent.futures.Future` (API.md "Client").  They live in this mixin
so the client module keeps to the connection itself.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from concurrent.futures import Future
    from typing import Any, Callable, Mapping, TypeVar
    R = TypeVar("R")

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

    def _submit(self, fn: Callable[..., R], *args: Any, **kwargs: Any) -> Future[R]:
        raise NotImplementedError

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
        """:meth:`call_tool` on the client's thread pool."""
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
