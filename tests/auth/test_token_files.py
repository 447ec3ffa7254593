"""FileTokenStorage checks its file as ssh checks a key: planted or loose files are refused.

A ``tokens.json`` another user could have written -- writable by group or others, owned by
someone else, or in a world-writable folder without the sticky bit -- is not read: a record
planted there would point the client's refresh at a foreign token endpoint and hand it the
refresh token and the client secret.  The lock file is opened without following a symlink.
Every file is made in a temporary folder.
"""

from __future__ import annotations

import json
import os
import stat
import tempfile
import unittest
import warnings
from pathlib import Path
from typing import Any

from mcp_client import Client
from mcp_client.auth import AuthError, FileTokenStorage, OAuth
from mcp_client.auth._discovery import canonical_resource
from mcp_client.auth._storage import storage_key

from ..base import LeakCheckingTestCase
from .stage import Stage, approve

WAIT = 30.0
KEY = "http://127.0.0.1:1/mcp"
RECORD = {"tokens": {"access_token": "at-planted", "token_type": "Bearer"}}
#: A user id that is not the test's (nobody).
OTHER_UID = 65534 if os.geteuid() != 65534 else 65533


class FileCase(unittest.TestCase):
    def setUp(self) -> None:
        super().setUp()
        scratch = tempfile.TemporaryDirectory()
        self.addCleanup(scratch.cleanup)
        self.folder = Path(scratch.name) / "config"
        self.folder.mkdir(mode=0o700)
        self.path = self.folder / "tokens.json"

    def plant(self, record: dict[str, Any], *, mode: int = 0o600, key: str = KEY) -> None:
        self.path.write_text(json.dumps({key: record}))
        os.chmod(self.path, mode)

    def load_refused(self, *words: str) -> None:
        """Loading warns naming the file and the rule, and finds nothing."""
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            self.assertIsNone(FileTokenStorage(self.path).load(KEY))
        said = [str(w.message) for w in caught]
        self.assertEqual(len(said), 1, said)
        self.assertIn(str(self.path), said[0])
        for word in words:
            self.assertIn(word, said[0])

    def load_accepted(self) -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            self.assertEqual(FileTokenStorage(self.path).load(KEY), RECORD)


class ModeTest(FileCase):
    def test_a_private_file_in_a_private_folder_is_read(self) -> None:
        self.plant(RECORD)
        self.load_accepted()

    def test_a_world_readable_file_is_read(self) -> None:
        self.plant(RECORD, mode=0o644)
        self.load_accepted()

    def test_a_world_writable_file_is_refused(self) -> None:
        self.plant(RECORD, mode=0o666)
        self.load_refused("writable by group or others")

    def test_a_group_writable_file_is_refused(self) -> None:
        self.plant(RECORD, mode=0o620)
        self.load_refused("writable by group or others")

    def test_a_file_owned_by_another_user_is_refused(self) -> None:
        self.plant(RECORD)
        try:
            os.chown(self.path, OTHER_UID, -1)
        except PermissionError:
            self.skipTest("chown needs privileges this test run does not have")
        self.load_refused("owned by another user")

    def test_a_world_writable_folder_without_the_sticky_bit_is_refused(self) -> None:
        self.plant(RECORD)
        os.chmod(self.folder, 0o777)
        self.load_refused("world-writable folder without the sticky bit")

    def test_a_world_writable_folder_with_the_sticky_bit_is_accepted(self) -> None:
        self.plant(RECORD)
        os.chmod(self.folder, 0o1777)
        self.load_accepted()

    def test_saving_into_a_world_writable_folder_is_refused(self) -> None:
        os.chmod(self.folder, 0o777)
        with self.assertRaises(AuthError) as caught:
            FileTokenStorage(self.path).save(KEY, RECORD)
        self.assertIn(str(self.folder), str(caught.exception))
        self.assertFalse(self.path.exists())

    def test_saving_replaces_a_loose_file_with_a_private_one(self) -> None:
        self.plant({"tokens": {"access_token": "at-planted"}}, mode=0o666)
        storage = FileTokenStorage(self.path)
        with warnings.catch_warnings(record=True):
            warnings.simplefilter("always")
            storage.save(KEY, RECORD)
        self.assertEqual(stat.S_IMODE(self.path.stat().st_mode), 0o600)
        self.load_accepted()


class LockFileTest(FileCase):
    def test_a_symlinked_lock_file_is_not_followed(self) -> None:
        victim = self.folder.parent / "victim"
        os.symlink(victim, f"{self.path}.lock")
        with self.assertRaises(AuthError) as caught:
            FileTokenStorage(self.path).load(KEY)
        self.assertIn(f"{self.path}.lock", str(caught.exception))
        self.assertFalse(victim.exists(), "the symlink's target was created")

    def test_a_symlink_to_an_existing_file_is_not_opened_either(self) -> None:
        victim = self.folder.parent / "victim"
        victim.write_text("keep")
        os.symlink(victim, f"{self.path}.lock")
        with self.assertRaises(AuthError):
            FileTokenStorage(self.path).save(KEY, RECORD)
        self.assertEqual(victim.read_text(), "keep")
        self.assertFalse(self.path.exists())


class PlantedRefreshTest(FileCase, LeakCheckingTestCase):
    """A planted record whose refresh goes to a foreign token endpoint is never used."""

    def test_the_planted_refresh_endpoint_gets_nothing(self) -> None:
        stage, foreign = Stage(), Stage()
        self.addCleanup(stage.stop)
        self.addCleanup(foreign.stop)
        planted = {"issuer": foreign.as_url, "resource": stage.rs_url,
                   "metadata": {**foreign.metadata(), "issuer": foreign.as_url},
                   "client": {"client_id": "cid-1", "client_secret": "client-secret-1",
                              "method": "client_secret_post",
                              "redirect_uri": "http://127.0.0.1:9/callback"},
                   "tokens": {"access_token": "at-stale", "refresh_token": "rt-planted",
                              "token_type": "Bearer", "expires_at": 1.0}}
        self.plant(planted, mode=0o666, key=storage_key(canonical_resource(stage.rs_url)))
        auth = OAuth(storage=FileTokenStorage(self.path), on_authorize=approve,
                     redirect_uri="http://127.0.0.1:9/callback")
        self.addCleanup(auth.close)
        with warnings.catch_warnings(record=True):
            warnings.simplefilter("always")
            client = Client.connect_http(stage.rs_url, auth=auth, request_timeout=WAIT)
            self.addCleanup(client.close)
            client.call_tool("t")
        self.assertEqual(foreign.seen, [])
        self.assertEqual(stage.grants, {"authorization_code": 1})


if __name__ == "__main__":
    unittest.main()
