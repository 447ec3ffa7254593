"""The batch scheduler every bridge shares: how a batch of tool calls is executed.

A model asks for several tool calls in one turn.  This module decides whether
they may overlap, and runs them:

* One call at a time, in model order -- unless every call in the batch names a
  tool the server annotated ``readOnlyHint: true``.  A write, a command or a
  question for the user beside a read means the read waits its turn: a model
  that asked for both in one turn is describing an order, and the annotation
  is the only evidence there is that a call is not part of one.
* A widened batch has its distinct calls in flight together, up to
  ``concurrency`` of them, and identical calls (same tool, same arguments) are
  sent once, the answer given to every slot that asked for it.
* Order is not an outcome: result n answers call n, whatever finished first.
* The batch has run by the time :func:`run_batch` returns: every worker thread
  it started has been joined.

It owns no connection and knows nothing about MCP messages: callers hand it
callables and keys.  It must not raise on a caller's behalf (a task that
raises is the caller's bug, re-raised once the whole batch has finished) and
must not leave a thread behind.

Decisions:

* **readOnlyHint alone widens.**  Demanding ``readOnlyHint`` *and*
  ``idempotentHint`` would be wrong: the specification says ``idempotentHint`` is
  "meaningful only when readOnlyHint is false" (2025-11-25 / 2026-07-28
  schema, ToolAnnotations), so a correctly annotated read-only tool usually
  leaves it out and a rule demanding both would almost never widen.
  A tool without side effects is safe to overlap and to deduplicate, which is
  all the rule is for.
* Annotations are untrusted hints (2025-11-25 server/tools).  ``parallel_tools`` and
  ``serial_tools`` (client options) let a caller override
  them by the server's tool name: a name in ``serial_tools`` always keeps its
  batch serial, a name in ``parallel_tools`` counts as read-only whatever the
  server said.
* No catalogue (it could not be fetched) means a serial batch: concurrency is
  opted into by a server that said its tools were safe, never assumed.
* A batch of fewer than two calls, or ``concurrency`` 1, runs serially in the
  caller's thread.
"""

from __future__ import annotations

import os
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ThreadPoolExecutor, wait
from typing import Any, Callable, Collection, Generic, Hashable, Mapping, Sequence, TypeVar

__all__ = ["Task", "may_overlap", "is_parallel_safe", "run_batch", "distinct", "spread"]

T = TypeVar("T")


class Task(Generic[T]):
    """One slot of a batch.

    Args:
        run: does the work and returns the slot's answer.  It should not raise.
        key: slots with equal (non-None) keys are one request in a widened
            batch; ``None`` never shares.
        start: in a widened batch, starts the work and returns its Future
            instead of ``run`` occupying a thread (a pipelined call); the
            Future's result is the slot's answer.  It should not raise.
    """

    __slots__ = ("run", "key", "start")

    def __init__(self, run: Callable[[], T], key: Hashable | None = None,
                 start: Callable[[], Future[T]] | None = None) -> None:
        self.run = run
        self.key = key
        self.start = start

    def __repr__(self) -> str:
        return f"<Task key={self.key!r}>"


def is_parallel_safe(name: str, annotations: Mapping[str, Any] | None, *,
                     parallel_tools: Collection[str] = (),
                     serial_tools: Collection[str] = ()) -> bool:
    """Whether a call to ``name`` may overlap with others.

    Args:
        name: the server's tool name.
        annotations: the tool's ``annotations`` from ``tools/list`` (or None).
        parallel_tools: names the caller vouches for.
        serial_tools: names the caller forbids to overlap (wins over both).
    """
    if name in serial_tools:
        return False
    if name in parallel_tools:
        return True
    # dict first: an isinstance() against typing's Mapping is a Python-level look-up
    return (type(annotations) is dict or isinstance(annotations, Mapping)) and \
        annotations.get("readOnlyHint") is True


def may_overlap(names: Sequence[str], catalogue: Mapping[str, Mapping[str, Any] | None] | None,
                *, concurrency: int, parallel_tools: Collection[str] = (),
                serial_tools: Collection[str] = ()) -> bool:
    """Whether a batch calling ``names`` (server names, in order) may be widened.

    Args:
        names: the tool of each call that will reach the server.
        catalogue: tool name -> its annotations (None: the catalogue could not
            be fetched, so nothing may overlap).
        concurrency: ``tool_concurrency``; 1 turns widening off.
        parallel_tools: see :func:`is_parallel_safe`.
        serial_tools: see :func:`is_parallel_safe`.
    """
    if concurrency <= 1 or len(names) < 2 or catalogue is None:
        return False
    return all(is_parallel_safe(name, catalogue.get(name), parallel_tools=parallel_tools,
                                serial_tools=serial_tools) for name in dict.fromkeys(names))


def _on_executor(executor: Executor | None, tasks: Sequence[Task[T]], workers: int,
                 flush: Callable[[], None] | None = None,
                 wait_all: Callable[[Sequence[Future[T]]], None] | None = None
                 ) -> list[Future[T]]:
    """Start ``tasks`` (or run them on a caller's executor), never more than ``workers`` at once."""
    futures: list[Future[T]] = []
    running: set[Future[T]] = set()
    for task in tasks:
        if len(running) >= workers:
            if flush is not None:
                flush()
            _, running = wait(running, return_when=FIRST_COMPLETED)
        if task.start is not None:
            future = task.start()
        else:
            assert executor is not None
            future = executor.submit(task.run)
        futures.append(future)
        running.add(future)
    if wait_all is not None:
        wait_all(futures)   # it flushes, when it is ready to wait
    else:
        if flush is not None:
            flush()
        wait(running)
    return futures


def run_batch(tasks: Sequence[Task[T]], *, widen: bool, concurrency: int,
              thread_name: str = "mcp-batch", executor: Executor | None = None,
              flush: Callable[[], None] | None = None,
              wait_all: Callable[[Sequence[Future[T]]], None] | None = None) -> list[T]:
    """Run ``tasks`` and return one answer per task, in task order.

    Args:
        tasks: the slots, in model order.
        widen: run distinct keys together (see :func:`may_overlap`); False runs
            the tasks one at a time, in order, in the caller's thread.
        concurrency: at most this many tasks in flight together.
        thread_name: prefix of the worker threads' names.
        executor: run the tasks there (a client's own pool, whose threads
            outlive the batch) instead of on threads started for this batch.
        flush: called before waiting on started tasks (``start`` may hold
            its work back until then, to send it in one go).
        wait_all: waits until all of its futures are done, in place of
            :func:`concurrent.futures.wait` and the last ``flush`` (it sends
            the held work itself, and may do it meanwhile).

    Returns:
        the answers; slots that shared a key share the answer object.

    Raises:
        Exception: whatever a task raised (after every task has finished).
    """
    if not widen or concurrency <= 1 or len(tasks) < 2:
        return [task.run() for task in tasks]
    groups = distinct([task.key for task in tasks])
    if len(groups) == 1:
        answer = tasks[groups[0][0]].run()
        return [answer for _ in tasks]
    workers = min(concurrency, len(groups))
    firsts = [slots[0] for slots in groups]
    if executor is not None or all(tasks[i].start is not None for i in firsts):
        done = _on_executor(executor, [tasks[i] for i in firsts], workers, flush, wait_all)
    else:
        pool = ThreadPoolExecutor(workers, thread_name_prefix=f"{thread_name}-{os.getpid()}")
        try:
            done = [pool.submit(tasks[i].run) for i in firsts]
        finally:
            pool.shutdown(wait=True)
    return spread(groups, [future.result() for future in done], len(tasks))


def distinct(keys: Sequence[Hashable | None]) -> list[list[int]]:
    """The slots of a widened batch grouped by key, in the order each key first appears.

    Slots with equal (non-None) keys are one group, sent once; a None key
    shares with nothing.
    """
    if None not in keys and len(set(keys)) == len(keys):   # all distinct: the common case
        return [[index] for index in range(len(keys))]
    groups: dict[Hashable, list[int]] = {}
    for index, key in enumerate(keys):
        groups.setdefault(("slot", index) if key is None else ("key", key), []).append(index)
    return list(groups.values())


def spread(groups: Sequence[Sequence[int]], answers: Sequence[T], size: int) -> list[T]:
    """One answer per slot: each group's answer given to every slot of the group."""
    slotted: list[Any] = [None] * size
    for slots, answer in zip(groups, answers):
        for index in slots:
            slotted[index] = answer
    return slotted
