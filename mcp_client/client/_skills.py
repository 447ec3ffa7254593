"""Skills: the ``io.modelcontextprotocol/skills`` extension (SEP-2640), from the host's side.

A server that declares the extension lists its skills with ``skills/list``
(each entry: the ``SKILL.md`` URI, its frontmatter, and every file with a
digest and size) and answers ``skills/get`` for one skill by URI; the files
themselves are ordinary resources, read with ``resources/read``.

:class:`Skills` is a mixin of :class:`~mcp_client.Client` (like
:class:`~._extras.Extras`): :meth:`~Skills.list_skills` fetches entries and
nothing else (SEP-2640 "Lazy Retrieval": no file before it is asked for);
:meth:`~Skills.read_skill` is the skill-loading path.  It reads ``SKILL.md``
first and verifies its size, digest and frontmatter before it reads any
supporting file, and each of those against its own manifest line; any
failure refuses the whole skill (:class:`~mcp_client.exceptions.SkillError`)
and reads nothing more.  The entry a load uses is the one it was given or
fetched for that load: it is held for that load only, and every file is read
afresh (never from the result cache), so what is verified is what came over
the wire.  Shapes and checks are :mod:`._skillcheck`'s.

Beyond the extension's text: a ``"dynamic"`` skill (no digests) is refused
unless the caller accepts it; a skill past the extension's limits (512 files,
16 MiB) is declined before anything is read.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from .. import protocol
from ..exceptions import MCPClientError, ProtocolError, SkillError
from ._skillcheck import (EXTENSION, MAX_TOTAL_BYTES, content_bytes, entry_problem,
                          file_problem, frontmatter_problem, relative_path, skill_path)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

    from ._connection import Connection

__all__ = ["Skills", "EXTENSION", "DIRECTORY_READ"]

#: The skills extension's directory listing (SEP-2640, ``directoryRead``).
DIRECTORY_READ = "resources/directory/read"


class Skills:
    """Mixin: ``list_skills``, ``read_skill`` and ``read_directory``."""

    _connection: Connection
    _warn: Callable[[str], None]

    def list_skills(self, *, timeout: float | None = None,
                    cancelled: Any = None) -> list[dict[str, Any]]:
        """Every skill the server lists (``skills/list``, all pages): entries, no files.

        Each entry is ``{"uri", "frontmatter": {"name", "description", ...},
        "resources": [{"uri", "digest", "size"}, ...] | "dynamic"}``, as the
        server sent it; an entry out of shape is left out, with a warning.  A
        listing may be partial: a skill missing from it can still be read by
        the URI of its ``SKILL.md``.  Pass an entry to :meth:`read_skill` to
        load that very entry.

        Raises:
            SkillError: ``reason`` ``"not_declared"``: the server does not
                declare the extension, so it is not asked.
            ProtocolError, Timeout, Cancelled, ServerGone, TransportClosed: as every
                request.
        """
        self._check_declared(None)
        kept = []
        for entry in self._skill_entries(timeout, cancelled):
            problem = entry_problem(entry, None)
            if problem is None:
                kept.append(entry)
            else:
                self._warn(f"skills/list: left out an entry: {problem.detail}")
        return kept

    def read_skill(self, skill: str | Mapping[str, Any], *,
                   files: bool | Iterable[str] = True, allow_dynamic: bool = False,
                   timeout: float | None = None, cancelled: Any = None) -> dict[str, Any]:
        """Load one skill: read its files and verify each against the skill's entry.

        The entry comes from ``skill``: an entry :meth:`list_skills` returned
        (used as it is); the URI of a ``SKILL.md`` (``skills/get``); or a name
        (``skills/list``), matched against each entry's name and skill path
        (``acme/billing/refunds``).  ``SKILL.md`` is read first and checked
        -- its byte size, its SHA-256 digest, and its YAML frontmatter field
        by field against the entry's -- before any other file is read; each
        supporting file is checked for size and digest.  The first failure
        refuses the skill and nothing more is read.

        Args:
            skill: an entry, a ``SKILL.md`` URI, or a name.
            files: which supporting files to read too: all of them (True), none
                (False), or these paths inside the skill (``["references/FORMS.md"]``).
            allow_dynamic: load a skill whose ``resources`` is ``"dynamic"``:
                its ``SKILL.md`` alone, checked for its frontmatter only (there
                is no digest to check it against).
            timeout: seconds for each request (None: ``request_timeout``; 0: none).
            cancelled: a ``threading.Event`` or ``Future`` that abandons the load.

        Returns:
            ``{"uri", "name", "frontmatter", "text": <SKILL.md>, "dynamic": bool,
            "files": [{"path", "uri", "mimeType"?, "text" | "blob"}, ...]}``,
            the files in the entry's order.

        Raises:
            SkillError: the skill was not found, is ambiguous, out of shape,
                too large, dynamic, or failed verification (``reason`` says
                which; ``uri`` names the file).
            MCPClientError: ``skill`` or ``files`` is no such thing.
            ProtocolError, Timeout, Cancelled, ServerGone, TransportClosed: as every
                request.
        """
        asked = _asked(skill)
        self._check_declared(asked)
        entry = self._entry_for(skill, asked, timeout, cancelled)
        problem = entry_problem(entry, asked)
        if problem is not None:
            raise problem
        dynamic = entry["resources"] == "dynamic"
        if dynamic and not allow_dynamic:
            raise SkillError(asked, "dynamic", "the server publishes no digests for this "
                             "skill (resources: \"dynamic\"); pass allow_dynamic=True to load "
                             "its SKILL.md unverified", uri=entry["uri"])
        wanted = _wanted(entry, files, asked, dynamic)
        text = self._load_skill_md(entry, asked, dynamic, timeout, cancelled)
        loaded = [self._load_file(listed, entry, asked, timeout, cancelled) for listed in wanted]
        return {"uri": entry["uri"], "name": entry["frontmatter"]["name"],
                "frontmatter": dict(entry["frontmatter"]), "text": text, "dynamic": dynamic,
                "files": loaded}

    def read_directory(self, uri: str, *, timeout: float | None = None,
                       cancelled: Any = None) -> list[dict[str, Any]]:
        """The direct children of a directory resource (``resources/directory/read``, all pages).

        The skills extension's directory read (SEP-2640 ``directoryRead``): a
        server that sets ``directoryRead: true`` in its extension settings
        answers it for a directory inside a skill, named without a trailing
        slash (``skill://acme/billing/references``).  Files come as ordinary
        resource entries; a subdirectory has ``mimeType`` ``inode/directory``, to
        be read in turn.  An entry with no string ``uri`` is left out, with a warning.

        Raises:
            SkillError: ``reason`` ``"not_declared"``: the server does not declare
                the extension, or does not offer ``directoryRead``; it is not asked.
            MCPClientError: ``uri`` is not a non-empty string.
            ProtocolError: the server refused (``-32602`` for a URI that is not a
                directory), or a page out of shape; Timeout, Cancelled, ServerGone,
                TransportClosed: as every request.
        """
        if not isinstance(uri, str) or not uri:
            raise MCPClientError(f"read_directory takes a directory URI, not {uri!r}")
        self._check_declared(None)
        settings = self._connection.discovered().capabilities["extensions"][EXTENSION]
        if not isinstance(settings, Mapping) or settings.get("directoryRead") is not True:
            raise SkillError(None, "not_declared", "the server does not offer "
                             "resources/directory/read (directoryRead is not true)", uri=uri)
        kept = []
        for entry in self._connection.list_all(DIRECTORY_READ, "resources", refresh=True,
                                               timeout=timeout, cancelled=cancelled,
                                               params={"uri": uri}):
            if isinstance(entry, dict) and isinstance(entry.get("uri"), str):
                kept.append(entry)
            else:
                self._warn(f"{DIRECTORY_READ}: left out an entry with no uri: {entry!r:.120}")
        return kept

    # -- finding the entry --------------------------------------------------------

    def _check_declared(self, asked: str | None) -> None:
        """SEP-2640 "Capability Negotiation": skills/* only after the server's declaration."""
        self._connection.ensure_era()
        extensions = self._connection.discovered().capabilities.get("extensions")
        if not isinstance(extensions, dict) or EXTENSION not in extensions:
            raise SkillError(asked, "not_declared", f"the server does not declare the "
                             f"{EXTENSION} extension")

    def _skill_entries(self, timeout: float | None, cancelled: Any) -> list[Any]:
        return self._connection.list_all("skills/list", "skills", refresh=True,
                                         timeout=timeout, cancelled=cancelled)

    def _entry_for(self, skill: Any, asked: str, timeout: float | None,
                   cancelled: Any) -> Any:
        if isinstance(skill, Mapping):
            return dict(skill)
        if "://" in skill:
            return self._get_skill(skill, timeout, cancelled)
        found = [entry for entry in self._skill_entries(timeout, cancelled)
                 if _named(entry, skill)]
        if not found:
            raise SkillError(asked, "not_found", "no listed skill has that name (a skill "
                             "missing from the listing is read by its SKILL.md URI)")
        if len(found) > 1:
            uris = ", ".join(str(entry.get("uri")) for entry in found)
            raise SkillError(asked, "ambiguous", f"several skills have that name: {uris}; "
                             "name one by its skill path or URI")
        return found[0]

    def _get_skill(self, uri: str, timeout: float | None, cancelled: Any) -> Any:
        if skill_path(uri) is None:
            raise SkillError(uri, "not_found", "that URI names no SKILL.md")
        try:
            result = self._connection.request("skills/get", {"uri": uri}, timeout=timeout,
                                              cancelled=cancelled)
        except ProtocolError as exc:
            if exc.code != protocol.INVALID_PARAMS:
                raise
            raise SkillError(uri, "not_found", f"the server serves no skill there: "
                             f"{exc.message}", uri=uri) from exc
        entry = result.get("skill")
        if not isinstance(entry, dict) or entry.get("uri") != uri:
            raise SkillError(uri, "invalid", "skills/get did not answer with that skill's "
                             "entry", uri=uri)
        return entry

    # -- reading and verifying ------------------------------------------------------

    def _read(self, uri: str, asked: str, timeout: float | None,
              cancelled: Any) -> tuple[bytes, dict[str, Any]]:
        try:
            result = self._connection.request("resources/read", {"uri": uri}, timeout=timeout,
                                              cancelled=cancelled, refresh=True)
        except ProtocolError as exc:
            raise SkillError(asked, "unreadable", f"{uri} could not be read: {exc}",
                             uri=uri) from exc
        found = content_bytes(result, uri)
        if found is None:
            raise SkillError(asked, "unreadable", f"resources/read returned no content "
                             f"for {uri}", uri=uri)
        return found

    def _load_skill_md(self, entry: dict[str, Any], asked: str, dynamic: bool,
                       timeout: float | None, cancelled: Any) -> str:
        uri = entry["uri"]
        data, _ = self._read(uri, asked, timeout, cancelled)
        if dynamic:
            if len(data) > MAX_TOTAL_BYTES:
                raise SkillError(asked, "too_large", f"{uri} is {len(data)} bytes", uri=uri)
        else:
            listed = next(item for item in entry["resources"] if item["uri"] == uri)
            problem = file_problem(data, listed, asked)
            if problem is not None:
                raise problem
        problem = frontmatter_problem(data, entry, asked)
        if problem is not None:
            raise problem
        return data.decode("utf-8")   # frontmatter_problem found it UTF-8

    def _load_file(self, listed: dict[str, Any], entry: dict[str, Any], asked: str,
                   timeout: float | None, cancelled: Any) -> dict[str, Any]:
        uri = listed["uri"]
        data, item = self._read(uri, asked, timeout, cancelled)
        problem = file_problem(data, listed, asked)
        if problem is not None:
            raise problem
        loaded: dict[str, Any] = {"path": relative_path(entry["uri"], uri), "uri": uri}
        if isinstance(item.get("mimeType"), str):
            loaded["mimeType"] = item["mimeType"]
        if isinstance(item.get("text"), str):
            loaded["text"] = item["text"]
        else:
            loaded["blob"] = item["blob"]
        return loaded


def _asked(skill: Any) -> str:
    """What the caller asked for, in words (the error's ``name``)."""
    if isinstance(skill, Mapping):
        frontmatter = skill.get("frontmatter")
        name = frontmatter.get("name") if isinstance(frontmatter, Mapping) else None
        return str(name if isinstance(name, str) else skill.get("uri"))
    if not isinstance(skill, str) or not skill:
        raise MCPClientError("skill must be a name, the URI of a SKILL.md, or an entry from "
                             f"list_skills(), not {skill!r}")
    return skill


def _named(entry: Any, name: str) -> bool:
    """Whether a listed entry answers to ``name``: its frontmatter name or its skill path."""
    if not isinstance(entry, dict):
        return False
    path = skill_path(entry.get("uri"))
    frontmatter = entry.get("frontmatter")
    own = frontmatter.get("name") if isinstance(frontmatter, dict) else None
    return name == own or (path is not None and
                           (name == path or name == path.rsplit("/", 1)[-1]))


def _wanted(entry: dict[str, Any], files: Any, asked: str,
            dynamic: bool) -> list[dict[str, Any]]:
    """The manifest lines of the supporting files to read, in the entry's order."""
    if isinstance(files, bool):
        if not files or dynamic:
            return []
        return [item for item in entry["resources"] if item["uri"] != entry["uri"]]
    if isinstance(files, (str, bytes)) or not isinstance(files, Iterable):
        raise MCPClientError("files must be True, False, or a list of paths inside the skill")
    paths = list(files)
    if not all(isinstance(path, str) for path in paths):
        raise MCPClientError("files must be True, False, or a list of paths inside the skill")
    listed = {} if dynamic else {
        relative_path(entry["uri"], item["uri"]): item for item in entry["resources"]
        if item["uri"] != entry["uri"]}
    missing = [path for path in paths if path not in listed]
    if missing:
        raise SkillError(asked, "unlisted", f"the entry lists no {missing[0]!r}: an unlisted "
                         "file is never read (SEP-2640 \"The Acting Window\")")
    return [item for path, item in listed.items() if path in set(paths)]
