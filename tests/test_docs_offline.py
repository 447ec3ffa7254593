"""The documentation builds with no network (issue 27, item 12).

``docs/index.rst`` promises that ``sphinx-build -W`` needs no network. The one
thing Sphinx would fetch is an intersphinx inventory, so every inventory that
``docs/conf.py`` names must be a file in this repository: a URL, or ``None``
(which makes intersphinx download ``<target>/objects.inv``), is a fetch that
fails offline and, under ``-W``, fails the build. The shipped inventory is
checked to be one Sphinx can read, with links relative to the target.
"""

from __future__ import annotations

import os
import re
import runpy
import sys
import zlib
from typing import Any

from .base import HERE, LeakCheckingTestCase

ROOT = os.path.dirname(HERE)
DOCS = os.path.join(ROOT, "docs")

# Sphinx's own pattern for one line of a version 2 inventory
# (sphinx.util.inventory): name, domain:role, priority, location, display name.
_LINE = re.compile(r"(.+?)\s+(\S+)\s+(-?\d+)\s+?(\S*)\s+(.*)")


def _configuration() -> dict[str, Any]:
    """docs/conf.py's settings (the sys.path entry it adds is taken out again)."""
    saved = list(sys.path)
    try:
        return runpy.run_path(os.path.join(DOCS, "conf.py"))
    finally:
        sys.path[:] = saved


def _locations(inventory: Any) -> list[Any]:
    """Every place intersphinx would read one target's inventory from, in order."""
    if isinstance(inventory, (tuple, list)):
        return list(inventory)
    return [inventory]


class IntersphinxOfflineTest(LeakCheckingTestCase):
    def setUp(self) -> None:
        super().setUp()
        self.conf = _configuration()

    def _inventory_files(self) -> list[str]:
        files = []
        for target, (base, inventory) in self.conf.get("intersphinx_mapping", {}).items():
            for location in _locations(inventory):
                with self.subTest(target=target, location=location):
                    self.assertIsInstance(location, str, "None means: fetch from the web")
                    self.assertNotRegex(location, r"^[a-z][a-z0-9+.-]*://",
                                        "an inventory URL needs the network")
                    path = os.path.realpath(os.path.join(DOCS, location))
                    self.assertTrue(path.startswith(os.path.realpath(ROOT) + os.sep),
                                    f"{path} is outside the repository")
                    self.assertTrue(os.path.isfile(path), f"{path} is not shipped")
                    files.append(path)
            self.assertRegex(base, r"^https://", "links point at the published docs")
        return files

    def test_every_inventory_is_a_file_in_the_repository(self) -> None:
        self.assertIn("sphinx.ext.intersphinx", self.conf["extensions"])
        self.assertTrue(self._inventory_files())

    def test_the_shipped_inventory_is_one_sphinx_reads(self) -> None:
        for path in self._inventory_files():
            with open(path, "rb") as source:
                header = [source.readline() for _ in range(4)]
                body = zlib.decompress(source.read()).decode("utf-8")
            self.assertEqual(header[0], b"# Sphinx inventory version 2\n")
            self.assertTrue(header[1].startswith(b"# Project: "))
            self.assertIn(b"zlib", header[3])
            entries = [_LINE.match(line) for line in body.splitlines()]
            self.assertTrue(entries)
            self.assertNotIn(None, entries)
            for entry in entries:
                assert entry is not None
                self.assertNotRegex(entry.group(4), r"^[a-z]+://", "links are relative")

    def test_the_documented_claim_is_still_made(self) -> None:
        with open(os.path.join(DOCS, "index.rst"), encoding="utf-8") as source:
            index = source.read()
        self.assertIn("needs no network", " ".join(index.split()))
        self.assertFalse("python3-doc" in index, "the build must not need python3-doc")
