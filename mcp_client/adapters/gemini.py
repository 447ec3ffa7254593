"""A provider's tools in the Gemini API's shapes (``google-genai``), as plain data.

Gemini takes functions as ``FunctionDeclaration`` entries inside a ``Tool``
(``{"function_declarations": [...]}``), answers with ``function_call`` parts
(``FunctionCall``: ``{"id"?, "name", "args"}``), and is given the results back as
``function_response`` parts::

    from google.genai import types
    from mcp_client.adapters import gemini

    config = types.GenerateContentConfig(tools=gemini.tools(provider))
    response = client.models.generate_content(model=..., contents=contents, config=config)
    contents.append(response.candidates[0].content)
    contents.append(types.Content(role="user",
                                  parts=gemini.run(provider, response.function_calls)))

Decisions:

* :func:`tools` returns the *list* ``GenerateContentConfig(tools=...)`` takes:
  one ``Tool`` holding every declaration (``[]`` when there is none), so it is
  passed as it comes, like the other formats' ``tools``.
* Each declaration's schema is ``parameters_json_schema``: the server's JSON
  Schema passed through (with ``"type": "object"``), not converted to the
  OpenAPI subset ``parameters`` takes, which would drop what it cannot say.
  Gemini wants a function name to start with a letter or ``_``: choose
  Registry prefixes that do.
* :func:`run` takes ``response.function_calls`` (``FunctionCall`` objects) or a
  content's ``parts`` (``Part`` objects; those without a ``function_call``, such
  as text or thoughts, are left alone), as the SDK's objects (anything with
  ``model_dump()``) or dicts.  A call's ``args`` may be left out (none).
* Each answer is a part as ``Part.from_function_response`` builds it:
  ``{"function_response": {"name", "response", "id"?}}``, the ``id`` the call's when
  it had one, in the order of the calls.  ``response`` follows the convention
  the SDK documents on ``FunctionResponse.response``: ``{"output": text}``, or
  ``{"error": text}`` for a refusal, a failure or a tool's ``isError`` result.
* The calls go to the provider as one batch, so its layers judge each (a denied
  call comes back as the refusal, never reaching the server) and a read-only
  batch may run in parallel.
"""

from __future__ import annotations

from typing import Any, Mapping

from ..exceptions import MCPClientError
from . import _formats

__all__ = ["tools", "declarations", "run"]

#: What tells a call apart in a list: a ``Part`` has ``function_call`` (None on the
#: other parts), a ``FunctionCall`` has these.
_CALL_KEYS = ("name", "args", "id")


def declarations(provider: Any) -> list[dict[str, Any]]:
    """The provider's functions as ``FunctionDeclaration`` dicts, in the provider's order.

    Returns:
        one ``{"name", "description"?, "parameters_json_schema"}`` per function.
    """
    found = []
    for function in _formats.functions(provider):
        declared: dict[str, Any] = {
            "name": function.name,
            "parameters_json_schema": _formats.object_schema(function.parameters)}
        if function.description:
            declared["description"] = function.description
        found.append(declared)
    return found


def tools(provider: Any) -> list[dict[str, Any]]:
    """The provider's tools as ``GenerateContentConfig(tools=...)`` takes them.

    Returns:
        ``[{"function_declarations": declarations(provider)}]``, or ``[]`` when the
        provider has no function.
    """
    found = declarations(provider)
    return [{"function_declarations": found}] if found else []


def run(provider: Any, function_calls: Any) -> list[dict[str, Any]]:
    """Run a response's function calls through ``provider``.

    Args:
        provider: any provider (a Client, a Registry, a Policy stack...).
        function_calls: ``response.function_calls``, or a content's ``parts``.

    Returns:
        one ``{"function_response": {"name", "response", "id"?}}`` part per call, in
        the order of the calls (``[]`` when there is none).

    Raises:
        MCPClientError: ``function_calls`` is not a list, or a call has no name,
            or ``args`` that are not an object.
    """
    entries = _formats.items(function_calls, "gemini.run",
                             "response.function_calls or a content's parts")
    calls, named = [], []
    for index, raw in enumerate(entries):
        found = _function_call(index, _formats.plain(raw))
        if found is None:
            continue
        ident, name, arguments = found
        calls.append(_formats.call(f"gemini-call-{index}" if ident is None else ident,
                                   name, arguments))
        named.append((ident, name))
    answers = _formats.execute(provider, calls)
    parts = []
    for (ident, name), answer in zip(named, answers):
        key = "error" if _formats.is_error(answer) else "output"
        response: dict[str, Any] = {"name": name,
                                    "response": {key: _formats.answer_text(answer)}}
        if ident is not None:
            response["id"] = ident
        parts.append({"function_response": response})
    return parts


def _function_call(index: int, entry: Any) -> tuple[str | None, str, dict[str, Any]] | None:
    """``(id, name, args)`` of a FunctionCall or a Part holding one; None for other parts."""
    if isinstance(entry, Mapping) and "function_call" in entry:
        entry = _formats.plain(entry["function_call"])   # a FunctionCall in a Part dict
        if entry is None:
            return None   # a part of another kind: text, a thought...
    elif not isinstance(entry, Mapping) or not any(key in entry for key in _CALL_KEYS):
        return None
    if not isinstance(entry, Mapping):
        raise MCPClientError(f"item {index}: a function_call must be an object, not "
                             f"{type(entry).__name__}")
    ident, name, arguments = entry.get("id"), entry.get("name"), entry.get("args")
    if not isinstance(name, str) or not name:
        raise MCPClientError(f"item {index}: a function call needs a name (string)")
    if ident is not None and (not isinstance(ident, str) or not ident):
        raise MCPClientError(f"item {index} ({name}): a function call's id must be a "
                             "non-empty string")
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, Mapping):
        raise MCPClientError(f"item {index} ({name}): a function call's args must be an "
                             f"object, not {type(arguments).__name__}")
    return ident, name, dict(arguments)
