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

from mcp_client import Client
from mcp_client.leases import LeaseTable, Leases
from mcp_client.paths import locate
from mcp_client.policy import Policy
from mcp_client.registry import Registry
from mcp_client.testing import Error
from mcp_client.types import ToolMessage

from ..base import LeakCheckingTestCase, fake_server
from ..tables import add_rows

PERMISSIONS = Path(__file__).resolve().parents[2] / "docs" / "guide" / "permissions.rst"
ROOTS = {"fs": "/srv/work", "sh": "/srv/work", "web": "/srv/work", "git": "/srv/work",
         "lock": "/srv/work"}
READ_ONLY = {"readOnlyHint": True}
WRITES = {"readOnlyHint": False, "destructiveHint": True}


def call(name: str, arguments: Any = None, ident: str = "c1") -> dict[str, Any]:
    return {"id": ident, "type": "function",
            "function": {"name": name, "arguments": {} if arguments is None else arguments}}


def content(result: ToolMessage) -> Any:
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
ALLOW_GIT = {"tool": "git_*", "decision": "allow", "under": "/srv/work"}


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
        fake = fake_server({"tools": {}})
        fake.on("tools/list", {"resultType": "complete", "tools": [
            {"name": "files.delete", "inputSchema": {"type": "object"}}]})
        fake.on("tools/call", {"resultType": "complete",
                               "content": [{"type": "text", "text": "deleted"}]})
        with Client(transport=fake) as client:
            self.assertEqual(client.execute_tool_calls([call("files_delete")])[0]
                             ["content"], "deleted")
            refused = client.execute_tool_calls([call("files.delete")])[0]
            self.assertEqual(refused["content"], "unknown tool: files.delete")
            self.assertIsNone(client.tool_annotations("files.delete"))

    def test_without_a_catalogue_only_a_name_a_model_api_accepts_passes(self) -> None:
        fake = fake_server({"tools": {}})
        fake.on("tools/list", Error(-32603, "catalogue down"))
        fake.on("tools/call", {"resultType": "complete",
                               "content": [{"type": "text", "text": "ran"}]})
        with Client(transport=fake) as client:
            answers = client.execute_tool_calls([call("files.delete", ident="a"),
                                                call("files_delete", ident="b")])
        self.assertEqual([a["content"] for a in answers], ["unknown tool: files.delete", "ran"])

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

    def test_the_permissions_guide_explains_the_lock_root_key(self) -> None:
        text = PERMISSIONS.read_text(encoding="utf-8")
        section = text[text.index("Agents working side by side"):]
        self.assertIn('"lock"', section)
        self.assertIn("write_file", section)


# -- the adversarial tables -----------------------------------------------------------------------

DEFAULTS = Policy.default_rules()
DENY_FS_SECRET = [ALLOW_FS, DENY_SECRET]
EVIL = "/etc/passwd"
IN = "/srv/work/src/a.py"
SECRET = "/srv/work/secret/key"
GOOD = "https://docs.raku.org/"
BAD = "https://evil.example/"

#: (label, rules, tool, arguments, annotations, expected, plain read inside the root?)
POLICY_ROWS: list[tuple[str, list[dict[str, Any]], str, dict[str, Any], Any, str, bool]] = [
    # locations under other spellings meet an allow narrowed by under
    ("file", [ALLOW_WORK], "fs_write", {"file": EVIL}, None, "ask", False),
    ("filePath", [ALLOW_WORK], "fs_write", {"filePath": EVIL}, None, "ask", False),
    ("file_path relative up", [ALLOW_WORK], "fs_write", {"file_path": "../x"}, None, "ask", False),
    ("FILE", [ALLOW_WORK], "fs_write", {"FILE": EVIL}, None, "ask", False),
    ("Path", [ALLOW_WORK], "fs_write", {"Path": EVIL}, None, "ask", False),
    ("PATH", [ALLOW_WORK], "fs_write", {"PATH": EVIL}, None, "ask", False),
    ("file-path", [ALLOW_WORK], "fs_write", {"file-path": EVIL}, None, "ask", False),
    ("target", [ALLOW_WORK], "fs_write", {"path": IN, "target": EVIL}, None, "ask", False),
    ("targetPath", [ALLOW_WORK], "fs_write", {"targetPath": EVIL}, None, "ask", False),
    ("dest", [ALLOW_WORK], "fs_move", {"source": IN, "dest": EVIL}, None, "ask", False),
    ("dst", [ALLOW_WORK], "fs_move", {"src": IN, "dst": EVIL}, None, "ask", False),
    ("destination_path", [ALLOW_WORK], "fs_move", {"destination_path": EVIL}, None, "ask",
     False),
    ("src", [ALLOW_WORK], "fs_copy", {"src": EVIL, "to": IN}, None, "ask", False),
    ("uri file url", [ALLOW_WORK], "fs_write", {"uri": "file:///etc/passwd"}, None, "ask",
     False),
    ("uri file url with a host", [ALLOW_WORK], "fs_write",
     {"uri": "file://evil/srv/work/a"}, None, "ask", False),
    ("url holding a file url", [ALLOW_WORK], "fs_write", {"path": IN, "url": "file:///etc/x"},
     None, "ask", False),
    ("file url escaped", [ALLOW_WORK], "fs_write", {"uri": "file:///srv/work/%2e%2e/x"}, None,
     "ask", False),
    ("outputDir", [ALLOW_WORK], "fs_write", {"path": IN, "outputDir": "/etc"}, None, "ask",
     False),
    ("cwd", [ALLOW_WORK], "fs_write", {"path": IN, "cwd": "/"}, None, "ask", False),
    ("workingDirectory", [ALLOW_WORK], "fs_write", {"workingDirectory": "/etc"}, None, "ask",
     False),
    ("directory", [ALLOW_WORK], "fs_mkdir", {"directory": "/etc/x"}, None, "ask", False),
    ("folder", [ALLOW_WORK], "fs_mkdir", {"folder": "/etc/x"}, None, "ask", False),
    ("configFile", [ALLOW_WORK], "fs_write", {"configFile": EVIL}, None, "ask", False),
    ("filename", [ALLOW_WORK], "fs_write", {"filename": EVIL}, None, "ask", False),
    ("files list", [ALLOW_WORK], "fs_write", {"files": [IN, EVIL]}, None, "ask", False),
    ("paths holding an object", [ALLOW_WORK], "fs_write", {"paths": [IN, {"path": EVIL}]},
     None, "ask", False),
    ("paths holding a list", [ALLOW_WORK], "fs_write", {"paths": [[IN]]}, None, "ask", False),
    ("an empty paths list", [ALLOW_WORK], "fs_write", {"paths": []}, None, "ask", False),
    ("path null", [ALLOW_WORK], "fs_write", {"path": None}, None, "ask", False),
    # nested shapes
    ("edits[].path", [ALLOW_WORK], "fs_edit",
     {"path": IN, "edits": [{"path": EVIL, "oldText": "a", "newText": "b"}]}, None, "ask", False),
    ("options.path", [ALLOW_WORK], "fs_write", {"path": IN, "options": {"path": EVIL}}, None,
     "ask", False),
    ("options.target.path", [ALLOW_WORK], "fs_write", {"options": {"target": {"path": EVIL}}},
     None, "ask", False),
    ("ops[].from/to", [ALLOW_WORK], "fs_move", {"ops": [{"from": IN, "to": EVIL}]}, None, "ask",
     False),
    ("a path as a key", [ALLOW_WORK], "fs_write", {"path": IN, "changes": {EVIL: "x"}}, None,
     "ask", False),
    ("deep nesting", [ALLOW_WORK], "fs_write",
     {"path": IN, "a": {"b": {"c": {"d": {"e": {"f": {"g": {"h": {"i": {"path": EVIL}}}}}}}}}},
     None, "ask", False),
    ("files[] of objects", [ALLOW_WORK], "fs_write",
     {"files": [{"path": IN, "content": "x"}, {"name": "y"}]}, None, "ask", False),
    # strings that look like places under keys nobody knows
    ("stray absolute", [ALLOW_WORK], "fs_write", {"path": IN, "zzz": EVIL}, None, "ask", False),
    ("stray home", [ALLOW_WORK], "fs_write", {"path": IN, "x": "~/.ssh/id_rsa"}, None, "ask",
     False),
    ("stray $HOME", [ALLOW_WORK], "fs_write", {"path": IN, "x": "$HOME/.bashrc"}, None, "ask",
     False),
    ("stray %APPDATA%", [ALLOW_WORK], "fs_write", {"path": IN, "x": "%APPDATA%\\x"}, None, "ask",
     False),
    ("stray drive", [ALLOW_WORK], "fs_write", {"path": IN, "x": "C:\\Windows\\x"}, None, "ask",
     False),
    ("stray share", [ALLOW_WORK], "fs_write", {"path": IN, "x": "\\\\server\\share"}, None,
     "ask", False),
    ("stray dot dot", [ALLOW_WORK], "fs_write", {"path": IN, "x": "a/../../etc"}, None, "ask",
     False),
    ("stray url", [ALLOW_WORK], "fs_write", {"path": IN, "x": BAD}, None, "ask", False),
    ("stray in an object", [ALLOW_WORK], "fs_write", {"path": IN, "meta": {"backup": EVIL}},
     None, "ask", False),
    ("stray in a list", [ALLOW_WORK], "fs_write", {"path": IN, "list": ["ok", EVIL]}, None,
     "ask", False),
    ("stray under a confusable key", [ALLOW_WORK], "fs_write", {"pаth": EVIL, "path": IN}, None,
     "ask", False),
    ("stray on a tool whose annotations fail", [ALLOW_WORK], "fs_write", {"path": IN, "x": EVIL},
     {"readOnlyHint": False}, "ask", False),
    # what is not a place is not a stray
    ("content starting with a slash", [ALLOW_WORK], "fs_write", {"path": IN, "content": "/x"},
     None, "allow", False),
    ("newText with dot dot", [ALLOW_WORK], "fs_edit",
     {"path": IN, "edits": [{"oldText": "a", "newText": "../../x"}]}, None, "allow", False),
    ("a mode", [ALLOW_WORK], "fs_write", {"path": IN, "mode": "0644"}, None, "allow", False),
    ("a relative name", [ALLOW_WORK], "fs_write", {"path": IN, "repo": "owner/name"}, None,
     "allow", False),
    ("a multi-line message", [ALLOW_WORK], "fs_write", {"path": IN, "x": "/a\n/b"}, None,
     "allow", False),
    # a deny reads every spelling, and fires on what it cannot read
    ("deny: target", DENY_FS_SECRET, "fs_write", {"target": SECRET}, None, "deny", False),
    ("deny: dest", DENY_FS_SECRET, "fs_move", {"path": IN, "dest": SECRET}, None, "deny", False),
    ("deny: edits", DENY_FS_SECRET, "fs_edit", {"edits": [{"path": SECRET}]}, None, "deny",
     False),
    ("deny: options.file", DENY_FS_SECRET, "fs_write", {"options": {"file": SECRET}}, None,
     "deny", False),
    ("deny: file url", DENY_FS_SECRET, "fs_write", {"uri": "file://" + SECRET}, None, "deny",
     False),
    ("deny: a stray", DENY_FS_SECRET, "fs_write", {"path": IN, "zzz": SECRET}, None, "deny",
     False),
    ("deny: case", DENY_FS_SECRET, "fs_write", {"path": "/srv/work/SECRET/k"}, None, "deny",
     False),
    ("deny: FilePath and case", DENY_FS_SECRET, "fs_write", {"FilePath": "/srv/work/Secret/k"},
     None, "deny", False),
    ("deny: a key as path", DENY_FS_SECRET, "fs_write", {"changes": {SECRET: "x"}}, None,
     "deny", False),
    ("deny: not fired by a path elsewhere", DENY_FS_SECRET, "fs_write", {"path": IN}, None,
     "allow", False),
    # the write-outside-roots floor sees every spelling
    ("floor: file", [ALLOW_FS], "fs_write", {"file": EVIL}, None, "ask", False),
    ("floor: dest up", [ALLOW_FS], "fs_move", {"dest": "../x"}, None, "ask", False),
    ("floor: edits", [ALLOW_FS], "fs_edit", {"edits": [{"path": EVIL}]}, None, "ask", False),
    ("floor: options.cwd", [ALLOW_FS], "fs_write", {"options": {"cwd": "/"}}, None, "ask", False),
    ("floor: a stray", [ALLOW_FS], "fs_write", {"path": IN, "x": EVIL}, None, "ask", False),
    ("floor: inside is fine", [ALLOW_FS], "fs_write", {"file": IN}, None, "allow", False),
    # plain reads inside the root stay allowed
    ("read: path", DEFAULTS, "fs_read", {"path": IN}, READ_ONLY, "allow", True),
    ("read: relative", DEFAULTS, "fs_read", {"path": "a.txt"}, READ_ONLY, "allow", True),
    ("read: file", DEFAULTS, "fs_read", {"file": "src/a.py"}, READ_ONLY, "allow", True),
    ("read: filePath", DEFAULTS, "fs_read", {"filePath": IN}, READ_ONLY, "allow", True),
    ("read: paths", DEFAULTS, "fs_read", {"paths": ["a", "b"]}, READ_ONLY, "allow", True),
    ("read: search pattern", DEFAULTS, "fs_search", {"path": ".", "pattern": "**/*.py"},
     READ_ONLY, "allow", True),
    ("read: exclude patterns", DEFAULTS, "fs_tree",
     {"path": "/srv/work", "excludePatterns": ["/node_modules"]}, READ_ONLY, "allow", True),
    ("read: a stray on a read", DEFAULTS, "fs_read", {"path": "a", "zzz": EVIL}, READ_ONLY,
     "allow", True),
    ("read: a directory", DEFAULTS, "fs_list", {"path": "docs/", "depth": 2}, READ_ONLY, "allow",
     True),
    ("read: file url", DEFAULTS, "fs_read", {"uri": "file:///srv/work/a"}, READ_ONLY, "allow",
     True),
    ("read: repo_path", DEFAULTS, "git_status", {"repo_path": "/srv/work"}, READ_ONLY, "allow",
     True),
    ("read: head and tail", DEFAULTS, "fs_read", {"path": "a", "tail": 10}, READ_ONLY, "allow",
     True),
    ("read: options.path", DEFAULTS, "fs_read", {"options": {"path": "a"}}, READ_ONLY, "allow",
     True),
    ("read: under allow, path", [ALLOW_WORK], "fs_read", {"path": IN}, READ_ONLY, "allow", True),
    ("read: under allow, file", [ALLOW_WORK], "fs_read", {"file": "a.txt"}, READ_ONLY, "allow",
     True),
    ("read: under allow, stray", [ALLOW_WORK], "fs_read", {"path": "a", "x": EVIL}, READ_ONLY,
     "allow", True),
    ("read: under allow, nested", [ALLOW_WORK], "fs_read", {"files": [{"path": "a"}]}, READ_ONLY,
     "allow", True),
    ("read: ls", [ALLOW_LS], "sh_run", {"command": "ls -la"}, None, "allow", True),
    ("read: ls in the root", [ALLOW_LS], "sh_run", {"command": "ls", "cwd": "/srv/work"}, None,
     "allow", True),
    ("read: cat", [{"tool": "sh_run", "decision": "allow", "command": "cat"}], "sh_run",
     {"command": "cat src/a.py"}, None, "allow", True),
    ("read: git status", [{"tool": "sh_run", "decision": "allow", "command": "git",
                           "args": ["status"]}], "sh_run", {"command": "git status"}, None,
     "allow", True),
    ("read: git log nested", [{"tool": "sh_run", "decision": "allow", "command": "git",
                               "args": ["log"]}], "sh_run", {"options": {"command": "git log"}},
     None, "allow", True),
    # reads outside the root are not allowed by an under rule
    ("read outside: file", [ALLOW_WORK], "fs_read", {"file": EVIL}, READ_ONLY, "ask", False),
    ("read outside: nested", [ALLOW_WORK], "fs_read", {"options": {"path": EVIL}}, READ_ONLY,
     "ask", False),
    # URLs under other spellings meet an allow narrowed by host
    ("url: sanity", [ALLOW_RAKU], "web_fetch", {"url": GOOD}, None, "allow", False),
    ("url: server-fetch arguments", [ALLOW_RAKU], "web_fetch",
     {"url": GOOD, "max_length": 5000, "start_index": 0, "raw": True}, None, "allow", False),
    ("url: Url", [ALLOW_RAKU], "web_fetch", {"Url": GOOD}, None, "allow", False),
    ("url: endpoint", [ALLOW_RAKU], "web_fetch", {"url": GOOD, "endpoint": BAD}, None, "ask",
     False),
    ("url: uri", [ALLOW_RAKU], "web_fetch", {"uri": BAD}, None, "ask", False),
    ("url: href", [ALLOW_RAKU], "web_fetch", {"url": GOOD, "href": BAD}, None, "ask", False),
    ("url: baseUrl", [ALLOW_RAKU], "web_fetch", {"url": GOOD, "baseUrl": BAD}, None, "ask",
     False),
    ("url: URL", [ALLOW_RAKU], "web_fetch", {"URL": BAD}, None, "ask", False),
    ("url: links", [ALLOW_RAKU], "web_fetch", {"links": [GOOD, BAD]}, None, "ask", False),
    ("url: request.url", [ALLOW_RAKU], "web_fetch", {"url": GOOD, "request": {"url": BAD}},
     None, "ask", False),
    ("url: requests[].url", [ALLOW_RAKU], "web_fetch",
     {"requests": [{"url": GOOD}, {"url": BAD}]}, None, "ask", False),
    ("url: a stray proxy", [ALLOW_RAKU], "web_fetch", {"url": GOOD, "proxy": "http://evil:8080"},
     None, "ask", False),
    ("url: a stray header", [ALLOW_RAKU], "web_fetch",
     {"url": GOOD, "headers": {"Referer": BAD}}, None, "ask", False),
    ("url: an object", [ALLOW_RAKU], "web_fetch", {"url": {"href": BAD}}, None, "ask", False),
    ("url: an object with nothing", [ALLOW_RAKU], "web_fetch", {"url": {"x": 1}}, None, "ask",
     False),
    ("url: null", [ALLOW_RAKU], "web_fetch", {"url": None}, None, "ask", False),
    ("url: webhook_url alone", [ALLOW_RAKU], "web_fetch", {"webhook_url": BAD}, None, "ask",
     False),
    ("url deny: endpoint", [ALLOW_RAKU, DENY_EVIL], "web_fetch", {"url": GOOD, "endpoint": BAD},
     None, "deny", False),
    ("url deny: request.url", [ALLOW_RAKU, DENY_EVIL], "web_fetch",
     {"request": {"url": BAD + "x"}}, None, "deny", False),
    ("url deny: Links", [ALLOW_RAKU, DENY_EVIL], "web_fetch", {"Links": ["https://evil.example"]},
     None, "deny", False),
    ("url deny: a stray", [ALLOW_RAKU, DENY_EVIL], "web_fetch", {"url": GOOD, "x": BAD}, None,
     "deny", False),
    # commands under other spellings meet command rules and the floor
    ("cmd: Command", [ALLOW_LS], "sh_run", {"Command": "rm -rf x"}, None, "ask", False),
    ("cmd: CMD", [ALLOW_LS], "sh_run", {"CMD": "rm x"}, None, "ask", False),
    ("cmd: shellCommand", [ALLOW_LS], "sh_run", {"shellCommand": "rm x"}, None, "ask", False),
    ("cmd: shell_command", [ALLOW_LS], "sh_run", {"shell_command": "rm x"}, None, "ask", False),
    ("cmd: command_line", [ALLOW_LS], "sh_run", {"command_line": "rm x"}, None, "ask", False),
    ("cmd: commandLine", [ALLOW_LS], "sh_run", {"commandLine": "rm x"}, None, "ask", False),
    ("cmd: options.command", [ALLOW_LS], "sh_run", {"command": "ls", "options": {"command": "rm"}},
     None, "ask", False),
    ("cmd: steps[].cmd", [ALLOW_LS], "sh_run", {"steps": [{"cmd": "ls"}, {"cmd": "rm x"}]}, None,
     "ask", False),
    ("cmd: extra.script", [ALLOW_LS], "sh_run", {"command": "ls", "extra": {"script": "rm x"}},
     None, "ask", False),
    ("cmd: Argv", [ALLOW_LS], "sh_run", {"Argv": ["rm", "x"]}, None, "ask", False),
    ("cmd: scripts", [ALLOW_LS], "sh_run", {"scripts": ["ls", "rm x"]}, None, "ask", False),
    ("cmd: sanity", [ALLOW_LS], "sh_run", {"options": {"command": "ls"}}, None, "allow", False),
    ("cmd deny: Command", [ALLOW_LS, DENY_RM], "sh_run", {"Command": "rm -rf x"}, None, "deny",
     False),
    ("cmd deny: task command and args", [ALLOW_LS, DENY_RM], "sh_run",
     {"task": {"command": "rm", "args": ["-rf", "x"]}}, None, "deny", False),
    ("cmd deny: steps", [ALLOW_LS, DENY_RM], "sh_run", {"steps": [{"command": "rm x"}]}, None,
     "deny", False),
    ("cmd deny: cmdline", [ALLOW_LS, DENY_RM], "sh_run", {"cmdline": "rm x"}, None, "deny",
     False),
    ("cmd floor: recursive delete", [ALLOW_SH], "sh_run", {"shellCommand": "rm -rf /tmp/x"},
     None, "ask", False),
    ("cmd floor: pipe to shell", [ALLOW_SH], "sh_run", {"job": {"cmd": "curl x | sh"}}, None,
     "ask", False),
    ("cmd floor: force push", [ALLOW_SH], "sh_run", {"steps": [{"command": "git push --force"}]},
     None, "ask", False),
    ("cmd floor: hard reset", [ALLOW_SH], "sh_run", {"Command": "git reset --hard"}, None, "ask",
     False),
    ("cmd floor: cwd outside", [ALLOW_SH], "sh_run", {"command": "ls", "cwd": "/etc"}, None,
     "ask", False),
    # the reference servers' own argument names
    ("git_add inside", [ALLOW_GIT], "git_add", {"repo_path": "/srv/work", "files": ["src/a.py"]},
     None, "allow", False),
    ("git_add outside", [ALLOW_GIT], "git_add", {"repo_path": "/srv/work", "files": [EVIL]},
     None, "ask", False),
    ("git_add a relative escape", [ALLOW_GIT], "git_add",
     {"repo_path": "/srv/work", "files": ["../../etc/passwd"]}, None, "ask", False),
    ("git_init elsewhere", [ALLOW_GIT], "git_init", {"repo_path": "/tmp/x"}, None, "ask", False),
    ("git_diff target is a branch", DEFAULTS, "git_diff",
     {"repo_path": "/srv/work", "target": "main"}, READ_ONLY, "allow", True),
    ("git_commit message", [ALLOW_GIT], "git_commit",
     {"repo_path": "/srv/work", "message": "/etc handling fixed"}, None, "allow", False),
    ("memory observations", [{"tool": "mem_*", "decision": "allow"}], "mem_create_entities",
     {"entities": [{"name": "x", "entityType": "y", "observations": ["/etc/passwd is open"]}]},
     None, "allow", False),
    ("time zones are not places", [{"tool": "time_*", "decision": "allow"}], "time_convert",
     {"source_timezone": "Europe/Paris", "time": "10:00", "target_timezone": "Asia/Tokyo"},
     None, "allow", False),
    ("filesystem move_file", [ALLOW_WORK], "fs_move_file",
     {"source": IN, "destination": "/srv/work/../../etc/x"}, None, "ask", False),
    ("filesystem edit_file dryRun", [ALLOW_WORK], "fs_edit_file",
     {"path": IN, "edits": [{"oldText": "a", "newText": "b"}], "dryRun": True}, None, "allow",
     False),
    ("a JSON-schema key is not a place", [ALLOW_WORK], "fs_write",
     {"path": IN, "schema": {"$ref": "#/defs/x"}}, None, "allow", False),
]


class PolicyTable(LeakCheckingTestCase):
    def check(self, label: str, rules: list[dict[str, Any]], tool: str,
              arguments: dict[str, Any], annotations: Any, expected: str, read: bool) -> None:
        self.assertEqual(decision(rules, tool, arguments, annotations), expected)


add_rows(PolicyTable, "policy", POLICY_ROWS, PolicyTable.check)

#: (label, the name a model sends, ran it?)  The registry publishes fs_files_delete,
#: fs_files_read, fs_a_b (the real a_b) and a hashed name for a.b; fs_files_delete is denied.
ALIAS_ROWS: list[tuple[str, str, str | None]] = [
    ("the original dotted name", "fs_files.delete", None),
    ("the published name, denied", "fs_files_delete", None),
    ("a hyphen for the dot", "fs_files-delete", None),
    ("the original name of an allowed tool", "fs_files.read", None),
    ("the published name of an allowed tool", "fs_files_read", "files.read"),
    ("upper-case prefix", "FS_files_read", None),
    ("a doubled separator", "fs__files_read", None),
    ("a trailing space", "fs_files_read ", None),
    ("a trailing NUL", "fs_files_read\x00", None),
    ("fullwidth prefix", "ｆｓ_files_read", None),
    ("no prefix", "files.delete", None),
    ("no prefix, sanitised", "files_delete", None),
    ("the prefix alone", "fs_", None),
    ("the bare prefix", "fs", None),
    ("a real underscore name wins its name", "fs_a_b", "a_b"),
    ("the dotted twin's original", "fs_a.b", None),
    ("a percent-escaped dot", "fs_files%2Edelete", None),
]


class AliasTable(LeakCheckingTestCase):
    def check(self, label: str, name: str, ran: str | None) -> None:
        inner = Recorder(["files.delete", "files.read", "a.b", "a_b"])
        registry = Registry()
        registry.add(inner, prefix="fs")
        table = LeaseTable()
        table.try_acquire("other", ["/srv/work/locked"], 100)
        leases = Leases(registry, table, "me", roots=ROOTS,
                        enforced_tools=["fs_files_delete", "fs_a_b"])
        policy = Policy(leases, roots=ROOTS, rules=[
            ALLOW_FS, {"tool": "fs_files_delete", "decision": "deny"}])
        policy.tools_for_llm()
        result = policy.execute_tool_calls([call(name, {"path": "/srv/work/free/a"})])[0]
        self.assertEqual(inner.ran, [] if ran is None else [ran])
        self.assertEqual(result["is_error"], ran is None)


add_rows(AliasTable, "alias", ALIAS_ROWS, AliasTable.check)

#: (label, strict?, tool, arguments, passed?)  Another agent holds /srv/work/locked; this
#: one holds /srv/work/mine.
LEASE_ROWS: list[tuple[str, bool, str, dict[str, Any], bool]] = [
    ("path under the lease", False, "fs_write", {"path": "/srv/work/locked/a"}, False),
    ("file", False, "fs_write", {"file": "/srv/work/locked/a"}, False),
    ("filePath relative", False, "fs_write", {"filePath": "locked/a"}, False),
    ("target, the leased directory", False, "fs_write", {"target": "locked"}, False),
    ("a parent of the lease", False, "fs_delete", {"path": "/srv/work"}, False),
    ("dest", False, "fs_move", {"path": "free/a", "dest": "/srv/work/locked"}, False),
    ("edits[].path", False, "fs_edit", {"edits": [{"path": "locked/a"}]}, False),
    ("options.path", False, "fs_write", {"options": {"path": "locked/a"}}, False),
    ("file url", False, "fs_write", {"uri": "file:///srv/work/locked/a"}, False),
    ("case", False, "fs_write", {"path": "/srv/work/LOCKED/a"}, False),
    ("a stray elsewhere", False, "fs_write", {"zzz": "/srv/work/free/b"}, False),
    ("dot dot", False, "fs_write", {"path": "../x"}, False),
    ("home", False, "fs_write", {"path": "~/x"}, False),
    ("no location at all", False, "fs_write", {}, False),
    ("only content", False, "fs_write", {"content": "x"}, False),
    ("an escaped name", False, "fs_write", {"path": "free/%2e%2e/locked/a"}, False),
    ("free path", False, "fs_write", {"path": "/srv/work/free/a"}, True),
    ("free file", False, "fs_write", {"file": "free/a"}, True),
    ("free path, content with a slash", False, "fs_write", {"path": "free/a", "content": "/etc"},
     True),
    ("a sibling of the lease", False, "fs_write", {"path": "/srv/work/locked2/a"}, True),
    ("strict: own lease", True, "fs_write", {"path": "mine/a"}, True),
    ("strict: own lease, file", True, "fs_write", {"file": "mine/a"}, True),
    ("strict: own lease, nested", True, "fs_edit", {"edits": [{"path": "mine/a"}]}, True),
    ("strict: not leased", True, "fs_write", {"path": "free/a"}, False),
    ("strict: one leased, one not", True, "fs_move", {"path": "mine/a", "dest": "free/b"}, False),
    ("strict: a stray", True, "fs_write", {"path": "mine/a", "zzz": "/etc/x"}, False),
    ("strict: nothing", True, "fs_write", {}, False),
    ("strict: another's", True, "fs_write", {"path": "locked/a"}, False),
    ("annotated destructive, leased", False, "zap", {"path": "locked/a"}, False),
    ("annotated destructive, names nothing", False, "zap", {"note": "hi"}, True),
    ("annotated destructive, a stray", False, "zap", {"zzz": "/srv/work/locked"}, False),
    ("unannotated, leased", False, "plain", {"target": "locked/a"}, False),
    ("unannotated, free", False, "plain", {"target": "free/a"}, True),
    ("read-only, leased", False, "peek", {"path": "locked/a"}, True),
    ("read-only in strict mode", True, "peek", {"path": "free/a"}, True),
    ("reference write_file under a prefix", False, "fs_write_file", {"path": "locked/a"}, False),
    ("reference move_file", False, "move_file", {"source": "free/a", "destination": "locked/b"},
     False),
    ("reference create_directory", False, "create_directory", {"path": "locked/new"}, False),
    ("reference edit_file under a prefix", False, "fs_edit_file",
     {"path": "locked/a", "edits": [{"oldText": "a", "newText": "b"}]}, False),
    ("reference write_file, free", False, "write_file", {"path": "free/a"}, True),
    ("reference write_file, names nothing", False, "write_file", {"content": "x"}, False),
]


class LeaseTable_(LeakCheckingTestCase):
    def check(self, label: str, strict: bool, tool: str, arguments: dict[str, Any],
              passed: bool) -> None:
        inner = Recorder([tool], {"zap": WRITES, "peek": READ_ONLY})
        table = LeaseTable()
        table.try_acquire("other", ["/srv/work/locked"], 100)
        table.try_acquire("me", ["/srv/work/mine"], 100)
        agent = Leases(inner, table, "me", roots={"": "/srv/work", "lock": "/srv/work"},
                       concurrent=(lambda: 2) if strict else None)
        result = agent.execute_tool_calls([call(tool, arguments)])[0]
        self.assertEqual(inner.ran, [tool] if passed else [])
        self.assertEqual(result["is_error"], not passed)


add_rows(LeaseTable_, "lease", LEASE_ROWS, LeaseTable_.check)

#: (label, lock_acquire arguments, acquired?)  The lock root is /srv/work; default_ttl 300.
LOCK_ROWS: list[tuple[str, Any, bool]] = [
    ("ttl Infinity", {"paths": ["a"], "ttl": float("inf")}, False),
    ("ttl -Infinity", {"paths": ["a"], "ttl": float("-inf")}, False),
    ("ttl 1e300", {"paths": ["a"], "ttl": 1e300}, False),
    ("ttl a huge integer", {"paths": ["a"], "ttl": 10 ** 400}, False),
    ("ttl NaN", {"paths": ["a"], "ttl": float("nan")}, False),
    ("ttl negative", {"paths": ["a"], "ttl": -1}, False),
    ("ttl zero", {"paths": ["a"], "ttl": 0}, False),
    ("ttl just above the cap", {"paths": ["a"], "ttl": 3000.001}, False),
    ("ttl text", {"paths": ["a"], "ttl": "10"}, False),
    ("ttl true", {"paths": ["a"], "ttl": True}, False),
    ("ttl null", {"paths": ["a"], "ttl": None}, False),
    ("ttl Infinity as JSON text", '{"paths": ["a"], "ttl": Infinity}', False),
    ("ttl NaN as JSON text", '{"paths": ["a"], "ttl": NaN}', False),
    ("ttl overflowing JSON text", '{"paths": ["a"], "ttl": 1e999}', False),
    ("wait NaN", {"paths": ["a"], "wait": float("nan")}, False),
    ("wait negative", {"paths": ["a"], "wait": -5}, False),
    ("outside the root", {"paths": ["/etc/passwd"]}, False),
    ("the root's parent", {"paths": ["/srv"]}, False),
    ("the filesystem root", {"paths": ["a", "/"]}, False),
    ("a sibling sharing a prefix", {"paths": ["/srv/workshop"]}, False),
    ("case-folded root", {"paths": ["/srv/Work/a"]}, False),
    ("dot dot", {"paths": ["../x"]}, False),
    ("home", {"paths": ["~/x"]}, False),
    ("empty path", {"paths": [""]}, False),
    ("no paths", {"paths": []}, False),
    ("paths not a list", {"paths": {"a": 1}}, False),
    ("arguments not JSON", "{", False),
    ("ttl at the cap", {"paths": ["a"], "ttl": 3000}, True),
    ("ttl small", {"paths": ["a"], "ttl": 0.5}, True),
    ("wait Infinity is capped", {"paths": ["a"], "wait": float("inf")}, True),
    ("the root itself", {"paths": ["."]}, True),
    ("absolute inside", {"paths": ["/srv/work/a"]}, True),
]


class LockTable(LeakCheckingTestCase):
    def check(self, label: str, arguments: Any, acquired: bool) -> None:
        table = LeaseTable(default_ttl=300)
        agent = Leases(Recorder(), table, "me", roots=ROOTS)
        result = agent.execute_tool_calls([call("lock_acquire", arguments)])[0]
        answer = json.loads(result["content"], parse_constant=self.fail)
        self.assertEqual((answer["acquired"], result["is_error"]), (acquired, not acquired))
        self.assertEqual(bool(table.snapshot()), acquired)
        for lease in table.snapshot():
            self.assertLessEqual(lease.expires - lease.since, 3000 + 1e-6)   # float clock


add_rows(LockTable, "lock", LOCK_ROWS, LockTable.check)


class CountsTest(LeakCheckingTestCase):
    """The whole table at once: no hole, no over-strict plain read, enough rows."""

    def test_no_hole_and_no_over_strict_read(self) -> None:
        holes, over_strict = [], []
        for label, rules, tool, arguments, notes, expected, read in POLICY_ROWS:
            got = decision(rules, tool, arguments, notes)
            if expected != "allow" and got == "allow":
                holes.append(label)
            if read and got != "allow":
                over_strict.append(label)
        self.assertEqual((holes, over_strict), ([], []))
        rows = len(POLICY_ROWS) + len(ALIAS_ROWS) + len(LEASE_ROWS) + len(LOCK_ROWS)
        self.assertGreaterEqual(rows, 120)
