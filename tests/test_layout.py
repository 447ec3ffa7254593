"""The package's shape, asserted: who may import whom, no cycles, and which modules are public.

The rules are the dependency graph of the package (the "wings and roles"
layout): the vocabulary imports nothing but itself, the wire knows no client,
the client knows no layer, layers know no client, product code never imports
the test doubles, no module imports another wing's private module, and no
import closes a cycle -- counting lazy (in-function) and ``TYPE_CHECKING``
imports.  No module is over 600 lines and no class over 400.  A new public
module has to be added to :data:`PUBLIC` on purpose.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import unittest
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "mcp_client"

#: pure formats and data: no threads, no I/O, no knowledge of the rest
VOCABULARY = {"exceptions", "protocol", "sse", "xheaders", "names", "paths", "argkeys",
              "correlator", "cache", "batch", "_redact", "_origin", "_environ", "types"}
#: the transports and their satellites
WIRE = {"transport", "stdio", "_stdio", "http", "http_sse", "_http"}
WIRE_MAY_USE = VOCABULARY | WIRE | {"_lines", "_log", "_version"}
#: provider layers
LAYERS = {"reasons", "unknown_keys", "leases", "policy"}
#: what the client package never reaches
CLIENT_NEVER = {"registry", "local", "config", "_config", "cli", "testing", "auth"} | LAYERS

#: every module a user may import by name; a new one is added here deliberately
PUBLIC = {
    "mcp_client", "mcp_client.__main__", "mcp_client.adapters", "mcp_client.adapters.anthropic",
    "mcp_client.adapters.gemini", "mcp_client.adapters.langchain",
    "mcp_client.adapters.openai_agents", "mcp_client.adapters.openai_responses",
    "mcp_client.adapters.pydantic_ai", "mcp_client.adapters.smolagents", "mcp_client.apps",
    "mcp_client.argkeys", "mcp_client.auth", "mcp_client.batch", "mcp_client.cache",
    "mcp_client.cli", "mcp_client.client", "mcp_client.config", "mcp_client.correlator",
    "mcp_client.discovery", "mcp_client.exceptions", "mcp_client.http", "mcp_client.http_sse",
    "mcp_client.leases", "mcp_client.local", "mcp_client.names", "mcp_client.paths",
    "mcp_client.policy", "mcp_client.policy.rules", "mcp_client.protocol",
    "mcp_client.provider", "mcp_client.reasons", "mcp_client.registry", "mcp_client.sse",
    "mcp_client.stdio", "mcp_client.store", "mcp_client.testing", "mcp_client.testing.fake",
    "mcp_client.testing.kits", "mcp_client.transport", "mcp_client.types",
    "mcp_client.unknown_keys", "mcp_client.xheaders",
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(node: ast.If) -> bool:
    return "TYPE_CHECKING" in ast.unparse(node.test)


class _Imports(ast.NodeVisitor):
    """Collects (target, at_module_level) for every import of the package in one file.

    With ``typing``, the imports under ``if TYPE_CHECKING:`` count too.
    """

    def __init__(self, module: str, is_package: bool, known: set[str], *,
                 typing: bool = False) -> None:
        self.package = module if is_package else module.rpartition(".")[0]
        self.known = known
        self.typing = typing
        self.found: set[tuple[str, bool]] = set()
        self.depth = 0

    def _add(self, target: str) -> None:
        if target.startswith("mcp_client"):
            self.found.add((target, self.depth == 0))

    def visit_If(self, node: ast.If) -> None:
        if self.typing or not _is_type_checking(node):
            self.generic_visit(node)

    def _nested(self, node: ast.AST) -> None:
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _nested

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._add(alias.name)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level:
            base = self.package.split(".")[:len(self.package.split(".")) - (node.level - 1)]
            source = ".".join(base + ([node.module] if node.module else []))
        else:
            source = node.module or ""
        for alias in node.names:
            submodule = f"{source}.{alias.name}"
            self._add(submodule if submodule in self.known else source)


def _graph(*, typing: bool = False) -> dict[str, set[tuple[str, bool]]]:
    files = {_module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}
    graph = {}
    for name, path in files.items():
        visitor = _Imports(name, path.name == "__init__.py", set(files), typing=typing)
        visitor.visit(ast.parse(path.read_text(encoding="utf-8")))
        graph[name] = {(target, top) for target, top in visitor.found if target != name}
    return graph


GRAPH = _graph()
#: every import, lazy and ``TYPE_CHECKING`` ones included
EVERY_IMPORT = _graph(typing=True)


def _short(module: str) -> str:
    return module.removeprefix("mcp_client.")


def _unit(module: str) -> str:
    """The first name below the package: ``policy`` for ``mcp_client.policy._shell``."""
    return _short(module).split(".")[0] if module != "mcp_client" else ""


def _private_owner(module: str) -> str | None:
    """The package a private module belongs to: ``mcp_client.client`` for
    ``mcp_client.client._schema``; None for a public module, or a private one
    directly in the package (``mcp_client._log``: shared by every wing)."""
    parts = module.split(".")
    for at, part in enumerate(parts[1:], 1):
        if part.startswith("_") and part != "__main__":
            return ".".join(parts[:at]) if at > 1 else None
    return None


def _uses(module: str) -> set[str]:
    """The units ``module`` imports, at module level or lazily, itself excluded."""
    return {_unit(target) for target, _ in GRAPH[module]} - {_unit(module), ""}


class DependencyRulesTest(unittest.TestCase):
    def assert_units(self, units: set[str], allowed: set[str], forbidden: set[str] = set()
                     ) -> None:
        for module in sorted(GRAPH):
            if _unit(module) not in units:
                continue
            used = _uses(module)
            with self.subTest(module=module):
                if allowed:
                    self.assertEqual(sorted(used - allowed), [],
                                     f"{module} imports outside its rule")
                self.assertEqual(sorted(used & forbidden), [], f"{module} imports what it must not")

    def test_the_vocabulary_imports_only_the_vocabulary(self) -> None:
        self.assert_units(VOCABULARY, VOCABULARY)

    def test_exceptions_and_protocol_import_nothing_else(self) -> None:
        self.assert_units({"exceptions", "protocol"}, {"exceptions", "protocol"})

    def test_authorization_knows_no_client_and_no_layer(self) -> None:
        self.assert_units({"auth"}, VOCABULARY)

    def test_the_wire_imports_only_the_vocabulary_and_its_satellites(self) -> None:
        self.assert_units(WIRE, WIRE_MAY_USE)

    def test_the_provider_role_imports_only_exceptions_and_protocol(self) -> None:
        # (and _content: the text of content blocks, pure, split out for the module's size)
        self.assert_units({"provider"}, {"exceptions", "protocol", "_content"})

    def test_the_client_never_imports_a_layer_the_registry_or_the_tools(self) -> None:
        self.assert_units({"client"}, set(), CLIENT_NEVER)

    def test_layers_never_import_the_client(self) -> None:
        self.assert_units(LAYERS, set(), {"client", "registry", "local", "cli", "testing"})

    def test_nothing_imports_the_adapters(self) -> None:
        self.assert_units(set(map(_unit, GRAPH)) - {"adapters"}, set(), {"adapters"})

    def test_nothing_outside_testing_imports_testing(self) -> None:
        self.assert_units(set(map(_unit, GRAPH)) - {"testing"}, set(), {"testing"})

    def test_no_module_imports_another_wings_private_module(self) -> None:
        # ``mcp_client.client._schema`` is the client's own: another wing goes
        # through the client's face or a shared module.  Lazy and
        # ``TYPE_CHECKING`` imports count: they are the same dependency.
        found = sorted(f"{_short(module)} -> {_short(target)}"
                       for module, targets in EVERY_IMPORT.items()
                       for target, _ in targets
                       if (owner := _private_owner(target)) is not None
                       and module != owner and not module.startswith(owner + "."))
        self.assertEqual(found, [])

    def test_no_import_cycle_at_module_level(self) -> None:
        edges = {module: {target for target, top in targets if top and target in GRAPH}
                 for module, targets in GRAPH.items()}
        # A submodule importing its own package's face is how Python loads it
        # anyway (the parent is imported first): not a cycle of the code's making.
        for module, targets in edges.items():
            targets -= {parent for parent in GRAPH if module.startswith(parent + ".")}
        cycles = []
        state: dict[str, int] = {}
        stack: list[str] = []

        def walk(module: str) -> None:
            state[module] = 1
            stack.append(module)
            for target in sorted(edges[module]):
                if state.get(target) == 1:
                    cycles.append(" -> ".join(map(_short, stack[stack.index(target):] + [target])))
                elif target not in state:
                    walk(target)
            stack.pop()
            state[module] = 2

        for module in sorted(edges):
            if module not in state:
                walk(module)
        self.assertEqual(cycles, [])


class PublicSurfaceTest(unittest.TestCase):
    def test_the_public_modules_are_exactly_the_listed_ones(self) -> None:
        public = {name for name in GRAPH
                  if not any(part.startswith("_") for part in name.split(".")[1:])
                  or name == "mcp_client.__main__"}
        self.assertEqual(sorted(public - PUBLIC), [], "a new public module: add it to PUBLIC")
        self.assertEqual(sorted(PUBLIC - public), [], "a listed module is gone")

    def test_at_most_32_modules_sit_directly_in_the_package(self) -> None:
        self.assertLessEqual(len(list(PACKAGE.glob("*.py"))), 32)

    def test_client_policy_and_cli_are_packages_with_faces(self) -> None:
        for unit in ("client", "policy", "cli", "testing"):
            with self.subTest(unit=unit):
                face = PACKAGE / unit / "__init__.py"
                self.assertTrue(face.is_file())
                tree = ast.parse(face.read_text(encoding="utf-8"))
                # A face re-exports: its body is a docstring, imports and __all__
                # (and at most a module __dir__ or __getattr__, and the imports
                # a type checker reads for what __getattr__ loads).
                kinds = {type(node).__name__ for node in tree.body
                         if not (isinstance(node, ast.FunctionDef)
                                 and node.name in ("__dir__", "__getattr__"))
                         and not (isinstance(node, ast.If) and _is_type_checking(node))}
                self.assertLessEqual(kinds, {"Expr", "ImportFrom", "Import", "Assign"})

    def test_the_registry_does_not_load_the_test_doubles(self) -> None:
        code = ("import mcp_client.registry, sys; "
                "print([m for m in sys.modules if m.startswith('mcp_client.testing')])")
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              timeout=60, cwd=PACKAGE.parent)
        self.assertEqual((done.returncode, done.stdout.strip()), (0, "[]"), done.stderr)


class StandsAloneTest(unittest.TestCase):
    #: Documents outside the repository that a docstring or comment once pointed at.
    OUTSIDE = ("API.md", "PROTOCOL.md", "MCP-Client.txt", "the seed's", "(seed ", "seed \"")

    def test_no_docstring_or_comment_points_outside_the_repository(self) -> None:
        found = [f"{path.relative_to(PACKAGE)}:{number}: {line.strip()}"
                 for path in sorted(PACKAGE.rglob("*.py"))
                 for number, line in enumerate(path.read_text("utf-8").splitlines(), 1)
                 if any(word in line for word in self.OUTSIDE)]
        self.assertEqual(found, [])


def _every_edge() -> dict[str, set[str]]:
    """Who imports whom, counting lazy (in-function) and typing-only imports too; a
    submodule importing its own package's face is how Python loads it anyway."""
    return {module: {target for target, _ in targets
                     if target in EVERY_IMPORT and not module.startswith(target + ".")}
            for module, targets in EVERY_IMPORT.items()}


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for target in sorted(edges[module]):
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            group = []
            while True:
                member = stack.pop()
                group.append(_short(member))
                if member == module:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for module in sorted(edges):
        if module not in index:
            visit(module)
    return groups


class SizeAndCycleTest(unittest.TestCase):
    """What keeps a wing readable: short modules, short classes, no cycle of any kind."""

    MAX_MODULE_LINES = 600
    MAX_CLASS_LINES = 400

    def test_no_module_is_over_600_lines(self) -> None:
        long = {str(path.relative_to(PACKAGE)): count for path in sorted(PACKAGE.rglob("*.py"))
                if (count := len(path.read_text("utf-8").splitlines())) > self.MAX_MODULE_LINES}
        self.assertEqual(long, {})

    def test_no_class_is_over_400_lines(self) -> None:
        long = {}
        for path in sorted(PACKAGE.rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text("utf-8"))):
                if isinstance(node, ast.ClassDef) and node.end_lineno is not None:
                    count = node.end_lineno - node.lineno + 1
                    if count > self.MAX_CLASS_LINES:
                        long[f"{path.relative_to(PACKAGE)}:{node.name}"] = count
        self.assertEqual(long, {})

    def test_no_import_cycle_counting_lazy_and_typing_imports(self) -> None:
        self.assertEqual(_cycles(_every_edge()), [])

    def test_the_cycle_finder_finds_a_cycle(self) -> None:
        edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
        self.assertEqual(_cycles(edges), [["a", "b", "c"]])
