"""Published names stay with the tool they were first given to.

Issue 26, item 7.  ``fs_ext_delete`` published for server ``fs``'s tool
``ext_delete`` was taken over when server ``fs_ext`` later listed ``delete``:
the name rebound silently and the first tool got a hashed name that a deny
rule on ``fs_ext_delete`` no longer covered.  Every row here plays a sequence
of registry changes (providers added, tool lists changed, providers removed
and re-added), each followed by a listing when the row says so, and then
*calls* every name it expects: a name must reach the tool it names (the
answer says which provider and tool ran), and a reserved name nobody holds
must be an unknown tool.  The last table does the same for one server whose
own tool list changes (the client bridge).
"""

from __future__ import annotations

import json
import threading
from typing import Any, Mapping, Sequence

from mcp_client import names
from mcp_client.client import _bridge as bridge
from mcp_client.registry import Registry

from ..base import LeakCheckingTestCase
from ..tables import add_rows


class Tools:
    """A provider whose tool list can change; each answer says who ran: ``prefix:tool``."""

    def __init__(self, label: str, tools: Sequence[str]) -> None:
        self.label = label
        self.tools = list(tools)
        self.lock = threading.Lock()

    def tools_for_llm(self) -> list[dict[str, Any]]:
        with self.lock:
            return [{"type": "function", "function": {
                "name": n, "description": "", "parameters": {"type": "object"}}}
                for n in self.tools]

    def execute_tool_calls(self, calls: list[Any]) -> list[dict[str, Any]]:
        return [{"role": "tool", "tool_call_id": c["id"],
                 "content": f"{self.label}:{c['function']['name']}", "is_error": False}
                for c in calls]


def H(prefix: str, tool: str, digits: int = names.HASH_DIGITS) -> str:
    """The hashed name a displaced ``prefix`` + ``tool`` gets (under sep ``_``)."""
    return names.hashed(f"{prefix}_{tool}", json.dumps([prefix, tool]), digits)


LONG = "x" * 70
LONG_NAME = names.fit(f"fs_{LONG}", json.dumps(["fs", LONG]))   # 64 characters, hashed
LONG_PREFIX, LONG_TOOL = LONG_NAME[:55], LONG_NAME[56:]        # a newcomer spelling it


class Play:
    """A registry and the providers of one row's steps."""

    def __init__(self) -> None:
        self.warnings: list[str] = []
        self.registry = Registry(on_warn=self.warnings.append)
        self.providers: dict[str, Tools] = {}
        self.inner: Registry | None = None

    def step(self, step: Sequence[Any]) -> None:
        verb = step[0]
        if verb == "add":
            prefix, tools = step[1], step[2]
            self.providers[prefix] = Tools(prefix, tools)
            self.registry.add(self.providers[prefix], prefix=prefix,
                              **(step[3] if len(step) > 3 else {}))
        elif verb == "set":
            with self.providers[step[1]].lock:
                self.providers[step[1]].tools = list(step[2])
        elif verb == "remove":
            self.registry.remove(step[1])
        elif verb == "readd":     # the very provider removed before, back under its prefix
            self.registry.add(self.providers[step[1]], prefix=step[1])
        elif verb == "list":
            self.registry.tools_for_llm()
        elif verb == "nest":      # a registry inside: its providers are added with "inner"
            self.inner = Registry(on_warn=self.warnings.append)
            self.registry.add(self.inner, prefix=step[1])
        elif verb == "inner":
            assert self.inner is not None
            self.providers[step[1]] = Tools(step[1], step[2])
            self.inner.add(self.providers[step[1]], prefix=step[1])
        else:
            raise AssertionError(f"unknown step {step!r}")

    def run(self, name: str) -> str | None:
        """Who a call to ``name`` reached (``prefix:tool``), or None for an unknown tool."""
        answer = self.registry.execute_tool_calls(
            [{"id": "c", "type": "function", "function": {"name": name, "arguments": "{}"}}])[0]
        if answer["is_error"]:
            assert "unknown tool" in answer["content"], answer["content"]
            return None
        return answer["content"]


def check_registry(self: LeakCheckingTestCase, label: str, steps: Sequence[Sequence[Any]],
                   expected: Mapping[str, str | None], warned: int) -> None:
    play = Play()
    for step in steps:
        play.step(step)
    published = {d["function"]["name"] for d in play.registry.tools_for_llm()}
    got = {name: play.run(name) for name in expected}
    self.assertEqual(got, dict(expected), label)
    for name, target in expected.items():
        self.assertEqual(name in published, target is not None, name)
    moved = [w for w in play.warnings if "is published as" in w]
    self.assertEqual(len(moved), warned, play.warnings)


F = ("add", "fs", ["ext_delete"])
E = ("add", "fs_ext", ["delete"])
L = ("list",)
FIRST, NEWCOMER = "fs:ext_delete", "fs_ext:delete"

REGISTRY_ROWS: list[tuple[str, list[Sequence[Any]], dict[str, str | None], int]] = [
    # label, steps, published name -> who a call reaches (None: unknown tool), warnings
    ("a later provider collides: the first keeps its name", [F, L, E, L],
     {"fs_ext_delete": FIRST, H("fs_ext", "delete"): NEWCOMER}, 1),
    ("the later one is told so once, however often it is listed", [F, L, E, L, L, L],
     {"fs_ext_delete": FIRST, H("fs_ext", "delete"): NEWCOMER}, 1),
    ("a call before any listing: the collision is settled at once", [F, E],
     {"fs_ext_delete": NEWCOMER, H("fs", "ext_delete"): FIRST}, 1),
    ("both arrive in one listing: the longer prefix wins, and it is said", [F, E, L],
     {"fs_ext_delete": NEWCOMER, H("fs", "ext_delete"): FIRST}, 1),
    ("the longer prefix first, the shorter later", [E, L, F, L],
     {"fs_ext_delete": NEWCOMER, H("fs", "ext_delete"): FIRST}, 1),
    ("the newcomer's tool appears in a changed list",
     [F, ("add", "fs_ext", []), L, ("set", "fs_ext", ["delete"]), L],
     {"fs_ext_delete": FIRST, H("fs_ext", "delete"): NEWCOMER}, 1),
    ("the first holder's tool appears in a changed list",
     [("add", "fs", []), E, L, ("set", "fs", ["ext_delete"]), L],
     {"fs_ext_delete": NEWCOMER, H("fs", "ext_delete"): FIRST}, 1),
    ("the first holder's tool goes away: its name stays reserved",
     [F, L, ("set", "fs", []), E, L],
     {"fs_ext_delete": None, H("fs_ext", "delete"): NEWCOMER}, 1),
    ("the first holder's tool comes back: it gets its name back",
     [F, L, ("set", "fs", []), E, L, ("set", "fs", ["ext_delete"]), L],
     {"fs_ext_delete": FIRST, H("fs_ext", "delete"): NEWCOMER}, 1),
    ("the first holder is removed: its name stays reserved",
     [F, L, ("remove", "fs"), L, E, L],
     {"fs_ext_delete": None, H("fs_ext", "delete"): NEWCOMER}, 1),
    ("removed after the collision: the newcomer does not move up",
     [F, L, E, L, ("remove", "fs"), L],
     {"fs_ext_delete": None, H("fs_ext", "delete"): NEWCOMER}, 1),
    ("removed and re-added: the first holder gets its name back",
     [F, L, E, L, ("remove", "fs"), L, ("readd", "fs"), L],
     {"fs_ext_delete": FIRST, H("fs_ext", "delete"): NEWCOMER}, 1),
    ("a new provider under the first holder's prefix inherits its name",
     [F, L, E, L, ("remove", "fs"), L, ("add", "fs", ["ext_delete"]), L],
     {"fs_ext_delete": FIRST, H("fs_ext", "delete"): NEWCOMER}, 1),
    ("removed and re-added with no collision", [F, L, ("remove", "fs"), L, F, L],
     {"fs_ext_delete": FIRST}, 0),
    ("the newcomer is removed", [F, L, E, L, ("remove", "fs_ext"), L],
     {"fs_ext_delete": FIRST, H("fs_ext", "delete"): None}, 1),
    ("the newcomer comes back to its own other name",
     [F, L, E, L, ("remove", "fs_ext"), L, ("readd", "fs_ext"), L],
     {"fs_ext_delete": FIRST, H("fs_ext", "delete"): NEWCOMER}, 1),
    ("three prefixes one after another: the first keeps it",
     [("add", "fs", ["a_b_c"]), L, ("add", "fs_a", ["b_c"]), L, ("add", "fs_a_b", ["c"]), L],
     {"fs_a_b_c": "fs:a_b_c", H("fs_a", "b_c"): "fs_a:b_c", H("fs_a_b", "c"): "fs_a_b:c"}, 2),
    ("three prefixes at once: the longest keeps it",
     [("add", "fs", ["a_b_c"]), ("add", "fs_a", ["b_c"]), ("add", "fs_a_b", ["c"]), L],
     {"fs_a_b_c": "fs_a_b:c", H("fs_a", "b_c"): "fs_a:b_c", H("fs", "a_b_c"): "fs:a_b_c"}, 2),
    ("three prefixes, the middle one first",
     [("add", "fs_a", ["b_c"]), L, ("add", "fs", ["a_b_c"]), ("add", "fs_a_b", ["c"]), L],
     {"fs_a_b_c": "fs_a:b_c", H("fs", "a_b_c"): "fs:a_b_c", H("fs_a_b", "c"): "fs_a_b:c"}, 2),
    ("names that differ in case are different names",
     [("add", "fs", ["Ext_delete"]), L, E, L],
     {"fs_Ext_delete": "fs:Ext_delete", "fs_ext_delete": NEWCOMER}, 0),
    ("a newcomer in other case takes nothing", [F, L, ("add", "fs_ext", ["Delete"]), L],
     {"fs_ext_delete": FIRST, "fs_ext_Delete": "fs_ext:Delete"}, 0),
    ("a prefix in other case takes nothing", [F, L, ("add", "FS_ext", ["delete"]), L],
     {"fs_ext_delete": FIRST, "FS_ext_delete": "FS_ext:delete"}, 0),
    ("a cleaned name keeps its tool against a real one later",
     [("add", "fs", ["ext.delete"]), L, E, L],
     {"fs_ext_delete": "fs:ext.delete", H("fs_ext", "delete"): NEWCOMER}, 1),
    ("a cleaned name and a real one at once: the real one wins, and it is said",
     [("add", "fs", ["ext.delete"]), E, L],
     {"fs_ext_delete": NEWCOMER,
      names.hashed("fs_ext.delete", json.dumps(["fs", "ext.delete"])): "fs:ext.delete"}, 1),
    ("a shortened long name keeps its tool against a newcomer spelling it",
     [("add", "fs", [LONG]), L, ("add", LONG_PREFIX, [LONG_TOOL]), L],
     {LONG_NAME: f"fs:{LONG}", H(LONG_PREFIX, LONG_TOOL): f"{LONG_PREFIX}:{LONG_TOOL}"}, 1),
    ("two long names share a beginning: each keeps its own",
     [("add", "fs", [LONG + "a"]), L, ("add", "fs_x", [LONG + "b"]), L],
     {names.fit(f"fs_{LONG}a", json.dumps(["fs", LONG + "a"])): f"fs:{LONG}a",
      names.fit(f"fs_x_{LONG}b", json.dumps(["fs_x", LONG + "b"])): f"fs_x:{LONG}b"}, 0),
    ("a tool excluded by a filter never reserves a name",
     [("add", "fs", ["ext_delete"], {"exclude": ["ext_delete"]}), L, E, L],
     {"fs_ext_delete": NEWCOMER}, 0),
    ("a renamed tool: the old name stays reserved, the new one is published",
     [F, L, ("set", "fs", ["ext_remove"]), L],
     {"fs_ext_delete": None, "fs_ext_remove": "fs:ext_remove"}, 0),
    ("a renamed tool's old name is not given to a newcomer",
     [F, L, ("set", "fs", ["ext_remove"]), L, E, L],
     {"fs_ext_delete": None, "fs_ext_remove": "fs:ext_remove",
      H("fs_ext", "delete"): NEWCOMER}, 1),
    ("no collision: nothing moves and nothing is said",
     [F, L, ("add", "git", ["status"]), L],
     {"fs_ext_delete": FIRST, "git_status": "git:status"}, 0),
    ("a registry inside a registry: names outside stay too",
     [("nest", "w"), ("inner", "fs", ["ext_delete"]), L, ("inner", "fs_ext", ["delete"]), L],
     {"w_fs_ext_delete": FIRST, f"w_{H('fs_ext', 'delete')}": NEWCOMER}, 1),
]


class RegistryNamesTable(LeakCheckingTestCase):
    """A published name is bound to its first tool for the registry's life."""


add_rows(RegistryNamesTable, "registry", REGISTRY_ROWS, check_registry)


class RegistryNamesTest(LeakCheckingTestCase):
    def test_the_warning_names_both_tools_and_the_new_name(self) -> None:
        play = Play()
        for step in (F, L, E, L):
            play.step(step)
        self.assertEqual(play.warnings, [
            f"provider 'fs_ext' lists 'delete', but fs_ext_delete is bound to 'ext_delete' of "
            f"provider 'fs'; it is published as {H('fs_ext', 'delete')}"])

    def test_a_deny_rule_on_the_name_still_covers_the_first_tool(self) -> None:
        from mcp_client.policy import Policy

        play = Play()
        for step in (F, L, E, L):
            play.step(step)
        policy = Policy(play.registry, rules=[{"tool": "fs_*", "decision": "allow"},
                                              {"tool": "fs_ext_delete", "decision": "deny"}])
        reached = []
        for declared in policy.tools_for_llm():
            answer = policy.execute_tool_calls([{"id": "1", "type": "function", "function": {
                "name": declared["function"]["name"], "arguments": "{}"}}])[0]
            if not answer["is_error"]:
                reached.append(answer["content"])
        self.assertEqual(reached, [NEWCOMER])   # the trusted tool is denied by every name

    def test_listings_from_many_threads_agree(self) -> None:
        play = Play()
        play.step(F)
        play.step(L)
        play.step(E)
        seen: list[set[str]] = []
        lock = threading.Lock()

        def lister() -> None:
            got = {d["function"]["name"] for d in play.registry.tools_for_llm()}
            with lock:
                seen.append(got)

        threads = [threading.Thread(target=lister, name=f"lister-{i}") for i in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(10)
        self.assertEqual(seen, [{"fs_ext_delete", H("fs_ext", "delete")}] * 8)
        self.assertEqual(play.run("fs_ext_delete"), FIRST)


# -- one server whose list changes (the client bridge) -------------------------------

def check_bridge(self: LeakCheckingTestCase, label: str, lists: Sequence[Sequence[str]],
                 expected: Mapping[str, str | None]) -> None:
    current: list[list[str]] = [list(lists[0])]
    ran: list[str] = []

    def list_tools(**_: Any) -> list[dict[str, Any]]:
        return [{"name": n, "inputSchema": {"type": "object"}} for n in current[0]]

    def call(name: str, arguments: Any, ident: Any) -> dict[str, Any]:
        ran.append(name)
        return {"content": [{"type": "text", "text": name}]}

    driven = bridge.Bridge(list_tools=list_tools, call=call)
    for tools in lists:
        current[0] = list(tools)
        driven.tools_for_llm()
    published = {d["function"]["name"] for d in driven.tools_for_llm()}
    got = {}
    for name, target in expected.items():
        answer = driven.execute_tool_calls([{"id": "c", "type": "function", "function": {
            "name": name, "arguments": "{}"}}])[0]
        got[name] = None if answer["is_error"] else answer["content"]
        self.assertEqual(name in published, target is not None, name)
    self.assertEqual(got, dict(expected), label)


BRIDGE_ROWS: list[tuple[str, list[list[str]], dict[str, str | None]]] = [
    # label, the server's successive tool lists, published name -> the tool it reaches
    ("a cleaned name keeps its tool when the real name appears",
     [["files.delete"], ["files.delete", "files_delete"]],
     {"files_delete": "files.delete",
      names.hashed("files_delete", "files_delete"): "files_delete"}),
    ("both at once: the real name wins", [["files.delete", "files_delete"]],
     {"files_delete": "files_delete",
      names.hashed("files.delete", "files.delete"): "files.delete"}),
    ("the cleaned tool goes away: its name stays reserved",
     [["files.delete"], ["files_delete"]],
     {"files_delete": None, names.hashed("files_delete", "files_delete"): "files_delete"}),
    ("the cleaned tool comes back", [["files.delete"], ["files_delete"],
                                     ["files.delete", "files_delete"]],
     {"files_delete": "files.delete",
      names.hashed("files_delete", "files_delete"): "files_delete"}),
    ("a name cleaned two ways: the first keeps it",
     [["a.b"], ["a.b", "a/b"]],
     {"a_b": "a.b", names.hashed("a/b", "a/b"): "a/b"}),
    ("a tool renamed: the old name stays reserved", [["delete"], ["remove"]],
     {"delete": None, "remove": "remove"}),
    ("no change: nothing moves", [["read", "write"], ["read", "write"]],
     {"read": "read", "write": "write"}),
]


class BridgeNamesTable(LeakCheckingTestCase):
    """One server's published names stay with their tools while its list changes."""


add_rows(BridgeNamesTable, "bridge", BRIDGE_ROWS, check_bridge)


class BridgeWithoutACatalogueTest(LeakCheckingTestCase):
    def test_a_published_name_still_reaches_its_tool_when_the_list_fails(self) -> None:
        listing: list[Any] = [[{"name": "files.delete"}, {"name": "files_delete"}]]
        ran: list[str] = []

        def list_tools(**_: Any) -> list[dict[str, Any]]:
            if isinstance(listing[0], Exception):
                raise listing[0]
            return listing[0]  # type: ignore[no-any-return]

        def call(name: str, arguments: Any, ident: Any) -> dict[str, Any]:
            ran.append(name)
            return {"content": [{"type": "text", "text": name}]}

        driven = bridge.Bridge(list_tools=list_tools, call=call)
        listing[0] = [{"name": "files.delete"}]
        driven.tools_for_llm()                      # files_delete -> files.delete
        listing[0] = RuntimeError("the server stopped answering tools/list")
        for name in ("files_delete", "files_remove"):
            driven.execute_tool_calls([{"id": "1", "type": "function", "function": {
                "name": name, "arguments": "{}"}}])
        self.assertEqual(ran, ["files.delete", "files_remove"])
