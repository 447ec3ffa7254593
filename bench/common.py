"""What every benchmark driver shares: the servers, the workload sizes, the result line.

A driver is a module with one function per scenario; each takes a
:class:`Target` and the :class:`Sizes` and returns a :class:`Figure`, or
raises :class:`NotAvailable` when the client cannot run that scenario (the
report then says "n/a" and why).  Nothing here imports a client library.
"""

from __future__ import annotations

import dataclasses
import os
import resource
import sys
from typing import Any

__all__ = ["BENCH_DIR", "SERVERS_DIR", "ECHO_TEXT", "INFLIGHT", "Target", "Sizes", "Figure",
           "NotAvailable", "BenchError", "target_for", "peak_rss_kb", "check_echo"]

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
SERVERS_DIR = os.path.join(BENCH_DIR, "servers")
#: The argument every sequential call sends (and expects back).
ECHO_TEXT = "hello"
#: Calls in flight at once on one connection (issue 8).
INFLIGHT = 64

#: Server names on the command line -> the script that runs them over stdio.
_STDIO_SERVERS = {"echo": "echo_stdio.py", "sdk": "sdk_echo.py"}


class NotAvailable(Exception):
    """This client cannot run this scenario; the message says why."""


class BenchError(Exception):
    """A scenario ran but got a wrong answer."""


@dataclasses.dataclass(frozen=True)
class Target:
    """How to reach one server: a stdio command line, or a Streamable HTTP URL."""

    name: str
    argv: tuple[str, ...] = ()
    url: str | None = None


@dataclasses.dataclass(frozen=True)
class Sizes:
    """How much work each scenario does (``--quick`` shrinks it)."""

    calls: int = 2000          # sequential round trips
    warmup: int = 50           # untimed calls before a timed loop
    rounds: int = 20           # rounds of INFLIGHT concurrent calls
    lookups: int = 5000        # cached list_tools calls


@dataclasses.dataclass
class Figure:
    """One measurement: a value in a unit, and whatever else is worth keeping."""

    value: float
    unit: str
    detail: dict[str, Any] = dataclasses.field(default_factory=dict)


def target_for(server: str) -> Target:
    """``echo`` and ``sdk`` run a script over stdio; an ``http://`` URL is reached as is."""
    if server.startswith(("http://", "https://")):
        return Target("http", url=server)
    script = _STDIO_SERVERS.get(server)
    if script is None:
        raise SystemExit(f"unknown server {server!r}: use echo, sdk or an http:// URL")
    return Target(server, argv=(sys.executable, os.path.join(SERVERS_DIR, script)))


def peak_rss_kb() -> int:
    """This process's peak resident set size in KiB (Linux ``ru_maxrss`` unit)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak // 1024 if sys.platform == "darwin" else peak


def check_echo(text: Any, expected: str) -> None:
    """Fail loudly if an echo came back wrong: a fast wrong answer is not a result."""
    if text != expected:
        raise BenchError(f"echo returned {text!r}, expected {expected!r}")
