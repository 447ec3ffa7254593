"""A tool call as the policy judges it: the provider role's reading, and a detached copy.

A call arrives shaped like OpenAI's (``{"id", "function": {"name",
"arguments"}}``, arguments a dict, a JSON string or ``""``), or as an object
with those attributes.  The :class:`~mcp_client.provider.Layer` the policy is
has already read it with :func:`mcp_client.provider.read_call` -- the reader
every other provider layer uses -- and hands the policy that reading, a
:class:`~mcp_client.provider.CallParts`; the arguments are parsed here, once,
with :func:`mcp_client.provider.parse_arguments`, the parser every layer uses.
So a call the policy judges is the call the layers below would have read: one
reader, one parser, pinned by construction (and by ``tests/test_policy.py``'s
parity test).

On top of that the policy detaches what it judged: the parsed arguments are a
deep copy, and they -- not the original text -- are what it forwards, so no
later reader can parse the same text differently from the one that was judged.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from .. import provider

__all__ = ["shown", "parse_arguments", "plain"]


def plain(value: Any) -> Any:
    """``value`` as detached plain JSON data (its ``repr`` when it is not JSON)."""
    try:
        return json.loads(json.dumps(value))
    except Exception:           # a caller's object whose items() or __iter__ raise
        try:
            return repr(value)
        except Exception:
            return f"<unreadable {type(value).__name__}>"


def shown(call: Any, parts: provider.CallParts) -> dict[str, Any]:
    """``call`` (read as ``parts``) as plain data, a detached copy to show a human.

    A dict is shown key by key; an object as the call it was read as.  Made
    only when a question is asked: nothing is decided on it.
    """
    if isinstance(call, dict):
        try:
            return {str(key): plain(value) for key, value in call.items()}
        except Exception:       # a dict subclass whose items() raise: shown as text
            return {"call": plain(call)}
    return {"id": parts.ident, "type": "function",
            "function": {"name": parts.name, "arguments": plain(parts.arguments)}}


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
