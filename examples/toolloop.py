"""A full tool loop: a local toolkit and a stdio server behind one Registry.

Run it from the repository root::

    python examples/toolloop.py

1. A toolkit in this process: an official-SDK ``MCPServer`` (``docs``), used
   with no subprocess and no wire (the registry wraps it in a ``LocalServer``).
2. A server on the other side of a pipe: ``examples/servers/quickstart_server.py``
   as a child process (``text``).
3. One namespace over both: ``docs_search_docs``, ``text_word_count``, ...
4. A model that cannot tell them apart.  ``ScriptedModel`` stands in for a
   chat-completions API: it takes the same messages and tool declarations and
   answers in the same shape (``tool_calls`` with JSON-string arguments), but it
   follows a script, so the example needs no network and no API key and prints
   the same thing every run.  Swap in a real client and nothing else changes.
5. The answers go back as the API documents tool messages: ``chat_messages``
   keeps ``role``, ``tool_call_id`` and ``content`` of each entry (the entries'
   ``is_error`` is for the program and its layers; this stand-in refuses any
   other key, as the documentation allows no other).

``on_progress`` is wired on the local toolkit: ``docs_search_docs`` reports a
step per document, and each report names the ``tool_call_id`` it belongs to.
"""

from __future__ import annotations

import json
import sys
import threading
from pathlib import Path
from typing import Any, Mapping

from mcp.server.mcpserver import Context, MCPServer
from mcp_types import ToolAnnotations

from mcp_client import Client, chat_messages
from mcp_client.registry import Registry

SERVER = Path(__file__).resolve().parent / "servers" / "quickstart_server.py"
READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)

DOCS = {
    "README.md": "# Widgets\nWidgets turn sprockets into gears.",
    "CHANGES.md": "## 2.0\n- Gears can be reversed.\n- Sprockets load twice as fast.",
    "INSTALL.md": "pip install widgets",
}


def docs_server() -> MCPServer:
    """The local toolkit: three read-only tools over a few documents."""
    server = MCPServer(name="docs", version="1.0.0", log_level="WARNING")

    @server.tool(annotations=READ_ONLY)
    def list_docs() -> str:
        """List the documents."""
        return "\n".join(DOCS)

    @server.tool(annotations=READ_ONLY)
    async def search_docs(query: str, ctx: Context) -> str:
        """Name the documents that mention the query (reports progress per document)."""
        found = []
        for step, (name, text) in enumerate(DOCS.items(), 1):
            await ctx.report_progress(step, len(DOCS), f"searched {name}")
            if query.lower() in text.lower():
                found.append(name)
        return "\n".join(found) or "nothing found"

    @server.tool(annotations=READ_ONLY)
    def read_doc(name: str) -> str:
        """Read one document."""
        return DOCS[name]

    return server


class ScriptedModel:
    """A chat-completions stand-in: messages and tools in, one assistant message out."""

    def __init__(self) -> None:
        self._calls = 0

    def _call(self, tool: str, **arguments: Any) -> dict[str, Any]:
        self._calls += 1
        return {"id": f"call_{self._calls}", "type": "function",
                "function": {"name": tool, "arguments": json.dumps(arguments)}}

    def complete(self, messages: list[Mapping[str, Any]],
                 tools: list[dict[str, Any]]) -> dict[str, Any]:
        for message in messages:
            if message["role"] == "tool" and set(message) != {"role", "tool_call_id", "content"}:
                raise ValueError(f"not a tool message the API documents: {sorted(message)}")
        offered = {tool["function"]["name"] for tool in tools}
        results = [m["content"] for m in messages if m["role"] == "tool"]
        turn = sum(1 for m in messages if m["role"] == "assistant")
        if turn == 0 and "docs_search_docs" in offered:
            calls = [self._call("docs_search_docs", query="gears")]
        elif turn == 1:
            calls = [self._call("docs_read_doc", name=name) for name in results[-1].split("\n")]
        elif turn == 2 and "text_word_count" in offered:
            changes = next(text for text in results if text.startswith("## "))
            calls = [self._call("text_word_count", text=changes)]
        else:
            changes = next(text for text in results if text.startswith("## "))
            news = "; ".join(line[2:] for line in changes.splitlines() if line.startswith("- "))
            return {"role": "assistant",
                    "content": f"Since the last release: {news} "
                               f"(the changelog is {results[-1]} words long)."}
        return {"role": "assistant", "content": None, "tool_calls": calls}


class ProgressLog:
    """The ``on_progress`` hook: a leaf that queues reports (it runs on a reader thread)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._reports: list[dict[str, Any]] = []

    def __call__(self, report: dict[str, Any]) -> None:
        with self._lock:
            self._reports.append(report)

    def drain(self) -> list[dict[str, Any]]:
        """The reports so far, per call and in order, and forget them."""
        with self._lock:
            reports, self._reports = self._reports, []
        return sorted(reports, key=lambda r: (str(r["tool_call_id"]), r["progress"]))


def chat(tools: Registry, model: ScriptedModel, progress: ProgressLog, question: str) -> None:
    """The tool loop: ask, run the tool calls the model wants, hand back the results."""
    declarations = tools.tools_for_llm()
    print("tools:", " ".join(d["function"]["name"] for d in declarations))
    print(f"user: {question}")
    messages: list[Mapping[str, Any]] = [{"role": "user", "content": question}]
    while True:
        reply = model.complete(messages, declarations)
        messages.append(reply)
        if not reply.get("tool_calls"):
            print(f"assistant: {reply['content']}")
            return
        for call in reply["tool_calls"]:
            print(f"-> {call['id']} {call['function']['name']} {call['function']['arguments']}")
        answers = tools.execute_tool_calls(reply["tool_calls"])   # the batch has run
        for report in progress.drain():
            print(f"   .. {report['tool_call_id']} {report['progress']}/{report.get('total')}"
                  f" {report.get('message', '')}")
        for answer in answers:
            flag = " (error)" if answer["is_error"] else ""
            print(f"<- {answer['tool_call_id']}{flag}: {answer['content'].replace(chr(10), ' | ')}")
        messages.extend(chat_messages(answers))   # role, tool_call_id, content: no more


def main() -> None:
    progress = ProgressLog()
    with Registry() as tools, Client.connect_stdio(sys.executable, args=[str(SERVER)],
                                                   client_name="toolloop") as remote:
        # The SDK server object is wrapped in a LocalServer; on_progress configures its client.
        tools.add(docs_server(), prefix="docs", on_progress=progress)
        tools.add(remote, prefix="text")
        chat(tools, ScriptedModel(), progress,
             "What changed in the docs since the last release?")


if __name__ == "__main__":
    main()
