"""Shared test scaffolding: a TestCase that fails on leaked threads or child processes,
and one that opens clients."""

from __future__ import annotations

import os
import sys
import threading
import time
import unittest
from pathlib import Path
from typing import Any, Callable, Sequence

from mcp_client import Client
from mcp_client.transport import Transport

HERE = Path(__file__).resolve().parent
SERVERS = HERE / "servers"
PYTHON = sys.executable


def server(name: str) -> list[str]:
    """The argv (after the interpreter) that runs ``tests/servers/<name>``."""
    return [str(SERVERS / name)]


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

    def setUp(self) -> None:
        super().setUp()
        self.warnings: list[str] = []

    def connect(self, transport: Transport | None = None, *, args: Sequence[str] | None = None,
                **options: Any) -> Client:
        """A client over ``transport``, or with ``args`` over stdio to ``python *args``.

        ``on_warn`` defaults to appending to a fresh ``self.warnings``; every
        other option is the client's (or, over stdio, the transport's).
        """
        self.warnings = []
        options.setdefault("on_warn", self.warnings.append)
        if args is not None:
            client = Client.connect_stdio(PYTHON, args=list(args), **options)
        else:
            client = Client(transport=transport, **options)
        self.addCleanup(client.close)
        return client
