"""The client under test for the official MCP conformance suite (client scenarios, every era).

The suite (``@modelcontextprotocol/conformance``) starts a scenario server, then runs
``python tests/conformance/client.py <server-url>`` with the scenario's name in
``MCP_CONFORMANCE_SCENARIO`` and, for some scenarios, test data as JSON in
``MCP_CONFORMANCE_CONTEXT``.  This program does what each scenario asks of a client, through
the library's public API only, and exits 0 -- or prints the failure and exits 1.  Whether the
wire traffic was right is the suite's verdict, not this program's.

Usage: ``MCP_CONFORMANCE_SCENARIO=tools_call python tests/conformance/client.py URL``
(``.ci/run`` runs it through the suite).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from mcp_client import Client, SkillError  # noqa: E402
from mcp_client.types import Tool  # noqa: E402

Scenario = Callable[[Client, dict[str, Any]], None]
SCENARIOS: dict[str, Scenario] = {}


def scenario(*names: str) -> Callable[[Scenario], Scenario]:
    """Register the function that plays ``names``."""
    def register(function: Scenario) -> Scenario:
        for name in names:
            SCENARIOS[name] = function
        return function
    return register


def connect(url: str, **options: Any) -> Client:
    """A client for ``url`` over Streamable HTTP."""
    options.setdefault("on_warn", lambda text: print(f"warning: {text}", file=sys.stderr))
    options.setdefault("request_timeout", 20)
    return Client.connect_http(url, **options)


def placeholder(schema: Any) -> Any:
    """A value that satisfies a simple property schema (for tools called blind)."""
    kind = schema.get("type") if isinstance(schema, dict) else None
    return {"string": "us-east1", "integer": 1, "number": 1, "boolean": True,
            "array": [], "object": {}}.get(kind if isinstance(kind, str) else "", "x")


def blind_arguments(tool: Tool) -> dict[str, Any]:
    schema = tool.get("inputSchema") or {}
    props = schema.get("properties") or {}
    return {name: placeholder(props.get(name)) for name in schema.get("required") or []}


@scenario("tools_call", "tools-call")
def tools_call(client: Client, context: dict[str, Any]) -> None:
    tools = client.list_tools()
    if tools:
        client.call_tool(tools[0]["name"], {"a": 2, "b": 3})


@scenario("initialize")
def initialize(client: Client, context: dict[str, Any]) -> None:
    client.era   # the probe, then (a legacy scenario server) the handshake
    client.list_tools()


@scenario("sse-retry")
def sse_retry(client: Client, context: dict[str, Any]) -> None:
    """The call's stream is cut after a priming event: the library resumes it by GET."""
    tools = client.list_tools()
    client.call_tool(tools[0]["name"] if tools else "test_reconnection", {})


@scenario("elicitation-sep1034-client-defaults")
def elicitation_defaults(client: Client, context: dict[str, Any]) -> None:
    """Accepting with no content: the library fills in the schema's defaults (SEP-1034)."""
    for tool in client.list_tools():
        client.call_tool(tool["name"], blind_arguments(tool))


@scenario("request-metadata")
def request_metadata(client: Client, context: dict[str, Any]) -> None:
    client.era   # the probe: server/discover
    client.list_tools()


@scenario("json-schema-ref-no-deref")
def list_only(client: Client, context: dict[str, Any]) -> None:
    client.list_tools()


@scenario("json-schema-2020-12-preservation")
def schema_echo(client: Client, context: dict[str, Any]) -> None:
    tools = {tool["name"]: tool for tool in client.list_tools()}
    focal = tools["json_schema_2020_12_tool"]
    client.call_tool("json_schema_echo", {"schema": focal["inputSchema"]})


@scenario("http-standard-headers")
def standard_headers(client: Client, context: dict[str, Any]) -> None:
    for tool in client.list_tools():
        client.call_tool(tool["name"], blind_arguments(tool))
    for resource in client.list_resources():
        client.read_resource(resource["uri"])
    for prompt in client.list_prompts():
        client.get_prompt(prompt["name"], {})


@scenario("http-custom-headers")
def custom_headers(client: Client, context: dict[str, Any]) -> None:
    client.list_tools()
    for call in context.get("toolCalls", []):
        client.call_tool(call["name"], call.get("arguments") or {})


@scenario("http-invalid-tool-headers")
def invalid_tool_headers(client: Client, context: dict[str, Any]) -> None:
    for tool in client.list_tools():   # the client has dropped the invalid ones
        client.call_tool(tool["name"], blind_arguments(tool))


def accept_everything(request: Any) -> dict[str, Any]:
    """An ``on_elicit`` hook that confirms whatever is asked."""
    return {"action": "accept", "content": {"confirmed": True}}


@scenario("sep-2322-client-request-state")
def request_state(client: Client, context: dict[str, Any]) -> None:
    client.list_tools()
    client.call_tool("test_mrtr_unrelated", {})
    client.call_tool("test_mrtr_echo_state", {})
    client.call_tool("test_mrtr_no_state", {})
    client.call_tool("test_mrtr_no_result_type", {})


@scenario("sep-2640-client-no-prefetch")
def skills_listed(client: Client, context: dict[str, Any]) -> None:
    """Listing skills fetches entries only: no skill file is read before one is loaded."""
    if not client.list_skills():
        raise SystemExit("skills/list returned no skill")
    print(f"listed skills at {client.protocol_version}", file=sys.stderr)


@scenario("sep-2640-client-verify-digest", "sep-2640-client-verify-size",
          "sep-2640-client-verify-frontmatter")
def skills_refused(client: Client, context: dict[str, Any]) -> None:
    """Loading a tampered skill: SKILL.md is read, fails verification, and nothing else is read."""
    skills = client.list_skills()
    try:
        client.read_skill(skills[0])
    except SkillError as exc:
        print(f"refused at {client.protocol_version}: {exc}", file=sys.stderr)
        return
    raise SystemExit("the tampered skill was loaded")


#: Scenarios whose server speaks both eras: MCP_CONFORMANCE_PROTOCOL_VERSION says which to use.
BOTH_ERAS = {"sep-2640-client-no-prefetch", "sep-2640-client-verify-digest",
             "sep-2640-client-verify-size", "sep-2640-client-verify-frontmatter"}
#: The handshake versions: a run at one of them talks 2025-11-25 (initialize) to such a server.
LEGACY_VERSIONS = {"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"}

#: Client options a scenario needs.
OPTIONS: dict[str, dict[str, Any]] = {
    "sep-2322-client-request-state": {"on_elicit": accept_everything},
    "elicitation-sep1034-client-defaults": {
        "on_elicit": lambda request: {"action": "accept", "content": {}}},
}


def main(argv: list[str]) -> int:
    name = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    if name.startswith("auth/") and len(argv) >= 2:   # the authorization scenarios: auth.py
        from auth import run
        return run(name, argv[-1], json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}"))
    if len(argv) < 2 or name not in SCENARIOS:
        print(f"usage: MCP_CONFORMANCE_SCENARIO=<{'|'.join(sorted(SCENARIOS))}> "
              f"{argv[0]} <server-url>", file=sys.stderr)
        return 2
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    options = dict(OPTIONS.get(name, {}))
    if name in BOTH_ERAS and os.environ.get("MCP_CONFORMANCE_PROTOCOL_VERSION") in LEGACY_VERSIONS:
        options["era"] = "legacy"
    try:
        with connect(argv[-1], **options) as client:
            SCENARIOS[name](client, context)
    except Exception as exc:
        print(f"{name}: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
