"""The mcpServers configuration: parsing, expansion, errors, and connecting real servers."""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from mcp_client import MCPClientError, ServerGone, SpawnFailed
from mcp_client.config import (ConfigError, ConfigFailure, ServerConfig, connect_config,
                               connect_entries, expand, load_config)

from ..base import HERE, PYTHON, SERVERS, LeakCheckingTestCase

DUAL = str(SERVERS / "dual_stdio.py")


def servers(**entries: Any) -> dict[str, Any]:
    return {"mcpServers": entries}


def one(entry: dict[str, Any], environ: dict[str, str] | None = None) -> ServerConfig:
    return load_config(servers(s=entry), environ=environ or {})[0]


class ParseTest(LeakCheckingTestCase):
    def assertConfigError(self, config: Any, server: str | None, key: str | None,
                          *fragments: str, environ: dict[str, str] | None = None) -> ConfigError:
        with self.assertRaises(ConfigError) as caught:
            load_config(config, environ=environ or {})
        error = caught.exception
        self.assertEqual((error.server, error.key), (server, key), str(error))
        for fragment in fragments:
            self.assertIn(fragment, str(error))
        self.assertIsInstance(error, MCPClientError)
        return error

    def test_a_stdio_entry(self) -> None:
        entry = one({"command": "uvx", "args": ["mcp-server-git", "--repository", "/srv/p"],
                     "env": {"GIT_AUTHOR_NAME": "agent"}, "cwd": "/srv/p"})
        self.assertEqual(entry, ServerConfig(name="s", kind="stdio", prefix="s", command="uvx",
                                             args=("mcp-server-git", "--repository", "/srv/p"),
                                             env={"GIT_AUTHOR_NAME": "agent"}, cwd="/srv/p"))

    def test_http_entries_and_their_type_spellings(self) -> None:
        for kind in (None, "http", "streamable-http", "streamableHttp", "HTTP"):
            entry: dict[str, Any] = {"url": "https://tools.example.com/mcp",
                                     "headers": {"Authorization": "Bearer t"}}
            if kind is not None:
                entry["type"] = kind
            with self.subTest(kind):
                parsed = one(entry)
                self.assertEqual((parsed.kind, parsed.url, dict(parsed.headers)),
                                 ("http", "https://tools.example.com/mcp",
                                  {"Authorization": "Bearer t"}))
                self.assertIsNone(parsed.command)
        self.assertEqual(one({"serverUrl": "http://127.0.0.1:1/mcp"}).url,
                         "http://127.0.0.1:1/mcp")
        self.assertEqual(one({"type": "stdio", "command": "srv"}).kind, "stdio")

    def test_sse_is_the_http_sse_transport(self) -> None:
        entry, = load_config(servers(old={"type": "sse", "url": "http://h/sse",
                                          "headers": {"A": "b"}}))
        self.assertEqual((entry.kind, entry.url, dict(entry.headers)),
                         ("sse", "http://h/sse", {"A": "b"}))
        self.assertConfigError(servers(old={"type": "websocket", "url": "ws://h"}), "old",
                               "type", "unknown transport", "\"sse\"")

    def test_vs_code_servers_key(self) -> None:
        entries = load_config({"inputs": [], "servers": {"a": {"command": "x"}}})
        self.assertEqual([e.name for e in entries], ["a"])
        self.assertConfigError({"servers": {}, "mcpServers": {}}, None, "servers", "keep one")
        self.assertConfigError({"other": 1}, None, "mcpServers", "no \"mcpServers\"")
        self.assertConfigError([], None, None, "a JSON object", "not an array")
        self.assertConfigError({"mcpServers": []}, None, "mcpServers", "not an array")
        self.assertEqual(load_config({"mcpServers": {}}), [])

    def test_expansion_in_every_expanded_key(self) -> None:
        environ = {"HOME": "/home/ada", "TOKEN": "s3cret", "EMPTY": ""}
        entry = one({"command": "${HOME}/bin/srv", "args": ["--token=${TOKEN}", "${NOPE:-x}"],
                     "env": {"A": "${env:TOKEN}", "B": "${EMPTY:-fallback}", "C": "${EMPTY}"},
                     "cwd": "${HOME}/p"}, environ)
        self.assertEqual(entry.command, "/home/ada/bin/srv")
        self.assertEqual(entry.args, ("--token=s3cret", "x"))
        self.assertEqual(dict(entry.env), {"A": "s3cret", "B": "fallback", "C": ""})
        self.assertEqual(entry.cwd, "/home/ada/p")
        http = one({"url": "https://${HOST:-h.example}/mcp",
                    "headers": {"Authorization": "Bearer ${TOKEN}"}}, environ)
        self.assertEqual((http.url, dict(http.headers)),
                         ("https://h.example/mcp", {"Authorization": "Bearer s3cret"}))

    def test_expansion_details(self) -> None:
        env = {"A": "1"}
        self.assertEqual(expand("$${A} $A ${A}$ ${A:-}", env), "${A} $A 1$ 1")
        self.assertEqual(expand("${B:-a:-b}", env), "a:-b")
        self.assertEqual(expand("${B:-}", env), "")
        with self.assertRaises(ConfigError):
            expand("${A", env)
        with self.assertRaises(ConfigError):
            expand("${input:token}", env)
        self.assertEqual(expand("${B} ${input:x} ${A", env, strict=False), "${B} ${input:x} ${A")

    def test_an_unset_variable_names_server_key_and_variable(self) -> None:
        error = self.assertConfigError(
            servers(git={"command": "srv", "args": ["a", "${GIT_TOKEN}"]}), "git", "args[1]",
            "GIT_TOKEN is not set", "${GIT_TOKEN:-default}")
        self.assertIsNone(error.path)
        self.assertConfigError(servers(web={"url": "https://h/mcp",
                                            "headers": {"Authorization": "Bearer ${T}"}}),
                               "web", "headers.Authorization", "T is not set")
        self.assertConfigError(servers(w={"command": "x", "env": {"K": "${input:key}"}}),
                               "w", "env.K", "${input:key}")

    def test_disabled_entries_are_kept_and_may_name_unset_variables(self) -> None:
        entries = load_config(servers(
            off={"command": "srv", "args": ["${UNSET}"], "disabled": True},
            on={"command": "srv", "disabled": False}), environ={})
        self.assertEqual([(e.name, e.disabled) for e in entries], [("off", True), ("on", False)])
        self.assertEqual(entries[0].args, ("${UNSET}",))
        kept, = load_config(servers(old={"type": "ws", "url": "http://h/ws", "disabled": True}))
        self.assertEqual((kept.kind, kept.url, kept.disabled, dict(kept.extra)),
                         ("http", None, True, {"type": "ws", "url": "http://h/ws"}))
        with self.assertRaises(ConfigError) as caught:
            entries[0].connect()
        self.assertEqual(caught.exception.key, "disabled")

    def test_entry_mistakes_name_server_and_key(self) -> None:
        cases = [
            ({"command": "x", "args": "a b"}, "args", "list of strings"),
            ({"command": "x", "args": ["a", 3]}, "args[1]", "string, not a number"),
            ({"command": "x", "env": {"PORT": 8080}}, "env.PORT", "not a number"),
            ({"command": "x", "env": []}, "env", "object of strings"),
            ({"command": ""}, "command", "empty"),
            ({"command": 3}, "command", "string"),
            ({"command": "x", "disabled": "yes"}, "disabled", "true or false"),
            ({"command": "x", "era": "latest"}, "era", "2026-07-28"),
            ({"command": "x", "headers": {}}, "headers", "stdio"),
            ({"url": "https://h/mcp", "args": []}, "args", "http"),
            ({"command": "x", "url": "https://h/mcp"}, "type", "say which"),
            ({"args": ["x"]}, "command", "neither"),
            ({"type": "websocket", "url": "ws://h"}, "type", "unknown transport"),
            ({"type": 1, "url": "ws://h"}, "type", "string"),
            ({"url": "ftp://h/mcp"}, "url", "http:// or https://"),
            ({"url": "https://a/mcp", "serverUrl": "https://b/mcp"}, "serverUrl", "keep one"),
            ({"command": "x", "envFile": ".env"}, "envFile", "env"),
        ]
        for entry, key, fragment in cases:
            with self.subTest(entry):
                self.assertConfigError(servers(bad=entry), "bad", key, fragment)
        self.assertConfigError(servers(bad="npx srv"), "bad", None, "an object")
        self.assertConfigError({"mcpServers": {"": {"command": "x"}}}, "", None, "name")

    def test_unknown_keys_are_kept_for_the_host(self) -> None:
        entry = one({"command": "x", "autoApprove": ["echo"], "timeout": 30, "era": "legacy"})
        self.assertEqual(dict(entry.extra), {"autoApprove": ["echo"], "timeout": 30})
        self.assertEqual(entry.era, "legacy")

    def test_prefixes_follow_the_llm_name_rules(self) -> None:
        long = "x" * 80
        entries = load_config(servers(**{"my server": {"command": "a"}, "my_server": {
            "command": "b"}, "git.hub": {"command": "c"}, long: {"command": "d"}}))
        prefixes = {e.name: e.prefix for e in entries}
        self.assertEqual(prefixes["my_server"], "my_server")   # already valid: kept
        self.assertTrue(prefixes["my server"].startswith("my_server_"), prefixes)
        self.assertEqual(prefixes["git.hub"], "git_hub")
        self.assertLessEqual(len(prefixes[long]), 64)
        self.assertEqual(len(set(prefixes.values())), 4)
        for prefix in prefixes.values():
            self.assertRegex(prefix, r"^[a-zA-Z0-9_-]{1,64}$")
        again = load_config(servers(**{"my server": {"command": "a"}, "my_server": {
            "command": "b"}, "git.hub": {"command": "c"}, long: {"command": "d"}}))
        self.assertEqual({e.name: e.prefix for e in again}, prefixes)

    def test_config_error_pickles(self) -> None:
        error = ConfigError("bad", server="s", key="args[0]", path="/p", line=3, column=4)
        copy = pickle.loads(pickle.dumps(error))
        self.assertEqual((copy.server, copy.key, copy.path, copy.line, copy.column, str(copy)),
                         ("s", "args[0]", "/p", 3, 4, str(error)))


class FileTest(LeakCheckingTestCase):
    def setUp(self) -> None:
        super().setUp()
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        self.folder = Path(folder.name)

    def write(self, text: str, name: str = "mcp.json") -> str:
        path = self.folder / name
        path.write_text(text, encoding="utf-8")
        return str(path)

    def test_a_syntax_error_has_line_and_column(self) -> None:
        path = self.write('{\n  "mcpServers": {\n    "a": {"command": "x",,}\n  }\n}\n')
        with self.assertRaises(ConfigError) as caught:
            load_config(path)
        error = caught.exception
        self.assertEqual((error.path, error.line, error.column), (path, 3, 27))
        self.assertIn(f"{path}:3:27", str(error))

    def test_comments_and_trailing_commas_of_vs_code_files(self) -> None:
        path = self.write('// servers for this workspace\n{\n  "servers": {\n'
                          '    /* the git one */ "git": {"command": "srv", "args": ["a//b",],},\n'
                          '  },\n}\n')
        entry, = load_config(path)
        self.assertEqual((entry.name, entry.args), ("git", ("a//b",)))
        path = self.write('{"mcpServers": {"a": {"command": "x", "args": ["1", ]]}}}')
        with self.assertRaises(ConfigError) as caught:   # the position is the file's
            load_config(path)
        self.assertEqual((caught.exception.line, caught.exception.column), (1, 54))

    def test_errors_in_a_file_name_the_file_too(self) -> None:
        path = self.write(json.dumps(servers(s={"command": "x", "args": ["${NOPE}"]})))
        with self.assertRaises(ConfigError) as caught:
            load_config(path, environ={})
        self.assertEqual((caught.exception.path, caught.exception.server, caught.exception.key),
                         (path, "s", "args[0]"))
        self.assertTrue(str(caught.exception).startswith(f"{path}, server 's', key 'args[0]'"))

    def test_a_missing_file(self) -> None:
        with self.assertRaises(ConfigError) as caught:
            load_config(self.folder / "nope.json")
        self.assertIn("cannot read", str(caught.exception))
        self.assertIsNone(caught.exception.server)

    def test_a_relative_cwd_is_taken_from_the_files_folder(self) -> None:
        path = self.write('\ufeff' + json.dumps(servers(
            a={"command": "x", "cwd": "work"}, b={"command": "x", "cwd": "~/w"},
            c={"command": "x", "cwd": "/abs"})))
        cwds = [entry.cwd for entry in load_config(Path(path))]
        self.assertEqual(cwds, [str(self.folder.resolve() / "work"),
                                os.path.expanduser("~/w"), "/abs"])


class StandInRegistry:
    """What connect_config needs of a registry, and nothing more."""

    def __init__(self) -> None:
        self.failures: list[ConfigFailure] = []
        self.added: dict[str, Any] = {}
        self.owned: list[Any] = []

    def add(self, provider: Any, *, prefix: str, owned: bool = False,
            include: Any = None, exclude: Any = None) -> Any:
        if prefix in self.added:
            raise MCPClientError(f"prefix {prefix!r} is already registered")
        self.added[prefix] = provider
        if owned:
            self.owned.append(provider)
        return provider

    def close(self) -> None:
        for provider in self.owned:
            provider.close()


class HTTPServer:
    """tests/servers/http_server.py as a child process; ``url`` once it listens."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen([PYTHON, str(SERVERS / "http_server.py")],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True)
        line = self.proc.stdout.readline() if self.proc.stdout else ""
        if not line.startswith("PORT="):
            self.close()
            raise AssertionError(f"the HTTP server did not start: {line!r}")
        self.url = f"http://127.0.0.1:{int(line.strip()[5:])}/mcp"

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()   # the server exits when its stdin ends
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if self.proc.stdout:
            self.proc.stdout.close()


class ConnectTest(LeakCheckingTestCase):
    def connect(self, config: Any, **options: Any) -> StandInRegistry:
        registry = connect_config(config, registry_factory=StandInRegistry, **options)
        self.addCleanup(registry.close)
        return registry

    def test_a_stdio_and_an_http_server_through_registry_from_config(self) -> None:
        from mcp_client.registry import Registry

        http = HTTPServer()
        self.addCleanup(http.close)
        registry = Registry.from_config(servers(
            local={"command": PYTHON, "args": [DUAL]},
            remote={"type": "http", "url": http.url, "headers": {"X-Test": "${T:-1}"}},
            off={"command": "/nonexistent/x", "disabled": True},
            bad={"command": "/nonexistent/x"}))
        self.addCleanup(registry.close)
        self.assertEqual([f.name for f in registry.failures], ["bad"])
        self.assertEqual([p["prefix"] for p in registry.providers], ["local", "remote"])
        names = {t["function"]["name"] for t in registry.tools_for_llm()}
        self.assertLessEqual({"local_echo", "remote_echo", "remote_watched"}, names)
        self.assertNotIn("local_watched", names)   # only the HTTP server has it
        answers = registry.execute_tool_calls([
            {"id": "1", "function": {"name": "local_add", "arguments": {"a": 2, "b": 3}}},
            {"id": "2", "function": {"name": "remote_echo", "arguments": '{"text": "hi"}'}}])
        self.assertEqual([(a["tool_call_id"], a["content"], a["is_error"]) for a in answers],
                         [("1", "5", False), ("2", "hi", False)])
        clients = [p["provider"] for p in registry.providers]
        registry.close()
        self.assertTrue(all(client.closed for client in clients))   # the registry owned them

    def test_expansion_reaches_the_started_server(self) -> None:
        environ = {"SERVERS_DIR": str(HERE), "PY": PYTHON}
        registry = connect_config(
            servers(**{"demo server": {"command": "${PY}", "args": ["servers/dual_stdio.py"],
                                       "cwd": "${SERVERS_DIR}", "era": "legacy",
                                       "env": {"DEMO": "${DEMO:-1}"}}}),
            registry_factory=StandInRegistry, environ=environ)
        self.addCleanup(registry.close)
        self.assertEqual(registry.failures, [])
        client = registry.added["demo_server"]
        self.assertEqual(client.era, "legacy")   # the entry's era
        self.assertEqual(client.call_tool("echo", {"text": "hi"})["content"][0]["text"], "hi")

    def test_a_bad_entry_beside_good_ones(self) -> None:
        # Dies once it has read the first message: a server that dies before that may be
        # reported before its exit status and stderr are in (a race in the stdio transport).
        dying = ["-c", "import sys; sys.stdin.readline(); sys.stderr.write('no API key\\n'); "
                 "sys.exit(7)"]
        config = servers(
            good={"command": PYTHON, "args": [DUAL]},
            missing={"command": "/nonexistent/mcp-server"},
            dies={"command": PYTHON, "args": dying},
            off={"command": "/nonexistent/other", "disabled": True},
            unreachable={"url": "http://127.0.0.1:9/mcp"})
        registry = self.connect(config, probe_timeout=5)
        self.assertEqual(sorted(registry.added), ["good"])
        self.assertEqual([f.name for f in registry.failures], ["missing", "dies", "unreachable"])
        missing, dies, unreachable = (f.error for f in registry.failures)
        self.assertIsInstance(missing, SpawnFailed)
        self.assertIsInstance(dies, ServerGone)
        assert isinstance(dies, ServerGone)
        self.assertEqual(dies.exit_code, 7)
        self.assertIn("no API key", dies.stderr_tail)
        self.assertIsInstance(unreachable, MCPClientError)
        self.assertIn("dies: ServerGone", str(registry.failures[1]))
        self.assertEqual(registry.added["good"].call_tool("echo", {"text": "ok"})["content"],
                         [{"type": "text", "text": "ok"}])

    def test_an_entry_the_loader_cannot_use_fails_alone(self) -> None:
        config = servers(
            odd={"type": "websocket", "url": "ws://h/x"},
            good={"command": PYTHON, "args": [DUAL]},
            unset={"command": "${UNSET_IN_THIS_TEST}"})
        registry = connect_config(config, registry_factory=StandInRegistry, environ={})
        self.addCleanup(registry.close)
        self.assertEqual(sorted(registry.added), ["good"])
        self.assertEqual([f.name for f in registry.failures], ["odd", "unset"])
        odd, unset = (f.error for f in registry.failures)
        assert isinstance(odd, ConfigError) and isinstance(unset, ConfigError)
        self.assertEqual((odd.server, odd.key), ("odd", "type"))
        self.assertIn("UNSET_IN_THIS_TEST", str(unset))

    def test_a_registry_that_refuses_an_entry(self) -> None:
        class Full(StandInRegistry):
            def add(self, provider: Any, *, prefix: str, owned: bool = False,
                    include: Any = None, exclude: Any = None) -> Any:
                self.refused = provider
                raise MCPClientError("no room")

        registry = connect_config(servers(a={"command": PYTHON, "args": [DUAL]}),
                                  registry_factory=Full)
        self.assertEqual(registry.added, {})
        self.assertEqual([(f.name, str(f.error)) for f in registry.failures], [("a", "no room")])
        self.assertTrue(registry.refused.closed)   # the refused client was closed

    def test_options_the_file_supplies_are_refused_before_anything_starts(self) -> None:
        config = servers(a={"command": "/nonexistent/never-started"})
        for option in ("env", "args", "cwd", "headers", "auth", "transport"):
            with self.subTest(option), self.assertRaises(MCPClientError) as caught:
                connect_config(config, registry_factory=StandInRegistry, **{option: None})
            self.assertIn(option, str(caught.exception))
        with self.assertRaises(MCPClientError) as caught:
            connect_config(config, registry_factory=StandInRegistry, on_elicits=print)
        self.assertIn("did you mean on_elicit", str(caught.exception))
        with self.assertRaises(ConfigError):
            connect_config({"mcpServers": 1}, registry_factory=StandInRegistry)

    def test_transport_options_reach_only_their_kind(self) -> None:
        lines: list[str] = []
        connected, failures = connect_entries(
            load_config(servers(a={"command": PYTHON, "args": [
                "-c", "import sys; sys.stderr.write('hello\\n'); sys.exit(2)"]})),
            on_stderr=lines.append, connect_timeout=3.0)
        self.assertEqual(connected, [])
        self.assertEqual([f.name for f in failures], ["a"])
        self.assertIn("hello", lines)
