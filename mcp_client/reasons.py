"""Why a call was made: the Reasons layer.

A provider wrapping a provider.  On the way out it adds one optional string
parameter, :data:`REASON_PARAM` (``"reason"``), to every tool declaration; on
the way in it deletes that parameter from every call's arguments -- so the
model fills it in because it is declared where the model is looking, and the
server never learns the parameter exists: the model says why a call was made.

Where it sits is the whole design: ``Policy(UnknownKeys(Reasons(...)))`` --
below the policy, so the permission prompt's copy of the call still carries
the reason; above everything else, so every provider under it is augmented
and no layer that inspects arguments sees a parameter that is not the
server's own.

A tool that already declares its own ``reason`` is left completely alone in
both directions: not augmented again and, above all, not stripped, since that
reason is a real argument its server expects.  When in doubt -- a tool this
layer never saw declared, arguments it cannot parse -- it does not strip.  The
strip happens on a copy at forward time and nowhere else, so the caller's
call (the assistant message, a transcript, a replay) keeps its reason.

Two warnings, because a reason is written by the model about its own
intentions in the same sampling step as the arguments -- a claim, not
evidence, and nobody has checked it:

* **A UI must keep the arguments primary.**  Render the reason as supporting
  text next to the command, the path and the diff -- never instead of them,
  and never so that a human can approve a call having read only the reason.
  A model that is wrong about what it is doing writes a sincere reason for
  the wrong call.
* **Machine policy must never consume it.**  The rule engine, the danger floor
  and any auto-mode classifier decide on the tool name, the arguments and the
  paths, never on this field: a permission layer that read the reason could be
  talked through by nicer sentences.  :class:`~mcp_client.policy.Policy` does
  not read it.
"""

from __future__ import annotations

import copy
import json
import threading
from typing import TYPE_CHECKING, Any

from .provider import CallParts, Layer, call_meta, declared_name, parse_arguments

if TYPE_CHECKING:
    from .types import ToolDeclaration, ToolMessage

__all__ = ["Reasons", "REASON_PARAM", "REASON_SCHEMA"]

#: The parameter this layer adds and strips.
REASON_PARAM = "reason"
#: Its declaration.
REASON_SCHEMA: dict[str, Any] = {
    "type": "string",
    "description": "Why you are making this call, in one sentence, for the person "
                   "reviewing it.",
}


def _declares_reason(declaration: Any) -> bool:
    function = declaration.get("function") if isinstance(declaration, dict) else None
    parameters = function.get("parameters") if isinstance(function, dict) else None
    properties = parameters.get("properties") if isinstance(parameters, dict) else None
    return isinstance(properties, dict) and REASON_PARAM in properties


def _augmented(declaration: dict[str, Any]) -> dict[str, Any]:
    copied = copy.deepcopy(declaration)
    function = copied["function"] = dict(copied["function"])
    parameters = function.get("parameters")
    if not isinstance(parameters, dict):
        parameters = {"type": "object"}
    properties = parameters.get("properties")
    parameters["properties"] = {**(properties if isinstance(properties, dict) else {}),
                                REASON_PARAM: dict(REASON_SCHEMA)}
    function["parameters"] = parameters
    return copied


class Reasons(Layer):
    """Adds a ``reason`` parameter to every declaration; strips it from every call.

    Args:
        provider: the provider underneath (anything with ``tools_for_llm()``
            and ``execute_tool_calls(calls)``).

    Raises:
        MCPClientError: ``provider`` is not a provider.
    """

    def __init__(self, provider: Any) -> None:
        super().__init__(provider)
        self._lock = threading.Lock()
        self._augmented: set[str] = set()   # tools whose reason is ours to strip
        self._seen: set[str] = set()

    def tools_for_llm(self) -> list[ToolDeclaration]:
        """The inner declarations, each with an optional ``reason`` parameter.

        A declaration without a usable name, or with its own ``reason``, is
        passed on as it came.
        """
        declarations = []
        augmented, seen = set(), set()
        for declaration in self.provider.tools_for_llm():
            name = declared_name(declaration)
            if name is not None:
                seen.add(name)
            if name is None or not isinstance(declaration, dict) or _declares_reason(declaration):
                declarations.append(declaration)   # its own reason, or not ours to read
                continue
            augmented.add(name)
            declarations.append(_augmented(declaration))
        with self._lock:
            self._augmented, self._seen = augmented, seen
        return declarations

    def handle_calls(self, calls: list[Any], parts: list[CallParts]) -> list[ToolMessage]:
        """Forward the calls with our ``reason`` removed (the caller's calls untouched)."""
        names = {part.name for part in parts if part.name}
        if names - self._seen:
            self.tools_for_llm()   # learn what the inner provider declares
        with self._lock:
            ours = set(self._augmented)
        return list(self.provider.execute_tool_calls(
            [self._strip(call, part, ours) for call, part in zip(calls, parts)]))

    @staticmethod
    def _strip(call: Any, parts: CallParts, ours: set[str]) -> Any:
        if parts.name not in ours:
            return call
        try:
            arguments = parse_arguments(parts.arguments)
        except ValueError:
            return call   # not ours to judge: the inner provider reports it
        if REASON_PARAM not in arguments:
            return call
        del arguments[REASON_PARAM]
        rendered: Any = json.dumps(arguments) if isinstance(parts.arguments, str) else arguments
        original_id = call.get("id") if isinstance(call, dict) else getattr(call, "id", None)
        stripped: dict[str, Any] = {"id": original_id, "type": "function",
                                    "function": {"name": parts.name, "arguments": rendered}}
        meta = call_meta(call)   # a request _meta rides on with the call
        if meta is not None:
            stripped["_meta"] = meta
        return stripped
