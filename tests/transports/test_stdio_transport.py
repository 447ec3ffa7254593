"""StdioTransport on its own: environment, stderr, long lines, shutdown of stubborn children."""

from __future__ import annotations

import json
import os
import queue
import textwrap
import threading
import time
from typing import Any

from mcp_client import MCPClientError, ServerGone, TransportClosed
from mcp_client.stdio import StdioTransport

from ..base import PYTHON, LeakCheckingTestCase, children, process_group_members, wait_until


def script(body: str) -> list[str]:
    return ["-c", textwrap.dedent(body)]


class Harness:
    """Collects what a transport reports, for assertions with timeouts."""

    def __init__(self) -> None:
        self.messages: queue.Queue[dict[str, Any]] = queue.Queue()
        self.closes: queue.Queue[Exception] = queue.Queue()
        self.warnings: list[str] = []

    def start(self, transport: StdioTransport) -> StdioTransport:
        transport.start(self.messages.put, self.closes.put, self.warnings.append)
        return transport

    def next(self) -> dict[str, Any]:
        return self.messages.get(timeout=10)


class TransportTest(LeakCheckingTestCase):
    def open(self, body: str, **options: Any) -> tuple[StdioTransport, Harness]:
        harness = Harness()
        transport = StdioTransport(PYTHON, args=script(body), **options)
        self.addCleanup(transport.close)
        return harness.start(transport), harness

    def test_env_is_layered_over_the_inherited_environment(self) -> None:
        os.environ["MCP_CLIENT_TEST_INHERITED"] = "yes"
        self.addCleanup(os.environ.pop, "MCP_CLIENT_TEST_INHERITED")
        body = """
            import json, os
            print(json.dumps({"a": os.environ.get("A"),
                              "inherited": os.environ.get("MCP_CLIENT_TEST_INHERITED")}))
        """
        _, harness = self.open(body, env={"A": "1"})
        self.assertEqual(harness.next(), {"a": "1", "inherited": "yes"})
        _, harness = self.open(body, env={"A": "2"}, inherit_env=False)
        self.assertEqual(harness.next(), {"a": "2", "inherited": None})

    def test_cwd(self) -> None:
        _, harness = self.open("import json, os; print(json.dumps({'cwd': os.getcwd()}))",
                               cwd="/")
        self.assertEqual(harness.next(), {"cwd": "/"})

    def test_writes_and_reads_one_message_per_line(self) -> None:
        body = """
            import sys
            for line in sys.stdin:
                sys.stdout.write(line)
                sys.stdout.flush()
        """
        transport, harness = self.open(body)
        message = {"jsonrpc": "2.0", "id": 1, "method": "x", "params": {"t": "a\nb \u00e9"}}
        transport.send(message)
        self.assertEqual(harness.next(), message)

    def test_stderr_is_drained_into_the_hook_and_the_tail(self) -> None:
        lines: list[str] = []
        body = """
            import sys
            for n in range(300):
                print(f"line {n}", file=sys.stderr)
            sys.exit(9)
        """
        transport, harness = self.open(body, on_stderr=lines.append, stderr_lines=3)
        death = harness.closes.get(timeout=10)
        assert isinstance(death, ServerGone)
        self.assertEqual(death.exit_code, 9)
        self.assertEqual(death.stderr_tail, "line 297\nline 298\nline 299")
        self.assertEqual(len(lines), 300)
        with self.assertRaises(ServerGone):
            transport.send({"jsonrpc": "2.0", "method": "x"})

    def test_a_line_over_the_limit_is_dropped_with_a_warning(self) -> None:
        body = """
            import sys
            sys.stdout.write('{"big": "' + "x" * 5000 + '"}\\n')
            sys.stdout.write('{"after": 1}\\n')
            sys.stdout.flush()
        """
        _, harness = self.open(body, max_line_bytes=1000)
        self.assertEqual(harness.next(), {"after": 1})
        self.assertTrue(any("5012 bytes" in w for w in harness.warnings), harness.warnings)

    def test_bad_lines_are_reported_and_skipped(self) -> None:
        body = r"""
            import sys
            sys.stdout.buffer.write(b'\xff\xfe garbage\n\n[1, 2]\n"str"\n{"ok": true}\n')
            sys.stdout.flush()
        """
        _, harness = self.open(body)
        self.assertEqual(harness.next(), {"ok": True})
        self.assertEqual(len(harness.warnings), 3, harness.warnings)

    def test_close_escalates_to_sigterm_then_sigkill(self) -> None:
        body = """
            import signal, sys, time
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            print('{"ready": true}', flush=True)
            sys.stdin.close()
            time.sleep(60)
        """
        transport, harness = self.open(body, kill_grace=0.3)
        self.assertEqual(harness.next(), {"ready": True})
        started = time.monotonic()
        transport.close()
        self.assertLess(time.monotonic() - started, 5)
        self.assertIsNotNone(transport.returncode)
        self.assertTrue(harness.closes.empty())   # a close we asked for is not a death
        with self.assertRaises(TransportClosed):
            transport.send({"jsonrpc": "2.0", "method": "x"})
        transport.close()   # idempotent

    def test_close_takes_the_whole_process_group(self) -> None:
        body = """
            import json, subprocess, sys, time
            child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
            print(json.dumps({"grandchild": child.pid}), flush=True)
            sys.stdin.read()
        """
        transport, harness = self.open(body, kill_grace=0.5)
        grandchild = harness.next()["grandchild"]
        pgid = transport.pid
        assert pgid is not None
        self.assertIn(grandchild, process_group_members(pgid))
        transport.close()
        wait_until(lambda: not process_group_members(pgid), 5)   # init reaps the orphan
        self.assertEqual(process_group_members(pgid), [])

    def test_a_server_that_never_reads_stdin(self) -> None:
        body = """
            import sys, time
            print('{"ready": true}', flush=True)
            time.sleep(60)
        """
        transport, harness = self.open(body, kill_grace=0.3)
        self.assertEqual(harness.next(), {"ready": True})
        big = {"jsonrpc": "2.0", "method": "x", "params": {"pad": "y" * 100_000}}
        for _ in range(20):   # far more than a pipe holds: none of these may block
            transport.send(big)
        started = time.monotonic()
        transport.close()
        self.assertLess(time.monotonic() - started, 5)

    def test_a_grandchild_holding_stdout_does_not_hide_the_death(self) -> None:
        body = """
            import subprocess, sys
            subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
            print("dying", file=sys.stderr, flush=True)
            sys.exit(5)
        """
        _, harness = self.open(body)
        death = harness.closes.get(timeout=15)
        assert isinstance(death, ServerGone)
        self.assertEqual(death.exit_code, 5)
        self.assertTrue(any("holds stdout open" in w for w in harness.warnings),
                        harness.warnings)

    def test_bad_options(self) -> None:
        with self.assertRaises(MCPClientError):
            StdioTransport(PYTHON, args="-c pass")
        with self.assertRaises(MCPClientError):
            StdioTransport(PYTHON, env={"A": 1})  # type: ignore[dict-item]
        with self.assertRaises(MCPClientError):
            StdioTransport(PYTHON, env={"A=B": "1"})

    def test_messages_that_are_not_json_are_refused_on_send(self) -> None:
        transport, _ = self.open("import sys; sys.stdin.read()")
        with self.assertRaises(MCPClientError):
            transport.send({"x": float("inf")})
        with self.assertRaises(MCPClientError):
            transport.send({"x": {1, 2}})
        json.dumps({})  # the transport survives
        transport.send({"jsonrpc": "2.0", "method": "fine"})


class ThreadBudgetTest(LeakCheckingTestCase):
    """An idle child costs at most two threads; every one of them ends at close."""

    IDLE = "import sys\nfor line in sys.stdin: pass"

    def test_idle_children_cost_at_most_two_threads_each(self) -> None:
        before = set(threading.enumerate())
        transports = []
        for _ in range(8):
            transport = StdioTransport(PYTHON, args=["-c", self.IDLE])
            self.addCleanup(transport.close)
            Harness().start(transport)
            transports.append(transport)
        started = set(threading.enumerate()) - before
        self.assertLessEqual(len(started), 2 * len(transports),
                             sorted(thread.name for thread in started))
        # what is shared is started once: one reader per child, plus at most one more
        self.assertLessEqual(len(started), len(transports) + 1,
                             sorted(thread.name for thread in started))
        for transport in transports:
            transport.close()
        self.assertEqual([t.name for t in set(threading.enumerate()) - before if t.is_alive()],
                         [])

    def test_stderr_and_death_are_still_reported_with_one_shared_watcher(self) -> None:
        loud = "import sys\nprint('last words', file=sys.stderr, flush=True)\nsys.exit(3)"
        quiet = Harness()
        idle = quiet.start(StdioTransport(PYTHON, args=["-c", self.IDLE]))
        self.addCleanup(idle.close)
        harness = Harness()
        dying = harness.start(StdioTransport(PYTHON, args=["-c", loud]))
        self.addCleanup(dying.close)
        death = harness.closes.get(timeout=10)
        assert isinstance(death, ServerGone)
        self.assertEqual((death.exit_code, death.stderr_tail), (3, "last words"))
        self.assertTrue(quiet.closes.empty())
        dying.close()
        idle.close()
        self.assertEqual([state for _, state in children() if state == "Z"], [])

    def test_without_pidfd_a_thread_per_child_waits_for_the_exit(self) -> None:
        from unittest import mock

        def refused(pid: int) -> int:
            raise OSError(38, "Function not implemented")

        loud = "import sys\nprint('gone', file=sys.stderr, flush=True)\nsys.exit(4)"
        before = set(threading.enumerate())
        harness = Harness()
        with mock.patch.object(os, "pidfd_open", refused, create=True):
            dying = harness.start(StdioTransport(PYTHON, args=["-c", loud]))
        self.addCleanup(dying.close)
        death = harness.closes.get(timeout=10)
        assert isinstance(death, ServerGone)
        self.assertEqual((death.exit_code, death.stderr_tail), (4, "gone"))
        dying.close()
        self.assertEqual([t.name for t in set(threading.enumerate()) - before if t.is_alive()],
                         [])

    def test_a_child_that_cannot_be_watched_is_not_left_behind(self) -> None:
        from unittest import mock

        from mcp_client import SpawnFailed, stdio

        def exhausted(*args: Any, **kwargs: Any) -> Any:
            raise OSError(24, "Too many open files")

        transport = StdioTransport(PYTHON, args=["-c", self.IDLE])
        with mock.patch.object(stdio, "watch", exhausted):
            with self.assertRaises(SpawnFailed) as caught:
                Harness().start(transport)
        self.assertIn("Too many open files", caught.exception.reason)
        self.assertTrue(transport.closed)
        self.assertEqual(children(), [])
