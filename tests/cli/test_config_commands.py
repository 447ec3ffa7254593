"""A configuration entry's relative ``command`` is the file's, not the current folder's.

``./srv.py`` and ``bin/x`` (a path with a separator) are taken from the configuration
file's folder, as a relative ``cwd`` is; a bare name is looked up on ``PATH``.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import tempfile
from pathlib import Path

from mcp_client.config import load_config, parse_config

from ..base import PYTHON, SERVERS, LeakCheckingTestCase
from ..tables import add_rows

HERE = Path(__file__).resolve().parents[2]


class CommandPathTest(LeakCheckingTestCase):
    def setUp(self) -> None:
        super().setUp()
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        self.folder = Path(folder.name).resolve()

    def command_of(self, command: str) -> str | None:
        path = self.folder / "mcp.json"
        path.write_text(json.dumps({"mcpServers": {"s": {"command": command}}}))
        entry, = load_config(path)
        return entry.command


def _resolved(self: CommandPathTest, label: str, command: str, expected: str) -> None:
    wanted = expected.replace("{folder}", str(self.folder))
    self.assertEqual(self.command_of(command), os.path.expanduser(wanted))


add_rows(CommandPathTest, "command", [
    ("dot slash", "./srv.py", "{folder}/srv.py"),
    ("folder and name", "bin/x", "{folder}/bin/x"),
    ("dot slash folder", "./bin/x", "{folder}/bin/x"),
    ("parent folder", "../tools/x", "{folder}/../tools/x"),
    ("nested", "a/b/c/server", "{folder}/a/b/c/server"),
    ("bare name goes through PATH", "uvx", "uvx"),
    ("bare name with a dot", "srv.py", "srv.py"),
    ("bare name with a dash", "mcp-server-git", "mcp-server-git"),
    ("absolute", "/usr/bin/env", "/usr/bin/env"),
    ("home", "~/bin/x", "~/bin/x"),
], _resolved)


class DictCommandTest(LeakCheckingTestCase):
    def test_a_dict_takes_relative_commands_from_its_base_else_the_current_folder(self) -> None:
        data = {"mcpServers": {"a": {"command": "bin/x"}, "b": {"command": "node"}}}
        entries = parse_config(data, base=Path("/srv/conf"))
        self.assertEqual([e.command for e in entries], ["/srv/conf/bin/x", "node"])
        entries = parse_config(data)
        self.assertEqual([e.command for e in entries], [os.path.join(os.getcwd(), "bin/x"),
                                                        "node"])


#: Run from the planted folder: load the file, connect its one server, say who answered.
CONNECT = """
import sys
from mcp_client.config import load_config
entry, = load_config(sys.argv[1])
client = entry.connect()
print(client.server_info["name"])
client.close()
"""


def _script(path: Path, who: str, mark: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\necho {who} >> '{mark}'\n"
                    f"exec '{PYTHON}' '{SERVERS / 'dual_stdio.py'}' \"$@\"\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


class PlantedCommandTest(LeakCheckingTestCase):
    def test_the_files_own_program_runs_not_one_planted_in_the_current_folder(self) -> None:
        scratch = tempfile.TemporaryDirectory()
        self.addCleanup(scratch.cleanup)
        root = Path(scratch.name).resolve()
        config, planted, mark = root / "A", root / "B", root / "ran.txt"
        for command in ("bin/x", "./bin/x"):
            with self.subTest(command=command):
                mark.write_text("")
                _script(config / "bin" / "x", "config", mark)
                _script(planted / "bin" / "x", "planted", mark)
                (config / "mcp.json").write_text(json.dumps(
                    {"mcpServers": {"s": {"command": command, "restart": "never"}}}))
                env = {**os.environ, "PYTHONPATH": str(HERE)}
                done = subprocess.run([PYTHON, "-c", CONNECT, str(config / "mcp.json")],
                                      cwd=planted, env=env, capture_output=True, text=True,
                                      timeout=60)
                self.assertEqual(done.returncode, 0, done.stderr[-2000:])
                self.assertEqual(mark.read_text(), "config\n")
