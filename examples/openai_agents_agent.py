"""An openai-agents ``Agent`` whose tools are an MCP server's, behind a Policy.

Run it from the repository root (needs ``pip install 'mcp-client-sync[openai-agents]'``)::

    python examples/openai_agents_agent.py

1. ``examples/servers/quickstart_server.py`` runs as a child process, under the
   prefix ``text`` of a Registry.
2. A Policy over it: ``text_echo`` is allowed, ``text_word_count`` denied (so the
   agent never sees it), and ``text_add`` asked about.  Its ``on_ask`` is
   :func:`~mcp_client.adapters.openai_agents.approved_in_run`: the question is
   answered by the agent run's own approval step.
3. ``openai_agents.tools(policy, needs_approval={"text_add"})`` makes the run stop
   before each ``text_add`` call (``result.interruptions``); a human -- here a
   function -- approves or rejects each through ``RunState``, and the run goes on.
4. The model is the SDK's ``ScriptedModel``: it follows a script, so the example
   needs no network and no API key, and tracing is off.  Swap in a real model
   and nothing else changes.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from agents import Agent, RunConfig, Runner
from agents.testing import (ModelCall, ModelStep, ScriptedModel,
                            assistant_message, function_call)

from mcp_client import Client
from mcp_client.adapters import openai_agents
from mcp_client.policy import Policy
from mcp_client.registry import Registry

SERVER = Path(__file__).resolve().parent / "servers" / "quickstart_server.py"
OFFLINE = RunConfig(tracing_disabled=True)


def answer(call: ModelCall) -> Any:
    """The model's last turn: it reads the tool outputs it was given."""
    outputs = [item["output"] for item in call.input
               if isinstance(item, dict) and item.get("type") == "function_call_output"]
    return [assistant_message("I was told: " + " | ".join(outputs))]


def human(item: Any) -> bool:
    """Stands in for a person asked about a call: small sums only."""
    arguments = json.loads(item.arguments or "{}")
    print(f"approve {item.tool_name} {json.dumps(arguments)}? "
          f"{'yes' if arguments.get('a', 0) < 10 else 'no'}")
    return bool(arguments.get("a", 0) < 10)


def main() -> int:
    registry = Registry()
    registry.add(Client.connect_stdio(sys.executable, args=[str(SERVER)]), prefix="text",
                 owned=True)
    with registry:
        policy = Policy(registry, rules=[
            {"tool": "text_echo", "decision": "allow"},
            {"tool": "text_word_count", "decision": "deny"},
            {"tool": "text_add", "decision": "ask"}], on_ask=openai_agents.approved_in_run)
        model = ScriptedModel([
            [function_call("text_echo", {"text": "hello"}, call_id="call_1"),
             function_call("text_add", {"a": 2, "b": 3}, call_id="call_2"),
             function_call("text_add", {"a": 40, "b": 2}, call_id="call_3")],
            ModelStep.respond(answer)])
        agent = Agent(name="helper", model=model,
                      tools=openai_agents.tools(policy, needs_approval={"text_add"}))
        print("tools:", " ".join(tool.name for tool in agent.tools))
        result = Runner.run_sync(agent, "Say hello, then add some numbers.", run_config=OFFLINE)
        while result.interruptions:
            state = result.to_state()
            for item in result.interruptions:
                if human(item):
                    state.approve(item)
                else:
                    state.reject(item)
            result = Runner.run_sync(agent, state, run_config=OFFLINE)
        print("assistant:", result.final_output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
