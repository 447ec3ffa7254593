"""A skills server over stdio: the official SDK (mcp 2.3.0) with an
``io.modelcontextprotocol/skills`` extension (SEP-2640) built on its ``Extension`` API.
Dual-era, like ``dual_stdio.py``: the client's first request decides whether it speaks
2026-07-28 or 2025-11-25 -- but the SDK declares extensions to 2026-07-28 clients only, so a
2025-11-25 client is told of no skills.

Skills (each file a resource under ``skill://``; ``skills/list`` answers only a client that
declares the extension, as the SDK's ``require_client_extension`` checks):

* ``pdf-processing`` -- good: a ``SKILL.md`` whose frontmatter holds values YAML 1.1 and 1.2
  read differently (``no``, a date), a supporting text file and a binary one;
* ``acme/billing/refunds`` and ``acme/support/refunds`` -- good, and both named ``refunds``;
* ``tampered`` -- its ``SKILL.md`` is served with other bytes of the same length (digest);
* ``padded`` -- its ``SKILL.md`` is served with bytes the entry does not count (size);
* ``impostor`` -- its ``SKILL.md`` matches digest and size but says another description than
  the entry (frontmatter);
* ``bad-support`` -- a good ``SKILL.md``, a supporting file that fails its digest;
* ``generated`` -- ``"resources": "dynamic"``;
* ``unlisted`` -- served by ``skills/get`` but missing from ``skills/list``.

``skills/get`` of any other URI is ``-32602``.  Exits on stdin EOF.

Usage: ``python tests/servers/skills_server.py``
"""

from __future__ import annotations

import hashlib
from typing import Any

from mcp.server.extension import Extension, MethodBinding, ResourceBinding
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.resources import BinaryResource, Resource, TextResource
from mcp.server.mcpserver.server import require_client_extension
from mcp.shared.exceptions import MCPError
from mcp_types import PaginatedRequestParams, RequestParams

EXTENSION = "io.modelcontextprotocol/skills"
TINY_PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000001e221bc33000000"
    "0049454e44ae426082"
)


def skill_md(name: str, description: str, extra: str = "", body: str = "Skill body.\n") -> str:
    return f"---\nname: {name}\ndescription: {description}\n{extra}---\n\n{body}"


def digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


class Skill:
    """One skill: its entry as listed, and the bytes each of its files is served with."""

    def __init__(self, path: str, frontmatter: dict[str, Any], files: dict[str, bytes], *,
                 served: dict[str, bytes] | None = None, dynamic: bool = False) -> None:
        self.uri = f"skill://{path}/SKILL.md"
        root = f"skill://{path}/"
        self.files = {root + name: data for name, data in files.items()}
        self.served = dict(self.files)
        self.served.update({root + name: data for name, data in (served or {}).items()})
        resources: Any = "dynamic" if dynamic else [
            {"uri": uri, "digest": digest(data), "size": len(data)}
            for uri, data in self.files.items()]
        self.entry = {"uri": self.uri, "frontmatter": frontmatter, "resources": resources}


def build_skills() -> list[Skill]:
    pdf_md = skill_md("pdf-processing", "Extract, fill, and assemble PDF documents",
                      "license: Apache-2.0\ncompatibility: no\ncreated: 2024-01-01\n"
                      "metadata:\n  version: 2.1\n  tags: [pdf, forms]\n",
                      "Fill the form in references/FORMS.md.\n")
    good = Skill("pdf-processing",
                 {"name": "pdf-processing", "description": "Extract, fill, and assemble PDF "
                  "documents", "license": "Apache-2.0", "compatibility": "no",
                  "created": "2024-01-01", "metadata": {"version": 2.1, "tags": ["pdf", "forms"]}},
                 {"SKILL.md": pdf_md.encode(), "references/FORMS.md": b"Form fields.\n",
                  "assets/logo.png": TINY_PNG})
    skills = [good]
    for team in ("billing", "support"):
        skills.append(Skill(f"acme/{team}/refunds",
                            {"name": "refunds", "description": f"Refunds, for {team}"},
                            {"SKILL.md": skill_md("refunds", f"Refunds, for {team}").encode()}))

    def plain(name: str) -> tuple[dict[str, Any], bytes]:
        return {"name": name, "description": "A skill"}, skill_md(name, "A skill").encode()

    fm, md = plain("tampered")
    skills.append(Skill("tampered", fm, {"SKILL.md": md},
                        served={"SKILL.md": md.replace(b"Skill body.", b"Evil body!!")}))
    fm, md = plain("padded")
    skills.append(Skill("padded", fm, {"SKILL.md": md}, served={"SKILL.md": md + b"more\n"}))
    impostor_md = skill_md("impostor", "Exfiltrate credentials").encode()
    skills.append(Skill("impostor", {"name": "impostor", "description": "A skill"},
                        {"SKILL.md": impostor_md}))
    fm, md = plain("bad-support")
    skills.append(Skill("bad-support", fm, {"SKILL.md": md, "notes.md": b"good notes\n"},
                        served={"notes.md": b"evil notes\n"}))
    fm, md = plain("generated")
    skills.append(Skill("generated", fm, {"SKILL.md": md}, dynamic=True))
    fm, md = plain("unlisted")
    skills.append(Skill("unlisted", fm, {"SKILL.md": md}))
    return skills


class GetSkillParams(RequestParams):
    uri: str


class DirectoryParams(RequestParams):
    uri: str
    cursor: str | None = None


#: Entries per ``resources/directory/read`` page: small, so a listing takes pages.
DIRECTORY_PAGE = 2


class SkillsExtension(Extension):
    """``skills/list``, ``skills/get`` and ``resources/directory/read`` over
    :func:`build_skills`, files as resources."""

    identifier = EXTENSION

    def __init__(self) -> None:
        self.skills = build_skills()

    def settings(self) -> dict[str, Any]:
        return {"directoryRead": True}

    def children(self, directory: str) -> list[dict[str, Any]] | None:
        """The direct children of a directory inside a skill (None: not a directory)."""
        found: dict[str, dict[str, Any]] = {}
        for skill in self.skills:
            for uri in skill.served:
                if not uri.startswith(directory + "/"):
                    continue
                rest = uri[len(directory) + 1:]
                head, _, tail = rest.partition("/")
                child = f"{directory}/{head}"
                found.setdefault(child, {"uri": child, "name": head,
                                         "mimeType": "inode/directory" if tail else
                                         "image/png" if head.endswith(".png") else
                                         "text/markdown"})
        return [found[key] for key in sorted(found)] if found else None

    async def read_directory(self, ctx: Any, params: DirectoryParams) -> dict[str, Any]:
        entries = self.children(params.uri.rstrip("/")) if not params.uri.endswith("/") else None
        if entries is None:
            raise MCPError(code=-32602, message=f"Not a directory resource: {params.uri}")
        start = int(params.cursor or 0)
        page: dict[str, Any] = {"resources": entries[start:start + DIRECTORY_PAGE]}
        if start + DIRECTORY_PAGE < len(entries):
            page["nextCursor"] = str(start + DIRECTORY_PAGE)
        return page

    def resources(self) -> list[ResourceBinding]:
        bindings = []
        for skill in self.skills:
            for uri, data in skill.served.items():
                resource: Resource
                if uri.endswith(".png"):
                    resource = BinaryResource(uri=uri, mime_type="image/png", data=data)
                else:
                    resource = TextResource(uri=uri, mime_type="text/markdown",
                                            text=data.decode())
                bindings.append(ResourceBinding(resource))
        return bindings

    def methods(self) -> list[MethodBinding]:
        return [MethodBinding("skills/list", PaginatedRequestParams, self.list_skills),
                MethodBinding("skills/get", GetSkillParams, self.get_skill),
                MethodBinding("resources/directory/read", DirectoryParams,
                              self.read_directory)]

    async def list_skills(self, ctx: Any, params: Any) -> dict[str, Any]:
        require_client_extension(ctx, EXTENSION)
        listed = [s.entry for s in self.skills if not s.uri.startswith("skill://unlisted/")]
        return {"skills": listed, "ttlMs": 0, "cacheScope": "private"}

    async def get_skill(self, ctx: Any, params: GetSkillParams) -> dict[str, Any]:
        for skill in self.skills:
            if skill.uri == params.uri:
                return {"skill": skill.entry, "ttlMs": 0, "cacheScope": "private"}
        raise MCPError(code=-32602, message=f"No skill is served at {params.uri}")


def main() -> None:
    server = MCPServer("skills-server", extensions=[SkillsExtension()])

    @server.tool()
    def echo(text: str) -> str:
        """Say it back."""
        return text

    server.run("stdio")


if __name__ == "__main__":
    main()
