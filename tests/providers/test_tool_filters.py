"""Per-server tool filters: ``Registry.add(include=, exclude=)`` and ``mcpServers`` ``tools``."""

from __future__ import annotations

from typing import Any

from mcp_client import MCPClientError
from mcp_client.config import ConfigError, parse_config
from mcp_client.registry import Registry

from ..base import PYTHON, server
from .test_registry import RegistryCase, Stub, names

DUAL = server("dual_stdio.py")[0]


def call(name: str, ident: str = "1") -> dict[str, Any]:
    return {"id": ident, "type": "function", "function": {"name": name, "arguments": "{}"}}


class RegistryFilterTest(RegistryCase):
    def test_include_and_exclude_globs(self) -> None:
        registry = self.registry()
        stub = Stub("fs", "read_file", "read_dir", "write_file", "delete")
        registry.add(stub, prefix="fs", include=["read_*", "write_*"], exclude=["*_dir"])
        self.assertEqual(names(registry), ["fs_read_file", "fs_write_file"])
        answers = registry.execute_tool_calls([call("fs_read_file"), call("fs_delete", "2"),
                                               call("fs_read_dir", "3")])
        self.assertEqual([a["is_error"] for a in answers], [False, True, True])
        self.assertIn("unknown tool: fs_delete", answers[1]["content"])
        self.assertEqual(stub.batches, [["read_file"]])   # never forwarded

    def test_exclude_alone_and_no_filter(self) -> None:
        registry = self.registry()
        registry.add(Stub("a", "x", "y"), prefix="a", exclude=["y"])
        registry.add(Stub("b", "x", "y"), prefix="b")
        self.assertEqual(names(registry), ["a_x", "b_x", "b_y"])

    def test_bad_patterns_are_refused(self) -> None:
        registry = self.registry()
        bad: Any   # deliberately of the wrong types
        for bad in ("read_*", [""], [3], {"a": 1}):
            with self.subTest(bad=bad), self.assertRaises(MCPClientError):
                registry.add(Stub("a", "x"), prefix="a", include=bad)
            with self.subTest(bad=bad), self.assertRaises(MCPClientError):
                registry.add(Stub("a", "x"), prefix="a", exclude=bad)
        self.assertEqual(registry.providers, [])


class ConfigFilterTest(RegistryCase):
    def test_the_tools_key_is_read(self) -> None:
        [entry] = parse_config({"mcpServers": {"s": {
            "command": "x", "tools": {"include": ["read_*"], "exclude": ["read_secret"]}}}})
        self.assertEqual((entry.include, entry.exclude), (("read_*",), ("read_secret",)))
        self.assertNotIn("tools", entry.extra)
        [plain] = parse_config({"mcpServers": {"s": {"command": "x"}}})
        self.assertEqual((plain.include, plain.exclude), (None, ()))

    def test_a_bad_tools_key_names_the_server(self) -> None:
        for tools in (["a"], {"include": "a"}, {"include": [1]}, {"only": ["a"]}):
            with self.subTest(tools=tools), self.assertRaises(ConfigError) as caught:
                parse_config({"mcpServers": {"s": {"command": "x", "tools": tools}}})
            self.assertEqual((caught.exception.server, caught.exception.key), ("s", "tools"))

    def test_a_real_server_filtered_from_its_config(self) -> None:
        registry = Registry.from_config({"mcpServers": {"demo": {
            "command": PYTHON, "args": [DUAL],
            "tools": {"include": ["e*", "a*"], "exclude": ["ask_llm"]}}}})
        self.addCleanup(registry.close)
        self.assertEqual(registry.failures, [])
        self.assertEqual(sorted(names(registry)), ["demo_add", "demo_echo"])
        answers = registry.execute_tool_calls([
            {"id": "1", "function": {"name": "demo_add", "arguments": {"a": 2, "b": 3}}},
            call("demo_ask_llm", "2")])
        self.assertEqual([(a["content"], a["is_error"]) for a in answers],
                         [("5", False), ("unknown tool: demo_ask_llm", True)])
