"""MCP Apps (``io.modelcontextprotocol/ui``): the host backend for tools with a view.

A tool may come with an interactive HTML view, a ``ui://`` resource that a
host renders in a sandboxed iframe and that talks back over a small
JSON-RPC dialect (SEP-1865, stable 2026-01-26).  This package is the part of
such a host that needs no browser:

* ``connect_*(..., apps=True)`` (config: ``"apps": true``) declares the
  extension; a tool whose ``_meta.ui.visibility`` leaves out ``"model"`` is
  never offered to a model (``tools_for_llm()``, every layer and adapter),
  while ``list_tools()`` still lists it;
* :meth:`Client.app_for(tool) <mcp_client.Client.app_for>` reads and checks
  the tool's view, an :class:`AppView`;
* :class:`AppBridge` answers the view's messages and builds the
  notifications the host sends it; a view's ``tools/call`` goes through the
  provider it is given, marked as the view's (:class:`AppCall`), so a
  :class:`~mcp_client.policy.Policy` judges it like any call.

Rendering the view -- the iframe, its ``sandbox`` attributes, the
Content-Security-Policy built from :attr:`AppView.csp`, relaying
``postMessage`` -- is the host page's job (``mcp-client app TOOL`` is one).
"""

from __future__ import annotations

from ._host import REFUSED, AppBridge, AppClient
from ._origin import APP_CALL, AppCall, take_app_call
from ._view import (EXTENSION, MIME_TYPE, PROTOCOL_VERSION, AppView, AppViewError,
                    app_may_call, model_may_see, resource_uri, ui_meta, view_from, visibility)

__all__ = ["AppBridge", "AppView", "AppViewError", "AppCall", "AppClient", "APP_CALL",
           "EXTENSION", "MIME_TYPE", "PROTOCOL_VERSION", "REFUSED", "app_may_call",
           "model_may_see", "resource_uri", "take_app_call", "ui_meta", "view_from",
           "visibility"]
