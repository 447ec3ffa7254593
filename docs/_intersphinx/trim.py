"""Write docs/_intersphinx/python.inv: the Python inventory cut to what the docs link to.

The documentation links into the Python documentation through intersphinx,
which needs that documentation's ``objects.inv``. Fetching it needs the
network, and a full copy is 130 kB of mostly unused entries, so the repository
ships only the entries the built pages link to (docs/conf.py reads nothing
else). When the docs start to refer to something new in the standard library,
regenerate it from a checkout with Sphinx installed::

    python docs/_intersphinx/trim.py FULL

FULL is a complete inventory: ``https://docs.python.org/3/objects.inv``
downloaded, or Debian's ``/usr/share/doc/python3.X/html/objects.inv``
(package ``python3.X-doc``). The script builds the HTML once against FULL, in
a scratch folder, and keeps every entry whose link appears in a built page.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
import zlib

BASE = "https://docs.python.org/3/"
HERE = os.path.dirname(os.path.abspath(__file__))
DOCS = os.path.dirname(HERE)
OUTPUT = os.path.join(HERE, "python.inv")
# Sphinx's pattern for one inventory line (sphinx.util.inventory).
LINE = re.compile(r"(.+?)\s+(\S+)\s+(-?\d+)\s+?(\S*)\s+(.*)")


def build(full: str, html_dir: str) -> None:
    """Build the HTML pages into html_dir with FULL as the Python inventory."""
    from sphinx.application import Sphinx

    app = Sphinx(DOCS, DOCS, html_dir, os.path.join(html_dir, ".doctrees"), "html",
                 confoverrides={"intersphinx_mapping": {"python": (BASE, full)}},
                 status=None, freshenv=True)
    app.build()


def linked(html_dir: str) -> set[str]:
    """Every docs.python.org location (relative to BASE) a built page links to."""
    found: set[str] = set()
    for folder, _subdirs, files in os.walk(html_dir):
        for name in files:
            if name.endswith(".html"):
                with open(os.path.join(folder, name), encoding="utf-8") as page:
                    found.update(re.findall('href="' + re.escape(BASE) + '([^"]+)"',
                                            page.read()))
    return found


def trim(full: str, wanted: set[str]) -> int:
    """Write OUTPUT: FULL's header and its entries linked to; return how many."""
    with open(full, "rb") as source:
        header = b"".join(source.readline() for _ in range(4))
        lines = zlib.decompress(source.read()).decode("utf-8").splitlines()
    kept = []
    for line in lines:
        match = LINE.match(line)
        if match is None:
            continue
        name, location = match.group(1), match.group(4)
        if location.endswith("$"):
            location = location[:-1] + name
        if location in wanted:
            kept.append(line)
    with open(OUTPUT, "wb") as out:
        out.write(header + zlib.compress(("\n".join(sorted(kept)) + "\n").encode("utf-8"), 9))
    return len(kept)


def main(full: str) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        build(os.path.abspath(full), scratch)
        print(f"{OUTPUT}: {trim(full, linked(scratch))} entries")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
