"""Leader/follower on stdio: a waiting caller reads the pipe itself (``mcp_client._stdio.reading``).

The pipe reader alone, over a pipe of the test's own, and the client over the chaos servers:
whoever reads, every line is dispatched once and in order, a caller that gives up hands the
pipe back to the reader thread, and what the server sends besides the answer (notifications,
its own requests) is dispatched by the caller that reads it.
"""

from __future__ import annotations

import functools
import json
import os
import threading
import time
from typing import Any

from mcp_client import Timeout
from mcp_client._lines import LineBuffer
from mcp_client._stdio.pipes import Waker as _Waker
from mcp_client._stdio.reading import PipeReader
from mcp_client.stdio import StdioTransport
from mcp_client.types import text_of

from ..base import LeakCheckingTestCase, wait_until
from ..chaoskit import ChaosCase


class _Pipe:
    """A pipe, its reader on a thread of its own, and what each line was dispatched on."""

    def __init__(self, case: LeakCheckingTestCase) -> None:
        self.read_fd, self.write_fd = os.pipe()
        os.set_blocking(self.read_fd, False)
        self.waker = _Waker()
        self.seen: list[tuple[bytes, str]] = []
        self.arrived = threading.Condition()
        self.reader = PipeReader(self.read_fd, self.waker, LineBuffer(1 << 20), self.handle)
        self.thread = threading.Thread(target=self.reader.run, name="test-reader")
        self.thread.start()
        case.addCleanup(self.close)
        self.settle()

    def settle(self) -> None:
        """Until the reader thread waits on the empty pipe (it holds the token only to read)."""
        wait_until(lambda: getattr(self.reader, "_polling") and not self.reader.token.locked(),
                   5)

    def handle(self, line: bytes) -> None:
        with self.arrived:
            self.seen.append((line, threading.current_thread().name))
            self.arrived.notify_all()

    def write(self, *lines: bytes) -> None:
        os.write(self.write_fd, b"".join(line + b"\n" for line in lines))

    def has(self, count: int) -> bool:
        return len(self.seen) >= count

    def wait_for(self, count: int) -> None:
        with self.arrived:
            if not self.arrived.wait_for(lambda: self.has(count), 5):
                raise AssertionError(f"only {len(self.seen)} of {count} lines arrived")

    def close(self) -> None:
        self.waker.set()
        self.thread.join(5)
        self.reader.retire(1.0)
        for fd in (self.read_fd, self.write_fd):
            os.close(fd)
        self.waker.close()


class PipeReaderTest(LeakCheckingTestCase):
    def test_the_reader_thread_reads_while_nobody_leads(self) -> None:
        pipe = _Pipe(self)
        pipe.write(b"one", b"two")
        pipe.wait_for(2)
        pipe.settle()
        self.assertEqual(pipe.seen, [(b"one", "test-reader"), (b"two", "test-reader")])

    def test_a_leader_reads_and_dispatches_on_its_own_thread(self) -> None:
        pipe = _Pipe(self)
        writer = threading.Timer(0.05, pipe.write, (b"a", b"b", b"c"))
        writer.start()
        left = pipe.reader.lead(lambda: pipe.has(3), 5.0, lambda: 0)
        writer.join()
        self.assertEqual([line for line, _ in pipe.seen], [b"a", b"b", b"c"])
        self.assertEqual({name for _, name in pipe.seen}, {"MainThread"})
        assert left is not None
        self.assertTrue(0.0 < left <= 5.0)

    def test_a_leader_that_times_out_hands_the_pipe_back(self) -> None:
        pipe = _Pipe(self)
        left = pipe.reader.lead(lambda: False, 0.1, lambda: 0)
        self.assertEqual(left, 0.0)
        self.assertFalse(pipe.reader.token.locked())
        pipe.write(b"after")   # nobody leads now: the reader thread must read it
        pipe.wait_for(1)
        self.assertEqual(pipe.seen, [(b"after", "test-reader")])

    def test_lines_keep_their_order_whoever_reads_them(self) -> None:
        pipe = _Pipe(self)
        expected = []
        for n in range(60):
            line = f"line-{n}".encode()
            expected.append(line)
            if n % 3:
                pipe.write(line)
            else:   # a leader waits for this one; it may read others besides
                writer = threading.Timer(0.001, pipe.write, (line,))
                writer.start()
                pipe.reader.lead(functools.partial(pipe.has, n + 1), 5.0, lambda: 0)
                writer.join()
                pipe.wait_for(n + 1)
        pipe.wait_for(60)
        self.assertEqual([line for line, _ in pipe.seen], expected)
        self.assertIn("MainThread", {name for _, name in pipe.seen})

    def test_a_second_caller_follows_while_one_leads(self) -> None:
        pipe = _Pipe(self)
        held = pipe.reader.token.acquire()   # as a leader holds it
        try:
            self.assertEqual(pipe.reader.lead(lambda: False, 3.0, lambda: 0), 3.0)
        finally:
            if held:
                pipe.reader.token.release()

    def test_first_runs_once_whether_or_not_the_caller_leads(self) -> None:
        pipe = _Pipe(self)
        runs: list[bool] = []
        pipe.reader.lead(lambda: True, 1.0, lambda: 0, lambda: runs.append(True))
        with pipe.reader.token:
            pipe.reader.lead(lambda: True, 1.0, lambda: 0, lambda: runs.append(False))
        self.assertEqual(runs, [True, False])

    def test_the_waker_ends_a_lead(self) -> None:
        pipe = _Pipe(self)
        threading.Timer(0.05, pipe.waker.set).start()
        self.assertGreater(pipe.reader.lead(lambda: False, 30.0, lambda: 0) or 0.0, 20.0)
        pipe.thread.join(5)
        self.assertFalse(pipe.thread.is_alive())


def _stdio(transport: Any) -> StdioTransport:
    assert isinstance(transport, StdioTransport)
    return transport


class CallerLeadsTest(ChaosCase):
    def test_notifications_before_an_answer_are_dispatched_by_the_caller(self) -> None:
        threads: list[str] = []
        client = self.chaos_client("noisy.py", "flood", 5,
                                   on_log=lambda params: threads.append(
                                       threading.current_thread().name))
        client.list_tools()
        for n in range(3):
            self.assertEqual(text_of(client.call_tool("echo", {"text": f"t{n}"})),
                             f"t{n}")
        self.assertTrue(threads)
        self.assertIn(threading.current_thread().name, threads)

    def test_a_server_request_during_a_lead_is_answered(self) -> None:
        client = self.chaos_client("asking.py")
        client.call_tool("flood", {"count": 5, "method": "ping"})
        # the pings are answered on hook workers: ask until every answer is in (or 5 s)
        deadline = time.monotonic() + 5
        replies = client.call_tool("replies")["structuredContent"]
        while replies["results"] < 5 and time.monotonic() < deadline:
            replies = client.call_tool("replies")["structuredContent"]
        self.assertEqual(replies, {"results": 5, "errors": {}})

    def test_after_a_timed_out_lead_the_reader_thread_takes_over(self) -> None:
        client = self.chaos_client("echo.py")
        with self.assertRaises(Timeout):
            client.call_tool("never", timeout=0.2)
        # nobody waits on this one in call_tool: only the reader thread can finish it
        future = client.call_tool_async("slow", {"ms": 50})
        self.assertEqual(text_of(future.result(5)), "slow")
        self.assertEqual(text_of(client.call_tool("echo", {"text": "x"})), "x")

    def test_calls_from_several_threads_each_get_their_own_answer(self) -> None:
        client = self.chaos_client("echo.py")
        client.list_tools()
        wrong: list[str] = []

        def calls(name: str) -> None:
            for n in range(50):
                text = f"{name}-{n}"
                got = text_of(client.call_tool("echo", {"text": text}))
                if got != text:
                    wrong.append(f"{text} -> {got}")

        threads = [threading.Thread(target=calls, args=(f"t{k}",)) for k in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        self.assertEqual(wrong, [])

    def test_a_pipelined_batch_is_one_write(self) -> None:
        client = self.chaos_client("echo.py", tool_concurrency=8, parallel_tools=["echo"])
        client.list_tools()
        transport = _stdio(client.transport)
        lines: list[bytes] = []
        send_line = transport.send_line

        def recording(data: bytes) -> None:
            lines.append(data)
            send_line(data)

        transport.send_line = recording  # type: ignore[method-assign]
        calls = [{"id": f"c{n}", "type": "function",
                  "function": {"name": "echo", "arguments": json.dumps({"text": f"m{n}"})}}
                 for n in range(8)]
        entries = client.execute_tool_calls(calls)
        self.assertEqual([entry["content"] for entry in entries], [f"m{n}" for n in range(8)])
        calling = [line for line in lines if b'"tools/call"' in line]   # not the catalogue's
        self.assertEqual(len(calling), 1)
        sent = [json.loads(line) for line in calling[0].splitlines()]
        self.assertEqual([message["params"]["arguments"]["text"] for message in sent],
                         [f"m{n}" for n in range(8)])

    def test_a_batch_of_one_distinct_call_is_not_held(self) -> None:
        client = self.chaos_client("echo.py", tool_concurrency=8, parallel_tools=["echo"],
                                   request_timeout=3)
        call = {"id": "c", "type": "function",
                "function": {"name": "echo", "arguments": json.dumps({"text": "same"})}}
        entries = client.execute_tool_calls([call, dict(call, id="d")])
        self.assertEqual([(entry["content"], entry["is_error"]) for entry in entries],
                         [("same", False), ("same", False)])
