"""``mcp_client.adapters.openai_agents`` over a real server, run by the SDK's own Runner.

The provider is a Registry over ``tests/servers/dual_stdio.py`` (the official SDK's demo
server, over stdio) under a Policy that denies ``demo_add`` and asks about
``demo_weather``; a recording wrapper shows which calls reached the Registry.  The
model is the SDK's scripted test model (``agents.testing.ScriptedModel``); tracing is
off for every run and no API key is set, so nothing leaves the machine.
"""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import threading
from pathlib import Path
from typing import Any
from unittest import mock

from agents import Agent, FunctionTool, RunConfig, Runner, RunResult, UserError
from agents.testing import ScriptedModel, assistant_message, function_call

from mcp_client import MCPClientError
from mcp_client.adapters import openai_agents
from mcp_client.policy import Policy

from .demo import DemoCase, ImportChecks
from ..base import PYTHON, LeakCheckingTestCase

OFFLINE = RunConfig(tracing_disabled=True)

EXAMPLE_OUTPUT = """\
tools: text_echo text_add
approve text_add {"a": 2, "b": 3}? yes
approve text_add {"a": 40, "b": 2}? no
assistant: I was told: hello | 5 | Tool execution was not approved.
"""


def outputs(model: ScriptedModel) -> dict[str, Any]:
    """call_id -> the tool output the model's latest turn was given."""
    last = model.last_call
    assert last is not None
    return {item["call_id"]: item["output"] for item in last.input
            if isinstance(item, dict) and item.get("type") == "function_call_output"}


class AgentsCase(DemoCase):
    def setUp(self) -> None:
        super().setUp()
        patcher = mock.patch.dict(os.environ)
        patcher.start()
        self.addCleanup(patcher.stop)
        os.environ.pop("OPENAI_API_KEY", None)         # the runs need none
        guard = mock.patch.object(socket.socket, "connect", side_effect=AssertionError(
            "a run tried to reach the network"))         # nor any connection (no traces)
        guard.start()
        self.addCleanup(guard.stop)

    def policy(self, **options: Any) -> Policy:
        return Policy(self.registry, rules=[
            {"tool": "demo_slow", "decision": "deny"},           # hidden from the model
            {"tool": "demo_weather", "decision": "ask"},
            {"tool": "demo_echo", "decision": "allow"},
            {"tool": "demo_fail", "decision": "allow"}],
            grants=[{"tool": "demo_add", "decision": "deny"}],   # published, and refused
            **options)

    def agent(self, tools: list[FunctionTool], *turns: Any) -> tuple[Agent[Any], ScriptedModel]:
        model = ScriptedModel([*turns, [assistant_message("done")]])
        return Agent(name="helper", model=model, tools=list(tools)), model


class ToolsTest(AgentsCase):
    def test_names_descriptions_and_schemas_as_published(self) -> None:
        provider = self.policy()
        tools = openai_agents.tools(provider)
        published = [declared["function"] for declared in provider.tools_for_llm()]
        self.assertEqual([tool.name for tool in tools], [f["name"] for f in published])
        self.assertIn("demo_echo", [tool.name for tool in tools])
        self.assertNotIn("demo_slow", [tool.name for tool in tools])
        for tool, function in zip(tools, published):
            with self.subTest(tool=tool.name):
                self.assertIsInstance(tool, FunctionTool)
                self.assertEqual(tool.description, function.get("description", ""))
                self.assertEqual(tool.params_json_schema, function["parameters"])
                self.assertFalse(tool.strict_json_schema)
                self.assertIs(tool.needs_approval, False)

    def test_the_model_is_handed_the_tools_untouched(self) -> None:
        tools = openai_agents.tools(self.policy())
        agent, model = self.agent(tools)
        Runner.run_sync(agent, "hello", run_config=OFFLINE)
        assert model.first_call is not None
        seen = {tool.name: tool for tool in model.first_call.tools
                if isinstance(tool, FunctionTool)}
        self.assertEqual(list(seen), [tool.name for tool in tools])
        echo = seen["demo_echo"]
        self.assertEqual(echo.params_json_schema["properties"]["text"]["type"], "string")
        self.assertNotIn("additionalProperties", echo.params_json_schema)   # not made strict

    def test_not_a_provider(self) -> None:
        with self.assertRaisesRegex(MCPClientError, "takes a provider"):
            openai_agents.tools(object())


class RunTest(AgentsCase):
    def test_run_sync_allowed_denied_and_failing_calls(self) -> None:
        agent, model = self.agent(openai_agents.tools(self.policy()), [
            function_call("demo_echo", {"text": "hi"}, call_id="c1"),
            function_call("demo_add", {"a": 2, "b": 3}, call_id="c2"),
            function_call("demo_fail", "", call_id="c3")])
        result = Runner.run_sync(agent, "go", run_config=OFFLINE)
        self.assertEqual(result.final_output, "done")
        seen = outputs(model)
        self.assertEqual(seen["c1"], "hi")                     # the server's answer
        self.assertIn("refused by policy", seen["c2"])         # the deny, as the output
        self.assertIn("failed: because", seen["c3"])           # the server's isError
        self.assertEqual(sorted(self.sent), ["demo_echo", "demo_fail"])   # add never left

    def test_run_awaited(self) -> None:
        agent, model = self.agent(openai_agents.tools(self.policy()), [
            function_call("demo_echo", {"text": "async"}, call_id="c1")], [
            function_call("demo_add", {"a": 1, "b": 1}, call_id="c2")])
        result = asyncio.run(Runner.run(agent, "go", run_config=OFFLINE))
        self.assertIsInstance(result, RunResult)
        self.assertEqual(result.final_output, "done")
        self.assertIn("refused by policy", outputs(model)["c2"])
        self.assertEqual(self.sent, ["demo_echo"])

    def test_arguments_that_are_not_json_are_the_providers_error(self) -> None:
        agent, model = self.agent(openai_agents.tools(self.registry), [
            function_call("demo_echo", "{not json", call_id="c1")])
        Runner.run_sync(agent, "go", run_config=OFFLINE)
        self.assertIn("not valid JSON", outputs(model)["c1"])
        self.assertEqual(self.sent, ["demo_echo"])


def text_outputs(model: ScriptedModel) -> dict[str, str]:
    """:func:`outputs` of the SDK's MCP tools (a list of text parts), as text."""
    return {call_id: output if isinstance(output, str) else "".join(
                part["text"] for part in output)
            for call_id, output in outputs(model).items()}


class MCPServerProviderTest(AgentsCase):
    def mcp_agent(self, server: openai_agents.MCPServerProvider,
                  *turns: Any) -> tuple[Agent[Any], ScriptedModel]:
        model = ScriptedModel([*turns, [assistant_message("done")]])
        return Agent(name="helper", model=model, mcp_servers=[server]), model

    def test_the_sdks_filter_and_approval_over_the_policy(self) -> None:
        server = openai_agents.MCPServerProvider(self.policy(), name="demo", tool_filter={
            "allowed_tool_names": ["demo_echo", "demo_add", "demo_fail", "demo_weather"],
            "blocked_tool_names": ["demo_fail"]}, require_approval={"demo_weather": "always"})
        agent, model = self.mcp_agent(server, [
            function_call("demo_echo", {"text": "hi"}, call_id="c1"),
            function_call("demo_add", {"a": 1, "b": 2}, call_id="c2"),
            function_call("demo_weather", {"city": "Oslo"}, call_id="c3")])
        result = Runner.run_sync(agent, "go", run_config=OFFLINE)
        assert model.first_call is not None
        seen = {tool.name: tool for tool in model.first_call.tools
                if isinstance(tool, FunctionTool)}
        self.assertEqual(sorted(seen), ["demo_add", "demo_echo", "demo_weather"])
        published = {d["function"]["name"]: d["function"]["parameters"]
                     for d in self.registry.tools_for_llm()}
        self.assertEqual(seen["demo_echo"].params_json_schema, published["demo_echo"])
        self.assertEqual([item.tool_name for item in result.interruptions], ["demo_weather"])
        state = result.to_state()
        state.approve(result.interruptions[0])
        result = Runner.run_sync(agent, state, run_config=OFFLINE)
        self.assertEqual(result.final_output, "done")
        seen_outputs = text_outputs(model)
        self.assertEqual(seen_outputs["c1"], "hi")
        self.assertIn("refused by policy", seen_outputs["c2"])
        self.assertIn("refused by policy", seen_outputs["c3"])   # an ask with nobody to ask
        self.assertEqual(self.sent, ["demo_echo"])

    def test_run_awaited_with_a_filter_function_and_an_is_error(self) -> None:
        async def keep(context: Any, tool: Any) -> bool:
            self.assertEqual(context.server_name, "mcp_client")
            if tool.name == "demo_image":
                raise ValueError("no images")              # a failing filter leaves it out
            return tool.name in ("demo_fail", "demo_image", "demo_echo")

        server = openai_agents.MCPServerProvider(self.registry, tool_filter=keep)
        agent, model = self.mcp_agent(server, [function_call("demo_fail", "", call_id="f1")])
        with self.assertLogs("mcp_client.adapters.openai_agents", "WARNING"):
            result = asyncio.run(Runner.run(agent, "go", run_config=OFFLINE))
        self.assertEqual(result.final_output, "done")
        assert model.first_call is not None
        self.assertEqual(sorted(tool.name for tool in model.first_call.tools
                                if isinstance(tool, FunctionTool)), ["demo_echo", "demo_fail"])
        self.assertIn("failed: because", text_outputs(model)["f1"])
        self.assertEqual(self.sent, ["demo_fail"])

    def test_the_server_side_of_the_interface(self) -> None:
        server = openai_agents.MCPServerProvider(self.registry, tool_filter=lambda c, t: True)
        self.assertEqual(repr(server), "<MCPServerProvider 'mcp_client' over Registry>")

        async def main() -> None:
            await server.connect()
            tools = await server.list_tools()
            echo = next(tool for tool in tools if tool.name == "demo_echo")
            self.assertIs(echo.annotations.read_only_hint, True)  # type: ignore[union-attr]
            self.assertEqual((await server.list_prompts()).prompts, [])
            with self.assertRaisesRegex(MCPClientError, "Registry has no prompts"):
                await server.get_prompt("demo_review", {"code": "x"})
            await server.cleanup()

        with self.assertRaisesRegex(MCPClientError, "needs the run context"):
            asyncio.run(main())
        server.tool_filter = None
        asyncio.run(main())

    def test_a_clients_prompts(self) -> None:
        server = openai_agents.MCPServerProvider(self.client)

        async def main() -> tuple[Any, Any]:
            return await server.list_prompts(), await server.get_prompt("review", {"code": "x"})

        listed, rendered = asyncio.run(main())
        self.assertEqual([prompt.name for prompt in listed.prompts], ["review"])
        self.assertIn("Please review:\nx", rendered.messages[0].content.text)
        with self.assertRaises(MCPClientError):
            asyncio.run(server.get_prompt("no_such_prompt"))

    def test_not_a_provider(self) -> None:
        with self.assertRaisesRegex(MCPClientError, "MCPServerProvider takes a provider"):
            openai_agents.MCPServerProvider(object())


class Broken:
    """A provider that publishes one tool and breaks its contract when it is called."""

    def tools_for_llm(self) -> list[Any]:
        return [{"type": "function", "function": {"name": "boom", "parameters": {
            "type": "object", "properties": {}}}}]

    def execute_tool_calls(self, calls: list[Any]) -> list[Any]:
        raise RuntimeError("inside")


class Held(Broken):
    """A provider whose call waits until it is cancelled."""

    def __init__(self) -> None:
        self.started = threading.Event()
        self.release = threading.Event()
        self.cancelled: list[str] = []

    def execute_tool_calls(self, calls: list[Any]) -> list[Any]:
        self.started.set()
        self.release.wait(10)
        return [{"role": "tool", "tool_call_id": calls[0]["id"], "content": "late",
                 "is_error": False}]

    def cancel_tool_calls(self, ids: list[str]) -> int:
        self.cancelled.extend(ids)
        self.release.set()
        return len(ids)


class CancelTest(LeakCheckingTestCase):
    def test_cancelling_the_run_cancels_an_approved_call(self) -> None:
        provider = Held()
        model = ScriptedModel([[function_call("boom", {}, call_id="b1")],
                               [assistant_message("done")]])
        agent = Agent(name="helper", model=model,
                      tools=list(openai_agents.tools(provider, needs_approval=True)))
        result = Runner.run_sync(agent, "go", run_config=OFFLINE)
        state = result.to_state()
        state.approve(result.interruptions[0])

        async def main() -> None:
            run = asyncio.ensure_future(Runner.run(agent, state, run_config=OFFLINE))
            started = await asyncio.get_running_loop().run_in_executor(
                None, provider.started.wait, 10)
            self.assertTrue(started)
            run.cancel()
            with self.assertRaises(asyncio.CancelledError):
                await run

        asyncio.run(main())
        self.assertEqual(len(provider.cancelled), 1)
        self.assertTrue(provider.cancelled[0].startswith("adapter-"))


class FailureTest(LeakCheckingTestCase):
    def run_boom(self, **options: Any) -> tuple[Any, ScriptedModel]:
        model = ScriptedModel([[function_call("boom", {}, call_id="b1")],
                               [assistant_message("done")]])
        tools = openai_agents.tools(Broken(), **options)
        agent = Agent(name="helper", model=model, tools=list(tools))
        return Runner.run_sync(agent, "go", run_config=OFFLINE), model

    def test_a_broken_provider_is_the_sdks_failure_message(self) -> None:
        with self.assertLogs("mcp_client.adapters.openai_agents", "WARNING") as logged:
            result, model = self.run_boom()
        self.assertEqual(result.final_output, "done")
        self.assertEqual(outputs(model)["b1"],
                         "An error occurred while running the tool. Please try again.")
        self.assertIn("raised RuntimeError: inside", logged.output[0])

    def test_a_failure_function_of_ones_own_async_or_not(self) -> None:
        async def worded(ctx: Any, error: Exception) -> str:
            return f"worded: {error}"

        for formatter in (lambda ctx, error: f"worded: {error}", worded):
            with self.subTest(formatter=formatter), self.assertLogs(
                    "mcp_client.adapters.openai_agents", "WARNING"):
                _, model = self.run_boom(failure_error_function=formatter)
            self.assertIn("worded: boom: the provider raised RuntimeError", outputs(model)["b1"])

    def test_no_failure_function_ends_the_run(self) -> None:
        with self.assertRaisesRegex(UserError, "Error running tool boom") as caught:
            self.run_boom(failure_error_function=None)
        self.assertIsInstance(caught.exception.__cause__, MCPClientError)


class ApprovalTest(AgentsCase):
    def interrupted(self, **options: Any) -> tuple[Agent[Any], ScriptedModel, RunResult]:
        tools = openai_agents.tools(self.policy(on_ask=openai_agents.approved_in_run),
                                    **options)
        agent, model = self.agent(tools, [
            function_call("demo_weather", {"city": "Paris"}, call_id="w1"),
            function_call("demo_echo", {"text": "hi"}, call_id="e1")])
        result = Runner.run_sync(agent, "go", run_config=OFFLINE)
        return agent, model, result

    def test_the_forms_of_needs_approval(self) -> None:
        def pick(name: str, arguments: dict[str, Any]) -> bool:
            return name == "demo_weather"

        for form in (True, ["demo_weather"], pick):
            with self.subTest(form=form):
                tools = {t.name: t for t in openai_agents.tools(self.registry,
                                                                needs_approval=form)}
                self.assertTrue(tools["demo_weather"].needs_approval)
                if form is not True:
                    self.assertIs(tools["demo_echo"].needs_approval is False, form != pick)
        for bad in ("demo_weather", 3):
            with self.subTest(bad=bad), self.assertRaisesRegex(MCPClientError, "needs_approval"):
                openai_agents.tools(self.registry, needs_approval=bad)  # type: ignore[arg-type]

    def test_an_approved_call_answers_the_policys_ask(self) -> None:
        agent, model, result = self.interrupted(needs_approval={"demo_weather"})
        self.assertEqual([item.tool_name for item in result.interruptions], ["demo_weather"])
        self.assertEqual(self.sent, ["demo_echo"])      # the unasked call ran; weather waits
        state = result.to_state()
        state.approve(result.interruptions[0])
        result = Runner.run_sync(agent, state, run_config=OFFLINE)
        self.assertEqual(result.final_output, "done")
        self.assertIn("sunny in Paris", outputs(model)["w1"])
        self.assertEqual(self.sent, ["demo_echo", "demo_weather"])

    def test_a_rejected_call_never_reaches_the_server(self) -> None:
        agent, model, result = self.interrupted(needs_approval=lambda name, args: (
            name == "demo_weather" and args == {"city": "Paris"}))
        state = result.to_state()
        state.reject(result.interruptions[0])
        Runner.run_sync(agent, state, run_config=OFFLINE)
        self.assertEqual(outputs(model)["w1"], "Tool execution was not approved.")
        self.assertEqual(self.sent, ["demo_echo"])

    def test_an_async_decision(self) -> None:
        async def pick(name: str, arguments: dict[str, Any]) -> bool:
            return name == "demo_weather"

        _, _, result = self.interrupted(needs_approval=pick)
        self.assertEqual([item.tool_name for item in result.interruptions], ["demo_weather"])

    def test_an_ask_the_run_did_not_stop_for_is_refused(self) -> None:
        _, model, result = self.interrupted()
        self.assertEqual(result.interruptions, [])
        self.assertIn("demo_weather was not approved in the agent run", outputs(model)["w1"])
        self.assertEqual(self.sent, ["demo_echo"])

    def test_approved_in_run_off_the_calls_thread_refuses(self) -> None:
        with self.assertRaises(MCPClientError):
            openai_agents.approved_in_run({"kind": "permission", "tool": "demo_weather"})


class ExampleTest(LeakCheckingTestCase):
    def test_the_example_runs_offline_and_prints_what_it_says(self) -> None:
        root = Path(__file__).resolve().parents[2]
        env = dict(os.environ, PYTHONPATH=str(root))
        env.pop("OPENAI_API_KEY", None)
        done = subprocess.run([PYTHON, str(root / "examples" / "openai_agents_agent.py")],
                              capture_output=True, text=True, timeout=120, env=env, cwd=root)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(done.stdout, EXAMPLE_OUTPUT)


class ImportTest(ImportChecks, LeakCheckingTestCase):
    adapter, packages, extra = "openai_agents", ("agents",), "openai-agents"
