"""What every model-API format shares: reading a provider's declarations, running a batch.

The format modules (:mod:`~mcp_client.adapters.openai_responses`,
:mod:`~mcp_client.adapters.anthropic`, :mod:`~mcp_client.adapters.gemini`) only
reshape: each reads the provider's declarations through :func:`functions`, turns
a model's calls into one batch of OpenAI-style calls and hands it to
:func:`execute`, which holds the provider to its contract (one answer per call,
in call order).  Nothing here imports a vendor SDK.
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator, Mapping, NamedTuple

from ..exceptions import MCPClientError

__all__ = ["Function", "functions", "object_schema", "plain", "items", "call", "execute",
           "answer_text", "is_error"]


class Function(NamedTuple):
    """One of the provider's function declarations, read."""

    name: str
    description: str | None
    parameters: dict[str, Any]


def functions(provider: Any) -> Iterator[Function]:
    """The provider's function declarations, in its order.

    A declaration that names no function (or an empty name) is skipped: no model API
    could call it.
    ``parameters`` is a shallow copy (an empty object schema when there was none, or ``{}``).
    """
    for declared in provider.tools_for_llm():
        function = declared.get("function", {}) if isinstance(declared, Mapping) else {}
        name = function.get("name") if isinstance(function, Mapping) else None
        if not isinstance(name, str) or not name:
            continue
        parameters = function.get("parameters")
        description = function.get("description")
        yield Function(name, description if isinstance(description, str) else None,
                       dict(parameters) if isinstance(parameters, Mapping) and parameters
                       else {"type": "object", "properties": {}})


def object_schema(parameters: dict[str, Any]) -> dict[str, Any]:
    """``parameters`` with ``"type": "object"``, which APIs that take a JSON Schema require.

    An MCP tool's ``inputSchema`` is an object schema (2025-11-25 and 2026-07-28,
    server/tools); a server that left ``type`` out, or sent another, is read as
    meaning one, so that one odd tool does not make the whole request invalid.
    """
    if parameters.get("type") == "object":
        return parameters
    return {**parameters, "type": "object"}


def plain(item: Any) -> Any:
    """An SDK object as plain data (pydantic models have ``model_dump``); anything else as is."""
    dump = getattr(item, "model_dump", None)
    return dump() if callable(dump) else item


def items(value: Any, who: str, what: str) -> list[Any]:
    """``value`` as a list, or :class:`MCPClientError` naming ``who`` takes ``what``.

    A mapping, a string or anything not iterable is refused: each is a likely
    mistake (a whole message or response passed instead of its list).
    """
    if isinstance(value, (Mapping, str, bytes)) or not isinstance(value, Iterable) or \
            callable(getattr(value, "model_dump", None)):
        raise MCPClientError(f"{who} takes {what} (a list), not {type(value).__name__}")
    return list(value)


def call(ident: str, name: str, arguments: Any) -> dict[str, Any]:
    """An OpenAI-style call, as every provider reads it (``arguments``: a dict or JSON text)."""
    return {"id": ident, "type": "function", "function": {"name": name, "arguments": arguments}}


def execute(provider: Any, calls: list[dict[str, Any]]) -> list[Any]:
    """The provider's answers to ``calls``, run as one batch (so its layers judge each).

    Raises:
        MCPClientError: the provider answered another number of calls.
    """
    if not calls:
        return []
    answers = list(provider.execute_tool_calls(calls))   # one per call, in call order
    if len(answers) != len(calls):
        raise MCPClientError(f"the provider answered {len(calls)} calls with {len(answers)} "
                             "results")
    return answers


def answer_text(answer: Any) -> str:
    """An answer's text: its ``content`` (the provider already put a refusal's reason,
    an error's words or structured content with no text there)."""
    content = answer.get("content") if isinstance(answer, Mapping) else None
    return content if isinstance(content, str) else "the tool gave no answer"


def is_error(answer: Any) -> bool:
    """Whether an answer is a refusal or a failure (``is_error`` True)."""
    return isinstance(answer, Mapping) and answer.get("is_error") is True
