"""The provider role: malformed calls and declarations through every layer, and the Layer base."""

from __future__ import annotations

import ast
import importlib.util
import subprocess
import sys
import threading
from typing import Any, Callable, Iterable

from mcp_client import MCPClientError
from mcp_client.leases import LeaseTable, Leases
from mcp_client.policy import Policy
from mcp_client.reasons import Reasons
from mcp_client.unknown_keys import UnknownKeys

from ..base import LeakCheckingTestCase

ALLOW_ALL = [{"tool": "*", "decision": "allow"}]


class Inner:
    """A provider that answers every call ``ok`` and records what reached it."""

    def __init__(self, declarations: list[Any] | None = None) -> None:
        self.declarations = declarations if declarations is not None else [
            {"type": "function", "function": {"name": "echo", "description": "",
                                              "parameters": {"type": "object", "properties": {
                                                  "text": {"type": "string"}}}}}]
        self.received: list[list[Any]] = []
        self.lock = threading.Lock()

    def tools_for_llm(self) -> list[Any]:
        return list(self.declarations)

    def execute_tool_calls(self, calls: Iterable[Any]) -> list[dict[str, Any]]:
        calls = list(calls)
        with self.lock:
            self.received.append(calls)
        return [{"role": "tool", "tool_call_id": None, "content": "ok", "is_error": False}
                for _ in calls]


def layers() -> dict[str, Callable[[Any], Any]]:
    """Every layer, built over a given inner provider."""
    return {
        "Reasons": Reasons,
        "UnknownKeys": lambda inner: UnknownKeys(inner, lambda warning: None),
        "Leases": lambda inner: Leases(inner, LeaseTable(), "a"),
        "Policy": lambda inner: Policy(inner, rules=ALLOW_ALL),
    }


MALFORMED = {
    "function null": {"id": "1", "function": None},
    "no function": {"id": "1"},
    "name not a string": {"id": "1", "function": {"name": 5, "arguments": "{}"}},
    "function not an object": {"id": "1", "function": "fs_write"},
    "not a call at all": 5,
}


class MalformedCallsTest(LeakCheckingTestCase):
    """A layer refuses what it cannot read, in place, and forwards nothing of it."""

    def test_each_malformed_call_is_one_error_entry_in_place(self) -> None:
        good = {"id": "g", "type": "function",
                "function": {"name": "echo", "arguments": '{"text": "hi"}'}}
        for layer_name, build in layers().items():
            for case, bad in MALFORMED.items():
                with self.subTest(layer=layer_name, case=case):
                    inner = Inner()
                    layer = build(inner)
                    layer.tools_for_llm()
                    entries = layer.execute_tool_calls([good, bad, good])
                    self.assertEqual(len(entries), 3)
                    self.assertEqual([e["is_error"] for e in entries], [False, True, False])
                    self.assertTrue(entries[1]["content"].startswith("malformed tool call: "),
                                    entries[1])
                    self.assertEqual(entries[1]["role"], "tool")
                    forwarded = [c for batch in inner.received for c in batch]
                    self.assertEqual(len(forwarded), 2)   # the bad call never went down

    def test_refuse_unreadable_is_the_one_refusal(self) -> None:
        from mcp_client.provider import read_call, refuse_unreadable

        self.assertIsNone(refuse_unreadable(read_call({"id": "g", "function": {"name": "e"}})))
        self.assertEqual(refuse_unreadable(read_call({"id": "b", "function": {"name": ""}})),
                         {"role": "tool", "tool_call_id": "b", "is_error": True,
                          "content": "malformed tool call: the call names no function"})
        self.assertEqual(refuse_unreadable(read_call(None)),
                         {"role": "tool", "tool_call_id": None, "is_error": True,
                          "content": "malformed tool call: a tool call must be an object "
                                     "with an id and a function, not NoneType"})

    def test_calls_that_are_not_a_list_raise_mcp_client_error(self) -> None:
        single = {"id": "1", "type": "function", "function": {"name": "fs_write"}}
        for layer_name, build in layers().items():
            for case, calls in {"None": None, "a number": 5, "a single call": single,
                                "a string": "fs_write"}.items():
                with self.subTest(layer=layer_name, case=case):
                    inner = Inner()
                    layer = build(inner)
                    with self.assertRaises(MCPClientError):
                        layer.execute_tool_calls(calls)
                    self.assertEqual(inner.received, [])

    def test_a_single_call_dict_is_refused_not_read_as_calls(self) -> None:
        """Its keys ("id", "type", "function") used to be taken for three calls."""
        single = {"id": "1", "type": "function",
                  "function": {"name": "echo", "arguments": '{"text": "hi"}'}}
        for layer_name in ("Reasons", "UnknownKeys", "Leases"):
            with self.subTest(layer=layer_name):
                inner = Inner()
                with self.assertRaisesRegex(MCPClientError, "a list of tool calls, not dict"):
                    layers()[layer_name](inner).execute_tool_calls(single)
                self.assertEqual(inner.received, [])


class MalformedDeclarationsTest(LeakCheckingTestCase):
    """A declaration a layer cannot read is passed on (or dropped), never a crash."""

    def test_declarations_without_a_usable_name(self) -> None:
        odd = [{"type": "function", "function": None}, {"type": "function"},
               {"type": "function", "function": {"name": 7}}, "not a declaration"]
        for layer_name, build in layers().items():
            with self.subTest(layer=layer_name):
                inner = Inner(Inner().declarations + odd)
                layer = build(inner)
                declared = layer.tools_for_llm()
                self.assertIsInstance(declared, list)
                named = [d["function"]["name"] for d in declared
                         if isinstance(d, dict) and isinstance(d.get("function"), dict)
                         and isinstance(d["function"].get("name"), str)]
                self.assertIn("echo", named)


class LayerTest(LeakCheckingTestCase):
    """The Layer base: one attribute, checked, delegating."""

    def test_every_layer_holds_its_inner_provider_in_provider(self) -> None:
        from mcp_client.provider import Layer, Provider, is_provider

        class Annotated(Inner):
            def tool_annotations(self, name: str) -> Any:
                return {"readOnlyHint": name == "echo"}

        for layer_name, build in layers().items():
            with self.subTest(layer=layer_name):
                inner = Annotated()
                layer = build(inner)
                self.assertIsInstance(layer, Layer)
                self.assertIsInstance(layer, Provider)
                self.assertTrue(is_provider(layer))
                self.assertIs(layer.provider, inner)
                self.assertEqual(layer.tool_annotations("echo"), {"readOnlyHint": True})
                with self.assertRaises(MCPClientError):
                    build(object())
        self.assertFalse(is_provider(object()))
        self.assertNotIsInstance(object(), Provider)

    def test_repr_and_the_leases_alias(self) -> None:
        inner = Inner()
        self.assertRegex(repr(Reasons(inner)), r"^<Reasons over <.*Inner object at .*>>$")
        self.assertRegex(repr(UnknownKeys(inner, print)), r"^<UnknownKeys over ")
        leases = Leases(inner=inner, table=LeaseTable(), agent_id="a")
        self.assertIs(leases.inner, inner)
        with self.assertRaises(AttributeError):
            leases.inner = Inner()   # type: ignore[misc]

    def test_a_plain_layer_passes_through_and_checks_the_answer_count(self) -> None:
        from mcp_client.provider import Layer

        class Short(Inner):
            def execute_tool_calls(self, calls: Iterable[Any]) -> list[dict[str, Any]]:
                return []

        good = {"id": "g", "function": {"name": "echo", "arguments": "{}"}}
        self.assertEqual(Layer(Inner()).execute_tool_calls([good])[0]["content"], "ok")
        with self.assertLogs("mcp_client.provider", "WARNING"):
            entry, = Layer(Short()).execute_tool_calls([good])
        self.assertEqual(entry, {"role": "tool", "tool_call_id": "g", "is_error": True,
                                 "content": "echo: the provider answered 1 calls with 0 results"})


def _imports(module: str) -> set[str]:
    """What ``module`` imports from the package, anywhere (``TYPE_CHECKING`` blocks included).

    ``from .x import y`` counts as ``mcp_client.x`` and ``mcp_client.x.y``.
    """
    spec = importlib.util.find_spec(module)
    assert spec is not None and spec.origin is not None
    package = module if spec.origin.endswith("__init__.py") else module.rsplit(".", 1)[0]
    found: set[str] = set()
    with open(spec.origin, encoding="utf-8") as source:
        tree = ast.parse(source.read())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = package
            for _ in range(node.level - 1):
                base = base.rsplit(".", 1)[0]
            target = node.module or "" if not node.level else \
                f"{base}.{node.module}" if node.module else base
            found.add(target)
            found.update(f"{target}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {name for name in found if name.split(".")[0] == "mcp_client"}


class SeamTest(LeakCheckingTestCase):
    """The provider role sits below everything that uses it."""

    def test_the_provider_module_imports_only_the_vocabulary(self) -> None:
        for name in _imports("mcp_client.provider"):
            self.assertRegex(name, r"^mcp_client(\.protocol|\.types(\.\w+)?|\._content(\.\w+)?"
                                   r"|\.exceptions(\.\w+)?)?$")

    def test_the_bridge_never_imports_the_client(self) -> None:
        imported = _imports("mcp_client.client._bridge")
        self.assertNotIn("mcp_client.client._client", imported)
        self.assertNotIn("mcp_client.client._connection", imported)

    def test_layers_never_import_the_bridge_or_the_client(self) -> None:
        for module in ("mcp_client.reasons", "mcp_client.unknown_keys", "mcp_client.leases",
                       "mcp_client.policy._policy", "mcp_client.policy._calls",
                       "mcp_client.registry", "mcp_client.local", "mcp_client.cli._output"):
            with self.subTest(module):
                imported = _imports(module)
                self.assertNotIn("mcp_client.client._bridge", imported)
                if module != "mcp_client.local":
                    self.assertNotIn("mcp_client.client", imported)

    def test_product_code_never_loads_the_test_doubles(self) -> None:
        code = ("import sys, mcp_client.registry, mcp_client.local\n"
                "print([m for m in sys.modules if m.startswith('mcp_client.testing')])\n")
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              timeout=60)
        self.assertEqual((done.returncode, done.stdout.strip()), (0, "[]"), done.stderr)

    def test_the_kit_servers_do_not_import_the_kits(self) -> None:
        self.assertNotIn("mcp_client.testing.kits", _imports("mcp_client.testing._kitservers"))
