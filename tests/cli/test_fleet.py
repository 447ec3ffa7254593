"""``mcp-client grants`` and ``mcp-client leases`` on an SQLite store file that a
:class:`Grants` and a :class:`LeaseTable` in this process filled.

The verbs start no server, so most runs call :func:`mcp_client.cli.main` in this process
(its streams captured, as a terminal-less run has them); the revoke test runs the real
``python -m mcp_client`` as a subprocess, so the entry point is covered too.
"""

from __future__ import annotations

import io
import json
import os
import tempfile
from typing import Any

from mcp_client.cli import main
from mcp_client.leases import Hold, LeaseTable
from mcp_client.policy import Grants
from mcp_client.store import SQLiteStore

from .test_cli import CLITestCase, Outcome, run_many

RULES: list[dict[str, Any]] = [
    {"tool": "fs_write", "decision": "allow"},
    {"tool": "sh_run", "decision": "deny", "command": "git", "args": ["push"]}]


class StoreTestCase(CLITestCase):
    """A fresh store file, closed and removed after the test."""

    def setUp(self) -> None:
        super().setUp()
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        self.path = os.path.join(folder.name, "fleet.db")
        self.store = SQLiteStore(self.path)
        self.addCleanup(self.store.close)

    def run_all(self, runs: dict[str, list[str]]) -> dict[str, Outcome]:
        outcomes = {}
        for key, words in runs.items():
            out, err = io.StringIO(), io.StringIO()
            code = main(words, stdin=io.StringIO(""), stdout=out, stderr=err)
            outcomes[key] = Outcome(code, out.getvalue(), err.getvalue())
        return outcomes


class GrantsTest(StoreTestCase):
    def setUp(self) -> None:
        super().setUp()
        self.grants = Grants(RULES, store=self.store, agent="seed")
        Grants([{"tool": "fs_read", "decision": "allow"}], store=self.store, book="team")

    def test_list_export_and_their_json(self) -> None:
        url = f"sqlite://{self.path}"
        got = self.run_all({
            "list": ["grants", "--store", self.path],
            "list-json": ["grants", "--store", url, "list", "--json"],
            "export": ["grants", "--store", self.path, "export"],
            "export-json": ["--json", "grants", "--store", self.path, "export"],
            "team": ["grants", "--store", self.path, "--book", "team"],
            "empty": ["grants", "--store", self.path, "--book", "nobody"]})
        self.check(got["list"], 0, out="N  RULE\n"
                   '1  {"tool": "fs_write", "decision": "allow"}\n'
                   '2  {"tool": "sh_run", "decision": "deny", "command": "git", '
                   '"args": ["push"]}\n')
        self.check(got["list-json"], 0)
        self.assertEqual(json.loads(got["list-json"].out),
                         [{"n": 1, "rule": RULES[0]}, {"n": 2, "rule": RULES[1]}])
        for key in ("export", "export-json"):
            self.check(got[key], 0)
            exported = json.loads(got[key].out)
            self.assertEqual(exported, RULES)
            self.assertEqual(Grants(exported).grants, RULES)   # re-imported as Grants(grants)
        self.check(got["team"], 0, out='N  RULE\n1  {"tool": "fs_read", "decision": "allow"}\n')
        self.check(got["empty"], 0, out="", err=("the book 'nobody' has no grants",))

    def test_revoke_n_is_the_number_list_shows(self) -> None:
        outcome = run_many({"revoke": ["grants", "--store", self.path, "revoke", "2",
                                       "--json"]})["revoke"]
        self.check(outcome, 0)
        self.assertEqual(json.loads(outcome.out), {"n": 2, "revoked": RULES[1]})
        self.assertEqual(self.grants.grants, [RULES[0]])
        last = self.grants.history()[-1]
        self.assertEqual((last["event"], last["rule"], last["agent"]),
                         ("revoke", RULES[1], "mcp-client"))
        outcome = run_many({"revoke": ["grants", "--store", self.path, "revoke", "1"]})["revoke"]
        self.check(outcome, 0, out='revoked 1: {"tool": "fs_write", "decision": "allow"}\n')
        self.assertEqual(self.grants.grants, [])

    def test_bad_numbers_are_usage_errors_and_revoke_nothing(self) -> None:
        got = self.run_all({
            "none": ["grants", "--store", self.path, "revoke"],
            "zero": ["grants", "--store", self.path, "revoke", "0"],
            "past": ["grants", "--store", self.path, "revoke", "3"],
            "word": ["grants", "--store", self.path, "revoke", "first"],
            "json": ["grants", "--store", self.path, "revoke", "3", "--json"],
            "extra": ["grants", "--store", self.path, "list", "1"]})
        self.check(got["none"], 2, out="", err=("revoke needs the grant's number",))
        self.check(got["zero"], 2, out="", err=("no grant 0 in the book 'default' "
                                                "(its numbers: 1 to 2)",))
        self.check(got["past"], 2, out="", err=("no grant 3",))
        self.check(got["word"], 2, out="", err=("not 'first'",))
        self.check(got["json"], 2, err=())
        self.assertEqual(json.loads(got["json"].out)["error"]["type"], "UsageError")
        self.check(got["extra"], 2, err=("list takes no argument",))
        self.assertEqual(self.grants.grants, RULES)


class LeasesTest(StoreTestCase):
    def setUp(self) -> None:
        super().setUp()
        self.table = LeaseTable(store=self.store, workspace="repo")
        self.assertIsNone(self.table.try_acquire("agent-1", ["/repo/a.py", "/repo/docs"], 300))
        held = self.table.hold("agent-2", ["/repo/b.py"], strict=False)   # this live process's
        assert isinstance(held, Hold)
        self.addCleanup(self.table.end_hold, held)
        self.token = self.table.snapshot()[0].token

    def test_list_shows_leases_and_holds_in_flight(self) -> None:
        got = self.run_all({
            "list": ["leases", "--store", self.path, "--workspace", "repo"],
            "json": ["leases", "--store", self.path, "--workspace", "repo", "list", "--json"],
            "other": ["leases", "--store", self.path]})
        self.check(got["list"], 0)
        lines = got["list"].out.splitlines()
        self.assertEqual(lines[0].split(), ["PATH", "HOLDER", "SINCE", "EXPIRES", "IN", "TOKEN"])
        self.assertEqual([line.split()[:2] + line.split()[-1:] for line in lines[1:3]],
                         [["/repo/a.py", "agent-1", str(self.token)],
                          ["/repo/docs", "agent-1", str(self.token)]])
        self.assertRegex(lines[1], r"  4m [0-5]\ds  ")
        self.assertEqual(lines[3].split()[:2], ["/repo/b.py", "agent-2"])
        self.assertTrue(lines[3].endswith("in flight   -"), lines[3])
        self.assertEqual(len(lines), 4)
        self.check(got["json"], 0)
        listed = json.loads(got["json"].out)
        self.assertEqual([(e["path"], e["holder"], e["in_flight"], e["token"]) for e in listed],
                         [("/repo/a.py", "agent-1", False, self.token),
                          ("/repo/docs", "agent-1", False, self.token),
                          ("/repo/b.py", "agent-2", True, 0)])
        self.assertEqual(set(listed[0]), {"path", "holder", "since", "expires", "expires_in",
                                          "in_flight", "token"})
        self.assertIsInstance(listed[0]["since"], float)
        self.assertGreater(listed[0]["expires_in"], 200)
        self.assertLessEqual(listed[0]["expires_in"], 300)
        self.assertEqual((listed[2]["expires"], listed[2]["expires_in"]), (None, None))
        self.check(got["other"], 0, out="", err=("the workspace 'default' has no leases",))

    def test_release_frees_the_holders_leases_only(self) -> None:
        got = self.run_all({"release": ["leases", "--store", self.path, "--workspace", "repo",
                                        "release", "agent-1"]})
        self.check(got["release"], 0, out="/repo/a.py\n/repo/docs\n")
        self.assertEqual(self.table.snapshot(), [])
        self.assertEqual(len(self.table.holds()), 1)
        got = self.run_all({
            "flying": ["leases", "--store", self.path, "--workspace", "repo", "release",
                       "agent-2", "--json"],
            "none": ["leases", "--store", self.path, "--workspace", "repo", "release"]})
        self.check(got["flying"], 0, err=("'agent-2' held no lease in the workspace 'repo'",
                                          "'agent-2' has calls in flight on /repo/b.py"))
        self.assertEqual(json.loads(got["flying"].out),
                         {"holder": "agent-2", "released": [], "in_flight": ["/repo/b.py"]})
        self.check(got["none"], 2, err=("release needs the holder",))
        self.assertEqual(len(self.table.holds()), 1)


class StoreErrorsTest(CLITestCase):
    def test_a_store_that_fails_is_one_line_and_a_non_zero_exit_password_hidden(self) -> None:
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        junk = os.path.join(folder.name, "junk.db")
        with open(junk, "w", encoding="utf-8") as file:
            file.write("this is not a database\n" * 100)
        missing = os.path.join(folder.name, "missing.db")
        valid = os.path.join(folder.name, "valid.db")
        SQLiteStore(valid).close()
        server = "postgresql://agent:s3cret@127.0.0.1:1/fleet"
        got = run_many({
            "server": ["grants", "--store", server],
            "server-json": ["leases", "--store", server, "--json"],
            "junk": ["grants", "--store", junk],
            "junk-json": ["leases", "--store", junk, "--json"],
            "missing": ["leases", "--store", missing],
            "memory": ["grants", "--store", "memory:"],
            "not-a-url": ["grants", "--store", "http://agent:s3cret@example.org/fleet"],
            "empty": ["grants", "--store", ""],
            "no-book": ["grants", "--store", valid, "--book", ""],
            "no-holder": ["leases", "--store", valid, "release", ""],
            "no-store": ["grants"],
            "stdio": ["--stdio", "cat", "grants", "--store", junk]})
        for key in ("server", "server-json"):
            with self.subTest(key):
                self.assertIn(got[key].code, (2, 4), got[key])   # no engine / unreachable
                self.assertNotIn("s3cret", got[key].out + got[key].err)
                self.assertNotIn("Traceback", got[key].err)
        self.assertIn("postgresql://***@127.0.0.1:1/fleet", got["server"].err)
        self.assertEqual(json.loads(got["server-json"].out)["error"]["store"],
                         "postgresql://***@127.0.0.1:1/fleet")
        self.check(got["junk"], 4, out="", err=("error: StoreUnavailable: store sqlite://",
                                                "junk.db"))
        self.assertEqual(len(got["junk"].err.splitlines()), 1)
        self.assertEqual(json.loads(got["junk-json"].out)["error"]["type"], "StoreUnavailable")
        self.check(got["missing"], 2, out="", err=("no such store file",))
        self.assertFalse(os.path.exists(missing))
        self.check(got["memory"], 2, out="", err=("memory:",))
        self.check(got["not-a-url"], 2, out="", err=("http://***@example.org/fleet",))
        self.assertNotIn("s3cret", got["not-a-url"].err)
        self.check(got["empty"], 2, out="", err=("--store must be a store URL",))
        self.assertEqual(len(got["empty"].err.splitlines()), 1)
        self.check(got["no-book"], 2, out="", err=("--book must be a non-empty string",))
        self.check(got["no-holder"], 2, out="", err=("release needs the holder",))
        self.check(got["no-store"], 2, out="", err=("--store",))
        self.check(got["stdio"], 2, out="", err=("--stdio is not for it",))
