"""How requests are written to a wire (:class:`mcp_client.client._writer.Writer`):
lines over a line wire, dicts over any other, held lines in one write."""

from __future__ import annotations

import json
import threading
import unittest
from typing import Any

from mcp_client import MCPClientError, TransportClosed
from mcp_client.client._writer import Writer
from mcp_client.correlator import Correlator


class Wire:
    """The writing half of a transport, recording what it was given."""

    def __init__(self, line_wire: bool) -> None:
        self.line_wire = line_wire
        self.lines: list[bytes] = []
        self.sent: list[tuple[str, dict[str, Any]]] = []
        self.refuse: MCPClientError | None = None

    def send_line(self, data: bytes) -> None:
        if self.refuse is not None:
            raise self.refuse
        self.lines.append(data)

    def send(self, message: dict[str, Any], *, headers: Any = None) -> None:
        self.sent.append(("send", message))

    def send_led(self, message: dict[str, Any], *, headers: Any = None) -> None:
        self.sent.append(("send_led", message))


class Host:
    def __init__(self) -> None:
        self.state = "open"

    def failure(self) -> MCPClientError:
        return TransportClosed()


ENVELOPE = {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}


class WriterTest(unittest.TestCase):
    def writer(self, line_wire: bool) -> tuple[Writer, Wire, Correlator, Host]:
        wire, correlator, host = Wire(line_wire), Correlator(), Host()
        writer = Writer(wire, correlator, host, lambda: ENVELOPE)  # type: ignore[arg-type]
        return writer, wire, correlator, host

    def test_a_line_wire_gets_one_line_per_request(self) -> None:
        writer, wire, correlator, _ = self.writer(True)
        pending = correlator.register("tools/call")
        writer.post(pending, {"name": "echo"}, ENVELOPE, led=True)
        self.assertEqual(len(wire.lines), 1)
        self.assertEqual(wire.sent, [])
        self.assertEqual(json.loads(wire.lines[0]),
                         {"jsonrpc": "2.0", "id": pending.ident, "method": "tools/call",
                          "params": {"name": "echo", "_meta": ENVELOPE}})

    def test_any_other_wire_gets_the_dict_and_a_leader_send_led(self) -> None:
        writer, wire, correlator, _ = self.writer(False)
        first, second = correlator.register("ping"), correlator.register("ping")
        writer.post(first, {}, None)
        writer.post(second, {}, None, led=True)
        self.assertEqual(wire.lines, [])
        self.assertEqual([(how, message["id"]) for how, message in wire.sent],
                         [("send", first.ident), ("send_led", second.ident)])

    def test_held_requests_go_in_one_write(self) -> None:
        writer, wire, correlator, _ = self.writer(True)
        pendings = correlator.register_many("tools/call", 3)
        writer.hold()
        for pending in pendings:
            writer.post(pending, {"name": "echo"}, ENVELOPE, pipelined=True)
        self.assertEqual(wire.lines, [])
        writer.send_held(stop=True)
        self.assertEqual(len(wire.lines), 1)
        self.assertEqual([json.loads(line)["id"] for line in wire.lines[0].splitlines()],
                         [pending.ident for pending in pendings])

    def test_only_a_line_wire_holds(self) -> None:
        writer, wire, correlator, _ = self.writer(False)
        writer.hold()
        pending = correlator.register("tools/call")
        writer.post(pending, {"name": "echo"}, None, pipelined=True)
        self.assertEqual(len(wire.sent), 1)

    def test_a_failed_write_fails_every_request_it_carried(self) -> None:
        writer, wire, correlator, _ = self.writer(True)
        pendings = correlator.register_many("tools/call", 2)
        wire.refuse = TransportClosed()
        writer.post_all(pendings, [{"name": "a"}, {"name": "b"}], [ENVELOPE, ENVELOPE])
        for pending in pendings:
            self.assertTrue(pending.done())
            self.assertRaises(TransportClosed, pending.result)

    def test_a_request_sent_as_the_wire_died_fails_with_why(self) -> None:
        writer, wire, correlator, host = self.writer(False)
        pending = correlator.register("ping")
        host.state = "dead"
        writer.post(pending, {}, None)
        self.assertEqual(len(wire.sent), 1)
        self.assertTrue(pending.done())
        self.assertRaises(TransportClosed, pending.result)

    def test_holding_is_for_the_thread_that_asked(self) -> None:
        writer, wire, correlator, _ = self.writer(True)
        writer.hold()
        pending = correlator.register("tools/call")
        other = threading.Thread(target=writer.post, args=(pending, {}, None),
                                 kwargs={"pipelined": True})
        other.start()
        other.join(10)
        self.assertEqual(len(wire.lines), 1)


if __name__ == "__main__":
    unittest.main()
