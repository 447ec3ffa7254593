"""The era machine, every branch, driven through FakeTransport (PROTOCOL §3.5, S9-S14)."""

from __future__ import annotations

import threading
from typing import Any

from mcp_client import Client, ProtocolError, ServerGone, UnsupportedVersion
from mcp_client.testing import NO_ANSWER, Die, Error, FakeTransport, Raw

from ..base import ClientCase, LeakCheckingTestCase

NEXT = "2027-01-01"    # a hypothetical newer modern version, to exercise preference
V = "2026-07-28"


def discover(*versions: str, **extra: Any) -> dict[str, Any]:
    result = {"resultType": "complete", "supportedVersions": list(versions),
              "capabilities": {"tools": {"listChanged": True}}, "ttlMs": 0,
              "cacheScope": "private", "instructions": "be nice",
              "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "fake", "version": "9"}}}
    result.update(extra)
    return result


INIT = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
        "serverInfo": {"name": "old", "version": "1"}, "instructions": "legacy"}


def probed_version(message: dict[str, Any]) -> str:
    return str(message["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"])


class EraTest(ClientCase):
    def methods(self, fake: FakeTransport) -> list[str]:
        return [m["method"] for m in fake.sent if "method" in m]

    def test_discover_picks_the_clients_preferred_mutual_version(self) -> None:
        fake = FakeTransport()
        fake.on("server/discover", discover(V, NEXT))
        client = self.connect(fake, protocol_versions=[NEXT, V])
        self.assertEqual((client.era, client.protocol_version), ("modern", NEXT))
        self.assertEqual(client.supported_versions, (V, NEXT))
        self.assertEqual(client.server_info, {"name": "fake", "version": "9"})
        self.assertEqual(client.capabilities, {"tools": {"listChanged": True}})
        self.assertEqual(client.instructions, "be nice")
        self.assertEqual(self.methods(fake), ["server/discover"])
        self.assertEqual(probed_version(fake.sent[0]), NEXT)

    def test_the_probe_is_the_first_message_and_its_envelope(self) -> None:
        fake = FakeTransport()
        fake.on("server/discover", discover(V))
        fake.on("tools/list", {"tools": []})
        client = self.connect(fake, client_name="agent", client_version="2.0",
                              on_elicit=lambda r: {"action": "decline"})
        client.list_tools()
        first = fake.sent[0]
        self.assertEqual(first["method"], "server/discover")
        self.assertEqual(first["params"], {"_meta": {
            "io.modelcontextprotocol/protocolVersion": V,
            "io.modelcontextprotocol/clientInfo": {"name": "agent", "version": "2.0"},
            "io.modelcontextprotocol/clientCapabilities": {
                "elicitation": {"form": {}},
                "extensions": {"io.modelcontextprotocol/skills": {}}}}})

    def test_32022_with_a_mutual_modern_version_reprobes(self) -> None:
        fake = FakeTransport()
        fake.on("server/discover", Error(-32022, "Unsupported protocol version",
                                         {"supported": [V], "requested": NEXT}),
                when=lambda m: probed_version(m) == NEXT)
        fake.on("server/discover", discover(V), when=lambda m: probed_version(m) == V)
        client = self.connect(fake, protocol_versions=[NEXT, V])
        self.assertEqual((client.era, client.protocol_version), ("modern", V))
        self.assertEqual([probed_version(m) for m in fake.requests()], [NEXT, V])

    def test_32022_naming_only_the_handshake_version_falls_back(self) -> None:
        fake = FakeTransport()
        fake.on("server/discover", Error(-32022, "no", {"supported": ["2025-11-25"]}))
        fake.on("initialize", INIT)
        client = self.connect(fake)
        self.assertEqual((client.era, client.protocol_version), ("legacy", "2025-11-25"))
        self.assertEqual(self.methods(fake),
                         ["server/discover", "initialize", "notifications/initialized"])

    def test_32022_with_nothing_usable(self) -> None:
        fake = FakeTransport()
        fake.on("server/discover", Error(-32022, "no", {"supported": ["2099-01-01"]}))
        client = self.connect(fake)
        with self.assertRaises(UnsupportedVersion) as caught:
            client.era
        self.assertEqual(caught.exception.supported, ("2099-01-01",))
        self.assertIn(V, caught.exception.offered)
        self.assertEqual(self.methods(fake), ["server/discover"])

    def test_32021_is_modern_and_fills_server_info_later(self) -> None:
        fake = FakeTransport()
        fake.on("server/discover", Error(-32021, "missing capability"), discover(V))
        client = self.connect(fake)
        self.assertEqual(client.era, "modern")
        self.assertEqual(self.methods(fake), ["server/discover"])
        self.assertEqual(client.server_info["name"], "fake")   # S14: a second discover
        self.assertEqual(self.methods(fake), ["server/discover", "server/discover"])

    def test_32020_on_the_probe_is_raised(self) -> None:
        fake = FakeTransport()
        fake.on("server/discover", Error(-32020, "header mismatch"))
        client = self.connect(fake)
        with self.assertRaises(ProtocolError) as caught:
            client.era
        self.assertEqual(caught.exception.code, -32020)

    def test_legacy_signals(self) -> None:
        signals = {
            "method not found": Error(-32601, "Method not found", "server/discover"),
            "invalid params": Error(-32602, "Invalid request parameters", ""),
            "parse error, null id": Raw({"jsonrpc": "2.0", "id": None,
                                         "error": {"code": -32700, "message": "Parse error"}}),
            "not a DiscoverResult": {"hello": "world"},
            "empty supportedVersions": {"supportedVersions": [], "capabilities": {}},
            "disjoint supportedVersions": discover("2099-01-01"),
        }
        for name, answer in signals.items():
            with self.subTest(name):
                fake = FakeTransport()
                fake.on("server/discover", answer)
                fake.on("initialize", INIT)
                client = self.connect(fake)
                self.assertEqual(client.era, "legacy")
                self.assertEqual(client.server_info, {"name": "old", "version": "1"})
                self.assertEqual(client.instructions, "legacy")
                self.assertEqual(client.supported_versions, ())
                self.assertEqual(self.methods(fake),
                                 ["server/discover", "initialize", "notifications/initialized"])
                init = fake.requests("initialize")[0]
                self.assertEqual(init["params"], {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {"extensions": {"io.modelcontextprotocol/skills": {}}},
                    "clientInfo": {"name": "mcp_client", "version": client_version()}})
                client.close()

    def test_probe_timeout_means_legacy_and_sends_no_cancel(self) -> None:
        fake = FakeTransport()
        fake.on("server/discover", discover(V), hold=True)
        fake.on("initialize", INIT)
        client = self.connect(fake, probe_timeout=0.2, request_timeout=30)
        self.assertEqual(client.era, "legacy")
        self.assertEqual(fake.notifications("notifications/cancelled"), [])
        fake.release("server/discover")            # the late DiscoverResult is dropped
        fake.on("ping", {})
        self.assertTrue(client.ping())
        self.assertEqual(client.era, "legacy")
        self.assertTrue(any("late answer" in w for w in self.warnings), self.warnings)

    def test_32022_on_initialize_reprobes(self) -> None:
        # S10: a slow dual-era server answered the timed-out probe and locked itself modern.
        fake = FakeTransport()
        fake.on("server/discover", NO_ANSWER, discover(V))
        fake.on("initialize", Error(-32022, "connection is serving the 2026-07-28 protocol",
                                    {"supported": [V], "requested": "2025-11-25"}))
        client = self.connect(fake, probe_timeout=0.2)
        self.assertEqual((client.era, client.protocol_version), ("modern", V))
        self.assertEqual(self.methods(fake), ["server/discover", "initialize", "server/discover"])

    def test_32022_on_initialize_with_nothing_usable(self) -> None:
        fake = FakeTransport()
        fake.on("server/discover", Error(-32601, "nope"))
        fake.on("initialize", Error(-32022, "no", {"supported": ["2099-01-01"]}))
        client = self.connect(fake)
        with self.assertRaises(UnsupportedVersion) as caught:
            client.era
        self.assertEqual(caught.exception.supported, ("2099-01-01",))

    def test_initialize_with_an_unknown_version(self) -> None:
        fake = FakeTransport()
        fake.on("server/discover", Error(-32601, "nope"))
        fake.on("initialize", dict(INIT, protocolVersion="1999-01-01"))
        client = self.connect(fake)
        with self.assertRaises(UnsupportedVersion) as caught:
            client.era
        self.assertEqual(caught.exception.supported, ("1999-01-01",))

    def test_older_handshake_versions_are_accepted(self) -> None:
        fake = FakeTransport()
        fake.on("server/discover", Error(-32601, "nope"))
        fake.on("initialize", dict(INIT, protocolVersion="2024-11-05"))
        client = self.connect(fake)
        self.assertEqual(client.protocol_version, "2024-11-05")

    def test_a_dead_wire_is_raised_not_read_as_legacy(self) -> None:
        fake = FakeTransport()
        fake.on("server/discover", Die(127, "node: not found"))
        client = self.connect(fake)
        with self.assertRaises(ServerGone) as caught:
            client.era
        self.assertEqual((caught.exception.exit_code, caught.exception.stderr_tail),
                         (127, "node: not found"))
        self.assertEqual(self.methods(fake), ["server/discover"])

    def test_a_child_that_exits_during_the_probe_is_restarted_for_the_handshake(self) -> None:
        fake = FakeTransport(restartable=True)
        fake.on("server/discover", Die(4, "expected initialize"))
        fake.on("initialize", INIT)
        client = self.connect(fake)
        self.assertEqual(client.era, "legacy")
        self.assertEqual(fake.restarts, 1)
        self.assertEqual(self.methods(fake),
                         ["server/discover", "initialize", "notifications/initialized"])

    def test_twenty_concurrent_first_calls_send_one_probe(self) -> None:
        fake = FakeTransport()
        fake.on("server/discover", discover(V), hold=True)
        fake.on("tools/list", {"tools": [{"name": "t"}]})
        client = self.connect(fake)
        results: list[Any] = []
        lock = threading.Lock()

        def first_call() -> None:
            tools = client.list_tools()
            with lock:
                results.append(tools)

        threads = [threading.Thread(target=first_call) for _ in range(20)]
        for thread in threads:
            thread.start()
        fake.wait_for("server/discover")
        fake.release("server/discover")
        for thread in threads:
            thread.join(10)
        self.assertEqual(results, [[{"name": "t"}]] * 20)
        self.assertEqual(self.methods(fake).count("server/discover"), 1)
        self.assertEqual(self.methods(fake)[0], "server/discover")

    def test_era_legacy_skips_the_probe(self) -> None:
        fake = FakeTransport()
        fake.on("initialize", INIT)
        fake.on("tools/list", {"tools": []})
        client = self.connect(fake, era="legacy")
        client.list_tools()
        self.assertEqual(self.methods(fake), ["initialize", "notifications/initialized",
                                              "tools/list"])
        self.assertNotIn("params", fake.requests("tools/list")[0])

    def test_a_pinned_modern_version_is_probed_with_no_fallback(self) -> None:
        # the pin's discover answered -32021: modern at the pin, with no DiscoverResult
        fake = FakeTransport()
        fake.on("server/discover", Error(-32021, "missing capability"))
        fake.on("tools/list", {"tools": [], "resultType": "complete",
                               "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "p"}}})
        client = self.connect(fake, era=V, protocol_versions=[NEXT, V])
        self.assertEqual(client.list_tools(), [])
        self.assertEqual(self.methods(fake), ["server/discover", "tools/list"])
        self.assertEqual(probed_version(fake.sent[0]), V)
        self.assertEqual(client.server_info, {"name": "p"})   # from the result's _meta

    def test_a_failed_probe_is_shared_by_the_calls_queued_behind_it(self) -> None:
        fake = FakeTransport()
        fake.on("server/discover", Error(-32022, "no", {"supported": ["2099-01-01"]}))
        client = self.connect(fake)
        for _ in range(2):
            with self.assertRaises(UnsupportedVersion):
                client.list_tools()


def client_version() -> str:
    from mcp_client import __version__
    return __version__


class NoHandshakeWireTest(LeakCheckingTestCase):
    def test_a_wire_without_the_handshake_says_so(self) -> None:
        fake = FakeTransport()
        fake.supports_handshake = False
        fake.on("server/discover", Error(-32601, "Method not found"))
        client = Client(transport=fake)
        self.addCleanup(client.close)
        with self.assertRaises(UnsupportedVersion) as caught:
            client.list_tools()
        self.assertIn("this wire cannot speak the 2025-11-25 handshake", str(caught.exception))
        self.assertEqual(fake.requests("initialize"), [])
