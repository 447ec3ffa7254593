"""What a skill entry must be, and whether fetched bytes are what it describes.

The ``io.modelcontextprotocol/skills`` extension (SEP-2640, "Skill Entries"
and "Integrity and Verification") gives each skill an entry: the URI of its
``SKILL.md``, that file's YAML frontmatter rendered as JSON, and a manifest of
every file with its SHA-256 digest and byte size.  This module checks an
entry's shape, checks one file's bytes against its manifest line, and checks
a ``SKILL.md``'s frontmatter against the entry's.  Pure functions: no I/O,
no threads; each check answers a :class:`~mcp_client.exceptions.SkillError`
(or None), which its caller raises.

YAML is read with PyYAML (imported on the first frontmatter check), under
the YAML 1.2 core schema's rules for plain scalars -- the ones a server that
renders its frontmatter from JavaScript or a 1.2 parser applies -- rather
than PyYAML's YAML 1.1 defaults, under which ``no`` is False and
``2024-01-01`` a date: a skill is not refused because two parsers disagree.
"""

from __future__ import annotations

import re

from ..exceptions import SkillError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Mapping

__all__ = ["EXTENSION", "MAX_RESOURCES", "MAX_TOTAL_BYTES", "entry_problem", "skill_path",
           "content_bytes", "file_problem", "frontmatter_problem", "relative_path"]

#: The extension's identifier (SEP-2640 "Extension Identifier").
EXTENSION = "io.modelcontextprotocol/skills"
#: Files per skill every host accepts (SEP-2640 "Limits"); larger skills are declined.
MAX_RESOURCES = 512
#: Bytes per skill, summed over its files, every host accepts (SEP-2640 "Limits": 16 MiB).
MAX_TOTAL_BYTES = 16 * 1024 * 1024
# Patterns as strings, compiled (and kept by ``re``) on first use, not at import.
_DIGEST = r"sha256:[0-9a-f]{64}"
_SKILL_MD = "/SKILL.md"
#: A leading ``---`` block (a BOM before it tolerated), as the Agent Skills format has it.
_FRONTMATTER = r"---\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|$)"


def skill_path(uri: Any) -> str | None:
    """The ``<skill-path>`` of a ``SKILL.md`` URI (``acme/billing/refunds``), or None."""
    if not isinstance(uri, str) or not uri.endswith(_SKILL_MD) or "://" not in uri:
        return None
    path = uri[uri.index("://") + 3:-len(_SKILL_MD)]
    if not path or any(_bad_segment(part) for part in path.split("/")):
        return None
    return path


def _bad_segment(part: str) -> bool:
    """Whether one path segment could leave its directory or hide what it is.

    Refused beyond ``.`` and ``..``: their percent-encoded spellings (RFC 3986
    §6.2.2.2 decodes them before dot segments are removed), a backslash (a
    separator on Windows and to browsers), and any character that does not
    print (a NUL, a right-to-left override that makes ``gpj.exe`` read
    ``exe.jpg``).
    """
    return (part.lower().replace("%2e", ".") in ("", ".", "..") or "\\" in part
            or not part.isprintable())


def entry_problem(entry: Any, asked: str | None) -> SkillError | None:
    """Why ``entry`` is no usable skill entry (SEP-2640 "Skill Entries"), or None.

    Checked: a ``uri`` naming a ``SKILL.md``, whose last path segment is the
    frontmatter's ``name``; a ``frontmatter`` object with string ``name`` and
    ``description``; ``resources`` either ``"dynamic"`` or a list of
    ``{uri, digest, size}`` -- each file once, inside the skill's directory,
    ``SKILL.md`` among them -- within :data:`MAX_RESOURCES` files and
    :data:`MAX_TOTAL_BYTES` bytes.
    """
    def bad(detail: str, reason: str = "invalid") -> SkillError:
        return SkillError(asked, reason, detail)

    if not isinstance(entry, dict):
        return bad("the entry is not an object")
    uri, frontmatter = entry.get("uri"), entry.get("frontmatter")
    path = skill_path(uri)
    if path is None:
        return bad(f"the entry's uri {uri!r} does not name a SKILL.md")
    if not isinstance(frontmatter, dict) or not all(
            isinstance(frontmatter.get(key), str) and frontmatter[key]
            for key in ("name", "description")):
        return bad("the entry's frontmatter has no name and description")
    if path.rsplit("/", 1)[-1] != frontmatter["name"]:
        return bad(f"the uri {uri} does not end in the skill's name {frontmatter['name']!r}")
    resources = entry.get("resources")
    if resources == "dynamic":
        return None
    if not isinstance(resources, list):
        return bad("the entry's resources are neither a list nor \"dynamic\"")
    return _manifest_problem(resources, str(uri), asked)


def _manifest_problem(resources: list[Any], uri: str, asked: str | None) -> SkillError | None:
    if len(resources) > MAX_RESOURCES:
        return SkillError(asked, "too_large", f"{len(resources)} files, more than the "
                          f"{MAX_RESOURCES} a skill may have")
    seen: set[str] = set()
    total = 0
    for item in resources:
        if not isinstance(item, dict) or not isinstance(item.get("uri"), str):
            return SkillError(asked, "invalid", "a resources entry has no uri")
        file_uri, digest, size = item["uri"], item.get("digest"), item.get("size")
        if file_uri in seen or (file_uri != uri and relative_path(uri, file_uri) is None):
            return SkillError(asked, "invalid", f"{file_uri} is listed twice or lies outside "
                              "the skill's directory", uri=file_uri)
        if not isinstance(digest, str) or not re.fullmatch(_DIGEST, digest):
            return SkillError(asked, "invalid", f"{file_uri} has no sha256:<hex> digest",
                              uri=file_uri)
        if isinstance(size, bool) or not isinstance(size, int) or size < 0:
            return SkillError(asked, "invalid", f"{file_uri} has no byte size", uri=file_uri)
        seen.add(file_uri)
        total += size
    if uri not in seen:
        return SkillError(asked, "invalid", "the resources do not list the SKILL.md itself")
    if total > MAX_TOTAL_BYTES:
        return SkillError(asked, "too_large", f"{total} bytes, more than the "
                          f"{MAX_TOTAL_BYTES} a skill may have")
    return None


def relative_path(skill_uri: str, file_uri: str) -> str | None:
    """``file_uri``'s path inside the skill whose ``SKILL.md`` is ``skill_uri``, or None."""
    root = skill_uri[:-len(_SKILL_MD)] + "/"
    if not file_uri.startswith(root):
        return None
    relative = file_uri[len(root):]
    # a ":" would make the path a drive ("C:/...") where it is joined to a directory
    if ":" in relative or any(_bad_segment(part) for part in relative.split("/")):
        return None
    return relative


def content_bytes(result: Mapping[str, Any], uri: str) -> tuple[bytes, dict[str, Any]] | None:
    """The raw bytes of ``uri`` in a ``resources/read`` result, with their content item.

    The item whose ``uri`` is the one read, else the only item there is; its
    ``text`` is taken as UTF-8, its ``blob`` decoded from base64.  None: no
    such item, or one that holds neither.
    """
    import base64
    import binascii

    contents = result.get("contents")
    if not isinstance(contents, list):
        return None
    items = [c for c in contents if isinstance(c, dict)]
    matching = [c for c in items if c.get("uri") == uri] or (items if len(items) == 1 else [])
    if len(matching) != 1:
        return None
    item = matching[0]
    try:
        if isinstance(item.get("text"), str):
            return item["text"].encode("utf-8"), item
        if isinstance(item.get("blob"), str):
            return base64.b64decode(item["blob"], validate=True), item
    except (UnicodeEncodeError, binascii.Error, ValueError):
        return None
    return None


def file_problem(data: bytes, listed: Mapping[str, Any], name: str | None) -> SkillError | None:
    """Whether ``data`` is the file its manifest line describes (SEP-2640 "Verification on Read").

    The size first: a read of another length fails whether or not its digest
    would have.
    """
    import hashlib   # here, not at import: hashlib is a sixth of ``import mcp_client``

    uri = listed["uri"]
    if len(data) != listed["size"]:
        return SkillError(name, "size", f"{uri} is {len(data)} bytes, the entry says "
                          f"{listed['size']}", uri=uri)
    digest = "sha256:" + hashlib.sha256(data).hexdigest()
    if digest != listed["digest"]:
        return SkillError(name, "digest", f"{uri} does not match its digest", uri=uri)
    return None


def frontmatter_problem(data: bytes, entry: Mapping[str, Any],
                        name: str | None) -> SkillError | None:
    """Whether a ``SKILL.md``'s frontmatter is the entry's, field by field (SEP-2640
    "Frontmatter Verification")."""
    uri = entry["uri"]

    def refused(detail: str) -> SkillError:
        return SkillError(name, "frontmatter", detail, uri=uri)

    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return refused(f"{uri} is not UTF-8 text")
    found = re.match(_FRONTMATTER, text[1:] if text.startswith("\ufeff") else text, re.DOTALL)
    if found is None:
        return refused(f"{uri} does not begin with a --- frontmatter block")
    parsed = _parse_yaml(found.group(1))
    if not isinstance(parsed, dict):
        return refused(f"{uri}'s frontmatter is not a YAML mapping (with each key once)")
    expected = entry["frontmatter"]
    for key in sorted(set(parsed) | set(expected), key=str):
        try:
            same = key in parsed and key in expected and _same(parsed[key], expected[key])
        except RecursionError:   # nesting no frontmatter needs
            same = False
        if not same:
            return refused(f"{uri}'s frontmatter differs from the entry's at {key!r}")
    return None


def _same(left: Any, right: Any) -> bool:
    """JSON equality: a boolean is no number, ``1`` is ``1.0``, and key order is no matter."""
    if isinstance(left, bool) or isinstance(right, bool):
        return type(left) is type(right) and left == right
    if isinstance(left, (int, float)) and isinstance(right, (int, float)):
        return left == right
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(_same(left[k], right[k]) for k in left)
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(_same(a, b) for a, b in zip(left, right))
    if left is None or isinstance(left, str):
        return type(left) is type(right) and left == right
    return False   # a date, a set, bytes: nothing a JSON entry can hold


def _parse_yaml(text: str) -> Any:
    """``text`` as YAML, or None when it is not (or is more than one document, or
    nests past the parser's recursion, or repeats a key in a mapping)."""
    import yaml

    try:
        return yaml.load(text, Loader=_loader())   # noqa: S506 (a SafeLoader subclass)
    except (yaml.YAMLError, RecursionError):
        return None


_LOADER: Any = None


def _loader() -> Any:
    """A ``yaml.SafeLoader`` resolving plain scalars by the YAML 1.2 core schema."""
    global _LOADER
    if _LOADER is not None:
        return _LOADER
    import yaml

    class CoreLoader(yaml.SafeLoader):
        yaml_implicit_resolvers: dict[Any, Any] = {}

    core = (
        ("null", r"~|null|Null|NULL|", "~nN"),
        ("bool", r"true|True|TRUE|false|False|FALSE", "tTfF"),
        ("int", r"[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+", "-+0123456789"),
        ("float", r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
                  r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)", "-+0123456789."),
    )
    for tag, pattern, first in core:
        CoreLoader.add_implicit_resolver(f"tag:yaml.org,2002:{tag}",
                                         re.compile(f"^(?:{pattern})$"), list(first) + [""])

    def core_int(loader: Any, node: Any) -> int:
        value = loader.construct_scalar(node)
        return int(value, 0) if value[:2] in ("0o", "0x") else int(value, 10)

    CoreLoader.add_constructor("tag:yaml.org,2002:int", core_int)

    def unique_map(loader: Any, node: Any) -> dict[Any, Any]:
        # PyYAML keeps the last of a repeated key, other parsers the first or
        # neither: a SKILL.md that reads differently to the host is refused.
        mapping: dict[Any, Any] = loader.construct_mapping(node, deep=True)
        if len(mapping) != len(node.value):   # node.value: the pairs, merges flattened
            raise yaml.constructor.ConstructorError(None, None, "a key is repeated",
                                                    node.start_mark)
        return mapping

    CoreLoader.add_constructor("tag:yaml.org,2002:map", unique_map)
    _LOADER = CoreLoader
    return CoreLoader
