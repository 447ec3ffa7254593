"""examples/toolloop.py runs as a newcomer runs it, and prints what the README says."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from ..base import PYTHON, LeakCheckingTestCase

ROOT = Path(__file__).resolve().parents[2]

EXPECTED = """\
tools: docs_list_docs docs_search_docs docs_read_doc text_echo text_add text_word_count
user: What changed in the docs since the last release?
-> call_1 docs_search_docs {"query": "gears"}
   .. call_1 1/3 searched README.md
   .. call_1 2/3 searched CHANGES.md
   .. call_1 3/3 searched INSTALL.md
<- call_1: README.md | CHANGES.md
-> call_2 docs_read_doc {"name": "README.md"}
-> call_3 docs_read_doc {"name": "CHANGES.md"}
<- call_2: # Widgets | Widgets turn sprockets into gears.
<- call_3: ## 2.0 | - Gears can be reversed. | - Sprockets load twice as fast.
-> call_4 text_word_count \
{"text": "## 2.0\\n- Gears can be reversed.\\n- Sprockets load twice as fast."}
<- call_4: 13
assistant: Since the last release: Gears can be reversed.; Sprockets load twice as fast. \
(the changelog is 13 words long).
"""


class ToolLoopExampleTest(LeakCheckingTestCase):
    def test_the_tool_loop_prints_the_same_every_run(self) -> None:
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        for _ in range(2):
            done = subprocess.run([PYTHON, str(ROOT / "examples" / "toolloop.py")],
                                  capture_output=True, text=True, timeout=120, env=env, cwd=ROOT)
            self.assertEqual(done.returncode, 0, done.stderr)
            self.assertEqual(done.stdout, EXPECTED)
            self.assertEqual(done.stderr, "")
