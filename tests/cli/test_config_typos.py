"""Typos in an ``mcpServers`` entry are named, with the file and the entry, and exit 2.

A key that is not one this client reads is kept for the host (``autoApprove``,
``timeout``...), unless it is one typing slip away from a key it reads
(``ulr``, ``comand``, ``Args``, ``inheritEnv``): then the entry is refused with
a "did you mean".  See :mod:`mcp_client.config`.
"""

from __future__ import annotations

import io
import json
import tempfile
from pathlib import Path
from typing import Any

from mcp_client.cli import main
from mcp_client.config import ConfigError, load_config

from ..base import LeakCheckingTestCase
from ..tables import add_rows


def servers(**entries: Any) -> dict[str, Any]:
    return {"mcpServers": entries}


class EntryCase(LeakCheckingTestCase):
    def setUp(self) -> None:
        super().setUp()
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        self.file = Path(folder.name) / "mcp.json"

    def load(self, entry: dict[str, Any]) -> Any:
        self.file.write_text(json.dumps(servers(a=entry)))
        return load_config(self.file, environ={})

    def refused(self, entry: dict[str, Any]) -> ConfigError:
        with self.assertRaises(ConfigError) as caught:
            self.load(entry)
        error = caught.exception
        self.assertEqual((error.server, error.path), ("a", str(self.file)), str(error))
        self.assertIn(str(self.file), str(error))
        self.assertIn("server 'a'", str(error))
        return error

    def run_cli(self, entry: dict[str, Any], *extra: str) -> tuple[int, str]:
        self.file.write_text(json.dumps(servers(a=entry)))
        stdout, stderr = io.StringIO(), io.StringIO()
        code = main(["tools", "--config", str(self.file), *extra], stdin=io.StringIO(),
                    stdout=stdout, stderr=stderr)
        return code, stderr.getvalue()


class TypoTest(EntryCase):
    """One generated test per row below."""


def _typo(self: TypoTest, label: str, entry: dict[str, Any], key: str, meant: str) -> None:
    error = self.refused(entry)
    self.assertEqual(error.key, key, str(error))
    self.assertIn(f"did you mean {meant!r}?", str(error))


add_rows(TypoTest, "typo", [
    ("ulr on an http entry", {"type": "http", "ulr": "http://127.0.0.1:1/mcp"}, "ulr", "url"),
    ("ulr with no type", {"ulr": "http://127.0.0.1:1/mcp"}, "ulr", "url"),
    ("comand", {"comand": "echo"}, "comand", "command"),
    ("comand on a stdio entry", {"type": "stdio", "comand": "echo"}, "comand", "command"),
    ("commnad transposed", {"commnad": "echo"}, "commnad", "command"),
    ("Command capitalised", {"Command": "echo"}, "Command", "command"),
    ("URL in capitals", {"URL": "http://127.0.0.1:1/mcp"}, "URL", "url"),
    ("serverURL", {"serverURL": "http://127.0.0.1:1/mcp"}, "serverURL", "serverUrl"),
    ("arg beside a command", {"command": "echo", "arg": ["x"]}, "arg", "args"),
    ("Args beside a command", {"command": "echo", "Args": ["x"]}, "Args", "args"),
    ("evn beside a command", {"command": "echo", "evn": {"A": "1"}}, "evn", "env"),
    ("envs beside a command", {"command": "echo", "envs": {"A": "1"}}, "envs", "env"),
    ("inheritEnv", {"command": "echo", "inheritEnv": True}, "inheritEnv", "inherit_env"),
    ("header on an http entry", {"url": "http://127.0.0.1:1/mcp", "header": {"A": "b"}},
     "header", "headers"),
    ("restrat", {"command": "echo", "restrat": "never"}, "restrat", "restart"),
    ("dsiabled", {"command": "echo", "dsiabled": True}, "dsiabled", "disabled"),
    ("tool", {"command": "echo", "tool": {"include": ["a"]}}, "tool", "tools"),
    ("cmd names command, not cwd", {"cmd": "echo"}, "cmd", "command"),
    ("arguments", {"command": "echo", "arguments": ["x"]}, "arguments", "args"),
    ("environment", {"command": "echo", "environment": {"A": "1"}}, "environment", "env"),
    ("httpUrl", {"httpUrl": "http://127.0.0.1:1/mcp"}, "httpUrl", "url"),
], _typo)


def _kept(self: TypoTest, label: str, key: str) -> None:
    value = {"x": 1}
    entry, = self.load({"command": "echo", key: value})
    self.assertEqual(dict(entry.extra), {key: value})


add_rows(TypoTest, "host_key_kept", [
    ("autoApprove", "autoApprove"), ("alwaysAllow", "alwaysAllow"), ("timeout", "timeout"),
    ("description", "description"), ("enabled", "enabled"), ("trust", "trust"),
    ("includeTools", "includeTools"), ("excludeTools", "excludeTools"),
    ("disabledTools", "disabledTools"), ("transportType", "transportType"),
    ("networkTimeout", "networkTimeout"), ("name", "name"), ("id", "id"),
    ("startup_timeout_sec", "startup_timeout_sec"), ("http_headers", "http_headers"),
    ("oauthScopes", "oauthScopes"), ("autoStart", "autoStart"), ("dev", "dev"),
], _kept)


class MessagesTest(EntryCase):
    def test_a_missing_url_says_missing_not_null(self) -> None:
        error = self.refused({"type": "http"})
        self.assertEqual(error.key, "url")
        self.assertNotIn("null", str(error))
        self.assertIn("missing", str(error))

    def test_a_missing_command_says_missing_not_null(self) -> None:
        error = self.refused({"type": "stdio"})
        self.assertEqual(error.key, "command")
        self.assertNotIn("null", str(error))
        self.assertIn("missing", str(error))

    def test_a_bad_restart_is_refused_when_read_with_the_file_named(self) -> None:
        error = self.refused({"command": "echo", "restart": "always"})
        self.assertEqual(error.key, "restart")
        self.assertIn("\"on-failure\"", str(error))

    def test_a_good_restart_stays_where_connect_reads_it(self) -> None:
        entry, = self.load({"command": "echo", "restart": "never"})
        self.assertEqual(entry.extra["restart"], "never")

    def test_a_disabled_entry_with_a_typo_is_still_no_error(self) -> None:
        entry, = self.load({"comand": "echo", "disabled": True})
        self.assertTrue(entry.disabled)
        self.assertEqual(dict(entry.extra), {"comand": "echo"})


def _cli(self: TypoTest, label: str, entry: dict[str, Any], fragment: str) -> None:
    for extra in ((), ("--server", "a")):
        with self.subTest(extra=extra):
            code, err = self.run_cli(entry, *extra)
            self.assertEqual(code, 2, err)
            self.assertIn(str(self.file), err)
            self.assertIn("server 'a'", err)
            self.assertIn(fragment, err)


add_rows(TypoTest, "cli_exit", [
    ("ulr", {"type": "http", "ulr": "http://127.0.0.1:1/mcp"}, "did you mean 'url'?"),
    ("comand", {"comand": "echo"}, "did you mean 'command'?"),
    ("restart always", {"command": "echo", "restart": "always"}, "on-failure"),
], _cli)


class ExitCodeTest(LeakCheckingTestCase):
    def test_a_config_error_is_a_usage_error(self) -> None:
        from mcp_client.cli._exits import EXIT_USAGE, exit_code_for

        self.assertEqual(exit_code_for(ConfigError("x", server="a", key="restart")), EXIT_USAGE)
