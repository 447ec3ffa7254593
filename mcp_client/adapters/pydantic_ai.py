"""A provider's tools as a pydantic-ai toolset.

:func:`toolset` hands an ``Agent`` every tool of any provider -- a
:class:`~mcp_client.Client`, a :class:`~mcp_client.registry.Registry`, a
:class:`~mcp_client.policy.Policy` stack -- so the layers judge every call the
agent makes::

    from pydantic_ai import Agent
    from mcp_client.adapters import pydantic_ai as mcp_tools

    agent = Agent(model, toolsets=[mcp_tools.toolset(policy)])
    result = agent.run_sync("...")            # or: await agent.run("...")

Needs the ``pydantic-ai`` extra (``pip install 'mcp-client-sync[pydantic-ai]'``,
pydantic-ai-slim 2.68 or later 2.x); importing this module without it raises
:class:`ImportError` saying so.  ``import mcp_client`` never imports it.

Decisions:

* The toolset is an ``AbstractToolset`` subclass (:class:`ProviderToolset`),
  not a ``FunctionToolset`` of ``Tool.from_schema`` tools: its
  ``ToolDefinition`` carries the provider's name, description and JSON Schema
  as published (no function signature is read, no pydantic model is made; the
  arguments are checked by the server, not by pydantic-ai), it lists the
  provider's tools afresh at every run step (a tool a server adds, or a policy
  hides, shows up or goes at the next step), and ``call_tool`` is a coroutine
  that awaits the call (:func:`~mcp_client.adapters._calls.call_async`): the
  blocking call runs on a thread of its own that ends with it, where pydantic-ai
  would run a sync tool function in its worker pool.  Listing the tools, which
  may be a round trip to a server, is done the same way, off the event loop.
  ``strict`` is False: most servers' schemas are not strict-mode schemas.
* A tool whose server says it changes nothing (``readOnlyHint``) may run in
  parallel with the calls around it; every other tool is ``sequential`` (it
  runs alone: the calls the model made before it finish first, the ones after
  it start when it is done).  The annotations are in the definition's
  ``metadata["annotations"]`` (for ``toolset(...).filtered(...)``).
* A call a layer refuses (a policy's ``deny``, an ``ask`` refused), a result
  the server marked ``isError``, and a call that failed on the wire raise
  pydantic-ai's ``ToolFailed`` with the provider's text: the model reads it as
  a failed tool result (``outcome='failed'``, on the model API's own error
  channel), no retry is counted, and the run goes on.  ``ModelRetry`` is not
  used: it spends the tool's retry budget, and a model that insists on a denied
  call would end the run with an exception once it is spent.
* A result's ``structuredContent`` is the ``metadata`` of a ``ToolReturn``
  (kept in the message history, not sent to the model); the model reads the
  result's text, as the provider words it.
* A policy's ``ask`` can become pydantic-ai's own approval step: give the
  policy an :class:`Approvals` as its ``on_ask`` and the toolset the same
  object.  A call the policy asks about then ends the run with a
  ``DeferredToolRequests`` output (the agent's ``output_type`` must allow
  it), whose ``metadata[tool_call_id]`` is the policy's question; the run
  resumed with ``DeferredToolResults(approvals={tool_call_id: True})`` runs it
  (``False`` refuses it, in pydantic-ai's words).  Only that approved call is
  let through: the approval is tied to the call's ``tool_call_id`` all the way
  down, not to its name or arguments.
* The provider is not owned: closing it is the caller's business.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any, Mapping

from ..exceptions import MCPClientError
from . import _calls

try:
    from pydantic_ai import (AbstractToolset, ApprovalRequired, RunContext, ToolDefinition,
                             ToolFailed, ToolReturn, ToolsetTool)
    from pydantic_core import SchemaValidator, core_schema
except ImportError as exc:   # the extra is not installed: say which one
    raise ImportError("mcp_client.adapters.pydantic_ai needs pydantic-ai: "
                      "pip install 'mcp-client-sync[pydantic-ai]'") from exc

__all__ = ["toolset", "ProviderToolset", "Approvals"]


#: The arguments go to the provider as the model sent them: the server checks them
#: against its own schema (``Tool.from_schema`` does the same).
_ANY_ARGUMENTS = SchemaValidator(core_schema.any_schema())

#: The answers :class:`Approvals` gives a policy (:data:`mcp_client.policy.ANSWERS`).
_ALLOW, _DENY = "allow-once", "deny-once"


def toolset(provider: Any, *, id: str | None = None,
            approvals: Approvals | None = None) -> ProviderToolset:
    """The provider's tools as a pydantic-ai toolset (``Agent(toolsets=[...])``).

    Args:
        provider: any provider (``tools_for_llm()`` and ``execute_tool_calls(calls)``).
        id: the toolset's id, unique among an agent's toolsets (durable execution
            needs one).
        approvals: the :class:`Approvals` the provider's policy asks (its
            ``on_ask``): a call it asks about is deferred for approval.

    Raises:
        MCPClientError: ``provider`` is not a provider, or ``approvals`` is not an
            :class:`Approvals`.
    """
    return ProviderToolset(provider, id=id, approvals=approvals)


class ProviderToolset(AbstractToolset[Any]):
    """A provider's tools for a pydantic-ai agent (see the module docstring).

    An ``AbstractToolset``: pydantic-ai calls its ``get_tools`` (the provider's
    tools, listed afresh at every run step) and ``call_tool`` (one call through
    the provider, awaited; a refusal or an ``isError`` result raises
    ``ToolFailed``).  Tools that cannot be listed (a dead server) raise
    :class:`~mcp_client.exceptions.MCPClientError` out of the run, as does a
    provider that breaks its contract: neither is a call to refuse.

    Args:
        provider: any provider; its tools are listed at every run step.
        id: the toolset's id (see ``AbstractToolset.id``).
        approvals: see :func:`toolset`.
    """

    def __init__(self, provider: Any, *, id: str | None = None,
                 approvals: Approvals | None = None) -> None:
        _calls.check_provider(provider, "toolset")
        if approvals is not None and not isinstance(approvals, Approvals):
            raise MCPClientError("approvals must be a mcp_client.adapters.pydantic_ai.Approvals")
        self.provider = provider
        self._id = id
        self._approvals = approvals

    @property
    def id(self) -> str | None:
        """The id given to :func:`toolset` (None: none)."""
        return self._id

    async def get_tools(self, ctx: RunContext[Any]) -> dict[str, ToolsetTool[Any]]:
        """The provider's tools now, in its order, listed off the event loop."""
        found = await _calls.off_loop(lambda: _calls.catalogue(self.provider), "mcp-adapter-tools")
        return {tool.name: ToolsetTool(toolset=self, tool_def=_definition(tool),
                                       max_retries=ctx.max_retries,
                                       args_validator=_ANY_ARGUMENTS)
                for tool in found}

    async def call_tool(self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any],
                        tool: ToolsetTool[Any]) -> Any:
        """Run one call through the provider.

        Returns:
            the result's text, or a ``ToolReturn`` whose ``metadata`` is its
            ``structuredContent``.

        Raises:
            ToolFailed: the call was refused, failed, or its result is ``isError``
                (pydantic-ai tells the model; the run goes on).
            ApprovalRequired: the policy asked about it and ``approvals`` defers it.
            MCPClientError: the provider broke its contract.
        """
        if self._approvals is None:
            outcome = await _calls.call_async(self.provider, name, tool_args)
        else:
            outcome = await self._approvals.run(self.provider, name, tool_args,
                                                approved=ctx.tool_call_approved,
                                                answer=ctx.tool_call_metadata)
        if outcome.is_error:
            raise ToolFailed(outcome.text)
        if outcome.structured is not None:
            return ToolReturn(return_value=outcome.text, metadata=outcome.structured)
        return outcome.text

    def __repr__(self) -> str:
        approvals = " approvals" if self._approvals is not None else ""
        return f"<ProviderToolset id={self._id!r} provider={type(self.provider).__name__}" \
               f"{approvals}>"


def _definition(tool: _calls.Tool) -> ToolDefinition:
    return ToolDefinition(name=tool.name, description=tool.description or None,
                          parameters_json_schema=tool.parameters, strict=False,
                          sequential=not tool.read_only,
                          metadata=None if tool.annotations is None
                          else {"annotations": tool.annotations})


@dataclass
class _Waiting:
    """One call on its way through the provider, as :class:`Approvals` knows it."""

    approved: bool
    answer: Any = _ALLOW
    question: dict[str, Any] | None = None


class Approvals:
    """A policy's ``on_ask`` that turns its questions into pydantic-ai approvals.

    Give the same object to the policy (``Policy(..., on_ask=approvals)``) and
    to :func:`toolset`.  When the policy asks about a call the agent made, the
    call is refused for now (nothing is remembered), and the toolset raises
    ``ApprovalRequired`` with the question as its metadata: the run ends with a
    ``DeferredToolRequests``.  When the resumed run brings the call back
    approved, the policy's question about it is answered ``"allow-once"`` --
    or, when the approval's ``DeferredToolResults.metadata[tool_call_id]`` has
    an ``"answer"``, that answer (``"always-allow"``, or a dict with a
    ``rule``), which the policy checks and may remember.

    A question about a call this object did not send (another caller of the
    policy) is answered ``"deny-once"``; an elicitation (a dict without
    ``"kind"``) is declined.  Thread-safe.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._waiting: dict[str, _Waiting] = {}

    def __call__(self, question: dict[str, Any]) -> Any:
        """The policy's ``on_ask``."""
        if question.get("kind") != "permission":
            return {"action": "decline"}
        call = question.get("call")
        ident = call.get("id") if isinstance(call, Mapping) else None
        with self._lock:
            waiting = self._waiting.get(ident) if isinstance(ident, str) else None
            if waiting is None:
                return _DENY
            if waiting.approved:
                return waiting.answer
            waiting.question = question
        return _DENY

    async def run(self, provider: Any, name: str, arguments: Any, *, approved: bool,
                  answer: Any = None) -> _calls.Outcome:
        """One call through ``provider``, its policy's question answered by this object.

        When the call was not approved and the policy asked about it, pydantic-ai's
        ``ApprovalRequired`` is raised, with the question as its ``metadata``.

        Args:
            approved: pydantic-ai approved the call (``ctx.tool_call_approved``).
            answer: the approval's metadata (``ctx.tool_call_metadata``).
        """
        ident = _calls.new_id()
        chosen = answer.get("answer", _ALLOW) if isinstance(answer, Mapping) else _ALLOW
        waiting = _Waiting(approved, chosen)
        with self._lock:
            self._waiting[ident] = waiting
        try:
            outcome = await _calls.off_loop(
                lambda: _calls.call(provider, name, arguments, ident=ident),
                f"mcp-adapter-{name}", on_cancel=lambda: _calls.cancel(provider, ident))
        finally:
            with self._lock:
                del self._waiting[ident]
        if waiting.question is not None:
            raise ApprovalRequired(metadata=waiting.question)
        return outcome

    def __repr__(self) -> str:
        with self._lock:
            return f"<Approvals waiting={len(self._waiting)}>"
