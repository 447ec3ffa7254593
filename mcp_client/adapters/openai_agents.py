"""A provider's tools as openai-agents ``FunctionTool`` objects.

Each tool the provider publishes becomes one ``agents.FunctionTool``, so an
``Agent`` runs it with ``Runner.run`` or ``Runner.run_sync`` like any of its
own tools, and every layer of the provider (a :class:`~mcp_client.policy.Policy`,
:class:`~mcp_client.leases.Leases`...) judges each call::

    from agents import Agent, Runner
    from mcp_client.adapters import openai_agents

    agent = Agent(name="helper", tools=openai_agents.tools(provider))
    result = Runner.run_sync(agent, "What is in the notes?")

Decisions:

* Names and descriptions are the provider's; ``params_json_schema`` is the JSON
  Schema as published (a copy), with ``strict_json_schema=False`` -- the SDK
  rewrites a schema only in strict mode, and most servers' schemas are not
  strict-mode schemas (every property required, no extra keys).
* A call runs as a batch of one through the provider
  (:mod:`mcp_client.adapters._calls`), awaited without an event loop of its
  own: its thread ends with the call, and a cancelled run cancels the call.
* A refusal (a policy's deny, a refused ask) and a server's ``isError`` result
  are the tool's output: the text the provider words, which the model reads
  -- the SDK's convention for a tool that failed, as it does for its own MCP
  servers.  Nothing about one call ends the run.
* Only a provider that breaks its contract (raises, answers no entry) makes
  ``on_invoke_tool`` fail; that goes through ``failure_error_function`` as in
  the SDK's ``function_tool``: by default the SDK's
  ``default_tool_error_function`` message is the output (the error is logged),
  and ``None`` lets the exception end the run.
* Approvals stay the SDK's: ``needs_approval`` makes the run stop with
  ``result.interruptions`` until ``RunState.approve`` / ``reject``.  To let the
  run's approval be the answer to a policy's ``ask``, give the policy
  ``on_ask=``:func:`approved_in_run` (see there).
* The output is the result's text; ``structuredContent`` is not added to it.
* :class:`MCPServerProvider` is the other door: the provider as an
  ``agents.mcp.MCPServer``, for ``Agent(mcp_servers=[...])``, when the SDK's own
  MCP options (``tool_filter``, ``require_approval``...) are wanted.  The calls
  go through the provider just the same.

Importing this module imports ``agents``; ``import mcp_client`` never does.
"""

from __future__ import annotations

import inspect
import logging
import threading
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Collection, Mapping, Union

from ..exceptions import MCPClientError
from . import _calls

try:
    from agents import FunctionTool, RunContextWrapper, default_tool_error_function
    from agents.mcp import MCPServer, ToolFilterContext
    from agents.tool_context import ToolContext
    from mcp import types as mcp_types
except ImportError as exc:   # the extra is not installed
    raise ImportError("mcp_client.adapters.openai_agents needs openai-agents: "
                      "pip install 'mcp-client-sync[openai-agents]'") from exc

if TYPE_CHECKING:
    # Names the reference cannot link to (the SDK has no inventory): the annotations
    # below stay strings there, and the docstrings say what they are.
    _FunctionTools = list[FunctionTool]
    _FailureErrorFunction = Callable[[RunContextWrapper[Any], Exception], Any]
    _RunContext = RunContextWrapper[Any]
    _MCPTools = list[mcp_types.Tool]

__all__ = ["tools", "approved_in_run", "NeedsApproval", "MCPServerProvider"]

log = logging.getLogger(__name__)


#: Which calls stop the run for an approval: all (True) or none (False, None), the
#: tools named, or ``needs_approval(name, arguments) -> bool`` (or an awaitable of one).
NeedsApproval = Union[bool, None, Collection[str],
                      Callable[[str, dict[str, Any]], Union[bool, Awaitable[bool]]]]

#: What the call running on this thread was approved as in the agent run.
_approval = threading.local()


def tools(provider: Any, *, needs_approval: NeedsApproval = None,
          failure_error_function: _FailureErrorFunction | None = default_tool_error_function,
          ) -> _FunctionTools:
    """The provider's tools as ``FunctionTool`` objects, in the provider's order.

    Args:
        provider: any provider (a Client, a Registry, a Policy stack...).
        needs_approval: which calls stop the run for a human's approval (the SDK's
            ``needs_approval``): ``True`` every call, ``None``/``False`` none, a
            collection of tool names those tools' calls, or a callable
            ``needs_approval(name, arguments) -> bool`` (may be async) deciding
            per call.
        failure_error_function: what the model reads when the *provider* fails
            (breaks its contract), as in the SDK's ``function_tool``; ``None``
            lets the exception end the run.  A refusal or a tool's ``isError``
            is never a failure: its text is the output.  It is called
            ``(run_context, error)`` and returns the text (or an awaitable of it).

    Returns:
        one ``agents.FunctionTool`` per tool.

    Raises:
        MCPClientError: ``provider`` is not a provider, its tools cannot be
            listed, or ``needs_approval`` is none of the forms above.
    """
    decide = _approval_policy(needs_approval)
    return [FunctionTool(name=tool.name, description=tool.description,
                         params_json_schema=tool.parameters,
                         on_invoke_tool=_invoker(provider, tool.name, failure_error_function),
                         strict_json_schema=False,
                         needs_approval=decide(tool.name))
            for tool in _calls.catalogue(provider)]


def approved_in_run(question: dict[str, Any]) -> str:
    """A policy's ``on_ask`` that lets the agent run's approval answer the question.

    Give a :class:`~mcp_client.policy.Policy` ``on_ask=approved_in_run`` and hand
    it to :func:`tools` with ``needs_approval`` covering the tools the policy asks
    about: the run stops for approval (``result.interruptions``), and a call
    approved there (``RunState.approve``) is allowed once when the policy asks.
    Any other question -- a call the run did not stop for, or one decided on a
    thread other than the call's -- is refused (fails closed).  A deny rule
    still refuses before anything is asked.

    Returns:
        ``"allow-once"``.

    Raises:
        MCPClientError: the call was not approved in the run (the policy then
            refuses it, saying so).
    """
    approved = getattr(_approval, "tool", None)
    if approved is not None and question.get("tool") == approved:
        return "allow-once"
    raise MCPClientError(f"{question.get('tool')} was not approved in the agent run "
                         "(give the tool needs_approval to have the run ask)")


def _approval_policy(needs_approval: NeedsApproval) -> Callable[[str], Any]:
    """``name -> FunctionTool.needs_approval`` for one of the accepted forms."""
    if needs_approval is None or isinstance(needs_approval, bool):
        return lambda name: bool(needs_approval)
    if callable(needs_approval):
        decide = needs_approval

        def per_call(name: str) -> Any:
            async def check(ctx: RunContextWrapper[Any], arguments: dict[str, Any],
                            call_id: str) -> bool:
                answer = decide(name, dict(arguments))
                return bool(await answer if inspect.isawaitable(answer) else answer)
            return check
        return per_call
    if isinstance(needs_approval, (str, bytes)) or not isinstance(needs_approval, Collection):
        raise MCPClientError("needs_approval takes a bool, a collection of tool names or a "
                             f"callable, not {type(needs_approval).__name__}")
    names = frozenset(needs_approval)
    return lambda name: name in names


class _Approved:
    """The provider, seen from one approved call's thread: :func:`approved_in_run` knows it.

    It has what :func:`~mcp_client.adapters._calls.call_async` uses of a provider.
    """

    def __init__(self, provider: Any, name: str) -> None:
        self.provider = provider
        self.name = name

    def execute_tool_calls(self, calls: list[Any]) -> Any:
        _approval.tool = self.name
        try:
            return self.provider.execute_tool_calls(calls)
        finally:
            _approval.tool = None

    def cancel_tool_calls(self, ids: list[Any]) -> Any:
        cancel = getattr(self.provider, "cancel_tool_calls", None)
        return cancel(ids) if callable(cancel) else 0


def _invoker(provider: Any, name: str, failure_error_function: _FailureErrorFunction | None,
             ) -> Callable[[ToolContext[Any], str], Awaitable[str]]:
    """The ``on_invoke_tool`` of one tool."""

    async def invoke(ctx: ToolContext[Any], arguments: str) -> str:
        call_id = getattr(ctx, "tool_call_id", None)
        approved = isinstance(call_id, str) and ctx.is_tool_approved(name, call_id) is True
        try:
            outcome = await _calls.call_async(_Approved(provider, name) if approved else provider,
                                              name, arguments or None)
        except Exception as exc:
            if failure_error_function is None:
                raise
            log.warning("%s: %s", name, exc)
            message = failure_error_function(ctx, exc)
            return str(await message if inspect.isawaitable(message) else message)
        return outcome.text

    return invoke


class MCPServerProvider(MCPServer):
    """A provider as an openai-agents MCP server, for ``Agent(mcp_servers=[...])``.

    The SDK then turns the tools into its own MCP function tools, so what it
    offers MCP servers applies: ``tool_filter``, ``require_approval``,
    ``failure_error_function``, ``use_structured_content``, the agent's
    ``mcp_config``.  Every call still goes through the provider's layers, and a
    refusal or an ``isError`` result is an ``isError`` ``CallToolResult`` whose
    text the model reads.

    The provider is not owned: :meth:`connect` and :meth:`cleanup` do nothing
    (whoever made the provider closes it).  Prompts are the provider's when it
    has them (a :class:`~mcp_client.Client`); a Registry or a layer has none.
    The SDK's ``require_approval`` cannot answer a policy's ask
    (:func:`approved_in_run` needs the call's approval, which the SDK does not
    hand to ``call_tool``): use :func:`tools` for that.

    Args:
        provider: any provider.
        name: the server's name for the SDK (default: ``"mcp_client"``).
        tool_filter: the SDK's ``ToolFilter``: a static
            ``{"allowed_tool_names": [...], "blocked_tool_names": [...]}``, or
            ``tool_filter(context, tool) -> bool`` (may be async; raising leaves
            the tool out).
        **options: ``agents.mcp.MCPServer``'s own keyword arguments
            (``require_approval``, ``failure_error_function``...).

    Raises:
        MCPClientError: ``provider`` is not a provider.
    """

    def __init__(self, provider: Any, *, name: str = "mcp_client", tool_filter: Any = None,
                 **options: Any) -> None:
        _calls.check_provider(provider, "MCPServerProvider")
        super().__init__(**options)
        self.provider = provider
        self._name = name
        self.tool_filter = tool_filter

    def __repr__(self) -> str:
        return f"<MCPServerProvider {self._name!r} over {type(self.provider).__name__}>"

    @property
    def name(self) -> str:
        """The server's name, as the SDK shows it."""
        return self._name

    async def connect(self) -> None:
        """Nothing to do: the provider is connected by whoever made it."""

    async def cleanup(self) -> None:
        """Nothing to do: the provider is closed by whoever made it."""

    async def list_tools(self, run_context: _RunContext | None = None,
                         agent: Any = None) -> _MCPTools:
        """The provider's tools as ``mcp.types.Tool``, through ``tool_filter``."""
        found = await _calls.off_loop(lambda: _calls.catalogue(self.provider),
                                      "mcp-adapter-tools")
        listed = [_mcp_tool(tool) for tool in found]
        if self.tool_filter is None:
            return listed
        if isinstance(self.tool_filter, Mapping):
            allowed = self.tool_filter.get("allowed_tool_names")
            blocked = self.tool_filter.get("blocked_tool_names") or ()
            return [tool for tool in listed if (allowed is None or tool.name in allowed)
                    and tool.name not in blocked]
        if run_context is None or agent is None:
            raise MCPClientError("a tool_filter function needs the run context and the agent")
        context = ToolFilterContext(run_context=run_context, agent=agent, server_name=self.name)
        return [tool for tool in listed if await self._keeps(context, tool)]

    async def _keeps(self, context: ToolFilterContext, tool: mcp_types.Tool) -> bool:
        try:
            kept = self.tool_filter(context, tool.model_copy(deep=True))
            return bool(await kept if inspect.isawaitable(kept) else kept)
        except Exception as exc:   # the SDK's rule: a filter that fails leaves the tool out
            log.warning("tool_filter raised on %s: %s: %s", tool.name, type(exc).__name__, exc)
            return False

    async def call_tool(self, tool_name: str, arguments: dict[str, Any] | None,
                        meta: dict[str, Any] | None = None) -> mcp_types.CallToolResult:
        """One call through the provider (``meta`` is not sent: a provider call has none)."""
        outcome = await _calls.call_async(self.provider, tool_name, arguments)
        return mcp_types.CallToolResult(
            content=[mcp_types.TextContent(type="text", text=outcome.text)],
            is_error=outcome.is_error,
            structured_content=outcome.structured if isinstance(outcome.structured, dict)
            else None)

    async def list_prompts(self) -> mcp_types.ListPromptsResult:
        """The provider's prompts (none unless it has ``list_prompts``, as a Client does)."""
        lister = getattr(self.provider, "list_prompts", None)
        prompts = await _calls.off_loop(lister, "mcp-adapter-prompts") if callable(lister) else []
        return mcp_types.ListPromptsResult.model_validate({"prompts": prompts})

    async def get_prompt(self, name: str, arguments: dict[str, Any] | None = None,
                         ) -> mcp_types.GetPromptResult:
        """One prompt, rendered by the provider.

        Raises:
            MCPClientError: the provider has no prompts, or the server refused.
        """
        getter = getattr(self.provider, "get_prompt", None)
        if not callable(getter):
            raise MCPClientError(f"{type(self.provider).__name__} has no prompts")
        rendered = await _calls.off_loop(lambda: getter(name, arguments), "mcp-adapter-prompt")
        return mcp_types.GetPromptResult.model_validate(rendered)


def _mcp_tool(tool: _calls.Tool) -> mcp_types.Tool:
    return mcp_types.Tool(name=tool.name, description=tool.description or None,
                          input_schema=tool.parameters,
                          annotations=None if tool.annotations is None
                          else mcp_types.ToolAnnotations.model_validate(tool.annotations))
