"""Locations in unusual keys, nested shapes, tool-name aliases and leases, tried as an attacker.

Each class below pins one hardening item (issue 14 items 10, 11, 13, 14 and
15); the tables at the end are the adversarial rows: a call, the rules it
meets and the decision it must get.  A row expecting ``ask`` or ``deny``
that is allowed is a hole; a plain read inside the root that is not allowed
is an over-strict row, and both are counted and kept at 0.
"""

from __future__ import annotations

import copy
import json
import threading
from pathlib import Path
from typing import Any, Iterable

from mcp_client import Client, bridge
from mcp_client.leases import LeaseTable, Leases
from mcp_client.paths import locate
from mcp_client.policy import Policy
from mcp_client.registry import Registry
from mcp_client.testing import FakeTransport

from .base import LeakCheckingTestCase

README = Path(__file__).resolve().parents[1] / "README.rst"
ROOTS = {"fs": "/srv/work", "sh": "/srv/work", "web": "/srv/work", "lock": "/srv/work"}
READ_ONLY = {"readOnlyHint": True}
WRITES = {"readOnlyHint": False, "destructiveHint": True}


def call(name: str, arguments: Any = None, ident: str = "c1") -> dict[str, Any]:
    return {"id": ident, "type": "function",
            "function": {"name": name, "arguments": {} if arguments is None else arguments}}


def content(result: dict[str, Any]) -> Any:
    return json.loads(result["content"])


class Recorder:
    """A provider that records every call it is handed and answers each with its name."""

    def __init__(self, names: Iterable[str] = (),
                 annotations: dict[str, Any] | None = None) -> None:
        self.names = tuple(names)
        self.annotations = dict(annotations or {})
        self.ran: list[str] = []
        self.lock = threading.Lock()

    def tools_for_llm(self) -> list[dict[str, Any]]:
        return [{"type": "function", "function": {"name": name, "description": name,
                                                  "parameters": {"type": "object"}}}
                for name in self.names]

    def tool_annotations(self, name: str) -> Any:
        return copy.deepcopy(self.annotations.get(name))

    def execute_tool_calls(self, calls: list[Any]) -> list[dict[str, Any]]:
        with self.lock:
            self.ran.extend(c["function"]["name"] for c in calls)
        return [{"role": "tool", "tool_call_id": c["id"], "content": f"ran {c['function']['name']}",
                 "is_error": False} for c in calls]


def decision(rules: list[dict[str, Any]], name: str, arguments: dict[str, Any],
             annotations: Any = None) -> str:
    """What a headless policy over ``rules`` does with one call: allow, ask or deny."""
    inner = Recorder([name], {name: annotations} if annotations is not None else {})
    result = Policy(inner, rules=rules, roots=ROOTS).execute_tool_calls(
        [call(name, arguments)])[0]
    if inner.ran:
        return "allow"
    text = result["content"]
    if "is denied by" in text:
        return "deny"
    assert "needs a human's permission" in text, text
    return "ask"


ALLOW_WORK = {"tool": "fs_*", "decision": "allow", "under": "/srv/work"}
DENY_SECRET = {"tool": "fs_*", "decision": "deny", "under": "/srv/work/secret"}
ALLOW_FS = {"tool": "fs_*", "decision": "allow"}
ALLOW_RAKU = {"tool": "web_*", "decision": "allow", "host": "*.raku.org"}
DENY_EVIL = {"tool": "web_*", "decision": "deny", "host": "evil.example"}
ALLOW_LS = {"tool": "sh_run", "decision": "allow", "command": "ls"}
DENY_RM = {"tool": "sh_run", "decision": "deny", "command": "rm"}
ALLOW_SH = {"tool": "sh_run", "decision": "allow"}


class LocationKeysTest(LeakCheckingTestCase):
    """Item 10: the common spellings of location, URL and command keys are read."""

    def test_other_spellings_of_a_location_are_read(self) -> None:
        for key in ("file", "filePath", "file_path", "FILE", "target", "dest", "Destination",
                    "outputDir", "cwd", "targetFile", "uri"):
            with self.subTest(key=key):
                arguments = {"path": "/srv/work/a.txt", key: "file:///etc/passwd"
                             if key == "uri" else "/etc/passwd"}
                self.assertEqual(decision([ALLOW_WORK], "fs_write", arguments), "ask")
                found = locate(arguments, "/srv/work") or []
                self.assertIn(key, [loc.key for loc in found])

    def test_nested_locations_are_read(self) -> None:
        for arguments in ({"path": "/srv/work/a", "edits": [{"path": "/etc/passwd"}]},
                          {"options": {"path": "/etc/passwd"}},
                          {"files": [{"path": "/srv/work/a"}, {"path": "/etc/x"}]},
                          {"ops": [{"move": {"from": "/srv/work/a", "to": "/etc/b"}}]}):
            with self.subTest(arguments=arguments):
                self.assertEqual(decision([ALLOW_WORK], "fs_edit", arguments), "ask")
                self.assertEqual(decision([ALLOW_FS], "fs_edit", arguments), "ask")  # floor
        keys = [loc.key for loc in locate({"edits": [{"path": "a"}, {"path": "b"}]},
                                          "/srv/work") or []]
        self.assertEqual(keys, ["edits[0].path", "edits[1].path"])

    def test_a_deny_reads_the_other_spellings_too(self) -> None:
        self.assertEqual(decision([ALLOW_WORK, DENY_SECRET], "fs_write",
                                  {"path": "/srv/work/a", "target": "/srv/work/secret/k"}), "deny")

    def test_a_path_under_a_key_nobody_knows_is_unknown_to_an_allow(self) -> None:
        arguments = {"path": "/srv/work/a.txt", "zzz": "/etc/passwd"}
        self.assertEqual(decision([ALLOW_WORK], "fs_write", arguments), "ask")
        # a read is a read: the key nobody knows does not make it unknown
        self.assertEqual(decision([ALLOW_WORK], "fs_read", arguments, READ_ONLY), "allow")

    def test_url_keys_are_read(self) -> None:
        for key in ("endpoint", "href", "uri", "baseUrl", "webhook_url", "URL"):
            with self.subTest(key=key):
                arguments = {"url": "https://docs.raku.org/", key: "https://evil.example/"}
                self.assertEqual(decision([ALLOW_RAKU], "web_fetch", arguments), "ask")
                self.assertEqual(decision([ALLOW_RAKU, DENY_EVIL], "web_fetch", arguments),
                                 "deny")
        self.assertEqual(decision([ALLOW_RAKU], "web_fetch",
                                  {"url": "https://docs.raku.org/", "x": "https://evil/"}), "ask")

    def test_command_keys_are_read(self) -> None:
        for arguments in ({"command": "ls", "options": {"cmd": "rm -rf /"}},
                          {"Command": "rm -rf /"}, {"shellCommand": "rm x"},
                          {"steps": [{"command": "ls"}, {"command": "rm x"}]}):
            with self.subTest(arguments=arguments):
                self.assertEqual(decision([ALLOW_LS], "sh_run", arguments), "ask")
                self.assertEqual(decision([ALLOW_LS, DENY_RM], "sh_run", arguments), "deny")
        self.assertEqual(decision([ALLOW_SH], "sh_run", {"shell_command": "rm -rf /tmp/x"}),
                         "ask")   # the recursive-delete floor sees it

    def test_hostile_shapes_stay_bounded(self) -> None:
        deep: Any = "/srv/work/a"
        for _ in range(200):
            deep = {"options": deep}
        wide = {"items": [{"name": str(i)} for i in range(50_000)]}
        for arguments in ({"path": "/srv/work/a", "x": deep}, wide):
            with self.subTest(keys=list(arguments)):
                self.assertEqual(decision([ALLOW_WORK], "fs_write", arguments), "ask")
        self.assertEqual(decision([ALLOW_WORK], "fs_read", {"path": "/srv/work/a"}, READ_ONLY),
                         "allow")


class AliasTest(LeakCheckingTestCase):
    """Item 11: a tool is reachable only by the name that was published for it."""

    def stack(self, rules: list[dict[str, Any]]) -> tuple[Policy, Recorder]:
        inner = Recorder(["files.delete", "files.read"])
        registry = Registry()
        registry.add(inner, prefix="fs")
        return Policy(registry, rules=rules, roots=ROOTS), inner

    def test_the_original_name_does_not_pass_a_deny_on_the_published_one(self) -> None:
        policy, inner = self.stack([ALLOW_FS, {"tool": "fs_files_delete", "decision": "deny"}])
        names = [d["function"]["name"] for d in policy.tools_for_llm()]
        self.assertEqual(names, ["fs_files_read"])
        for name in ("fs_files.delete", "fs_files_delete"):
            with self.subTest(name=name):
                result = policy.execute_tool_calls([call(name, {"path": "/srv/work/a"})])[0]
                self.assertTrue(result["is_error"])
        self.assertEqual(inner.ran, [])

    def test_the_registry_routes_published_names_only(self) -> None:
        registry = Registry()
        inner = Recorder(["files.delete"])
        registry.add(inner, prefix="fs")
        self.assertIsNone(registry.route("fs_files.delete"))    # before any listing, too
        self.assertEqual(registry.route("fs_files_delete"), ("fs", "files.delete"))
        result = registry.execute_tool_calls([call("fs_files.delete")])[0]
        self.assertEqual(result["content"], "unknown tool: fs_files.delete")
        self.assertEqual(inner.ran, [])

    def test_the_bridge_answers_the_published_name_only(self) -> None:
        fake = FakeTransport()
        fake.on("server/discover", {"resultType": "complete", "supportedVersions": ["2026-07-28"],
                                    "capabilities": {"tools": {}}})
        fake.on("tools/list", {"resultType": "complete", "tools": [
            {"name": "files.delete", "inputSchema": {"type": "object"}}]})
        fake.on("tools/call", {"resultType": "complete",
                               "content": [{"type": "text", "text": "deleted"}]})
        with Client(transport=fake) as client:
            self.assertEqual(bridge.execute_tool_calls(client, [call("files_delete")])[0]
                             ["content"], "deleted")
            refused = bridge.execute_tool_calls(client, [call("files.delete")])[0]
            self.assertEqual(refused["content"], "unknown tool: files.delete")
            self.assertIsNone(bridge.tool_annotations(client, "files.delete"))

    def test_a_lease_is_not_passed_by_the_original_name(self) -> None:
        table = LeaseTable()
        table.try_acquire("other", ["/srv/work"], 100)
        inner = Recorder(["files.delete"])
        registry = Registry()
        registry.add(inner, prefix="fs")
        agent = Leases(registry, table, "me", roots=ROOTS, enforced_tools=["fs_files_delete"])
        for name in ("fs_files.delete", "fs_files_delete"):
            result = agent.execute_tool_calls([call(name, {"path": "/srv/work/a"})])[0]
            self.assertTrue(result["is_error"])
        self.assertEqual(inner.ran, [])


class UnreadLeaseLocationTest(LeakCheckingTestCase):
    """Item 13: a mutation whose location cannot be read is refused while anyone holds a lease."""

    def test_in_every_mode(self) -> None:
        for concurrent in (None, lambda: 1, lambda: 2):
            table = LeaseTable()
            table.try_acquire("other", ["/srv/work/elsewhere"], 100)
            inner = Recorder(["fs_write"])
            agent = Leases(inner, table, "me", roots=ROOTS, concurrent=concurrent)
            for arguments in ({"file": "/srv/work/elsewhere/a"}, {"zzz": "/srv/work/b"},
                              {"options": {"target": "../b"}}, {}, {"content": "x"}):
                with self.subTest(concurrent=concurrent, arguments=arguments):
                    result = agent.execute_tool_calls([call("fs_write", arguments)])[0]
                    self.assertTrue(result["is_error"])
            self.assertEqual(inner.ran, [])


class LockArgumentsTest(LeakCheckingTestCase):
    """Item 14: no endless or oversized ttl, no path outside the lock root, always JSON."""

    def test_bad_ttls_and_paths_are_refused_in_strict_json(self) -> None:
        table = LeaseTable(default_ttl=300)
        agent = Leases(Recorder(), table, "me", roots=ROOTS)
        bad = [{"paths": ["a"], "ttl": float("inf")}, {"paths": ["a"], "ttl": 1e300},
               {"paths": ["a"], "ttl": float("nan")}, {"paths": ["a"], "ttl": -1},
               {"paths": ["a"], "ttl": 3000.5}, {"paths": ["a"], "ttl": True},
               {"paths": ["/etc/passwd"]}, {"paths": ["/srv"]}, {"paths": ["/srv/workshop"]},
               {"paths": ["a", "/"]}, '{"paths": ["a"], "ttl": Infinity}',
               '{"paths": ["a"], "ttl": 1e999}', {"paths": ["a"], "wait": float("nan")}]
        for arguments in bad:
            with self.subTest(arguments=arguments):
                result = agent.execute_tool_calls([call("lock_acquire", arguments)])[0]
                self.assertTrue(result["is_error"])
                answer = json.loads(result["content"], parse_constant=self.fail)
                self.assertFalse(answer["acquired"])
        self.assertEqual(table.snapshot(), [])
        good = agent.execute_tool_calls([call("lock_acquire", {"paths": ["a"], "ttl": 3000,
                                                               "wait": float("inf")})])[0]
        self.assertEqual(json.loads(good["content"], parse_constant=self.fail),
                         {"acquired": True, "paths": ["/srv/work/a"], "ttl": 3000.0})
        unparsed = agent.execute_tool_calls([call("lock_release", "{")])[0]
        self.assertFalse(json.loads(unparsed["content"], parse_constant=self.fail)["released"])


class DefaultEnforcedTest(LeakCheckingTestCase):
    """Item 15: the reference servers' mutating tools and annotated ones are enforced."""

    def test_reference_and_annotated_mutations_are_enforced(self) -> None:
        names = ["write_file", "edit_file", "move_file", "create_directory", "fs_write_file",
                 "fs_create_directory", "zap", "plain", "read_file"]
        inner = Recorder(names, {"zap": WRITES, "plain": {"readOnlyHint": False},
                                 "read_file": READ_ONLY, "write_file": READ_ONLY})
        table = LeaseTable()
        table.try_acquire("other", ["/srv/work"], 100)
        agent = Leases(inner, table, "me", roots={"": "/srv/work", "lock": "/srv/work"})
        for name in names:
            result = agent.execute_tool_calls([call(name, {"path": "/srv/work/a"})])[0]
            self.assertEqual(result["is_error"], name != "read_file", name)
        self.assertEqual(inner.ran, ["read_file"])

    def test_the_readme_explains_the_lock_root_key(self) -> None:
        text = README.read_text(encoding="utf-8")
        section = text[text.index("Agents working side by side"):text.index("\nErrors\n")]
        self.assertIn('"lock"', section)
        self.assertIn("write_file", section)
