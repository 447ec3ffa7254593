"""Skills (the ``io.modelcontextprotocol/skills`` extension, SEP-2640) against a real SDK server
(``tests/servers/skills_server.py``), a scripted 2025-11-25 server, and the pure checks.

The wire is asserted from the client's side: a recording stdio transport keeps every message
the client sent, so "nothing was read before it was asked for" is a fact about the wire."""

from __future__ import annotations

import base64
import hashlib
import json
import pickle
import unittest
from typing import Any, Mapping

from mcp_client import Client, MCPClientError, ProtocolError, SkillError
from mcp_client.client._skillcheck import entry_problem, frontmatter_problem
from mcp_client.stdio import StdioTransport
from mcp_client.testing import FakeTransport

from ..base import PYTHON, ClientCase, fake_server, server

EXTENSION = "io.modelcontextprotocol/skills"
PDF = "skill://pdf-processing/SKILL.md"
FORMS = "skill://pdf-processing/references/FORMS.md"
LOGO = "skill://pdf-processing/assets/logo.png"


class Recording(StdioTransport):
    """A stdio transport that keeps every message the client sent."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.sent: list[dict[str, Any]] = []

    def send(self, message: dict[str, Any], *,
             headers: Mapping[str, str] | None = None) -> None:
        self.sent.append(message)
        super().send(message, headers=headers)

    def send_line(self, data: bytes) -> None:   # requests encoded ahead arrive here
        self.sent.append(json.loads(data))
        super().send_line(data)

    def methods(self) -> list[str]:
        return [m["method"] for m in self.sent if "id" in m and "method" in m]

    def reads(self) -> list[str]:
        return [m["params"]["uri"] for m in self.sent if m.get("method") == "resources/read"]


class SkillsServerCase(ClientCase):
    def skills_client(self, **options: Any) -> Client:
        """A client of tests/servers/skills_server.py over a transport that keeps what it sent."""
        self.wire = Recording(PYTHON, args=server("skills_server.py"))
        return self.connect(self.wire, **options)

    def refused(self, client: Client, skill: Any, reason: str, **options: Any) -> SkillError:
        with self.assertRaises(SkillError) as caught:
            client.read_skill(skill, **options)
        self.assertEqual(caught.exception.reason, reason, str(caught.exception))
        return caught.exception


class ListAndLoadTest(SkillsServerCase):
    def test_the_client_declares_the_extension_and_lists_without_reading(self) -> None:
        client = self.skills_client()
        skills = client.list_skills()   # the server refuses -32021 a client that does not declare
        self.assertEqual(self.wire.methods(), ["server/discover", "skills/list"])
        self.assertEqual(self.wire.reads(), [])
        meta = self.wire.sent[-1]["params"]["_meta"]
        self.assertEqual(meta["io.modelcontextprotocol/clientCapabilities"]["extensions"],
                         {EXTENSION: {}})
        uris = [entry["uri"] for entry in skills]
        self.assertIn(PDF, uris)
        self.assertNotIn("skill://unlisted/SKILL.md", uris)
        self.assertEqual(skills[0]["resources"][0], {
            "uri": PDF, "digest": skills[0]["resources"][0]["digest"],
            "size": skills[0]["resources"][0]["size"]})

    def test_a_good_skill_is_read_skill_md_first_then_its_files(self) -> None:
        client = self.skills_client()
        skill = client.read_skill("pdf-processing")
        self.assertEqual(self.wire.reads(), [PDF, FORMS, LOGO])
        self.assertEqual(skill["uri"], PDF)
        self.assertEqual(skill["name"], "pdf-processing")
        self.assertFalse(skill["dynamic"])
        self.assertTrue(skill["text"].startswith("---\nname: pdf-processing\n"))
        # YAML 1.2 reading: "no" and a date stay strings, as the entry has them
        self.assertEqual(skill["frontmatter"]["compatibility"], "no")
        self.assertEqual(skill["frontmatter"]["created"], "2024-01-01")
        self.assertEqual(skill["frontmatter"]["metadata"], {"version": 2.1,
                                                            "tags": ["pdf", "forms"]})
        forms, logo = skill["files"]
        self.assertEqual(forms, {"path": "references/FORMS.md", "uri": FORMS,
                                 "mimeType": "text/markdown", "text": "Form fields.\n"})
        self.assertEqual((logo["path"], logo["mimeType"]), ("assets/logo.png", "image/png"))
        self.assertTrue(base64.b64decode(logo["blob"]).startswith(b"\x89PNG"))

    def test_an_entry_from_the_listing_is_loaded_without_another_lookup(self) -> None:
        client = self.skills_client()
        entry = next(s for s in client.list_skills() if s["uri"] == PDF)
        client.read_skill(entry, files=False)
        self.assertEqual(self.wire.methods(), ["server/discover", "skills/list", "resources/read"])
        self.assertEqual(self.wire.reads(), [PDF])

    def test_chosen_files_only_and_an_unlisted_one_is_never_read(self) -> None:
        client = self.skills_client()
        skill = client.read_skill(PDF, files=["references/FORMS.md"])
        self.assertEqual([f["path"] for f in skill["files"]], ["references/FORMS.md"])
        self.assertEqual(self.wire.reads(), [PDF, FORMS])
        error = self.refused(client, PDF, "unlisted", files=["references/../secret"])
        self.assertEqual(error.name, PDF)
        self.assertEqual(self.wire.reads(), [PDF, FORMS])
        with self.assertRaises(MCPClientError):
            client.read_skill(PDF, files="references/FORMS.md")

    def test_by_uri_skills_get_answers_for_a_skill_the_listing_leaves_out(self) -> None:
        client = self.skills_client()
        skill = client.read_skill("skill://unlisted/SKILL.md")
        self.assertEqual(skill["name"], "unlisted")
        self.assertEqual(self.wire.methods()[1:], ["skills/get", "resources/read"])

    def test_names_are_no_identifiers(self) -> None:
        client = self.skills_client()
        error = self.refused(client, "refunds", "ambiguous")
        self.assertIn("skill://acme/billing/refunds/SKILL.md", str(error))
        self.assertEqual(client.read_skill("acme/support/refunds")["frontmatter"]["description"],
                         "Refunds, for support")

    def test_the_async_twins(self) -> None:
        client = self.skills_client()
        self.assertTrue(client.list_skills_async().result(30))
        self.assertEqual(client.read_skill_async("pdf-processing", files=False).result(30)["uri"],
                         PDF)


class RefusalTest(SkillsServerCase):
    def test_a_digest_mismatch_refuses_before_any_other_file_is_read(self) -> None:
        client = self.skills_client()
        error = self.refused(client, "tampered", "digest")
        self.assertEqual((error.name, error.uri), ("tampered", "skill://tampered/SKILL.md"))
        self.assertEqual(self.wire.reads(), ["skill://tampered/SKILL.md"])

    def test_a_size_mismatch_refuses(self) -> None:
        client = self.skills_client()
        error = self.refused(client, "padded", "size")
        self.assertIn("the entry says", error.detail)
        self.assertEqual(self.wire.reads(), ["skill://padded/SKILL.md"])

    def test_frontmatter_that_differs_from_the_entry_refuses(self) -> None:
        client = self.skills_client()
        error = self.refused(client, "impostor", "frontmatter")
        self.assertIn("'description'", error.detail)

    def test_a_supporting_file_that_fails_refuses_the_whole_skill(self) -> None:
        client = self.skills_client()
        error = self.refused(client, "bad-support", "digest")
        self.assertEqual(error.uri, "skill://bad-support/notes.md")

    def test_a_missing_skill_by_name_and_by_uri(self) -> None:
        client = self.skills_client()
        self.refused(client, "nope", "not_found")
        error = self.refused(client, "skill://nope/SKILL.md", "not_found")
        self.assertIn("No skill is served", error.detail)
        self.refused(client, "skill://nope/README.md", "not_found")
        self.assertEqual(self.wire.reads(), [])

    def test_a_dynamic_skill_only_when_asked(self) -> None:
        client = self.skills_client()
        self.refused(client, "generated", "dynamic")
        self.assertEqual(self.wire.reads(), [])
        skill = client.read_skill("generated", allow_dynamic=True)
        self.assertEqual((skill["dynamic"], skill["files"]), (True, []))

    def test_a_server_that_does_not_declare_the_extension_is_not_asked(self) -> None:
        # the SDK declares extensions to 2026-07-28 clients only
        client = self.skills_client(era="legacy")
        with self.assertRaises(SkillError) as caught:
            client.list_skills()
        self.assertEqual((caught.exception.reason, caught.exception.name), ("not_declared", None))
        self.refused(client, "pdf-processing", "not_declared")
        self.assertNotIn("skills/list", self.wire.methods())

    def test_the_error_pickles(self) -> None:
        error = SkillError("x", "digest", "bad", uri="skill://x/SKILL.md")
        copy = pickle.loads(pickle.dumps(error))
        self.assertEqual((copy.name, copy.reason, copy.detail, copy.uri, str(copy)),
                         (error.name, error.reason, error.detail, error.uri, str(error)))
        self.assertIsInstance(copy, MCPClientError)


def _md(description: str = "A skill") -> bytes:
    return f"---\nname: demo\ndescription: {description}\n---\nBody.\n".encode()


def _entry(data: bytes, **frontmatter: Any) -> dict[str, Any]:
    return {"uri": "skill://demo/SKILL.md",
            "frontmatter": {"name": "demo", "description": "A skill", **frontmatter},
            "resources": [{"uri": "skill://demo/SKILL.md", "size": len(data),
                           "digest": "sha256:" + hashlib.sha256(data).hexdigest()}]}


class LegacyServerTest(ClientCase):
    """A 2025-11-25 server that declares the extension: the same path over the handshake."""

    def test_listing_then_loading_over_initialize(self) -> None:
        data = _md()
        fake = FakeTransport()
        fake.on("server/discover", {"protocolVersion": "2025-11-25"})   # no DiscoverResult
        fake.on("initialize", {"protocolVersion": "2025-11-25", "serverInfo": {"name": "s"},
                               "capabilities": {"resources": {}, "extensions": {EXTENSION: {}}}})
        fake.on("skills/list", {"skills": [_entry(data)]})
        fake.on("resources/read", {"contents": [{"uri": "skill://demo/SKILL.md",
                                                 "text": data.decode()}]})
        client = self.connect(fake)
        self.assertEqual(len(client.list_skills()), 1)
        self.assertEqual(client.era, "legacy")
        self.assertEqual(fake.requests("initialize")[0]["params"]["capabilities"],
                         {"extensions": {EXTENSION: {}}})
        self.assertEqual(fake.requests("resources/read"), [])
        self.assertEqual(client.read_skill("demo")["text"], data.decode())
        self.assertEqual(len(fake.requests("resources/read")), 1)


class ScriptedModernTest(ClientCase):
    def skills_server(self, *entries: Any) -> FakeTransport:
        """A modern server of the skills extension that lists ``entries``."""
        fake = fake_server({"resources": {}, "extensions": {EXTENSION: {}}})
        fake.on("skills/list", {"skills": list(entries)})
        return fake

    def test_an_entry_out_of_shape_is_left_out_of_the_listing_and_refused_by_name(self) -> None:
        good = _entry(_md())
        bad = {**_entry(_md()), "uri": "skill://other/SKILL.md"}
        fake = self.skills_server(good, bad, "not an entry")
        client = self.connect(fake)
        self.assertEqual(client.list_skills(), [good])
        self.assertEqual(len(self.warnings), 2, self.warnings)
        self.assertIn("skills/list: left out an entry", self.warnings[0])
        with self.assertRaises(SkillError) as caught:
            client.read_skill("other")
        self.assertEqual(caught.exception.reason, "invalid")
        self.assertEqual(fake.requests("resources/read"), [])

    def test_a_skill_past_the_limits_is_declined_before_any_read(self) -> None:
        entry = _entry(_md())
        entry["resources"].append({"uri": "skill://demo/big.bin", "size": 17 * 2**20,
                                   "digest": "sha256:" + "0" * 64})
        fake = self.skills_server(entry)
        client = self.connect(fake)
        with self.assertRaises(SkillError) as caught:
            client.read_skill("demo")
        self.assertEqual(caught.exception.reason, "too_large")
        self.assertEqual(fake.requests("resources/read"), [])

    def test_bad_arguments_are_the_clients_error(self) -> None:
        client = self.connect(self.skills_server())
        for skill in (None, "", 42):
            with self.subTest(skill=skill), self.assertRaises(MCPClientError) as caught:
                client.read_skill(skill)   # type: ignore[arg-type]
            self.assertNotIsInstance(caught.exception, SkillError)


class ChecksTest(unittest.TestCase):
    def test_entries_out_of_shape(self) -> None:
        good = _entry(_md())
        self.assertIsNone(entry_problem(good, None))
        bad = {
            "not the name": {**good, "frontmatter": {"name": "other", "description": "d"}},
            "no SKILL.md": {**good, "uri": "skill://demo/README.md"},
            "dot segment": {**good, "uri": "skill://x/../demo/SKILL.md"},
            "no resources": {k: v for k, v in good.items() if k != "resources"},
            "SKILL.md unlisted": {**good, "resources": []},
            "outside": {**good, "resources": good["resources"] + [
                {**good["resources"][0], "uri": "skill://other/x.md"}]},
            "twice": {**good, "resources": good["resources"] * 2},
            "digest form": {**good, "resources": [{**good["resources"][0], "digest": "md5:x"}]},
            "bool size": {**good, "resources": [{**good["resources"][0], "size": True}]},
            "invisible in the name": {
                **good, "uri": "skill://demo\u202e/SKILL.md",
                "frontmatter": {"name": "demo\u202e", "description": "d"},
                "resources": [{**good["resources"][0], "uri": "skill://demo\u202e/SKILL.md"}]},
        }
        # files whose path would climb out of the skill's directory once decoded or
        # written to a disk: encoded dot segments, backslashes, a drive, a NUL
        for outside in ("skill://demo/%2e%2e/%2e%2e/etc/passwd", "skill://demo/%2E./x",
                        "skill://demo/refs/.%2E/x", "skill://demo/a\\..\\..\\evil",
                        "skill://demo/C:/Windows/evil", "skill://demo/a\x00.md",
                        "skill://demo/\u202eevil.md"):
            bad[outside] = {**good, "resources": good["resources"] + [
                {**good["resources"][0], "uri": outside}]}
        for name, entry in bad.items():
            with self.subTest(name):
                problem = entry_problem(entry, "demo")
                self.assertIsNotNone(problem)
                assert problem is not None
                self.assertEqual(problem.reason, "invalid")

    def test_limits(self) -> None:
        good = _entry(_md())
        many = [{"uri": f"skill://demo/f{i}", "digest": "sha256:" + "0" * 64, "size": 1}
                for i in range(512)]
        huge = {**good, "resources": good["resources"] + [
            {"uri": "skill://demo/big", "digest": "sha256:" + "0" * 64, "size": 16 * 2**20}]}
        for entry in ({**good, "resources": good["resources"] + many}, huge):
            problem = entry_problem(entry, "demo")
            self.assertEqual(problem.reason if problem else None, "too_large")

    def test_frontmatter_is_compared_as_json(self) -> None:
        cases: list[tuple[bytes, dict[str, Any], bool]] = [
            (b"---\nname: demo\ndescription: A skill\nv: 1\n---\n", {"v": 1.0}, True),
            (b"---\nname: demo\ndescription: A skill\nv: true\n---\n", {"v": 1}, False),
            (b"---\nname: demo\ndescription: A skill\nv: yes\n---\n", {"v": "yes"}, True),
            (b"---\nname: demo\ndescription: A skill\nv: 010\n---\n", {"v": 10}, True),
            (b"---\nname: demo\ndescription: A skill\nv: !!binary aGk=\n---\n", {"v": "aGk="},
             False),
            (b"\xef\xbb\xbf---\r\nname: demo\r\ndescription: A skill\r\n---\r\n", {}, True),
            (b"---\nname: demo\ndescription: A skill\n---\n", {"extra": None}, False),
            (b"name: demo\n", {}, False),
            (b"---\n[unclosed\n---\n", {}, False),
            (b"\xff---\n", {}, False),
            # one parser takes the first "name", another the last: refused, not guessed
            (b"---\nname: evil\nname: demo\ndescription: A skill\n---\n", {}, False),
            # nesting deeper than the parser's recursion: a refusal, not a RecursionError
            (b"---\nname: demo\ndescription: A skill\nv: " + b"[" * 5000 + b"]" * 5000
             + b"\n---\n", {"v": []}, False),
        ]
        for data, extra, same in cases:
            with self.subTest(data=data):
                problem = frontmatter_problem(data, _entry(data, **extra), "demo")
                self.assertEqual(problem is None, same, problem)
                if problem is not None:
                    self.assertEqual(problem.reason, "frontmatter")


if __name__ == "__main__":
    unittest.main()


class DirectoryReadTest(SkillsServerCase):
    """``read_directory``: the extension's ``resources/directory/read``, pages followed."""

    def test_children_of_a_skill_directory_across_pages(self) -> None:
        client = self.skills_client()
        entries = client.read_directory("skill://pdf-processing")
        self.assertEqual([(e["uri"], e["mimeType"]) for e in entries], [
            ("skill://pdf-processing/SKILL.md", "text/markdown"),
            ("skill://pdf-processing/assets", "inode/directory"),
            ("skill://pdf-processing/references", "inode/directory")])
        asked = [m["params"] for m in self.wire.sent
                 if m.get("method") == "resources/directory/read"]
        self.assertEqual([(p["uri"], p.get("cursor")) for p in asked],
                         [("skill://pdf-processing", None), ("skill://pdf-processing", "2")])
        self.assertEqual([e["name"] for e in client.read_directory(
            "skill://pdf-processing/references")], ["FORMS.md"])
        self.assertEqual(client.read_directory_async("skill://acme").result(30)[0]["mimeType"],
                         "inode/directory")

    def test_what_is_not_a_directory_is_the_servers_refusal(self) -> None:
        client = self.skills_client()
        for uri in ("skill://pdf-processing/SKILL.md", "skill://nowhere", "skill://acme/"):
            with self.subTest(uri=uri), self.assertRaises(ProtocolError) as caught:
                client.read_directory(uri)
            self.assertEqual(caught.exception.code, -32602)
        for bad in ("", None, 3):
            with self.subTest(bad=bad), self.assertRaises(MCPClientError):
                client.read_directory(bad)  # type: ignore[arg-type]

    def test_a_server_without_directory_read_is_not_asked(self) -> None:
        for settings in ({}, {"directoryRead": False}, {"directoryRead": "yes"}):
            with self.subTest(settings=settings):
                fake = fake_server({"resources": {}, "extensions": {EXTENSION: settings}})
                client = self.connect(fake)
                with self.assertRaises(SkillError) as caught:
                    client.read_directory("skill://x")
                self.assertEqual(caught.exception.reason, "not_declared")
                self.assertNotIn("resources/directory/read",
                                 [m.get("method") for m in fake.sent])
        client = self.connect(fake_server({"resources": {}}))
        with self.assertRaises(SkillError):
            client.read_directory("skill://x")

    def test_entries_without_a_uri_are_left_out_with_a_warning(self) -> None:
        fake = fake_server({"resources": {}, "extensions": {EXTENSION: {"directoryRead": True}}})
        fake.on("resources/directory/read", {"resources": [
            {"uri": "skill://x/a.md", "name": "a.md", "icons": [{"src": "javascript:x"}]},
            {"name": "no uri"}, "junk"]})
        client = self.connect(fake)
        self.assertEqual(client.read_directory("skill://x"),
                         [{"uri": "skill://x/a.md", "name": "a.md"}])
        self.assertEqual(len(self.warnings), 2)
