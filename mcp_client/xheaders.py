"""``x-mcp-header``: tool arguments mirrored into ``Mcp-Param-*`` HTTP headers.

2026-07-28 Streamable HTTP lets a server mark properties of a tool's
``inputSchema`` with ``"x-mcp-header": "<Token>"`` so that gateways can route
a ``tools/call`` without parsing its body; the client then sends the
argument's value as ``Mcp-Param-<Token>`` (2026-07-28
basic/transports "Custom headers from tool parameters").  This module owns
the rules, as pure functions over tool dicts: which annotations are valid
(:func:`invalid_reason`), where they sit (:func:`header_paths`), how a value
is rendered (:func:`render`) and encoded (:func:`encode_value`, also used for
``Mcp-Name``), and the headers of one call (:func:`headers_for_call`).

It must not do I/O, keep state or decide policy: dropping invalid tools from
``list_tools``, fetching the catalogue before the first call and the
``-32020`` re-fetch belong to the client.

The validity rules are those of the official Python SDK's
``find_invalid_x_mcp_header`` (mcp 2.3.0), which the spec's wording matches:
the annotation is a non-empty RFC 9110 token; it sits on a property whose
``type`` is the string ``"string"``, ``"integer"`` or ``"boolean"``
(``number`` is excluded: float formatting is not portable); the property is
reached from the root through ``properties`` keys only -- an annotation
anywhere under ``items``, ``allOf``/``anyOf``/``oneOf``, ``not``,
``if``/``then``/``else``, ``$defs`` or any other applicator, or on the root
itself, is invalid, and ``$ref`` is never followed; and the tokens are unique
case-insensitively within the schema.
"""

from __future__ import annotations

import base64
import re
from typing import Any, Iterator, Mapping

from .exceptions import MCPClientError

__all__ = ["X_MCP_HEADER", "PARAM_PREFIX", "MAX_SAFE_INTEGER", "invalid_reason",
           "header_paths", "render", "encode_value", "headers_for_call"]

#: The schema keyword (2026-07-28 server/tools "x-mcp-header").
X_MCP_HEADER = "x-mcp-header"
#: What the token is appended to, giving the header name.
PARAM_PREFIX = "Mcp-Param-"
#: The largest integer rendered (JavaScript's ``Number.MAX_SAFE_INTEGER``,
#: 2026-07-28 basic/transports "Value encoding").
MAX_SAFE_INTEGER = 2 ** 53 - 1

#: RFC 9110 §5.6.2 ``token = 1*tchar``.
_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
#: Values sent as they are: printable ASCII (2026-07-28 basic/transports).
_PLAIN = re.compile(r"[\x20-\x7e]*")
_SENTINEL = re.compile(r"=\?base64\?.*\?=", re.DOTALL)
_PRIMITIVES = frozenset({"string", "integer", "boolean"})

# JSON Schema 2020-12 applicators whose values are schemas.  Crossing any of
# them leaves the statically reachable ``properties`` chain.  Instance data
# (``default``, ``examples``, ``const``, ``enum``) and ``$ref`` are not entered.
_ONE_SCHEMA = frozenset({"items", "contains", "unevaluatedItems", "additionalProperties",
                         "propertyNames", "unevaluatedProperties", "not", "if", "then",
                         "else", "contentSchema"})
_SCHEMA_LIST = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})
_SCHEMA_MAP = frozenset({"patternProperties", "dependentSchemas", "$defs", "definitions"})

Path = tuple[str, ...]


def _positions(root: Any) -> Iterator[tuple[Path | None, Mapping[str, Any]]]:
    """Every schema position, in document order: ``(properties path, or None off it; schema)``."""
    stack: list[tuple[Path | None, Any]] = [((), root)]
    while stack:   # explicit stack: total on any finite JSON value, however deep
        path, node = stack.pop()
        if not isinstance(node, Mapping):
            continue
        yield path, node
        children: list[tuple[Path | None, Any]] = []
        for keyword, value in node.items():
            if keyword == "properties" and isinstance(value, Mapping):
                children.extend((None if path is None else (*path, str(name)), sub)
                                for name, sub in value.items())
            elif keyword in _ONE_SCHEMA:
                children.append((None, value))
            elif keyword in _SCHEMA_LIST and isinstance(value, list):
                children.extend((None, sub) for sub in value)
            elif keyword in _SCHEMA_MAP and isinstance(value, Mapping):
                children.extend((None, sub) for sub in value.values())
        stack.extend(reversed(children))


def _schema(tool: Mapping[str, Any]) -> Any:
    if not isinstance(tool, Mapping):
        raise MCPClientError(f"a tool must be a dict, not {type(tool).__name__}")
    return tool.get("inputSchema")


def invalid_reason(tool: Mapping[str, Any]) -> str | None:
    """Why a tool's ``x-mcp-header`` annotations are invalid, or None if they are fine.

    A tool without annotations (or without an object ``inputSchema``) is valid.

    Args:
        tool: a tool dict from ``tools/list``.

    Returns:
        a sentence naming the offending property, or None.

    Raises:
        MCPClientError: ``tool`` is not a dict.
    """
    seen: dict[str, str] = {}
    for path, schema in _positions(_schema(tool)):
        if X_MCP_HEADER not in schema:
            continue
        if path is None:
            return (f"{X_MCP_HEADER} sits where it is not statically reachable "
                    "(only a chain of properties may lead to it)")
        if not path:
            return f"{X_MCP_HEADER} is on the root schema, not on a property"
        where = ".".join(path)
        token = schema[X_MCP_HEADER]
        if not isinstance(token, str):
            return f"property {where!r}: {X_MCP_HEADER} must be a string"
        if not _TOKEN.fullmatch(token):
            return f"property {where!r}: {X_MCP_HEADER} {token!r} is not an RFC 9110 token"
        kind = schema.get("type")
        if not isinstance(kind, str) or kind not in _PRIMITIVES:
            return (f"property {where!r}: {X_MCP_HEADER} is allowed only on string, integer "
                    f"or boolean properties, not on type {kind!r}")
        other = seen.setdefault(token.lower(), where)
        if other != where:
            return f"property {where!r}: {X_MCP_HEADER} {token!r} repeats property {other!r}'s"
    return None


def header_paths(tool: Mapping[str, Any]) -> list[tuple[Path, str]]:
    """Where a valid tool's annotations sit: ``[(property path, token), ...]``.

    Args:
        tool: a tool dict from ``tools/list``.

    Returns:
        one ``(("region",), "Region")`` pair per annotated property, paths
        being the ``properties`` keys from the root (nested objects give
        longer paths), in schema order.

    Raises:
        MCPClientError: the tool's annotations are invalid (see
            :func:`invalid_reason`); such a tool must not be called.
    """
    reason = invalid_reason(tool)
    if reason is not None:
        raise MCPClientError(f"tool {tool.get('name')!r} has an invalid {X_MCP_HEADER}: {reason}")
    return [(path, schema[X_MCP_HEADER]) for path, schema in _positions(tool.get("inputSchema"))
            if path and X_MCP_HEADER in schema]


def render(value: Any) -> str | None:
    """The header text of one argument value (2026-07-28 basic/transports "Value encoding").

    Args:
        value: the argument as the call carries it.

    Returns:
        None for an absent (None) value -- the header is then omitted; a
        string as it is; ``true``/``false`` for a boolean; an integer (or an
        integral float, which JSON cannot tell apart) in decimal; any other
        float in its shortest round-trip form.  Encoding for the wire is
        :func:`encode_value`'s job.

    Raises:
        MCPClientError: an integer outside ±(2**53 - 1), a non-finite float,
            or a value that is no scalar (an object or an array).
    """
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise MCPClientError(f"{value!r} cannot be sent in a header")
        if not value.is_integer():
            return repr(value)
        value = int(value)
    if isinstance(value, int):
        if abs(value) > MAX_SAFE_INTEGER:
            raise MCPClientError(f"the integer {value} is outside the range a header may "
                                 f"carry (±{MAX_SAFE_INTEGER})")
        return str(value)
    raise MCPClientError(f"a {type(value).__name__} cannot be sent in a header; "
                         f"{X_MCP_HEADER} applies to strings, integers and booleans")


def encode_value(value: str) -> str:
    """A header value as it goes on the wire (2026-07-28 basic/transports).

    Plain printable ASCII (0x20-0x7E) without a leading or trailing space is
    sent as it is; anything else -- other characters, edge spaces, or a value
    that already looks like the sentinel -- as ``=?base64?<base64 of its
    UTF-8>?=``.  Used for ``Mcp-Name`` as well as ``Mcp-Param-*``.

    Args:
        value: the text to send.

    Returns:
        the header value.
    """
    if _PLAIN.fullmatch(value) and not value.startswith(" ") and not value.endswith(" ") \
            and not _SENTINEL.fullmatch(value):
        return value
    return "=?base64?" + base64.b64encode(value.encode("utf-8")).decode("ascii") + "?="


def _value_at(arguments: Any, path: Path) -> Any:
    node = arguments
    for name in path:
        if not isinstance(node, Mapping):
            return None
        node = node.get(name)
    return node


def headers_for_call(tool: Mapping[str, Any],
                     arguments: Mapping[str, Any] | None) -> dict[str, str]:
    """The ``Mcp-Param-*`` headers of one ``tools/call``.

    Args:
        tool: the tool's dict from ``tools/list`` (its annotations must be valid).
        arguments: the call's arguments.

    Returns:
        ``{"Mcp-Param-<Token>": <encoded value>}`` for every annotated
        property that has a non-null value in ``arguments``; ``{}`` when none.

    Raises:
        MCPClientError: the tool's annotations are invalid, or a value cannot
            be rendered (see :func:`render`); the message names the property.
    """
    headers: dict[str, str] = {}
    for path, token in header_paths(tool):
        try:
            text = render(_value_at(arguments or {}, path))
        except MCPClientError as exc:
            raise MCPClientError(f"tool {tool.get('name')!r}: argument {'.'.join(path)!r} "
                                 f"cannot be mirrored into {PARAM_PREFIX}{token}: {exc}") from None
        if text is not None:
            headers[PARAM_PREFIX + token] = encode_value(text)
    return headers
