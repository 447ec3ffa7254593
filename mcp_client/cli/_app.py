"""The ``app`` verb: call a tool that has a view, and show the view in the user's browser.

``mcp-client app TOOL [JSON-ARGUMENTS]`` connects with ``apps=True`` (the
client declares the MCP Apps extension), calls the tool as ``call`` does,
reads its view (:meth:`~mcp_client.Client.app_for`) and serves it on a
loopback port (:class:`mcp_client.cli._viewer.Viewer`), the view's
messages answered by an :class:`~mcp_client.apps.AppBridge`.  It prints the
page's address (with its one-time token) as the one line on stdout --
``{"url": ...}`` with ``--json`` -- and opens it with :mod:`webbrowser`
unless ``--no-open`` (or where only a text browser could start: see
:func:`graphical_browser_possible`).  It returns when the page is closed, when the page
has not been heard from for a while (the browser went away), or on Ctrl-C.

Decisions:

* ``--rules FILE`` (a JSON list of :class:`~mcp_client.policy.Policy`
  rules) puts a Policy between the view and the server: every call the
  view makes is judged by it, and a refusal reaches the view as the
  call's error (the server never sees the call).  ``ask`` is refused, as
  there is nobody to ask inside a browser's view.  The command's own call
  of ``TOOL`` is the user's, made as ``call`` makes it.  Without
  ``--rules`` the view's calls go to the server, still only to tools of
  this server that the app may see (the bridge's rule).
* A tool without a view is a usage error (exit 2) once the call is made:
  ``call`` is the verb for it.  A tool that reports ``isError`` still
  shows its view, and the command exits 1 once the page is closed.
* ``ui/message`` (the view asks to tell the conversation something) is
  printed on stderr and accepted: the terminal is the conversation here.
  ``ui/open-link`` is refused, with the address shown on stderr, so nothing
  is opened that the user did not choose.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from ._exits import EXIT_OK, EXIT_TOOL_ERROR, UsageError
from ._parser import option

__all__ = ["run_app", "load_rules"]


def load_rules(path: str | None) -> list[dict[str, Any]] | None:
    """The ``--rules`` file's Policy rules, checked (None without the option).

    Read before connecting, so a bad file costs no server start.

    Raises:
        UsageError: the file cannot be read, is not a JSON list, or a rule is
            not one the Policy takes (the rule's index and key named).
    """
    if path is None:
        return None
    from ..policy.rules import RuleError, compile_rules

    try:
        rules = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise UsageError(f"--rules: cannot read {path}: {exc.strerror}") from None
    except ValueError as exc:
        raise UsageError(f"--rules: {path} is not JSON: {exc}") from None
    if not isinstance(rules, list):
        raise UsageError(f"--rules: {path} must hold a JSON list of rules")
    try:
        compile_rules(rules)
    except RuleError as exc:
        raise UsageError(f"--rules: {path}: {exc}") from None
    return rules


def graphical_browser_possible() -> bool:
    """Whether a browser :mod:`webbrowser` starts can show a page that runs scripts.

    On Linux and the BSDs without ``DISPLAY`` or ``WAYLAND_DISPLAY``,
    :mod:`webbrowser` falls back to a text browser in the terminal (w3m,
    lynx): it would spend the one-time token on a page it cannot run.  A
    ``BROWSER`` variable is the user's choice and is honoured.
    """
    if sys.platform in ("darwin", "win32") or os.environ.get("BROWSER"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def run_app(run: Any, client: Any, budget: dict[str, Any]) -> int:
    """The verb itself, once connected: the exit code (the page closed or Ctrl-C)."""
    import webbrowser

    from ..apps import AppBridge
    from ._terminal import printable
    from ._viewer import Viewer

    name = run.args.name
    provider = None
    if run.rules is not None:
        from ..policy import Policy

        provider = Policy(client, rules=run.rules)
    run.method = "tools/call"
    result = client.call_tool(name, run.arguments, **budget)
    run.method = "resources/read"
    view = client.app_for(name)
    if view is None:
        raise UsageError(f"tool {name!r} has no view (no _meta.ui.resourceUri); "
                         f"use: call {name}")
    run.method = None

    def on_message(params: Any) -> bool:
        run.note(f"the view says: {printable(json.dumps(params, ensure_ascii=False))}")
        return True

    def on_open_link(url: Any) -> bool:
        run.note(f"the view asked to open {printable(str(url))}; not opened")
        return False

    bridge = AppBridge(client, name, provider=provider, on_message=on_message,
                       on_open_link=on_open_link)
    title = f"{name} on {run.server}" if run.server else name

    def on_dropped(item: str) -> None:
        run.note(f"warning: the view's CSP origin {item} is not a plain origin; left out")

    with Viewer(bridge, view, arguments=run.arguments, result=result, title=title,
                on_dropped=on_dropped) as viewer:
        url = viewer.url
        run.stdout.write((json.dumps({"url": url}) if run.json else url) + "\n")
        run.stdout.flush()
        if not option(run.args, "no_open", False):
            if not graphical_browser_possible():
                run.note("no graphical display here; open the address above in a browser "
                         "on this machine")
            elif not webbrowser.open(url):
                run.note("no browser could be opened here; open the address above")
        run.note(f"showing the view of {name}; close the page or press Ctrl-C to stop")
        try:
            viewer.wait()
        finally:
            # First the connection: a view's call still in flight fails at once, so
            # the viewer's threads end without waiting for the server.
            client.close()
        run.note(f"stopped ({viewer.reason})")
    return EXIT_TOOL_ERROR if result.get("isError") is True else EXIT_OK
