"""The README's benchmark table says what ``bench/RESULTS.md`` says (issue 20's "Done when").

``bench/run.py --report`` writes both from one run; this fails when either is edited
by hand, or one is regenerated without the other.
"""

from __future__ import annotations

import os
import sys

from .base import HERE, LeakCheckingTestCase

ROOT = os.path.dirname(HERE)


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


class ReadmeTableTest(LeakCheckingTestCase):
    def setUp(self) -> None:
        super().setUp()
        sys.path.insert(0, os.path.join(ROOT, "bench"))
        self.addCleanup(sys.path.remove, os.path.join(ROOT, "bench"))
        import report

        self.report = report
        with open(os.path.join(ROOT, "bench", "RESULTS.md"), encoding="utf-8") as source:
            self.results = source.read().splitlines()
        with open(os.path.join(ROOT, "README.rst"), encoding="utf-8") as source:
            readme = source.read()
        start, end = readme.index(report.README_START), readme.index(report.README_END)
        self.table = readme[start:end].splitlines()

    def test_every_readme_row_has_the_results_figures(self) -> None:
        labels = {row.key: row.label for row in self.report.ROWS}
        for readme_label, key in self.report.README_ROWS:
            with self.subTest(row=readme_label):
                [figures] = [_cells(line) for line in self.results
                             if line.startswith(f"| {labels[key]} |")]
                [line] = [line for line in self.table if line.startswith(readme_label)]
                shown = line[len(readme_label):].split()
                medians = [cell.split(" (")[0] for cell in figures[2:5]]
                numbers = [token for token in shown if token[:1].isdigit() or token == "--"]
                expected = [m if m != "—" else "--" for m in medians] + \
                    [f"{r}×" if r != "—" else "--" for r in figures[5:7]]
                self.assertEqual(numbers, expected)
