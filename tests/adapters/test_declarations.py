"""Every declaration a Registry over every real server at hand publishes, in every format.

One :class:`~mcp_client.registry.Registry` is built over every test server that runs over
stdio (``tests/servers/``: the official SDK's, both eras, and the hand-written ones) and
over the real peers ``.ci/run`` installs, each named by an environment variable:

* ``MCP_SERVER_EVERYTHING``, ``MCP_SERVER_FILESYSTEM``, ``MCP_SERVER_MEMORY``,
  ``MCP_SERVER_SEQUENTIAL_THINKING``: the entry scripts of the npm reference servers
  (run by ``MCP_NODE``, default ``node``);
* ``MCP_LEGACY_PYTHON``: a Python with ``mcp`` 1.x, which runs ``tests/servers/mcp1_http.py
  --stdio``;
* ``MCP_REFERENCE_PYTHON``: a Python with the PyPI reference servers (``mcp-server-time``,
  ``mcp-server-git`` over a scratch repository, ``mcp-server-fetch``).

A peer whose variable is unset is left out, and :meth:`PeersTest.test_the_peers_are_there`
skips for it, saying why -- or fails, when ``MCP_REQUIRE_PEERS=1`` (as in CI).

Every declaration the Registry publishes must then be a valid Chat Completions tool, a
Responses function tool, an Anthropic tool and a Gemini function declaration (validated by
pydantic against each vendor SDK's own types), under a name every one of those APIs
accepts, none twice; and the count must be the sum of the servers' own tool lists, so that
nothing was dropped on the way.  The framework adapters (LangChain, openai-agents,
smolagents) are built over the same registry and must take every tool with its schema.
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from typing import Any, NamedTuple

import jsonschema
from anthropic.types import ToolParam
from google.genai import types as genai_types
from openai.types.chat import ChatCompletionFunctionToolParam
from openai.types.responses import FunctionToolParam
from pydantic import TypeAdapter

from mcp_client import Client
from mcp_client.adapters import anthropic as mcp_anthropic
from mcp_client.adapters import gemini, openai_responses
from mcp_client.registry import Registry

from ..base import PYTHON, SERVERS, LeakCheckingTestCase, of_type, server

CHAT = TypeAdapter(ChatCompletionFunctionToolParam)
RESPONSES = TypeAdapter(FunctionToolParam)
ANTHROPIC = TypeAdapter(ToolParam)
#: The name every API takes (Chat Completions, Responses, Anthropic: 1 to 64 of these).
NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
#: Gemini's further rule: a function name starts with a letter or an underscore.
GEMINI_START = re.compile(r"^[a-zA-Z_]")

NODE = os.environ.get("MCP_NODE", "node")
REQUIRED = os.environ.get("MCP_REQUIRE_PEERS") == "1"


class Server(NamedTuple):
    prefix: str
    command: str
    args: list[str]
    env: dict[str, str]


#: The servers of tests/servers/ that serve stdio on their own (the others are HTTP, or the
#: demo server again behind a quirk: garbage on stdout, a strict first message).
LOCAL = [Server("demo", PYTHON, server("dual_stdio.py"), {}),
         Server("legacy", PYTHON, server("legacy_stdio.py"), {}),
         Server("extras", PYTHON, server("extras_server.py"), {}),
         Server("interactive", PYTHON, server("interactive_server.py"), {}),
         Server("pattern", PYTHON, server("pattern_server.py"), {}),
         Server("skills", PYTHON, server("skills_server.py"), {}),
         Server("tasks", PYTHON, server("tasks_server.py"), {}),
         Server("growing", PYTHON, server("growing.py"), {}),
         Server("chaos", PYTHON, [str(SERVERS / "chaos" / "echo.py")], {})]

#: The real peers: (prefix, the variable naming it, its arguments besides the scratch folder).
NPM = [("everything", "MCP_SERVER_EVERYTHING", ["stdio"]),
       ("filesystem", "MCP_SERVER_FILESYSTEM", []),
       ("memory", "MCP_SERVER_MEMORY", []),
       ("thinking", "MCP_SERVER_SEQUENTIAL_THINKING", [])]


def peers(scratch: str) -> tuple[list[Server], dict[str, str]]:
    """The peers at hand, and why each other one is not (by prefix)."""
    found, missing = [], {}
    for prefix, variable, args in NPM:
        script = os.environ.get(variable)
        if not script or not os.path.exists(script):
            missing[prefix] = f"{variable} does not name the server's entry script " \
                "(and MCP_NODE the node binary); .ci/run sets both"
            continue
        if prefix == "filesystem":
            args = [*args, scratch]                         # the one folder it may touch
        env = {"MEMORY_FILE_PATH": os.path.join(scratch, "memory.jsonl")} \
            if prefix == "memory" else {}
        found.append(Server(prefix, NODE, [script, *args], env))
    reference = os.environ.get("MCP_REFERENCE_PYTHON")
    if reference and os.path.exists(reference):
        repository = os.path.join(scratch, "repo")
        subprocess.run(["git", "init", "-q", repository], check=True, timeout=30)
        found += [Server("time", reference, ["-m", "mcp_server_time", "--local-timezone",
                                             "UTC"], {}),
                  Server("git", reference, ["-m", "mcp_server_git", "--repository",
                                            repository], {}),
                  Server("fetch", reference, ["-m", "mcp_server_fetch"], {})]
    else:
        missing["pypi"] = "MCP_REFERENCE_PYTHON does not name a Python with the PyPI " \
            "reference servers (mcp-server-time, -git, -fetch; .ci/run installs them)"
    legacy = os.environ.get("MCP_LEGACY_PYTHON")
    if legacy and os.path.exists(legacy):
        found.append(Server("mcp1", legacy, [*server("mcp1_http.py"), "--stdio"], {}))
    else:
        missing["mcp1"] = "MCP_LEGACY_PYTHON does not name a Python with mcp 1.x " \
            "(.ci/run builds it)"
    return found, missing


def never(request: Any) -> Any:
    """A handler that is declared but never called: a server lists the tools it offers only
    to a client that can sample, elicit or list roots (server-everything does so)."""
    raise AssertionError(f"no server asks anything while its tools are listed: {request!r}")


class PeersTest(LeakCheckingTestCase):
    def test_the_peers_are_there(self) -> None:
        with tempfile.TemporaryDirectory() as scratch:
            missing = peers(scratch)[1]
        why = "; ".join(f"{prefix}: {reason}" for prefix, reason in sorted(missing.items()))
        if missing and REQUIRED:
            self.fail(f"MCP_REQUIRE_PEERS=1 but {why}")
        if missing:
            self.skipTest(why)


class DeclarationsTest(LeakCheckingTestCase):
    def setUp(self) -> None:
        super().setUp()
        scratch = tempfile.TemporaryDirectory()
        self.addCleanup(scratch.cleanup)
        self.warnings: list[str] = []
        self.registry = Registry(on_warn=self.warnings.append)
        self.addCleanup(self.registry.close)    # (runs before the folder goes)
        self.servers = LOCAL + peers(scratch.name)[0]
        self.clients: dict[str, Client] = {}
        for spec in self.servers:
            client = Client.connect_stdio(spec.command, args=spec.args, env=spec.env,
                                          request_timeout=60, on_elicit=never, on_sample=never,
                                          on_list_roots=never)
            self.registry.add(client, prefix=spec.prefix, owned=True)
            self.clients[spec.prefix] = client

    def test_every_declaration_is_valid_in_every_format(self) -> None:
        declared = self.registry.tools_for_llm()
        listed = {prefix: client.list_tools() for prefix, client in self.clients.items()}
        expected = sum(len(tools) for tools in listed.values())
        print(f"\n{len(declared)} declarations from {len(self.servers)} servers: " +
              ", ".join(f"{prefix} {len(tools)}" for prefix, tools in listed.items()))
        self.assertEqual(len(declared), expected)          # none dropped, none added
        self.assertEqual(self.warnings, [])
        names = [d["function"]["name"] for d in declared]
        self.assertEqual(len(set(names)), len(names))
        self.assertEqual(len({name.lower() for name in names}), len(names))
        responses = openai_responses.tools(self.registry)
        anthropic = mcp_anthropic.tools(self.registry)
        functions = gemini.declarations(self.registry)
        config = genai_types.GenerateContentConfig.model_validate(
            {"tools": gemini.tools(self.registry)})
        self.assertEqual([len(of_type(tool, genai_types.Tool).function_declarations or [])
                          for tool in config.tools or []], [len(names)])
        for name, each in zip(names, zip(declared, responses, anthropic, functions)):
            with self.subTest(tool=name):
                self.valid(name, *each)
        self.frameworks_take_them(names, [d["function"]["parameters"] for d in declared])

    def frameworks_take_them(self, names: list[str], schemas: list[Any]) -> None:
        """The framework adapters over the same registry: every tool, its schema as published
        (smolagents refuses a name that is not a Python identifier: only those are left out)."""
        import keyword

        from agents import FunctionTool

        from mcp_client.adapters import langchain, openai_agents, smolagents

        chains = langchain.tools(self.registry)
        self.assertEqual([tool.name for tool in chains], names)
        self.assertEqual([tool.args_schema for tool in chains], schemas)
        functions = openai_agents.tools(self.registry)
        self.assertEqual([of_type(tool, FunctionTool).name for tool in functions], names)
        self.assertEqual([tool.params_json_schema for tool in functions], schemas)
        smol = [tool.name for tool in smolagents.tools(self.registry)]
        self.assertEqual(smol, [name for name in names if name.isidentifier() and
                                not keyword.iskeyword(name) and name != "final_answer"])

    def valid(self, name: str, chat: Any, responses: Any, anthropic: Any, function: Any) -> None:
        self.assertRegex(name, NAME)
        self.assertRegex(name, GEMINI_START)
        CHAT.validate_python(chat)
        RESPONSES.validate_python(responses)
        ANTHROPIC.validate_python(anthropic)
        checked = genai_types.FunctionDeclaration.model_validate(function)
        self.assertEqual([responses["name"], anthropic["name"], checked.name], [name] * 3)
        schema = chat["function"]["parameters"]
        jsonschema.validators.validator_for(schema).check_schema(schema)
        self.assertEqual(responses["parameters"], schema)
        self.assertEqual(anthropic["input_schema"]["type"], "object")
        self.assertEqual(checked.parameters_json_schema, anthropic["input_schema"])
