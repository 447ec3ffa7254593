"""The text of an ``mcpServers`` file: JSON with comments, and ``${VAR}`` references.

This module owns two string transformations :mod:`mcp_client.config` applies
before it reads a configuration's meaning: :func:`blank_jsonc` makes VS
Code's JSON-with-comments parseable by :mod:`json` without moving a single
character (so a syntax error's line and column stay those of the file), and
:func:`expand` resolves variable references.  Strings in, strings out: no
I/O, no knowledge of servers or keys (the caller names those in its error).
The rules themselves are recorded in :mod:`mcp_client.config`.
"""

from __future__ import annotations

import re
from typing import Mapping

__all__ = ["blank_jsonc", "expand", "Unexpandable"]

_VAR = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(?::-(.*))?", re.DOTALL)
#: How deep defaults may nest (``${A:-${B:-${C}}}`` is 3): a bound, not a shell's rule.
MAX_DEPTH = 8


class Unexpandable(ValueError):
    """A reference that cannot be expanded; the message says why, quoting no value."""


def expand(text: str, environ: Mapping[str, str], *, strict: bool = True) -> str:
    """Expand ``${VAR}``, ``${VAR:-default}`` and ``${env:VAR}`` in ``text``.

    A default may hold references of its own (``${A:-${B:-x}}``), up to
    :data:`MAX_DEPTH` deep; it is expanded only when it is used, as in a
    POSIX shell.  Messages name variables, never a value or the text around
    the reference: a configuration's strings may be secrets.

    Args:
        text: the value from the file.
        environ: where variables are looked up.
        strict: False keeps whatever cannot be expanded as written (a whole
            reference, nested defaults included).

    Raises:
        Unexpandable: an unset variable without a default, an unclosed
            ``${``, defaults nested too deep, or a reference of another form
            (only when ``strict``).
    """
    return _expand(text, environ, strict, 0)


def _expand(text: str, environ: Mapping[str, str], strict: bool, depth: int) -> str:
    out: list[str] = []
    pos = 0
    while (start := text.find("$", pos)) >= 0:
        out.append(text[pos:start])
        if text.startswith("$${", start):
            out.append("${")
            pos = start + 3
            continue
        if not text.startswith("${", start):
            out.append("$")
            pos = start + 1
            continue
        end = _closing(text, start)
        if end < 0 and not strict:
            pos = start
            break
        if end < 0:
            raise Unexpandable(f"unclosed \"${{\" at character {start + 1}")
        out.append(_lookup(text[start:end + 1], environ, strict, depth))
        pos = end + 1
    out.append(text[pos:])
    return "".join(out)


def _closing(text: str, start: int) -> int:
    """The index of the ``}`` that closes the ``${`` at ``start``, or -1."""
    level, i = 1, start + 2
    while i < len(text):
        if text.startswith("$${", i):   # an escaped "${" opens nothing
            i += 3
        elif text.startswith("${", i):
            level, i = level + 1, i + 2
        elif text[i] == "}":
            level -= 1
            if level == 0:
                return i
            i += 1
        else:
            i += 1
    return -1


def _lookup(reference: str, environ: Mapping[str, str], strict: bool, depth: int) -> str:
    body = reference[2:-1]
    body = body[4:] if body.startswith("env:") else body
    match = _VAR.fullmatch(body)
    if match is None and not strict:
        return reference
    if match is None:
        raise Unexpandable(f"cannot expand {_shown(reference)}: only ${{VAR}}, "
                           "${VAR:-default} and ${env:VAR} are understood")
    name, default = match.group(1), match.group(2)
    value = environ.get(name)
    if default is not None and not value:
        return _default(reference, name, default, environ, strict, depth)
    if value is None:
        if not strict:
            return reference
        raise Unexpandable(f"environment variable {name} is not set (write "
                           f"${{{name}:-default}} to give a fallback)")
    return value


def _default(reference: str, name: str, default: str, environ: Mapping[str, str],
             strict: bool, depth: int) -> str:
    try:
        if depth >= MAX_DEPTH:
            raise Unexpandable(f"the default of ${{{name}:-...}} nests references more than "
                               f"{MAX_DEPTH} deep")
        return _expand(default, environ, True, depth + 1)
    except Unexpandable:
        if strict:
            raise
        return reference   # a disabled entry keeps the whole reference as written


def _shown(reference: str) -> str:
    """A reference as an error may quote it: a default's text left out (it may be a secret)."""
    head, sep, _ = reference.partition(":-")
    shown = f"{head}:-...}}" if sep else reference
    return shown if len(shown) <= 80 else shown[:77] + "..."


def blank_jsonc(text: str) -> str:
    """``text`` with comments and trailing commas replaced by spaces (newlines kept)."""
    chars = list(text)
    i, n = 0, len(chars)
    last_comma: int | None = None
    while i < n:
        c = chars[i]
        if c == '"':
            i = _string_end(text, i)
            last_comma = None
            continue
        if c == "/" and i + 1 < n and chars[i + 1] in "/*":
            end = text.find("\n", i) if chars[i + 1] == "/" else text.find("*/", i + 2)
            end = n if end < 0 else (end if chars[i + 1] == "/" else end + 2)
            for j in range(i, end):
                if chars[j] != "\n":
                    chars[j] = " "
            i = end
            continue
        if c == ",":
            last_comma = i
        elif c in "}]" and last_comma is not None:
            chars[last_comma] = " "
            last_comma = None
        elif not c.isspace():
            last_comma = None
        i += 1
    return "".join(chars)


def _string_end(text: str, start: int) -> int:
    """The index just past the JSON string that opens at ``start``."""
    i = start + 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
        elif text[i] == '"':
            return i + 1
        elif text[i] == "\n":
            return i   # unterminated: let the JSON parser report it
        else:
            i += 1
    return i
