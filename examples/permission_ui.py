"""A permission UI, wired: every elicitation goes in front of a "human".

The seed's "A permission UI, wired", in Python: a remembered allow-list so the
same question is not asked twice, one dialog at a time (hooks run on whichever
thread the call runs on, and two tools may be in flight at once), ``cancel``
when the human dismisses the question, and a bounded round budget.

The human here is scripted (``ScriptedUI``) so the example runs unattended and
prints the same thing every time; swap in a real dialog.  The server is the
test suite's demo server, built with the official MCP SDK::

    python examples/permission_ui.py
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path
from typing import Any

from mcp_client import Client, InputLoopExceeded

SERVER = Path(__file__).resolve().parent.parent / "tests" / "servers" / "dual_stdio.py"


class ScriptedUI:
    """Answers questions from a script; None means the human dismissed it."""

    def __init__(self, answers: dict[str, Any]) -> None:
        self.answers = answers
        self.remember_this = True

    def prompt(self, message: str, schema: dict[str, Any] | None) -> Any:
        answer = self.answers.get(message)
        print(f"  [ui] {message!r} -> {answer!r}")
        return answer


ui = ScriptedUI({"What is your name?": {"name": "Ada"}, "Really deploy prod?": {"ok": True}})
remembered: dict[str, Any] = {}
ask_lock = threading.Lock()


def ask_the_user(request: dict[str, Any]) -> dict[str, Any]:
    params = request.get("params") or {}
    message = str(params.get("message") or "The server is asking for something.")
    with ask_lock:   # one dialog at a time
        if message in remembered:
            print(f"  [ui] {message!r} answered from memory")
            return {"action": "accept", "content": remembered[message]}
        answer = ui.prompt(message, params.get("requestedSchema"))
        # 'decline' answers the question with a no; 'cancel' says the user
        # dismissed the whole request.  The server must handle both.
        if answer is None:
            return {"action": "cancel"}
        if ui.remember_this:
            remembered[message] = answer
        return {"action": "accept", "content": answer}


def main() -> None:
    with Client.connect_stdio(sys.executable, args=[str(SERVER)], on_elicit=ask_the_user,
                              max_input_rounds=3,
                              on_warn=lambda m: print(f"mcp: {m}", file=sys.stderr)) as mcp:
        calls = [("greet", {}), ("greet", {}), ("confirm", {"action": "deploy prod"}),
                 ("confirm", {"action": "drop the database"})]
        for tool, arguments in calls:
            try:
                result = mcp.call_tool(tool, arguments)
            except InputLoopExceeded as exc:
                print(f"{tool!r} kept asking past {exc.rounds} rounds; giving up")
                continue
            text = "".join(block.get("text", "") for block in result["content"])
            print(f"{tool}: {text}")


if __name__ == "__main__":
    main()
