"""``python -m mcp_client`` against real servers, run as a subprocess (and through a pty)."""

from __future__ import annotations

import contextlib
import io
import json
import os
import select
import shlex
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any, NamedTuple

from mcp_client.cli import _output as out
from mcp_client.cli._terminal import Form
from mcp_client.cli import main

from ..base import HERE, PYTHON, SERVERS, LeakCheckingTestCase
from .test_config import HTTPServer

ROOT = HERE.parent
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
DUAL = str(SERVERS / "dual_stdio.py")
STDIO = f"{shlex.quote(PYTHON)} {shlex.quote(DUAL)}"
DYING = f"{shlex.quote(PYTHON)} -c " + shlex.quote(
    "import sys; sys.stderr.write('missing API key\\n'); sys.exit(1)")
#: The demo server, after a line on stderr that has nothing to do with any failure.
CHATTY = f"{shlex.quote(PYTHON)} -c " + shlex.quote(
    "import runpy, sys; sys.stderr.write('booting the demo\\n'); sys.stderr.flush(); "
    f"sys.argv = [{DUAL!r}]; runpy.run_path({DUAL!r}, run_name='__main__')")
#: Seconds one command line may take, server start included.
BUDGET = 60


class Outcome(NamedTuple):
    code: int
    out: str
    err: str


def argv(*args: str) -> list[str]:
    return [PYTHON, "-m", "mcp_client", *args]


def run_many(runs: dict[str, list[str]], env: dict[str, str] | None = None) -> dict[str, Outcome]:
    """Run several command lines at once (stdin not a terminal); their outcomes by key."""
    procs = {key: subprocess.Popen(argv(*args), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True, env=env or ENV, cwd=ROOT)
             for key, args in runs.items()}
    outcomes = {}
    for key, proc in procs.items():
        stdout, stderr = proc.communicate(timeout=BUDGET)
        outcomes[key] = Outcome(proc.returncode, stdout, stderr)
    return outcomes


class CLITestCase(LeakCheckingTestCase):
    def check(self, outcome: Outcome, code: int, *, out: str | None = None,
              err: tuple[str, ...] = ()) -> None:
        self.assertEqual(outcome.code, code, outcome)
        self.assertNotIn("Traceback", outcome.err)
        if out is not None:
            self.assertEqual(outcome.out, out)
        for fragment in err:
            self.assertIn(fragment, outcome.err)


class VerbsTest(CLITestCase):
    """Every verb, for people and with --json; the command lines run once, in parallel."""

    outcomes: dict[str, Outcome]

    @classmethod
    def setUpClass(cls) -> None:
        super().setUpClass()
        # Over stdio, each command line starts its own server (about a second of imports);
        # the --json runs and the exit-code runs share one HTTP server when there is one.
        http = HTTPServer()
        cls.addClassCleanup(http.close)
        shared = ["--http", http.url, "--header", "X-Test: 1"]
        verbs = {"info": ["info"], "tools": ["tools"], "resources": ["resources"],
                 "templates": ["templates"], "prompts": ["prompts"], "call": ["call", "image"],
                 "read": ["read", "res://readme"],
                 "prompt": ["prompt", "review", '{"code": "x = 1"}']}
        runs = {key: [*args, "--stdio", STDIO] for key, args in verbs.items()}
        for key in ("info", "tools", "prompts", "read", "prompt"):
            runs[f"{key}-json"] = ["--json", *verbs[key], *shared]
        runs.update({
            "call-json": ["call", "echo", '{"text": "hi there"}', *shared, "--json"],
            "is-error": ["call", "fail", *shared],
            "protocol": ["read", "res://nope", *shared],
            "timeout": ["call", "slow", '{"seconds": 30}', "--timeout", "0.5", *shared],
            "declined": ["call", "greet", *shared],
            "logs": ["call", "chatty", "--log-level", "info", *shared],
            "dies": ["call", "die", '{"code": 3}', "--stdio", STDIO],
            "cannot-start": ["tools", "--stdio", "/nonexistent/mcp-server --flag"],
            "dies-at-start": ["tools", "--stdio", DYING],
            "protocol-json": ["read", "res://nope", *shared, "--json"],
            "protocol-chatty": ["read", "res://nope", "--stdio", CHATTY],
            "timeout-json": ["call", "slow", '{"seconds": 30}', "--timeout", "0.5", *shared,
                             "--json"],
            "dies-json": ["--json", "call", "die", '{"code": 3}', "--stdio", STDIO],
            "cannot-start-json": ["tools", "--json", "--stdio", "/nonexistent/mcp-server -x"],
        })
        cls.outcomes = run_many(runs)

    def test_info(self) -> None:
        self.check(self.outcomes["info"], 0, out=(
            "server:        demo-server 0.1.0\n"
            "era:           modern (protocol 2026-07-28)\n"
            "versions:      2026-07-28\n"
            "capabilities:  prompts, resources, tools\n"
            "instructions:  Demo server for protocol tests.\n"))
        info = json.loads(self.outcomes["info-json"].out)
        self.assertEqual(info["serverInfo"], {"name": "demo-server", "version": "0.1.0"})
        self.assertEqual((info["era"], info["protocolVersion"], info["supportedVersions"]),
                         ("modern", "2026-07-28", ["2026-07-28"]))
        self.assertEqual(sorted(info["capabilities"]), ["prompts", "resources", "tools"])
        self.assertEqual(info["instructions"], "Demo server for protocol tests.")

    def test_tools(self) -> None:
        outcome = self.outcomes["tools"]
        self.check(outcome, 0)
        lines = outcome.out.splitlines()
        self.assertEqual(lines[0].split(), ["NAME", "HINTS", "ARGUMENTS", "DESCRIPTION"])
        rows = {line.split()[0]: line for line in lines[1:] if line}
        self.assertEqual(rows["echo"].split()[:4], ["echo", "r-i-", "text", "Echo"])
        self.assertEqual(rows["add"].split()[:4], ["add", "....", "a,", "b"])
        self.assertEqual(rows["region_query"].split()[1], "r.i.")
        self.assertIn("code?, message?", rows["die"])
        self.assertEqual(lines[-1], out.HINTS_LEGEND)
        tools = json.loads(self.outcomes["tools-json"].out)
        self.assertLessEqual(set(rows) - {"hints:"}, {tool["name"] for tool in tools})
        echo = next(tool for tool in tools if tool["name"] == "echo")
        self.assertTrue(echo["annotations"]["readOnlyHint"])

    def test_resources_templates_prompts(self) -> None:
        self.check(self.outcomes["resources"], 0, out=(
            "URI           NAME    MIME TYPE   DESCRIPTION\n"
            "res://readme  readme  text/plain\n"))
        self.check(self.outcomes["templates"], 0, out="no resource templates\n")
        self.check(self.outcomes["prompts"], 0, out=(
            "NAME    ARGUMENTS  DESCRIPTION\n"
            "review  code       Code review prompt.\n"))
        prompts = json.loads(self.outcomes["prompts-json"].out)
        self.assertEqual(prompts[0]["arguments"], [{"name": "code", "required": True}])

    def test_call(self) -> None:
        self.check(self.outcomes["call"], 0, out="[image: image/png, 67 bytes]\n")
        self.assertEqual(self.outcomes["call"].err, "")
        self.check(self.outcomes["call-json"], 0)
        result = json.loads(self.outcomes["call-json"].out)
        self.assertEqual(result["content"], [{"type": "text", "text": "hi there"}])
        self.assertEqual(result["structuredContent"], {"result": "hi there"})

    def test_read_and_prompt(self) -> None:
        self.check(self.outcomes["read"], 0, out="# Demo\nhello\n")
        read = json.loads(self.outcomes["read-json"].out)
        self.assertEqual(read["contents"][0]["text"], "# Demo\nhello")
        self.check(self.outcomes["prompt"], 0, out=(
            "# Code review prompt.\n[user]\nPlease review:\nx = 1\n"))
        prompt = json.loads(self.outcomes["prompt-json"].out)
        self.assertEqual(prompt["messages"][0]["content"]["text"], "Please review:\nx = 1")

    def test_a_tool_that_reports_is_error(self) -> None:
        self.check(self.outcomes["is-error"], 1, out="Error executing tool fail: failed: because\n",
                   err=("the tool reported an error (isError)",))

    def test_a_protocol_error(self) -> None:
        self.check(self.outcomes["protocol"], 3, out="",
                   err=("error: ProtocolError: resources/read on demo-server: "
                        "Unknown resource: res://nope (code -32602)",))

    def test_a_protocol_error_gets_no_stderr_tail(self) -> None:
        outcome = self.outcomes["protocol-chatty"]
        self.check(outcome, 3, out="", err=("error: ProtocolError: resources/read on "
                                            "demo-server: Unknown resource",))
        self.assertNotIn("server stderr", outcome.err)
        self.assertNotIn("booting the demo", outcome.err)

    def error_json(self, key: str, code: int) -> dict[str, Any]:
        """The one JSON object a failing ``--json`` run printed on stdout."""
        outcome = self.outcomes[key]
        self.check(outcome, code)
        self.assertEqual(outcome.err, "")
        document = json.loads(outcome.out)
        self.assertEqual(list(document), ["error"])
        error: dict[str, Any] = document["error"]
        return error

    def test_errors_are_json_with_json(self) -> None:
        self.assertEqual(self.error_json("protocol-json", 3), {
            "type": "ProtocolError",
            "message": "Unknown resource: res://nope (code -32602); data: {'uri': 'res://nope'}",
            "server": "demo-server", "method": "resources/read", "code": -32602,
            "data": {"uri": "res://nope"}})
        self.assertEqual(self.error_json("timeout-json", 4), {
            "type": "Timeout", "message": "tools/call timed out after 0.5s",
            "server": "demo-server", "method": "tools/call", "seconds": 0.5})
        died = self.error_json("dies-json", 4)
        self.assertEqual((died["type"], died["server"], died["method"], died["exit_code"]),
                         ("ServerGone", "demo-server", "tools/call", 3))
        self.assertEqual(died["message"], "the server exited (exit code 3)")
        self.assertIn("fatal: out of cheese", died["stderr_tail"])
        self.assertEqual(self.error_json("cannot-start-json", 4), {
            "type": "SpawnFailed", "server": "mcp-server",
            "message": "cannot start '/nonexistent/mcp-server': No such file or directory",
            "command": "/nonexistent/mcp-server", "reason": "No such file or directory"})

    def test_connection_failures(self) -> None:
        self.check(self.outcomes["cannot-start"], 4, out="", err=(
            "error: SpawnFailed: mcp-server: cannot start '/nonexistent/mcp-server': "
            "No such file or directory",))
        self.check(self.outcomes["timeout"], 4, out="",
                   err=("error: Timeout: demo-server: tools/call timed out after 0.5s",))

    def test_a_server_that_dies_shows_its_stderr(self) -> None:
        self.check(self.outcomes["dies"], 4, out="", err=(
            "error: ServerGone: tools/call on demo-server: the server exited (exit code 3)\n"
            "--- server stderr ---\nfatal: out of cheese\n",))
        self.check(self.outcomes["dies-at-start"], 4, out="", err=(
            "(exit code 1)\n--- server stderr ---\nmissing API key\n",))

    def test_elicitation_is_declined_without_a_terminal(self) -> None:
        outcome = self.outcomes["declined"]
        self.check(outcome, 1, err=("the server asked 'What is your name?'; declined "
                                    "(stdin is not a terminal)",))
        self.assertIn("decline", outcome.out)

    def test_log_level(self) -> None:
        outcome = self.outcomes["logs"]
        self.check(outcome, 0, out="done\n", err=(
            "mcp-client: [server info] info from chatty\n",
            "mcp-client: [server warning] warning from chatty\n"))
        self.assertNotIn("debug from chatty", outcome.err)


class UsageTest(CLITestCase):
    """Usage errors start nothing, so they run in this process."""

    def run_main(self, *args: str) -> Outcome:
        stdout, stderr = io.StringIO(), io.StringIO()
        with contextlib.redirect_stderr(stderr):   # argparse writes to sys.stderr itself
            code = main(list(args), stdin=io.StringIO(), stdout=stdout, stderr=stderr)
        return Outcome(code, stdout.getvalue(), stderr.getvalue())

    def test_usage_errors(self) -> None:
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        config = Path(folder.name) / "mcp.json"
        config.write_text(json.dumps({"mcpServers": {
            "demo": {"command": "${UNSET_IN_THIS_TEST}", "args": [DUAL]},
            "off": {"command": "x", "disabled": True},
            "broken": {"type": "websocket", "url": "http://h/ws"}}}))
        bad = Path(folder.name) / "bad.json"
        bad.write_text('{"mcpServers": {\n  "a": {"command": }\n}}')
        runs = {
            "no server": (["tools"], "say which server"),
            "two servers": (["tools", "--stdio", "x", "--http", "http://h/mcp"],
                            "cannot be used together"),
            "bad json": (["call", "echo", "{text}", "--stdio", "/nonexistent/never"],
                         "the arguments are not JSON"),
            "not an object": (["call", "echo", "[1]", "--stdio", "/nonexistent/never"],
                              "must be a JSON object"),
            "header": (["tools", "--stdio", "x", "--header", "A: b"],
                       "--header goes with --http or --sse"),
            "bad header": (["tools", "--http", "http://h/mcp", "--header", "nocolon"],
                           "NAME:VALUE"),
            "era": (["tools", "--stdio", "x", "--era", "newest"], "--era must be"),
            "timeout": (["tools", "--stdio", "x", "--timeout", "-1"], "--timeout must be"),
            "empty stdio": (["tools", "--stdio", "  "], "--stdio needs a command"),
            "quotes": (["tools", "--stdio", "srv 'unclosed"], "--stdio: No closing quotation"),
            "unknown verb": (["list", "--stdio", "x"], "invalid choice"),
            "missing uri": (["read", "--stdio", "x"], "the following arguments are required"),
            "disabled": (["tools", "--config", str(config), "--server", "off"], "is disabled"),
            "unknown": (["tools", "--config", str(config), "--server", "dem"],
                        "did you mean demo?"),
            "several": (["tools", "--config", str(config)], "needs --server NAME"),
            "bad entry": (["tools", "--config", str(config), "--server", "broken"],
                          "server 'broken', key 'type'"),
            "unset": (["tools", "--config", str(config), "--server", "demo"],
                      "UNSET_IN_THIS_TEST is not set"),
            "bad file": (["tools", "--config", str(bad), "--server", "a"],
                         f"{bad}:2:20: not valid JSON"),
        }
        for key, (args, fragment) in runs.items():
            with self.subTest(key):
                self.check(self.run_main(*args), 2, out="", err=(fragment,))

    def test_usage_errors_are_json_with_json(self) -> None:
        runs = {"ours": (["tools", "--json"], "say which server"),
                "argparse's": (["list", "--stdio", "x", "--json"], "invalid choice: 'list'"),
                "arguments": (["--json", "call", "echo", "[1]", "--stdio", "/nonexistent/x"],
                              "must be a JSON object")}
        for key, (args, fragment) in runs.items():
            with self.subTest(key):
                outcome = self.run_main(*args)
                self.assertEqual((outcome.code, outcome.err), (2, ""))
                error = json.loads(outcome.out)["error"]
                self.assertEqual(error["type"], "UsageError")
                self.assertIn(fragment, error["message"])

    def test_help_and_version(self) -> None:
        stdout = io.StringIO()
        with contextlib.redirect_stdout(stdout):
            self.assertEqual(main(["--version"]), 0)
            self.assertEqual(main(["call", "--help"]), 0)
        self.assertIn("mcp-client ", stdout.getvalue())
        self.assertIn("--stdio COMMAND", stdout.getvalue())


class ConfigTest(CLITestCase):
    def test_a_server_from_a_configuration_file(self) -> None:
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        config = Path(folder.name) / "mcp.json"
        config.write_text(json.dumps({"mcpServers": {
            "demo": {"command": "${PY}", "args": ["${SERVERS}/dual_stdio.py"], "era": "legacy"},
            "off": {"command": "/nonexistent", "disabled": True}}}))
        env = {**ENV, "PY": PYTHON, "SERVERS": str(SERVERS)}
        runs = {"named": ["info", "--config", str(config), "--server", "demo"],
                "only": ["info", "--config", str(config), "--era", "auto"]}
        outcomes = run_many(runs, env)
        self.check(outcomes["named"], 0, err=())
        self.assertIn("era:           legacy (protocol 2025-11-25)", outcomes["named"].out)
        self.check(outcomes["only"], 0)   # the only enabled server, and --era wins
        self.assertIn("era:           modern", outcomes["only"].out)


class Terminal:
    """The command line with its stdin and stderr on a pseudo-terminal, stdout on a pipe."""

    def __init__(self, *args: str) -> None:
        master, slave = os.openpty()
        self.proc = subprocess.Popen(argv(*args), stdin=slave, stderr=slave,
                                     stdout=subprocess.PIPE, env=ENV, cwd=ROOT)
        os.close(slave)
        self.master = master
        self.seen = b""
        self.pos = 0

    def _read(self, timeout: float) -> bool:
        ready, _, _ = select.select([self.master], [], [], timeout)
        if not ready:
            return True
        try:
            chunk = os.read(self.master, 4096)
        except OSError:   # EIO: every slave end is closed
            return False
        self.seen += chunk
        return bool(chunk)

    def expect(self, text: str) -> None:
        deadline = time.monotonic() + BUDGET
        wanted = text.encode()
        while wanted not in self.seen[self.pos:]:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not self._read(remaining):
                raise AssertionError(f"never saw {text!r} in {self.seen.decode()!r}")
        self.pos = self.seen.index(wanted, self.pos) + len(wanted)

    def send(self, text: str) -> None:
        os.write(self.master, text.encode())

    def finish(self) -> tuple[int, str, str]:
        """(exit code, stdout, everything the terminal showed)."""
        deadline = time.monotonic() + BUDGET
        while time.monotonic() < deadline and self._read(deadline - time.monotonic()):
            pass
        assert self.proc.stdout is not None
        stdout = self.proc.stdout.read().decode()
        self.proc.stdout.close()
        code = self.proc.wait(BUDGET)
        os.close(self.master)
        return code, stdout, self.seen.decode()


class TerminalTest(CLITestCase):
    def test_an_elicitation_answered_on_a_terminal(self) -> None:
        term = Terminal("call", "greet", "--stdio", STDIO)
        term.expect("The server asks: What is your name?")
        term.expect("Name (required): ")
        term.send("\n")
        term.expect("a value is required")
        term.expect("Name (required): ")
        term.send("Ada\n")
        code, stdout, shown = term.finish()
        self.assertEqual((code, stdout), (0, "Hello, Ada!\n"), shown)
        self.assertNotIn("Traceback", shown)

    def test_ctrl_d_declines_in_the_legacy_era_too(self) -> None:
        term = Terminal("call", "greet", "--stdio", STDIO, "--era", "legacy")
        term.expect("Name (required): ")
        term.send("\x04")
        code, stdout, shown = term.finish()
        self.assertEqual(code, 1, shown)
        self.assertIn("decline", stdout)
        self.assertIn("declined", shown)

    def test_a_boolean_field_is_validated(self) -> None:
        term = Terminal("call", "confirm", '{"action": "deploy"}', "--stdio", STDIO)
        term.expect("The server asks: Really deploy?")
        term.expect("Proceed [y/n] (required): ")
        term.send("maybe\n")
        term.expect("answer y or n")
        term.send("yes\n")
        code, stdout, shown = term.finish()
        self.assertEqual(code, 0, shown)
        self.assertEqual(stdout, "state='pending:deploy' action=accept content={'ok': True}\n")

    def test_a_progress_bar_on_the_terminal(self) -> None:
        term = Terminal("call", "count", '{"n": 3}', "--stdio", STDIO)
        term.expect("1/3 step 1/3")
        term.expect("3/3 step 3/3")
        code, stdout, shown = term.finish()
        self.assertEqual((code, stdout), (0, "counted to 3\n"), shown)
        self.assertIn("\r\x1b[K[########################] 3/3 step 3/3", shown)
        self.assertTrue(shown.endswith("\r\x1b[K"), repr(shown[-40:]))


class FormTest(LeakCheckingTestCase):
    """The form itself, in this process, on scripted input."""

    def ask(self, schema: dict[str, Any], answers: str,
            mode: str = "form") -> tuple[dict[str, Any], str]:
        shown = io.StringIO()
        form = Form(io.StringIO(answers), shown)
        result = form({"method": "elicitation/create", "params": {
            "message": "Tell me", "mode": mode, "requestedSchema": schema}})
        return result, shown.getvalue()

    def test_every_field_type(self) -> None:
        schema = {"type": "object", "required": ["color", "count", "ok"], "properties": {
            "color": {"type": "string", "enum": ["red", "green"], "enumNames": ["Red", "Green"]},
            "size": {"type": "string", "oneOf": [{"const": "s", "title": "Small"},
                                                 {"const": "l", "title": "Large"}]},
            "count": {"type": "integer", "minimum": 1, "maximum": 5},
            "ratio": {"type": "number", "default": 0.5},
            "ok": {"type": "boolean"},
            "tags": {"type": "array", "items": {"enum": ["a", "b", "c"]}},
            "email": {"type": "string", "format": "email", "description": "where to write"},
            "note": {"type": "string", "maxLength": 3},
        }}
        answers = "3\n2\nLarge\nten\n9\n4\n\nno\n1, c\nnot-an-email\nada@example.com\n\n"
        result, shown = self.ask(schema, answers)
        self.assertEqual(result, {"action": "accept", "content": {
            "color": "green", "size": "l", "count": 4, "ratio": 0.5, "ok": False,
            "tags": ["a", "c"], "email": "ada@example.com"}})
        self.assertIn("choose a number from 1 to 2", shown)
        self.assertIn("not an integer", shown)
        self.assertIn("9 is greater than the maximum of 5", shown)
        self.assertIn("is not a 'email'", shown)
        self.assertIn("1. Red (red)", shown)
        self.assertIn("ratio (number) [default: 0.5]: ", shown)
        self.assertIn("email: where to write", shown)

    def test_end_of_input_declines(self) -> None:
        schema = {"type": "object", "properties": {"name": {"type": "string"}},
                  "required": ["name"]}
        self.assertEqual(self.ask(schema, "")[0], {"action": "decline"})
        self.assertEqual(self.ask(schema, "\n")[0], {"action": "decline"})   # required, then EOF
        self.assertEqual(self.ask(schema, "x", mode="url")[0], {"action": "decline"})


class OutputTest(LeakCheckingTestCase):
    def test_the_last_column_is_cut_to_the_width(self) -> None:
        text = out.table(["A", "B"], [["x", "a long description here"]], width=12)
        self.assertEqual(text.splitlines(), ["A  B", "x  a long..."])

    def test_results_name_binary_payloads(self) -> None:
        self.assertEqual(out.contents_text({"contents": [
            {"uri": "a://1", "text": "one"},
            {"uri": "a://2", "mimeType": "image/png", "blob": "AAAA"}]}),
            "[resource: a://1]\none\n[blob: a://2, image/png, 3 bytes]")
        self.assertEqual(out.result_text({"content": [], "structuredContent": {"n": 1}}),
                         '{\n  "n": 1\n}')

    def test_a_server_is_named_by_its_program_and_never_its_other_arguments(self) -> None:
        cases = {("/usr/bin/mcp-server-git", "--repository", "/srv/p"): "mcp-server-git",
                 ("python3", "-m", "srv.main", "--token", "s3cret"): "python3 srv.main",
                 ("npx", "-y", "@scope/server", "s3cret"): "npx @scope/server",
                 ("python", "-c", "import srv"): "python",
                 ("uvx",): "uvx"}
        for argv, label in cases.items():
            with self.subTest(argv=argv):
                self.assertEqual(out.program_label(argv), label)
