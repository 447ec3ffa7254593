"""``mcp_client.adapters.pydantic_ai`` over a real server, driven by pydantic-ai's own test models.

The provider is a Registry over ``tests/servers/dual_stdio.py`` (the official SDK's demo
server, over stdio) under a Policy that asks about ``demo_add`` (headless: refused) and
denies ``demo_die`` outright; a recording wrapper under the policy proves what reached
the server.  ``FunctionModel`` scripts the model's turns; ``TestModel`` calls every tool.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import threading
from pathlib import Path
from typing import Any

from pydantic_ai import (AbstractToolset, Agent, DeferredToolRequests, DeferredToolResults,
                         ToolCallPart, ToolReturnPart)
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.test import TestModel

from mcp_client import MCPClientError
from mcp_client.adapters import pydantic_ai as adapter
from mcp_client.policy import Policy
from mcp_client.registry import Registry

from .demo import DemoCase, ImportChecks
from ..base import PYTHON, LeakCheckingTestCase, of_type

RULES = [{"tool": "demo_add", "decision": "ask"}, {"tool": "demo_die", "decision": "deny"},
         {"tool": "demo_*", "decision": "allow"}]


def returns(messages: list[ModelMessage]) -> list[ToolReturnPart]:
    """The tool results the model is shown in its latest request."""
    return [part for part in of_type(messages[-1], ModelRequest).parts
            if isinstance(part, ToolReturnPart)]


def scripted(*turns: list[ToolCallPart]) -> FunctionModel:
    """A model that makes each turn's calls, then answers with the results it was shown."""
    def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        done = sum(isinstance(message, ModelResponse) for message in messages)
        if done < len(turns):
            return ModelResponse(parts=list(turns[done]))
        seen = [[part.tool_name, part.outcome, part.model_response_str()]
                for part in returns(messages)]
        return ModelResponse(parts=[TextPart(json.dumps(seen))])
    return FunctionModel(answer)


class AdapterCase(DemoCase):
    rules = RULES

    def setUp(self) -> None:
        super().setUp()
        self.approvals = adapter.Approvals()

    def run_turns(self, *turns: list[ToolCallPart]) -> list[list[str]]:
        agent = Agent(scripted(*turns), toolsets=[adapter.toolset(self.provider)])
        output: list[list[str]] = json.loads(agent.run_sync("go").output)
        return output


class ToolsetTest(AdapterCase):
    def test_the_agent_sees_the_tools_as_published(self) -> None:
        seen: list[AgentInfo] = []

        def look(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            seen.append(info)
            return ModelResponse(parts=[TextPart("ok")])

        ts = adapter.toolset(self.provider, id="demo")
        self.assertIsInstance(ts, AbstractToolset)
        self.assertEqual((ts.id, repr(ts)), ("demo", "<ProviderToolset id='demo' provider=Policy>"))
        Agent(FunctionModel(look), toolsets=[ts]).run_sync("list")
        published = {d["function"]["name"]: d["function"] for d in self.provider.tools_for_llm()}
        definitions = {tool.name: tool for tool in seen[0].function_tools}
        self.assertEqual(list(definitions), list(published))
        self.assertNotIn("demo_die", definitions)                   # denied outright: hidden
        for name, tool in definitions.items():
            with self.subTest(tool=name):
                self.assertEqual(tool.parameters_json_schema, published[name]["parameters"])
                self.assertEqual(tool.description, published[name].get("description"))
                self.assertIs(tool.strict, False)
                self.assertEqual(tool.kind, "function")
        echo, add = definitions["demo_echo"], definitions["demo_add"]
        self.assertEqual((echo.sequential, add.sequential), (False, True))   # readOnlyHint
        self.assertIs(echo.metadata and echo.metadata["annotations"]["readOnlyHint"], True)
        self.assertIsNone(add.metadata)

    def test_a_turn_sees_each_result_and_the_refused_call_never_left(self) -> None:
        seen = self.run_turns([ToolCallPart("demo_echo", {"text": "hi"}),
                               ToolCallPart("demo_add", {"a": 2, "b": 3}),
                               ToolCallPart("demo_fail", {})])
        self.assertEqual([(name, outcome) for name, outcome, _ in seen],
                         [("demo_echo", "success"), ("demo_add", "failed"),
                          ("demo_fail", "failed")])
        self.assertEqual(seen[0][2], "hi")
        self.assertIn("refused by policy", seen[1][2])
        self.assertIn("failed: because", seen[2][2])
        self.assertEqual(sorted(self.sent), ["demo_echo", "demo_fail"])   # demo_add never left

    def test_a_refusal_spends_no_retries_and_never_ends_the_run(self) -> None:
        again = [ToolCallPart("demo_add", {"a": 1, "b": 1})]
        agent = Agent(scripted(*[again] * 4), toolsets=[adapter.toolset(self.provider)],
                      retries=1)
        result = agent.run_sync("insist")
        self.assertEqual(json.loads(result.output)[0][:2], ["demo_add", "failed"])
        self.assertEqual(self.sent, [])

    def test_await_agent_run_and_structured_content(self) -> None:
        agent = Agent(scripted([ToolCallPart("demo_weather", {"city": "Oslo"})]),
                      toolsets=[adapter.toolset(self.provider)])
        result = asyncio.run(agent.run("weather"))
        part = next(part for message in result.all_messages() if isinstance(message, ModelRequest)
                    for part in message.parts if isinstance(part, ToolReturnPart))
        self.assertEqual(part.metadata, {"temperature": 21.5, "conditions": "sunny in Oslo"})
        self.assertIn("sunny in Oslo", json.loads(result.output)[0][2])
        self.assertEqual(self.sent, ["demo_weather"])

    def test_test_model_calls_every_tool_of_a_small_registry(self) -> None:
        small = Registry()
        self.addCleanup(small.close)
        small.add(self.client, prefix="demo", include=["echo", "add"])
        agent = Agent(TestModel(), toolsets=[adapter.toolset(Policy(small, rules=RULES))])
        result = agent.run_sync("everything")
        answers = json.loads(result.output)
        self.assertEqual(sorted(answers), ["demo_add", "demo_echo"])
        self.assertEqual(answers["demo_echo"], "a")             # TestModel's string argument
        self.assertIn("refused by policy", answers["demo_add"])

    def test_not_a_provider_or_not_approvals(self) -> None:
        with self.assertRaisesRegex(MCPClientError, "takes a provider"):
            adapter.toolset(object())
        with self.assertRaisesRegex(MCPClientError, "approvals must be"):
            adapter.toolset(self.provider, approvals=object())  # type: ignore[arg-type]


class ApprovalsTest(AdapterCase):
    def setUp(self) -> None:
        super().setUp()
        self.provider = Policy(self.registry, rules=RULES, on_ask=self.approvals)
        self.agent = Agent(scripted([ToolCallPart("demo_add", {"a": 2, "b": 3},
                                                  tool_call_id="c1")]),
                           toolsets=[adapter.toolset(self.provider, approvals=self.approvals)],
                           output_type=[str, DeferredToolRequests])

    def deferred(self) -> tuple[Any, DeferredToolRequests]:
        result = self.agent.run_sync("add")
        return result, of_type(result.output, DeferredToolRequests)

    def test_an_ask_ends_the_run_with_the_question_and_nothing_ran(self) -> None:
        _, requests = self.deferred()
        self.assertEqual([call.tool_call_id for call in requests.approvals], ["c1"])
        question = requests.metadata["c1"]
        self.assertEqual((question["kind"], question["tool"], question["arguments"]),
                         ("permission", "demo_add", {"a": 2, "b": 3}))
        self.assertEqual(self.sent, [])
        self.assertEqual(self.provider.grants, [])                # nothing remembered
        self.assertEqual(repr(self.approvals), "<Approvals waiting=0>")

    def test_an_approved_call_runs_once_resumed(self) -> None:
        first, _ = self.deferred()
        resumed = self.agent.run_sync(message_history=first.all_messages(),
                                      deferred_tool_results=DeferredToolResults(
                                          approvals={"c1": True}))
        self.assertEqual(json.loads(of_type(resumed.output, str)), [["demo_add", "success", "5"]])
        self.assertEqual(self.sent, ["demo_add"])
        self.assertEqual(self.provider.grants, [])

    def test_an_approval_may_answer_always_allow(self) -> None:
        first, _ = self.deferred()
        results = DeferredToolResults(approvals={"c1": True},
                                      metadata={"c1": {"answer": "always-allow"}})
        self.agent.run_sync(message_history=first.all_messages(), deferred_tool_results=results)
        self.assertEqual(self.sent, ["demo_add"])
        self.assertEqual([grant["tool"] for grant in self.provider.grants], ["demo_add"])

    def test_a_denied_approval_never_reaches_the_server(self) -> None:
        first, _ = self.deferred()
        resumed = self.agent.run_sync(message_history=first.all_messages(),
                                      deferred_tool_results=DeferredToolResults(
                                          approvals={"c1": False}))
        self.assertEqual(json.loads(of_type(resumed.output, str))[0][:2], ["demo_add", "denied"])
        self.assertEqual(self.sent, [])

    def test_questions_it_did_not_send_are_refused_and_elicitations_declined(self) -> None:
        [entry] = self.provider.execute_tool_calls([{"id": "x", "type": "function", "function": {
            "name": "demo_add", "arguments": {"a": 1, "b": 1}}}])
        self.assertIn("the user denied", entry["content"])
        self.assertEqual(self.approvals({"method": "elicitation/create"}), {"action": "decline"})
        self.assertEqual(self.sent, [])


class Holding:
    """A provider whose one call waits until it is cancelled."""

    def __init__(self) -> None:
        self.started = threading.Event()
        self.release = threading.Event()
        self.cancelled: list[str] = []

    def tools_for_llm(self) -> list[Any]:
        return [{"type": "function", "function": {"name": "wait"}}]

    def execute_tool_calls(self, calls: list[Any]) -> list[Any]:
        self.started.set()
        self.release.wait(10)
        return [{"role": "tool", "tool_call_id": c["id"], "content": "done", "is_error": False}
                for c in calls]

    def cancel_tool_calls(self, ids: list[str]) -> int:
        self.cancelled.extend(ids)
        self.release.set()
        return len(ids)


class CancelTest(LeakCheckingTestCase):
    def test_cancelling_an_approvals_call_cancels_it_by_its_id(self) -> None:
        provider, approvals = Holding(), adapter.Approvals()

        async def main() -> None:
            task = asyncio.ensure_future(approvals.run(provider, "wait", {}, approved=False))
            started = await asyncio.get_running_loop().run_in_executor(
                None, provider.started.wait, 10)
            self.assertTrue(started)
            self.assertEqual(repr(approvals), "<Approvals waiting=1>")
            task.cancel()
            with self.assertRaises(asyncio.CancelledError):
                await task

        asyncio.run(main())
        self.assertEqual(len(provider.cancelled), 1)
        self.assertTrue(provider.cancelled[0].startswith("adapter-"))
        self.assertEqual(repr(approvals), "<Approvals waiting=0>")


class Overlap:
    """A provider with a read-only ``look`` and a ``write``; it records how many calls overlap."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.running = self.most = 0
        self.both_looking = threading.Barrier(2, timeout=10)

    def tools_for_llm(self) -> list[Any]:
        return [{"type": "function", "function": {"name": name}} for name in ("look", "write")]

    def tool_annotations(self, name: str) -> Any:
        return {"readOnlyHint": True} if name == "look" else None

    def execute_tool_calls(self, calls: list[Any]) -> list[Any]:
        with self.lock:
            self.running += 1
            self.most = max(self.most, self.running)
        try:
            if calls[0]["function"]["name"] == "look":
                self.both_looking.wait()      # breaks (and fails the call) unless both overlap
            return [{"role": "tool", "tool_call_id": c["id"], "content": "ok", "is_error": False}
                    for c in calls]
        finally:
            with self.lock:
                self.running -= 1


class FakeProviderTest(LeakCheckingTestCase):
    def test_reads_run_together_and_a_write_runs_alone(self) -> None:
        provider = Overlap()

        def calls(name: str, count: int) -> list[ToolCallPart]:
            return [ToolCallPart(name, {}, tool_call_id=f"{name}{n}") for n in range(count)]

        agent = Agent(scripted(calls("look", 2)), toolsets=[adapter.toolset(provider)])
        self.assertEqual(json.loads(agent.run_sync("go").output), [["look", "success", "ok"]] * 2)
        self.assertEqual((provider.both_looking.broken, provider.most), (False, 2))
        provider.most = 0
        agent = Agent(scripted(calls("write", 3)), toolsets=[adapter.toolset(provider)])
        self.assertEqual(json.loads(agent.run_sync("go").output), [["write", "success", "ok"]] * 3)
        self.assertEqual(provider.most, 1)

    def test_a_result_without_structured_content_is_its_text(self) -> None:
        provider = Holding()
        provider.release.set()
        agent = Agent(scripted([ToolCallPart("wait", {})]), toolsets=[adapter.toolset(provider)])
        result = agent.run_sync("wait")
        self.assertEqual(json.loads(result.output), [["wait", "success", "done"]])

    def test_a_provider_that_breaks_its_contract_is_an_mcp_client_error(self) -> None:
        class Silent(Holding):
            def execute_tool_calls(self, calls: list[Any]) -> list[Any]:
                return []

        with self.assertRaisesRegex(MCPClientError, "did not answer"):
            asyncio.run(adapter.Approvals().run(Silent(), "wait", {}, approved=True))


class ImportTest(ImportChecks, LeakCheckingTestCase):
    adapter, packages, extra = "pydantic_ai", ("pydantic_ai",), "pydantic-ai"


class ExampleTest(LeakCheckingTestCase):
    def test_the_example_approves_the_asked_call_and_exits_0(self) -> None:
        root = Path(__file__).resolve().parents[2]
        done = subprocess.run([PYTHON, str(root / "examples" / "pydantic_ai_agent.py")],
                              capture_output=True, text=True, timeout=120, cwd=root,
                              env=dict(os.environ, PYTHONPATH=str(root)))
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(done.stdout.splitlines(), [
            "the agent sees: text_echo text_add text_word_count",
            "  [human] text_add {'a': 2, 'b': 3}: rule 3 asks: sums need a look -> approve",
            "agent: text_echo gave hello; text_add gave 5"])
