"""OpenTelemetry: a span per request and W3C trace context in ``_meta``, against a real server.

``tests/servers/trace_server.py`` (the official SDK) answers ``seen_meta`` with the
``_meta`` its call arrived with, so the ``traceparent`` a server receives is compared with
the span the client recorded (the SDK's in-memory exporter).
"""

from __future__ import annotations

import json
import subprocess
from typing import Any

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

from mcp_client import MCPClientError, ProtocolError
from mcp_client.types import text_of

from ..base import PYTHON, ClientCase


class TracedCase(ClientCase):
    script = "trace_server.py"

    def setUp(self) -> None:
        super().setUp()
        self.exporter = InMemorySpanExporter()
        self.provider = TracerProvider()
        self.provider.add_span_processor(SimpleSpanProcessor(self.exporter))
        self.addCleanup(self.provider.shutdown)

    def spans(self, name: str) -> list[Any]:
        return [span for span in self.exporter.get_finished_spans() if span.name == name]


class SpansTest(TracedCase):
    def test_a_call_is_a_client_span_whose_context_the_server_receives(self) -> None:
        for era, version in (("auto", "2026-07-28"), ("legacy", "2025-11-25")):
            with self.subTest(era=era):
                self.exporter.clear()
                client = self.connect(era=era, tracer_provider=self.provider)
                seen = json.loads(text_of(client.call_tool("seen_meta")))
                span = self.spans("tools/call seen_meta")[0]
                context = span.get_span_context()
                self.assertEqual(seen["traceparent"],
                                 f"00-{context.trace_id:032x}-{context.span_id:016x}-"
                                 f"{int(context.trace_flags):02x}")
                self.assertEqual(span.kind, SpanKind.CLIENT)
                self.assertEqual(dict(span.attributes), {
                    "mcp.method.name": "tools/call", "gen_ai.tool.name": "seen_meta",
                    "gen_ai.operation.name": "execute_tool", "network.transport": "pipe",
                    "mcp.protocol.version": version,
                    "mcp.client.era": "modern" if era == "auto" else "legacy"})
                self.assertEqual(span.status.status_code, StatusCode.UNSET)
                client.close()

    def test_a_batch_is_the_parent_of_its_calls_and_is_error_is_an_error(self) -> None:
        client = self.connect(tracer_provider=self.provider)
        entries = client.execute_tool_calls([
            {"id": "1", "function": {"name": "fail", "arguments": "{}"}},
            {"id": "2", "function": {"name": "seen_meta", "arguments": "{}"}}])
        self.assertTrue(entries[0]["is_error"])
        batch = self.spans("execute_tool_calls")[0]
        self.assertEqual(dict(batch.attributes), {"mcp.batch.size": 2})
        failed, seen = self.spans("tools/call fail")[0], self.spans("tools/call seen_meta")[0]
        for span in (failed, seen):
            assert span.parent is not None
            self.assertEqual(span.parent.span_id, batch.context.span_id)
        self.assertEqual(failed.status.status_code, StatusCode.ERROR)
        self.assertEqual(failed.attributes["error.type"], "tool_error")
        received = json.loads(entries[1]["content"])["traceparent"]
        self.assertIn(f"{batch.context.trace_id:032x}", received)

    def test_a_failed_request_says_which_error(self) -> None:
        client = self.connect(tracer_provider=self.provider)
        with self.assertRaises(ProtocolError):
            client.request("nothing/here", {})
        span = self.spans("nothing/here")[0]
        self.assertEqual(span.status.status_code, StatusCode.ERROR)
        self.assertEqual(span.attributes["error.type"], "ProtocolError")
        self.assertTrue(any(event.name == "exception" for event in span.events))

    def test_the_option_is_checked(self) -> None:
        with self.assertRaisesRegex(MCPClientError, "tracer_provider must be"):
            self.connect(tracer_provider=object())


class PolicySpansTest(TracedCase):
    def test_each_decision_is_a_span_with_its_reason(self) -> None:
        from mcp_client.policy import Policy
        from mcp_client.registry import Registry

        registry = Registry()
        self.addCleanup(registry.close)
        registry.add(self.connect(tracer_provider=self.provider), prefix="t")
        policy = Policy(registry, rules=[{"tool": "t_fail", "decision": "deny", "note": "no"},
                                         {"tool": "t_*", "decision": "allow"}],
                        tracer_provider=self.provider)
        entries = policy.execute_tool_calls([
            {"id": "1", "function": {"name": "t_fail", "arguments": "{}"}},
            {"id": "2", "function": {"name": "t_seen_meta", "arguments": "{}"}}])
        self.assertIn("no", entries[0]["content"])
        denied, allowed = self.spans("policy t_fail")[0], self.spans("policy t_seen_meta")[0]
        self.assertEqual(denied.attributes["mcp.policy.decision"], "deny")
        self.assertEqual(denied.attributes["mcp.policy.reason"], entries[0]["content"])
        self.assertEqual(dict(allowed.attributes), {"gen_ai.tool.name": "t_seen_meta",
                                                    "mcp.policy.decision": "allow"})
        self.assertEqual(self.spans("tools/call fail"), [])      # never sent
        self.assertEqual(len(self.spans("tools/call seen_meta")), 1)
        with self.assertRaisesRegex(MCPClientError, "tracer_provider must be"):
            Policy(registry, tracer_provider=42)


class NothingWhenUnusedTest(ClientCase):
    def run_python(self, code: str) -> str:
        done = subprocess.run([PYTHON, "-c", code], capture_output=True, text=True, timeout=60)
        self.assertEqual(done.returncode, 0, done.stderr)
        return done.stdout.strip()

    def test_no_opentelemetry_module_is_imported_without_a_tracer(self) -> None:
        out = self.run_python(
            "import sys\n"
            "from mcp_client import Client\n"
            "from mcp_client.testing import FakeTransport\n"
            "fake = FakeTransport()\n"
            "fake.on('server/discover', {'supportedVersions': ['2026-07-28'], "
            "'capabilities': {'tools': {}}})\n"
            "fake.on('tools/call', {'content': []})\n"
            "with Client(transport=fake) as c:\n"
            "    c.call_tool('x')\n"
            "print(sorted(m for m in sys.modules if m.startswith('opentelemetry')))\n")
        self.assertEqual(out, "[]")

    def test_without_the_extra_the_error_names_it(self) -> None:
        out = self.run_python(
            "import sys\n"
            "sys.modules['opentelemetry'] = None\n"
            "from mcp_client import Client, MCPClientError\n"
            "from mcp_client.testing import FakeTransport\n"
            "class Provider:\n"
            "    def get_tracer(self, *a): pass\n"
            "try:\n"
            "    Client(transport=FakeTransport(), tracer_provider=Provider())\n"
            "except MCPClientError as exc:\n"
            "    print(exc)\n")
        self.assertIn("pip install 'mcp-client-sync[otel]'", out)
