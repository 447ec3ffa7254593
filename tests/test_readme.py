"""README.rst is a front door: short, with its two commands, and pointing at every guide page.

What it used to say at length lives in ``docs/``, where the doctest builder runs the
examples; the README keeps what a newcomer needs first (issue 28, item 9).
"""

from __future__ import annotations

import doctest
import os
import re
import sys
from pathlib import Path

from .base import LeakCheckingTestCase

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.rst"

#: The README's two commands: one installs and runs the main example, one the tests.
EXAMPLE_COMMAND = ("python3 -m venv .venv && . .venv/bin/activate && "
                   "python -m pip install -e '.[examples]' && python examples/toolloop.py")
TEST_COMMAND = ("python3 -m venv .venv && . .venv/bin/activate && "
                "python -m pip install -e '.[test]' && python -m pytest")


class ReadmeTest(LeakCheckingTestCase):
    def setUp(self) -> None:
        super().setUp()
        self.text = README.read_text(encoding="utf-8")

    def test_it_is_at_most_250_lines(self) -> None:
        self.assertLessEqual(len(self.text.splitlines()), 250)

    def test_its_two_commands_are_there_as_written(self) -> None:
        commands = [line.strip() for line in self.text.splitlines()
                    if line.startswith("    python3 -m venv")]
        self.assertEqual(commands[:2], [EXAMPLE_COMMAND, TEST_COMMAND])

    def test_it_names_every_guide_page_and_only_pages_that_exist(self) -> None:
        pages = {path.name for path in (ROOT / "docs" / "guide").glob("*.rst")}
        named = set(re.findall(r"^``([a-z-]+\.rst)``  ", self.text, re.MULTILINE))
        self.assertEqual(named, pages)
        for path in re.findall(r"``(docs/[\w/.-]+\.rst)``", self.text):
            with self.subTest(path=path):
                self.assertTrue((ROOT / path).is_file(), path)

    def test_the_performance_guide_shows_the_readme_table(self) -> None:
        sys.path.insert(0, str(ROOT / "bench"))
        self.addCleanup(sys.path.remove, str(ROOT / "bench"))
        import report

        self.assertIn(report.README_START, self.text)
        self.assertIn(report.README_END, self.text)
        guide = (ROOT / "docs" / "guide" / "performance.rst").read_text(encoding="utf-8")
        self.assertIn(f".. include:: ../../README.rst\n   :start-after: {report.README_START}\n"
                      f"   :end-before: {report.README_END}\n", guide)

    def test_its_bridge_example_prints_what_it_says(self) -> None:
        start = self.text.index("    >>> mcp = Client.connect_stdio(")
        end = self.text.index("    >>> mcp.close()\n", start) + len("    >>> mcp.close()\n")
        block = self.text[start:end]
        source = block.replace('"python", args=', f"{sys.executable!r}, args=")
        test = doctest.DocTestParser().get_doctest(
            source, {"__name__": "readme"}, "README.rst", str(README), 0)
        self.assertGreaterEqual(len(test.examples), 3)
        runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
        here = os.getcwd()
        os.chdir(ROOT)
        self.addCleanup(os.chdir, here)
        from mcp_client import Client

        test.globs["Client"] = Client
        out: list[str] = []
        runner.run(test, out=out.append)
        self.assertEqual(runner.summarize(verbose=False).failed, 0, "".join(out))
