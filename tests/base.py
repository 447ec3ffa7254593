"""Shared test scaffolding: a TestCase that fails on leaked threads or child processes,
and one that opens clients."""

from __future__ import annotations

import os
import sys
import threading
import time
import unittest
from pathlib import Path
from typing import Any, Callable, ClassVar, Mapping, Sequence, TypeVar

from mcp_client import Client
from mcp_client.testing import FakeTransport
from mcp_client.transport import Transport

HERE = Path(__file__).resolve().parent
SERVERS = HERE / "servers"
PYTHON = sys.executable

T = TypeVar("T")


def of_type(value: object, kind: type[T]) -> T:
    """``value``, which must be a ``kind``: a test's ``assertIsInstance`` that a type checker sees.

    Fails the test (:class:`AssertionError`) naming what ``value`` was instead.
    """
    if not isinstance(value, kind):
        raise AssertionError(f"{value!r} is a {type(value).__name__}, not a {kind.__name__}")
    return value


def server(name: str) -> list[str]:
    """The argv (after the interpreter) that runs ``tests/servers/<name>``."""
    return [str(SERVERS / name)]


#: The protocol revision the tests' fake servers speak unless a test says otherwise.
MODERN = "2026-07-28"


def discover(capabilities: Mapping[str, Any] | None = None, *, name: str | None = None,
             uncached: bool = False, **extra: Any) -> dict[str, Any]:
    """A 2026-07-28 server's ``server/discover`` result, for a fake server to answer with.

    ``capabilities`` (default: none); ``name``: a ``serverInfo`` (version "1") in the
    result's ``_meta``; ``uncached``: ``ttlMs`` 0 and ``cacheScope`` "private", so the
    client never keeps it; ``extra``: further keys of the result, as they are.
    """
    result: dict[str, Any] = {"resultType": "complete", "supportedVersions": [MODERN],
                              "capabilities": dict(capabilities or {})}
    if name is not None:
        result["_meta"] = {"io.modelcontextprotocol/serverInfo": {"name": name, "version": "1"}}
    if uncached:
        result.update(ttlMs=0, cacheScope="private")
    result.update(extra)
    return result


#: The plainest modern server: no capabilities.
DISCOVER = discover()


def fake_server(capabilities: Mapping[str, Any] | None = None,
                **discovered: Any) -> FakeTransport:
    """A :class:`FakeTransport` whose ``server/discover`` answer is ``discover(capabilities,
    **discovered)``; a test adds the other methods' answers with ``on``."""
    fake = FakeTransport()
    fake.on("server/discover", discover(capabilities, **discovered))
    return fake


def _processes() -> list[tuple[int, list[str]]]:
    """(pid, the fields of /proc/<pid>/stat after the command name) of every process."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        found.append((int(entry.name), stat[stat.rindex(")") + 2:].split()))
    return found


def children(pid: int | None = None) -> list[tuple[int, str]]:
    """(pid, state) of every live or zombie child of ``pid`` (default: this process)."""
    parent = os.getpid() if pid is None else pid
    return [(child, fields[0]) for child, fields in _processes() if int(fields[1]) == parent]


def process_group_members(pgid: int) -> list[int]:
    """Pids of live processes in process group ``pgid``."""
    return [member for member, fields in _processes()
            if int(fields[2]) == pgid and fields[0] != "Z"]


def wait_until(done: Callable[[], object], timeout: float) -> None:
    """Poll ``done`` until it is true or ``timeout`` seconds pass.

    Only for what nothing can signal: a process being reaped by init shows up
    in the process table and nowhere else, and an HTTP worker thread going
    idle tells nobody, so this looks every 50 ms.
    """
    deadline = time.monotonic() + timeout
    while not done() and time.monotonic() < deadline:
        time.sleep(0.05)


class LeakCheckingTestCase(unittest.TestCase):
    """Fails a test that leaves a thread running or a child process behind."""

    #: seconds a finished test's threads and children get to wind down
    grace = 10.0

    def setUp(self) -> None:
        super().setUp()
        self._threads_before = set(threading.enumerate())
        self._children_before = {pid for pid, _ in children()}
        self.addCleanup(self._check_leaks)

    def _check_leaks(self) -> None:
        deadline = time.monotonic() + self.grace
        for thread in set(threading.enumerate()) - self._threads_before:
            thread.join(max(0.0, deadline - time.monotonic()))
        leaked = [t.name for t in set(threading.enumerate()) - self._threads_before
                  if t.is_alive()]

        def new_children() -> list[tuple[int, str]]:
            return [(pid, state) for pid, state in children()
                    if pid not in self._children_before]

        wait_until(lambda: not new_children(), max(0.0, deadline - time.monotonic()))
        kids = new_children()
        self.assertEqual(leaked, [], "threads left running")
        self.assertEqual(kids, [], "child processes left behind")


class ClientCase(LeakCheckingTestCase):
    """Opens clients, each closed at cleanup; the latest one's warnings are ``self.warnings``."""

    #: The ``tests/servers`` script :meth:`connect` runs when it is given no transport.
    script: ClassVar[str | None] = None

    #: The fake server the latest client talks to, when it talks to one.
    fake: FakeTransport

    def setUp(self) -> None:
        super().setUp()
        self.warnings: list[str] = []

    def connect(self, transport: Transport | None = None, *, url: str | None = None,
                script: str | None = None, args: Sequence[str] = (),
                capabilities: Mapping[str, Any] | None = None, **options: Any) -> Client:
        """A client, closed at cleanup, over the first of these that is given:

        * ``transport`` (a :class:`FakeTransport` becomes ``self.fake``);
        * Streamable HTTP to ``url``;
        * stdio to ``python tests/servers/<script> *args`` (``script`` defaults
          to the class's :attr:`script`);
        * stdio to ``python *args``;
        * a new ``self.fake``, ``fake_server(capabilities)``, to which the test
          adds answers.

        ``on_warn`` defaults to appending to a fresh ``self.warnings``; every
        other option is the client's (or, over stdio, the transport's).
        """
        self.warnings = []
        options.setdefault("on_warn", self.warnings.append)
        script = script or self.script
        if transport is None and url is not None:
            client = Client.connect_http(url, **options)
        elif transport is None and (script is not None or args):
            argv = (server(script) if script is not None else []) + list(args)
            client = Client.connect_stdio(PYTHON, args=argv, **options)
        else:
            if transport is None:
                transport = fake_server(capabilities)
            if isinstance(transport, FakeTransport):
                self.fake = transport
            client = Client(transport=transport, **options)
        self.addCleanup(client.close)
        return client
