"""What ``python -m mcp_client`` prints for people: tables and readable results.

This module owns the human-readable rendering of each verb's answer.  Every
function is pure -- the data a verb got from the server in, text out -- so
the command line's output can be checked without a server or a terminal.
``--json`` output does not come through here: it is the data as the client
returned it.

Decisions:

* Tools are a table of name, hints, arguments and description.  The hints
  column has one position per annotation -- ``r`` readOnlyHint, ``d``
  destructiveHint, ``i`` idempotentHint, ``o`` openWorldHint -- showing the
  letter when the server declared it true, ``-`` when it declared it false
  and ``.`` when it said nothing (the spec's default then applies); a legend
  follows the table.  Arguments are the input schema's properties, an
  optional one marked with a trailing ``?``.
* Display metadata (2025-11-25 / 2026-07-28 ``BaseMetadata.title``): when any
  entry of a table has a ``title`` -- for tools, ``annotations.title`` counts
  too -- the table gets a TITLE column after the name; a server without titles
  gets the table as before, where a missing description shows the title.
  Icons are never drawn (a terminal cannot); ``--json`` keeps them.
* Descriptions show their first line; on a terminal the last column is cut
  to the terminal's width (with ``...``), never when output is piped.  A
  table's cells show control characters escaped (``\\x1b``).
* Results are text; images, audio and blob resources are named with their
  MIME type and decoded size (``[image: image/png, 67 bytes]``), never
  dumped (the LLM bridge's rendering, :func:`mcp_client.provider.flatten_content`).
  A result with no content but ``structuredContent`` prints that JSON.
* A resource read with one text content prints the text alone, like ``cat``;
  with several, each is introduced by a ``[resource: uri]`` line.
* A failure under ``--json`` is the one document printed,
  ``{"error": {...}}`` (:func:`write_error_json`), and a server that has not
  said its name yet is named by its command line (:func:`program_label`).
"""

from __future__ import annotations

import json
import os
from typing import IO, Any, Mapping, Sequence

from ..provider import base64_size, flatten_content

__all__ = ["table", "tools_table", "resources_table", "templates_table", "prompts_table",
           "info_text", "result_text", "contents_text", "prompt_text", "HINTS_LEGEND",
           "write_error_json", "program_label"]

#: (annotation, letter) in the order of the hints column.
_HINTS = (("readOnlyHint", "r"), ("destructiveHint", "d"), ("idempotentHint", "i"),
          ("openWorldHint", "o"))
#: Programs whose first argument says more about the server than their own name.
_LAUNCHERS = ("python", "node", "npx", "uvx", "uv", "deno", "bun", "docker", "pipx")
HINTS_LEGEND = ("hints: r read-only, d destructive, i idempotent, o open-world "
                "(letter: declared true, -: declared false, .: not declared)")


def table(headers: Sequence[str], rows: Sequence[Sequence[str]], *,
          width: int | None = None) -> str:
    """Rows in aligned columns under ``headers``; the last column cut to ``width``.

    Every cell is shown with its control characters escaped: the cells are
    the server's names and descriptions, and an ESC sequence in one (``ESC[8m``
    conceals what follows) could hide from the person reading the table what
    a model reads in the same description.
    """
    from ._terminal import printable

    rows = [[printable(cell) for cell in row] for row in rows]
    widths = [max(len(row[n]) for row in [headers, *rows]) for n in range(len(headers) - 1)]
    lines = []
    for row in [headers, *rows]:
        head = "  ".join(cell.ljust(w) for cell, w in zip(row, widths))
        line = f"{head}  {row[-1]}" if widths else row[-1]
        if width is not None and len(line) > width:
            line = line[:max(width - 3, len(head) + 2)].rstrip() + "..."
        lines.append(line.rstrip())
    return "\n".join(lines)


def _first_line(text: Any) -> str:
    if not isinstance(text, str):
        return ""
    lines = text.strip().splitlines()
    return lines[0].strip() if lines else ""


def _hints(tool: Mapping[str, Any]) -> str:
    annotations = tool.get("annotations")
    annotations = annotations if isinstance(annotations, Mapping) else {}
    marks = []
    for key, letter in _HINTS:
        value = annotations.get(key)
        marks.append(letter if value is True else "-" if value is False else ".")
    return "".join(marks)


def _arguments(schema: Any) -> str:
    if not isinstance(schema, Mapping) or not isinstance(schema.get("properties"), Mapping):
        return ""
    required = schema.get("required")
    required = set(required) if isinstance(required, list) else set()
    return ", ".join(name if name in required else f"{name}?" for name in schema["properties"])


def _title(item: Mapping[str, Any]) -> str:
    """``title``, else ``annotations.title`` (a tool's older place for it), or ""."""
    annotations = item.get("annotations")
    title = annotations.get("title") if isinstance(annotations, Mapping) else None
    return _first_line(item.get("title")) or _first_line(title)


def _description(item: Mapping[str, Any]) -> str:
    return _first_line(item.get("description")) or _title(item)


def _titled(headers: list[str], rows: list[list[str]], items: Sequence[Mapping[str, Any]],
            after: int) -> tuple[list[str], list[list[str]]]:
    """Add a TITLE column after column ``after`` when any item has a title.

    With the column, the description column shows descriptions only.
    """
    titles = [_title(item) for item in items]
    if not any(titles):
        return headers, rows
    described = [_first_line(item.get("description")) for item in items]
    rows = [[*row[:after + 1], title, *row[after + 1:-1], text]
            for row, title, text in zip(rows, titles, described)]
    return [*headers[:after + 1], "TITLE", *headers[after + 1:]], rows


def tools_table(tools: Sequence[Mapping[str, Any]], *, width: int | None = None) -> str:
    """The ``tools`` verb's table, with the hints legend below it."""
    if not tools:
        return "no tools"
    rows = [[str(t.get("name", "")), _hints(t), _arguments(t.get("inputSchema")),
             _description(t)] for t in tools]
    headers, rows = _titled(["NAME", "HINTS", "ARGUMENTS", "DESCRIPTION"], rows, tools, 0)
    return table(headers, rows, width=width) + "\n\n" + HINTS_LEGEND


def resources_table(resources: Sequence[Mapping[str, Any]], *, width: int | None = None) -> str:
    """The ``resources`` verb's table."""
    if not resources:
        return "no resources"
    rows = [[str(r.get("uri", "")), str(r.get("name", "")), str(r.get("mimeType") or ""),
             _description(r)] for r in resources]
    headers, rows = _titled(["URI", "NAME", "MIME TYPE", "DESCRIPTION"], rows, resources, 1)
    return table(headers, rows, width=width)


def templates_table(templates: Sequence[Mapping[str, Any]], *, width: int | None = None) -> str:
    """The ``templates`` verb's table."""
    if not templates:
        return "no resource templates"
    rows = [[str(t.get("uriTemplate", "")), str(t.get("name", "")),
             str(t.get("mimeType") or ""), _description(t)] for t in templates]
    headers, rows = _titled(["URI TEMPLATE", "NAME", "MIME TYPE", "DESCRIPTION"], rows,
                            templates, 1)
    return table(headers, rows, width=width)


def prompts_table(prompts: Sequence[Mapping[str, Any]], *, width: int | None = None) -> str:
    """The ``prompts`` verb's table."""
    if not prompts:
        return "no prompts"
    rows = []
    for prompt in prompts:
        arguments = prompt.get("arguments")
        names = [f"{a.get('name')}" if a.get("required") else f"{a.get('name')}?"
                 for a in arguments if isinstance(a, Mapping)] \
            if isinstance(arguments, list) else []
        rows.append([str(prompt.get("name", "")), ", ".join(names), _description(prompt)])
    headers, rows = _titled(["NAME", "ARGUMENTS", "DESCRIPTION"], rows, prompts, 0)
    return table(headers, rows, width=width)


def info_text(info: Mapping[str, Any]) -> str:
    """The ``info`` verb: who the server is and what it speaks."""
    server = info.get("serverInfo") or {}
    name = " ".join(str(server[k]) for k in ("name", "version") if server.get(k))
    lines = [f"server:        {name or '(unnamed)'}"]
    if server.get("title"):
        lines.append(f"title:         {server['title']}")
    lines.append(f"era:           {info['era']} (protocol {info['protocolVersion']})")
    if info.get("supportedVersions"):
        lines.append(f"versions:      {', '.join(info['supportedVersions'])}")
    caps = info.get("capabilities") or {}
    lines.append(f"capabilities:  {', '.join(sorted(caps)) or 'none'}")
    instructions = info.get("instructions")
    if instructions:
        text = "\n               ".join(str(instructions).strip().splitlines())
        lines.append(f"instructions:  {text}")
    return "\n".join(lines)


def result_text(result: Mapping[str, Any]) -> str:
    """A tool result as text (binary payloads named, not dumped)."""
    text = flatten_content(result.get("content"))
    if not text and "structuredContent" in result:
        return json.dumps(result["structuredContent"], indent=2, ensure_ascii=False)
    return text


def contents_text(result: Mapping[str, Any]) -> str:
    """A ``resources/read`` result: the text itself, blobs named."""
    contents = result.get("contents")
    if not isinstance(contents, list) or not contents:
        return "(the resource is empty)"
    parts = []
    for item in contents:
        if not isinstance(item, Mapping):
            parts.append("[unreadable content]")
            continue
        mime = item.get("mimeType") or "unknown type"
        if isinstance(item.get("text"), str):
            head = "" if len(contents) == 1 else f"[resource: {item.get('uri')}]\n"
            parts.append(head + item["text"])
        else:
            parts.append(f"[blob: {item.get('uri')}, {mime}, {base64_size(item.get('blob'))}]")
    return "\n".join(parts)


def prompt_text(result: Mapping[str, Any]) -> str:
    """A rendered prompt: its description, then each message under its role."""
    lines = []
    if result.get("description"):
        lines.append(f"# {result['description']}")
    for message in result.get("messages") or []:
        if not isinstance(message, Mapping):
            continue
        content = message.get("content")
        blocks = content if isinstance(content, list) else [content]
        lines.append(f"[{message.get('role', '?')}]")
        lines.append(flatten_content(blocks))
    return "\n".join(lines)


def write_error_json(stream: IO[str], error: dict[str, Any]) -> None:
    """Print ``{"error": error}`` as the run's one JSON document."""
    stream.write(json.dumps({"error": error}, indent=2, ensure_ascii=False, default=str) + "\n")
    stream.flush()


def program_label(argv: Sequence[str]) -> str:
    """How a ``--stdio`` server is named before it says its name.

    The program's base name, and for a launcher (``python``, ``npx``...) its
    first argument that is not an option, so ``python -m srv`` is ``python
    srv``; nothing after ``-c`` (code, not a name), never the other arguments
    (they may carry a token).
    """
    program = os.path.basename(argv[0]) or argv[0]
    if not program.startswith(_LAUNCHERS):
        return program
    for arg in argv[1:]:
        if arg == "-c":
            break
        if not arg.startswith("-"):
            return f"{program} {arg}"
    return program
