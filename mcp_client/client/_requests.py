"""One connection's requests: each one's round trips, its wait, its timeout, its cancel.

:class:`Requests` sends a request in the negotiated era and returns the
caller's view of its result: the budget, the ``_meta`` envelope, the send
(through :class:`~._writer.Writer`), the wait (this thread may lead the wire,
:meth:`Transport.lead`), the timeout (stretched by progress under
``reset_timeout_on_progress``, capped by ``max_total_timeout``), the cancel,
the ``input_required`` rounds of 2026-07-28 multi round-trip requests, the
result cache and pagination.  It is also what pipelined calls work through
(:class:`~._hosts.FlightsHost`).

It changes no connection state: it reads the state its host
(:class:`~._hosts.RequestsHost`, the connection) shows, and asks the host to
revive a dead wire as a request begins.
"""

from __future__ import annotations

import time

from .. import protocol
from ..cache import Cache
from ..exceptions import Cancelled, InputLoopExceeded, MCPClientError, ProtocolError, Timeout
from ._budget import checked_budget, hard_deadline, stretched
from ._cancel import CANCEL_POLL, STOP_LEAD, CallStop, check_cancel_signal, fired, pause
from ._icons import ICON_LISTS, page_with_safe_icons
from ._paging import pages

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Mapping

    from ..correlator import Correlator, Pending
    from ._era import EraInfo
    from ._hosts import RequestsHost
    from ._inputs import Inputs
    from ._negotiation import Negotiation
    from ._otel import Tracing
    from ._progress import ProgressBook, Ticket
    from ._watch import Watch
    from ._writer import Writer

__all__ = ["Requests"]

#: The wait before retrying a state-only ``input_required`` round: first, cap.
_STATE_BACKOFF = (0.05, 0.25)


class Requests:
    """The requests of one connection (see the module).

    Args:
        host: the connection, for its state and its revival.
        correlator: the connection's request table.
        writer: writes the requests to the wire.
        negotiation: keeps the era and the ``_meta`` envelope.
        watch: the listen request, opened as the first request of an era needs it.
        cache: the result cache.
        progress: the progress tickets.
        inputs: the hooks that answer ``input_required`` rounds.
        opts: the client's checked options.
        default_budget: ``request_timeout`` as a budget (:func:`._budget.checked_budget`).
    """

    def __init__(self, host: RequestsHost, correlator: Correlator, writer: Writer, *,
                 negotiation: Negotiation, watch: Watch, cache: Cache, progress: ProgressBook,
                 inputs: Inputs, opts: Mapping[str, Any], default_budget: float | None,
                 tracing: Tracing | None = None) -> None:
        self._host = host
        self._tracing = tracing
        self._correlator = correlator
        self._writer = writer
        self._negotiation = negotiation
        self._watch = watch
        self._cache = cache
        self._progress = progress
        self._inputs = inputs
        self._opts = opts
        #: ``request_timeout`` as a budget (None: none).
        self.default_budget = default_budget

    def __repr__(self) -> str:
        return f"<Requests pending={len(self._correlator)}>"

    @property
    def writer(self) -> Writer:
        """Writes the requests (:mod:`._writer`)."""
        return self._writer

    @property
    def era_info(self) -> EraInfo | None:
        """What negotiation found, or None before it finished."""
        return self._negotiation.info

    def meta(self, info: EraInfo, progress_token: str | int | None) -> dict[str, Any] | None:
        """A request's ``_meta``: the modern envelope, or a legacy progress token."""
        return self._negotiation.meta(info, progress_token)

    def revive(self) -> None:
        """The host's :meth:`~._connection.Connection.revive`."""
        self._host.revive()

    def _check_usable(self) -> None:
        host = self._host
        if host.state != "open":
            raise host.failure()

    def budget(self, timeout: float | None) -> float | None:
        """A request's budget in seconds (None: ``request_timeout``); None for no budget."""
        return self.default_budget if timeout is None else checked_budget(timeout)

    def request(self, method: str, params: Mapping[str, Any], *, timeout: float | None,
                cancelled: Any, progress_token: str | int | None = None,
                tool_call_id: str | None = None, refresh: bool = False,
                headers: Mapping[str, str] | None = None, tasks: bool = False) -> dict[str, Any]:
        """Send a request in the negotiated era and return the caller's view of its result.

        Completes a multi round-trip request (``input_required``) through the
        hooks, serves and fills the result cache, and tracks progress.
        ``timeout`` bounds each round trip, not the time hooks spend.  With
        ``tasks`` the request declares the tasks extension, and a
        ``tools/call`` may come back as a task (``{"resultType": "task", ...}``).
        """
        if cancelled is not None:
            check_cancel_signal(cancelled)
        budget = self.default_budget if timeout is None else checked_budget(timeout)
        host = self._host
        if host.state == "dead":
            host.revive()
        negotiation = self._negotiation
        info = negotiation.info or negotiation.ensure(budget, cancelled, method)
        self._watch.ensure(info)
        key = None
        if info.era == "modern" and method in protocol.CACHEABLE_METHODS:
            key = Cache.key(method, dict(params))
            if refresh:
                self._cache.drop(key)
            else:
                hit = self._cache.get(key)
                if hit is not None:
                    return dict(hit)
        tracing = self._tracing
        if tracing is None:
            return self._send(info, method, params, key, budget, cancelled, progress_token,
                              tool_call_id, headers, tasks, None)
        with tracing.span(method, params, info) as span:
            body = self._send(info, method, params, key, budget, cancelled, progress_token,
                              tool_call_id, headers, tasks, tracing.carrier(span))
            tracing.answered(span, method, body)
            return body

    def _send(self, info: EraInfo, method: str, params: Mapping[str, Any], key: Any,
              budget: float | None, cancelled: Any, progress_token: str | int | None,
              tool_call_id: str | None, headers: Mapping[str, str] | None, tasks: bool,
              carrier: dict[str, str] | None) -> dict[str, Any]:
        """:meth:`request` past the cache: the round trips (``carrier``: the trace
        context its ``_meta`` carries), then the cache filled."""
        negotiation = self._negotiation
        ticket = self._progress.open(progress_token, tool_call_id) \
            if method == "tools/call" else None
        try:
            meta = negotiation.meta(info, ticket.token if ticket is not None else None, tasks)
            if carrier is not None:   # a new dict: an envelope is shared, never changed
                meta = {**(meta or {}), **carrier}
            shaped = self._round_trip(info, method, params, meta, budget, cancelled, ticket,
                                      headers, tasks)
            more = shaped.result_type == "input_required"
            if more:
                shaped = self.more_rounds(info, method, params, meta, budget, cancelled, ticket,
                                          headers, shaped, tasks)
        finally:
            self._progress.close(ticket)
        body = shaped.body
        if method in ICON_LISTS:   # once, as the page arrives: a cached page is clean
            body = page_with_safe_icons(body, ICON_LISTS[method])
        if key is not None and not more:
            self._cache.put(key, body, shaped.ttl_ms)
        return body

    def _round_trip(self, info: EraInfo, method: str, params: Mapping[str, Any],
                    meta: dict[str, Any] | None, budget: float | None, cancelled: Any,
                    ticket: Ticket | None, headers: Mapping[str, str] | None = None,
                    tasks: bool = False) -> protocol.Shaped:
        host = self._host
        if host.state != "open":   # exchange(), unrolled: this is every request's path
            raise host.failure()
        if type(cancelled) is CallStop:
            return self._stoppable_trip(info, method, params, meta, budget, cancelled, ticket,
                                        headers, tasks)
        pending = self._correlator.register(method)
        leads = self._leads(budget, cancelled, ticket)
        self._writer.post(pending, params, meta, headers=headers, led=leads)
        return self.shaped(info, method,
                           self._await(pending, budget, cancelled, True, ticket, leads), tasks)

    def _stoppable_trip(self, info: EraInfo, method: str, params: Mapping[str, Any],
                        meta: dict[str, Any] | None, budget: float | None, stop: CallStop,
                        ticket: Ticket | None, headers: Mapping[str, str] | None,
                        tasks: bool) -> protocol.Shaped:
        """:meth:`_round_trip` for a bridge call: its request is attached to ``stop``
        while in flight, so ``cancel_tool_calls`` can give it up from any thread."""
        if stop.is_set():
            raise Cancelled(method)   # cancelled before it was sent: it is not
        pending = self._correlator.register(method)
        leads = self._leads(budget, None, ticket)
        self._writer.post(pending, params, meta, headers=headers, led=leads)
        stop.attach(pending, self.give_up_call)
        try:
            answer = self._await(pending, budget, None, True, ticket, leads,
                                 STOP_LEAD if self._writer.transport.line_wire else None)
        finally:
            stop.detach(pending)
        return self.shaped(info, method, answer, tasks)

    def shaped(self, info: EraInfo, method: str, answer: dict[str, Any],
               tasks: bool = False) -> protocol.Shaped:
        """An answer message as a shaped result (a task only with ``tasks``); an error
        answer is raised."""
        if "error" in answer:
            error = protocol.error_from(answer, method)
            if method == "tools/call" and error.code == protocol.INVALID_PARAMS:
                self._cache.evict("tools/list")   # an early refetch is allowed
            raise error
        shaped = protocol.shape_result(method, answer.get("result"), tasks=tasks)
        if info.era == "modern" and not info.server_info and shaped.server_info:
            info.server_info = dict(shaped.server_info)
        return shaped

    def more_rounds(self, info: EraInfo, method: str, params: Mapping[str, Any],
                    meta: dict[str, Any] | None, budget: float | None, cancelled: Any,
                    ticket: Ticket | None, headers: Mapping[str, str] | None,
                    shaped: protocol.Shaped, tasks: bool = False) -> protocol.Shaped:
        """Complete a multi round-trip request through the hooks.

        Each ``input_required`` answer is retried under a fresh id with the
        hooks' ``inputResponses`` and the server's ``requestState``, until it
        completes or ``max_input_rounds`` is reached
        (:class:`~mcp_client.exceptions.InputLoopExceeded`); a round with only
        state is retried after a backoff.
        """
        rounds = 0
        backoff = _STATE_BACKOFF[0]
        while shaped.result_type == "input_required":
            if rounds >= self._opts["max_input_rounds"]:
                raise InputLoopExceeded(method, rounds)
            rounds += 1
            retry = {k: v for k, v in params.items()
                     if k not in ("inputResponses", "requestState")}
            if shaped.input_requests:
                retry["inputResponses"] = self._inputs.answer_round(method, shaped.input_requests)
                backoff = _STATE_BACKOFF[0]
            else:  # load shedding: only state came back
                pause(backoff, cancelled, method)
                backoff = min(backoff * 2, _STATE_BACKOFF[1])
            if shaped.request_state is not None:
                retry["requestState"] = shaped.request_state
            shaped = self._round_trip(info, method, retry, meta, budget, cancelled, ticket,
                                      headers, tasks)
        return shaped

    def list_all(self, method: str, key: str, *, refresh: bool, timeout: float | None,
                 cancelled: Any, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        """Every entry of a paginated list, following ``nextCursor`` to the end."""
        try:
            return pages(self.request, method, key, refresh, timeout, cancelled, params)
        except ProtocolError as exc:
            if refresh or exc.code != protocol.INVALID_PARAMS or not self._cache.evict(method):
                raise
            # A cursor that was valid when cached went stale: drop every page and
            # start again from the top (2026-07-28 caching).
            return pages(self.request, method, key, True, timeout, cancelled, params)

    def exchange(self, method: str, params: Mapping[str, Any], meta: dict[str, Any] | None,
                 timeout: float | None, *, cancelled: Any = None,
                 notify_cancel: bool = True, ticket: Ticket | None = None,
                 headers: Mapping[str, str] | None = None) -> dict[str, Any]:
        """Send one request and wait for its answer message (result or error)."""
        pending = self.register(method)
        leads = self._leads(timeout, cancelled, ticket)
        self._writer.post(pending, params, meta, headers=headers, led=leads)
        return self._await(pending, timeout, cancelled, notify_cancel, ticket, leads)

    def _leads(self, timeout: float | None, cancelled: Any, ticket: Ticket | None) -> bool:
        """Whether :meth:`_await` lets this thread lead (:meth:`Transport.lead`)."""
        return cancelled is None and not (
            ticket is not None and timeout is not None and self._opts["reset_timeout_on_progress"])

    def _await(self, pending: Pending, timeout: float | None, cancelled: Any,
               notify_cancel: bool, ticket: Ticket | None, leads: bool,
               lead_for: float | None = None) -> dict[str, Any]:
        """Wait for ``pending``'s answer; ``leads`` (:meth:`_leads`, as told to
        :meth:`Writer.post`): this thread may read the wire itself meanwhile,
        for ``lead_for`` seconds at most when given (then it waits as a follower)."""
        if leads:
            # the wire may let this thread read the answer itself (stdio: leader/follower)
            if lead_for is None:
                left = self._writer.transport.lead(pending.done, timeout,
                                                   self._correlator.waiting)
            else:
                start = time.monotonic()
                self._writer.transport.lead(pending.done, lead_for if timeout is None
                                            else min(lead_for, timeout), self._correlator.waiting)
                left = None if timeout is None else \
                    max(0.0, timeout - (time.monotonic() - start))
            if pending.wait(left):
                return pending.result()
            return self._timed_out(pending, timeout, notify_cancel)
        start = time.monotonic()
        deadline = None if timeout is None else start + timeout
        hard = self.hard_deadline(start)
        while True:
            if cancelled is not None and fired(cancelled) and not pending.done():
                self._give_up(pending, "cancelled by the caller", notify_cancel)
                raise Cancelled(pending.method)
            now = time.monotonic()
            if deadline is not None and now >= deadline:
                deadline = self.stretched(ticket, timeout, hard, now)
                if deadline is None:
                    return self._timed_out(pending, timeout, notify_cancel)
            wait = None if deadline is None else deadline - now
            if cancelled is not None:
                wait = CANCEL_POLL if wait is None else min(CANCEL_POLL, wait)
            if pending.wait(wait):
                return pending.result()

    def _timed_out(self, pending: Pending, timeout: float | None,
                   notify_cancel: bool) -> dict[str, Any]:
        seconds = timeout or 0.0
        self._give_up(pending, f"timed out after {seconds:g}s", notify_cancel)
        if pending.done():
            return pending.result()   # the answer won the race
        raise Timeout(pending.method, seconds)

    def _give_up(self, pending: Pending, reason: str, notify: bool) -> None:
        if self.abandon(pending) and notify:
            self.cancel(pending.ident, reason)

    def hard_deadline(self, start: float) -> float | None:
        """The ``max_total_timeout`` instant for a request started at ``start``."""
        return hard_deadline(start, self._opts["max_total_timeout"])

    def stretched(self, ticket: Ticket | None, timeout: float | None, hard: float | None,
                  now: float) -> float | None:
        """A new deadline if progress arrived within the budget and that may stretch it.

        None -- the request has timed out -- without ``reset_timeout_on_progress``.
        """
        if ticket is None or not self._opts["reset_timeout_on_progress"]:
            return None
        return stretched(ticket.last_report, timeout, hard, now)

    # -- what a flight needs besides ------------------------------------------------

    def register(self, method: str, then: Callable[[Pending], None] | None = None,
                 *, standing: bool = False) -> Pending:
        """A fresh request id for ``method``; ``then`` is called once it completes.

        ``standing``: a request kept open for the connection's life (a listen),
        which no caller waits on (:meth:`Correlator.register`).
        """
        host = self._host
        if host.state != "open":   # _check_usable(), inline: every pipelined call passes here
            raise host.failure()
        return self._correlator.register(method, then, standing=standing)

    def abandon(self, pending: Pending) -> bool:
        """Stop waiting for ``pending``; False if its answer won the race."""
        return self._correlator.abandon(pending.ident) is not None

    def cancel(self, ident: int | str, reason: str) -> None:
        """Tell the server a request was given up (``notifications/cancelled``, or a hang-up)."""
        self._writer.transport.cancel(ident, reason)

    def give_up_call(self, pending: Pending) -> bool:
        """Give up a request for a call cancelled by ``cancel_tool_calls`` (any thread):
        its cell fails with :class:`Cancelled` and the server is told; False if its
        answer won the race."""
        if self._correlator.abandon(pending.ident, Cancelled(pending.method)) is None:
            return False
        try:
            self.cancel(pending.ident, "cancelled by the caller")
        except Exception:   # a dying wire: the call is cancelled all the same
            pass
        return True

    @property
    def mints_progress(self) -> bool:
        """Whether every call gets a progress token of the client's (``on_progress``)."""
        return self._opts["on_progress"] is not None

    def open_ticket(self, token: str | int | None, tool_call_id: str | None) -> Ticket | None:
        """Start tracking a call's progress (see :class:`._progress.ProgressBook`)."""
        return self._progress.open(token, tool_call_id)

    def close_ticket(self, ticket: Ticket | None) -> None:
        self._progress.close(ticket)

    def flight_terms(self, timeout: float | None, progress_token: str | int | None,
                     tool_call_id: str | None
                     ) -> tuple[EraInfo, float | None, Ticket | None, dict[str, Any] | None]:
        """What a pipelined call is sent under: the era, its budget, its progress
        ticket (opened here) and its ``_meta``."""
        info = self._negotiation.info
        if info is None:
            raise MCPClientError("a pipelined call needs the era to be known")
        budget = self.default_budget if timeout is None else checked_budget(timeout)
        ticket = None if progress_token is None and self._opts["on_progress"] is None else \
            self._progress.open(progress_token, tool_call_id)
        return info, budget, ticket, self._negotiation.meta(
            info, None if ticket is None else ticket.token)

    def register_many(self, method: str, count: int) -> list[Pending]:
        """``count`` fresh request ids for ``method`` (one take of the table's lock)."""
        self._check_usable()
        return self._correlator.register_many(method, count)

    def lead(self, done: Callable[[], bool], timeout: float | None,
             first: Callable[[], None] | None = None) -> float | None:
        """Read the wire on this thread until ``done()`` (:meth:`Transport.lead`)."""
        return self._writer.transport.lead(done, timeout, self._correlator.waiting, first)
