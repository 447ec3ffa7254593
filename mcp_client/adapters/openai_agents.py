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

Importing this module imports ``agents``; ``import mcp_client`` never does.
"""

from __future__ import annotations

import inspect
import logging
import threading
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Collection, Union

from ..exceptions import MCPClientError
from . import _calls

try:
    from agents import FunctionTool, RunContextWrapper, default_tool_error_function
    from agents.tool_context import ToolContext
except ImportError as exc:   # the extra is not installed
    raise MCPClientError("mcp_client.adapters.openai_agents needs openai-agents: "
                         "pip install 'mcp-client-sync[openai-agents]'") from exc

if TYPE_CHECKING:
    # Names the reference cannot link to (the SDK has no inventory): the annotations
    # below stay strings there, and the docstrings say what they are.
    _FunctionTools = list[FunctionTool]
    _FailureErrorFunction = Callable[[RunContextWrapper[Any], Exception], Any]

__all__ = ["tools", "approved_in_run", "NeedsApproval"]

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
    """The provider, seen from one approved call's thread: :func:`approved_in_run` knows it."""

    def __init__(self, provider: Any, name: str) -> None:
        self.provider = provider
        self.name = name

    def tools_for_llm(self) -> Any:
        return self.provider.tools_for_llm()

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
