"""``bench/store.py`` still runs: a tiny run of the engines that need no server (its figures
are not judged here; the benchmark is not a timed test)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

from .base import HERE, LeakCheckingTestCase

ROOT = os.path.dirname(HERE)


class BenchStoreTest(LeakCheckingTestCase):
    def test_a_short_run_reports_every_engine_or_why_it_was_skipped(self) -> None:
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        figures = os.path.join(folder.name, "store.json")
        env = {key: value for key, value in os.environ.items()
               if key not in ("MCP_TEST_POSTGRES_URL", "MCP_TEST_REDIS_URL")}
        env["PYTHONPATH"] = ROOT
        done = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "store.py"),
                               "--processes", "1,2", "--seconds", "0.05", "--json", figures],
                              capture_output=True, text=True, env=env, timeout=120)
        self.assertEqual(done.returncode, 0, done.stderr)
        with open(figures, encoding="utf-8") as file:
            report = json.load(file)
        self.assertEqual([(r["engine"], r["processes"]) for r in report["results"]],
                         [("none", 1), ("none", 2), ("memory", 1), ("memory", 2),
                          ("sqlite", 1), ("sqlite", 2)])
        for result in report["results"]:
            self.assertGreater(result["decisions_per_s"], 0)
            self.assertGreater(result["lease_ops"], 0)
            self.assertLessEqual(result["acquire_p50_us"], result["acquire_p99_us"])
        self.assertEqual(report["skipped"],
                         {"postgresql": "MCP_TEST_POSTGRES_URL is not set",
                          "redis": "MCP_TEST_REDIS_URL is not set"})
        self.assertIn("| SQLite (WAL) | 2 |", done.stdout)
