"""The params of a ``tools/call`` or ``prompts/get``, checked before anything is sent.

Pure functions: a bad name or arguments is an :class:`MCPClientError` in the
caller's thread, before a request exists.  The client's typed API, its
``*_async`` twins and the LLM bridge's calls all check here.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..exceptions import MCPClientError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["tool_params", "prompt_params"]


def tool_params(name: str, arguments: Mapping[str, Any] | None,
                progress_token: Any = None, meta: Mapping[str, Any] | None = None,
                ) -> dict[str, Any]:
    """A ``tools/call``'s params, checked; ``meta`` (when not empty) is its ``_meta``."""
    if not isinstance(name, str) or not name:
        raise MCPClientError(f"a tool name must be a non-empty string, not {name!r}")
    if progress_token is not None and (isinstance(progress_token, bool) or
                                       not isinstance(progress_token, (str, int))):
        raise MCPClientError("progress_token must be a string or an integer")
    params = {"name": name, "arguments": dict(arguments) if type(arguments) is dict
              else _arguments(arguments)}   # a dict: _arguments() without its frame
    if meta is not None:
        if not isinstance(meta, Mapping) or not all(isinstance(key, str) for key in meta):
            raise MCPClientError("meta must be a dict (a JSON object) with string keys")
        if meta:   # merged under the request's own envelope (protocol.request)
            params["_meta"] = dict(meta)
    return params


def prompt_params(name: str, arguments: Mapping[str, Any] | None) -> dict[str, Any]:
    """A ``prompts/get``'s params, checked."""
    if not isinstance(name, str) or not name:
        raise MCPClientError(f"a prompt name must be a non-empty string, not {name!r}")
    return {"name": name, "arguments": _arguments(arguments)}


def _arguments(arguments: Mapping[str, Any] | None) -> dict[str, Any]:
    """``arguments`` as a JSON object: a copy of the dict (None: ``{}``), else MCPClientError."""
    if type(arguments) is dict:   # the common case, without the ABC's isinstance
        return dict(arguments)
    if arguments is None:
        return {}
    if not isinstance(arguments, Mapping):
        raise MCPClientError("arguments must be a dict (a JSON object), not "
                             f"{type(arguments).__name__}")
    return dict(arguments)
