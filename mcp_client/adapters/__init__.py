"""Adapters: a provider's tools in the shapes other tool loops take.

Each module takes **any provider** -- a :class:`~mcp_client.Client`, a
:class:`~mcp_client.Registry`, a :class:`~mcp_client.policy.Policy` or
:class:`~mcp_client.leases.Leases` stack -- so the layers come along wherever the
tools go: a call a policy denies comes back as that format's tool output, never
reaching the server.  Nothing here is imported by ``import mcp_client``; import
the module of the format you need:

* :mod:`mcp_client.adapters.openai_responses` -- the OpenAI Responses API's flat
  function tools, ``function_call`` output items to ``function_call_output`` items
  (plain data; needs no extra).
* :mod:`mcp_client.adapters.openai_agents` -- openai-agents ``FunctionTool``
  objects for an ``Agent`` (the run's approval able to answer a policy's ask),
  or the provider as an ``agents.mcp.MCPServer`` (extra ``openai-agents``).
"""
