"""Bounds on what a server can make the client hold or spend: list calls in bytes,
server-supplied regular expressions in time."""

from __future__ import annotations

from typing import Any

from mcp_client import Client, ProtocolError
from mcp_client.client._paging import MAX_LIST_BYTES
from mcp_client.testing import FakeTransport

from ..base import ClientCase

V = "2026-07-28"
DISCOVER = {"resultType": "complete", "supportedVersions": [V], "capabilities": {},
            "ttlMs": 0, "cacheScope": "private"}
MIB = 1 << 20


def modern_fake() -> FakeTransport:
    fake = FakeTransport()
    fake.on("server/discover", DISCOVER)
    return fake


def endless_pages(key: str, entry: dict[str, Any], count: int) -> Any:
    """An answer for ``count`` pages of one ``entry`` each, chained by cursors."""
    def answer(message: dict[str, Any]) -> dict[str, Any]:
        number = int(message["params"].get("cursor", "0"))
        page: dict[str, Any] = {key: [entry]}
        if number + 1 < count:
            page["nextCursor"] = str(number + 1)
        return page
    return answer


class ListBytesTest(ClientCase):
    def connect_to(self, fake: FakeTransport, **options: Any) -> Client:
        return self.connect(fake, **options)

    def test_pages_of_one_big_tool_each_stop_at_the_byte_bound(self) -> None:
        fake = modern_fake()
        tool = {"name": "big", "description": "x" * (4 * MIB), "inputSchema": {}}
        fake.on("tools/list", endless_pages("tools", tool, 60))
        client = self.connect_to(fake)
        with self.assertRaises(ProtocolError) as caught:
            client.list_tools()
        self.assertEqual(caught.exception.message,
                         f"tools/list: more than {MAX_LIST_BYTES} bytes across its pages; "
                         "giving up")
        self.assertEqual(caught.exception.data, {"limit_bytes": MAX_LIST_BYTES})
        # each page is a little over 4 MiB: the one that passes the bound is the last read
        self.assertEqual(len(fake.requests("tools/list")), MAX_LIST_BYTES // (4 * MIB))

    def test_the_bound_counts_every_list_method(self) -> None:
        for method, key, entry in [
                ("resources/list", "resources", {"uri": "a", "name": "n" * MIB}),
                ("prompts/list", "prompts", {"name": "p" * MIB}),
                ("resources/templates/list", "resourceTemplates",
                 {"uriTemplate": "a/{b}", "name": "t" * MIB})]:
            with self.subTest(method=method):
                fake = modern_fake()
                fake.on(method, endless_pages(key, entry, 1000))
                client = self.connect_to(fake)
                call = {"resources/list": client.list_resources,
                        "prompts/list": client.list_prompts,
                        "resources/templates/list": client.list_resource_templates}[method]
                with self.assertRaises(ProtocolError) as caught:
                    call()
                self.assertEqual(caught.exception.data, {"limit_bytes": MAX_LIST_BYTES})
                self.assertLessEqual(len(fake.requests(method)), MAX_LIST_BYTES // MIB + 1)

    def test_a_list_under_the_bound_is_whole(self) -> None:
        fake = modern_fake()
        tool = {"name": "big", "description": "x" * MIB, "inputSchema": {}}
        fake.on("tools/list", endless_pages("tools", tool, 20))
        self.assertEqual(len(self.connect_to(fake).list_tools()), 20)
