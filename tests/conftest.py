"""pytest options for this suite: ``--long`` runs the reliability tests at full size.

``--long`` is the same as ``MCP_CLIENT_LONG=1`` in the environment: the
hypothesis ``long`` profile (thousands of examples per property), the
100,000-call soak, the 100 MB stderr flood (``tests/chaoskit.py``).
"""

from __future__ import annotations

import os

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--long", action="store_true", default=False,
                     help="run the fuzz, chaos and soak tests at full size (slow)")


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("--long"):
        os.environ["MCP_CLIENT_LONG"] = "1"   # read when tests/chaoskit.py is imported
