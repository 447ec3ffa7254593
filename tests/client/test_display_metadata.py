"""Display metadata (``title``, ``annotations.title``, ``icons``; 2025-11-25 and 2026-07-28
BaseMetadata and Icons) comes through every ``list_*`` call unchanged, in both eras."""

from __future__ import annotations

from typing import Any, Mapping

from ..base import ClientCase, server

ICONS = [{"src": "https://example.com/icon.png", "mimeType": "image/png", "sizes": ["48x48"]}]


class DisplayMetadataTest(ClientCase):
    def test_titles_and_icons_are_kept(self) -> None:
        for era in ("auto", "legacy"):
            with self.subTest(era=era):
                client = self.connect(args=server("interactive_server.py"), era=era)
                tools = {tool["name"]: tool for tool in client.list_tools()}
                self.assertEqual((tools["connect"]["title"], tools["connect"]["icons"]),
                                 ("Connect an Account", ICONS))
                self.assertEqual(tools["files"]["annotations"],
                                 {"title": "Remote Files", "readOnlyHint": True})
                [prompt] = [p for p in client.list_prompts() if p["name"] == "lead"]
                self.assertEqual((prompt["title"], prompt["icons"]), ("Team Management", ICONS))
                [resource] = client.list_resources()
                self.assertEqual(pick(resource), ("The Handbook", ICONS))
                [template] = client.list_resource_templates()
                self.assertEqual(template["title"], "A Team")
                # and the cached second answer is the same
                self.assertEqual(client.list_tools()[0]["icons"], ICONS)
                client.close()


def pick(entry: Mapping[str, Any]) -> tuple[Any, Any]:
    return entry.get("title"), entry.get("icons")
