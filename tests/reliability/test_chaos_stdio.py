"""The client against hostile stdio servers (tests/servers/chaos/): garbage, floods, deaths.

For every fault the client raises a typed error or returns, within its budget; the test
process grows by less than 200 MiB (``ChaosCase``); no thread and no child process is left
behind (``LeakCheckingTestCase``).
"""

from __future__ import annotations

import itertools
import os
import re
import signal
import threading
import unittest
from typing import Any

from mcp_client import Cancelled, Client, MCPClientError, ServerGone, Timeout
from mcp_client.stdio import StdioTransport
from mcp_client.types import text_of

from ..base import process_group_members, wait_until
from ..chaoskit import LONG, ChaosCase, scale

#: A text whose UTF-8 has two-, three- and four-byte characters.
UNICODE = "h\u00e9llo \u2713 \U0001f600 \u00fcber"


def echo(client: Client, text: str, **options: Any) -> str:
    return str(text_of(client.call_tool("echo", {"text": text}, **options)))


def stdio(client: Client) -> StdioTransport:
    transport = client.transport
    assert isinstance(transport, StdioTransport)
    return transport


class StdoutChaosTest(ChaosCase):
    def test_random_bytes_between_the_answers(self) -> None:
        client = self.chaos_client("noisy.py", "random", 4096, 1)
        with self.within(20):
            for n in range(20):
                self.assertEqual(echo(client, f"n{n}"), f"n{n}")
        self.assertTrue(any("not JSON" in w for w in self.warnings), self.warnings[:3])

    def test_random_bytes_and_no_answer(self) -> None:
        count = itertools.count()
        client = self.chaos_client("noisy.py", "random-forever", 7,
                                   on_warn=lambda text: next(count))
        self.assertEqual(client.era, "modern")
        with self.within(10), self.assertRaises(Timeout):
            echo(client, "anyone?", timeout=0.5)
        with self.within(5):
            client.close()
        self.assertGreater(next(count), 100)   # it kept reading (and skipping) all along

    def test_a_line_of_50_mib(self) -> None:
        client = self.chaos_client("noisy.py", "long", 50)
        with self.within(30):
            self.assertEqual(echo(client, UNICODE), UNICODE)
            self.assertEqual(echo(client, "again"), "again")
        dropped = [w for w in self.warnings if "dropped a stdout line" in w]
        self.assertEqual(len(dropped), 2, self.warnings)
        self.assertIn(f"{50 * 1024 * 1024 + 12} bytes", dropped[0])

    def test_answers_in_pieces_cut_inside_characters(self) -> None:
        client = self.chaos_client("noisy.py", "partial", 30)
        with self.within(15):
            for n in range(5):
                self.assertEqual(echo(client, f"{UNICODE} {n}"), f"{UNICODE} {n}")
        self.assertEqual(self.warnings, [])

    def test_an_answer_that_stops_halfway(self) -> None:
        client = self.chaos_client("noisy.py", "stall")
        self.assertEqual(client.era, "modern")
        with self.within(10):
            for _ in range(2):
                with self.assertRaises(Timeout):
                    echo(client, UNICODE, timeout=0.5)
        with self.within(5):
            client.close()

    def test_invalid_utf8(self) -> None:
        """Regression: an answer with one invalid byte was dropped whole (and its call hung)."""
        client = self.chaos_client("noisy.py", "invalid-utf8")
        with self.within(10):
            self.assertEqual(echo(client, "caf\u00e9", timeout=5), "caf\u00e9\ufffd")
        self.assertTrue(any("not valid UTF-8" in w for w in self.warnings), self.warnings)
        self.assertTrue(any("not JSON" in w for w in self.warnings), self.warnings)

    def test_arguments_too_deep_to_encode(self) -> None:
        """Regression: they raised RecursionError out of send(), not an MCPClientError."""
        client = self.chaos_client("echo.py")
        deep: Any = 0
        for _ in range(5000):
            deep = [deep]
        with self.assertRaises(MCPClientError) as caught:
            client.call_tool("echo", {"text": "x", "deep": deep})
        self.assertIn("cannot encode", str(caught.exception))
        self.assertEqual(client._connection.pending, 0)
        self.assertEqual(echo(client, "still here"), "still here")

    def test_responses_to_ids_never_sent(self) -> None:
        client = self.chaos_client("noisy.py", "stray-ids")
        with self.within(10):
            for n in range(10):
                self.assertEqual(echo(client, str(n)), str(n))
        self.assertEqual(client._connection.pending, 0)
        unknown = [w for w in self.warnings if "unknown request id" in w]
        self.assertGreaterEqual(len(unknown), 90, self.warnings[:5])

    def test_duplicate_responses(self) -> None:
        client = self.chaos_client("noisy.py", "duplicates")
        with self.within(10):
            results = [echo(client, str(n)) for n in range(10)]
        self.assertEqual(results, [str(n) for n in range(10)])
        self.assertEqual(client._connection.pending, 0)
        self.assertTrue(all(re.search("answer to (abandoned|unknown) request", w)
                            for w in self.warnings), self.warnings[:3])
        self.assertGreaterEqual(len(self.warnings), 20)

    def test_a_flood_of_100k_notifications_during_a_call(self) -> None:
        client = self.chaos_client("noisy.py", "flood", 100_000)
        seen = itertools.count()
        client.notifications.subscribe(lambda note: next(seen))
        with self.within(60):
            self.assertEqual(echo(client, "after the flood"), "after the flood")
        self.assertEqual(next(seen), 100_000)
        self.assertEqual(self.warnings, [])

    @unittest.skipUnless(LONG, "the long profile (--long)")
    def test_a_flood_of_a_million_notifications_during_a_call(self) -> None:
        client = self.chaos_client("noisy.py", "flood", 1_000_000)
        with self.within(120):
            self.assertEqual(echo(client, "after the flood", timeout=120), "after the flood")
        self.assertEqual(self.warnings, [])

    def test_a_stderr_flood(self) -> None:
        mib = scale(10, 100)
        lines = itertools.count()
        ended = threading.Event()

        def heard(line: str) -> None:
            next(lines)
            if line == "end of the flood":
                ended.set()

        client = self.chaos_client("noisy.py", "stderr", mib, on_stderr=heard)
        with self.within(scale(30, 120)):
            self.assertEqual(echo(client, "heard"), "heard")
        # stderr is its own pipe with its own reader: the answer on stdout can overtake its end
        self.assertTrue(ended.wait(scale(30, 120)))
        tail = stdio(client).stderr_tail.split("\n")
        self.assertEqual(tail[-1], "end of the flood")
        self.assertEqual(len(tail), 100)
        # the 1 MiB line arrives in 64 KiB pieces; nothing is held whole
        self.assertEqual(next(lines), (mib - 1) * 1024 + 16 + 1)


class ServerRequestTest(ChaosCase):
    """Requests from the server: the excess refused at once, never queued; a hook never
    holds up close()."""

    def flood(self, client: Client, method: str, count: int) -> Any:
        return client.call_tool_async("flood", {"count": count, "method": method}, timeout=120)

    def replies(self, client: Client) -> dict[str, Any]:
        return dict(client.call_tool("replies")["structuredContent"])

    def answered(self, client: Client) -> int:
        replies = self.replies(client)
        return int(replies["results"]) + sum(int(n) for n in replies["errors"].values())

    def test_a_flood_of_200k_pings_is_answered_and_a_call_still_answers(self) -> None:
        client = self.chaos_client("asking.py")
        with self.within(60):
            flood = self.flood(client, "ping", 200_000)
            self.assertEqual(echo(client, "during the flood", timeout=60), "during the flood")
            self.assertEqual(flood.result(120)["content"][0]["text"], "flooded")
            wait_until(lambda: self.answered(client) >= 200_000, 60)
        replies = self.replies(client)
        self.assertEqual(self.answered(client), 200_000)
        self.assertEqual(set(replies["errors"]) - {"-32603"}, set(), replies)
        self.assertLessEqual(len([w for w in self.warnings if "refusing" in w]), 1)

    def test_beyond_64_waiting_elicitations_the_rest_are_refused(self) -> None:
        release = threading.Event()
        client = self.chaos_client("asking.py", on_elicit=lambda request: (
            release.wait(60), {"action": "accept", "content": {"name": "Ada"}})[1])
        self.addCleanup(release.set)
        with self.within(60):
            flood = self.flood(client, "elicitation/create", 5_000)
            self.assertEqual(echo(client, "during the flood", timeout=60), "during the flood")
            self.assertEqual(flood.result(120)["content"][0]["text"], "flooded")
            wait_until(lambda: self.answered(client) >= 5_000 - 64, 60)
        self.assertEqual(self.replies(client), {"results": 0, "errors": {"-32603": 5_000 - 64}})
        refusals = [w for w in self.warnings if "refusing" in w]
        self.assertEqual(len(refusals), 1, refusals)
        self.assertIn("more than 64 requests", refusals[0])
        release.set()
        wait_until(lambda: self.replies(client)["results"] == 64, 30)
        self.assertEqual(self.replies(client)["results"], 64)

    def test_close_returns_while_a_hook_still_answers(self) -> None:
        for method in ("elicitation/create", "sampling/createMessage"):
            with self.subTest(method=method):
                entered, release = threading.Event(), threading.Event()
                hooks: list[threading.Thread] = []
                timer = threading.Timer(6, release.set)   # the old code waits for it
                timer.start()
                self.addCleanup(timer.cancel)

                def hook(request: dict[str, Any]) -> dict[str, Any]:
                    hooks.append(threading.current_thread())
                    entered.set()
                    release.wait(30)
                    if request["method"] == "sampling/createMessage":
                        return {"role": "assistant", "model": "m",
                                "content": {"type": "text", "text": "Paris"}}
                    return {"action": "accept", "content": {"name": "Ada"}}

                client = self.chaos_client("asking.py", on_elicit=hook, on_sample=hook)
                client.call_tool("flood", {"count": 1, "method": method})
                self.assertTrue(entered.wait(10))
                with self.within(0.5 + 1.5):   # kill_grace, and the hook's half second
                    client.close()
                self.assertTrue(hooks[0].is_alive(), "the hook was not still running")
                release.set()
                hooks[0].join(10)
                self.assertEqual([w for w in self.warnings if "could not answer" in w], [])


class DyingWireTest(ChaosCase):
    """A call's timeout or cancellation is not held up by a server whose stdout is closed."""

    def muted(self) -> Client:
        """A server that closes its stdout on the call ``never`` and stays alive (4 s of
        waiting for its exit code and the end of its stderr before its death is reported)."""
        client = self.chaos_client("stubborn.py", "mute")
        client.list_tools()
        return client

    def test_a_blocking_call_times_out_on_budget(self) -> None:
        client = self.muted()
        with self.within(1.5), self.assertRaises(Timeout):
            client.call_tool("never", timeout=0.5)

    def test_a_cancelled_call_returns_at_once(self) -> None:
        client = self.muted()
        cancelled = threading.Event()
        timer = threading.Timer(0.3, cancelled.set)
        timer.start()
        self.addCleanup(timer.cancel)
        with self.within(1.5), self.assertRaises(Cancelled):
            client.call_tool("never", cancelled=cancelled)

    def test_a_pipelined_call_times_out_on_budget(self) -> None:
        client = self.muted()
        future = client.call_tool_async("never", timeout=0.5)
        with self.within(1.5), self.assertRaises(Timeout):
            future.result(10)


class DeathTest(ChaosCase):
    def test_exit_during_the_probe(self) -> None:
        client = self.chaos_client("dying.py", "probe")
        with self.within(10), self.assertRaises(ServerGone) as caught:
            client.list_tools()
        self.assertEqual(caught.exception.exit_code, 3)
        self.assertIn("the probe killed me", caught.exception.stderr_tail)
        self.assertTrue(any("restarting" in w for w in self.warnings), self.warnings)
        with self.assertRaises(ServerGone):
            client.list_tools()

    def test_exit_during_the_probe_leaving_an_orphan(self) -> None:
        """Regression: the restart for the handshake hung until the first child's orphan let
        go of stderr (a minute here), and then left it running."""
        orphans: list[int] = []
        client = self.chaos_client(
            "dying.py", "probe-orphan", on_stderr=lambda line: orphans.extend(
                [int(line.split()[1])] if line.startswith("orphan ") else []))
        with self.within(15), self.assertRaises(ServerGone) as caught:
            client.list_tools()
        self.assertEqual(caught.exception.exit_code, 3)
        client.close()
        self.assertEqual(len(orphans), 2, orphans)
        for pid in orphans:
            self.addCleanup(self.end, pid)
        wait_until(lambda: not any(self.alive(pid) for pid in orphans), 5)   # init reaps them
        self.assertEqual([pid for pid in orphans if self.alive(pid)], [])

    @staticmethod
    def alive(pid: int) -> bool:
        try:
            with open(f"/proc/{pid}/stat") as stat:
                return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
        except OSError:
            return False

    def end(self, pid: int) -> None:
        if self.alive(pid):   # the test started it; a failing test must not leave it running
            os.kill(pid, signal.SIGKILL)

    def test_exit_during_a_call(self) -> None:
        client = self.chaos_client("dying.py", "call")
        self.assertEqual(client.era, "modern")
        other = client.call_tool_async("slow", {"ms": 60_000})
        with self.within(10), self.assertRaises(ServerGone) as caught:
            echo(client, "last words?")
        self.assertEqual(caught.exception.exit_code, 5)
        self.assertEqual(caught.exception.stderr_tail, "dying: in the middle of a call")
        with self.assertRaises(ServerGone):
            other.result(10)

    def test_a_timed_out_call_on_a_server_that_closed_stdout(self) -> None:
        """Regression: the call's ``notifications/cancelled`` waited for the dying transport's
        death report (the stderr drain and the exit code, 4 s here) before the call's own
        0.5 s timeout could be raised."""
        client = self.chaos_client("dying.py", "stdout")
        self.assertEqual(client.era, "modern")
        with self.within(1.5), self.assertRaises(Timeout):
            client.call_tool("echo", {"text": "anyone?"}, timeout=0.5)

    def test_exit_during_close(self) -> None:
        for delay in (0, 300):
            with self.subTest(delay=delay):
                client = self.chaos_client("dying.py", "close", delay, kill_grace=1)
                self.assertEqual(echo(client, "hi"), "hi")
                with self.within(3):
                    client.close()
                self.assertEqual(stdio(client).returncode, 7)
                self.assertEqual(self.warnings, [])

    def test_a_noisy_death_on_sigterm(self) -> None:
        client = self.chaos_client("dying.py", "term", kill_grace=0.3)
        self.assertEqual(echo(client, "hi"), "hi")
        with self.within(5):
            client.close()
        self.assertEqual(stdio(client).returncode, 9)


class StubbornTest(ChaosCase):
    def test_a_server_that_ignores_sigterm(self) -> None:
        client = self.chaos_client("stubborn.py", "ignore-term", kill_grace=0.3)
        self.assertEqual(echo(client, "hi"), "hi")
        with self.within(5):
            client.close()
        self.assertEqual(stdio(client).returncode, -signal.SIGKILL)

    def test_a_grandchild_in_the_group_outlives_the_server(self) -> None:
        client = self.chaos_client("stubborn.py", "grandchild")
        self.assertEqual(echo(client, "hi"), "hi")
        pgid = stdio(client).pid
        assert pgid is not None
        self.assertEqual(len(process_group_members(pgid)), 2)
        with self.within(10), self.assertRaises(ServerGone) as caught:
            client.call_tool("die")
        self.assertEqual(caught.exception.exit_code, 6)
        self.assertTrue(any("holds stdout open" in w for w in self.warnings), self.warnings)
        self.assert_group_gone(pgid)

    def test_a_grandchild_in_the_group_at_close(self) -> None:
        client = self.chaos_client("stubborn.py", "grandchild")
        self.assertEqual(echo(client, "hi"), "hi")
        pgid = stdio(client).pid
        assert pgid is not None
        with self.within(5):
            client.close()
        self.assert_group_gone(pgid)

    def assert_group_gone(self, pgid: int) -> None:
        wait_until(lambda: not process_group_members(pgid), 5)   # init reaps the orphan
        self.assertEqual(process_group_members(pgid), [])

    def daemon(self, **options: Any) -> Client:
        """A server whose daemon grandchild holds the pipes; the daemon ends with the test."""
        told = threading.Event()
        pids: list[int] = []

        def on_stderr(line: str) -> None:
            if line.startswith("daemon "):
                pids.append(int(line.split()[1]))
                told.set()

        client = self.chaos_client("stubborn.py", "daemon", on_stderr=on_stderr, **options)
        self.assertTrue(told.wait(10), "the daemon did not say its pid")
        self.addCleanup(os.kill, pids[0], signal.SIGKILL)   # the test started it
        return client

    def test_a_daemon_outside_the_group_at_close(self) -> None:
        """Regression: close() hung until the daemon let go of the pipes (a minute here)."""
        client = self.daemon()
        self.assertEqual(echo(client, "hi"), "hi")
        with self.within(5):
            client.close()

    def test_a_daemon_outside_the_group_when_the_server_dies(self) -> None:
        """Regression: the death was never reported; calls waited out their timeouts."""
        client = self.daemon()
        self.assertEqual(echo(client, "hi"), "hi")
        with self.within(10), self.assertRaises(ServerGone) as caught:
            client.call_tool("die", timeout=15)
        self.assertEqual(caught.exception.exit_code, 6)
        self.assertTrue(any("outside its group" in w for w in self.warnings),
                        self.warnings)

    def test_a_server_that_never_reads_stdin(self) -> None:
        client = self.chaos_client("stubborn.py", "deaf", era="2026-07-28", kill_grace=0.3)
        big = "x" * (1 << 20)   # far more than a pipe holds
        with self.within(10):
            for _ in range(2):
                with self.assertRaises(Timeout):
                    echo(client, big, timeout=0.5)
        with self.within(5):
            client.close()

    def test_a_server_that_stops_reading_stdin(self) -> None:
        client = self.chaos_client("stubborn.py", "deaf-after", kill_grace=0.3)
        self.assertEqual(client.era, "modern")
        futures = [client.call_tool_async("echo", {"text": "y" * 200_000}, timeout=0.5)
                   for _ in range(8)]
        with self.within(10):
            for future in futures:
                with self.assertRaises(Timeout):
                    future.result(10)
        with self.within(5):
            client.close()


class BudgetTest(ChaosCase):
    def test_a_call_that_sets_off_the_probe_keeps_its_own_budget(self) -> None:
        """Regression: the era probe and handshake that a call set off ran under
        probe_timeout and request_timeout, not under the call's timeout= (nor its
        cancelled=): against a silent server, call_tool(timeout=0.5) took 5 s + 60 s and
        raised Timeout("initialize", 60)."""
        client = self.chaos_client("stubborn.py", "deaf", probe_timeout=0.6, request_timeout=0.6,
                                   kill_grace=0.3)
        with self.within(1.0), self.assertRaises(Timeout) as caught:
            echo(client, "anyone?", timeout=0.2)
        self.assertEqual((caught.exception.method, caught.exception.seconds),
                         ("tools/call", 0.2))
