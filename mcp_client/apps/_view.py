"""What a tool says about its view, and the view read: :class:`AppView`.

This module owns reading the ``io.modelcontextprotocol/ui`` extension's tool
metadata (SEP-1865, 2026-01-26, "Resource Discovery": ``_meta.ui.resourceUri``,
the deprecated flat ``_meta["ui/resourceUri"]``, ``_meta.ui.visibility``) and
turning a ``resources/read`` result into an :class:`AppView`.  It does no
I/O: the client reads the resource and hands the result over.
"""

from __future__ import annotations

import base64
import binascii
import copy
from dataclasses import dataclass
from typing import Any, Mapping

from ..exceptions import MCPClientError

__all__ = ["EXTENSION", "MIME_TYPE", "PROTOCOL_VERSION", "AppView", "AppViewError",
           "ui_meta", "resource_uri", "visibility", "model_may_see", "app_may_call",
           "view_from"]

#: The extension's identifier (SEP-1865, "Extension Identifier").
EXTENSION = "io.modelcontextprotocol/ui"
#: The one content type a view may have (SEP-1865, "UI Resource Format").
MIME_TYPE = "text/html;profile=mcp-app"
#: The version of the view dialect this host speaks (``ui/initialize``'s ``protocolVersion``).
PROTOCOL_VERSION = "2026-01-26"
#: ``visibility`` when a tool gives none (SEP-1865, "Visibility").
DEFAULT_VISIBILITY = ("model", "app")


class AppViewError(MCPClientError):
    """A tool's view that cannot be shown: not a ``ui://`` URI, or not an MCP App's HTML.

    Attributes:
        tool: the tool's name.
        uri: the view's URI as the tool gave it.
        reason: what is wrong, in words.
    """

    def __init__(self, reason: str, *, tool: str, uri: Any) -> None:
        super().__init__(f"the view of tool {tool!r} ({uri!r}) cannot be shown: {reason}")
        self.tool = tool
        self.uri = uri
        self.reason = reason


@dataclass(frozen=True)
class AppView:
    """A tool's view, read and checked: what a host page renders in a sandboxed iframe.

    Attributes:
        uri: the ``ui://`` resource it was read from.
        html: the HTML document (a ``blob`` is decoded as UTF-8).
        mime_type: ``text/html;profile=mcp-app``, as the server spelled it.
        csp: ``_meta.ui.csp`` (the origins the view asks for), unchanged, or None:
            the host builds the Content-Security-Policy from it (and MUST use the
            spec's restrictive default when it is None).
        permissions: ``_meta.ui.permissions`` (camera, microphone, ...), unchanged, or None.
        meta: the whole ``_meta.ui`` (``domain``, ``prefersBorder``, ...): the resource
            content's, else the tool's; ``{}`` when neither has one.
    """

    uri: str
    html: str
    mime_type: str
    csp: Mapping[str, Any] | None
    permissions: Mapping[str, Any] | None
    meta: Mapping[str, Any]


def ui_meta(item: Mapping[str, Any] | None) -> dict[str, Any]:
    """``item["_meta"]["ui"]`` when it is an object, else ``{}`` (never raises)."""
    meta = item.get("_meta") if isinstance(item, Mapping) else None
    ui = meta.get("ui") if isinstance(meta, Mapping) else None
    return dict(ui) if isinstance(ui, Mapping) else {}


def resource_uri(tool: Mapping[str, Any]) -> str | None:
    """The tool's view URI: ``_meta.ui.resourceUri``, else the deprecated flat
    ``_meta["ui/resourceUri"]``; None when it names none (or not as a string)."""
    found = ui_meta(tool).get("resourceUri")
    if found is None:
        meta = tool.get("_meta")
        found = meta.get("ui/resourceUri") if isinstance(meta, Mapping) else None
    return found if isinstance(found, str) and found else None


def visibility(tool: Mapping[str, Any]) -> tuple[str, ...]:
    """Who may call the tool: ``_meta.ui.visibility``, ``("model", "app")`` when absent.

    A value that is not a list of strings is read as absent: the spec's
    default, so a malformed entry hides nothing from a model that a server
    without the extension would have shown.
    """
    given = ui_meta(tool).get("visibility")
    if isinstance(given, list) and all(isinstance(item, str) for item in given):
        return tuple(given)
    return DEFAULT_VISIBILITY


def model_may_see(tool: Mapping[str, Any]) -> bool:
    """Whether a model may be offered and may call the tool (its visibility has ``"model"``)."""
    return "model" in visibility(tool)


def app_may_call(tool: Mapping[str, Any]) -> bool:
    """Whether a view of the tool's server may call it (its visibility has ``"app"``)."""
    return "app" in visibility(tool)


def _same_type(mime: Any) -> bool:
    """``mime`` is the MCP App type (case and blanks around ``;`` aside)."""
    if not isinstance(mime, str):
        return False
    return ";".join(part.strip() for part in mime.lower().split(";")) == MIME_TYPE


def view_from(tool: Mapping[str, Any], uri: str, result: Mapping[str, Any]) -> AppView:
    """The :class:`AppView` in a ``resources/read`` result for the tool's ``uri``.

    The content whose ``uri`` is ``uri`` is taken (the only one, when it names
    none).  Its ``_meta.ui`` is the view's, falling back to the tool's.

    Raises:
        AppViewError: no such content, a MIME type other than
            ``text/html;profile=mcp-app``, or neither ``text`` nor a UTF-8 ``blob``.
    """
    name = str(tool.get("name"))
    contents = result.get("contents")
    items = [item for item in contents if isinstance(item, Mapping)] \
        if isinstance(contents, list) else []
    matching = [item for item in items if item.get("uri") == uri]
    if not matching and len(items) == 1 and items[0].get("uri") is None:
        matching = items
    if not matching:
        raise AppViewError("the server's resources/read answer has no content for it",
                           tool=name, uri=uri)
    content = matching[0]
    mime = content.get("mimeType")
    if not _same_type(mime):
        raise AppViewError(f"its MIME type is {mime!r}, not {MIME_TYPE!r}", tool=name, uri=uri)
    meta = ui_meta(content) or ui_meta(tool)
    csp, permissions = meta.get("csp"), meta.get("permissions")
    return AppView(uri=uri, html=_html(content, name, uri), mime_type=str(mime),
                   csp=copy.deepcopy(csp) if isinstance(csp, Mapping) else None,
                   permissions=copy.deepcopy(permissions)
                   if isinstance(permissions, Mapping) else None,
                   meta=copy.deepcopy(meta))


def _html(content: Mapping[str, Any], name: str, uri: str) -> str:
    text = content.get("text")
    if isinstance(text, str):
        return text
    blob = content.get("blob")
    if isinstance(blob, str):
        try:
            return base64.b64decode(blob, validate=True).decode("utf-8")
        except (binascii.Error, ValueError) as exc:
            raise AppViewError(f"its blob is not base64 of UTF-8 HTML ({exc})",
                               tool=name, uri=uri) from None
    raise AppViewError("its content has neither text nor blob", tool=name, uri=uri)
