"""The project's habits are files, and the files say what CONTRIBUTING.rst promises.

``noxfile.py`` defines the four sessions a contributor runs (tests, lint,
typing, docs) and the interpreters they run on; ``.pre-commit-config.yaml``
runs flake8 and mypy from the installed tools (``repo: local``, so no hook is
fetched); ``nox`` is in the ``dev`` extra, not in ``test``, which CI installs;
``docs/internals.rst`` exists and is in the documentation's table of contents.
Both files are read as text and parsed (``ast``, PyYAML): neither nox nor
pre-commit need be installed for these tests to run.
"""

from __future__ import annotations

import ast
import configparser
import os
import unittest
from typing import Any

import yaml

from .base import HERE

ROOT = os.path.dirname(HERE)

#: the sessions CONTRIBUTING.rst names
SESSIONS = {"tests", "lint", "typing", "docs"}


def _read(name: str) -> str:
    with open(os.path.join(ROOT, name), encoding="utf-8") as handle:
        return handle.read()


def _is_session(decorator: ast.expr) -> bool:
    """``@nox.session`` or ``@nox.session(...)``."""
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    return ast.unparse(target) in ("nox.session", "session")


def _sessions(tree: ast.Module) -> dict[str, ast.FunctionDef]:
    return {node.name: node for node in tree.body
            if isinstance(node, ast.FunctionDef) and any(map(_is_session, node.decorator_list))}


def _extras() -> dict[str, list[str]]:
    parser = configparser.ConfigParser()
    parser.read_string(_read("setup.cfg"))
    return {name: [line.strip() for line in value.splitlines() if line.strip()]
            for name, value in parser["options.extras_require"].items()}


class NoxfileTest(unittest.TestCase):
    def setUp(self) -> None:
        self.source = _read("noxfile.py")
        self.tree = ast.parse(self.source)

    def test_the_four_sessions_are_defined(self) -> None:
        self.assertEqual(sorted(SESSIONS - set(_sessions(self.tree))), [])

    def test_tests_lint_and_typing_run_on_a_python_matrix(self) -> None:
        pythons = next((node.value for node in self.tree.body if isinstance(node, ast.Assign)
                        and ast.unparse(node.targets[0]) == "PYTHONS"), None)
        if pythons is None:
            self.fail("noxfile.py has no PYTHONS list")
        versions = ast.literal_eval(pythons)
        self.assertIn("3.10", versions)   # python_requires = >=3.10
        self.assertGreaterEqual(len(versions), 2)
        for name in ("tests", "lint", "typing"):
            with self.subTest(session=name):
                decorator = _sessions(self.tree)[name].decorator_list[0]
                if not isinstance(decorator, ast.Call):
                    self.fail(f"{name}: @nox.session without python=")
                keywords = {k.arg: ast.unparse(k.value) for k in decorator.keywords}
                self.assertEqual(keywords.get("python"), "PYTHONS")

    def test_the_sessions_run_the_commands_ci_runs(self) -> None:
        sessions = _sessions(self.tree)
        expected = {"tests": ["pytest"], "lint": ["flake8"], "typing": ["mypy"],
                    "docs": ["sphinx-build", "-W", "html", "doctest"]}
        for name, words in expected.items():
            text = ast.unparse(sessions[name])
            for word in words:
                with self.subTest(session=name, word=word):
                    self.assertIn(repr(word), text)

    def test_lint_reads_what_ci_lints(self) -> None:
        targets = next(node.value for node in self.tree.body if isinstance(node, ast.Assign)
                       and ast.unparse(node.targets[0]) == "LINT_TARGETS")
        self.assertEqual(ast.literal_eval(targets), ["mcp_client", "tests", "examples", "bench"])
        self.assertIn("*LINT_TARGETS", ast.unparse(_sessions(self.tree)["lint"]))

    def test_nox_is_in_the_dev_extra_and_not_in_test(self) -> None:
        extras = _extras()
        self.assertTrue(any(req.split(">")[0].split("=")[0] == "nox"
                            for req in extras.get("dev", [])), extras.get("dev"))
        self.assertFalse(any(req.startswith("nox") for req in extras["test"]))


class PreCommitTest(unittest.TestCase):
    def setUp(self) -> None:
        self.config: dict[str, Any] = yaml.safe_load(_read(".pre-commit-config.yaml"))

    def _hooks(self) -> dict[str, tuple[str, dict[str, Any]]]:
        return {hook["id"]: (repo["repo"], hook) for repo in self.config["repos"]
                for hook in repo["hooks"]}

    def test_flake8_and_mypy_are_hooks(self) -> None:
        self.assertLessEqual({"flake8", "mypy"}, set(self._hooks()))

    def test_every_hook_is_local_and_needs_no_fetch(self) -> None:
        for ident, (repo, hook) in self._hooks().items():
            with self.subTest(hook=ident):
                self.assertEqual(repo, "local")
                self.assertIn(hook["language"], ("system", "pygrep"))

    def test_the_hooks_run_the_installed_tools(self) -> None:
        hooks = self._hooks()
        self.assertEqual(hooks["flake8"][1]["entry"].split()[0], "flake8")
        self.assertEqual(hooks["mypy"][1]["entry"].split()[0], "mypy")
        # mypy reads its file list from setup.cfg: handed files, it would check only those.
        self.assertFalse(hooks["mypy"][1].get("pass_filenames", True))


class MapTest(unittest.TestCase):
    def test_internals_and_contributing_exist_and_are_linked(self) -> None:
        self.assertTrue(os.path.isfile(os.path.join(ROOT, "CONTRIBUTING.rst")))
        internals = _read(os.path.join("docs", "internals.rst"))
        for word in ("flight", "volley", "lead", "held", "stamp"):
            with self.subTest(word=word):
                self.assertIn(f"\n{word}\n", internals)   # a glossary term of its own
        index = _read(os.path.join("docs", "index.rst"))
        toctree = index[index.index(".. toctree::"):]
        self.assertIn("\n   internals\n", toctree)


if __name__ == "__main__":
    unittest.main()
