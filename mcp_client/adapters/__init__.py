"""Adapters: a provider's tools in the shapes other tool loops take.

Each module takes **any provider** -- a :class:`~mcp_client.Client`, a
:class:`~mcp_client.Registry`, a :class:`~mcp_client.policy.Policy` or
:class:`~mcp_client.leases.Leases` stack -- so the layers come along wherever the
tools go: a call a policy denies comes back as that format's tool output, never
reaching the server.  Nothing here is imported by ``import mcp_client``; import
the module of the format you need:

* :mod:`mcp_client.adapters.anthropic` -- the Anthropic Messages API's tools,
  ``tool_use`` blocks to ``tool_result`` blocks (plain data; extra ``anthropic``
  for the SDK that sends it).
* :mod:`mcp_client.adapters.gemini` -- Gemini's function declarations (JSON Schema
  passed through), ``function_call`` parts to ``function_response`` parts (plain
  data; extra ``gemini`` for ``google-genai``).
* :mod:`mcp_client.adapters.openai_responses` -- the OpenAI Responses API's flat
  function tools, ``function_call`` output items to ``function_call_output`` items
  (plain data; needs no extra).
* :mod:`mcp_client.adapters.langchain` -- LangChain ``StructuredTool`` objects, for
  ``invoke`` and ``ainvoke`` (extra ``langchain``).
* :mod:`mcp_client.adapters.smolagents` -- ``smolagents.Tool`` objects for
  ``ToolCallingAgent`` and ``CodeAgent`` (extra ``[smolagents]``).
* :mod:`mcp_client.adapters.pydantic_ai` -- a pydantic-ai toolset; a policy's
  ``ask`` as pydantic-ai's approval step (extra ``pydantic-ai``).
* :mod:`mcp_client.adapters.openai_agents` -- openai-agents ``FunctionTool``
  objects for an ``Agent`` (the run's approval able to answer a policy's ask),
  or the provider as an ``agents.mcp.MCPServer`` (extra ``openai-agents``).
"""
