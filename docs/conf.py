"""Sphinx configuration for the mcp_client reference documentation.

Build with ``sphinx-build -W --keep-going -b html docs docs/_build/html`` from
the repository root; ``-b doctest`` runs the guide's examples.
"""

from __future__ import annotations

import os
import sys
import types

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
# Every cross-reference must resolve (CI builds with -W): a renamed or moved
# name shows up as a warning instead of as plain text.
nitpicky = True
default_role = "any"
# What no page documents, on purpose, and so may be named without a link:
nitpick_ignore_regex = [
    # Private modules and their members (``mcp_client.policy._shell``,
    # ``_Blocking``): named in docstrings to say where a thing lives; the
    # reference documents only the public import paths.
    (r"py:.*", r"(.*\.)?_[A-Za-z]\w*(\..*)?"),
    # Type variables (``K``, ``mcp_client.batch.T``): they are not objects to document.
    (r"py:(class|obj)", r"(mcp_client(\.\w+)*\.)?[A-Z]"),
]
nitpick_ignore = [
    # Type aliases annotations name (cache's keys, stdio's inherit_env): what
    # they stand for is in the docstring of the parameter that has one.
    ("py:class", "Key"), ("py:class", "Stamp"), ("py:class", "InheritEnv"),
    # What a public method returns and users never build nor import: the
    # method that returns it documents it (Client.notifications, call_tool_task).
    ("py:class", "Stream"), ("py:class", "TaskHandle"),
]

# Google-style docstrings (Args/Returns/Raises), as the package writes them.
napoleon_google_docstring = True
napoleon_numpy_docstring = False
napoleon_use_rtype = False
# An ``Attributes:`` entry becomes an attribute of its own, so :attr: can link to it.
napoleon_use_ivar = False

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

# -- references the py domain cannot resolve on its own ----------------------------

#: How annotations spell a standard type -> where the Python documentation has it
#: (``Executor`` links once trim.py keeps it in the inventory: until then it is
#: ``concurrent.futures._base``'s, a private name, and plain text).
SPELLED = {"Future": "concurrent.futures.Future",
           "concurrent.futures._base.Future": "concurrent.futures.Future",
           "concurrent.futures._base.Executor": "concurrent.futures.Executor"}


def resolve_public_names(app, env, node, contnode):
    """Resolve what the package re-exports under the name users write.

    ``mcp_client.Client``, ``mcp_client.Client.call_tool`` and a bare
    ``TransportClosed`` name objects the reference documents under their
    module (``mcp_client.client.Client``, ``mcp_client.exceptions.TransportClosed``):
    the names in ``mcp_client.__all__`` are looked up by their documented suffix.
    Standard types as annotations spell them go to the Python documentation.
    """
    import mcp_client
    from sphinx.ext import intersphinx

    if node.get("refdomain") != "py":
        return None
    target = node["reftarget"]
    if target in SPELLED:
        retry = node.deepcopy()
        retry["reftarget"] = SPELLED[target]
        return intersphinx.missing_reference(app, env, retry, contnode)
    tail = target.removeprefix("mcp_client.")
    if tail.split(".")[0] not in mcp_client.__all__:
        return None
    domain = env.get_domain("py")
    found = [name for name, entry in domain.find_obj(env, None, None, tail, node["reftype"], 1)
             if name.startswith("mcp_client.") and not entry.aliased]   # not its :canonical:
    if len(found) != 1:
        return None
    return domain.resolve_xref(env, node["refdoc"], app.builder, node["reftype"], found[0],
                               node, contnode)


# -- constants a public module re-exports ---------------------------------------------

def _is_constant(value):
    return not callable(value) and not isinstance(value, types.ModuleType)


def lend_constant_docs(app):
    """Document a constant where users import it from, with its ``#:`` comment.

    autodoc documents a module-level constant only when the module it documents
    assigns it under a ``#:`` comment; a public module that re-exports one from
    a private module (``mcp_client.leases.ENFORCED_TOOLS``, assigned in
    ``mcp_client.leases._layer``) would lose it.  The public module's analysis
    is given the comment of the module that assigns the value.
    """
    import importlib
    import pkgutil
    import sys

    from sphinx.pycode import ModuleAnalyzer

    import mcp_client

    for info in pkgutil.walk_packages(mcp_client.__path__, "mcp_client."):
        if not any(part.startswith("_") for part in info.name.split(".")):
            importlib.import_module(info.name)
    loaded = sorted(m for m in sys.modules if m.startswith("mcp_client."))
    docs = {}
    for module in loaded:
        try:
            docs[module] = ModuleAnalyzer.for_module(module).find_attr_docs()
        except Exception:   # no source to read
            docs[module] = {}
    for module in loaded:
        if any(part.startswith("_") for part in module.split(".")):
            continue
        for name in getattr(sys.modules[module], "__all__", ()):
            value = getattr(sys.modules[module], name)
            if not _is_constant(value) or ("", name) in docs[module]:
                continue
            lent = [docs[other][("", name)] for other in loaded
                    if ("", name) in docs[other]
                    and getattr(sys.modules[other], name, None) is value]
            if lent:
                docs[module][("", name)] = lent[0]


# -- prose that napoleon read as a type -------------------------------------------------

def keep_prose_first_lines(app, what, name, obj, options, lines):
    """Undo napoleon's inline type where the "type" is the first line's prose.

    napoleon reads a constant's or property's ``The tools that change things, by
    name: a filesystem...`` as typed ``The tools that change things, by name``.
    These docstrings never declare a type that way (annotations do): text that
    reads as words goes back in front of its description.
    """
    typed = [at for at, line in enumerate(lines) if line.startswith(":type: ")]
    if what not in ("data", "attribute", "property") or not typed:
        return
    words = lines[typed[-1]].removeprefix(":type: ")
    if " " not in words.strip() or set("[|`") & set(words):
        return
    del lines[typed[-1]]
    first = next((at for at, line in enumerate(lines) if line.strip()), None)
    if first is None:
        lines.append(words)
    else:
        lines[first] = f"{words}:{lines[first]}" if lines[first].startswith(" ") else \
            f"{words}: {lines[first]}"


def skip_field_aliases(app, what, name, obj, skip, options):
    """A named tuple's fields are documented by its ``Attributes:`` section, not
    again as the "Alias for field number N" properties the class has for them."""
    if what == "class" and (getattr(obj, "__doc__", None) or "").startswith(
            "Alias for field number"):
        return True
    return None


def setup(app):
    app.connect("autodoc-skip-member", skip_field_aliases)
    # After napoleon (priority 500) has rewritten the docstring.
    app.connect("autodoc-process-docstring", keep_prose_first_lines, priority=600)
    app.connect("missing-reference", resolve_public_names)
    app.connect("builder-inited", lend_constant_docs)


html_theme = "furo"
html_title = f"mcp-client-sync {release}"
