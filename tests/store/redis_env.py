"""Where the Redis tests find their server: ``MCP_TEST_REDIS_URL`` (``.ci/run`` starts one).

Without it the Redis tests skip, saying why; with ``MCP_REQUIRE_STORES=1`` (as in
CI) a missing or unreachable server fails them instead.  Each test gets its own
key prefix, whose keys are deleted when it ends.
"""

from __future__ import annotations

import os
import unittest
import uuid

VARIABLE = "MCP_TEST_REDIS_URL"
SKIP_REASON = f"set {VARIABLE} to a scratch Redis server (.ci/run does)"


def required() -> bool:
    """Whether a missing engine fails the tests instead of skipping them."""
    return os.environ.get("MCP_REQUIRE_STORES") == "1"


def unavailable(case: unittest.TestCase, why: str) -> None:
    """Skip ``case`` with ``why``, or fail it when the stores are required."""
    if required():
        case.fail(f"MCP_REQUIRE_STORES=1 but {why}")
    case.skipTest(why)


def with_prefix(url: str, prefix: str) -> str:
    return f"{url}{'&' if '?' in url else '?'}prefix={prefix}"


def _drop(url: str, prefix: str) -> None:
    import redis
    client = redis.Redis.from_url(url)
    try:
        keys = list(client.scan_iter(match=f"{prefix}*"))
        if keys:
            client.delete(*keys)
    finally:
        client.close()


def scratch_url(case: unittest.TestCase) -> str:
    """A URL of the test server with a fresh key prefix, dropped at ``case``'s cleanup."""
    url = os.environ.get(VARIABLE)
    if not url:
        unavailable(case, SKIP_REASON)
    assert url is not None
    import redis
    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=2.0)
        client.ping()
        client.close()
    except redis.RedisError as exc:
        unavailable(case, f"the Redis server of {VARIABLE} does not answer: {exc}")
    prefix = f"mcp-test-{uuid.uuid4().hex[:12]}"
    case.addCleanup(_drop, url, prefix)
    return with_prefix(url, prefix)
