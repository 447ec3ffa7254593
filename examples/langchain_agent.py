"""One turn of a LangChain tool loop over an MCP server, with a Policy in between.

Run it from the repository root (needs ``pip install -e '.[langchain,examples]'``)::

    python examples/langchain_agent.py

1. ``examples/servers/quickstart_server.py`` runs as a child process, behind a
   Registry (``qs_echo``, ``qs_add``, ``qs_word_count``).
2. A Policy over it lets reads through and asks about ``qs_add``; ``on_ask``
   stands in for the human (here it says no).
3. ``mcp_client.adapters.langchain.tools`` makes LangChain tools of what the
   Policy publishes.
4. The model is LangChain's own ``GenericFakeChatModel``, taught ``bind_tools``
   as a provider integration does it: it follows a script, so the example needs
   no network and no API key.  Swap in ``ChatOpenAI`` or any chat model with
   ``bind_tools`` and nothing else changes.
5. The loop runs each tool call with ``tool.invoke(tool_call)``, which answers
   with a ``ToolMessage`` -- ``status="error"`` for the refused call -- and
   hands the messages back to the model.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Sequence, cast

from langchain_core.language_models import LanguageModelInput
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolCall, ToolMessage
from langchain_core.runnables import Runnable
from langchain_core.utils.function_calling import convert_to_openai_tool

from mcp_client import Client
from mcp_client.adapters import langchain
from mcp_client.policy import Policy
from mcp_client.registry import Registry

SERVER = Path(__file__).resolve().parent / "servers" / "quickstart_server.py"


class ScriptedChatModel(GenericFakeChatModel):
    """LangChain's fake chat model, with the ``bind_tools`` a real one has."""

    def bind_tools(self, tools: Sequence[Any], *, tool_choice: str | None = None,
                   **kwargs: Any) -> Runnable[LanguageModelInput, AIMessage]:
        formatted = [convert_to_openai_tool(tool) for tool in tools]
        return cast("Runnable[LanguageModelInput, AIMessage]",
                    self.bind(tools=formatted, **kwargs))


def ask_the_human(question: dict[str, Any]) -> str:
    """The Policy's ``on_ask``: a real program shows the question and waits."""
    print(f"  [human] {question['tool']} {question['arguments']}: {question['why']} -> no")
    return "deny-once"


def script() -> list[AIMessage]:
    calls = [ToolCall(name="qs_word_count", args={"text": "gears turn sprockets"}, id="call_1"),
             ToolCall(name="qs_add", args={"a": 2, "b": 3}, id="call_2")]
    return [AIMessage(content="", tool_calls=calls),
            AIMessage(content="Three words; the sum was not allowed.")]


def main() -> None:
    with Registry() as registry:
        registry.add(Client.connect_stdio(sys.executable, args=[str(SERVER)]), prefix="qs",
                     owned=True)
        provider = Policy(registry, rules=[{"tool": "qs_add", "decision": "ask"},
                                           {"tool": "qs_*", "decision": "allow"}],
                          on_ask=ask_the_human)
        tools = langchain.tools(provider)
        by_name = {tool.name: tool for tool in tools}
        print("tools:", " ".join(by_name))
        model = ScriptedChatModel(messages=iter(script())).bind_tools(tools)
        messages: list[BaseMessage] = [HumanMessage("Count the words, then add 2 and 3.")]
        reply = model.invoke(messages)
        messages.append(reply)
        for call in reply.tool_calls:
            print(f"-> {call['id']} {call['name']} {call['args']}")
            answer = cast(ToolMessage, by_name[call["name"]].invoke(call))
            print(f"<- {answer.tool_call_id} ({answer.status}): {answer.content}")
            messages.append(answer)
        print("assistant:", model.invoke(messages).content)


if __name__ == "__main__":
    main()
