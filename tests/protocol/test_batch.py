"""The batch scheduler: when calls overlap, how identical calls merge, and order."""

from __future__ import annotations

import threading
from typing import Any, Callable

from mcp_client import Client
from mcp_client.batch import Task, is_parallel_safe, may_overlap, run_batch
from mcp_client.testing import FakeTransport, TestKit

from ..base import ClientCase, LeakCheckingTestCase, fake_server
from ..client.test_bridge import OBJECT, call, text_result

READ_ONLY = {"readOnlyHint": True}
WAIT = 10.0


class RuleTest(LeakCheckingTestCase):
    def test_read_only_alone_widens(self) -> None:
        catalogue = {"read": READ_ONLY, "write": None, "idem": {"idempotentHint": True},
                     "ro_false": {"readOnlyHint": False}}
        self.assertTrue(may_overlap(["read", "read"], catalogue, concurrency=4))
        for names in (["read", "write"], ["read", "idem"], ["read", "ro_false"],
                      ["read", "missing"]):
            with self.subTest(names):
                self.assertFalse(may_overlap(names, catalogue, concurrency=4))

    def test_what_turns_widening_off(self) -> None:
        catalogue = {"read": READ_ONLY}
        self.assertFalse(may_overlap(["read", "read"], catalogue, concurrency=1))
        self.assertFalse(may_overlap(["read", "read"], None, concurrency=4))
        self.assertFalse(may_overlap(["read"], catalogue, concurrency=4))
        self.assertFalse(may_overlap(["read", "read"], catalogue, concurrency=4,
                                     serial_tools={"read"}))

    def test_a_caller_may_vouch_for_a_tool(self) -> None:
        self.assertTrue(is_parallel_safe("write", None, parallel_tools={"write"}))
        self.assertFalse(is_parallel_safe("write", READ_ONLY, parallel_tools={"write"},
                                          serial_tools={"write"}))
        self.assertTrue(may_overlap(["read", "write"], {"read": READ_ONLY}, concurrency=2,
                                    parallel_tools={"write"}))


class RunBatchTest(LeakCheckingTestCase):
    def test_serial_runs_in_order_in_the_callers_thread(self) -> None:
        seen: list[tuple[int, str]] = []

        def task(n: int) -> Callable[[], int]:
            def run() -> int:
                seen.append((n, threading.current_thread().name))
                return n
            return run
        me = threading.current_thread().name
        self.assertEqual(run_batch([Task(task(n), "same") for n in range(3)], widen=False,
                                   concurrency=4), [0, 1, 2])
        self.assertEqual(seen, [(0, me), (1, me), (2, me)])

    def test_result_n_answers_call_n_whatever_finished_first(self) -> None:
        gates = [threading.Event() for _ in range(4)]
        finished: list[int] = []

        def task(n: int) -> Callable[[], int]:
            def run() -> int:
                gates[n].wait(WAIT)
                finished.append(n)
                if n:
                    gates[n - 1].set()      # finish in reverse order: 3, 2, 1, 0
                return n * 10
            return run
        gates[3].set()
        answers = run_batch([Task(task(n), n) for n in range(4)], widen=True, concurrency=4)
        self.assertEqual(answers, [0, 10, 20, 30])
        self.assertEqual(finished, [3, 2, 1, 0])

    def test_identical_keys_run_once_and_share_the_answer(self) -> None:
        runs: list[str] = []
        lock = threading.Lock()

        def task(key: str) -> Task[str]:
            def run() -> str:
                with lock:
                    runs.append(key)
                return key.upper()
            return Task(run, key)
        answers = run_batch([task("a"), task("b"), task("a"), Task(lambda: "n"), task("a")],
                            widen=True, concurrency=4)
        self.assertEqual(answers, ["A", "B", "A", "n", "A"])
        self.assertEqual(sorted(runs), ["a", "b"])
        self.assertEqual(run_batch([task("c"), task("c")], widen=True, concurrency=4),
                         ["C", "C"])

    def test_concurrency_is_a_ceiling(self) -> None:
        lock = threading.Lock()
        running = [0, 0]   # now, most
        release = threading.Event()
        arrived = threading.Semaphore(0)

        def run() -> None:
            with lock:
                running[0] += 1
                running[1] = max(running[1], running[0])
            arrived.release()
            release.wait(WAIT)
            with lock:
                running[0] -= 1

        tasks = [Task(run, n) for n in range(6)]
        done = threading.Thread(target=run_batch, args=(tasks,),
                                kwargs={"widen": True, "concurrency": 2})
        done.start()
        self.assertTrue(arrived.acquire(timeout=WAIT) and arrived.acquire(timeout=WAIT))
        self.assertFalse(arrived.acquire(timeout=0.1))   # a third never started
        release.set()
        done.join(WAIT)
        self.assertEqual(running, [0, 2])

    def test_a_task_that_raises_raises_after_the_batch(self) -> None:
        ran = threading.Event()

        def boom() -> int:
            raise ValueError("boom")

        def other() -> int:
            ran.set()
            return 1
        with self.assertRaises(ValueError):
            run_batch([Task(boom, 1), Task(other, 2)], widen=True, concurrency=2)
        self.assertTrue(ran.is_set())


class KitBatchTest(LeakCheckingTestCase):
    """Against a real SDK server: rendezvous(n) only succeeds if n calls are in flight together."""

    def kit(self, **options: Any) -> Client:
        local = TestKit().local(**options)
        self.addCleanup(local.close)
        return local.client

    @staticmethod
    def meet(n: int, tag: str, timeout: float = WAIT) -> dict[str, Any]:
        return call("rendezvous", {"n": n, "tag": tag, "timeout": timeout}, tag)

    def test_a_read_only_batch_really_overlaps(self) -> None:
        client = self.kit()
        entries = client.execute_tool_calls([self.meet(4, f"r{n}") for n in range(4)])
        self.assertEqual([e["content"] for e in entries], [f"r{n}: met 4" for n in range(4)])

    def test_never_more_than_tool_concurrency_in_flight(self) -> None:
        client = self.kit(tool_concurrency=2)
        entries = client.execute_tool_calls([self.meet(2, f"p{n}") for n in range(4)])
        self.assertEqual([e["content"] for e in entries], [f"p{n}: met 2" for n in range(4)])
        entries = client.execute_tool_calls([self.meet(3, f"t{n}", 0.3) for n in range(3)])
        self.assertTrue(all(e["is_error"] for e in entries), entries)

    def test_one_unannotated_call_makes_the_batch_serial(self) -> None:
        client = self.kit()
        entries = client.execute_tool_calls([
            self.meet(2, "a", 0.3), call("write_note", {"text": "x"}, "w"), self.meet(2, "b", 0.3)])
        self.assertEqual([e["content"] for e in entries], [
            "Error executing tool rendezvous: a: fewer than 2 calls were in flight together "
            "within 0.3s", "noted (1 so far)",
            "Error executing tool rendezvous: b: fewer than 2 calls were in flight together "
            "within 0.3s"])

    def test_tool_concurrency_one_and_serial_tools_turn_widening_off(self) -> None:
        for options in ({"tool_concurrency": 1}, {"serial_tools": ["rendezvous"]}):
            with self.subTest(options):
                client = self.kit(**options)
                entries = client.execute_tool_calls([self.meet(2, "a", 0.2),
                                                     self.meet(2, "b", 0.2)])
                self.assertEqual([e["is_error"] for e in entries], [True, True])

    def test_parallel_tools_vouch_for_an_unannotated_tool(self) -> None:
        client = self.kit(parallel_tools=["write_note"])
        entries = client.execute_tool_calls([
            self.meet(2, "a"), call("write_note", {"text": "x"}, "w"), self.meet(2, "b")])
        self.assertEqual([e["content"] for e in entries],
                         ["a: met 2", "noted (1 so far)", "b: met 2"])

    def test_identical_read_only_calls_hit_the_server_once(self) -> None:
        client = self.kit()
        entries = client.execute_tool_calls([
            call("ticket", "", "t1"), call("ticket", "{}", "t2"), call("echo", {"text": "x"}, "e"),
            call("ticket", {}, "t3")])
        self.assertEqual([(e["tool_call_id"], e["content"]) for e in entries],
                         [("t1", "1"), ("t2", "1"), ("e", "x"), ("t3", "1")])
        entries[0]["structured_content"]["result"] = 99     # slots never share objects
        self.assertEqual(entries[1]["structured_content"], {"result": 1})
        self.assertEqual(client.execute_tool_calls([call("ticket")])[0]["content"], "2")

    def test_identical_calls_in_a_serial_batch_all_run(self) -> None:
        client = self.kit()
        entries = client.execute_tool_calls([
            call("ticket", "", "t1"), call("write_note", {"text": "x"}, "w"),
            call("ticket", "", "t2")])
        self.assertEqual([e["content"] for e in entries], ["1", "noted (1 so far)", "2"])


class FakeBatchTest(ClientCase):
    def connected(self, tools_list: Any, **options: Any) -> tuple[Client, FakeTransport]:
        fake = fake_server({"tools": {}})
        fake.on("tools/list", tools_list)
        return self.connect(fake, **options), fake

    def test_argument_order_does_not_make_calls_different(self) -> None:
        client, fake = self.connected({"tools": [
            {"name": "add", "inputSchema": OBJECT, "annotations": READ_ONLY}]})
        fake.on("tools/call", text_result("3"))
        entries = client.execute_tool_calls([
            call("add", {"a": 1, "b": 2}, "x"), call("add", '{"b": 2, "a": 1}', "y"),
            call("add", '{"a": 1, "b": 3}', "z")])
        self.assertEqual([e["tool_call_id"] for e in entries], ["x", "y", "z"])
        self.assertEqual(sorted(r["params"]["arguments"]["b"]
                                for r in fake.requests("tools/call")), [2, 3])

    def test_no_catalogue_means_a_serial_batch(self) -> None:
        from mcp_client.testing import Error
        client, fake = self.connected(Error(-32603, "no list today"))
        sent_when_answered: list[int] = []

        def answer(request: dict[str, Any]) -> dict[str, Any]:
            sent_when_answered.append(len(fake.requests("tools/call")))
            return text_result(request["params"]["name"])
        fake.on("tools/call", answer)
        entries = client.execute_tool_calls([call(f"t{n}", "", n) for n in range(3)])
        self.assertEqual([e["content"] for e in entries], ["t0", "t1", "t2"])
        self.assertEqual(sent_when_answered, [1, 2, 3])   # each sent after the last answered
