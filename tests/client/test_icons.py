"""Icons: only ``https:``, ``data:`` and loopback ``http:`` sources reach the caller."""

from __future__ import annotations

from typing import Any

from mcp_client.client._icons import acceptable_icon

from ..base import ClientCase, fake_server

#: (src, kept?) -- every hostile spelling we know of, and the ones that are fine.
SOURCES: list[tuple[Any, bool]] = [
    ("https://example.com/i.png", True),
    ("HTTPS://EXAMPLE.COM/I.PNG", True),
    ("https://example.com:8443/i.svg?x=1#y", True),
    ("data:image/png;base64,iVBORw0KGgo=", True),
    ("DATA:image/svg+xml,%3Csvg%3E", True),
    ("http://127.0.0.1:8000/i.png", True),
    ("http://localhost/i.png", True),
    ("http://LOCALHOST:9/i.png", True),
    ("http://[::1]/i.png", True),
    ("http://127.5.6.7/i.png", True),
    ("http://example.com/i.png", False),
    ("http://10.0.0.1/i.png", False),
    ("http://localhost.evil.com/i.png", False),
    ("http://127.0.0.1.nip.io/i.png", False),
    ("http://0.0.0.0/i.png", False),
    ("javascript:alert(1)", False),
    ("JaVaScRiPt:alert(1)", False),
    (" javascript:alert(1)", False),
    ("\tjavascript:alert(1)", False),
    ("java\nscript:alert(1)", False),
    ("https://example.com/\x00.png", False),
    ("https://example.com/i.png ", False),
    ("vbscript:msgbox(1)", False),
    ("file:///etc/passwd", False),
    ("file://host/share/i.png", False),
    ("ftp://example.com/i.png", False),
    ("blob:https://example.com/uuid", False),
    ("//example.com/i.png", False),
    ("/relative/i.png", False),
    ("i.png", False),
    ("https:///i.png", False),
    ("https:i.png", False),
    ("https://[::1", False),
    ("", False),
    (None, False),
    (42, False),
    (["https://example.com/i.png"], False),
]


class AcceptableIconTest(ClientCase):
    def test_the_table(self) -> None:
        for src, kept in SOURCES:
            with self.subTest(src=src):
                self.assertIs(acceptable_icon(src), kept)


class ListedIconsTest(ClientCase):
    def test_lists_and_server_info_drop_what_a_ui_must_not_load(self) -> None:
        good = {"src": "https://example.com/i.png", "mimeType": "image/png"}
        bad = {"src": "javascript:alert(1)"}
        fake = fake_server({"tools": {}, "prompts": {}, "resources": {}},
                           serverInfo={"name": "s", "version": "1", "icons": [bad, good]})
        fake.on("tools/list", {"tools": [
            {"name": "a", "inputSchema": {"type": "object"}, "icons": [good, bad, "junk"]},
            {"name": "b", "inputSchema": {"type": "object"}, "icons": [bad]},
            {"name": "c", "inputSchema": {"type": "object"}}]})
        fake.on("prompts/list", {"prompts": [{"name": "p", "icons": [{"src": "file:///x"}]}]})
        fake.on("resources/list", {"resources": [{"uri": "res://r", "name": "r",
                                                  "icons": [good]}]})
        fake.on("resources/templates/list", {"resourceTemplates": [
            {"uriTemplate": "res://{x}", "name": "t", "icons": [bad, good]}]})
        client = self.connect(transport=fake)
        tools = client.list_tools()
        self.assertEqual(tools[0]["icons"], [good])
        self.assertNotIn("icons", tools[1])
        self.assertNotIn("icons", tools[2])
        self.assertNotIn("icons", client.list_prompts()[0])
        self.assertEqual(client.list_resources()[0]["icons"], [good])
        self.assertEqual(client.list_resource_templates()[0]["icons"], [good])
        self.assertEqual(client.server_info["icons"], [good])
        self.assertEqual(client.list_tools()[0]["icons"], [good])   # from the cache: clean
