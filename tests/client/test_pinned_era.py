"""A pinned modern era is checked at connect: a server that does not speak it is refused."""

from __future__ import annotations

from mcp_client import UnsupportedVersion
from mcp_client.testing import Error, FakeTransport

from ..base import ClientCase, server
from .test_era import V, discover

NEXT = "2027-01-01"


class PinnedEraRealServerTest(ClientCase):
    def test_a_legacy_only_server_refuses_a_pinned_modern_era(self) -> None:
        client = self.connect(args=server("legacy_stdio.py"), era=V)
        with self.assertRaises(UnsupportedVersion) as caught:
            client.list_tools()
        text = str(caught.exception)
        self.assertIn(V, text)            # ours
        self.assertIn("2025-11-25", text)  # theirs: the handshake era
        self.assertEqual(tuple(caught.exception.offered), (V,))

    def test_a_dual_era_server_is_modern_at_the_pinned_version_with_its_info(self) -> None:
        client = self.connect(args=server("dual_stdio.py"), era=V)
        self.assertEqual((client.era, client.protocol_version), ("modern", V))
        self.assertTrue(client.server_info.get("name"))
        self.assertTrue(client.list_tools())


class PinnedEraFakeTest(ClientCase):
    def methods(self, fake: FakeTransport) -> list[str]:
        return [m["method"] for m in fake.sent if "method" in m]

    def test_a_server_naming_other_modern_versions_refuses_the_pin(self) -> None:
        fake = FakeTransport()
        fake.on("server/discover", Error(-32022, "unsupported", {"supported": [NEXT]}))
        client = self.connect(fake, era=V, protocol_versions=[NEXT, V])
        with self.assertRaises(UnsupportedVersion) as caught:
            client.list_tools()
        self.assertIn(V, str(caught.exception))
        self.assertIn(NEXT, str(caught.exception))
        self.assertEqual(list(caught.exception.supported), [NEXT])
        self.assertEqual(self.methods(fake), ["server/discover"])   # never a handshake

    def test_a_discover_result_without_the_pinned_version_refuses_it(self) -> None:
        fake = FakeTransport()
        fake.on("server/discover", discover(NEXT))
        client = self.connect(fake, era=V, protocol_versions=[NEXT, V])
        with self.assertRaises(UnsupportedVersion) as caught:
            client.era
        self.assertIn(NEXT, str(caught.exception))

    def test_the_pin_is_the_version_probed_and_kept(self) -> None:
        fake = FakeTransport()
        fake.on("server/discover", discover(V, NEXT))
        fake.on("tools/list", {"tools": [], "resultType": "complete"})
        client = self.connect(fake, era=V, protocol_versions=[NEXT, V])
        self.assertEqual(client.list_tools(), [])
        self.assertEqual(client.protocol_version, V)
        self.assertEqual(client.server_info, {"name": "fake", "version": "9"})
        self.assertEqual(self.methods(fake), ["server/discover", "tools/list"])

    def test_a_missing_capability_answer_is_still_modern_at_the_pin(self) -> None:
        fake = FakeTransport()
        fake.on("server/discover", Error(-32021, "missing capability"))
        client = self.connect(fake, era=V)
        self.assertEqual((client.era, client.protocol_version), ("modern", V))
