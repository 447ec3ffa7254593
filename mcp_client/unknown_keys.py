"""Arguments nobody declared: the UnknownKeys layer.

A provider wrapping a provider that makes mangled calls visible and does
nothing else.  It caches the declared
properties of every declaration it passes on, compares each call's argument
keys with them, and calls ``on_warn`` once per (tool, undeclared key) with
``{"tool", "id", "unknown_keys", "declared_keys"}`` -- then forwards the
caller's own calls, untouched, and returns the inner provider's results as
they came.

It is a smoke alarm, not a valve: it never refuses a call it can read
(one it cannot is refused in place, as by every :class:`~mcp_client.provider.Layer`), strips a key,
rewrites arguments or delays a batch, and an inner provider that raises raises
straight through it.  It is quiet unless it has something to say: a tool it
never saw declared, a tool that declared no properties, arguments that do not
parse or are not an object, and the ``""`` a model sends for an argument-free
call are somebody else's to report.  ``reason`` is always tolerated, so a
stack with :class:`~mcp_client.reasons.Reasons` produces no false positives.
A new key on the same tool is a new fact and is reported.  A warning hook that
raises is logged and otherwise ignored: the audit must not break the batch.

Its seat: ``Policy(UnknownKeys(Reasons(...)))`` -- under the policy, so the
arguments it reads are the model's own; over the reason layer, so the
declarations it caches are the augmented ones the model was shown.
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING, Any, Callable

from .exceptions import InvalidArgument
from .provider import CallParts, Layer, declared_name, parse_arguments
from .reasons import REASON_PARAM

if TYPE_CHECKING:
    from .types import ToolDeclaration, ToolMessage

__all__ = ["UnknownKeys"]

log = logging.getLogger(__name__)


class UnknownKeys(Layer):
    """Reports argument keys a tool never declared, once per (tool, key).

    Args:
        provider: the provider underneath.
        on_warn: called with ``{"tool", "id", "unknown_keys", "declared_keys"}``.

    Raises:
        InvalidArgument: ``on_warn`` is not callable.
        MCPClientError: ``provider`` is not a provider.
    """

    def __init__(self, provider: Any, on_warn: Callable[[dict[str, Any]], Any]) -> None:
        if not callable(on_warn):
            raise InvalidArgument("on_warn", on_warn, "must be callable")
        super().__init__(provider)
        self._on_warn = on_warn
        self._lock = threading.Lock()
        self._declared: dict[str, frozenset[str]] = {}
        self._reported: set[tuple[str, str]] = set()

    def tools_for_llm(self) -> list[ToolDeclaration]:
        """The inner declarations, unchanged; their properties are remembered."""
        declarations = list(self.provider.tools_for_llm())
        declared: dict[str, frozenset[str]] = {}
        for declaration in declarations:
            name = declared_name(declaration)
            function = declaration["function"] if name is not None else None
            parameters = function.get("parameters") if function is not None else None
            properties = parameters.get("properties") if isinstance(parameters, dict) else None
            if name is not None and isinstance(properties, dict) and properties:
                declared[name] = frozenset(properties)
        with self._lock:
            self._declared = declared
        return declarations

    def handle_calls(self, calls: list[Any], parts: list[CallParts]) -> list[ToolMessage]:
        """Audit the calls, then forward them untouched."""
        for part in parts:
            warning = self._audit(part)
            if warning is not None:
                try:
                    self._on_warn(warning)
                except Exception:
                    log.exception("the UnknownKeys warning hook raised")
        return list(self.provider.execute_tool_calls(calls))

    def _audit(self, parts: CallParts) -> dict[str, Any] | None:
        assert parts.name is not None
        with self._lock:
            declared = self._declared.get(parts.name)
        if not declared:
            return None
        try:
            arguments = parse_arguments(parts.arguments)
        except ValueError:
            return None
        unknown = sorted(k for k in arguments if k not in declared and k != REASON_PARAM)
        with self._lock:
            fresh = [k for k in unknown if (parts.name, k) not in self._reported]
            self._reported.update((parts.name, k) for k in fresh)
        if not fresh:
            return None
        return {"tool": parts.name, "id": parts.ident, "unknown_keys": fresh,
                "declared_keys": sorted(declared)}
