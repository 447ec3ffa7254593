"""The provider the format tests share: the demo server behind a Registry, under a Policy.

``tests/servers/dual_stdio.py`` (the official SDK's demo server, over stdio) is added to a
Registry as ``demo``; a Policy denies ``demo_add`` and allows the rest.  The test case
records every batch the Policy lets through to the Registry, so a test sees which calls
reached the server and in how many batches.
"""

from __future__ import annotations

from typing import Any

from mcp_client import Client
from mcp_client.policy import Policy
from mcp_client.registry import Registry

from ..base import PYTHON, LeakCheckingTestCase, server


class DemoCase(LeakCheckingTestCase):
    """``self.provider``: the Policy stack; ``self.batches``: the names of each batch sent on."""

    def setUp(self) -> None:
        super().setUp()
        self.registry = Registry()
        self.addCleanup(self.registry.close)
        self.registry.add(Client.connect_stdio(PYTHON, args=server("dual_stdio.py")),
                          prefix="demo", owned=True)
        self.batches: list[list[str]] = []
        forward = self.registry.execute_tool_calls

        def recording(calls: Any) -> Any:   # what the policy lets through to the server
            self.batches.append([call["function"]["name"] for call in calls])
            return forward(calls)

        self.registry.execute_tool_calls = recording  # type: ignore[method-assign]
        self.provider = Policy(self.registry, rules=[
            {"tool": "demo_add", "decision": "deny"},
            {"tool": "demo_*", "decision": "allow"}])

    @property
    def sent(self) -> list[str]:
        """Every call that reached the registry (so the server), in order."""
        return [name for batch in self.batches for name in batch]
