"""Two agents, one workspace: every agent layer over a real filesystem server.

Each agent has its own stack, in the seed's order::

    Policy(UnknownKeys(Reasons(Leases(registry))))

over one shared ``Registry`` holding a real stdio filesystem server
(``examples/servers/files_server.py``, built with the official MCP SDK).  The
two agents share one ``LeaseTable`` (so they cannot overwrite each other's
edits) and one ``Grants`` book (so the human says "always" once for both).

The agents are scripted -- each step is the tool calls a model would make, in
OpenAI's shape, with a ``reason`` the Reasons layer declared -- so the example
needs no network and prints the same thing every run::

    python examples/two_agents.py

What to watch for: the permission prompt shows the reason next to the
arguments; agent-2's ``lock_acquire`` waits until agent-1 releases; agent-2's
write is not asked about (agent-1's "always" is in the shared book); agent-2's
undeclared argument is reported once; and the file ends with both edits.
"""

from __future__ import annotations

import json
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

from mcp_client import Client, Registry
from mcp_client.leases import LeaseTable, Leases
from mcp_client.policy import Grants, Policy
from mcp_client.reasons import REASON_PARAM, Reasons
from mcp_client.unknown_keys import UnknownKeys

FILES = Path(__file__).resolve().parent / "servers" / "files_server.py"
say_lock = threading.Lock()
shown_as: dict[str, str] = {}   # the temporary workspace, printed as <workspace>


def say(text: str) -> None:
    for real, shown in shown_as.items():
        text = text.replace(real, shown)
    with say_lock:
        print(text, flush=True)


def call(ident: str, name: str, **arguments: Any) -> dict[str, Any]:
    return {"id": ident, "type": "function",
            "function": {"name": name, "arguments": json.dumps(arguments)}}


class Human:
    """Answers permission questions: always allow writes inside the workspace."""

    def __init__(self, workspace: str) -> None:
        self.workspace = workspace
        self.asked = 0

    def ask(self, question: dict[str, Any]) -> Any:
        self.asked += 1
        arguments = dict(question.get("arguments") or {})
        reason = arguments.pop(REASON_PARAM, None)
        shown = {k: v for k, v in arguments.items() if k != "content"}
        say(f"  [human] {question.get('tool')} {json.dumps(shown, sort_keys=True)}")
        if reason:   # supporting text, never instead of the arguments
            say(f"          reason given: {reason}")
        say("          -> always allow writes in the workspace")
        return {"action": "always-allow",
                "rule": {"tool": "fs_*", "under": self.workspace}}


def show(name: str, results: list[dict[str, Any]]) -> None:
    for result in results:
        flag = " (error)" if result["is_error"] else ""
        say(f"  {name} <- {result['tool_call_id']}{flag}: {result['content']}")


def run(agent: Policy, name: str, calls: list[dict[str, Any]]) -> None:
    show(name, agent.execute_tool_calls(calls))


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="agents-") as workspace:
        shown_as[workspace] = "<workspace>"
        work_in(workspace)


def work_in(workspace: str) -> None:
    Path(workspace, "notes.md").write_text("# Notes\n")
    roots = {"fs": workspace, "lock": workspace}
    table, book, human = LeaseTable(), Grants(), Human(workspace)
    live = [2]
    agent2_waiting = threading.Event()

    def unknown(warning: dict[str, Any]) -> None:
        say(f"  [audit] {warning['tool']} ({warning['id']}) carried undeclared "
            f"{', '.join(warning['unknown_keys'])}; it declares "
            f"{', '.join(warning['declared_keys'])}")

    with Client.connect_stdio(sys.executable, args=[str(FILES), workspace]) as files, \
            Registry() as registry:
        registry.add(files, prefix="fs")

        def stack(agent_id: str, **lease_options: Any) -> Policy:
            leases = Leases(registry, table, agent_id, roots=roots,
                            concurrent=lambda: live[0], **lease_options)
            return Policy(UnknownKeys(Reasons(leases), unknown), rules=Policy.default_rules(),
                          roots=roots, on_ask=human.ask, grants_store=book)

        def waiting() -> None:
            say("  agent-2 waits for notes.md")
            agent2_waiting.set()

        agent1 = stack("agent-1")
        agent2 = stack("agent-2", on_wait_begin=waiting)
        agent2.tools_for_llm()   # each model is shown its tools
        declared = {d["function"]["name"]: d for d in agent1.tools_for_llm()}
        say(f"tools: {' '.join(sorted(declared))}")
        properties = declared["fs_write"]["function"]["parameters"]["properties"]
        say(f"fs_write declares: {' '.join(properties)}")

        say("agent-1: claim notes.md and write it")
        run(agent1, "agent-1", [
            call("a1", "lock_acquire", paths=["notes.md"]),
            call("a2", "fs_write", path="notes.md", content="# Notes\n- from agent-1\n",
                 reason="Record the first finding, as asked")])

        claimed: list[dict[str, Any]] = []
        second = threading.Thread(target=lambda: claimed.extend(agent2.execute_tool_calls(
            [call("b1", "lock_acquire", paths=["notes.md"], wait=30)])), name="agent-2")
        say("agent-2: claim notes.md")
        second.start()
        agent2_waiting.wait(30)

        say("agent-1: finish the edit and let go")
        run(agent1, "agent-1", [
            call("a3", "fs_edit", path="notes.md", old="- from agent-1\n",
                 new="- from agent-1 (checked)\n", reason="Mark the finding as checked"),
            call("a4", "lock_release")])
        second.join(30)
        show("agent-2", claimed)

        say("agent-2: write under its lease, then let go")
        run(agent2, "agent-2", [
            call("b2", "fs_edit", path="notes.md", old="(checked)\n",
                 new="(checked)\n- from agent-2\n", reason="Add the second finding",
                 create_backup=True),
            call("b3", "lock_release")])

        live[0] = 1
        say(f"questions asked: {human.asked}; grants in the shared book: {len(book.grants)}")
        say("notes.md now reads:")
        for line in Path(workspace, "notes.md").read_text().splitlines():
            say(f"  | {line}")
    table.release_all()


if __name__ == "__main__":
    main()
