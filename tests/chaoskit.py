"""What the reliability tests share: the long profile, memory and descriptor counts, chaos servers.

The default profile keeps the whole suite inside its CI budget; the long one
(``python -m pytest --long``, or ``MCP_CLIENT_LONG=1`` in the environment)
runs the full-size floods, the 100k-call soak and thousands of examples per
fuzz property.  Hypothesis profiles: ``ci`` (the default) and ``long``.
"""

from __future__ import annotations

import contextlib
import os
import time
import unittest
from typing import Any, Iterator, TypeVar

from hypothesis import HealthCheck, settings

from mcp_client import Client

from .base import SERVERS, ClientCase

#: True under ``--long`` / ``MCP_CLIENT_LONG=1``.
LONG = os.environ.get("MCP_CLIENT_LONG", "") not in ("", "0")
#: Where the chaos servers live.
CHAOS = SERVERS / "chaos"
#: The most the test process may grow while one hostile server does its worst.
MEMORY_BOUND_MIB = 200

T = TypeVar("T")

_QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large]
settings.register_profile("ci", max_examples=200, deadline=None, database=None,
                          print_blob=True, suppress_health_check=_QUIET)
settings.register_profile("long", max_examples=5000, deadline=None, database=None,
                          print_blob=True, suppress_health_check=_QUIET)
settings.load_profile("long" if LONG else "ci")


def scale(default: T, long: T) -> T:
    """``long`` under the long profile, else ``default``."""
    return long if LONG else default


def examples(default: int) -> int:
    """The example count of a property whose every example is a round trip to a client."""
    return default * 10 if LONG else default


def chaos(name: str, *args: object) -> list[str]:
    """The argv (after the interpreter) that runs ``tests/servers/chaos/<name>``."""
    return [str(CHAOS / name), *map(str, args)]


def _status(field: str) -> int:
    """A ``VmRSS``/``VmHWM`` line of /proc/self/status, in KiB."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise unittest.SkipTest(f"/proc/self/status has no {field}")


def rss_mib() -> float:
    """The resident set size of this process now, in MiB."""
    return _status("VmRSS") / 1024


def fd_count() -> int:
    """How many file descriptors this process has open."""
    return len(os.listdir("/proc/self/fd"))


class Peak:
    """How far this process's resident memory rises from now to :meth:`stop` (its peak)."""

    def __init__(self) -> None:
        self.start = rss_mib()
        self.growth = 0.0
        try:   # reset the high-water mark (Linux >= 4.0), so the peak is this block's
            with open("/proc/self/clear_refs", "w") as refs:
                refs.write("5")
            self.exact = True
        except OSError:
            self.exact = False

    def stop(self) -> float:
        top = _status("VmHWM") / 1024 if self.exact else rss_mib()
        self.growth = max(0.0, top - self.start)
        return self.growth


class BoundedCase(ClientCase):
    """A test case bounded in memory (the whole test) and in time (:meth:`within`)."""

    def setUp(self) -> None:
        super().setUp()
        self._peak = Peak()
        self.addCleanup(self._check_memory)   # runs after the client's own cleanup

    def _check_memory(self) -> None:
        growth = self._peak.stop()
        self.assertLess(growth, MEMORY_BOUND_MIB,
                        f"the test process grew by {growth:.0f} MiB")

    @contextlib.contextmanager
    def within(self, seconds: float) -> Iterator[None]:
        """Fail unless the block finishes within ``seconds`` (it is not interrupted)."""
        started = time.monotonic()
        yield
        elapsed = time.monotonic() - started
        self.assertLess(elapsed, seconds, f"took {elapsed:.1f}s, the budget is {seconds:g}s")


class ChaosCase(BoundedCase):
    """A test case that runs hostile stdio servers (``tests/servers/chaos/``)."""

    def chaos_client(self, name: str, *args: object, **options: Any) -> Client:
        """A client of ``python tests/servers/chaos/<name> *args`` (``kill_grace`` 0.5 s)."""
        options.setdefault("kill_grace", 0.5)
        return self.connect(args=chaos(name, *args), **options)
