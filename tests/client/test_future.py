"""CallFuture keeps every promise of a concurrent.futures.Future (no server, no client).

One contract, run against a plain ``Future`` (the reference, set running as an
executor would) and against :class:`~mcp_client.client._future.CallFuture`,
which sets Future's fields itself: whatever a Python version's Future does,
the two must agree.  Nothing here is skipped on any Python version.
"""

from __future__ import annotations

import threading
import unittest
from concurrent.futures import (ALL_COMPLETED, FIRST_COMPLETED, FIRST_EXCEPTION, Future,
                                InvalidStateError, as_completed)
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures import wait as futures_wait
from typing import Any, Callable

from mcp_client.client._future import CallFuture

from ..base import LeakCheckingTestCase

#: How long a test waits for something that should happen at once.
WAIT = 10.0


class Boom(Exception):
    pass


class FutureContract:
    """The promises of a running Future; a subclass says how one is made."""

    def running_future(self) -> Future[Any]:
        raise NotImplementedError

    # what a subclass of unittest.TestCase provides
    assertEqual: Callable[..., None]
    assertIs: Callable[..., None]
    assertIsNone: Callable[..., None]
    assertIsInstance: Callable[..., None]
    assertTrue: Callable[..., None]
    assertFalse: Callable[..., None]
    assertIn: Callable[..., None]
    assertRaises: Callable[..., Any]

    def _in_thread(self, target: Callable[[], None]) -> threading.Thread:
        thread = threading.Thread(target=target, name="test-future-completer")
        thread.start()
        return thread

    def test_a_running_future_cannot_be_cancelled(self) -> None:
        future = self.running_future()
        self.assertIsInstance(future, Future)
        self.assertEqual((future.running(), future.done(), future.cancelled()),
                         (True, False, False))
        self.assertFalse(future.cancel())
        self.assertEqual((future.running(), future.cancelled()), (True, False))
        self.assertIn("state=running", repr(future))

    def test_result_and_exception_time_out_while_running(self) -> None:
        future = self.running_future()
        with self.assertRaises(FutureTimeout):
            future.result(0.01)
        with self.assertRaises(FutureTimeout):
            future.exception(0.01)

    def test_a_result_wakes_a_waiter_on_another_thread(self) -> None:
        future = self.running_future()
        waiting = threading.Event()
        got: list[Any] = []

        def wait() -> None:
            waiting.set()
            got.append(future.result(WAIT))

        waiter = self._in_thread(wait)
        waiting.wait(WAIT)
        future.set_result({"answer": 42})
        waiter.join(WAIT)
        self.assertEqual(got, [{"answer": 42}])
        self.assertEqual((future.done(), future.running(), future.cancelled()),
                         (True, False, False))
        self.assertIsNone(future.exception())
        self.assertEqual(future.result(), {"answer": 42})
        self.assertIn("state=finished returned dict", repr(future))

    def test_an_exception_is_raised_through_every_door(self) -> None:
        future = self.running_future()
        raised: list[BaseException | None] = []
        waiter = self._in_thread(lambda: raised.append(future.exception(WAIT)))
        failure = Boom("no")
        future.set_exception(failure)
        waiter.join(WAIT)
        self.assertEqual(len(raised), 1)
        self.assertIs(raised[0], failure)
        with self.assertRaises(Boom):
            future.result()
        self.assertIs(future.exception(), failure)
        self.assertTrue(future.done())
        self.assertIn("state=finished raised Boom", repr(future))

    def test_completing_twice_is_an_invalid_state(self) -> None:
        for first in ("result", "exception"):
            future = self.running_future()
            if first == "result":
                future.set_result(1)
            else:
                future.set_exception(Boom())
            with self.assertRaises(InvalidStateError):
                future.set_result(2)
            with self.assertRaises(InvalidStateError):
                future.set_exception(Boom())
            self.assertFalse(future.cancel())

    def test_callbacks_run_once_each_with_the_future(self) -> None:
        future = self.running_future()
        before: list[Future[Any]] = []
        called = threading.Event()

        def early(done: Future[Any]) -> None:
            before.append(done)
            called.set()

        future.add_done_callback(early)
        self._in_thread(lambda: future.set_result("x")).join(WAIT)
        self.assertTrue(called.wait(WAIT))
        after: list[tuple[Any, str]] = []
        future.add_done_callback(
            lambda done: after.append((done.result(), threading.current_thread().name)))
        self.assertEqual(after, [("x", threading.current_thread().name)])   # at once, here
        self.assertEqual(len(before), 1)
        self.assertIs(before[0], future)

    def test_wait_and_as_completed(self) -> None:
        futures = [self.running_future() for _ in range(6)]
        done, not_done = futures_wait(futures, timeout=0.01)
        self.assertEqual((done, not_done), (set(), set(futures)))
        finisher = self._in_thread(lambda: futures[3].set_result(3))
        done, not_done = futures_wait(futures, timeout=WAIT, return_when=FIRST_COMPLETED)
        finisher.join(WAIT)
        self.assertEqual(done, {futures[3]})
        futures[4].set_exception(Boom())
        done, _ = futures_wait(futures, timeout=WAIT, return_when=FIRST_EXCEPTION)
        self.assertIn(futures[4], done)
        rest = [f for n, f in enumerate(futures) if n not in (3, 4)]
        order: list[Any] = []

        def finish() -> None:
            for n, future in enumerate(rest):
                future.set_result(n)

        finisher = self._in_thread(finish)
        for future in as_completed(futures, timeout=WAIT):
            order.append(future.exception() or future.result())
        finisher.join(WAIT)
        self.assertEqual(sorted(x for x in order if isinstance(x, int)), [0, 1, 2, 3, 3])
        self.assertEqual(sum(isinstance(x, Boom) for x in order), 1)
        done, not_done = futures_wait(futures, timeout=WAIT, return_when=ALL_COMPLETED)
        self.assertEqual((len(done), not_done), (6, set()))


class PlainFutureTest(FutureContract, LeakCheckingTestCase):
    """The reference: a Future as an executor hands it out once its work starts."""

    def running_future(self) -> Future[Any]:
        future: Future[Any] = Future()
        self.assertTrue(future.set_running_or_notify_cancel())
        return future


class CallFutureTest(FutureContract, LeakCheckingTestCase):
    """The pipelined call's Future, made as :mod:`mcp_client.client._flights` makes it."""

    def setUp(self) -> None:
        super().setUp()
        self.handed: list[Callable[[Future[Any]], object]] = []

    def running_future(self) -> Future[Any]:
        def runner(fn: Callable[[Future[Any]], object], future: Future[Any]) -> None:
            self.handed.append(fn)   # the client's pool would run it; here, inline
            fn(future)

        return CallFuture(runner)

    def test_a_callback_added_before_completion_goes_to_the_runner(self) -> None:
        future = self.running_future()
        early: list[Any] = []
        late: list[Any] = []
        future.add_done_callback(early.append)
        future.set_result(7)
        future.add_done_callback(late.append)
        self.assertEqual(self.handed, [early.append])
        self.assertEqual((early, late), ([future], [future]))

    def test_a_result_is_returned_as_set(self) -> None:
        future = self.running_future()
        value = object()
        future.set_result(value)
        self.assertIs(future.result(0), value)


if __name__ == "__main__":
    unittest.main()
