"""The Reasons and UnknownKeys layers over a recording provider."""

from __future__ import annotations

import copy
import json
import tempfile
import threading
from pathlib import Path
from typing import Any

from mcp_client import Client, Registry
from mcp_client.leases import LeaseTable, Leases
from mcp_client.policy import Policy
from mcp_client.reasons import REASON_PARAM, Reasons
from mcp_client.unknown_keys import UnknownKeys

from ..base import PYTHON, LeakCheckingTestCase

FILES = Path(__file__).resolve().parents[2] / "examples" / "servers" / "files_server.py"


def declaration(name: str, properties: dict[str, Any] | None) -> dict[str, Any]:
    parameters: dict[str, Any] = {"type": "object"}
    if properties is not None:
        parameters["properties"] = properties
    return {"type": "function", "function": {"name": name, "description": name,
                                             "parameters": parameters}}


def call(ident: str, name: str, arguments: Any) -> dict[str, Any]:
    return {"id": ident, "type": "function", "function": {"name": name, "arguments": arguments}}


class Recorder:
    """A provider that records what reaches it."""

    def __init__(self) -> None:
        self.declarations = [
            declaration("fs_write", {"path": {"type": "string"}, "content": {"type": "string"}}),
            declaration("git_commit", {"message": {"type": "string"},
                                       "reason": {"type": "string"}}),   # its own reason
            declaration("ping", None),
        ]
        self.received: list[list[Any]] = []
        self.listed = 0

    def tools_for_llm(self) -> list[dict[str, Any]]:
        self.listed += 1
        return copy.deepcopy(self.declarations)

    def execute_tool_calls(self, calls: list[Any]) -> list[dict[str, Any]]:
        self.received.append(calls)
        return [{"role": "tool", "tool_call_id": c["id"] if isinstance(c, dict) else c.id,
                 "content": "ok", "is_error": False} for c in calls]


class ReasonsTest(LeakCheckingTestCase):
    def test_every_declaration_gains_an_optional_reason(self) -> None:
        inner = Recorder()
        declarations = {d["function"]["name"]: d for d in Reasons(inner).tools_for_llm()}
        write = declarations["fs_write"]["function"]["parameters"]
        self.assertEqual(write["properties"][REASON_PARAM]["type"], "string")
        self.assertNotIn(REASON_PARAM, write.get("required", []))
        self.assertEqual(declarations["git_commit"], inner.declarations[1])   # left alone
        self.assertIn(REASON_PARAM, declarations["ping"]["function"]["parameters"]["properties"])
        self.assertNotIn(REASON_PARAM, inner.declarations[0]["function"]["parameters"]
                         ["properties"])   # the inner declarations were not mutated

    def test_the_reason_is_stripped_on_a_copy(self) -> None:
        inner = Recorder()
        layer = Reasons(inner)
        layer.tools_for_llm()
        calls = [call("1", "fs_write", {"path": "a", "content": "x", "reason": "asked to"}),
                 call("2", "fs_write", json.dumps({"path": "b", "reason": "why not"})),
                 call("3", "git_commit", {"message": "m", "reason": "its own"}),
                 call("4", "ping", ""),
                 call("5", "fs_write", "{not json"),
                 call("6", "unknown_tool", {"reason": "?"})]
        original = copy.deepcopy(calls)
        results = layer.execute_tool_calls(calls)
        self.assertEqual([r["tool_call_id"] for r in results], ["1", "2", "3", "4", "5", "6"])
        self.assertEqual(calls, original)   # the caller's copy keeps its reason
        forwarded = inner.received[0]
        self.assertEqual(forwarded[0]["function"]["arguments"], {"path": "a", "content": "x"})
        self.assertEqual(json.loads(forwarded[1]["function"]["arguments"]), {"path": "b"})
        self.assertEqual(forwarded[2]["function"]["arguments"],
                         {"message": "m", "reason": "its own"})
        self.assertIs(forwarded[3], calls[3])
        self.assertIs(forwarded[4], calls[4])   # unparseable: not ours to judge
        self.assertIs(forwarded[5], calls[5])   # never declared: when in doubt, do not strip

    def test_calls_before_the_catalogue_was_listed(self) -> None:
        inner = Recorder()
        layer = Reasons(inner)
        layer.execute_tool_calls([call("1", "fs_write", {"path": "a", "reason": "r"})])
        self.assertEqual(inner.received[0][0]["function"]["arguments"], {"path": "a"})
        self.assertEqual(inner.listed, 1)

    def test_object_calls(self) -> None:
        class Function:
            name = "fs_write"
            arguments = '{"path": "a", "reason": "r"}'

        class Call:
            id = "call_9"
            type = "function"
            function = Function()

        inner = Recorder()
        layer = Reasons(inner)
        layer.tools_for_llm()
        self.assertEqual(layer.execute_tool_calls([Call()])[0]["tool_call_id"], "call_9")
        self.assertEqual(json.loads(inner.received[0][0]["function"]["arguments"]),
                         {"path": "a"})


class UnknownKeysTest(LeakCheckingTestCase):
    def setUp(self) -> None:
        super().setUp()
        self.warnings: list[dict[str, Any]] = []
        self.inner = Recorder()
        self.layer = UnknownKeys(Reasons(self.inner), self.warnings.append)
        self.layer.tools_for_llm()

    def test_reported_once_per_tool_and_key(self) -> None:
        calls = [call("1", "fs_write", {"path": "a", "recursive": True}),
                 call("2", "fs_write", {"path": "b", "recursive": False})]
        self.layer.execute_tool_calls(calls)
        self.assertEqual(self.warnings, [{"tool": "fs_write", "id": "1",
                                          "unknown_keys": ["recursive"],
                                          "declared_keys": ["content", "path", "reason"]}])
        self.layer.execute_tool_calls([call("3", "fs_write", {"path": "c", "mode": "0644",
                                                              "recursive": True})])
        self.assertEqual(self.warnings[1]["unknown_keys"], ["mode"])
        self.assertEqual(len(self.warnings), 2)

    def test_quiet_cases_and_no_false_positive_for_reason(self) -> None:
        calls = [call("1", "fs_write", {"path": "a", "reason": "asked"}),
                 call("2", "never_listed", {"x": 1}),
                 call("3", "fs_write", "{broken"),
                 call("4", "fs_write", "[1, 2]"),
                 call("5", "fs_write", ""),
                 call("6", "git_commit", {"message": "m", "reason": "r"}),
                 {"id": "7"}]
        self.layer.execute_tool_calls(calls)
        self.assertEqual(self.warnings, [])

    def test_forwards_the_callers_calls_untouched_and_survives_a_bad_hook(self) -> None:
        def broken(warning: dict[str, Any]) -> None:
            raise RuntimeError("hook bug")

        inner = Recorder()
        layer = UnknownKeys(inner, broken)
        layer.tools_for_llm()
        calls = [call("1", "fs_write", {"path": "a", "extra": 1})]
        results = layer.execute_tool_calls(calls)
        self.assertIs(inner.received[0][0], calls[0])
        self.assertEqual(results[0]["content"], "ok")

    def test_an_inner_provider_that_raises_raises_through(self) -> None:
        class Broken(Recorder):
            def execute_tool_calls(self, calls: list[Any]) -> list[dict[str, Any]]:
                raise RuntimeError("down")

        layer = UnknownKeys(Broken(), self.warnings.append)
        with self.assertRaises(RuntimeError):
            layer.execute_tool_calls([call("1", "fs_write", {})])


class RealStackTest(LeakCheckingTestCase):
    """The usual layer order over a real filesystem server, as a model would drive it."""

    def test_reasons_reach_the_prompt_and_never_the_server(self) -> None:
        workspace = tempfile.mkdtemp()
        self.addCleanup(__import__("shutil").rmtree, workspace)
        client = Client.connect_stdio(PYTHON, args=[str(FILES), workspace])
        self.addCleanup(client.close)
        wire: list[dict[str, Any]] = []
        lock = threading.Lock()
        send = client.transport.send

        def recording(message: dict[str, Any], **kwargs: Any) -> None:
            with lock:
                wire.append(message)
            send(message, **kwargs)

        send_line = client.transport.send_line

        def recording_lines(data: bytes) -> None:   # requests go out as encoded lines
            with lock:
                wire.append(json.loads(data))
            send_line(data)

        client.transport.send = recording  # type: ignore[method-assign]
        client.transport.send_line = recording_lines  # type: ignore[method-assign]
        registry = Registry()
        self.addCleanup(registry.close)
        registry.add(client, prefix="fs")
        questions: list[dict[str, Any]] = []
        warnings: list[dict[str, Any]] = []
        roots = {"fs": workspace, "lock": workspace}

        def ask(question: dict[str, Any]) -> str:
            questions.append(question)
            return "allow-once"

        policy = Policy(UnknownKeys(Reasons(Leases(registry, LeaseTable(), "a", roots=roots)),
                                    warnings.append),
                        rules=Policy.default_rules(), roots=roots,
                        on_ask=ask)
        declared = {d["function"]["name"]: d for d in policy.tools_for_llm()}
        self.assertIn(REASON_PARAM, declared["fs_write"]["function"]["parameters"]["properties"])
        results = policy.execute_tool_calls([
            call("1", "fs_write", json.dumps({"path": "a.txt", "content": "hi",
                                              "reason": "the user asked for a.txt"})),
            call("2", "fs_read", {"path": "a.txt", "reason": "check the write"})])
        self.assertEqual([r["is_error"] for r in results], [False, False])
        self.assertEqual(results[1]["content"], "hi")
        self.assertEqual(len(questions), 1)            # the read went through unasked
        self.assertEqual(questions[0]["arguments"]["reason"], "the user asked for a.txt")
        self.assertEqual(warnings, [])                  # no false positive for reason
        calls = [m for m in wire if m.get("method") == "tools/call"]
        self.assertEqual([m["params"]["name"] for m in calls], ["write", "read"])
        for message in calls:
            self.assertNotIn(REASON_PARAM, message["params"]["arguments"])
        self.assertEqual(Path(workspace, "a.txt").read_text(), "hi")
