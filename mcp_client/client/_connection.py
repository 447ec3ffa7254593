"""The connection: one wire, its state, and every request that crosses it.

:class:`Connection` is the engine under :class:`~mcp_client.Client`: the
state machine (below), the era wiring (:mod:`._negotiation` keeps the era,
:mod:`._era` decides it, this file sends),
one request (budget, ``_meta`` envelope, send, wait, timeout, cancel, the
``input_required`` rounds of 2026-07-28 multi round-trip requests, the result cache, pagination),
the thread pools, and ``close()``.  How a request is written to the wire is
:class:`~._writer.Writer`'s; inbound messages are dispatched on the
transport's reader thread by :class:`~._dispatch.Dispatcher`; the deadline
arithmetic is :mod:`._budget`'s.  Pipelined calls (:mod:`._flights`) are
driven through the methods of :class:`~._hosts.FlightsHost`, which this class
is.  It holds no public API of its own: the client is the face.

Rule: everything that changes the connection's state lives here, in this
file (as h11's ``_state.py`` does).  The states and their moves:

* ``open`` -> ``dead``: the wire died (:meth:`Connection.on_close`);
* ``dead`` -> ``open``: the era probe restarted a stdio child that exited under it,
  or (``restart="on-failure"``, :mod:`._restart`) the next call after it died did;
* ``open`` or ``dead`` -> ``closed``: :meth:`Connection.close`; ``closed`` is final.

A request made while ``dead`` raises why the wire died
(:class:`~mcp_client.exceptions.ServerGone`, ...); one made while ``closed``
raises :class:`~mcp_client.exceptions.TransportClosed`.

Threads: inbound messages arrive on the transport's reader, which must never
block (see :mod:`._dispatch`).
"""

from __future__ import annotations

import threading
import time

from .. import protocol
from .._log import get_logger
from ..cache import Cache
from ..correlator import Correlator
from ..exceptions import (Cancelled, InputLoopExceeded, MCPClientError, ProtocolError, Timeout,
                          TransportClosed)
from . import _flights
from ._budget import checked_budget, hard_deadline, stretched
from ._cancel import CANCEL_POLL, check_cancel_signal, fired, pause
from ._dispatch import MAX_SERVER_REQUESTS, Dispatcher
from ._flights import Flight, all_done, answer_class, volley
from ._inputs import ELICIT, ROOTS, SAMPLE, Inputs, url_elicitation_hook
from ._negotiation import Negotiation
from ._paging import MAX_LIST_BYTES, MAX_LIST_ITEMS, MAX_PAGES, pages
from ._pools import Pools
from ._progress import ProgressBook
from ._restart import Revival
from ._watch import LISTS, Watch
from ._stream import Stream
from ._writer import Writer

TYPE_CHECKING = False
if TYPE_CHECKING:
    from concurrent.futures import Future, ThreadPoolExecutor
    from typing import Any, Callable, Mapping, ParamSpec, Sequence, TypeVar

    from ..correlator import Pending
    from ..transport import Transport
    from ._era import EraInfo
    from ._progress import Ticket
    P = ParamSpec("P")
    R = TypeVar("R")

__all__ = ["Connection", "MAX_LIST_BYTES", "MAX_LIST_ITEMS", "MAX_PAGES", "MAX_SERVER_REQUESTS"]

log = get_logger(__name__)

#: The longest a caller waiting for a batch of pipelined calls reads the wire itself.
LEAD_SLICE = 0.05
#: The wait before retrying a state-only ``input_required`` round: first, cap.
_STATE_BACKOFF = (0.05, 0.25)


class Connection:
    """One started transport and the requests on it (package-private).

    Args:
        transport: the wire; started here, with this object's callbacks.
        opts: the client's checked options (``_options.check_client_options``).
        client_info: ``{"name", "version"}`` as sent to the server.
        capabilities: the client capabilities declared to the server.
        warn: where warnings go (the client's ``on_warn``, else logging).
    """

    def __init__(self, transport: Transport, opts: Mapping[str, Any], *,
                 client_info: dict[str, Any], capabilities: dict[str, Any],
                 warn: Callable[[str], None]) -> None:
        self._transport = transport
        self._opts = opts
        self._warn = warn
        #: ``"open"``, ``"dead"`` (the wire died) or ``"closed"`` (:meth:`close` ran); read
        #: it anywhere, change it only here (see the module's rule).
        self.state = "open"
        self._dead: MCPClientError | None = None   # why the wire died, once it has
        self._state_lock = threading.Lock()
        self._correlator = Correlator(on_warn=warn)
        self._notifications: Stream = Stream(on_warn=warn)
        self._default_budget = checked_budget(opts["request_timeout"])
        self._negotiation = Negotiation(
            exchange=self._exchange_for_era, notify=self.notify, restart=self._restart,
            opts=opts, budget=self._default_budget, client_info=client_info,
            capabilities=capabilities, wire=lambda: self._transport, warn=warn,
            fallback=self._fall_back_to_sse)
        self._pools = Pools()
        #: How requests are written to the wire (:mod:`._writer`).
        self.writer = Writer(transport, self._correlator, self,
                             self._negotiation.shared_envelope)
        hooks = {ELICIT: opts["on_elicit"], SAMPLE: opts["on_sample"],
                 ROOTS: opts["on_list_roots"]}
        self._inputs = Inputs({k: v for k, v in hooks.items() if v is not None}, warn,
                              url_hook=url_elicitation_hook(opts, capabilities))
        self._progress = ProgressBook(opts["on_progress"], warn)
        self._cache = Cache()
        self._revival = Revival(opts, warn)
        self._watch = Watch(self, opts, lambda: [self._cache.evict(m) for m in LISTS], warn)
        self._dispatch = Dispatcher(
            self, self._correlator, self.writer, notifications=self._notifications,
            progress=self._progress, cache=self._cache, watch=self._watch, inputs=self._inputs,
            pools=self._pools, negotiation=self._negotiation, opts=opts, warn=warn)
        transport.start(self._dispatch.on_message, self.on_close, warn,
                        self._dispatch.on_request_error)

    # -- state -------------------------------------------------------------------------

    def __repr__(self) -> str:
        info = self._negotiation.info
        era = f"{info.era} {info.version}" if info else "unprobed"
        return f"<Connection {era} {self.state} pending={len(self._correlator)}>"

    def cache_stamp(self, method: str) -> tuple[int, int, bool]:
        """Where the cached answers of ``method`` stand (:meth:`Cache.stamp`); never
        current unless the connection is open."""
        removed, stored, current = self._cache.stamp(method)
        return removed, stored, current and self.state == "open"

    @property
    def dead(self) -> MCPClientError | None:
        """Why the wire died, while the state is ``"dead"``; else None."""
        return self._dead if self.state == "dead" else None

    @property
    def transport(self) -> Transport:
        """The wire (started by the constructor, closed by :meth:`close`)."""
        return self._transport

    @property
    def notifications(self) -> Stream:
        """Every notification the server sends."""
        return self._notifications

    @property
    def watch(self) -> Watch:
        """The listen request and the resource subscriptions (:mod:`._watch`)."""
        return self._watch

    @property
    def pending(self) -> int:
        """How many requests await their answer."""
        return len(self._correlator)

    def check_usable(self) -> None:
        """Raise why no request can be sent now, if one cannot."""
        if self.state != "open":
            raise self.failure()

    def failure(self) -> MCPClientError:
        """What a request made now raises (the state is not ``"open"``)."""
        if self.state == "closed" or self._dead is None:
            return TransportClosed()
        return self._dead

    # -- the era (found by the Negotiation) -----------------------------------------------

    @property
    def era_info(self) -> EraInfo | None:
        """What negotiation found, or None before it finished."""
        return self._negotiation.info

    def ensure_era(self, budget: float | None = None, cancelled: Any = None,
                   method: str = "server/discover") -> EraInfo:
        """The era, negotiating it first if nobody has (see :mod:`._negotiation`)."""
        self.revive()
        return self._negotiation.info or self._negotiation.ensure(budget, cancelled, method)

    def discovered(self) -> EraInfo:
        """The era info, with a discover sent once if it never was."""
        return self._negotiation.discovered()

    def meta(self, info: EraInfo, progress_token: str | int | None) -> dict[str, Any] | None:
        """A request's ``_meta``: the modern envelope, or a legacy progress token."""
        return self._negotiation.meta(info, progress_token)

    def set_log_level(self, level: str) -> None:
        """``level`` is the ``log_level`` option from now on (the envelope, the S7 filter)."""
        self._opts["log_level"] = level   # type: ignore[index]  # the client's own dict
        self._negotiation.forget_envelope()

    def _exchange_for_era(self, method: str, params: Mapping[str, Any],
                          meta: dict[str, Any] | None, timeout: float | None,
                          notify_cancel: bool) -> dict[str, Any]:
        return self.exchange(method, params, meta, timeout, notify_cancel=notify_cancel)

    def _restart(self) -> bool:
        """dead -> open: the stdio child exited during the probe and is started again."""
        if self.state == "closed" or not self._transport.can_restart:
            return False
        self._warn("the server exited during the era probe; restarting it for the handshake")
        self._transport.restart()
        with self._state_lock:
            if self.state == "dead":
                self.state = "open"
        return True

    def revive(self) -> None:
        """dead -> open, under ``restart="on-failure"``: the stdio child is started again.

        Called as a request begins, never for the requests the death failed;
        :mod:`._restart` decides whether and when, and stays ``dead`` with the
        last reason once the restarts ran out.
        """
        if self.state == "dead":
            self._revival.revive(self._transport, lambda: self.dead, self._reopened,
                                 self._stays_dead)

    def _stays_dead(self, why: MCPClientError) -> None:
        """The restarts ran out: ``why`` (which says so) is raised from now on."""
        with self._state_lock:
            if self.state == "dead":
                self._dead = why

    def _reopened(self) -> None:
        """A restarted child: nothing cached from the old one, and the era asked anew."""
        self._cache.clear()
        self._negotiation.reset()
        with self._state_lock:
            if self.state == "dead":
                self.state = "open"
                self._dead = None

    def _fall_back_to_sse(self) -> bool:
        """Swap the wire for the HTTP+SSE one the transport offers (negotiation only)."""
        make = getattr(self._transport, "sse_fallback", None)
        if make is None or self.state == "closed":
            return False
        replacement = make()
        replacement.start(self._dispatch.on_message, self.on_close, self._warn,
                          self._dispatch.on_request_error)
        old, self._transport = self._transport, replacement
        self.writer.transport = replacement
        # the repr, not the URL: it hides the URL's credentials
        log.debug("initialize was refused over Streamable HTTP; trying %r", replacement)
        old.close()
        return True

    # -- one request -------------------------------------------------------------------

    def budget(self, timeout: float | None) -> float | None:
        """A request's budget in seconds (None: ``request_timeout``); None for no budget."""
        return self._default_budget if timeout is None else checked_budget(timeout)

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
        budget = self._default_budget if timeout is None else checked_budget(timeout)
        if self.state == "dead":
            self.revive()
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
        ticket = self._progress.open(progress_token, tool_call_id) \
            if method == "tools/call" else None
        try:
            meta = negotiation.meta(info, ticket.token if ticket is not None else None, tasks)
            shaped = self._round_trip(info, method, params, meta, budget, cancelled, ticket,
                                      headers, tasks)
            more = shaped.result_type == "input_required"
            if more:
                shaped = self.more_rounds(info, method, params, meta, budget, cancelled, ticket,
                                          headers, shaped, tasks)
        finally:
            self._progress.close(ticket)
        if key is not None and not more:
            self._cache.put(key, shaped.body, shaped.ttl_ms)
        return shaped.body

    def _round_trip(self, info: EraInfo, method: str, params: Mapping[str, Any],
                    meta: dict[str, Any] | None, budget: float | None, cancelled: Any,
                    ticket: Ticket | None, headers: Mapping[str, str] | None = None,
                    tasks: bool = False) -> protocol.Shaped:
        if self.state != "open":   # exchange(), unrolled: this is every request's path
            raise self.failure()
        pending = self._correlator.register(method)
        leads = self._leads(budget, cancelled, ticket)
        self.writer.post(pending, params, meta, headers=headers, led=leads)
        return self.shaped(info, method,
                           self._await(pending, budget, cancelled, True, ticket, leads), tasks)

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
                 cancelled: Any) -> list[dict[str, Any]]:
        """Every entry of a paginated list, following ``nextCursor`` to the end."""
        try:
            return pages(self.request, method, key, refresh, timeout, cancelled)
        except ProtocolError as exc:
            if refresh or exc.code != protocol.INVALID_PARAMS or not self._cache.evict(method):
                raise
            # A cursor that was valid when cached went stale: drop every page and
            # start again from the top (2026-07-28 caching).
            return pages(self.request, method, key, True, timeout, cancelled)

    def exchange(self, method: str, params: Mapping[str, Any], meta: dict[str, Any] | None,
                 timeout: float | None, *, cancelled: Any = None,
                 notify_cancel: bool = True, ticket: Ticket | None = None,
                 headers: Mapping[str, str] | None = None) -> dict[str, Any]:
        """Send one request and wait for its answer message (result or error)."""
        pending = self.register(method)
        leads = self._leads(timeout, cancelled, ticket)
        self.writer.post(pending, params, meta, headers=headers, led=leads)
        return self._await(pending, timeout, cancelled, notify_cancel, ticket, leads)

    def _leads(self, timeout: float | None, cancelled: Any, ticket: Ticket | None) -> bool:
        """Whether :meth:`_await` lets this thread lead (:meth:`Transport.lead`)."""
        return cancelled is None and not (
            ticket is not None and timeout is not None and self._opts["reset_timeout_on_progress"])

    def _await(self, pending: Pending, timeout: float | None, cancelled: Any,
               notify_cancel: bool, ticket: Ticket | None, leads: bool) -> dict[str, Any]:
        """Wait for ``pending``'s answer; ``leads`` (:meth:`_leads`, as told to
        :meth:`post`): this thread may read the wire itself meanwhile."""
        if leads:
            # the wire may let this thread read the answer itself (stdio: leader/follower)
            left = self._transport.lead(pending.done, timeout, self._correlator.waiting)
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

    def notify(self, method: str, params: dict[str, Any] | None) -> None:
        """Send one notification."""
        self.check_usable()
        self._transport.send(protocol.notification(method, params))

    # -- what a flight needs ---------------------------------------------------------

    def register(self, method: str, then: Callable[[Pending], None] | None = None,
                 *, standing: bool = False) -> Pending:
        """A fresh request id for ``method``; ``then`` is called once it completes.

        ``standing``: a request kept open for the connection's life (a listen),
        which no caller waits on (:meth:`Correlator.register`).
        """
        if self.state != "open":   # check_usable(), inline: every pipelined call passes here
            raise self.failure()
        return self._correlator.register(method, then, standing=standing)

    def abandon(self, pending: Pending) -> bool:
        """Stop waiting for ``pending``; False if its answer won the race."""
        return self._correlator.abandon(pending.ident) is not None

    def cancel(self, ident: int | str, reason: str) -> None:
        """Tell the server a request was given up (``notifications/cancelled``, or a hang-up)."""
        self._transport.cancel(ident, reason)

    def answer_inputs(self, method: str, requests: Mapping[str, Any]) -> dict[str, Any]:
        """The hooks' answers to one round of ``inputRequests`` (see :mod:`._inputs`)."""
        return self._inputs.answer_round(method, requests)

    @property
    def mints_progress(self) -> bool:
        """Whether every call gets a progress token of the client's (``on_progress``)."""
        return self._opts["on_progress"] is not None

    def open_ticket(self, token: str | int | None, tool_call_id: str | None) -> Ticket | None:
        """Start tracking a call's progress (see :class:`._progress.ProgressBook`)."""
        return self._progress.open(token, tool_call_id)

    def close_ticket(self, ticket: Ticket | None) -> None:
        self._progress.close(ticket)

    # -- pipelining and pools -------------------------------------------------------------

    def can_pipeline(self) -> bool:
        """Whether a call may be pipelined now: a wire that never blocks a send, a known era."""
        return self._negotiation.info is not None and self.state != "closed" and \
            self._transport.pipelines

    def pipelines_now(self) -> bool:
        """:meth:`check_usable`, then :meth:`can_pipeline`, in one frame (every
        ``call_tool_async`` asks both)."""
        if self.state != "open":
            raise self.failure()
        return self._negotiation.info is not None and self._transport.pipelines

    def start_call(self, params: dict[str, Any], *, timeout: float | None = None,
                   progress_token: str | int | None = None, tool_call_id: str | None = None,
                   outcome: bool = False) -> Future[Any]:
        """Send one ``tools/call`` now; its Future completes when the answer has arrived.

        Every failure, a bad argument included, is the Future's exception --
        or, with ``outcome`` (the bridge's batches), its result.
        """
        if self.state == "dead":
            self.revive()
        future: Future[Any] = (_flights.CALL_FUTURE or answer_class())(  # already running
            self._pools.run_callback)
        flight = Flight(self, self._pools, future, params, progress_token, tool_call_id, outcome)
        try:
            flight.send(timeout)
        except Exception as exc:   # the Future is the only way back to the caller
            flight.finish(None, exc)
        return future

    def flight_terms(self, timeout: float | None, progress_token: str | int | None,
                     tool_call_id: str | None
                     ) -> tuple[EraInfo, float | None, Ticket | None, dict[str, Any] | None]:
        """What a pipelined call is sent under: the era, its budget, its progress
        ticket (opened here) and its ``_meta``."""
        info = self._negotiation.info
        if info is None:
            raise MCPClientError("a pipelined call needs the era to be known")
        budget = self._default_budget if timeout is None else checked_budget(timeout)
        ticket = None if progress_token is None and self._opts["on_progress"] is None else \
            self._progress.open(progress_token, tool_call_id)
        return info, budget, ticket, self._negotiation.meta(
            info, None if ticket is None else ticket.token)

    def submit(self, fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> Future[R]:
        """Run ``fn`` on the pool of ``*_async`` calls."""
        self.check_usable()
        return self._pools.submit(fn, *args, **kwargs)

    def hold_requests(self) -> None:
        """Keep this thread's pipelined requests to write them in one go (:meth:`Writer.hold`)."""
        self.writer.hold()

    def send_held(self, stop: bool = False) -> None:
        """Write the requests this thread holds (``stop``: and hold no more)."""
        self.writer.send_held(stop)

    def call_together(self, calls: Sequence[tuple[dict[str, Any], str | None]]) -> list[Any]:
        """Pipelined ``tools/call`` requests ``(params, tool_call_id)``, sent in one write
        and awaited by this thread; one outcome each (the result, or the exception).

        See :func:`._flights.volley`: it never raises for a call.
        """
        return volley(self, self._pools, calls)

    def register_many(self, method: str, count: int) -> list[Pending]:
        """``count`` fresh request ids for ``method`` (one take of the table's lock)."""
        self.check_usable()
        return self._correlator.register_many(method, count)

    def lead(self, done: Callable[[], bool], timeout: float | None,
             first: Callable[[], None] | None = None) -> float | None:
        """Read the wire on this thread until ``done()`` (:meth:`Transport.lead`)."""
        return self._transport.lead(done, timeout, self._correlator.waiting, first)

    def wait_all(self, futures: Sequence[Future[Any]],
                 first: Callable[[], None] | None = None) -> None:
        """Until every one of ``futures`` (pipelined calls) is done, reading the wire meanwhile.

        ``first`` (:meth:`send_held`, say) runs once this thread leads.

        This thread leads (see :meth:`Transport.lead`) for at most
        :data:`LEAD_SLICE`: a call that ends without an answer (its timeout)
        is not read from the wire, so after that the reader thread takes over.
        """
        from concurrent.futures import wait

        done = all_done(futures)
        if first is not None or not done():
            self._transport.lead(done, LEAD_SLICE, self._correlator.waiting, first)
        wait(futures)

    def batch_executor(self) -> ThreadPoolExecutor | None:
        """The pool a widened batch runs on; None where it must start threads of its own."""
        return self._pools.batch_executor()

    # -- the wire's death: the transport's callback, on its reader thread ---------------

    def on_close(self, exc: MCPClientError) -> None:
        """open -> dead: the wire died; every outstanding request fails with ``exc``."""
        with self._state_lock:
            self._dead = exc
            if self.state == "open":
                self.state = "dead"
        self._correlator.fail_all(exc)

    # -- the end ---------------------------------------------------------------------------

    def close(self) -> None:
        """-> closed, idempotently: the transport closes, outstanding calls fail with
        :class:`TransportClosed`, the stream finishes, and the threads are joined --
        except one still in a hook after a short grace (:mod:`._pools`)."""
        with self._state_lock:
            if self.state == "closed":
                return
            self.state = "closed"
            self._pools.refuse()
            self._negotiation.refuse()
        self._revival.stop()
        with self._revival.lock:   # a restart under way finishes first: its child is closed below
            pass
        self._watch.stop()
        closed = TransportClosed()
        self._correlator.fail_all(closed)
        try:
            self._transport.close()
        finally:
            self._correlator.fail_all(closed)
            self._notifications.finish()
            self._cache.clear()
            self._negotiation.join()
            self._watch.join()
            self._pools.shutdown()
