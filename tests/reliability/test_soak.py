"""Soak: many calls over one stdio connection from 16 threads, with cancellations and timeouts.

Against ``tests/servers/chaos/echo.py`` (hand-written, no SDK): 10,000 calls by default,
100,000 under ``--long``.  Most calls are plain echoes whose answers are checked against what
was sent (a mix-up between concurrent calls would show); the rest race an answer against a
cancellation set at a random moment by another thread, a timeout of a millisecond or two, a
server that answers after a random delay, or one that never answers.  Afterwards: nothing is
pending in the correlator, the server holds back no answer (every abandoned request was
cancelled on the wire), no thread or file descriptor is left, and memory is flat.
"""

from __future__ import annotations

import collections
import random
import sys
import threading
import time
from concurrent.futures import Future

from mcp_client import Cancelled, Client, Timeout
from mcp_client.types import text_of

from ..base import PYTHON, LeakCheckingTestCase
from ..chaoskit import chaos, fd_count, rss_mib, scale

CALLS = scale(10_000, 100_000)
THREADS = 16
WARM_UP = 1_000
#: How far resident memory may rise between the end of the warm-up and the end of the run.
RSS_BOUND_MIB = 24


class Canceller:
    """Sets the cancellation signals of calls in flight, one at a time, at random moments."""

    def __init__(self, seed: int) -> None:
        self.random = random.Random(seed)
        self.lock = threading.Lock()
        self.live: dict[int, threading.Event | Future[None]] = {}
        self.serials = iter(range(10 ** 9))
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self.run, name="soak-canceller")

    def signal(self) -> tuple[int, threading.Event | Future[None]]:
        serial = next(self.serials)
        stop: threading.Event | Future[None] = \
            threading.Event() if serial % 2 else Future()
        with self.lock:
            self.live[serial] = stop
        return serial, stop

    def forget(self, serial: int) -> None:
        with self.lock:
            self.live.pop(serial, None)

    def run(self) -> None:
        while not self.stopped.wait(self.random.uniform(0, 0.004)):
            with self.lock:
                if not self.live:
                    continue
                serial = self.random.choice(list(self.live))
                stop = self.live.pop(serial)
            if isinstance(stop, threading.Event):
                stop.set()
            else:
                stop.set_result(None)


class SoakTest(LeakCheckingTestCase):
    grace = 30.0

    def test_calls_from_16_threads_with_cancellations_and_timeouts(self) -> None:
        fds_before = fd_count()
        late = collections.Counter[str]()
        client = Client.connect_stdio(PYTHON, args=chaos("echo.py"),
                                      on_warn=lambda text: late.update([text.split()[1]]))
        self.addCleanup(client.close)
        for n in range(WARM_UP):
            self.assertEqual(text_of(client.call_tool("echo", {"text": f"w{n}"})),
                             f"w{n}")
        rss_start = rss_mib()

        canceller = Canceller(seed=1)
        outcomes: collections.Counter[str] = collections.Counter()
        errors: list[BaseException] = []
        lock = threading.Lock()
        canceller.thread.start()
        started = time.monotonic()
        workers = [threading.Thread(target=self.work, name=f"soak-{n}",
                                    args=(client, n, canceller, outcomes, errors, lock))
                   for n in range(THREADS)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        took = time.monotonic() - started
        canceller.stopped.set()
        canceller.thread.join()
        rss_end = rss_mib()

        self.assertEqual(errors, [])
        self.assertEqual(sum(outcomes.values()), CALLS)
        self.assertEqual(client._connection.pending, 0)
        stats = client.call_tool("stats")["structuredContent"]
        self.assertEqual(stats["held"], 0, stats)
        self.assertEqual(stats["requests"], 1 + WARM_UP + CALLS + 1)   # discover ... stats
        self.assertGreaterEqual(stats["cancels"], outcomes["never: timeout"])
        self.assertLessEqual(stats["cancels"], sum(n for k, n in outcomes.items()
                                                   if k.endswith(("timeout", "cancelled"))))
        self.assertEqual(set(late) - {"late"}, set(), late)   # only late answers were dropped
        self.assertLess(rss_end - rss_start, RSS_BOUND_MIB)
        client.close()
        self.assertEqual(fd_count(), fds_before)
        sys.stderr.write(
            f"\nsoak: {CALLS} calls, {THREADS} threads, {took:.1f}s "
            f"({CALLS / took:.0f} calls/s); RSS {rss_start:.1f} -> {rss_end:.1f} MiB; "
            f"fds {fds_before} -> {fd_count()}; server cancels {stats['cancels']}; "
            f"late answers dropped {late['late']}; {dict(sorted(outcomes.items()))}\n")

    def work(self, client: Client, n: int, canceller: Canceller,
             outcomes: collections.Counter[str], errors: list[BaseException],
             lock: threading.Lock) -> None:
        rng = random.Random(n)
        mine: collections.Counter[str] = collections.Counter()
        try:
            for i in range(CALLS // THREADS + (n < CALLS % THREADS)):
                mine[self.one_call(client, rng, f"{n}-{i}", canceller)] += 1
        except BaseException as exc:   # reported by the test thread
            errors.append(exc)
        with lock:
            outcomes.update(mine)

    @staticmethod
    def one_call(client: Client, rng: random.Random, text: str, canceller: Canceller) -> str:
        """One call of a random kind; returns what became of it."""
        roll = rng.random()
        if roll < 0.05:
            future = client.call_tool_async("echo", {"text": text})
            assert text_of(future.result(30)) == text
            return "async: answered"
        if roll < 0.15:
            serial, stop = canceller.signal()
            try:
                result = client.call_tool("echo", {"text": text}, cancelled=stop)
            except Cancelled:
                return "echo: cancelled"
            finally:
                canceller.forget(serial)
            assert text_of(result) == text
            return "echo: answered"
        if roll < 0.20:
            try:
                result = client.call_tool("echo", {"text": text}, timeout=rng.uniform(0, 0.002))
            except Timeout:
                return "echo: timeout"
            assert text_of(result) == text
            return "echo: answered in time"
        if roll < 0.25:
            try:
                client.call_tool("slow", {"ms": rng.uniform(0, 20)}, timeout=rng.uniform(0, 0.02))
            except Timeout:
                return "slow: timeout"
            return "slow: answered"
        if roll < 0.27:
            try:
                client.call_tool("never", timeout=0.01)
            except Timeout:
                return "never: timeout"
            raise AssertionError("never was answered")
        answer = client.call_tool("echo", {"text": text})
        assert text_of(answer) == text, (answer, text)
        return "echo: plain"
