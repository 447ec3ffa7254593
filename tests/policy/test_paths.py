"""Lexical locations: three-valued containment, adversarial paths, roots, and reading locations."""

from __future__ import annotations

import os
import tempfile
from typing import Any

from mcp_client.paths import (MAX_PATH_CHARS, Location, Tri, check_root, common_directory,
                              contains, locate, resolve, root_for, segments, tri_all, tri_any,
                              within_any)

from ..base import LeakCheckingTestCase
from ..tables import add_rows

YES, NO, UNKNOWN = Tri.YES, Tri.NO, Tri.UNKNOWN
SRV = "/srv"

#: (label, path, the tool's root, the directory asked about, expected)
CONTAINMENT: list[tuple[str, Any, str | None, str, Tri]] = [
    ("absolute inside", "/srv/work/a.txt", SRV, "/srv/work", YES),
    ("relative inside", "work/a.txt", SRV, "/srv/work", YES),
    ("the directory itself", "/srv/work", SRV, "/srv/work", YES),
    ("the directory with a trailing slash", "/srv/work/", SRV, "/srv/work", YES),
    ("trailing slash on a file", "/srv/work/a.txt/", SRV, "/srv/work", YES),
    ("a sibling sharing a prefix string", "/srv/workshop/a", SRV, "/srv/work", NO),
    ("root2 is not inside root", "/tmp/root2/x", "/tmp", "/tmp/root", NO),
    ("root itself and below", "/tmp/root/x", "/tmp", "/tmp/root", YES),
    ("a plain outside path", "/etc/passwd", SRV, "/srv/work", NO),
    ("the parent is not inside the child", "/srv", SRV, "/srv/work", NO),
    ("anything is inside /", "/srv/work/a", SRV, "/", YES),
    ("a suffix is not a segment", "/srv/worka", SRV, "/srv/work", NO),
    ("dotdot escaping", "/srv/work/../secret", SRV, "/srv/work", UNKNOWN),
    ("dotdot that stays inside", "/srv/work/a/../b", SRV, "/srv/work", UNKNOWN),
    ("bare dotdot", "..", SRV, "/srv", UNKNOWN),
    ("relative dotdot at the end", "work/..", SRV, "/srv", UNKNOWN),
    ("dotdot with a trailing slash", "work/../", SRV, "/srv", UNKNOWN),
    ("percent-encoded dotdot", "/srv/work/%2e%2e/secret", SRV, "/srv/work", UNKNOWN),
    ("upper-case percent dotdot", "/srv/work/%2E%2E/x", SRV, "/srv/work", UNKNOWN),
    ("double-encoded dotdot", "/srv/work/%252e%252e/x", SRV, "/srv/work", UNKNOWN),
    ("one encoded dot", "/srv/work/.%2e/x", SRV, "/srv/work", UNKNOWN),
    ("an encoded slash", "/srv/work/a%2f..%2fb", SRV, "/srv/work", UNKNOWN),
    ("an encoded first segment", "/%73rv/secret", SRV, "/srv/secret", UNKNOWN),
    ("any percent escape", "/srv/work/a%20b.txt", SRV, "/srv/work", UNKNOWN),
    ("a percent sign that escapes nothing", "/srv/work/100%", SRV, "/srv/work", YES),
    ("a percent and non-hex", "/srv/work/%zz", SRV, "/srv/work", YES),
    ("a NUL byte", "/srv/work/a\x00.txt", SRV, "/srv/work", UNKNOWN),
    ("a NUL truncation trick", "/srv/work/x\x00/../../etc", SRV, "/srv/work", UNKNOWN),
    ("backslash dotdot", "/srv/work\\..\\secret", SRV, "/srv/work", UNKNOWN),
    ("a relative backslash path", "work\\a.txt", SRV, "/srv/work", UNKNOWN),
    ("a UNC path", "\\\\server\\share", SRV, "/srv", UNKNOWN),
    ("absolute with no root", "/srv/work/a", None, "/srv/work", UNKNOWN),
    ("relative with no root", "a.txt", None, "/srv/work", UNKNOWN),
    ("an integer", 42, SRV, "/srv", UNKNOWN),
    ("None", None, SRV, "/srv", UNKNOWN),
    ("a list", ["/srv/a"], SRV, "/srv", UNKNOWN),
    ("a dict", {"path": "/srv/a"}, SRV, "/srv", UNKNOWN),
    ("a boolean", True, SRV, "/srv", UNKNOWN),
    ("a float", 1.5, SRV, "/srv", UNKNOWN),
    ("bytes", b"/srv/a", SRV, "/srv", UNKNOWN),
    ("the empty string", "", SRV, "/srv", UNKNOWN),
    ("a double slash inside", "/srv/work//a.txt", SRV, "/srv/work", YES),
    ("many slashes inside", "/srv///work////a", SRV, "/srv/work", YES),
    ("a leading double slash", "//srv/work/a", SRV, "/srv/work", UNKNOWN),
    ("dot segments", "/srv/./work/./a", SRV, "/srv/work", YES),
    ("a leading dot", "./work/a", SRV, "/srv/work", YES),
    ("just a dot", ".", SRV, "/srv", YES),
    ("a tilde home", "~/work", SRV, "/srv", UNKNOWN),
    ("a tilde user", "~root/x", SRV, "/srv", UNKNOWN),
    ("a tilde segment later is a name", "/srv/work/~/x", SRV, "/srv/work", YES),
    ("fullwidth letters", "/srv/\uff37\uff2f\uff32\uff2b/a", SRV, "/srv", UNKNOWN),
    ("fullwidth dots", "/srv/work/\uff0e\uff0e/secret", SRV, "/srv/work", UNKNOWN),
    ("one-dot leaders", "/srv/work/\u2024\u2024/secret", SRV, "/srv/work", UNKNOWN),
    ("a fullwidth solidus", "/srv/work\uff0fsecret", SRV, "/srv/work", UNKNOWN),
    ("a fullwidth percent", "/srv/work/\uff05\uff12e", SRV, "/srv/work", UNKNOWN),
    ("a zero-width space", "/srv/work/a\u200b.txt", SRV, "/srv/work", UNKNOWN),
    ("a right-to-left override", "/srv/work/\u202etxt.exe", SRV, "/srv/work", UNKNOWN),
    ("a no-break space", "/srv/work/a\u00a0b", SRV, "/srv/work", UNKNOWN),
    ("a ligature", "/srv/work/\ufb01le", SRV, "/srv/work", UNKNOWN),
    ("a lone surrogate", "/srv/work/\udc80", SRV, "/srv/work", UNKNOWN),
    ("a Cyrillic look-alike is another name", "/srv/w\u043erk/a", SRV, "/srv/work", NO),
    ("a precomposed accent", "/srv/caf\u00e9/a", SRV, "/srv/caf\u00e9", YES),
    ("a decomposed accent", "/srv/cafe\u0301/a", SRV, "/srv/caf\u00e9", UNKNOWN),
    ("a newline", "/srv/work/a\nb", SRV, "/srv/work", UNKNOWN),
    ("a tab", "/srv/work/a\tb", SRV, "/srv/work", UNKNOWN),
    ("a DEL character", "/srv/work/a\x7fb", SRV, "/srv/work", UNKNOWN),
    ("case differs in the directory", "/srv/WORK/a", SRV, "/srv/work", UNKNOWN),
    ("case differs at the top", "/SRV/work/a", SRV, "/srv/work", UNKNOWN),
    ("case differs below the directory", "/srv/work/A", SRV, "/srv/work", YES),
    ("sharp s folds to ss", "/srv/STRASSE/a", SRV, "/srv/stra\u00dfe", UNKNOWN),
    ("a trailing dot on a segment", "/srv/work./a", SRV, "/srv/work", UNKNOWN),
    ("a trailing space on a segment", "/srv/work /a", SRV, "/srv/work", UNKNOWN),
    ("three dots", "/srv/work/...", SRV, "/srv/work", UNKNOWN),
    ("a hidden file", "/srv/work/.hidden", SRV, "/srv/work", YES),
    ("dots inside a name", "/srv/work/a..b", SRV, "/srv/work", YES),
    ("a drive letter", "C:/srv/work", SRV, "/srv/work", UNKNOWN),
    ("a drive-relative path", "C:work", SRV, "/srv", UNKNOWN),
    ("a file URI", "file:///srv/work/a", SRV, "/srv/work", UNKNOWN),
    ("an NTFS stream", "/srv/work/a:stream", SRV, "/srv/work", UNKNOWN),
    ("an 8.3 short name", "/srv/WORK~1/a", SRV, "/srv/work", UNKNOWN),
    ("a symlink-looking name is a name", "/srv/work/link->etc", SRV, "/srv/work", YES),
    ("a symlink-looking arrow with spaces", "/srv/work/link -> /etc", SRV, "/srv/work", UNKNOWN),
    ("a possible symlink stays lexical", "/srv/work/current/secret", SRV, "/srv/work", YES),
    ("procfs is not followed", "/proc/self/root/etc/passwd", SRV, "/etc", NO),
    ("too long", "/srv/work/" + "a/" * 3000, SRV, "/srv/work", UNKNOWN),
    ("long but within PATH_MAX", "/srv/work/" + "a/" * 2000, SRV, "/srv/work", YES),
    ("relative with a root of /", "etc/passwd", "/", "/etc", YES),
]

#: (label, roots, tool, expected root)
ROOTS = {"fs": "/srv", "fs_ext": "/ext", "git": "/repo"}
ROOT_FOR: list[tuple[str, dict[str, str], str, str | None]] = [
    ("a plain prefix", ROOTS, "fs_read", "/srv"),
    ("the longest prefix wins", ROOTS, "fs_ext_read", "/ext"),
    ("a longer prefix must end at a boundary", ROOTS, "fs_extract", "/srv"),
    ("the prefix itself", ROOTS, "fs", "/srv"),
    ("a dot boundary", ROOTS, "fs.read", "/srv"),
    ("a dash boundary", ROOTS, "fs-read", "/srv"),
    ("no boundary", ROOTS, "fsx_read", None),
    ("case matters", ROOTS, "Fs_read", None),
    ("an unrelated tool", ROOTS, "web_fetch", None),
    ("a catch-all", {"": "/all", "fs": "/srv"}, "web_fetch", "/all"),
    ("a prefix beats the catch-all", {"": "/all", "fs": "/srv"}, "fs_read", "/srv"),
    ("a prefix ending in the separator", {"fs_": "/srv"}, "fs_read", "/srv"),
    ("no roots", {}, "fs_read", None),
]

#: (label, arguments, expected [(key, resolved)] or None)
LOCATE: list[tuple[str, dict[str, Any], list[tuple[str, str | None]] | None]] = [
    ("one path", {"path": "a.txt"}, [("path", "/srv/a.txt")]),
    ("a list of paths", {"paths": ["a", "/srv/b"]},
     [("paths[0]", "/srv/a"), ("paths[1]", "/srv/b")]),
    ("an empty list is unknown", {"paths": []}, [("paths", None)]),
    ("null is unknown", {"path": None}, [("path", None)]),
    ("from and to", {"from": "a", "to": "/etc/b"}, [("from", "/srv/a"), ("to", "/etc/b")]),
    ("source and destination", {"source": "a", "destination": "b"},
     [("source", "/srv/a"), ("destination", "/srv/b")]),
    ("a _path suffix", {"repo_path": "/srv/p", "text": "x"}, [("repo_path", "/srv/p")]),
    ("no location at all", {"content": "/etc/passwd", "text": "x"}, None),
    ("no arguments", {}, None),
    ("a non-string item", {"paths": ["a", 3]}, [("paths[0]", "/srv/a"), ("paths[1]", None)]),
    ("a list under path", {"path": ["a", "b"]}, [("path[0]", "/srv/a"), ("path[1]", "/srv/b")]),
    ("a nested list", {"path": [["a"]]}, [("path[0]", None)]),
    ("reason is not a location", {"reason": "/etc/passwd", "path": "a"}, [("path", "/srv/a")]),
    ("an adversarial one among good ones", {"paths": ["a", "../b"]},
     [("paths[0]", "/srv/a"), ("paths[1]", None)]),
]


def loc(path: str | None, directory: bool = False) -> Location:
    return Location("path", path, path, directory)


#: (label, locations, expected directory)
COMMON: list[tuple[str, list[Location], str | None]] = [
    ("one file: its parent", [loc("/srv/work/a.txt")], "/srv/work"),
    ("two files in one directory", [loc("/srv/work/a"), loc("/srv/work/b")], "/srv/work"),
    ("files in two directories", [loc("/srv/work/x/a"), loc("/srv/work/y/b")], "/srv/work"),
    ("a named directory is itself", [loc("/srv/work/src", True)], "/srv/work/src"),
    ("nothing in common but /", [loc("/srv/a"), loc("/etc/b")], "/"),
    ("an unknown location", [loc("/srv/a"), Location("path", "..", None)], None),
    ("no locations", [], None),
    ("segment-wise, not by string", [loc("/tmp/root/a"), loc("/tmp/root2/b")], "/tmp"),
]


class ContainmentTable(LeakCheckingTestCase):
    def check(self, label: str, path: Any, root: str | None, directory: str,
              expected: Tri) -> None:
        self.assertIs(contains(directory, resolve(path, root)), expected, label)


class RootForTable(LeakCheckingTestCase):
    def check(self, label: str, roots: dict[str, str], tool: str, expected: str | None) -> None:
        self.assertEqual(root_for(roots, tool), expected, label)


class LocateTable(LeakCheckingTestCase):
    def check(self, label: str, arguments: dict[str, Any],
              expected: list[tuple[str, str | None]] | None) -> None:
        found = locate(arguments, SRV)
        got = None if found is None else [(item.key, item.resolved) for item in found]
        self.assertEqual(got, expected, label)


class CommonDirectoryTable(LeakCheckingTestCase):
    def check(self, label: str, locations: list[Location], expected: str | None) -> None:
        self.assertEqual(common_directory(locations), expected, label)


add_rows(ContainmentTable, "contains", CONTAINMENT, ContainmentTable.check)
add_rows(RootForTable, "root_for", ROOT_FOR, RootForTable.check)
add_rows(LocateTable, "locate", LOCATE, LocateTable.check)
add_rows(CommonDirectoryTable, "common", COMMON, CommonDirectoryTable.check)


class PathsTest(LeakCheckingTestCase):
    def test_segments(self) -> None:
        self.assertEqual(segments("/srv/./work//a/"), (True, ("srv", "work", "a")))
        self.assertEqual(segments("a/b"), (False, ("a", "b")))
        self.assertEqual(segments("/"), (True, ()))
        self.assertIsNone(segments("a/../b"))
        self.assertIsNone(segments("x" * (MAX_PATH_CHARS + 1)))

    def test_check_root(self) -> None:
        self.assertEqual(check_root("/srv//work/"), "/srv/work")
        self.assertEqual(check_root("/"), "/")
        for bad in ("srv", "", "/srv/../etc", "/srv\\x", 5, None, "~/x", "/srv/%2e"):
            with self.subTest(bad=bad), self.assertRaises(ValueError):
                check_root(bad)

    def test_resolve_relative_and_absolute(self) -> None:
        self.assertEqual(resolve("a/b", "/srv"), "/srv/a/b")
        self.assertEqual(resolve("/etc/x", "/srv"), "/etc/x")
        self.assertIsNone(resolve("/etc/x", None))

    def test_contains_with_unknown_sides(self) -> None:
        self.assertIs(contains(None, "/srv"), UNKNOWN)
        self.assertIs(contains("/srv", None), UNKNOWN)

    def test_within_any(self) -> None:
        self.assertIs(within_any(["/a", "/srv"], "/srv/x"), YES)
        self.assertIs(within_any(["/a", "/b"], "/srv/x"), NO)
        self.assertIs(within_any([], "/srv/x"), NO)
        self.assertIs(within_any(["/SRV"], "/srv/x"), UNKNOWN)
        self.assertIs(within_any(["/srv"], None), UNKNOWN)

    def test_kleene_logic(self) -> None:
        self.assertIs(tri_all([]), YES)
        self.assertIs(tri_any([]), NO)
        self.assertIs(tri_all([YES, UNKNOWN]), UNKNOWN)
        self.assertIs(tri_all([UNKNOWN, NO]), NO)
        self.assertIs(tri_any([NO, UNKNOWN]), UNKNOWN)
        self.assertIs(tri_any([UNKNOWN, YES]), YES)
        self.assertIs(YES & NO, NO)
        self.assertIs(NO | UNKNOWN, UNKNOWN)

    def test_the_filesystem_is_never_consulted(self) -> None:
        # A real symlink pointing outside, and a real directory: the answers are
        # the lexical ones, whatever the disk says.
        with tempfile.TemporaryDirectory() as scratch:
            root = os.path.realpath(scratch)
            os.symlink("/etc", os.path.join(root, "escape"))
            os.mkdir(os.path.join(root, "real"))
            self.assertIs(contains(root, resolve("escape/passwd", root)), YES)
            self.assertIs(contains("/etc", resolve("escape/passwd", root)), NO)
            self.assertIs(contains(root, resolve("real/../escape", root)), UNKNOWN)
            self.assertIs(contains(root, resolve("missing/never/created", root)), YES)
