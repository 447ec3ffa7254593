"""The connection: one wire, its state, and every request that crosses it.

:class:`Connection` is the engine under :class:`~mcp_client.Client`: the
state machine (below), the era wiring (:mod:`._negotiation` keeps the era,
:mod:`._era` decides it, this file sends),
the pipelined calls' entry points, the thread pools, and ``close()``.  The
parts it holds have one responsibility each: one request (budget, ``_meta``
envelope, send, wait, timeout, cancel, ``input_required`` rounds, the result
cache, pagination) is :class:`~._requests.Requests`'s, which pipelined calls
(:mod:`._flights`) work through as their :class:`~._hosts.FlightsHost`; how
a request is written to the wire is :class:`~._writer.Writer`'s; inbound
messages are dispatched on the transport's reader thread by
:class:`~._dispatch.Dispatcher`; the deadline arithmetic is :mod:`._budget`'s.
It holds no public API of its own: the client is the face.

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

from .. import protocol
from .._log import get_logger
from ..cache import Cache
from ..correlator import Correlator
from ..exceptions import MCPClientError, TransportClosed
from . import _flights
from ._budget import checked_budget
from ._dispatch import MAX_SERVER_REQUESTS, Dispatcher
from ._flights import Flight, all_done, answer_class, volley
from ._inputs import ELICIT, ROOTS, SAMPLE, Inputs, url_elicitation_hook
from ._negotiation import Negotiation
from ._paging import MAX_LIST_BYTES, MAX_LIST_ITEMS, MAX_PAGES
from ._pools import Pools
from ._progress import ProgressBook
from ._requests import Requests
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
    from ._cancel import CallStop
    from ._era import EraInfo
    from ._otel import Tracing
    P = ParamSpec("P")
    R = TypeVar("R")

__all__ = ["Connection", "MAX_LIST_BYTES", "MAX_LIST_ITEMS", "MAX_PAGES", "MAX_SERVER_REQUESTS"]

log = get_logger(__name__)

#: The longest a caller waiting for a batch of pipelined calls reads the wire itself.
LEAD_SLICE = 0.05


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
        default_budget = checked_budget(opts["request_timeout"])
        self._negotiation = Negotiation(
            exchange=self._exchange_for_era, notify=self.notify, restart=self._restart,
            opts=opts, budget=default_budget, client_info=client_info,
            capabilities=capabilities, wire=lambda: self._transport, warn=warn,
            fallback=self._fall_back_to_sse)
        self._pools = Pools()
        #: How requests are written to the wire (:mod:`._writer`).
        self.writer = Writer(transport, self._correlator, self,
                             self._negotiation.shared_envelope)
        hooks = {ELICIT: opts["on_elicit"], SAMPLE: opts["on_sample"],
                 ROOTS: opts["on_list_roots"]}
        sampling = capabilities.get("sampling")
        self._inputs = Inputs({k: v for k, v in hooks.items() if v is not None}, warn,
                              url_hook=url_elicitation_hook(opts, capabilities),
                              sampling_tools=isinstance(sampling, dict) and
                              sampling.get("tools") is not None)
        self._progress = ProgressBook(opts["on_progress"], warn)
        self._cache = Cache()
        self._revival = Revival(opts, warn)
        self._watch = Watch(self, opts, lambda: [self._cache.evict(m) for m in LISTS], warn)
        #: The client's spans (:mod:`._otel`), or None without a ``tracer_provider``.
        self.tracing: Tracing | None = None
        if opts["tracer_provider"] is not None:
            from . import _otel   # only when asked: no opentelemetry otherwise

            self.tracing = _otel.Tracing(opts["tracer_provider"], transport)
        self._requests = Requests(
            self, self._correlator, self.writer, negotiation=self._negotiation,
            watch=self._watch, cache=self._cache, progress=self._progress, inputs=self._inputs,
            opts=opts, default_budget=default_budget, tracing=self.tracing)
        #: One request (:meth:`Requests.request`): the client's calls go straight there.
        self.request = self._requests.request
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
        return self._requests.exchange(method, params, meta, timeout,
                                       notify_cancel=notify_cancel)

    # -- requests (:class:`Requests`) ------------------------------------------------------

    def budget(self, timeout: float | None) -> float | None:
        """A request's budget in seconds (None: ``request_timeout``); None for no budget."""
        return self._requests.budget(timeout)

    def list_all(self, method: str, key: str, *, refresh: bool, timeout: float | None,
                 cancelled: Any, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        """Every entry of a paginated list (:meth:`Requests.list_all`)."""
        return self._requests.list_all(method, key, refresh=refresh, timeout=timeout,
                                       cancelled=cancelled, params=params)

    def register(self, method: str, then: Callable[[Pending], None] | None = None,
                 *, standing: bool = False) -> Pending:
        """A fresh request id for ``method`` (:meth:`Requests.register`)."""
        return self._requests.register(method, then, standing=standing)

    def abandon(self, pending: Pending) -> bool:
        """Stop waiting for ``pending``; False if its answer won the race."""
        return self._requests.abandon(pending)

    def cancel(self, ident: int | str, reason: str) -> None:
        """Tell the server a request was given up (``notifications/cancelled``, or a hang-up)."""
        self._requests.cancel(ident, reason)

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

    def notify(self, method: str, params: dict[str, Any] | None) -> None:
        """Send one notification."""
        self.check_usable()
        self._transport.send(protocol.notification(method, params))

    def answer_inputs(self, method: str, requests: Mapping[str, Any]) -> dict[str, Any]:
        """The hooks' answers to one round of ``inputRequests`` (see :mod:`._inputs`)."""
        return self._inputs.answer_round(method, requests)

    # -- pipelining and pools -------------------------------------------------------------

    def can_pipeline(self) -> bool:
        """Whether a call may be pipelined now: a wire that never blocks a send, a known era."""
        return self._negotiation.info is not None and self.state != "closed" and \
            self._transport.pipelines and self.tracing is None   # (a traced call: one span)

    def pipelines_now(self) -> bool:
        """:meth:`check_usable`, then :meth:`can_pipeline`, in one frame (every
        ``call_tool_async`` asks both)."""
        if self.state != "open":
            raise self.failure()
        return self._negotiation.info is not None and self._transport.pipelines and \
            self.tracing is None

    def start_call(self, params: dict[str, Any], *, timeout: float | None = None,
                   progress_token: str | int | None = None, tool_call_id: str | None = None,
                   outcome: bool = False, stop: CallStop | None = None) -> Future[Any]:
        """Send one ``tools/call`` now; its Future completes when the answer has arrived.

        Every failure, a bad argument included, is the Future's exception --
        or, with ``outcome`` (the bridge's batches), its result.  ``stop``: the
        bridge call's :class:`~._cancel.CallStop`, which gives the request up.
        """
        if self.state == "dead":
            self.revive()
        future: Future[Any] = (_flights.CALL_FUTURE or answer_class())(  # already running
            self._pools.run_callback)
        flight = Flight(self._requests, self._pools, future, params, progress_token, tool_call_id,
                        outcome, stop)
        try:
            flight.send(timeout)
        except Exception as exc:   # the Future is the only way back to the caller
            flight.finish(None, exc)
        return future

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

    def call_together(self, calls: Sequence[tuple[dict[str, Any], str | None]],
                      stops: Sequence[CallStop | None] | None = None) -> list[Any]:
        """Pipelined ``tools/call`` requests ``(params, tool_call_id)``, sent in one write
        and awaited by this thread; one outcome each (the result, or the exception).

        See :func:`._flights.volley` (and its ``stops``): it never raises for a call.
        """
        return volley(self._requests, self._pools, calls, stops)

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
