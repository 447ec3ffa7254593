"""``mcp_client.adapters.langchain`` over a real server, in a LangChain tool loop.

The provider is a Registry over ``tests/servers/dual_stdio.py`` (the official SDK's demo
server, over stdio) under a Policy that denies ``demo_die`` (so it is not offered) and asks
about ``demo_add`` with nobody to ask (so a call is refused); a recording wrapper under the
Policy shows which calls reached the server.  The model is LangChain's own
``GenericFakeChatModel``, taught ``bind_tools`` the way a provider integration does it
(``bind(tools=[convert_to_openai_tool(t) ...])``), so each turn records the tools and the
messages it was given.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import threading
from pathlib import Path
from typing import Any, Sequence, cast

from langchain_core.language_models import LanguageModelInput
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolCall, ToolMessage
from langchain_core.outputs import ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool, StructuredTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import Field

from mcp_client import MCPClientError
from mcp_client.adapters import langchain

from ..base import PYTHON, LeakCheckingTestCase
from .demo import DemoCase, ImportChecks


class ToolCallingFakeModel(GenericFakeChatModel):
    """``GenericFakeChatModel`` with ``bind_tools``; remembers what each turn was given."""

    turns: list[tuple[list[BaseMessage], list[dict[str, Any]]]] = Field(default_factory=list)

    def bind_tools(self, tools: Sequence[Any], *, tool_choice: str | None = None,
                   **kwargs: Any) -> Runnable[LanguageModelInput, AIMessage]:
        formatted = [convert_to_openai_tool(tool) for tool in tools]
        return cast("Runnable[LanguageModelInput, AIMessage]",
                    self.bind(tools=formatted, **kwargs))

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: Any = None, **kwargs: Any) -> ChatResult:
        self.turns.append((list(messages), list(kwargs.get("tools", []))))
        return super()._generate(messages, stop, run_manager, **kwargs)

    async def _agenerate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                         run_manager: Any = None, **kwargs: Any) -> ChatResult:
        return self._generate(messages, stop, None, **kwargs)   # no executor thread


def tool_call(ident: str, name: str, args: dict[str, Any]) -> ToolCall:
    return ToolCall(name=name, args=args, id=ident, type="tool_call")


def untitled(schema: Any) -> Any:
    """``schema`` without its ``title`` keywords, as LangChain's tool conversion gives it."""
    if isinstance(schema, dict):
        return {key: untitled(value) for key, value in schema.items()
                if not (key == "title" and isinstance(value, str))}
    return schema


#: The model's script: three calls (one allowed, one refused, one failing), then an answer.
CALLS = [tool_call("c1", "demo_echo", {"text": "hi"}),
         tool_call("c2", "demo_add", {"a": 2, "b": 3}),
         tool_call("c3", "demo_fail", {})]


class LangChainTest(DemoCase):
    rules = [{"tool": "demo_die", "decision": "deny"}, {"tool": "demo_add", "decision": "ask"},
             {"tool": "demo_*", "decision": "allow"}]

    def setUp(self) -> None:
        super().setUp()
        self.model = ToolCallingFakeModel(messages=iter([
            AIMessage(content="", tool_calls=CALLS), AIMessage(content="done")]))

    def test_the_tools_carry_the_published_names_and_schemas_untouched(self) -> None:
        tools = langchain.tools(self.provider)
        published = [declared["function"] for declared in self.provider.tools_for_llm()]
        self.assertEqual([tool.name for tool in tools], [f["name"] for f in published])
        self.assertIn("demo_add", [tool.name for tool in tools])
        self.assertNotIn("demo_die", [tool.name for tool in tools])   # denied outright: hidden
        for tool, function in zip(tools, published):
            with self.subTest(tool=tool.name):
                self.assertIsInstance(tool, StructuredTool)
                self.assertEqual(tool.description, function["description"])
                self.assertEqual(tool.args_schema, function["parameters"])
                self.assertEqual(tool.args, function["parameters"]["properties"])
                self.assertEqual(tool.tool_call_schema, {**function["parameters"],
                                                         "description": tool.description})
                self.assertEqual(convert_to_openai_tool(tool), {"type": "function", "function": {
                    "name": tool.name, "description": tool.description,
                    "parameters": untitled(function["parameters"])}})
                self.assertEqual(tool.args_schema, function["parameters"])   # still whole
                self.assertEqual((tool.response_format, tool.handle_tool_error),
                                 ("content_and_artifact", True))
                structured = cast(StructuredTool, tool)
                self.assertIsNotNone(structured.func)         # invoke
                self.assertIsNotNone(structured.coroutine)    # ainvoke, without a pool thread
        echo = tools[[tool.name for tool in tools].index("demo_echo")]
        self.assertEqual(echo.metadata, self.provider.tool_annotations("demo_echo"))
        self.assertIs(echo.metadata["readOnlyHint"], True)  # type: ignore[index]

    def run_turn(self, run_tool: Any) -> list[ToolMessage]:
        """One turn of a tool loop: model, tools, model again; the tool messages."""
        tools = langchain.tools(self.provider)
        by_name = {tool.name: tool for tool in tools}
        model = self.model.bind_tools(tools)
        messages: list[BaseMessage] = [HumanMessage("echo hi, add 2 and 3, then fail")]
        reply = model.invoke(messages)
        messages.append(reply)
        answers = [run_tool(by_name[call["name"]], call) for call in reply.tool_calls]
        messages.extend(answers)
        self.assertEqual(model.invoke(messages).content, "done")
        (first, offered), (second, _) = self.model.turns
        self.assertEqual([t["function"]["name"] for t in offered], list(by_name))
        self.assertEqual(second, messages)            # the next turn saw the tool output
        return answers

    def check_answers(self, answers: list[ToolMessage]) -> None:
        for answer in answers:
            self.assertIsInstance(answer, ToolMessage)
        echo, add, fail = answers
        self.assertEqual([a.tool_call_id for a in answers], ["c1", "c2", "c3"])
        self.assertEqual([a.name for a in answers], ["demo_echo", "demo_add", "demo_fail"])
        self.assertEqual((echo.content, echo.status, echo.artifact),
                         ("hi", "success", {"result": "hi"}))
        self.assertEqual(add.status, "error")
        self.assertTrue(str(add.content).startswith("refused by policy: "), add.content)
        self.assertIn("no on_ask", add.content)
        self.assertIsNone(add.artifact)
        self.assertEqual(fail.status, "error")
        self.assertIn("failed: because", fail.content)
        self.assertEqual(self.sent, ["demo_echo", "demo_fail"])  # the refused call never left

    def test_one_turn_with_invoke(self) -> None:
        self.check_answers(self.run_turn(lambda tool, call: tool.invoke(call)))

    def test_one_turn_with_ainvoke(self) -> None:
        def run_tool(tool: BaseTool, call: ToolCall) -> Any:
            return asyncio.run(tool.ainvoke(call))

        self.check_answers(self.run_turn(run_tool))

    def test_structured_content_is_the_artifact_and_plain_input_gives_the_content(self) -> None:
        by_name = {tool.name: tool for tool in langchain.tools(self.provider)}
        weather = by_name["demo_weather"].invoke(tool_call("w", "demo_weather", {"city": "Oslo"}))
        self.assertEqual(weather.artifact, {"temperature": 21.5, "conditions": "sunny in Oslo"})
        self.assertIn("sunny in Oslo", weather.content)
        self.assertEqual(by_name["demo_echo"].invoke({"text": "plain"}), "plain")
        self.assertIn("refused by policy", by_name["demo_add"].invoke({"a": 1, "b": 1}))
        self.assertEqual(asyncio.run(by_name["demo_echo"].ainvoke({"text": "a"})), "a")


class AskTest(DemoCase):
    """A Policy ``ask`` goes to ``on_ask``, from ``invoke`` and from ``ainvoke``."""

    rules = [{"tool": "demo_echo", "decision": "ask"}]

    def policy_options(self) -> dict[str, Any]:
        self.questions: list[tuple[str, Any, str]] = []
        answers = iter(["deny-once", "allow-once"])

        def on_ask(question: dict[str, Any]) -> str:
            self.questions.append((question["tool"], question["arguments"],
                                   threading.current_thread().name))
            return next(answers)

        return {"on_ask": on_ask}

    def test_the_human_answers_through_on_ask(self) -> None:
        provider, questions = self.provider, self.questions
        echo = {tool.name: tool for tool in langchain.tools(provider)}["demo_echo"]
        refused = echo.invoke(tool_call("a1", "demo_echo", {"text": "no"}))
        allowed = asyncio.run(echo.ainvoke(tool_call("a2", "demo_echo", {"text": "yes"})))
        self.assertEqual((refused.status, allowed.status), ("error", "success"))
        self.assertIn("refused by policy", refused.content)
        self.assertEqual(allowed.content, "yes")
        self.assertEqual([q[:2] for q in questions], [("demo_echo", {"text": "no"}),
                                                      ("demo_echo", {"text": "yes"})])
        self.assertEqual(questions[0][2], threading.current_thread().name)
        self.assertTrue(questions[1][2].startswith("mcp-adapter-"))  # the call's own thread


class Answering:
    """A provider that answers every call with its arguments (and may hold it)."""

    PROPERTIES = ("config", "run_manager", "self", "callbacks", "tool_call_id")

    def __init__(self, *, hold: threading.Event | None = None) -> None:
        self.calls: list[Any] = []
        self.cancelled: list[Any] = []
        self.started = threading.Event()
        self.hold = hold

    def tools_for_llm(self) -> list[Any]:
        return [{"type": "function", "function": {
            "name": "look", "description": "Looks.",
            "parameters": {"type": "object",
                           "properties": {key: {"type": "string"} for key in self.PROPERTIES}}}}]

    def execute_tool_calls(self, calls: list[Any]) -> list[Any]:
        self.calls.extend(calls)
        self.started.set()
        if self.hold is not None:
            self.hold.wait(10)
        return [{"role": "tool", "tool_call_id": c["id"], "content": "ok", "is_error": False}
                for c in calls]

    def cancel_tool_calls(self, ids: list[Any]) -> int:
        self.cancelled.extend(ids)
        if self.hold is not None:
            self.hold.set()
        return 1


class ArgumentsTest(LeakCheckingTestCase):
    def test_arguments_named_like_langchains_own_parameters_arrive_whole(self) -> None:
        provider = Answering()
        look, = langchain.tools(provider)
        arguments = {key: key.upper() for key in Answering.PROPERTIES}
        self.assertEqual(look.invoke(tool_call("x", "look", dict(arguments))).content, "ok")
        self.assertEqual(asyncio.run(look.ainvoke(tool_call("y", "look", dict(arguments)))).content,
                         "ok")
        self.assertEqual([c["function"]["arguments"] for c in provider.calls],
                         [arguments, arguments])

    def test_cancelling_ainvoke_cancels_the_call(self) -> None:
        provider = Answering(hold=threading.Event())
        look, = langchain.tools(provider)

        async def main() -> None:
            task = asyncio.ensure_future(look.ainvoke(tool_call("z", "look", {})))
            started = await asyncio.get_running_loop().run_in_executor(
                None, provider.started.wait, 10)
            self.assertTrue(started)
            task.cancel()
            with self.assertRaises(asyncio.CancelledError):
                await task

        asyncio.run(main())
        self.assertEqual(provider.cancelled, [provider.calls[0]["id"]])

    def test_not_a_provider(self) -> None:
        with self.assertRaisesRegex(MCPClientError, "takes a provider"):
            langchain.tools(object())


class ImportTest(ImportChecks, LeakCheckingTestCase):
    adapter, packages, extra = "langchain", ("langchain_core", "langchain"), "langchain"


class ExampleTest(LeakCheckingTestCase):
    def test_the_example_runs_one_turn_offline(self) -> None:
        root = Path(__file__).resolve().parents[2]
        done = subprocess.run([PYTHON, str(root / "examples" / "langchain_agent.py")],
                              capture_output=True, text=True, timeout=120, cwd=root,
                              env=dict(os.environ, PYTHONPATH=str(root)))
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(done.stdout.splitlines(), [
            "tools: qs_echo qs_add qs_word_count",
            "-> call_1 qs_word_count {'text': 'gears turn sprockets'}",
            "<- call_1 (success): 3",
            "-> call_2 qs_add {'a': 2, 'b': 3}",
            "  [human] qs_add {'a': 2, 'b': 3}: rule 0 asks -> no",
            "<- call_2 (error): refused by policy: the user denied this call to qs_add.",
            "assistant: Three words; the sum was not allowed.",
        ])
