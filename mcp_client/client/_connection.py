"""The connection: one wire, its state, and every request that crosses it.

:class:`Connection` is the engine under :class:`~mcp_client.Client`: the
state machine (below), the era wiring (:mod:`._negotiation` keeps the era,
:mod:`._era` decides it, this file sends),
one request (budget, ``_meta`` envelope, send, wait, timeout, cancel, the
``input_required`` rounds of 2026-07-28 multi round-trip requests, the result cache, pagination),
inbound dispatch on the transport's reader thread, the thread pools, and
``close()``.  Pipelined calls (:mod:`._flights`) are driven through its
methods.  It holds no public API of its own: the client is the face.

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
block: answers complete their cells, notifications are published, and
(legacy) server requests go to a worker, because a hook may wait on a human.
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
from ..protocol import Kind
from ._cancel import CANCEL_POLL, check_cancel_signal, fired, pause
from . import _flights
from ._flights import Flight, all_done, answer_class, volley
from ._inputs import ELICIT, ROOTS, SAMPLE, Inputs, url_elicitation_hook
from ._negotiation import Negotiation
from ._paging import MAX_LIST_BYTES, MAX_LIST_ITEMS, MAX_PAGES, pages
from ._pools import Pools
from ._progress import ProgressBook
from ._restart import Revival
from ._watch import LISTS, Watch
from ._stream import Stream

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

#: Server requests waiting for a hook worker or in one; beyond, each is refused at once
#: (-32603), so that a flood cannot queue without end.
MAX_SERVER_REQUESTS = 64
#: The longest a caller waiting for a batch of pipelined calls reads the wire itself.
LEAD_SLICE = 0.05
#: The wait before retrying a state-only ``input_required`` round: first, cap.
_STATE_BACKOFF = (0.05, 0.25)
#: Which cached methods a list_changed notification makes stale.
_EVICTS = {
    "notifications/tools/list_changed": ("tools/list",),
    "notifications/prompts/list_changed": ("prompts/list",),
    "notifications/resources/list_changed": ("resources/list", "resources/templates/list"),
}


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
        self._state = "open"               # "open" | "dead" | "closed": see the module's rule
        self._dead: MCPClientError | None = None   # why the wire died, once it has
        self._state_lock = threading.Lock()
        self._correlator = Correlator(on_warn=warn)
        self._notifications: Stream = Stream(on_warn=warn)
        self._default_budget = _checked_budget(opts["request_timeout"])
        self._negotiation = Negotiation(
            exchange=self._exchange_for_era, notify=self.notify, restart=self._restart,
            opts=opts, budget=self._default_budget, client_info=client_info,
            capabilities=capabilities, wire=lambda: self._transport, warn=warn,
            fallback=self._fall_back_to_sse)
        self._pools = Pools()
        self._meta_json: tuple[dict[str, Any], str] | None = None   # see meta_text
        self._held: list[tuple[Pending, bytes]] | None = None   # see hold_requests
        self._holder = 0
        self._serving = 0                # server requests taken, not yet answered
        self._flood_warned = False
        hooks = {ELICIT: opts["on_elicit"], SAMPLE: opts["on_sample"],
                 ROOTS: opts["on_list_roots"]}
        self._inputs = Inputs({k: v for k, v in hooks.items() if v is not None}, warn,
                              url_hook=url_elicitation_hook(opts, capabilities))
        self._progress = ProgressBook(opts["on_progress"], warn)
        self._cache = Cache()
        self._revival = Revival(opts, warn)
        self._watch = Watch(self, opts, lambda: [self._cache.evict(m) for m in LISTS], warn)
        transport.start(self.on_message, self.on_close, warn, self.on_request_error)

    # -- state -------------------------------------------------------------------------

    def __repr__(self) -> str:
        info = self._negotiation.info
        era = f"{info.era} {info.version}" if info else "unprobed"
        return f"<Connection {era} {self._state} pending={len(self._correlator)}>"

    @property
    def state(self) -> str:
        """``"open"``, ``"dead"`` (the wire died) or ``"closed"`` (:meth:`close` ran)."""
        return self._state

    def cache_stamp(self, method: str) -> tuple[int, int, bool]:
        """Where the cached answers of ``method`` stand (:meth:`Cache.stamp`); never
        current unless the connection is open."""
        removed, stored, current = self._cache.stamp(method)
        return removed, stored, current and self._state == "open"

    @property
    def dead(self) -> MCPClientError | None:
        """Why the wire died, while the state is ``"dead"``; else None."""
        return self._dead if self._state == "dead" else None

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
        if self._state != "open":
            raise self._failure()

    def _failure(self) -> MCPClientError:
        if self._state == "closed" or self._dead is None:
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
        if self._state == "closed" or not self._transport.can_restart:
            return False
        self._warn("the server exited during the era probe; restarting it for the handshake")
        self._transport.restart()
        with self._state_lock:
            if self._state == "dead":
                self._state = "open"
        return True

    def revive(self) -> None:
        """dead -> open, under ``restart="on-failure"``: the stdio child is started again.

        Called as a request begins, never for the requests the death failed;
        :mod:`._restart` decides whether and when, and stays ``dead`` with the
        last reason once the restarts ran out.
        """
        if self._state == "dead":
            self._revival.revive(self._transport, lambda: self.dead, self._reopened,
                                 self._stays_dead)

    def _stays_dead(self, why: MCPClientError) -> None:
        """The restarts ran out: ``why`` (which says so) is raised from now on."""
        with self._state_lock:
            if self._state == "dead":
                self._dead = why

    def _reopened(self) -> None:
        """A restarted child: nothing cached from the old one, and the era asked anew."""
        self._cache.clear()
        self._negotiation.reset()
        with self._state_lock:
            if self._state == "dead":
                self._state = "open"
                self._dead = None

    def _fall_back_to_sse(self) -> bool:
        """Swap the wire for the HTTP+SSE one the transport offers (negotiation only)."""
        make = getattr(self._transport, "sse_fallback", None)
        if make is None or self._state == "closed":
            return False
        replacement = make()
        replacement.start(self.on_message, self.on_close, self._warn, self.on_request_error)
        old, self._transport = self._transport, replacement
        # the repr, not the URL: it hides the URL's credentials
        log.debug("initialize was refused over Streamable HTTP; trying %r", replacement)
        old.close()
        return True

    # -- one request -------------------------------------------------------------------

    def budget(self, timeout: float | None) -> float | None:
        """A request's budget in seconds (None: ``request_timeout``); None for no budget."""
        return self._default_budget if timeout is None else _checked_budget(timeout)

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
        budget = self._default_budget if timeout is None else _checked_budget(timeout)
        if self._state == "dead":
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
        if self._state != "open":   # exchange(), unrolled: this is every request's path
            raise self._failure()
        pending = self._correlator.register(method)
        leads = self._leads(budget, cancelled, ticket)
        self.post(pending, params, meta, headers=headers, led=leads)
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
        self.post(pending, params, meta, headers=headers, led=leads)
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
        cap = self._opts["max_total_timeout"]
        return None if cap is None else start + cap

    def stretched(self, ticket: Ticket | None, timeout: float | None, hard: float | None,
                  now: float) -> float | None:
        """A new deadline if progress arrived within the budget and that may stretch it.

        None -- the request has timed out -- without ``reset_timeout_on_progress``.
        """
        if ticket is None or timeout is None or not ticket.last_report or \
                not self._opts["reset_timeout_on_progress"]:
            return None
        deadline = ticket.last_report + timeout
        if hard is not None:
            deadline = min(deadline, hard)
        return deadline if deadline > now else None

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
        if self._state != "open":   # check_usable(), inline: every pipelined call passes here
            raise self._failure()
        return self._correlator.register(method, then, standing=standing)

    def post(self, pending: Pending, params: Mapping[str, Any], meta: dict[str, Any] | None,
             *, headers: Mapping[str, str] | None = None, pipelined: bool = False,
             led: bool = False) -> None:
        """Send ``pending``'s request (``pipelined``: or hold it, see :meth:`hold_requests`).

        ``led``: this thread calls :meth:`_await` next, which leads
        (:meth:`Transport.send_led`: the wire may post it from there).

        If the send fails the request is abandoned and the error raised --
        unless the request completed meanwhile (the wire died under it): then
        its cell holds that answer, and this returns.
        """
        transport = self._transport
        try:
            if transport.line_wire and headers is None:
                kept = self._meta_json
                text = kept[1] if kept is not None and kept[0] is meta else self.meta_text(meta)
                line = protocol.request_line(pending.ident, pending.method, params, meta, text)
                held = self._held
                if pipelined and held is not None and self._holder == threading.get_ident():
                    held.append((pending, line))   # sent with the others: send_held()
                    return
                transport.send_line(line)
            else:
                send = transport.send_led if led else transport.send
                send(protocol.request(pending.ident, pending.method, params, meta=meta),
                     headers=headers)
        except BaseException:
            if self._correlator.abandon(pending.ident) is None:
                return   # completed meanwhile (the wire died): the cell has its answer
            raise
        if self._state != "open":  # the wire died between the check and the send
            self._correlator.fail(pending.ident, self._failure())

    def meta_text(self, meta: dict[str, Any] | None) -> str | None:
        """The JSON of the envelope every modern request shares (kept, never mutated)."""
        if meta is None:
            return None
        kept = self._meta_json
        if kept is not None and kept[0] is meta:
            return kept[1]
        text = protocol.encode_line(meta)[:-1].decode()
        if meta is self._negotiation.shared_envelope():
            self._meta_json = (meta, text)
        return text

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
        return self._negotiation.info is not None and self._state != "closed" and \
            self._transport.pipelines

    def pipelines_now(self) -> bool:
        """:meth:`check_usable`, then :meth:`can_pipeline`, in one frame (every
        ``call_tool_async`` asks both)."""
        if self._state != "open":
            raise self._failure()
        return self._negotiation.info is not None and self._transport.pipelines

    def start_call(self, params: dict[str, Any], *, timeout: float | None = None,
                   progress_token: str | int | None = None, tool_call_id: str | None = None,
                   outcome: bool = False) -> Future[Any]:
        """Send one ``tools/call`` now; its Future completes when the answer has arrived.

        Every failure, a bad argument included, is the Future's exception --
        or, with ``outcome`` (the bridge's batches), its result.
        """
        if self._state == "dead":
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
        budget = self._default_budget if timeout is None else _checked_budget(timeout)
        ticket = None if progress_token is None and self._opts["on_progress"] is None else \
            self._progress.open(progress_token, tool_call_id)
        return info, budget, ticket, self._negotiation.meta(
            info, None if ticket is None else ticket.token)

    def submit(self, fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> Future[R]:
        """Run ``fn`` on the pool of ``*_async`` calls."""
        self.check_usable()
        return self._pools.submit(fn, *args, **kwargs)

    def hold_requests(self) -> None:
        """Keep this thread's requests until :meth:`send_held`, to write them in one go.

        Only over a line wire (stdio), and for one thread at a time: a batch
        of pipelined calls costs the server one wake-up, not one per call.
        """
        if self._transport.line_wire and self._held is None:
            self._held, self._holder = [], threading.get_ident()

    def send_held(self, stop: bool = False) -> None:
        """Write the requests this thread holds (``stop``: and hold no more).

        A write that fails fails each of them, as their own send would have.
        """
        held = self._held
        if held is None or self._holder != threading.get_ident():
            return
        self._held = None if stop else []
        if not held:
            return
        try:
            self._transport.send_line(b"".join(line for _, line in held))
        except MCPClientError as exc:
            for pending, _ in held:
                self._correlator.fail(pending.ident, exc)
            return
        if self._state != "open":  # the wire died between the check and the send
            for pending, _ in held:
                self._correlator.fail(pending.ident, self._failure())

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

    def fail(self, pendings: Sequence[Pending], exc: BaseException | None = None) -> None:
        """Fail requests whose send failed with ``exc`` (None: those sent while the wire
        died under them, if it has, with why it died)."""
        if exc is None:
            if self._state == "open":
                return
            exc = self._failure()
        for pending in pendings:
            self._correlator.fail(pending.ident, exc)

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

    # -- inbound: the transport's callbacks, on its reader thread ----------------------------

    def on_message(self, message: dict[str, Any]) -> None:
        """Classify one inbound message (JSON-RPC 2.0: by shape, never by id) and hand it on."""
        result = message.get("result")
        if result is not None and "method" not in message and "error" not in message and \
                message.get("jsonrpc") == "2.0" and type(message.get("id")) in (int, str):
            self._correlator.resolve(message)   # the common case, kept short: a response
            return
        kind = protocol.classify(message)
        if kind is Kind.RESPONSE or kind is Kind.ERROR:
            if message.get("id") is None:
                pending = self._correlator.sole_pending()
                if pending is None or not self._correlator.deliver(pending, message):
                    self._warn(f"dropped an error nobody can be told about: {message!r:.300}")
                return
            self._correlator.resolve(message)
        elif kind is Kind.NOTIFICATION:
            self._on_notification(message)
        elif kind is Kind.REQUEST:
            self._on_server_request(message)
        else:
            self._warn(f"skipped a message that is not JSON-RPC 2.0: {message!r:.300}")

    def _on_notification(self, message: dict[str, Any]) -> None:
        method, params = message["method"], message.get("params")
        if method == "notifications/progress":
            self._progress.report(params)
        elif method == "notifications/message":
            self._on_log_message(params)
        elif method in _EVICTS:
            for evicted in _EVICTS[method]:
                self._cache.evict(evicted)
        elif method == "notifications/resources/updated" and isinstance(params, dict):
            self._cache.evict("resources/read", params.get("uri"))
        self._watch.seen(method, params)
        self._notifications.publish(message)

    def _on_log_message(self, params: Any) -> None:
        hook = self._opts["on_log"]
        if hook is None or not isinstance(params, dict):
            return
        info, level = self._negotiation.info, self._opts["log_level"]
        if info is not None and info.era == "legacy" and level is not None and \
                params.get("level") in protocol.LOG_LEVELS and \
                protocol.LOG_LEVELS.index(params["level"]) < protocol.LOG_LEVELS.index(level):
            return  # legacy servers log at every level unasked: filter here
        try:
            hook(params)
        except Exception as exc:
            self._warn(f"on_log raised {exc!r}")

    def _on_server_request(self, message: dict[str, Any]) -> None:
        with self._state_lock:
            full = self._serving >= MAX_SERVER_REQUESTS
            warn = full and not self._flood_warned
            self._flood_warned = self._flood_warned or full
            if not full:
                self._serving += 1
        if not full:
            self._pools.answer(self._answer_server_request, message)
            return
        if warn:
            self._warn(f"the server has more than {MAX_SERVER_REQUESTS} requests waiting for "
                       "an answer; refusing the others (-32603) until some are answered")
        self._reply(message, protocol.error_response(message["id"], protocol.INTERNAL_ERROR,
                                                     "too many pending requests"))

    def _answer_server_request(self, message: dict[str, Any]) -> None:
        """A server's request, answered on a worker thread."""
        try:
            reply = self._inputs.answer_request(message)
        finally:
            with self._state_lock:
                self._serving -= 1
        self._reply(message, reply)

    def _reply(self, message: dict[str, Any], reply: dict[str, Any]) -> None:
        try:
            self._transport.send(reply)
        except MCPClientError as exc:
            if self._state == "closed":   # a hook that outlived close(): nobody to tell
                log.debug("dropped the answer to the server's %s request: %s",
                          message["method"], exc)
                return
            self._warn(f"could not answer the server's {message['method']} request: {exc}")

    def on_request_error(self, ident: Any, exc: MCPClientError) -> None:
        """One request failed on the wire (HTTP: its POST), not the whole connection."""
        if not self._correlator.fail(ident, exc):
            self._warn(f"dropped a failure of request {ident!r} nobody awaits: {exc}")

    def on_close(self, exc: MCPClientError) -> None:
        """open -> dead: the wire died; every outstanding request fails with ``exc``."""
        with self._state_lock:
            self._dead = exc
            if self._state == "open":
                self._state = "dead"
        self._correlator.fail_all(exc)

    # -- the end ---------------------------------------------------------------------------

    def close(self) -> None:
        """-> closed, idempotently: the transport closes, outstanding calls fail with
        :class:`TransportClosed`, the stream finishes, and the threads are joined --
        except one still in a hook after a short grace (:mod:`._pools`)."""
        with self._state_lock:
            if self._state == "closed":
                return
            self._state = "closed"
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


def _checked_budget(timeout: float) -> float | None:
    """``timeout`` as a budget; None for none (0, or more than a thread can wait)."""
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or \
            timeout != timeout or timeout < 0:
        raise MCPClientError(f"timeout must be a number >= 0, not {timeout!r}")
    if timeout > threading.TIMEOUT_MAX:   # float("inf") included: no budget at all
        return None
    return float(timeout) or None
