"""``--trace``: the wire on stderr, ``>>`` out and ``<<`` in, for every verb and transport."""

from __future__ import annotations

import io
import json
import logging

from mcp_client._log import WIRE_LOGGER
from mcp_client.cli import main

from ..base import LeakCheckingTestCase
from .test_cli import STDIO, CLITestCase, Outcome, run_many
from .test_config import HTTPServer

#: a bearer token and a URL's password and query value: never on stderr
SECRETS = ("b3arer-t0ken", "pa55-w0rd", "t0ken-s3cret")


def trace_lines(outcome: Outcome) -> list[str]:
    return [line for line in outcome.err.splitlines() if line[:3] in (">> ", "<< ")]


class TraceTest(CLITestCase):
    outcomes: dict[str, Outcome]

    @classmethod
    def setUpClass(cls) -> None:
        super().setUpClass()
        http = HTTPServer()
        cls.addClassCleanup(http.close)
        secret_url = http.url.replace("127.0.0.1", "ada:pa55-w0rd@127.0.0.1") + \
            "?token=t0ken-s3cret"
        shared = ["--http", secret_url, "--header", "Authorization: Bearer b3arer-t0ken"]
        verbs = {"info": ["info"], "tools": ["tools"], "resources": ["resources"],
                 "templates": ["templates"], "prompts": ["prompts"],
                 "call": ["call", "echo", '{"text": "hi"}'], "read": ["read", "res://readme"],
                 "prompt": ["prompt", "review", '{"code": "x = 1"}']}
        runs = {f"http-{key}": [*args, "--trace", *shared] for key, args in verbs.items()}
        runs.update({
            "stdio": ["tools", "--trace", "--stdio", STDIO],
            "untraced": ["tools", "--stdio", STDIO],
            "json": ["--json", "--trace", "call", "echo", '{"text": "hi"}', *shared],
        })
        cls.outcomes = run_many(runs)

    def test_tools_over_stdio_shows_every_message(self) -> None:
        outcome = self.outcomes["stdio"]
        self.check(outcome, 0)
        self.assertTrue(outcome.out.startswith("NAME "), outcome.out)
        lines = trace_lines(outcome)
        self.assertEqual(len(lines), 4, outcome.err)   # discover and tools/list, each way
        sent = [json.loads(line[3:]) for line in lines if line.startswith(">> ")]
        self.assertEqual([m["method"] for m in sent], ["server/discover", "tools/list"])
        self.assertTrue(lines[1].startswith('<< {"jsonrpc":"2.0","id":1,"result":'))
        self.assertTrue(lines[3].startswith('<< {"jsonrpc":"2.0","id":2,"result":'))
        self.assertIn('"name":"echo"', lines[3])
        self.assertEqual(trace_lines(self.outcomes["untraced"]), [])

    def test_every_verb_over_http_with_status_lines_and_headers(self) -> None:
        for key in [k for k in self.outcomes if k.startswith("http-")]:
            with self.subTest(verb=key):
                outcome = self.outcomes[key]
                self.check(outcome, 0)
                lines = trace_lines(outcome)
                posts = [line for line in lines if line.startswith(">> POST /mcp?token=***  ")]
                self.assertTrue(posts, outcome.err)
                self.assertIn("Authorization: Bearer ***", posts[0])
                self.assertIn("Mcp-Method: server/discover", posts[0])
                self.assertTrue(any(line.startswith("<< HTTP 200 OK  ") for line in lines))
                self.assertTrue(any(line.startswith(">> {") for line in lines))
                for secret in SECRETS:
                    self.assertNotIn(secret, outcome.err)
        call = trace_lines(self.outcomes["http-call"])
        self.assertTrue(any("Mcp-Name: echo" in line for line in call))
        self.assertEqual(self.outcomes["http-call"].out, "hi\n")

    def test_json_output_stays_one_document(self) -> None:
        outcome = self.outcomes["json"]
        self.check(outcome, 0)
        self.assertEqual(json.loads(outcome.out)["structuredContent"], {"result": "hi"})
        self.assertTrue(trace_lines(outcome))

    def test_the_wire_logger_is_left_as_it_was(self) -> None:
        logger = logging.getLogger(WIRE_LOGGER)
        before = (logger.level, list(logger.handlers))
        stdout, stderr = io.StringIO(), io.StringIO()
        code = main(["tools", "--trace", "--stdio", STDIO], stdin=io.StringIO(),
                    stdout=stdout, stderr=stderr)
        self.assertEqual(code, 0, stderr.getvalue())
        self.assertIn('>> {"jsonrpc":"2.0","id":2,"method":"tools/list"', stderr.getvalue())
        self.assertEqual((logger.level, list(logger.handlers)), before)


class TerminalSafeTraceTest(LeakCheckingTestCase):
    def test_control_characters_from_the_server_are_shown_escaped(self) -> None:
        from mcp_client._log import wire_trace
        from mcp_client.cli._trace import Tracing

        stream = io.StringIO()
        tracing = Tracing(stream).start()
        try:
            trace = wire_trace("stdio pid=1")
            assert trace is not None
            # a raw ESC is no valid JSON but reaches the trace before any parser; a C1
            # CSI (U+009B) is valid unescaped JSON and a terminal escape to some terminals
            trace.received(b'{"result":{"x":"\x1b]0;owned\x07\x1b[2J\xc2\x9b31m"}}\n')
            trace.event("message", '{"x":"\x1b[1A"}', "\x1b[2K")
        finally:
            tracing.stop()
        shown = stream.getvalue()
        for raw in ("\x1b", "\x07", "\x9b"):
            self.assertNotIn(raw, shown)
        self.assertIn("\\x1b]0;owned\\x07\\x1b[2J\\x9b31m", shown)
        self.assertEqual(shown.count("\n"), 4)   # the event's three lines, one received line
