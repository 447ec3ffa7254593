"""A provider's tools in the Anthropic Messages API's shapes, as plain data.

The Messages API takes tools as ``{"name", "description", "input_schema"}``,
answers with ``tool_use`` content blocks (``{"type": "tool_use", "id", "name",
"input"}``) in the assistant message, and is given the results back as
``tool_result`` blocks in the next user message::

    from mcp_client.adapters import anthropic as mcp_anthropic

    message = client.messages.create(model=..., max_tokens=..., messages=messages,
                                     tools=mcp_anthropic.tools(provider))
    messages.append({"role": "assistant", "content": message.content})
    messages.append({"role": "user", "content": mcp_anthropic.run(provider, message.content)})

Decisions:

* ``input_schema`` is the server's JSON Schema, passed through; it always has
  ``"type": "object"`` (the API requires it; an MCP ``inputSchema`` is one).
  A tool with no description has none in its entry.
* :func:`run` takes the assistant message's ``content`` -- the list of blocks,
  as dicts or the SDK's objects (``ToolUseBlock``, anything with
  ``model_dump()``) -- and not the message itself: a ``Message`` or a message
  dict is refused, saying to pass its ``content``.  Blocks other than
  ``tool_use`` (text, thinking, a server tool's ``server_tool_use``, which
  Anthropic runs) are left alone.
* The calls go to the provider as one batch, so its layers judge each (a denied
  call comes back as the refusal, never reaching the server) and a read-only
  batch may run in parallel.  Each ``tool_result`` carries its ``tool_use_id``,
  in the order of the blocks.
* ``is_error`` is True for a refusal, a failure and a tool's ``isError`` result;
  ``content`` is the provider's text (a structured result with no text is its
  JSON), so the model reads why.
"""

from __future__ import annotations

from typing import Any, Mapping

from ..exceptions import MCPClientError
from . import _formats

__all__ = ["tools", "run"]


def tools(provider: Any) -> list[dict[str, Any]]:
    """The provider's tools as Messages API tool entries, in the provider's order.

    Returns:
        one ``{"name", "description"?, "input_schema"}`` per function the provider
        declares.
    """
    entries = []
    for function in _formats.functions(provider):
        entry: dict[str, Any] = {"name": function.name,
                                 "input_schema": _formats.object_schema(function.parameters)}
        if function.description:
            entry["description"] = function.description
        entries.append(entry)
    return entries


def run(provider: Any, content: Any) -> list[dict[str, Any]]:
    """Run the ``tool_use`` blocks of an assistant message's content through ``provider``.

    Args:
        provider: any provider (a Client, a Registry, a Policy stack...).
        content: the assistant message's ``content``: a list of blocks.

    Returns:
        one ``{"type": "tool_result", "tool_use_id", "content", "is_error"}`` per
        ``tool_use`` block, in the order of the blocks (``[]`` when there is none).

    Raises:
        MCPClientError: ``content`` is not a list of blocks, or a ``tool_use``
            block has no ``id`` or ``name``, or an ``input`` that is not an object.
    """
    blocks = _formats.items(content, "anthropic.run",
                            "the assistant message's content (message.content)")
    calls = []
    for index, raw in enumerate(blocks):
        block = _formats.plain(raw)
        if not isinstance(block, Mapping) or block.get("type") != "tool_use":
            continue
        ident, name, arguments = block.get("id"), block.get("name"), block.get("input", {})
        if not isinstance(ident, str) or not ident or not isinstance(name, str) or not name:
            raise MCPClientError(f"content block {index}: a tool_use block needs an id and a "
                                 "name (strings)")
        if not isinstance(arguments, Mapping):
            raise MCPClientError(f"content block {index} ({name}): a tool_use block's input "
                                 f"must be an object, not {type(arguments).__name__}")
        calls.append(_formats.call(ident, name, dict(arguments)))
    answers = _formats.execute(provider, calls)
    return [{"type": "tool_result", "tool_use_id": call["id"],
             "content": _formats.answer_text(answer), "is_error": _formats.is_error(answer)}
            for call, answer in zip(calls, answers)]
