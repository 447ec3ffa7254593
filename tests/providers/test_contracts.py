"""Every implementation of a role passes its shipped contract check (mcp_client.testing)."""

from __future__ import annotations

import contextlib
import json
import threading
import unittest
from typing import Any, Iterator

from mcp_client import Client, Registry
from mcp_client.http import HTTPTransport
from mcp_client.http_sse import SSETransport
from mcp_client.leases import LeaseTable, Leases
from mcp_client.local import LocalServer
from mcp_client.policy import Policy
from mcp_client.reasons import Reasons
from mcp_client.stdio import StdioTransport
from mcp_client.testing import (FakeTransport, InProcessTransport, TestKit, check_provider,
                                check_transport)
from mcp_client.unknown_keys import UnknownKeys

from mcp_client.transport import Transport

from ..base import PYTHON, LeakCheckingTestCase, discover, fake_server, server
from ..httpkit import LiveServer

ECHO: dict[str, Any] = {"tool": "echo", "arguments": {"text": "hi"}}


def fake_client() -> Client:
    fake = fake_server({"tools": {}}, name="fake")
    fake.on("tools/list", {"tools": [{"name": "echo", "inputSchema": {"type": "object"},
                                      "annotations": {"readOnlyHint": True}}]})
    fake.on("tools/call", lambda request: {"content": [
        {"type": "text", "text": request["params"]["arguments"].get("text", "")}]})
    return Client(transport=fake)


@contextlib.contextmanager
def over_kit(layer: Any) -> Iterator[Any]:
    """``layer(provider)`` over a TestKit in this process, torn down afterwards."""
    with TestKit().local() as local:
        yield layer(local)


class ProvidersTest(LeakCheckingTestCase):
    """check_provider against Client, LocalServer, Registry and every layer."""

    def test_client_over_a_fake_transport(self) -> None:
        check_provider(fake_client, **ECHO)

    def test_client_in_process(self) -> None:
        check_provider(lambda: Client(transport=InProcessTransport(TestKit().server)), **ECHO)

    def test_local_server(self) -> None:
        check_provider(lambda: TestKit().local(), **ECHO)

    def test_local_server_without_a_tool_to_run(self) -> None:
        check_provider(lambda: LocalServer(TestKit().server))

    def test_registry(self) -> None:
        def make() -> Registry:
            registry = Registry()
            registry.add(TestKit().server, prefix="kit")
            return registry
        check_provider(make, tool="kit_echo", arguments={"text": "hi"})

    def test_policy(self) -> None:
        check_provider(lambda: over_kit(lambda p: Policy(p, rules=Policy.default_rules())),
                       **ECHO)

    def test_a_headless_policy_that_allows_nothing(self) -> None:
        check_provider(lambda: over_kit(Policy))

    def test_leases(self) -> None:
        check_provider(lambda: over_kit(lambda p: Leases(p, LeaseTable(), "agent")), **ECHO)

    def test_reasons(self) -> None:
        check_provider(lambda: over_kit(Reasons), **ECHO)

    def test_unknown_keys(self) -> None:
        warnings: list[dict[str, Any]] = []
        check_provider(lambda: over_kit(lambda p: UnknownKeys(p, warnings.append)), **ECHO)
        self.assertEqual(warnings, [])

    def test_the_whole_stack(self) -> None:
        def stack(provider: Any) -> Policy:
            registry = Registry()
            registry.add(provider, prefix="kit")
            leases = Leases(registry, LeaseTable(), "agent")
            return Policy(UnknownKeys(Reasons(leases), lambda warning: None),
                          rules=Policy.default_rules())
        check_provider(lambda: over_kit(stack), tool="kit_echo", arguments={"text": "hi"})


class TransportsTest(LeakCheckingTestCase):
    """check_transport against every transport."""

    def test_fake(self) -> None:
        check_transport(FakeTransport)

    def test_in_process(self) -> None:
        check_transport(lambda: InProcessTransport(TestKit().server))

    def test_stdio(self) -> None:
        check_transport(lambda: StdioTransport(PYTHON, args=server("dual_stdio.py")))


class HTTPTransportTest(LeakCheckingTestCase):
    """check_transport against Streamable HTTP, over the demo server in a child process."""

    live: LiveServer

    @classmethod
    def setUpClass(cls) -> None:
        super().setUpClass()
        cls.live = LiveServer()

    @classmethod
    def tearDownClass(cls) -> None:
        cls.live.stop()
        super().tearDownClass()

    def test_http(self) -> None:
        check_transport(lambda: HTTPTransport(self.live.url))


class SSETransportTest(LeakCheckingTestCase):
    """check_transport against 2024-11-05 HTTP+SSE, over the SDK's SSE server transport."""

    def test_http_sse(self) -> None:
        live = LiveServer("--sse")
        self.addCleanup(live.stop)
        check_transport(lambda: SSETransport(live.url.replace("/mcp", "/sse")))


class BrokenImplementationsTest(LeakCheckingTestCase):
    """The checks fail an implementation that breaks the contract, saying how."""

    def test_a_provider_that_crashes_on_a_malformed_call(self) -> None:
        class Crashing:
            def tools_for_llm(self) -> list[Any]:
                return []

            def execute_tool_calls(self, calls: Any) -> list[Any]:
                return [{"role": "tool", "tool_call_id": call["id"], "content": "",
                         "is_error": True} for call in calls]

        with self.assertRaisesRegex(AssertionError, "MCPClientError"):
            check_provider(Crashing)

    def test_a_provider_that_answers_out_of_order(self) -> None:
        class Reversed:
            def tools_for_llm(self) -> list[Any]:
                return []

            def execute_tool_calls(self, calls: Any) -> list[Any]:
                inner = Policy(Registry())
                return list(reversed(inner.execute_tool_calls(calls)))

        with self.assertRaisesRegex(AssertionError, "call order"):
            check_provider(Reversed)

    def test_a_transport_that_sends_after_close(self) -> None:
        class Careless(FakeTransport):
            def send(self, message: dict[str, Any], **kwargs: Any) -> None:
                if not self.closed:
                    super().send(message, **kwargs)

        with self.assertRaisesRegex(AssertionError, "TransportClosed"):
            check_transport(Careless)

    def test_a_line_wire_that_drops_the_line(self) -> None:
        class Dropping(FakeTransport):
            line_wire = True

            def send_line(self, data: bytes) -> None:
                pass   # declared, never written

        with self.assertRaisesRegex(AssertionError, r"send_line\(\) \(line_wire"):
            check_transport(Dropping, timeout=1)

    def test_a_line_wire_that_takes_only_the_first_line(self) -> None:
        class FirstOnly(FakeTransport):
            line_wire = True

            def send_line(self, data: bytes) -> None:
                self.send(json.loads(data.splitlines()[0]))

        with self.assertRaisesRegex(AssertionError, r"\['line-3'\] sent with send_line"):
            check_transport(FirstOnly, timeout=1)

    def test_a_line_wire_that_changes_the_message(self) -> None:
        class Renaming(FakeTransport):
            line_wire = True

            def send_line(self, data: bytes) -> None:
                for line in data.splitlines():
                    self.send({**json.loads(line), "method": "renamed"})

        def make() -> Transport:
            fake = Renaming()
            fake.on("server/discover", discover({"tools": {}}, name="fake"))
            return fake

        with self.assertRaisesRegex(AssertionError, "line_wire promises the same message"):
            check_transport(make, timeout=1)

    def test_a_wire_that_pipelines_yet_waits_for_the_answer(self) -> None:
        class Waiting(FakeTransport):
            pipelines = True

            def start(self, on_message: Any, *rest: Any) -> None:
                self.delivered = threading.Semaphore(0)

                def delivering(message: dict[str, Any]) -> None:
                    on_message(message)
                    self.delivered.release()

                super().start(delivering, *rest)

            def send(self, message: dict[str, Any], **kwargs: Any) -> None:
                super().send(message, **kwargs)
                if "id" in message and "method" in message:
                    self.delivered.acquire(timeout=5)   # its answer handled: no pipelining

        with self.assertRaisesRegex(AssertionError, "declares pipelines"):
            check_transport(Waiting, timeout=0.5)

    def test_a_wire_whose_lead_skips_first(self) -> None:
        class Forgetful(FakeTransport):
            def lead(self, done: Any, timeout: float | None, waiting: Any,
                     first: Any = None) -> float | None:
                return timeout   # first() never runs: the sends it stands for are lost

        with self.assertRaisesRegex(AssertionError, r"ran first\(\) 0 times"):
            check_transport(Forgetful, timeout=1)

    def test_a_flag_that_is_not_a_bool(self) -> None:
        class Vague(FakeTransport):
            pipelines = "yes"  # type: ignore[assignment]

        with self.assertRaisesRegex(AssertionError, "flag pipelines is 'yes'"):
            check_transport(Vague, timeout=1)


if __name__ == "__main__":
    unittest.main()
