"""Sphinx configuration for the mcp_client reference documentation.

Build with ``sphinx-build -W --keep-going -b html docs docs/_build/html`` from
the repository root; ``-b doctest`` runs the guide's examples.
"""

from __future__ import annotations

import os
import sys

# The checkout itself, so the documentation describes this tree even where
# another copy of the package is installed.
sys.path.insert(0, os.path.abspath(".."))

from mcp_client import __version__  # noqa: E402

project = "mcp-client-sync"
author = "the mcp-client-sync authors"
copyright = "the mcp-client-sync authors; Artistic-2.0"
release = __version__
version = __version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.doctest",
    "sphinx.ext.intersphinx",
    "sphinx.ext.napoleon",
    "sphinx.ext.viewcode",
]

exclude_patterns = ["_build", "_intersphinx"]
nitpicky = False
default_role = "any"

# Google-style docstrings (Args/Returns/Raises), as the package writes them.
napoleon_google_docstring = True
napoleon_numpy_docstring = False
napoleon_use_rtype = False
napoleon_use_ivar = True

autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_typehints_format = "short"
autodoc_default_options = {"members": True, "show-inheritance": True}
# Hints name types only imported under TYPE_CHECKING; keep them as written.
autodoc_type_aliases: dict[str, str] = {}

# Links into the Python documentation are resolved from the trimmed copy of its
# inventory in _intersphinx/ (the entries these pages link to; trim.py there
# regenerates it), never fetched: the build needs no network, and no
# python3-doc. The links still point at docs.python.org.
intersphinx_mapping = {"python": ("https://docs.python.org/3", "_intersphinx/python.inv")}

# Only the ``.. doctest::`` and ``.. testcode::`` blocks of the guide run;
# the ``>>>`` lines in docstrings illustrate and are not tests.
doctest_test_doctest_blocks = ""
doctest_global_setup = """
from mcp_client.testing import FakeTransport


def demo_transport():
    # The scripted server of the guide's "Connecting" page.
    fake = FakeTransport()
    fake.on("server/discover", {"supportedVersions": ["2026-07-28"],
                                "capabilities": {"tools": {}},
                                "serverInfo": {"name": "demo", "version": "1.0"}})
    fake.on("tools/list", {"tools": [
        {"name": "add", "description": "Add two integers.",
         "inputSchema": {"type": "object",
                         "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                         "required": ["a", "b"]},
         "annotations": {"readOnlyHint": True}},
        {"name": "delete_file", "description": "Delete a file.",
         "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}}}]})
    fake.on("tools/call", lambda request: {"content": [
        {"type": "text", "text": str(sum(request["params"]["arguments"].values()))}]})
    return fake
"""

html_theme = "furo"
html_title = f"mcp-client-sync {release}"
