"""Secrets and the environment: redacted URLs, explicit credentials, what a child inherits.

Every test here states a promise of the form "this secret never shows up there" or "this
credential is never replaced", checked against real HTTP servers on 127.0.0.1 and real child
processes reporting the environment they were given.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import textwrap
from pathlib import Path
from typing import Any
from unittest import mock

from mcp_client import SpawnFailed
from mcp_client.config import ConfigError, connect_config, expand, load_config
from mcp_client.registry import Registry
from mcp_client.stdio import SAFE_ENV_VARS, StdioTransport, safe_env_vars

from .base import PYTHON, SERVERS, LeakCheckingTestCase


def environment_script() -> list[str]:
    """A child that prints the environment it was started with, as one JSON line."""
    body = """
        import json, os
        try:
            raw = open("/proc/self/environ", "rb").read().split(b"\\0")
            env = dict(item.decode().split("=", 1) for item in raw if item)
        except OSError:
            env = dict(os.environ)
        print(json.dumps(env), flush=True)
        import sys; sys.stdin.read()
    """
    return ["-c", textwrap.dedent(body)]


class ChildEnvironmentTest(LeakCheckingTestCase):
    """inherit_env=True | False | "safe", with real children."""

    def setUp(self) -> None:
        super().setUp()
        patcher = mock.patch.dict(os.environ, {"MCP_CLIENT_TEST_SECRET": "k3y",
                                               "TERM": "() { :; }; echo pwned",
                                               "HOME": "/home/someone", "USER": "someone"})
        patcher.start()
        self.addCleanup(patcher.stop)

    def child_env(self, **options: Any) -> dict[str, str]:
        import queue

        lines: queue.Queue[dict[str, Any]] = queue.Queue()
        transport = StdioTransport(PYTHON, args=environment_script(), **options)
        self.addCleanup(transport.close)
        transport.start(lines.put, lambda exc: None, lambda text: None)
        env = lines.get(timeout=10)
        transport.close()
        return env

    def test_safe_is_the_allow_list_plus_the_given_env(self) -> None:
        env = self.child_env(inherit_env="safe", env={"GIVEN": "1", "SHELLFUNC": "() { x; }"})
        self.assertEqual(set(env) - set(SAFE_ENV_VARS), {"GIVEN", "SHELLFUNC"})
        self.assertEqual((env["HOME"], env["USER"], env["GIVEN"], env["SHELLFUNC"]),
                         ("/home/someone", "someone", "1", "() { x; }"))
        self.assertEqual(env.get("PATH"), os.environ.get("PATH"))
        self.assertNotIn("TERM", env)   # an inherited shell function is dropped
        self.assertEqual(set(self.child_env(inherit_env="safe")) - set(SAFE_ENV_VARS), set())

    def test_true_inherits_everything_and_false_nothing(self) -> None:
        env = self.child_env(env={"GIVEN": "1"})
        self.assertEqual((env["MCP_CLIENT_TEST_SECRET"], env["GIVEN"]), ("k3y", "1"))
        self.assertEqual(self.child_env(inherit_env=True)["MCP_CLIENT_TEST_SECRET"], "k3y")
        self.assertEqual(self.child_env(inherit_env=False, env={"GIVEN": "2"}), {"GIVEN": "2"})
        self.assertEqual(self.child_env(inherit_env=False), {})

    def test_a_bad_value_is_refused(self) -> None:
        for bad in ("yes", 1, None, "SAFE"):
            with self.subTest(bad), self.assertRaises(SpawnFailed):
                StdioTransport(PYTHON, inherit_env=bad)

    def test_the_lists_are_the_official_sdks(self) -> None:
        self.assertEqual(safe_env_vars("linux"),
                         ("HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"))
        self.assertEqual(safe_env_vars("darwin"), safe_env_vars("linux"))
        self.assertEqual(safe_env_vars("win32"), (
            "APPDATA", "HOMEDRIVE", "HOMEPATH", "LOCALAPPDATA", "PATH", "PROCESSOR_ARCHITECTURE",
            "SYSTEMDRIVE", "SYSTEMROOT", "TEMP", "USERNAME", "USERPROFILE"))
        self.assertEqual(SAFE_ENV_VARS, safe_env_vars(sys.platform))


class ConfigEnvironmentTest(LeakCheckingTestCase):
    """Servers from an mcpServers file get the safe environment by default."""

    def started_env(self, entry: dict[str, Any]) -> dict[str, str]:
        with tempfile.TemporaryDirectory() as folder:
            out = Path(folder, "env.json")
            dump = ("import json, os, sys\n"
                    "raw = open('/proc/self/environ', 'rb').read().split(b'\\0')\n"
                    "env = dict(i.decode().split('=', 1) for i in raw if i)\n"
                    "open(sys.argv[1], 'w').write(json.dumps(env))\n"
                    "os.execv(sys.executable, [sys.executable, sys.argv[2]])\n")
            config = {"mcpServers": {"s": {"command": PYTHON, "era": "legacy", "args": [
                "-c", dump, str(out), str(SERVERS / "dual_stdio.py")], **entry}}}
            with mock.patch.dict(os.environ, {"MCP_CLIENT_TEST_SECRET": "k3y"}):
                registry = connect_config(config, registry_factory=Registry)
            self.addCleanup(registry.close)
            self.assertEqual(registry.failures, [])
            registry.close()
            env: dict[str, str] = json.loads(out.read_text())
            return env

    def test_a_file_entry_gets_the_allow_list_and_its_env(self) -> None:
        env = self.started_env({"env": {"GIVEN": "1"}})
        self.assertEqual(set(env) - set(SAFE_ENV_VARS), {"GIVEN"})
        self.assertEqual(env.get("PATH"), os.environ.get("PATH"))

    def test_inherit_env_true_inherits(self) -> None:
        env = self.started_env({"inherit_env": True})
        self.assertEqual(env["MCP_CLIENT_TEST_SECRET"], "k3y")

    def test_the_key_is_read_and_checked(self) -> None:
        self.assertEqual(load_config({"mcpServers": {"s": {"command": "x"}}})[0].inherit_env,
                         "safe")
        for value in (True, False, "safe"):
            entry = {"command": "x", "inherit_env": value}
            self.assertEqual(load_config({"mcpServers": {"s": entry}})[0].inherit_env, value)
        for bad in ("yes", 1, None):
            with self.subTest(bad), self.assertRaises(ConfigError) as caught:
                load_config({"mcpServers": {"s": {"command": "x", "inherit_env": bad}}})
            self.assertEqual(caught.exception.key, "inherit_env")
        with self.assertRaises(ConfigError) as caught:
            load_config({"mcpServers": {"s": {"url": "http://h/mcp", "inherit_env": True}}})
        self.assertEqual(caught.exception.key, "inherit_env")


class NestedDefaultTest(LeakCheckingTestCase):
    """``${A:-${B}}`` is expanded, or refused naming the key, never kept half-read."""

    ENV = {"B": "bee", "EMPTY": "", "SECRET": "hunter2-value"}

    def test_nested_defaults_are_expanded(self) -> None:
        cases = {
            "${A:-${B}}": "bee", "${B:-${A}}": "bee", "${A:-${EMPTY:-${B}}}": "bee",
            "x${A:-pre-${B}-post}y": "xpre-bee-posty", "${A:-${C:-lit}}": "lit",
            "${A:-$${B}}": "${B}", "${A:-{}}": "{}", "${A:-a}b}": "ab}",
            "${env:A:-${env:B}}": "bee",
        }
        for text, expanded in cases.items():
            with self.subTest(text):
                self.assertEqual(expand(text, self.ENV), expanded)

    def test_an_unset_inner_variable_is_an_error_only_when_needed(self) -> None:
        with self.assertRaises(ConfigError) as caught:
            expand("${A:-${C}}", self.ENV, key="args[0]")
        self.assertIn("C is not set", str(caught.exception))
        self.assertEqual(expand("${B:-${C}}", self.ENV), "bee")

    def test_malformed_nesting_names_the_key_and_echoes_no_value(self) -> None:
        for text in ("${A:-${B}", "Bearer hunter2-value ${A:-${B}", "${A:-${B:-${",
                     "${SECRET:-${B}", "${A:-" + "${A:-" * 20 + "x" + "}" * 21):
            config = {"mcpServers": {"s": {"command": "x", "env": {"TOKEN": text}}}}
            with self.subTest(text), self.assertRaises(ConfigError) as caught:
                load_config(config, environ=self.ENV)
            self.assertEqual((caught.exception.server, caught.exception.key), ("s", "env.TOKEN"))
            self.assertNotIn("hunter2", str(caught.exception))

    def test_disabled_entries_keep_malformed_text(self) -> None:
        self.assertEqual(expand("${A:-${B}", self.ENV, strict=False), "${A:-${B}")
        self.assertEqual(expand("${A:-${C}}", {}, strict=False), "${A:-${C}}")
