"""``mcp_client.adapters.smolagents``: a provider's tools as smolagents tools, in real agents.

The agents run on a scripted model (a ``smolagents.models.Model`` subclass that answers
from a list and records what it was shown): no network, no token.  The provider is a
Registry over ``tests/servers/dual_stdio.py`` under a Policy, with a recording wrapper
under the Policy to prove what reached the server.
"""

from __future__ import annotations

import subprocess
from typing import Any

# smolagents ships no type hints (no py.typed).
from smolagents import CodeAgent, Tool, ToolCallingAgent  # type: ignore[import-untyped]
from smolagents.memory import ActionStep  # type: ignore[import-untyped]
from smolagents.models import (  # type: ignore[import-untyped]
    ChatMessage, ChatMessageToolCall, ChatMessageToolCallFunction, MessageRole, Model,
    get_tool_json_schema)
from smolagents.monitoring import LogLevel  # type: ignore[import-untyped]
from smolagents.utils import (  # type: ignore[import-untyped]
    AgentExecutionError, AgentToolExecutionError)

from mcp_client import MCPClientError
from mcp_client.adapters import smolagents as mcp_smolagents

from .demo import DemoCase, ImportChecks
from ..base import HERE, PYTHON, LeakCheckingTestCase


class ScriptedModel(Model):  # type: ignore[misc]   # smolagents has no type hints
    """Answers each turn with the next scripted item and records the messages it was given.

    An item is a string (the message's text: a ``CodeAgent``'s code) or a list of
    ``(tool name, arguments)`` pairs (a ``ToolCallingAgent``'s tool calls).
    """

    def __init__(self, script: list[Any]) -> None:
        super().__init__(model_id="scripted")
        self.script = list(script)
        self.turns: list[list[Any]] = []
        self.offered: list[Any] = []

    def generate(self, messages: list[Any], stop_sequences: Any = None,
                 response_format: Any = None, tools_to_call_from: Any = None,
                 **kwargs: Any) -> ChatMessage:
        self.turns.append(list(messages))
        self.offered.append(tools_to_call_from)
        item = self.script.pop(0)
        if isinstance(item, str):
            return ChatMessage(role=MessageRole.ASSISTANT, content=item)
        return ChatMessage(role=MessageRole.ASSISTANT, content="", tool_calls=[
            ChatMessageToolCall(id=f"call_{len(self.turns)}_{index}", type="function",
                                function=ChatMessageToolCallFunction(name=name,
                                                                     arguments=arguments))
            for index, (name, arguments) in enumerate(item)])

    def last_text(self, turn: int) -> str:
        """The text of the last message the model was given on ``turn``."""
        content = self.turns[turn][-1].content
        return "".join(part["text"] for part in content if part.get("type") == "text")


def code(source: str) -> str:
    """A CodeAgent model answer running ``source``."""
    return f"Thought: do it\n<code>\n{source}\n</code>"


class AgentsTest(DemoCase):
    # demo_add stays on the list (its deny rule is narrowed by host) but a call
    # naming no host of example.org cannot be shown to be elsewhere: refused.
    rules = [{"tool": "demo_add", "decision": "deny", "host": "example.org", "note": "no sums"},
             {"tool": "demo_delay", "decision": "ask"},
             {"tool": "demo_*", "decision": "allow"}]

    def policy_options(self) -> dict[str, Any]:
        self.asked: list[Any] = []
        return {"on_ask": self.refuse}

    def refuse(self, question: Any) -> str:
        self.asked.append(question["tool"])
        return "deny-once"

    def test_the_agent_sees_the_providers_tools_as_published(self) -> None:
        tools = mcp_smolagents.tools(self.provider)
        published = [d["function"] for d in self.provider.tools_for_llm()]
        self.assertEqual([t.name for t in tools], [f["name"] for f in published])
        self.assertIn("demo_add", [t.name for t in tools])
        for tool, function in zip(tools, published):
            with self.subTest(tool=tool.name):
                self.assertIsInstance(tool, Tool)
                self.assertEqual(tool.description, function["description"])
                self.assertEqual(tool.parameters, function["parameters"])
                self.assertEqual(tool.output_type, "string")
                self.assertIs(tool.provider, self.provider)
                self.assertEqual(tool.annotations, self.provider.tool_annotations(tool.name))
                self.assertEqual(list(tool.inputs), list(function["parameters"].get(
                    "properties", {})))
        die = next(t for t in tools if t.name == "demo_die")
        self.assertEqual(die.inputs["code"], {"default": 3, "title": "Code", "type": "integer",
                                              "description": "", "nullable": True})
        region = next(t for t in tools if t.name == "demo_region_query")
        self.assertIs(region.annotations["readOnlyHint"], True)
        echo = next(t for t in tools if t.name == "demo_echo")
        self.assertEqual(echo.inputs["text"]["type"], "string")
        self.assertNotIn("nullable", echo.inputs["text"])
        model = ScriptedModel([[("final_answer", {"answer": "none needed"})]])
        agent = ToolCallingAgent(tools=tools, model=model, verbosity_level=LogLevel.OFF)
        self.assertEqual(agent.run("nothing"), "none needed")
        offered = {tool.name: get_tool_json_schema(tool)["function"]
                   for tool in model.offered[0]}
        self.assertEqual(offered["demo_add"]["parameters"]["required"], ["a", "b"])
        self.assertEqual(offered["demo_die"]["parameters"]["required"], [])
        self.assertEqual(offered["demo_echo"]["description"], "Echo the text back.")
        self.assertEqual(self.calls_sent, [])

    def test_tool_calling_agent_results_refusals_and_failures_reach_the_next_turn(self) -> None:
        model = ScriptedModel([
            [("demo_echo", {"text": "hi"})],
            [("demo_add", {"a": 2, "b": 3})],
            [("demo_delay", {"ms": 1, "tag": "t"})],
            [("demo_fail", {})],
            [("final_answer", {"answer": "done"})]])
        agent = ToolCallingAgent(tools=mcp_smolagents.tools(self.provider), model=model,
                                 verbosity_level=LogLevel.OFF)
        self.assertEqual(agent.run("go"), "done")
        self.assertEqual(model.last_text(1), "Observation:\nhi")
        self.assertIn("ToolCallFailed: refused by policy: demo_add is denied by rule 0",
                      model.last_text(2))
        self.assertIn("ToolCallFailed: refused by policy: the user denied this call to "
                      "demo_delay", model.last_text(3))
        self.assertIn("ToolCallFailed: ", model.last_text(4))
        self.assertIn("failed: because", model.last_text(4))
        steps = [s for s in agent.memory.steps if isinstance(s, ActionStep)]
        self.assertEqual([type(s.error) for s in steps],
                         [type(None), AgentToolExecutionError, AgentToolExecutionError,
                          AgentToolExecutionError, type(None)])
        self.assertIsInstance(steps[1].error.__cause__, mcp_smolagents.ToolCallFailed)
        self.assertEqual(self.asked, ["demo_delay"])
        self.assertEqual(self.calls_sent, [("demo_echo", {"text": "hi"}), ("demo_fail", {})])

    def test_code_agent_calls_tools_as_functions(self) -> None:
        model = ScriptedModel([
            code('first = demo_echo(text="hi")\nsecond = demo_echo("positional")\n'
                 'print(first, second)'),
            code("demo_add(a=1, b=2)"),
            code("final_answer(demo_echo(text='end'))")])
        agent = CodeAgent(tools=mcp_smolagents.tools(self.provider), model=model,
                          verbosity_level=LogLevel.OFF)
        self.assertEqual(agent.run("go"), "end")
        self.assertIn("hi positional", model.last_text(1))
        self.assertIn("ToolCallFailed: refused by policy: demo_add is denied", model.last_text(2))
        steps = [s for s in agent.memory.steps if isinstance(s, ActionStep)]
        self.assertIsInstance(steps[1].error, AgentExecutionError)
        self.assertEqual(self.calls_sent, [("demo_echo", {"text": "hi"}),
                                           ("demo_echo", {"text": "positional"}),
                                           ("demo_echo", {"text": "end"})])

    def test_a_direct_call_raises_tool_call_failed(self) -> None:
        tools = {t.name: t for t in mcp_smolagents.tools(self.provider)}
        self.assertEqual(tools["demo_echo"](text="hi"), "hi")
        self.assertEqual(tools["demo_echo"]({"text": "dict"}), "dict")
        with self.assertRaises(mcp_smolagents.ToolCallFailed) as caught:
            tools["demo_fail"]()
        self.assertIsInstance(caught.exception, MCPClientError)
        self.assertIn("failed: because", caught.exception.text)
        self.assertEqual(self.calls_sent, [("demo_echo", {"text": "hi"}),
                                           ("demo_echo", {"text": "dict"}), ("demo_fail", {})])


class Published:
    """A provider publishing given declarations, answering each call with its arguments."""

    def __init__(self, *functions: dict[str, Any], is_error: bool = False) -> None:
        self.functions = functions
        self.is_error = is_error
        self.calls: list[Any] = []

    def tools_for_llm(self) -> list[Any]:
        return [{"type": "function", "function": f} for f in self.functions]

    def execute_tool_calls(self, calls: list[Any]) -> list[Any]:
        self.calls.extend((c["function"]["name"], c["function"]["arguments"]) for c in calls)
        return [{"role": "tool", "tool_call_id": c["id"], "is_error": self.is_error,
                 "content": f"got {c['function']['arguments']!r}",
                 "structured_content": {"n": 1}} for c in calls]


def schema(properties: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    return {"type": "object", "properties": properties,
            **({"required": required} if required is not None else {})}


class MappingTest(LeakCheckingTestCase):
    def test_types_smolagents_has_are_kept_and_the_rest_is_any(self) -> None:
        provider = Published({"name": "look", "description": "Looks.", "parameters": schema({
            "s": {"type": "string", "description": "a string", "enum": ["x", "y"]},
            "n": {"type": ["integer", "null"]},
            "one": {"type": ["number"]},
            "odd": {"type": ["string", "date"]},
            "opt": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
            "ref": {"anyOf": [{"$ref": "#/$defs/Thing"}, {"type": "null"}]},
            "choice": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
            "free": {},
            "date": {"type": "date"},
            "items": {"type": "array", "items": {"type": "integer"}},
            "odd-name": {"type": "string"},
            "bad": "not a schema"}, required=["s", "n", "odd-name"])})
        tool, = mcp_smolagents.tools(provider)
        inputs = tool.inputs
        self.assertEqual(inputs["s"], {"type": "string", "description": "a string",
                                       "enum": ["x", "y"]})
        self.assertEqual(inputs["n"], {"type": ["integer", "null"], "description": ""})
        self.assertEqual(inputs["one"]["type"], "number")
        self.assertEqual(inputs["odd"]["type"], "any")
        self.assertEqual(inputs["opt"], {"anyOf": [{"type": "string"}, {"type": "null"}],
                                         "default": None, "type": ["string", "null"],
                                         "description": "", "nullable": True})
        self.assertEqual(inputs["ref"], {"type": "any", "description": "", "nullable": True})
        self.assertEqual(inputs["choice"]["type"], "any")
        self.assertIn("oneOf", inputs["choice"])
        self.assertEqual(inputs["free"], {"type": "any", "description": "", "nullable": True})
        self.assertEqual(inputs["date"]["type"], "any")
        self.assertEqual(inputs["items"], {"type": "array", "items": {"type": "integer"},
                                           "description": "", "nullable": True})
        self.assertEqual(inputs["odd-name"], {"type": "string", "description": ""})
        self.assertEqual(inputs["bad"], {"type": "any", "description": "", "nullable": True})
        offered = get_tool_json_schema(tool)["function"]["parameters"]   # smolagents can read it
        self.assertEqual(offered["required"], ["s", "n", "odd-name"])
        self.assertEqual(offered["properties"]["opt"]["type"], "string")

    def test_arguments_positional_by_name_and_none_for_an_absent_optional(self) -> None:
        provider = Published({"name": "look", "parameters": schema({
            "q": {"type": "string"}, "max-results": {"type": "integer"},
            "maybe": {"type": ["string", "null"]}}, required=["q"])})
        tool, = mcp_smolagents.tools(provider)
        self.assertEqual(tool.description, "")
        self.assertEqual(tool("x", **{"max-results": 3}), "got {'q': 'x', 'max-results': 3}")
        tool(q="y", **{"max-results": None}, maybe=None)      # None: left out, or kept if allowed
        self.assertEqual(provider.calls[-1], ("look", {"q": "y", "maybe": None}))
        with self.assertRaisesRegex(TypeError, "look takes at most 3 positional arguments"):
            tool(1, 2, 3, 4)
        with self.assertRaisesRegex(TypeError, "more than one value for argument 'q'"):
            tool("x", q="y")
        self.assertEqual(len(provider.calls), 2)

    def test_a_tool_call_agent_passes_any_parameter_name(self) -> None:
        provider = Published({"name": "look", "parameters": schema({
            "max-results": {"type": "integer"}}, required=["max-results"])})
        model = ScriptedModel([[("look", {"max-results": 2})],
                               [("final_answer", {"answer": "ok"})]])
        agent = ToolCallingAgent(tools=mcp_smolagents.tools(provider), model=model,
                                 verbosity_level=LogLevel.OFF)
        self.assertEqual(agent.run("go"), "ok")
        self.assertEqual(model.last_text(1), "Observation:\ngot {'max-results': 2}")

    def test_an_error_outcome_carries_its_text_and_structured_content(self) -> None:
        provider = Published({"name": "look"}, is_error=True)
        tool, = mcp_smolagents.tools(provider)
        self.assertEqual(tool.inputs, {})
        with self.assertRaises(mcp_smolagents.ToolCallFailed) as caught:
            tool()
        self.assertEqual((caught.exception.text, caught.exception.structured), ("got {}", {"n": 1}))
        self.assertEqual(str(caught.exception), "got {}")

    def test_one_failed_call_of_a_turn_is_what_the_model_is_shown(self) -> None:
        # smolagents' own rule for a tool that raises: the step ends at the error.
        class Mixed(Published):
            def execute_tool_calls(self, calls: list[Any]) -> list[Any]:
                answers = super().execute_tool_calls(calls)
                for answer, call in zip(answers, calls):
                    answer["is_error"] = call["function"]["name"] == "bad"
                return answers

        provider = Mixed({"name": "good"}, {"name": "bad"})
        model = ScriptedModel([[("good", {}), ("bad", {})], [("final_answer", {"answer": "x"})]])
        agent = ToolCallingAgent(tools=mcp_smolagents.tools(provider), model=model,
                                 verbosity_level=LogLevel.OFF)
        self.assertEqual(agent.run("go"), "x")
        self.assertEqual(sorted(provider.calls), [("bad", {}), ("good", {})])
        self.assertIn("Error executing tool 'bad'", model.last_text(1))
        self.assertNotIn("Observation", model.last_text(1))

    def test_names_smolagents_refuses_are_left_out_with_a_warning(self) -> None:
        provider = Published({"name": "get-weather"}, {"name": "2fa"}, {"name": "class"},
                             {"name": "final_answer"}, {"name": "fine_name"})
        with self.assertLogs("mcp_client.adapters.smolagents", "WARNING") as logged:
            tools = mcp_smolagents.tools(provider)
        self.assertEqual([t.name for t in tools], ["fine_name"])
        self.assertEqual(len(logged.records), 4)
        self.assertIn("'get-weather'", logged.output[0])
        self.assertIn("Python identifier", logged.output[0])

    def test_not_a_provider(self) -> None:
        with self.assertRaisesRegex(MCPClientError, "takes a provider"):
            mcp_smolagents.tools(object())


class ImportTest(ImportChecks, LeakCheckingTestCase):
    adapter, packages, extra = "smolagents", ("smolagents",), "smolagents"


class ExampleTest(LeakCheckingTestCase):
    def test_the_example_runs_offline_and_the_refusal_reaches_the_model(self) -> None:
        done = subprocess.run([PYTHON, str(HERE.parent / "examples" / "smolagents_agent.py")],
                              capture_output=True, text=True, timeout=120)
        self.assertEqual(done.returncode, 0, done.stderr)
        lines = done.stdout.splitlines()
        self.assertEqual(lines[0], "tools: text_echo text_add text_word_count")
        self.assertIn("   model sees: Observation: | 3", lines)
        self.assertIn("   [human] may the agent run text_add {'a': 2, 'b': 3}? no", lines)
        self.assertIn("ToolCallFailed: refused by policy: the user denied this call to text_add.",
                      done.stdout)
        self.assertEqual(lines[-3:-1], ["ToolCallingAgent: three words; no sum allowed",
                                        "   model sees: Observation: | Execution logs: | hello "
                                        "from code | Last output from code snippet: | None"])
        self.assertEqual(lines[-1], "CodeAgent: echoed")
