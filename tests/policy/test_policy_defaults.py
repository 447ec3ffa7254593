"""``Policy(provider)`` with no ``rules=`` uses :meth:`Policy.default_rules`.

The default lets through exactly what the default rules allow -- a tool the
server annotated ``readOnlyHint: true``, and the lease layer's two tools --
and asks about everything else (headless: refuses).  ``rules=[]`` is the way
to say "no rules": every call asks.  The danger floor still applies to a
read-only tool's call.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from mcp_client.policy import Policy
from mcp_client.types import ToolMessage

from ..base import LeakCheckingTestCase
from .test_policy import READ_ONLY, FakeProvider, call

ROOT = Path(__file__).resolve().parents[2]


def content(result: ToolMessage) -> tuple[Any, bool]:
    return result["content"], result["is_error"]


class DefaultRulesTest(LeakCheckingTestCase):
    def run_one(self, policy: Policy, name: str, arguments: Any = None) -> tuple[Any, bool]:
        result, = policy.execute_tool_calls([call(name, arguments)])
        return content(result)

    def test_no_rules_lets_a_read_only_tool_through(self) -> None:
        policy = Policy(FakeProvider(), roots={"fs": "/srv"})
        self.assertEqual(self.run_one(policy, "fs_read", {"path": "a.txt"}),
                         ("ran fs_read", False))

    def test_rules_none_is_the_default_too(self) -> None:
        policy = Policy(FakeProvider(), rules=None, roots={"fs": "/srv"})
        self.assertEqual(self.run_one(policy, "fs_read", {"path": "a.txt"}),
                         ("ran fs_read", False))

    def test_the_lease_tools_go_through(self) -> None:
        provider = FakeProvider(tools=("lock_acquire", "lock_release"))
        policy = Policy(provider)
        self.assertEqual(self.run_one(policy, "lock_acquire", {"paths": ["a"]}),
                         ("ran lock_acquire", False))

    def test_anything_not_annotated_read_only_still_asks(self) -> None:
        policy = Policy(FakeProvider(), roots={"fs": "/srv"})
        for name in ("fs_write", "fs_delete", "sh_run", "web_fetch"):
            with self.subTest(name):
                text, is_error = self.run_one(policy, name, {"path": "a.txt"})
                self.assertTrue(is_error)
                self.assertTrue(text.startswith("refused by policy: "), text)

    def test_a_read_only_tool_that_deletes_recursively_is_still_asked(self) -> None:
        provider = FakeProvider(annotations={"sh_run": READ_ONLY})
        policy = Policy(provider, roots={"sh": "/srv"})
        text, is_error = self.run_one(policy, "sh_run", {"command": "rm -rf /srv/x"})
        self.assertTrue(is_error)
        self.assertIn("refused by policy", text)
        self.assertEqual(provider.batches, [])

    def test_an_empty_list_is_no_rules_and_every_call_asks(self) -> None:
        policy = Policy(FakeProvider(), rules=[], roots={"fs": "/srv"})
        text, is_error = self.run_one(policy, "fs_read", {"path": "a.txt"})
        self.assertTrue(is_error)
        self.assertIn("nobody", text)


class DocsAgreeTest(LeakCheckingTestCase):
    """docs/guide/permissions.rst and layers.rst say what a policy without rules does."""

    def test_both_say_no_rules_means_the_default_rules(self) -> None:
        for doc in ("docs/guide/permissions.rst", "docs/guide/layers.rst"):
            with self.subTest(doc):
                text = re.sub(r"\s+", " ", (ROOT / doc).read_text(encoding="utf-8"))
                for said in ("Without ``rules=`` a policy uses ``Policy.default_rules()``",
                             "``rules=[]``"):
                    self.assertTrue(said in text, f"{doc} does not say {said!r}")
