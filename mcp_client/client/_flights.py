"""Pipelined calls: many requests in flight without a thread waiting on each.

``call_tool_async`` and a widened ``execute_tool_calls`` batch could run each
call on a pool thread that blocks until its answer arrives; every answer then
costs two thread hand-offs (reader -> pool thread -> the caller waiting on the
future).  On a wire whose ``send`` does not wait on a live peer (stdio: the
outbox takes what the pipe does not; only a dying server's exit is waited for,
a few seconds at most), a pipelined call is instead sent from the caller's thread
and its answer is shaped and handed to its :class:`~concurrent.futures.Future`
on the thread that completes the request -- the transport's reader, or the one
failing the wire -- so one hand-off is left.

What stays the same as the blocking call: the result and every error, the
request's timeout (with ``reset_timeout_on_progress`` and
``max_total_timeout``), ``notifications/cancelled`` for a call that timed out,
progress tickets, and multi round-trip requests (an ``input_required`` answer
moves to a thread of its own, where the hooks may take as long as a human).

A widened batch whose thread waits for all of its calls anyway is a
:func:`volley`: no Future, deadline entry or callback per call, one write,
and the batch's own thread reads the answers, shapes them and keeps the
timeouts (a :class:`Flight` per call is left for a batch with more distinct
calls than may be in flight at once).

Decisions:

* only ``tools/call``, only once the era is known, and only without a
  ``cancelled`` signal (it would need a thread to watch it); anything else
  runs as before on the client's pool -- but a bridge call's
  :class:`~._cancel.CallStop` needs no watcher: the request is attached to it
  while in flight, and ``cancel_tool_calls`` gives it up from its own thread;
* timeouts are kept by one thread per client, started on the first pipelined
  call with a budget and stopped by ``close()``; it wakes only at a deadline
  (or for a deadline earlier than the one it sleeps towards), never per call;
* a continuation thread's name starts with ``mcp-client-`` so that a batch
  run from a hook does not wait on the pool that runs it.
"""

from __future__ import annotations

import threading
import time

from .._log import get_logger
from ..exceptions import Cancelled, MCPClientError, Timeout
from ._cancel import STOP_LEAD

TYPE_CHECKING = False
if TYPE_CHECKING:
    from concurrent.futures import Future
    from typing import Any, Callable, Sequence

    from ..correlator import Pending
    from ..protocol import Shaped
    from ._hosts import FlightsHost
    from ._pools import Pools
    from ._cancel import CallStop
    from ._era import EraInfo
    from ._progress import Ticket

__all__ = ["Flight", "all_done", "answer_class", "volley"]

log = get_logger(__name__)


class Flight:
    """One pipelined ``tools/call``: sent by the caller, finished by whoever completes it.

    It works through the methods of its host (:class:`~._hosts.FlightsHost`: the
    connection) and of :class:`~._pools.Pools` only.
    """

    __slots__ = ("connection", "pools", "future", "params", "progress_token", "tool_call_id",
                 "outcome", "ticket", "budget", "start", "pending", "forget", "info", "stop")

    def __init__(self, connection: FlightsHost, pools: Pools, future: Future[Any],
                 params: dict[str, Any], progress_token: str | int | None,
                 tool_call_id: str | None, outcome: bool, stop: CallStop | None = None) -> None:
        self.connection = connection
        self.pools = pools
        self.future = future
        self.params = params
        self.progress_token = progress_token
        self.tool_call_id = tool_call_id
        self.outcome = outcome
        self.ticket: Ticket | None = None
        self.budget: float | None = None
        self.start = time.monotonic()
        self.pending: Pending | None = None
        #: ``forget(ident, None)``: the deadline entry dropped (None: no budget, no entry).
        self.forget: Callable[[Any, None], Any] | None = None
        #: The bridge call's stop, which ``cancel_tool_calls`` sets (None: not cancellable).
        self.stop = stop

    def send(self, timeout: float | None) -> None:
        connection = self.connection
        stop = self.stop
        if stop is not None and stop.is_set():
            raise Cancelled("tools/call")   # cancelled before it was sent: it is not
        self.info, budget, self.ticket, meta = connection.flight_terms(
            timeout, self.progress_token, self.tool_call_id)
        self.budget = budget
        pending = self.pending = connection.register("tools/call", self.answered)
        try:
            if budget is not None:
                deadlines = self.pools.deadlines()
                self.forget = deadlines.forget
                deadlines.add(pending.ident, self.start + budget, self.due)
            connection.writer.post(pending, self.params, meta, pipelined=True)
        except BaseException:
            if self.forget is not None:
                self.forget(pending.ident, None)
            connection.abandon(pending)
            raise
        if stop is not None:
            stop.attach(pending, connection.give_up_call)

    def answered(self, pending: Pending) -> None:
        """The request completed (on the completing thread): shape it and finish."""
        try:
            if self.forget is not None:
                self.forget(pending.ident, None)
            if self.stop is not None:
                self.stop.detach(pending)
            shaped = self.connection.shaped(self.info, "tools/call", pending.result())
            if shaped.result_type == "input_required":
                thread = threading.Thread(target=self.more_rounds, args=(shaped,), daemon=True,
                                          name=f"mcp-client-rounds-{pending.ident}")
                self.pools.track_round(thread)
                thread.start()
                return
            if self.ticket is None and self.stop is None:   # finish(), inline: a frame less
                self.future.set_result(shaped.body)
                return
            self.finish(shaped.body, None)
        except BaseException as exc:
            self.finish(None, exc)

    def more_rounds(self, shaped: Shaped) -> None:
        connection = self.connection
        try:
            meta = connection.meta(self.info, self.ticket.token if self.ticket else None)
            body = connection.more_rounds(self.info, "tools/call", self.params, meta,
                                          self.budget, self.stop, self.ticket, None, shaped).body
        except BaseException as exc:
            self.finish(None, exc)
        else:
            self.finish(body, None)
        finally:
            self.pools.untrack_round(threading.current_thread())

    def due(self, now: float) -> float | None:
        """The deadline passed (on the deadline thread): stretch it, or time the call out."""
        connection = self.connection
        pending = self.pending
        assert pending is not None
        later = connection.stretched(self.ticket, self.budget,
                                     connection.hard_deadline(self.start), now)
        if later is not None:
            return later
        if not connection.abandon(pending):
            return None   # the answer won the race, and finishes the call
        seconds = self.budget or 0.0
        try:
            connection.cancel(pending.ident, f"timed out after {seconds:g}s")
        except Exception:   # a dying wire: the timeout is still the caller's answer
            pass
        self.finish(None, Timeout("tools/call", seconds))
        return None

    def finish(self, body: dict[str, Any] | None, error: BaseException | None) -> None:
        if self.ticket is not None:
            self.connection.close_ticket(self.ticket)
        if self.stop is not None:   # the call has its outcome: nothing left to cancel
            self.stop.finish()
        if error is None:   # the common case first: no look at done() (it takes a lock)
            assert body is not None
            try:
                self.future.set_result(body)
            except _DONE_ALREADY:   # cannot happen (the correlator completes a call once)
                pass
            return
        if self.future.done():
            return
        if self.outcome:
            if not isinstance(error, MCPClientError):
                log.error("tools/call %s failed inside the client", self.params.get("name"),
                          exc_info=error)
            self.future.set_result(error)
        else:
            self.future.set_exception(error)


def volley(connection: FlightsHost, pools: Pools,
           calls: Sequence[tuple[dict[str, Any], str | None]],
           stops: Sequence[CallStop | None] | None = None) -> list[Any]:
    """Pipelined ``tools/call`` requests ``(params, tool_call_id)``, sent together and
    awaited by the calling thread: one outcome each, the result or the exception.

    What a batch of :class:`Flight` would do, done once for the batch: one
    budget and envelope, one take of the correlator's lock, one write, and
    this thread reads the wire while it waits (it leads) and shapes every
    answer itself -- no Future, no deadline entry and no callback per call.
    Timeouts (stretched by progress as a blocking call's are),
    ``notifications/cancelled`` and ``input_required`` rounds (each on a
    thread of its own, as a Flight's) are kept.  Never raises for a call.

    ``stops`` (one per call, or None): each request is attached to its call's
    :class:`~._cancel.CallStop` while in flight, and this thread leads for
    :data:`~._cancel.STOP_LEAD` at most (a cancel cannot wake a read of the wire).
    """
    params = [body for body, _ in calls]
    tickets: list[Ticket | None] = []
    try:
        try:
            connection.revive()
            info = connection.era_info
            if info is None:
                raise MCPClientError("a pipelined call needs the era to be known")
            budget = connection.budget(None)
            start = time.monotonic()
            if connection.mints_progress:
                tickets = [connection.open_ticket(None, ident) for _, ident in calls]
            else:
                tickets = [None] * len(calls)
            meta = connection.meta(info, None)
            metas = [meta if ticket is None else connection.meta(info, ticket.token)
                     for ticket in tickets]
            pendings = connection.register_many("tools/call", len(calls))
        except Exception as exc:   # nothing was sent: every call has the same outcome
            return [_outcome(exc, body) for body in params]
        done = all_done(pendings)
        # sent once this thread holds the wire, so that the answers wake nobody else
        writer = connection.writer
        if stops is None:
            connection.lead(done, budget, lambda: writer.post_all(pendings, params, metas))
            timed_out = _await_all(connection, pendings, tickets, budget, start)
        else:
            timed_out = _await_stoppable(connection, pendings, params, metas, tickets, budget,
                                         start, stops)
        return _shaped_all(connection, pools, info, pendings, params, metas, tickets,
                           timed_out, budget, stops)
    finally:
        for ticket in tickets:
            if ticket is not None:
                connection.close_ticket(ticket)


def _await_all(connection: FlightsHost, pendings: Sequence[Pending],
               tickets: Sequence[Ticket | None], budget: float | None,
               start: float) -> set[int]:
    """Wait until every cell is done or has timed out; returns the slots that timed out."""
    timed_out: set[int] = set()
    deadline = None if budget is None else start + budget
    hard = connection.hard_deadline(start)
    index = 0
    while True:
        while index < len(pendings):
            if index in timed_out:
                index += 1
                continue
            left = None if deadline is None else deadline - time.monotonic()
            if not pendings[index].wait(left):
                break
            index += 1
        else:
            return timed_out
        now = time.monotonic()
        deadline = None   # a late answer that won the race with abandon() is waited for
        for slot in range(index, len(pendings)):
            pending = pendings[slot]
            if slot in timed_out or pending.done():
                continue
            later = connection.stretched(tickets[slot], budget, hard, now)
            if later is not None:
                deadline = later if deadline is None else min(deadline, later)
            elif connection.abandon(pending):
                timed_out.add(slot)
                try:
                    connection.cancel(pending.ident, f"timed out after {budget or 0.0:g}s")
                except Exception:   # a dying wire: the timeout is still the call's outcome
                    pass


def _await_stoppable(connection: FlightsHost, pendings: Sequence[Pending],
                     params: Sequence[dict[str, Any]], metas: Sequence[dict[str, Any] | None],
                     tickets: Sequence[Ticket | None], budget: float | None, start: float,
                     stops: Sequence[CallStop | None]) -> set[int]:
    """:func:`_await_all` for calls that ``cancel_tool_calls`` may give up: each
    request is attached to its stop once sent, and detached once done."""
    writer = connection.writer

    def send() -> None:
        writer.post_all(pendings, params, metas)
        for pending, stop in zip(pendings, stops):
            if stop is not None:
                stop.attach(pending, connection.give_up_call)

    try:
        connection.lead(all_done(pendings), STOP_LEAD if budget is None
                        else min(STOP_LEAD, budget), send)
        return _await_all(connection, pendings, tickets, budget, start)
    finally:
        for pending, stop in zip(pendings, stops):
            if stop is not None:
                stop.detach(pending)


def _shaped_all(connection: FlightsHost, pools: Pools, info: EraInfo,
                pendings: Sequence[Pending], params: Sequence[dict[str, Any]],
                metas: Sequence[dict[str, Any] | None], tickets: Sequence[Ticket | None],
                timed_out: set[int], budget: float | None,
                stops: Sequence[CallStop | None] | None = None) -> list[Any]:
    """Every cell's outcome; ``input_required`` answers go on with their rounds meanwhile."""
    outcomes: list[Any] = []
    rounds: list[tuple[int, threading.Thread]] = []
    for slot, pending in enumerate(pendings):
        if slot in timed_out:
            outcomes.append(Timeout("tools/call", budget or 0.0))
            continue
        try:
            shaped = connection.shaped(info, "tools/call", pending.result())
        except Exception as exc:
            outcomes.append(_outcome(exc, params[slot]))
            continue
        if shaped.result_type != "input_required":
            outcomes.append(shaped.body)
            continue
        outcomes.append(None)
        thread = threading.Thread(
            target=_more_rounds, daemon=True, name=f"mcp-client-rounds-{pending.ident}",
            args=(connection, pools, info, params[slot], metas[slot], tickets[slot], shaped,
                  budget, outcomes, slot, None if stops is None else stops[slot]))
        pools.track_round(thread)
        thread.start()
        rounds.append((slot, thread))
    for _, thread in rounds:
        thread.join()
    return outcomes


def all_done(items: Sequence[Pending] | Sequence[Future[Any]]) -> Callable[[], bool]:
    """``done()`` for a lead over ``items``: whether every one is done.

    It remembers how far it got, so asked again and again while answers come
    in it looks at each item about once, not once per look.
    """
    index = 0

    def done() -> bool:
        nonlocal index
        while index < len(items) and items[index].done():
            index += 1
        return index == len(items)

    return done


def _more_rounds(connection: FlightsHost, pools: Pools, info: EraInfo, params: dict[str, Any],
                 meta: dict[str, Any] | None, ticket: Ticket | None, shaped: Shaped,
                 budget: float | None, outcomes: list[Any], slot: int,
                 stop: CallStop | None) -> None:
    """A volley's ``input_required`` answer, completed through the hooks (its own thread)."""
    try:
        outcomes[slot] = connection.more_rounds(info, "tools/call", params, meta, budget, stop,
                                                ticket, None, shaped).body
    except BaseException as exc:
        outcomes[slot] = _outcome(exc, params)
    finally:
        pools.untrack_round(threading.current_thread())


def _outcome(exc: BaseException, params: dict[str, Any]) -> BaseException:
    """A failed call's outcome; one that is no MCPClientError is a bug, and logged."""
    if not isinstance(exc, MCPClientError):
        log.error("tools/call %s failed inside the client", params.get("name"), exc_info=exc)
    return exc


#: The class :func:`answer_class` makes, once it has (a look without a frame).
CALL_FUTURE: type | None = None
#: What set_result() raises on a Future already done (set with the class, on first use).
_DONE_ALREADY: type[BaseException] = RuntimeError


def answer_class() -> type:
    """The Future of a pipelined call (:mod:`._future`), imported on first use (it is not free)."""
    global CALL_FUTURE, _DONE_ALREADY
    if CALL_FUTURE is None:
        from ._future import CallFuture, InvalidStateError

        _DONE_ALREADY = InvalidStateError
        CALL_FUTURE = CallFuture
    return CALL_FUTURE
