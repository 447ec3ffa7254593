"""Secrets and the environment: redacted URLs, explicit credentials, what a child inherits.

Every test here states a promise of the form "this secret never shows up there" or "this
credential is never replaced", checked against real HTTP servers on 127.0.0.1 and real child
processes reporting the environment they were given.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import socket
import sys
import tempfile
import textwrap
import traceback
from pathlib import Path
from typing import Any, Iterator
from unittest import mock

from mcp_client import MCPClientError, SpawnFailed, TransportError
from mcp_client._redact import redact_text, redact_url
from mcp_client.config import ConfigError, connect_config, expand, load_config
from mcp_client.http import HTTPTransport
from mcp_client.registry import Registry
from mcp_client.stdio import SAFE_ENV_VARS, StdioTransport, safe_env_vars

from ..base import PYTHON, SERVERS, LeakCheckingTestCase
from ..httpkit import Reply, ScriptedCase, ScriptedServer, Seen, Wire

#: what must never appear: a user name, a password, and query values
SECRETS = ("n4me-of-user", "pa55-w0rd", "t0ken-s3cret", "s3cond-v4lue")
TOOLS = [{"name": "echo", "inputSchema": {"type": "object"}}]


def secret_url(port: int) -> str:
    return (f"http://n4me-of-user:pa55-w0rd@127.0.0.1:{port}/mcp"
            "?token=t0ken-s3cret&other=s3cond-v4lue")


class Records(logging.Handler):
    """Every record any logger emits, at DEBUG and above, rendered as text."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.texts: list[str] = []
        self.setFormatter(logging.Formatter("%(name)s %(levelname)s %(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        self.texts.append(self.format(record))   # with the traceback of exc_info, if any


@contextlib.contextmanager
def every_log_record() -> Iterator[Records]:
    root = logging.getLogger()
    handler = Records()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    try:
        yield handler
    finally:
        root.removeHandler(handler)
        root.setLevel(level)


def dead_port(test: LeakCheckingTestCase) -> int:
    """A port bound on 127.0.0.1 and never listening: connecting is refused."""
    dead = socket.socket()
    dead.bind(("127.0.0.1", 0))
    test.addCleanup(dead.close)
    port: int = dead.getsockname()[1]
    return port


class RedactionHelperTest(LeakCheckingTestCase):
    def test_userinfo_and_query_values_are_hidden_the_rest_kept(self) -> None:
        cases = {
            "https://u:p@h.example:8443/mcp?token=abc&x=1#frag":
                "https://***@h.example:8443/mcp?token=***&x=***#***",
            "https://h.example/mcp": "https://h.example/mcp",
            "https://u@h.example/mcp?bare": "https://***@h.example/mcp?***",
            "http://h/p?a=&b=2": "http://h/p?a=&b=***",
            "http://[::1]:9/p": "http://[::1]:9/p",
        }
        for url, shown in cases.items():
            with self.subTest(url):
                self.assertEqual(redact_url(url), shown)

    def test_urls_inside_text_and_known_query_strings(self) -> None:
        url = "http://u:pw@127.0.0.1:9/mcp?token=abc"
        text = ("cannot reach http://u:pw@127.0.0.1:9/mcp?token=abc: refused; "
                "HTTPConnectionPool: Max retries exceeded with url: /mcp?token=abc")
        shown = redact_text(text, url)
        self.assertNotIn("pw", shown)
        self.assertNotIn("abc", shown)
        self.assertIn("http://***@127.0.0.1:9/mcp?token=***", shown)
        self.assertEqual(redact_text("nothing here", url), "nothing here")


class RedactedHTTPTest(ScriptedCase):
    """No secret of the URL in a log record, repr, exception, failure or tool message."""

    def assertClean(self, *texts: str) -> None:
        for text in texts:
            for secret in SECRETS:
                self.assertNotIn(secret, text)

    def test_a_working_connection_and_a_failing_call(self) -> None:
        def respond(reply: Reply, seen: Seen) -> None:
            if seen.rpc_method == "tools/list":
                reply.result(seen, {"resultType": "complete", "tools": TOOLS})
            elif seen.rpc_method == "tools/call":
                reply.send(307, b"", headers={
                    "Location": "http://elsewhere.invalid/mcp?token=t0ken-s3cret"})
            else:
                ScriptedServer.default(reply, seen)

        srv = self.serve(respond)
        with every_log_record() as records:
            client = self.client(srv, url=secret_url(srv.port), persistent=False)
            registry = Registry()
            self.addCleanup(registry.close)
            registry.add(client, prefix="s")
            self.assertEqual([t["function"]["name"] for t in registry.tools_for_llm()],
                             ["s_echo"])
            with self.assertRaises(TransportError) as caught:
                client.call_tool("echo")
            answers = registry.execute_tool_calls(
                [{"id": "1", "function": {"name": "s_echo", "arguments": "{}"}}])
            texts = [repr(client), repr(client.transport), repr(registry), str(caught.exception),
                     json.dumps(answers)]
            client.close()
        self.assertTrue(srv.seen("tools/list"))
        self.assertIn("127.0.0.1", repr(client.transport))
        self.assertTrue(any("POST /mcp?token=***&other=***" in text for text in records.texts),
                        records.texts)
        self.assertClean(*texts, *records.texts, *self.warnings)

    def test_an_unreachable_server(self) -> None:
        url = secret_url(dead_port(self))
        with every_log_record() as records:
            client = self.client(self.serve(), url=url)
            with self.assertRaises(TransportError) as caught:
                client.list_tools()
            registry = Registry.from_config({"mcpServers": {"s": {"url": url}}})
            self.addCleanup(registry.close)
            self.assertEqual(len(registry.failures), 1)
            texts = [str(caught.exception), repr(caught.exception), str(registry.failures[0]),
                     repr(registry.failures), repr(client),
                     "".join(traceback.format_exception(caught.exception))]
            logging.getLogger("test").exception("logged", exc_info=caught.exception)
            client.close()
        self.assertIn("127.0.0.1", str(caught.exception))
        self.assertClean(*texts, *records.texts, *self.warnings)

    def test_a_tool_message_after_the_server_went_away(self) -> None:
        srv = ScriptedServer(self.on_call(lambda reply, seen: reply.result(
            seen, {"content": [{"type": "text", "text": "ok"}]})))
        client = self.client(srv, url=secret_url(srv.port), persistent=False)
        srv.stop()
        with every_log_record() as records:
            answers = client.execute_tool_calls(
                [{"id": "1", "function": {"name": "echo", "arguments": "{}"}}])
        self.assertTrue(answers[0]["is_error"], answers)
        self.assertIn("127.0.0.1", answers[0]["content"])
        self.assertClean(json.dumps(answers), *records.texts, *self.warnings)

    def test_same_origin_redirects_and_their_log_lines(self) -> None:
        def respond(reply: Reply, seen: Seen) -> None:
            if seen.path.startswith("/mcp?"):
                reply.send(307, b"", headers={"Location": "/moved?token=t0ken-s3cret"})
            else:
                ScriptedServer.default(reply, seen)

        srv = self.serve(respond)
        with every_log_record() as records:
            wire = Wire(self, secret_url(srv.port))
            wire.request(1, "tools/list")
            wire.answer()
            wire.transport.close()
        self.assertEqual([seen.path for seen in srv.requests][-1], "/moved?token=t0ken-s3cret")
        self.assertTrue(any("307" in text for text in records.texts), records.texts)
        self.assertClean(*records.texts, *wire.warnings)

    def test_configuration_entries_show_no_secret(self) -> None:
        entries = load_config({"mcpServers": {
            "web": {"url": secret_url(9), "headers": {"Authorization": "Bearer t0ken-s3cret"}},
            "cli": {"command": "srv", "args": ["--key=pa55-w0rd"],
                    "env": {"API_KEY": "s3cond-v4lue"}}}}, environ={})
        shown = [repr(entry) for entry in entries]
        self.assertIn("http://***@127.0.0.1:9/mcp?token=***&other=***", shown[0])
        self.assertIn("Authorization", shown[0])
        self.assertIn("API_KEY", shown[1])
        self.assertClean(*shown)

    def test_other_urllib3_records_are_left_alone(self) -> None:
        import urllib3

        srv = self.serve()
        with every_log_record() as records, urllib3.PoolManager() as pool:
            pool.request("GET", f"{srv.url}?visible=yes")
        self.assertTrue(any("?visible=yes" in text for text in records.texts), records.texts)

    def test_bad_urls_are_refused_without_their_secrets(self) -> None:
        for url in ("ftp://n4me-of-user:pa55-w0rd@h/mcp?token=t0ken-s3cret",
                    "http://n4me-of-user:pa55-w0rd@h:port/mcp?token=t0ken-s3cret"):
            with self.subTest(url), self.assertRaises(MCPClientError) as caught:
                HTTPTransport(url)
            self.assertClean(str(caught.exception))
        with self.assertRaises(ConfigError) as config:
            load_config({"mcpServers": {"s": {"url": "ftp://n4me-of-user:pa55-w0rd@h/mcp"
                                                     "?token=t0ken-s3cret"}}}, environ={})
        self.assertEqual(config.exception.key, "url")
        self.assertClean(str(config.exception))


class NetrcTest(ScriptedCase):
    """``~/.netrc`` fills in credentials only where none were given."""

    def setUp(self) -> None:
        super().setUp()
        home = tempfile.TemporaryDirectory()
        self.addCleanup(home.cleanup)
        netrc = Path(home.name, ".netrc")
        netrc.write_text("machine 127.0.0.1 login netrc-user password netrc-pass\n")
        netrc.chmod(0o600)
        clean = {k: v for k, v in os.environ.items() if k not in ("NETRC", "HOME")}
        patcher = mock.patch.dict(os.environ, {**clean, "HOME": home.name}, clear=True)
        patcher.start()
        self.addCleanup(patcher.stop)

    def authorizations(self, **options: Any) -> set[str | None]:
        srv = self.serve()
        for persistent in (True, False):
            client = self.client(srv, persistent=persistent, **options)
            client.list_tools()
            client.close()
        return {seen.headers.get("authorization") for seen in srv.requests}

    def test_an_explicit_authorization_header_is_sent_as_given(self) -> None:
        self.assertEqual(self.authorizations(headers={"Authorization": "Bearer explicit"}),
                         {"Bearer explicit"})
        self.assertEqual(self.authorizations(headers={"authorization": "Bearer lower"}),
                         {"Bearer lower"})

    def test_an_explicit_auth_is_used(self) -> None:
        self.assertEqual(self.authorizations(auth=("given", "pw")),
                         {"Basic Z2l2ZW46cHc="})

        def sign(request: Any) -> Any:
            request.headers["Authorization"] = "Bearer signed"
            return request

        self.assertEqual(self.authorizations(auth=sign), {"Bearer signed"})

    def test_netrc_is_used_when_nothing_was_given(self) -> None:
        self.assertEqual(self.authorizations(), {"Basic bmV0cmMtdXNlcjpuZXRyYy1wYXNz"})

    def test_credentials_in_the_url_win_over_netrc(self) -> None:
        srv = self.serve()
        client = self.client(srv, url=f"http://url-user:url-pw@127.0.0.1:{srv.port}/mcp")
        client.list_tools()
        self.assertEqual({seen.headers.get("authorization") for seen in srv.requests},
                         {"Basic dXJsLXVzZXI6dXJsLXB3"})


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
        bad: Any   # deliberately of the wrong types
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

    def test_the_entry_decides_not_an_option(self) -> None:
        config = {"mcpServers": {"s": {"command": "x"}}}
        with self.assertRaises(MCPClientError) as caught:
            connect_config(config, registry_factory=Registry, inherit_env=True)
        self.assertIn("inherit_env", str(caught.exception))
        with self.assertRaises(MCPClientError):
            load_config(config)[0].connect(inherit_env=True)


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
