"""A provider's tools as LangChain tools (``langchain-core``).

Each tool is a ``StructuredTool`` that runs the call through the provider, so
its layers judge it, and that works with ``invoke`` and ``ainvoke``::

    from mcp_client.adapters import langchain

    tools = langchain.tools(provider)
    by_name = {tool.name: tool for tool in tools}
    message = model.bind_tools(tools).invoke(messages)
    messages.append(message)
    for tool_call in message.tool_calls:
        messages.append(by_name[tool_call["name"]].invoke(tool_call))   # a ToolMessage

Needs the ``langchain`` extra (``pip install 'mcp-client-sync[langchain]'``);
without it, importing this module raises :class:`ImportError` saying so.

Decisions:

* The JSON Schema is the tool's ``args_schema`` as a dict, untouched (no pydantic
  model is made from it): ``tool.args`` and ``tool.tool_call_schema`` show it as
  the server published it.  ``convert_to_openai_tool(tool)``, which most chat
  models' ``bind_tools`` use, is LangChain's own: it drops ``title`` keywords and
  inlines ``$ref`` definitions, in a copy.  LangChain does not validate arguments
  against a dict schema; the provider does (a Policy parses them, the server
  checks them).
* The arguments reach the provider as one dict, exactly as the model sent
  them.  A plain ``StructuredTool`` spreads them as keyword arguments through
  its own ``_run(*args, config, run_manager, **kwargs)``, which swallows a tool
  argument named ``config`` or ``run_manager`` and fails on one named ``self``;
  the tools here are a ``StructuredTool`` subclass that hands the dict over whole
  (it overrides ``_to_args_and_kwargs``, langchain-core's own hook for this, in
  the 1.x range the extra pins).
* ``func`` runs the call on the caller's thread; ``coroutine`` awaits it on a
  thread of its own that ends with the call (no event loop is made).
  Cancelling the awaiting task asks the provider to abandon the call.
* ``response_format="content_and_artifact"``: the content is the text the
  provider made of the result (images are described in it, as for any model),
  the artifact the result's ``structuredContent`` (None when it sent none).
* A refused call (a Policy ``deny``, an ``ask`` nobody allowed) and a server's
  ``isError`` raise ``ToolException`` with the provider's text, and the tools
  have ``handle_tool_error=True``: invoked with a tool call, the agent loop gets a
  ``ToolMessage`` with ``status="error"`` and that text, and goes on.  A tool a
  Policy denies outright is not published, so no tool is made of it.
* ``metadata`` is a copy of the tool's annotations (``readOnlyHint``...), or
  None, as a middleware deciding on approvals would read them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import _calls

try:
    from langchain_core.tools import StructuredTool, ToolException
except ImportError as exc:   # pragma: no cover - the test extra installs it
    raise ImportError("mcp_client.adapters.langchain needs langchain-core: "
                      "pip install 'mcp-client-sync[langchain]'") from exc

if TYPE_CHECKING:
    from langchain_core.tools import BaseTool

__all__ = ["tools"]


def tools(provider: Any) -> list[BaseTool]:
    """The provider's tools as LangChain tools, in the provider's order.

    Args:
        provider: any provider (a Client, a Registry, a Policy or Leases stack).

    Returns:
        one ``StructuredTool`` per tool, named as the provider publishes it.

    Raises:
        MCPClientError: ``provider`` is not a provider, or its tools cannot be listed.

    :rtype: a list of ``langchain_core.tools.BaseTool``
    """
    return [_tool(provider, tool) for tool in _calls.catalogue(provider)]


class _ProviderTool(StructuredTool):
    """A ``StructuredTool`` that hands its arguments to ``func`` as one dict."""

    def _to_args_and_kwargs(self, tool_input: str | dict[str, Any],
                            tool_call_id: str | None) -> tuple[tuple[Any, ...], dict[str, Any]]:
        parsed = self._parse_input(tool_input, tool_call_id)   # a dict schema: as given
        return (dict(parsed) if isinstance(parsed, dict) else parsed,), {}


def _tool(provider: Any, declared: _calls.Tool) -> BaseTool:
    name = declared.name

    def run(arguments: dict[str, Any]) -> tuple[str, Any]:
        return _answer(_calls.call(provider, name, arguments))

    async def run_async(arguments: dict[str, Any]) -> tuple[str, Any]:
        return _answer(await _calls.call_async(provider, name, arguments))

    return _ProviderTool(name=name, description=declared.description,
                         args_schema=declared.parameters, func=run, coroutine=run_async,
                         response_format="content_and_artifact", handle_tool_error=True,
                         metadata=declared.annotations)


def _answer(outcome: _calls.Outcome) -> tuple[str, Any]:
    """``(content, artifact)``, or the refusal or failure as a ``ToolException``."""
    if outcome.is_error:
        raise ToolException(outcome.text)
    return outcome.text, outcome.structured
