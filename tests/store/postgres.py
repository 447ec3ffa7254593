"""The PostgreSQL server the tests use: ``MCP_TEST_POSTGRES_URL``, one fresh schema per test.

Without the variable the PostgreSQL tests skip, saying so; with
``MCP_REQUIRE_STORES=1`` (``.ci/run`` sets it) a missing variable or an
unreachable server fails them instead.
"""

from __future__ import annotations

import os
import unittest
import uuid

VARIABLE = "MCP_TEST_POSTGRES_URL"

_reachable: dict[str, str | None] = {}


def _unusable(why: str) -> BaseException:
    if os.environ.get("MCP_REQUIRE_STORES") == "1":
        return AssertionError(f"MCP_REQUIRE_STORES=1 but {why}")
    return unittest.SkipTest(why)


def server_url() -> str:
    """The scratch database's URL (skips, or fails, the calling test when there is none)."""
    url = os.environ.get(VARIABLE, "")
    if not url:
        raise _unusable(f"set {VARIABLE} to a scratch database (.ci/run does)")
    if url not in _reachable:
        try:
            import psycopg
            with psycopg.connect(url, connect_timeout=5):
                _reachable[url] = None
        except Exception as exc:   # ImportError included: psycopg is the [postgres] extra
            _reachable[url] = f"the PostgreSQL server of {VARIABLE} is not usable: " \
                              f"{type(exc).__name__}"
    problem = _reachable[url]
    if problem is not None:
        raise _unusable(problem)
    return url


def drop(url: str, schema: str) -> None:
    """Remove a test's schema and everything in it."""
    import psycopg
    with psycopg.connect(url, autocommit=True, connect_timeout=5) as conn:
        conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


def fresh(case: unittest.TestCase) -> str:
    """A store URL in a schema of its own, dropped when ``case`` ends."""
    url = server_url()
    schema = f"mcp_test_{uuid.uuid4().hex[:16]}"
    case.addCleanup(drop, url, schema)
    return f"{url}{'&' if '?' in url else '?'}schema={schema}"
