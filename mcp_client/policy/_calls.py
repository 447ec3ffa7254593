"""Reading a tool call for the policy, with the provider role's own reader and parser.

A call arrives shaped like OpenAI's (``{"id", "function": {"name",
"arguments"}}``, arguments a dict, a JSON string or ``""``), or as an object
with those attributes.  The policy reads it with exactly the functions every
other provider layer uses -- :func:`mcp_client.provider.read_call` and
:func:`mcp_client.provider.parse_arguments` -- so a call the policy judges is
the call the layers below would have read: one reader, one parser, pinned by
construction (and by ``tests/test_policy.py``'s parity test).

On top of that the policy detaches what it judged: the parsed arguments are a
deep copy, and they -- not the original text -- are what it forwards, so no
later reader can parse the same text differently from the one that was judged.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from typing import Any

from .. import provider

__all__ = ["CallView", "read_call", "parse_arguments", "plain"]


@dataclass(frozen=True)
class CallView:
    """What a tool call says, read without trusting its shape.

    Attributes:
        id: the ``tool_call_id`` to answer under (``None`` when it has none).
        name: the function name, or ``None`` when the call is malformed.
        raw_arguments: the arguments as the call carried them.
        problem: why the call is malformed (the reader's words), or ``None``.
        copy: the call as plain data (a detached copy, for the question).
    """

    id: Any
    name: str | None
    raw_arguments: Any
    problem: str | None
    copy: dict[str, Any]


def plain(value: Any) -> Any:
    """``value`` as detached plain JSON data (its ``repr`` when it is not JSON)."""
    try:
        return json.loads(json.dumps(value))
    except Exception:           # a caller's object whose items() or __iter__ raise
        try:
            return repr(value)
        except Exception:
            return f"<unreadable {type(value).__name__}>"


def read_call(call: Any) -> CallView:
    """Read one call (see :func:`mcp_client.provider.read_call`)."""
    parts = provider.read_call(call)
    if isinstance(call, dict):
        try:
            shown = {str(key): plain(value) for key, value in call.items()}
        except Exception:       # a dict subclass whose items() raise: shown as text
            shown = {"call": plain(call)}
    else:
        shown = {"id": parts.ident, "type": "function",
                 "function": {"name": parts.name, "arguments": plain(parts.arguments)}}
    name = parts.name if parts.problem is None else None
    return CallView(parts.ident, name, parts.arguments, parts.problem, shown)


def parse_arguments(raw: Any) -> tuple[dict[str, Any] | None, str]:
    """Parse a call's arguments (see :func:`mcp_client.provider.parse_arguments`), detached.

    Returns:
        ``(arguments, "")``, or ``(None, why not)`` in the parser's words.
    """
    try:
        value = provider.parse_arguments(raw)
        return copy.deepcopy(value), ""
    except ValueError as exc:
        return None, str(exc)
    except Exception as exc:       # a Mapping whose contents cannot be copied
        return None, f"arguments cannot be read ({type(exc).__name__}: {exc})"
