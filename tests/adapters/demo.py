"""What the adapter tests share: the demo server behind a Registry under a Policy, and the
checks that an adapter is imported only when asked for.

``tests/servers/dual_stdio.py`` (the official SDK's demo server, over stdio) is added to a
Registry as ``demo``; a Policy (by default: ``demo_add`` denied, the rest allowed; a case
sets :attr:`DemoCase.rules` and :meth:`DemoCase.policy_options`) stands over it.  The test
case records every batch the Policy lets through to the Registry, so a test sees which
calls reached the server, with which arguments, and in how many batches.
"""

from __future__ import annotations

import subprocess
import sys
from typing import Any, ClassVar

from mcp_client import Client
from mcp_client.policy import Policy
from mcp_client.registry import Registry

from ..base import PYTHON, LeakCheckingTestCase, server


class DemoCase(LeakCheckingTestCase):
    """``self.provider``: the Policy stack; ``self.batches``: the names of each batch sent on;
    ``self.client``: the demo server's client."""

    #: The Policy's rules.
    rules: ClassVar[list[dict[str, Any]]] = [{"tool": "demo_add", "decision": "deny"},
                                             {"tool": "demo_*", "decision": "allow"}]

    def policy_options(self) -> dict[str, Any]:
        """The Policy's other options (``on_ask``...)."""
        return {}

    def setUp(self) -> None:
        super().setUp()
        self.client = Client.connect_stdio(PYTHON, args=server("dual_stdio.py"))
        self.registry = Registry()
        self.addCleanup(self.registry.close)
        self.registry.add(self.client, prefix="demo", owned=True)
        self.batches: list[list[str]] = []
        self.calls_sent: list[tuple[str, Any]] = []
        forward = self.registry.execute_tool_calls

        def recording(calls: Any) -> Any:   # what the policy lets through to the server
            self.batches.append([call["function"]["name"] for call in calls])
            self.calls_sent.extend((call["function"]["name"], call["function"]["arguments"])
                                   for call in calls)
            return forward(calls)

        self.registry.execute_tool_calls = recording  # type: ignore[method-assign]
        self.provider = Policy(self.registry, rules=self.rules, **self.policy_options())

    @property
    def sent(self) -> list[str]:
        """Every call that reached the registry (so the server), in order."""
        return [name for batch in self.batches for name in batch]


def run_python(code: str) -> subprocess.CompletedProcess[str]:
    """``python -c code`` in a fresh interpreter."""
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60)


class ImportChecks:
    """Mixin (with a TestCase): ``import mcp_client`` imports neither the adapter nor
    its framework, and without the framework the adapter's import names the extra."""

    assertEqual: Any
    assertIn: Any
    #: the adapter's module under mcp_client.adapters
    adapter: ClassVar[str]
    #: the framework's top-level packages
    packages: ClassVar[tuple[str, ...]]
    #: the extra that installs it (None: the adapter needs none to import)
    extra: ClassVar[str | None]

    def test_import_mcp_client_imports_neither_the_adapter_nor_its_framework(self) -> None:
        done = run_python(
            "import sys, mcp_client, mcp_client.registry, mcp_client.policy; "
            "print(sorted(m for m in sys.modules if m.startswith('mcp_client.adapters') "
            f"or m.split('.')[0] in {self.packages!r}))")
        self.assertEqual((done.returncode, done.stdout.strip()), (0, "[]"), done.stderr)

    def test_without_the_framework_the_import_names_the_extra(self) -> None:
        hidden = "; ".join(f"sys.modules[{package!r}] = None" for package in self.packages)
        done = run_python(f"import sys; {hidden}\n"
                          f"try:\n    import mcp_client.adapters.{self.adapter}\n"
                          "except ImportError as exc:\n    print(exc)\n"
                          "else:\n    print('imported')\n")
        self.assertEqual(done.returncode, 0, done.stderr)
        if self.extra is None:   # plain data: the adapter needs no SDK to import
            self.assertEqual(done.stdout.strip(), "imported")
        else:
            self.assertIn(f"pip install 'mcp-client-sync[{self.extra}]'", done.stdout)
