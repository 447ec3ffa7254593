"""Which name a rule sees: a policy over a registry sees ``fs_read``, one under it ``read``.

A :class:`~mcp_client.registry.Registry` publishes a provider's ``read`` as
``fs_read`` (prefix ``fs``).  A policy wrapping the registry judges the
calls the model makes, so its rules say ``fs_read``; a policy added to the
registry judges the calls the registry forwards, with the prefix taken off,
so its rules say ``read``.  A rule in the other spelling matches nothing, and
the symptom is every call asking (headless: refused).  docs/guide/permissions.rst
and docs/guide/layers.rst say the same.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from mcp_client import Registry
from mcp_client.local import LocalServer
from mcp_client.policy import Policy

from ..base import LeakCheckingTestCase

ROOT = Path(__file__).resolve().parents[2]
#: What both documents say, whitespace aside.
SAID = ("Rules name tools as the policy sees them: a policy over a registry sees "
        "``fs_read``, one added to a registry (``registry.add(Policy(...), prefix=\"fs\")``) "
        "sees ``read``.")


def files_server() -> Any:
    """An SDK server with one tool, ``read``, that says what it read."""
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("files")

    @server.tool()
    def read(topic: str) -> str:   # not a location: the floor has nothing to say
        return f"read {topic}"

    return server


def allow(tool: str) -> list[dict[str, Any]]:
    return [{"tool": tool, "decision": "allow"}]


class RuleNamesTest(LeakCheckingTestCase):
    def local(self) -> LocalServer:
        local = LocalServer(files_server())
        self.addCleanup(local.close)
        return local

    def outcome(self, provider: Any) -> tuple[str, bool]:
        names = [d["function"]["name"] for d in provider.tools_for_llm()]
        self.assertEqual(names, ["fs_read"])
        result, = provider.execute_tool_calls([{"id": "1", "type": "function", "function": {
            "name": "fs_read", "arguments": {"topic": "news"}}}])
        return result["content"], result["is_error"]

    def over(self, tool: str) -> tuple[str, bool]:
        registry = Registry()
        self.addCleanup(registry.close)
        registry.add(self.local(), prefix="fs")
        return self.outcome(Policy(registry, rules=allow(tool)))

    def under(self, tool: str) -> tuple[str, bool]:
        registry = Registry()
        self.addCleanup(registry.close)
        registry.add(Policy(self.local(), rules=allow(tool)), prefix="fs")
        return self.outcome(registry)

    def test_a_policy_over_a_registry_sees_the_prefixed_name(self) -> None:
        self.assertEqual(self.over("fs_read"), ("read news", False))

    def test_over_a_registry_the_bare_name_matches_nothing(self) -> None:
        text, is_error = self.over("read")
        self.assertTrue(is_error)
        self.assertIn("no rule allows it", text)

    def test_a_policy_in_a_registry_sees_the_bare_name(self) -> None:
        self.assertEqual(self.under("read"), ("read news", False))

    def test_in_a_registry_the_prefixed_name_matches_nothing(self) -> None:
        text, is_error = self.under("fs_read")
        self.assertTrue(is_error)
        self.assertIn("no rule allows it", text)


class DocsAgreeTest(LeakCheckingTestCase):
    def test_the_permissions_and_layers_guides_say_what_the_tests_show(self) -> None:
        for doc in ("docs/guide/permissions.rst", "docs/guide/layers.rst"):
            with self.subTest(doc):
                text = re.sub(r"\s+", " ", (ROOT / doc).read_text(encoding="utf-8"))
                self.assertTrue(SAID in text, f"{doc} does not say: {SAID}")
