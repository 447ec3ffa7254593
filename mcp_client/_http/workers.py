"""The threads that post an HTTP transport's messages: started on demand, reused while idle.

Starting a thread per POST costs more than the rest of the client's work on
it: ``Thread.start`` waits until the new thread runs, two context switches
before the caller may even wait for its answer.  So a worker that finished
its job waits a while (:data:`IDLE_SECONDS`) for the next one, which is
handed to it directly; more jobs at once than idle workers start new ones,
so a message never waits for another.  At most ``max_idle`` workers wait at
once (the others end).  A worker takes the name of the message it posts.

It must not know about HTTP or MCP: a job is a callable, which must not raise.
"""

from __future__ import annotations

import logging
import queue
import threading
from typing import Callable, Optional, Tuple

__all__ = ["Workers", "IDLE_SECONDS"]

log = logging.getLogger(__name__)

#: How long an idle worker waits for a job before it ends (a bound of ours: an
#: unclosed transport does not keep threads forever).
IDLE_SECONDS = 30.0

_Job = Optional[Tuple[str, Callable[[], None]]]   # None: stop


class _Worker:
    __slots__ = ("thread", "jobs")

    def __init__(self) -> None:
        self.thread: threading.Thread | None = None
        self.jobs: queue.SimpleQueue[_Job] = queue.SimpleQueue()


class Workers:
    """Runs each job on a thread of its own, reusing the threads that wait idle.

    Args:
        max_idle: how many finished workers may wait for a next job.
    """

    def __init__(self, *, max_idle: int) -> None:
        self._lock = threading.Lock()
        self._max_idle = max_idle
        self._idle: list[_Worker] = []          # the last to finish is reused first
        self._live: set[threading.Thread] = set()
        self._stopped = False

    def __repr__(self) -> str:
        return f"<Workers live={len(self._live)} idle={len(self._idle)}>"

    def submit(self, name: str, job: Callable[[], None]) -> None:
        """Run ``job`` now, on an idle worker or a new thread called ``name``."""
        with self._lock:
            if self._stopped:
                raise RuntimeError("the workers were stopped")
            if self._idle:
                self._idle.pop().jobs.put((name, job))
                return
            worker = _Worker()
            worker.thread = threading.Thread(target=self._work, args=(worker, job), name=name,
                                             daemon=True)
            self._live.add(worker.thread)
            worker.thread.start()   # under the lock: stop() never sees an unstarted thread

    def _work(self, worker: _Worker, job: Callable[[], None]) -> None:
        current = threading.current_thread()
        try:
            while True:
                job()
                next_job = self._next(worker)
                if next_job is None:
                    return
                current.name, job = next_job
        finally:
            with self._lock:
                self._live.discard(current)

    def _next(self, worker: _Worker) -> _Job:
        """Wait idle for the next job (None: this worker ends)."""
        with self._lock:
            if self._stopped or len(self._idle) >= self._max_idle:
                return None
            self._idle.append(worker)
        try:
            return worker.jobs.get(timeout=IDLE_SECONDS)
        except queue.Empty:
            with self._lock:
                if worker in self._idle:
                    self._idle.remove(worker)
                    return None
            # submit() took this worker just as the wait ended: its job is queued already
            return worker.jobs.get_nowait()

    def stop(self, timeout: float) -> None:
        """End every worker once its job is done, and join them (idempotent)."""
        with self._lock:
            self._stopped = True
            idle, self._idle = self._idle, []
            threads = list(self._live)
        for worker in idle:
            worker.jobs.put(None)
        current = threading.current_thread()
        for thread in threads:
            if thread is not current:
                thread.join(timeout)
                if thread.is_alive():
                    log.warning("%s did not finish", thread.name)
