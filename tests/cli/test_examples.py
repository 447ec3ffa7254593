"""The examples run as a newcomer runs them, and say what the README says they say."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from ..base import PYTHON, LeakCheckingTestCase

ROOT = Path(__file__).resolve().parents[2]


def run_example(name: str) -> str:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([PYTHON, str(ROOT / "examples" / name)], capture_output=True,
                          text=True, timeout=120, env=env, cwd=ROOT)
    if done.returncode != 0:
        raise AssertionError(f"{name} exited {done.returncode}:\n{done.stderr}")
    return done.stdout


class QuickstartTest(LeakCheckingTestCase):
    def test_quickstart_prints_era_server_tools_and_a_call(self) -> None:
        out = run_example("quickstart.py").splitlines()
        self.assertEqual(out[0], "era:    modern (protocol 2026-07-28)")
        self.assertEqual(out[1], "server: quickstart 1.0.0")
        self.assertEqual(out[2], "tools:")
        self.assertEqual([line.split()[0] for line in out[3:6]], ["echo", "add", "word_count"])
        self.assertEqual(out[-1], "add(a=2, b=3) -> 5")


class PermissionUITest(LeakCheckingTestCase):
    def test_remembered_answers_and_a_dismissed_question(self) -> None:
        out = run_example("permission_ui.py").splitlines()
        self.assertEqual(out, [
            "  [ui] 'What is your name?' -> {'name': 'Ada'}",
            "greet: Hello, Ada!",
            "  [ui] 'What is your name?' answered from memory",
            "greet: Hello, Ada!",
            "  [ui] 'Really deploy prod?' -> {'ok': True}",
            "confirm: state='pending:deploy prod' action=accept content={'ok': True}",
            "  [ui] 'Really drop the database?' -> None",
            "confirm: state='pending:drop the database' action=cancel content={}",
        ])


AGENTS = [
    'tools: fs_delete fs_edit fs_list fs_read fs_write lock_acquire lock_release',
    'fs_write declares: path content reason',
    'agent-1: claim notes.md and write it',
    '  [human] fs_write {"path": "notes.md"}',
    '          reason given: Record the first finding, as asked',
    '          -> always allow writes in the workspace',
    '  agent-1 <- a1: {"acquired": true, "paths": ["<workspace>/notes.md"], "ttl": 300.0}',
    '  agent-1 <- a2: wrote 23 characters to notes.md',
    'agent-2: claim notes.md',
    '  agent-2 waits for notes.md',
    'agent-1: finish the edit and let go',
    '  agent-1 <- a3: edited notes.md',
    '  agent-1 <- a4: {"released": ["<workspace>/notes.md"]}',
    '  agent-2 <- b1: {"acquired": true, "paths": ["<workspace>/notes.md"], "ttl": 300.0}',
    'agent-2: write under its lease, then let go',
    '  [audit] fs_edit (b2) carried undeclared create_backup; it declares new, old, path, reason',
    '  agent-2 <- b2: edited notes.md',
    '  agent-2 <- b3: {"released": ["<workspace>/notes.md"]}',
    'questions asked: 1; grants in the shared book: 1',
    'notes.md now reads:',
    '  | # Notes',
    '  | - from agent-1 (checked)',
    '  | - from agent-2',
]


class AgentsTest(LeakCheckingTestCase):
    def test_two_agents_share_leases_and_grants(self) -> None:
        self.assertEqual(run_example("two_agents.py").splitlines(), AGENTS)
