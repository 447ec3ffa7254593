"""A smolagents agent using an MCP server's tools, through a Policy that asks a "human".

Run it from the repository root (needs the extra: ``pip install -e '.[smolagents,examples]'``)::

    python examples/smolagents_agent.py

``examples/servers/quickstart_server.py`` runs as a child process behind a Registry
(``text_echo``, ``text_add``, ``text_word_count``), under a Policy that asks about
``text_add``.  smolagents has no approval mechanism of its own, so the question goes
to the Policy's ``on_ask``; here a scripted human says no, the agent is shown the
refusal as the tool's error, and the run goes on.

``ScriptedModel`` stands in for a model (``smolagents.models.Model``): it answers
from a script, so the example needs no network and no token and prints the same
thing every run.  Swap in ``InferenceClientModel`` or ``LiteLLMModel`` and nothing
else changes.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from smolagents import CodeAgent, ToolCallingAgent
from smolagents.models import (ChatMessage, ChatMessageToolCall, ChatMessageToolCallFunction,
                               MessageRole, Model)
from smolagents.monitoring import LogLevel

from mcp_client import Client
from mcp_client.adapters import smolagents as mcp_smolagents
from mcp_client.policy import Policy
from mcp_client.registry import Registry

SERVER = Path(__file__).resolve().parent / "servers" / "quickstart_server.py"


class ScriptedModel(Model):
    """Answers each turn with the next scripted reply, and prints what it was last shown."""

    def __init__(self, script: list[Any]) -> None:
        super().__init__(model_id="scripted")
        self.script = script

    def generate(self, messages: list[Any], stop_sequences: Any = None,
                 response_format: Any = None, tools_to_call_from: Any = None,
                 **kwargs: Any) -> ChatMessage:
        last = messages[-1].content
        if messages[-1].role == MessageRole.TOOL_RESPONSE:
            shown = " | ".join(line for line in "".join(part["text"] for part in last)
                               .splitlines() if line)
            print(f"   model sees: {shown[:150].rstrip(' |')}")
        reply = self.script.pop(0)
        if isinstance(reply, str):                      # a CodeAgent writes code
            return ChatMessage(role=MessageRole.ASSISTANT, content=reply)
        name, arguments = reply                         # a ToolCallingAgent calls a tool
        print(f"-> {name} {arguments}")
        return ChatMessage(role=MessageRole.ASSISTANT, content="", tool_calls=[
            ChatMessageToolCall(id=f"call_{len(self.script)}", type="function",
                                function=ChatMessageToolCallFunction(name=name,
                                                                     arguments=arguments))])


def ask_the_human(question: dict[str, Any]) -> str:
    """The Policy's on_ask: where a real program shows a dialog."""
    print(f"   [human] may the agent run {question['tool']} {question['arguments']}? no")
    return "deny-once"


def main() -> None:
    with Registry() as registry, Client.connect_stdio(sys.executable, args=[str(SERVER)]) \
            as client:
        registry.add(client, prefix="text")
        policy = Policy(registry, rules=[{"tool": "text_add", "decision": "ask"},
                                         {"tool": "text_*", "decision": "allow"}],
                        on_ask=ask_the_human)
        tools = mcp_smolagents.tools(policy)
        print("tools:", " ".join(tool.name for tool in tools))

        model = ScriptedModel([("text_word_count", {"text": "tools for agents"}),
                               ("text_add", {"a": 2, "b": 3}),
                               ("final_answer", {"answer": "three words; no sum allowed"})])
        agent = ToolCallingAgent(tools=tools, model=model, verbosity_level=LogLevel.OFF)
        print("ToolCallingAgent:", agent.run("Count the words, then add 2 and 3."))

        model = ScriptedModel(['<code>\nprint(text_echo("hello from code"))\n</code>',
                               '<code>\nfinal_answer("echoed")\n</code>'])
        coder = CodeAgent(tools=tools, model=model, verbosity_level=LogLevel.OFF)
        print("CodeAgent:", coder.run("Echo a greeting."))


if __name__ == "__main__":
    main()
