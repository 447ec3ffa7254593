"""A provider's tools in the OpenAI Responses API's shapes, as plain data.

The Responses API takes *flat* function tools (``{"type": "function", "name",
"description", "parameters", "strict"}``, not Chat Completions'
``{"type": "function", "function": {...}}``), answers with ``function_call``
output items, and is given the results back as ``function_call_output`` input
items::

    from mcp_client.adapters import openai_responses

    response = openai.responses.create(model=..., input=messages,
                                       tools=openai_responses.tools(provider))
    messages += response.output
    messages += openai_responses.run(provider, response.output)

Decisions:

* ``strict`` is False: a server's JSON Schema is passed through untouched, and most
  are not strict-mode schemas (every property required, no extra keys).
* :func:`run` takes the output items as they come -- dicts, or the SDK's objects
  (anything with ``model_dump()``) -- answers each ``function_call`` in order with
  one ``function_call_output`` carrying its ``call_id``, and leaves every other
  item (messages, reasoning) alone.  The calls go to the provider as one batch,
  so its layers judge each (a denied call's output is the refusal's text) and a
  read-only batch may run in parallel.
* The Responses API has no error flag on an output: a tool's ``isError`` result
  and a refusal are told to the model in the output text, as the provider words it.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from ..exceptions import MCPClientError
from . import _formats

__all__ = ["tools", "run"]


def tools(provider: Any) -> list[dict[str, Any]]:
    """The provider's tools as Responses API function tools, in the provider's order."""
    flat = []
    for function in _formats.functions(provider):
        tool: dict[str, Any] = {"type": "function", "name": function.name,
                                "parameters": function.parameters, "strict": False}
        if function.description is not None:
            tool["description"] = function.description
        flat.append(tool)
    return flat


def run(provider: Any, output_items: Iterable[Any]) -> list[dict[str, Any]]:
    """Run the ``function_call`` items of a response's output through ``provider``.

    Returns:
        one ``{"type": "function_call_output", "call_id", "output"}`` per
        ``function_call`` item, in the order of the items.

    Raises:
        MCPClientError: ``output_items`` is not a list of items, or a
            ``function_call`` item has no ``call_id`` or ``name`` (its output
            could not be matched to it).
    """
    items = _formats.items(output_items, "openai_responses.run",
                           "the response's output items")
    calls = []
    for index, raw in enumerate(items):
        item = _formats.plain(raw)
        if not isinstance(item, Mapping) or item.get("type") != "function_call":
            continue
        call_id, name = item.get("call_id"), item.get("name")
        if not isinstance(call_id, str) or not call_id or not isinstance(name, str):
            raise MCPClientError(f"output item {index}: a function_call needs a call_id and a "
                                 "name (string)")
        arguments = item.get("arguments")
        calls.append(_formats.call(call_id, name, "{}" if arguments in (None, "") else arguments))
    answers = _formats.execute(provider, calls)
    return [{"type": "function_call_output", "call_id": call["id"],
             "output": _formats.answer_text(answer)}
            for call, answer in zip(calls, answers)]
