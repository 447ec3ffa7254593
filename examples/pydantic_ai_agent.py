"""A pydantic-ai agent whose tools are an MCP server's, behind a policy that asks.

Run it from the repository root (needs ``pip install -e '.[examples,pydantic-ai]'``)::

    python examples/pydantic_ai_agent.py

1. ``examples/servers/quickstart_server.py`` runs as a child process over stdio, in
   a ``Registry`` under the prefix ``text``.
2. A ``Policy`` lets reads through and asks about ``text_add``; its ``on_ask`` is an
   ``Approvals``, which turns the question into pydantic-ai's own approval step.
3. The agent's model is pydantic-ai's ``FunctionModel`` following a script (so the
   example needs no network and no API key): it calls ``text_echo`` and
   ``text_add``, then answers with what the tools returned.
4. The echo runs; the add is asked about, so the run ends with a
   ``DeferredToolRequests`` carrying the policy's question.  The "human" here
   approves it, the run resumes, and the add runs.
"""

from __future__ import annotations

import sys
from pathlib import Path

from pydantic_ai import (Agent, DeferredToolRequests, DeferredToolResults, ToolCallPart,
                         ToolReturnPart)
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from mcp_client import Client, Registry
from mcp_client.adapters import pydantic_ai as mcp_tools
from mcp_client.policy import Policy

SERVER = Path(__file__).resolve().parent / "servers" / "quickstart_server.py"


def script(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """The stand-in model: two calls, then a sentence about what came back."""
    if len(messages) == 1:
        print("the agent sees:", " ".join(tool.name for tool in info.function_tools))
        return ModelResponse(parts=[ToolCallPart("text_echo", {"text": "hello"}, tool_call_id="e1"),
                                    ToolCallPart("text_add", {"a": 2, "b": 3}, tool_call_id="a1")])
    results = [f"{part.tool_name} gave {part.model_response_str()}"
               for message in messages if isinstance(message, ModelRequest)
               for part in message.parts if isinstance(part, ToolReturnPart)]
    return ModelResponse(parts=[TextPart("; ".join(results))])


def main() -> int:
    approvals = mcp_tools.Approvals()
    with Registry() as registry:
        registry.add(Client.connect_stdio(sys.executable, args=[str(SERVER)]), prefix="text",
                     owned=True)
        policy = Policy(registry, rules=[*Policy.default_rules(),
                                         {"tool": "text_add", "decision": "ask",
                                          "note": "sums need a look"}],
                        on_ask=approvals)
        agent = Agent(FunctionModel(script),
                      toolsets=[mcp_tools.toolset(policy, approvals=approvals)],
                      output_type=[str, DeferredToolRequests])
        first = agent.run_sync("Echo hello and add 2 and 3.")
        assert isinstance(first.output, DeferredToolRequests)
        decisions = {}
        for call in first.output.approvals:
            question = first.output.metadata[call.tool_call_id]
            print(f"  [human] {call.tool_name} {call.args}: {question['why']} -> approve")
            decisions[call.tool_call_id] = True
        resumed = agent.run_sync(message_history=first.all_messages(),
                                 deferred_tool_results=DeferredToolResults(approvals=decisions))
        print("agent:", resumed.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
