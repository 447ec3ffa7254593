"""Content blocks as the text a model reads (shared by every provider, through
:mod:`mcp_client.provider`, which re-exports :func:`flatten_content` and
:func:`base64_size`).  Pure: dicts in, text out.
"""

from __future__ import annotations

from typing import Any, Mapping

__all__ = ["flatten_content", "base64_size"]


def flatten_content(blocks: Any) -> str:
    """Content blocks as the text a model reads: one line (or more) per block.

    Text is kept; images, audio and blob resources are named with their MIME
    type and decoded size (``[image: image/png, 67 bytes]``), never inlined (a
    base64 payload costs a fortune in tokens and tells a model nothing it can
    act on).  An embedded text resource is its text under a ``[resource:
    uri]`` line; a resource link is ``[resource link: uri (name, mimeType)]``.
    """
    if not isinstance(blocks, list):
        return ""
    return "\n".join(_block_text(block) for block in blocks)


def _block_text(block: Any) -> str:
    if not isinstance(block, dict):
        return "[unreadable content block]"
    kind = block.get("type")
    if kind == "text":
        text = block.get("text")
        return text if isinstance(text, str) else ""
    if kind in ("image", "audio"):
        return f"[{kind}: {_mime(block)}, {base64_size(block.get('data'))}]"
    if kind == "resource_link":
        return _link_text(block)
    if kind == "resource":
        return _resource_text(block.get("resource"))
    return f"[{kind if isinstance(kind, str) else 'unknown'} content omitted]"


def _mime(block: Mapping[str, Any]) -> str:
    mime = block.get("mimeType")
    return mime if isinstance(mime, str) and mime else "unknown type"


def base64_size(data: Any) -> str:
    """The decoded size of base64 ``data``, as text ("123 bytes"; "unknown size")."""
    if not isinstance(data, str):
        return "unknown size"
    text = "".join(data.split())
    padding = len(text) - len(text.rstrip("="))
    return f"{max(0, len(text) * 3 // 4 - padding)} bytes"


def _link_text(block: Mapping[str, Any]) -> str:
    details = [value for value in (block.get("title") or block.get("name"),
                                   block.get("mimeType")) if isinstance(value, str) and value]
    size = block.get("size")
    if isinstance(size, int) and not isinstance(size, bool):
        details.append(f"{size} bytes")
    text = f"[resource link: {block.get('uri')}"
    text += f" ({', '.join(details)})]" if details else "]"
    description = block.get("description")
    return f"{text} {description}" if isinstance(description, str) and description else text


def _resource_text(resource: Any) -> str:
    if not isinstance(resource, dict):
        return "[unreadable resource]"
    uri = resource.get("uri")
    text = resource.get("text")
    if isinstance(text, str):
        return f"[resource: {uri}]\n{text}"
    return f"[resource: {uri}, {_mime(resource)}, {base64_size(resource.get('blob'))}]"
