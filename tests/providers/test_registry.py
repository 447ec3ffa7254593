"""The Registry: prefixes, routing, per-provider batches, failures that stay local."""

from __future__ import annotations

import json
import threading
import unittest
from pathlib import Path
from typing import Any, Iterable

from mcp_client import MCPClientError
from mcp_client.local import LocalServer
from mcp_client.names import LLM_NAME
from mcp_client.registry import Registry
from mcp_client.testing import ProgressKit, TestKit
from mcp_client.testing.kits import LONG_TOOL_NAME

from ..base import LeakCheckingTestCase, fake_server
from ..client.test_bridge import HAVE_OPENAI, call, openai_calls


class Stub:
    """A hand-written provider that records the batches it was given."""

    def __init__(self, label: str, *names: str, log: list[str] | None = None,
                 fail: bool = False) -> None:
        self.label, self.names, self.fail = label, names, fail
        self.batches: list[list[str]] = []
        self.log = log if log is not None else []

    def tools_for_llm(self) -> list[dict[str, Any]]:
        if self.fail:
            raise RuntimeError(f"{self.label} is down")
        return [{"type": "function", "function": {"name": n, "description": f"{self.label} {n}",
                                                  "parameters": {"type": "object"}}}
                for n in self.names]

    def execute_tool_calls(self, calls: Iterable[Any]) -> list[dict[str, Any]]:
        calls = list(calls)
        self.batches.append([c["function"]["name"] for c in calls])
        self.log.append(self.label)
        if self.fail:
            raise RuntimeError(f"{self.label} is down")
        return [{"role": "tool", "tool_call_id": c["id"], "is_error": False,
                 "content": f"{self.label}:{c['function']['name']}"} for c in calls]


def names(registry: Registry) -> list[str]:
    return [d["function"]["name"] for d in registry.tools_for_llm()]


class RegistryCase(LeakCheckingTestCase):
    def registry(self, **options: Any) -> Registry:
        self.warnings: list[str] = []
        options.setdefault("on_warn", self.warnings.append)
        registry = Registry(**options)
        self.addCleanup(registry.close)
        return registry


class NamingTest(RegistryCase):
    def test_prefixed_names_in_the_order_providers_were_added(self) -> None:
        tools = self.registry()
        tools.add(Stub("fs", "read", "write"), prefix="fs")
        tools.add(Stub("git", "log"), prefix="git")
        declarations = tools.tools_for_llm()
        self.assertEqual([d["function"]["name"] for d in declarations],
                         ["fs_read", "fs_write", "git_log"])
        self.assertEqual(declarations[0]["function"]["description"], "fs read")
        dashed = self.registry(sep="-")
        dashed.add(Stub("fs", "read"), prefix="fs")
        self.assertEqual(names(dashed), ["fs-read"])

    def test_longest_prefix_wins_and_collisions_are_never_merged(self) -> None:
        tools = self.registry()
        short, long = Stub("fs", "ext_read", "x_y"), Stub("fs_ext", "read")
        tools.add(short, prefix="fs")
        tools.add(long, prefix="fs_ext")
        published = names(tools)
        self.assertEqual(published[1:], ["fs_x_y", "fs_ext_read"])
        self.assertRegex(published[0], r"^fs_ext_read_[0-9a-f]{8}$")
        answers = tools.execute_tool_calls([call(n, "", n) for n in published])
        self.assertEqual([a["content"] for a in answers],
                         ["fs:ext_read", "fs:x_y", "fs_ext:read"])

    def test_routing_by_prefix_without_a_listing(self) -> None:
        tools = self.registry()
        tools.add(Stub("fs", "ext_read", "log_all"), prefix="fs")
        tools.add(Stub("fs_ext", "read"), prefix="fs_ext")
        self.assertEqual(tools.route("fs_ext_read"), ("fs_ext", "read"))
        self.assertEqual(tools.route("fs_log_all"), ("fs", "log_all"))
        self.assertIsNone(tools.route("fs_"))
        self.assertIsNone(tools.route("nope_x"))

    def test_long_and_dotted_names_round_trip_through_two_layers(self) -> None:
        tools = self.registry()
        tools.add(TestKit().server, prefix="a_rather_long_prefix")
        published = names(tools)
        for name in published:
            self.assertRegex(name, LLM_NAME)
        long_name = next(n for n in published if n.startswith("a_rather_long_prefix_read_the"))
        dotted = "a_rather_long_prefix_files_read_text"
        self.assertIn(dotted, published)
        answers = tools.execute_tool_calls([call(long_name, "", "l"),
                                            call(dotted, '{"path": "a.txt"}', "d")])
        self.assertEqual([a["content"] for a in answers],
                         ["the statements are in order", "contents of a.txt"])
        self.assertEqual(tools.tool_annotations(long_name),
                         {"readOnlyHint": True, "destructiveHint": False, "openWorldHint": False})
        self.assertGreater(len("a_rather_long_prefix_" + LONG_TOOL_NAME), 64)


class ExecutionTest(RegistryCase):
    def test_three_providers_interleaved_keep_the_models_order(self) -> None:
        log: list[str] = []
        a, b, c = Stub("a", "x", log=log), Stub("b", "x", log=log), Stub("c", "x", log=log)
        tools = self.registry()
        for stub in (a, b, c):
            tools.add(stub, prefix=stub.label)
        order = ["b", "a", "c", "a", "c", "b", "a"]
        answers = tools.execute_tool_calls([call(f"{p}_x", "", f"id{n}")
                                            for n, p in enumerate(order)])
        self.assertEqual([(x["tool_call_id"], x["content"]) for x in answers],
                         [(f"id{n}", f"{p}:x") for n, p in enumerate(order)])
        self.assertEqual(log, ["b", "a", "c"])   # one batch each, by first appearance
        self.assertEqual((a.batches, b.batches, c.batches),
                         ([["x"] * 3], [["x"] * 2], [["x"] * 2]))

    def test_three_real_servers_interleaved(self) -> None:
        tools = self.registry()
        tools.add(TestKit().server, prefix="kit")
        remote = TestKit.connect_stdio()
        self.addCleanup(remote.close)
        tools.add(remote, prefix="remote")
        tools.add(ProgressKit().server, prefix="prog")
        calls = [call("remote_echo", {"text": "r1"}, "1"), call("kit_echo", {"text": "k1"}, "2"),
                 call("prog_count", {"n": 2}, "3"), call("remote_ticket", "", "4"),
                 call("kit_add", '{"a": 2, "b": 3}', "5"), call("prog_ticks", '{"n": 1}', "6"),
                 call("kit_ticket", "", "7"), call("remote_fail", "", "8")]
        answers = tools.execute_tool_calls(calls)
        self.assertEqual([(x["tool_call_id"], x["content"], x["is_error"]) for x in answers], [
            ("1", "r1", False), ("2", "k1", False), ("3", "counted to 2", False),
            ("4", "1", False), ("5", "5", False), ("6", "ticked 1 times", False),
            ("7", "1", False), ("8", "Error executing tool fail: failed: because", True)])

    def test_a_provider_that_throws_fails_only_its_own_calls(self) -> None:
        class Broken(Stub):
            def execute_tool_calls(self, calls: Iterable[Any]) -> list[dict[str, Any]]:
                raise RuntimeError("bad is down")

        tools = self.registry()
        tools.add(Stub("ok", "x"), prefix="ok")
        tools.add(Broken("bad", "x"), prefix="bad")
        answers = tools.execute_tool_calls([call("ok_x", "", 1), call("bad_x", "", 2),
                                            call("ok_x", "", 3)])
        self.assertEqual([(x["tool_call_id"], x["content"], x["is_error"]) for x in answers], [
            (1, "ok:x", False),
            (2, "bad_x could not run: its provider failed (RuntimeError: bad is down)", True),
            (3, "ok:x", False)])
        self.assertEqual(self.warnings,
                         ["provider 'bad' failed a batch: RuntimeError: bad is down"])

    def test_a_provider_that_cannot_list_its_tools_publishes_none(self) -> None:
        tools = self.registry()
        down = Stub("bad", "x", fail=True)
        tools.add(down, prefix="bad")
        answers = tools.execute_tool_calls([call("bad_x", "", 1)])
        self.assertEqual(answers[0]["content"], "unknown tool: bad_x")
        self.assertEqual(down.batches, [])

    def test_a_provider_that_answers_out_of_shape(self) -> None:
        class Short(Stub):
            def execute_tool_calls(self, calls: Iterable[Any]) -> list[dict[str, Any]]:
                return super().execute_tool_calls(calls)[:1]

        class Junk(Stub):
            def execute_tool_calls(self, calls: Iterable[Any]) -> list[dict[str, Any]]:
                return ["junk", {"content": "no id", "tool_call_id": "wrong"}]  # type: ignore

        tools = self.registry()
        tools.add(Short("short", "x"), prefix="short")
        tools.add(Junk("junk", "x"), prefix="junk")
        answers = tools.execute_tool_calls([call("short_x", "", "s1"), call("junk_x", "", "j1"),
                                            call("short_x", "", "s2"), call("junk_x", "", "j2")])
        self.assertEqual(answers, [
            {"role": "tool", "tool_call_id": "s1", "is_error": True,
             "content": "short_x could not run: its provider failed "
                        "(MCPClientError: answered 1 for 2 calls)"},
            {"role": "tool", "tool_call_id": "j1", "is_error": True,
             "content": "the provider's answer could not be read"},
            {"role": "tool", "tool_call_id": "s2", "is_error": True,
             "content": "short_x could not run: its provider failed "
                        "(MCPClientError: answered 1 for 2 calls)"},
            {"content": "no id", "tool_call_id": "j2", "role": "tool", "is_error": False}])

    def test_malformed_and_unknown_calls(self) -> None:
        tools = self.registry()
        tools.add(Stub("fs", "read"), prefix="fs")
        answers = tools.execute_tool_calls([{"id": "m"}, call("git_log", "", "u"),
                                            call("fs_read", "", "ok")])
        self.assertEqual([(x["tool_call_id"], x["content"], x["is_error"]) for x in answers], [
            ("m", "malformed tool call: the call has no function", True),
            ("u", "unknown tool: git_log", True), ("ok", "fs:read", False)])
        with self.assertRaises(MCPClientError):
            tools.execute_tool_calls(call("fs_read"))

    def test_arguments_reach_the_provider_as_the_model_wrote_them(self) -> None:
        tools = self.registry()
        tools.add(TestKit().server, prefix="kit")
        answers = tools.execute_tool_calls([
            call("kit_echo", '{"text": "json"}', 1), call("kit_echo", {"text": "dict"}, 2),
            call("kit_no_args", "", 3), call("kit_echo", "[1]", 4)])
        self.assertEqual([x["content"] for x in answers], [
            "json", "dict", "nothing needed",
            "echo: arguments are not a JSON object (got an array)"])

    @unittest.skipUnless(HAVE_OPENAI, "the openai package is not installed")
    def test_openai_tool_call_objects(self) -> None:
        tools = self.registry()
        tools.add(TestKit().server, prefix="kit")
        answers = tools.execute_tool_calls(openai_calls(
            {"id": "call_1", "type": "function",
             "function": {"name": "kit_echo", "arguments": '{"text": "hello"}'}},
            {"id": "call_2", "type": "function",
             "function": {"name": "kit_weather", "arguments": '{"city": "Rome"}'}}))
        self.assertEqual([x["tool_call_id"] for x in answers], ["call_1", "call_2"])
        self.assertEqual(answers[0]["content"], "hello")
        self.assertEqual(answers[1]["structured_content"],
                         {"temperature": 21.5, "conditions": "sunny in Rome"})

    def test_registries_nest(self) -> None:
        inner = Registry()
        inner.add(Stub("fs", "read"), prefix="fs")
        tools = self.registry()
        tools.add(inner, prefix="team")
        tools.add(Stub("git", "log"), prefix="git")
        self.assertEqual(names(tools), ["team_fs_read", "git_log"])
        answers = tools.execute_tool_calls([call("git_log", "", 1), call("team_fs_read", "", 2)])
        self.assertEqual([x["content"] for x in answers], ["git:log", "fs:read"])


class ProvidersTest(RegistryCase):
    def test_add_remove_providers(self) -> None:
        tools = self.registry()
        fs, git = Stub("fs", "read"), Stub("git", "log")
        self.assertIs(tools.add(fs, prefix="fs"), fs)
        tools.add(git, prefix="git")
        self.assertEqual(tools.providers, [{"prefix": "fs", "provider": fs},
                                           {"prefix": "git", "provider": git}])
        self.assertIs(tools.remove("fs"), fs)
        self.assertIsNone(tools.remove("fs"))
        self.assertEqual([p["prefix"] for p in tools.providers], ["git"])
        self.assertEqual(names(tools), ["git_log"])
        self.assertEqual(repr(tools), "<Registry sep='_' providers=['git']>")

    def test_refusals(self) -> None:
        tools = self.registry()
        tools.add(Stub("fs", "read"), prefix="fs")
        cases: list[tuple[Any, dict[str, Any], str]] = [
            (Stub("x"), {"prefix": "fs"}, "prefix 'fs' is already registered"),
            (Stub("x"), {"prefix": "f.s"}, "a prefix must be letters, digits, _ and -"),
            (Stub("x"), {"prefix": ""}, "a prefix must be"),
            (object(), {"prefix": "obj"}, "a provider needs tools_for_llm()"),
            (Stub("x"), {"prefix": "y", "on_progress": print}, "options (on_progress)"),
        ]
        for provider, kwargs, message in cases:
            with self.subTest(kwargs), self.assertRaises(MCPClientError) as caught:
                tools.add(provider, **kwargs)
            self.assertIn(message, str(caught.exception))
        with self.assertRaises(MCPClientError):
            Registry(sep=".")
        with self.assertRaises(MCPClientError):
            tools.add(TestKit().server, prefix="fs")   # taken: nothing is started

    def test_an_sdk_server_is_wrapped_and_owned(self) -> None:
        tools = self.registry()
        local = tools.add(TestKit().server, prefix="kit", tool_concurrency=2)
        self.assertIsInstance(local, LocalServer)
        mine = TestKit().local()
        self.addCleanup(mine.close)
        tools.add(mine, prefix="mine")
        self.assertEqual(tools.tool_annotations("kit_echo"),
                         {"readOnlyHint": True, "destructiveHint": False,
                          "openWorldHint": False})
        self.assertIsNone(tools.tool_annotations("kit_write_note"))
        self.assertIsNone(tools.tool_annotations("nope"))
        tools.close()
        tools.close()
        self.assertTrue(local.client.closed)
        self.assertFalse(mine.client.closed)   # the caller's, not the registry's

    def test_a_provider_added_as_owned_is_closed_with_the_registry(self) -> None:
        class Closable(Stub):
            closed = 0

            def close(self) -> None:
                self.closed += 1

        tools = self.registry()
        owned, kept = Closable("a", "x"), Closable("b", "y")
        tools.add(owned, prefix="a", owned=True)
        tools.add(kept, prefix="b")
        with self.assertRaises(MCPClientError):
            tools.add(Closable("c", "z"), prefix="a", owned=True)
        self.assertEqual(tools.failures, [])
        tools.close()
        self.assertEqual((owned.closed, kept.closed), (1, 0))

    def test_from_config(self) -> None:
        kit = TestKit.command()
        config = {"mcpServers": {
            "kit": {"command": kit[0], "args": kit[1:],
                    "env": {"PYTHONPATH": str(Path(__file__).resolve().parents[2])}},
            "missing": {"command": "/nonexistent/mcp-server"}}}
        tools = Registry.from_config(config)
        self.addCleanup(tools.close)
        self.assertEqual([p["prefix"] for p in tools.providers], ["kit"])
        self.assertEqual([f.name for f in tools.failures], ["missing"])
        self.assertEqual(tools.execute_tool_calls([call("kit_echo", {"text": "hi"})])[0]["content"],
                         "hi")
        client = tools.providers[0]["provider"]
        tools.close()
        self.assertTrue(client.closed)

    def test_a_provider_that_cannot_list_is_left_out_and_reported(self) -> None:
        tools = self.registry()
        tools.add(Stub("down", "x", fail=True), prefix="down")
        tools.add(Stub("up", "y"), prefix="up")
        self.assertEqual(names(tools), ["up_y"])
        self.assertEqual(self.warnings,
                         ["provider 'down' could not list its tools: RuntimeError: down is down"])

    def test_annotations_through_a_stub_are_none(self) -> None:
        tools = self.registry()
        tools.add(Stub("fs", "read"), prefix="fs")
        self.assertIsNone(tools.tool_annotations("fs_read"))
        self.assertEqual(json.loads(json.dumps(tools.tools_for_llm()))[0]["function"]["name"],
                         "fs_read")


class Fixed(Stub):
    """A provider whose declarations are the same objects until :meth:`change`."""

    def __init__(self, label: str, *names: str) -> None:
        super().__init__(label, *names)
        self.listed = super().tools_for_llm()

    def tools_for_llm(self) -> list[dict[str, Any]]:
        return list(self.listed)

    def change(self, *names: str) -> None:
        self.names = names
        self.listed = super().tools_for_llm()


class ListingCacheTest(RegistryCase):
    """The published list is built once per catalogue, and again when one changes."""

    def test_the_same_declarations_give_the_same_listing(self) -> None:
        tools = self.registry()
        tools.add(Fixed("fs", "read", "write"), prefix="fs")
        first, second = tools.tools_for_llm(), tools.tools_for_llm()
        self.assertEqual([d["function"]["name"] for d in first], ["fs_read", "fs_write"])
        self.assertIsNot(first, second)
        self.assertTrue(all(x is y for x, y in zip(first, second)))

    def test_add_and_remove_build_it_again(self) -> None:
        tools = self.registry()
        tools.add(Fixed("fs", "read"), prefix="fs")
        self.assertEqual(names(tools), ["fs_read"])
        tools.add(Fixed("git", "log"), prefix="git")
        self.assertEqual(names(tools), ["fs_read", "git_log"])
        tools.remove("fs")
        self.assertEqual(names(tools), ["git_log"])
        self.assertIsNone(tools.route("fs_read"))
        tools.add(Fixed("fs", "stat"), prefix="fs")
        self.assertEqual(names(tools), ["git_log", "fs_stat"])
        self.assertEqual(tools.route("fs_stat"), ("fs", "stat"))

    def test_a_provider_whose_catalogue_changed_builds_it_again(self) -> None:
        tools = self.registry()
        fs = Fixed("fs", "read")
        tools.add(fs, prefix="fs")
        tools.add(Fixed("git", "log"), prefix="git")
        before = tools.tools_for_llm()
        fs.change("read", "delete")
        self.assertEqual(names(tools), ["fs_read", "fs_delete", "git_log"])
        self.assertEqual(tools.route("fs_delete"), ("fs", "delete"))
        self.assertEqual([d["function"]["name"] for d in before], ["fs_read", "git_log"])

    def test_a_clients_list_changed_reaches_the_registry(self) -> None:
        from mcp_client import Client

        def listing(*tool_names: str) -> dict[str, Any]:
            return {"tools": [{"name": n} for n in tool_names], "ttlMs": 60000,
                    "resultType": "complete"}

        fake = fake_server()
        fake.on("tools/list", listing("a"), listing("a", "b"))
        client = Client(transport=fake)
        self.addCleanup(client.close)
        tools = self.registry()
        tools.add(client, prefix="srv")
        self.assertEqual(names(tools), ["srv_a"])
        self.assertEqual(names(tools), ["srv_a"])
        seen = threading.Event()
        client.notifications.subscribe(lambda message: seen.set())
        fake.notify("notifications/tools/list_changed")
        self.assertTrue(seen.wait(5))
        self.assertEqual(names(tools), ["srv_a", "srv_b"])
        self.assertEqual(len(fake.requests("tools/list")), 2)
