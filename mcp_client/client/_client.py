"""The client: one connection to one MCP server, whichever era it speaks.

:class:`Client` owns the connection's lifetime, the era (decided by
:mod:`mcp_client.client._era` on the first call that needs it), the typed blocking API
and its ``*_async`` twins.  It does not own the wire (a
:class:`~mcp_client.transport.Transport` does), the message shapes
(:mod:`mcp_client.protocol`) or the pending-request table
(:mod:`mcp_client.correlator`).

Threads: the transport's reader thread delivers every inbound message to
:meth:`Client._on_message`, which completes futures, publishes notifications
and hands server requests to a worker.  A blocking method waits on its
future in the caller's thread; ``*_async`` methods run the blocking method on
the client's :class:`~concurrent.futures.ThreadPoolExecutor`, except a
``call_tool_async`` on a wire that pipelines (:mod:`mcp_client.client._flights`).

Decisions beyond the seed (see also API.md):

* cancellation and timeouts send ``notifications/cancelled`` on stdio
  (PROTOCOL S3/S4) -- never for the probe or ``initialize``;
* an error response whose id is ``null`` (a parse error) is given to the one
  outstanding request when exactly one is outstanding, else reported;
* with a pinned modern ``era`` (or when the probe was answered ``-32021``)
  there is no DiscoverResult: reading ``server_info``, ``capabilities`` or
  ``instructions`` sends one ``server/discover`` at the agreed version to fill
  them in (S14), and every modern result's ``_meta`` serverInfo is used when
  none is known yet.
"""

from __future__ import annotations

import os
import threading
import time

from .. import protocol
from .._log import get_logger, warn_through
from .._options import HTTP_OPTIONS, STDIO_OPTIONS, check_client_options, split_options
from .._version import __version__
from ._api import TypedAPI
from ._inbound import Inbound
from ._flights import Deadlines, Pipelined
from ._rounds import Rounds, check_cancel_signal
from ..cache import Cache
from ..correlator import Correlator, Pending
from ._era import CANCEL_POLL, Attempt, EraInfo, Negotiator, fill_from_discover, fired
from ..exceptions import Cancelled, MCPClientError, Timeout, TransportClosed
from ._inputs import ELICIT, ROOTS, SAMPLE, Inputs
from ._progress import ProgressBook, Ticket
from ._stream import Stream
from ..transport import Transport

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Mapping
    # concurrent.futures is imported on first use: it is not free
    from concurrent.futures import ThreadPoolExecutor

__all__ = ["Client"]

log = get_logger(__name__)


class Client(Inbound, Pipelined, Rounds, TypedAPI):
    """A connection to one MCP server.

    Build one with :meth:`connect_stdio` (a child process), or
    ``Client(transport=...)`` for a transport of your own (test doubles such
    as :class:`mcp_client.testing.FakeTransport`).  Use it in a ``with`` block,
    or call :meth:`close`.

    Args:
        transport: the wire; started by the constructor.
        **options: the client options of API.md (``client_name``,
            ``protocol_versions``, ``request_timeout``, ``probe_timeout``,
            ``era``, the ``on_*`` hooks, ...).  Transport options are refused
            here: there is nothing left for them to configure.

    Raises:
        MCPClientError: an unknown option or a bad value.
        UnsupportedVersion: ``protocol_versions`` names a handshake version.
        SpawnFailed: (stdio) the server could not be started.
    """

    def __init__(self, transport: Transport | None = None, **options: Any) -> None:
        for name in options:
            if name in STDIO_OPTIONS or name in HTTP_OPTIONS:
                raise MCPClientError(
                    f"option {name} configures a transport, but transport= was given: "
                    "nothing is left for it to configure")
        self._opts = check_client_options(options)
        if not isinstance(transport, Transport):
            raise MCPClientError("Client needs transport=: a mcp_client.transport.Transport "
                                 "(or use Client.connect_stdio)")
        self._transport = transport
        self._on_warn_hook: Callable[[str], None] | None = self._opts["on_warn"]
        self._client_info = {"name": self._opts["client_name"],
                             "version": self._opts["client_version"] or __version__}
        self._declared = self._derive_capabilities()
        self._correlator = Correlator(on_warn=self._warn)
        self._notifications: Stream = Stream(on_warn=self._warn)
        self._state_lock = threading.Lock()
        self._attempt: Attempt | None = None
        self._probe_threads: list[threading.Thread] = []
        self._state = "open"
        self._dead: MCPClientError | None = None
        self._era_info: EraInfo | None = None
        self._discover_tried = False
        self._envelope: tuple[EraInfo, str, dict[str, Any]] | None = None
        self._header_tools: dict[str, dict[str, Any]] | None = None
        self._default_budget = self._budget(None)
        self._header_warned: set[Any] = set()
        self._executor: ThreadPoolExecutor | None = None
        self._workers: ThreadPoolExecutor | None = None
        self._deadlines: Deadlines | None = None
        self._rounds: set[threading.Thread] = set()   # pipelined calls' input_required rounds
        hooks = {ELICIT: self._opts["on_elicit"], SAMPLE: self._opts["on_sample"],
                 ROOTS: self._opts["on_list_roots"]}
        self._inputs = Inputs({k: v for k, v in hooks.items() if v is not None}, self._warn)
        self._progress = ProgressBook(self._opts["on_progress"], self._warn)
        self._cache = Cache()
        transport.start(self._on_message, self._on_transport_close, self._warn,
                        self._on_request_error)

    # -- construction ------------------------------------------------------------

    @classmethod
    def connect_stdio(cls, command: str, **options: Any) -> Client:
        """Start ``command`` as a child process and connect to it over stdio.

        Args:
            command: the program (no shell is involved).
            **options: client options, plus the stdio options ``args``, ``env``,
                ``cwd``, ``inherit_env``, ``on_stderr``, ``kill_grace``,
                ``stderr_lines`` and ``max_line_bytes``.

        Raises:
            SpawnFailed: the command could not be started (or has a NUL byte).
            MCPClientError: an unknown option or a bad value.
        """
        from ..stdio import StdioTransport

        stdio_options, rest = split_options(options, STDIO_OPTIONS, HTTP_OPTIONS, "stdio")
        if "transport" in rest:
            raise MCPClientError("connect_stdio builds its own transport; pass transport= "
                                 "to Client(...) instead")
        check_client_options(rest)
        transport = StdioTransport(command, **stdio_options)
        try:
            return cls(transport=transport, **rest)
        except BaseException:
            transport.close()
            raise

    @classmethod
    def connect_http(cls, url: str, **options: Any) -> Client:
        """Reach an MCP server over 2026-07-28 Streamable HTTP.

        Modern era only: a server that speaks only the 2025-11-25 handshake over
        HTTP raises :class:`UnsupportedVersion` on the first call.  ``requests``
        is imported here, on first use.

        Args:
            url: the endpoint (``https://tools.example.com/mcp``).
            **options: client options, plus the HTTP options ``headers``,
                ``persistent``, ``connect_timeout``, ``auth`` (a
                ``requests.auth.AuthBase``), ``max_event_bytes`` and
                ``max_redirects``.

        Raises:
            MCPClientError: a bad URL, an unknown option or a bad value.
        """
        from ..http import HTTPTransport

        http_options, rest = split_options(options, HTTP_OPTIONS, STDIO_OPTIONS, "HTTP")
        if "transport" in rest:
            raise MCPClientError("connect_http builds its own transport; pass transport= "
                                 "to Client(...) instead")
        check_client_options(rest)
        transport = HTTPTransport(url, **http_options)
        try:
            return cls(transport=transport, **rest)
        except BaseException:
            transport.close()
            raise

    def _derive_capabilities(self) -> dict[str, Any]:
        override = self._opts["client_capabilities"]
        if override is not None:
            return {key: value for key, value in dict(override).items()}
        caps: dict[str, Any] = {}
        if self._opts["on_elicit"] is not None:
            caps["elicitation"] = {"form": {}}
        if self._opts["on_sample"] is not None:
            caps["sampling"] = {}
        if self._opts["on_list_roots"] is not None:
            caps["roots"] = {}
        return caps

    # -- state ---------------------------------------------------------------------

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        info = self._era_info
        era = f"{info.era} {info.version}" if info else "unprobed"
        state = self._state if self._dead is None or self._state == "closed" else "dead"
        return (f"<Client era={era} {state} pending={len(self._correlator)} "
                f"transport={self._transport!r}>")

    @property
    def transport(self) -> Transport:
        """The wire this client talks over."""
        return self._transport

    @property
    def closed(self) -> bool:
        """True once :meth:`close` was called."""
        return self._state == "closed"

    @property
    def era(self) -> str:
        """``"modern"`` or ``"legacy"``; forces the probe."""
        return self._ensure_era().era

    @property
    def protocol_version(self) -> str:
        """The negotiated version (``2026-07-28``, or a handshake version)."""
        return self._ensure_era().version

    @property
    def supported_versions(self) -> tuple[str, ...]:
        """Every version the server named (empty for a legacy server)."""
        self._ensure_era()
        return self._discovered().supported

    @property
    def server_info(self) -> dict[str, Any]:
        """The server's ``{"name", "version", ...}`` (empty if it sent none)."""
        self._ensure_era()
        return dict(self._discovered().server_info)

    @property
    def capabilities(self) -> dict[str, Any]:
        """The server's capabilities."""
        self._ensure_era()
        return dict(self._discovered().capabilities)

    @property
    def instructions(self) -> str | None:
        """The server's advice to a model, or None."""
        self._ensure_era()
        return self._discovered().instructions

    @property
    def declared_capabilities(self) -> dict[str, Any]:
        """The capabilities this client declares, derived from its hooks."""
        return dict(self._declared)

    @property
    def notifications(self) -> Stream:
        """Every notification the server sends, from subscription on."""
        return self._notifications

    # -- the era -----------------------------------------------------------------

    def _ensure_era(self, budget: float | None = None, cancelled: Any = None,
                    method: str = "server/discover") -> EraInfo:
        """The era, negotiating it first if nobody has (PROTOCOL §3.5).

        One negotiation runs on its own thread under its own budgets; each
        caller waits for it at most its own ``budget`` and honours its own
        ``cancelled`` (a burst of first calls sends one probe).  A failure is
        shared by its waiters; the next call starts a new attempt.
        """
        info = self._era_info
        if info is not None:
            return info
        with self._state_lock:
            if self._state == "closed":
                raise TransportClosed()
            attempt = self._attempt
            if attempt is None or attempt.failed():
                attempt = Attempt()
                self._attempt = attempt
                thread = threading.Thread(target=self._negotiate, args=(attempt,),
                                          name=f"mcp-client-probe-{os.getpid()}", daemon=True)
                self._probe_threads.append(thread)
                thread.start()
        return attempt.wait(budget, cancelled, method)

    def _negotiate(self, attempt: Attempt) -> None:
        try:
            info = self._negotiator().run()
            self._era_info = info
            log.debug("%r negotiated", self)
            if info.era == "legacy" and self._opts["log_level"] and "logging" in info.capabilities:
                self._set_legacy_log_level(self._opts["log_level"])
            attempt.finish(info, None)
        except MCPClientError as exc:
            attempt.finish(None, exc)
        except Exception as exc:   # a bug must still release the waiters
            attempt.finish(None, MCPClientError(f"era negotiation failed: {exc!r}"))

    def _set_legacy_log_level(self, level: str) -> None:
        """2025-11-25 logging: a session setting, sent once (tolerating -32601, S7)."""
        try:
            answer = self._exchange("logging/setLevel", {"level": level}, None,
                                    self._budget(None))
        except MCPClientError as exc:
            self._warn(f"logging/setLevel failed: {exc}")
            return
        if "error" in answer and answer["error"].get("code") != protocol.METHOD_NOT_FOUND:
            self._warn(f"logging/setLevel was refused: {protocol.error_from(answer)}")

    def _negotiator(self) -> Negotiator:
        def exchange(method: str, params: dict[str, Any], meta: dict[str, Any] | None,
                     timeout: float) -> dict[str, Any]:
            # Never a notifications/cancelled for the probe or initialize; a
            # hang-up (HTTP) frees the connection and tells the server nothing else.
            return self._exchange(method, params, meta, timeout or None,
                                  notify_cancel=self._transport.cancel_is_hangup)

        return Negotiator(exchange=exchange, notify=self._notify, restart=self._restart,
                          versions=self._opts["protocol_versions"], mode=self._opts["era"],
                          client_info=self._client_info, capabilities=self._declared,
                          probe_timeout=self._opts["probe_timeout"],
                          handshake_timeout=self._opts["request_timeout"],
                          handshake=self._transport.supports_handshake)

    def _restart(self) -> bool:
        if self._state == "closed" or not self._transport.can_restart:
            return False
        self._warn("the server exited during the era probe; restarting it for the handshake")
        self._transport.restart()
        self._dead = None
        return True

    def _discovered(self) -> EraInfo:
        """The era info, with a discover sent once if it never was (S14)."""
        info = self._era_info
        assert info is not None
        if info.era != "modern" or info.discovered or self._discover_tried:
            return info
        self._discover_tried = True
        meta = self._meta(info, None)
        try:
            answer = self._exchange("server/discover", {}, meta, self._opts["probe_timeout"],
                                    notify_cancel=False)
        except MCPClientError:
            return info
        fill_from_discover(info, answer.get("result"))
        return info

    def _meta(self, info: EraInfo, progress_token: str | int | None) -> dict[str, Any] | None:
        """A request's ``_meta``: the modern envelope, or a legacy progress token."""
        if info.era != "modern":
            return {"progressToken": progress_token} if progress_token is not None else None
        if progress_token is None:
            cached = self._envelope
            if cached is None or cached[0] is not info or cached[1] != info.version:
                cached = (info, info.version, self._build_envelope(info.version, None))
                self._envelope = cached
            return cached[2]   # shared and never mutated: it is only ever serialised
        return self._build_envelope(info.version, progress_token)

    def _build_envelope(self, version: str, token: str | int | None) -> dict[str, Any]:
        return protocol.envelope(version, client_info=self._client_info,
                                 capabilities=self._declared,
                                 log_level=self._opts["log_level"], progress_token=token)

    # -- one request ---------------------------------------------------------------

    def _check_usable(self) -> None:
        if self._state == "closed":
            raise TransportClosed()
        if self._dead is not None:
            raise self._dead

    def _budget(self, timeout: float | None) -> float | None:
        """A request's budget in seconds; None for none (0, or more than a thread can wait)."""
        if timeout is None:
            timeout = self._opts["request_timeout"]
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or \
                timeout != timeout or timeout < 0:
            raise MCPClientError(f"timeout must be a number >= 0, not {timeout!r}")
        if timeout > threading.TIMEOUT_MAX:   # float("inf") included: no budget at all
            return None
        return float(timeout) or None

    def _exchange(self, method: str, params: Mapping[str, Any], meta: dict[str, Any] | None,
                  timeout: float | None, *, cancelled: Any = None,
                  notify_cancel: bool = True, ticket: Ticket | None = None,
                  headers: Mapping[str, str] | None = None) -> dict[str, Any]:
        """Send one request and wait for its answer message (result or error)."""
        self._check_usable()
        pending = self._correlator.register(method)
        message = protocol.request(pending.ident, method, params, meta=meta)
        try:
            self._transport.send(message, headers=headers)
        except BaseException:
            self._correlator.abandon(pending.ident)
            raise
        dead = self._dead if self._state != "closed" else TransportClosed()
        if dead is not None:  # the wire died between the check and the send
            self._correlator.fail(pending.ident, dead)
        return self._await(pending, timeout, cancelled, notify_cancel, ticket)

    def _await(self, pending: Pending, timeout: float | None, cancelled: Any,
               notify_cancel: bool, ticket: Ticket | None = None) -> dict[str, Any]:
        stretch = ticket is not None and timeout is not None and \
            self._opts["reset_timeout_on_progress"]
        if cancelled is None and not stretch:
            if pending.wait(timeout):
                return pending.result()
            return self._timed_out(pending, timeout, notify_cancel)
        start = time.monotonic()
        deadline = None if timeout is None else start + timeout
        cap = self._opts["max_total_timeout"]
        hard = None if cap is None else start + cap
        while True:
            if cancelled is not None and fired(cancelled) and not pending.done():
                self._abandon(pending, "cancelled by the caller", notify_cancel)
                raise Cancelled(pending.method)
            now = time.monotonic()
            if deadline is not None and now >= deadline:
                deadline = self._stretched(ticket, timeout, hard, now) if stretch else None
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
        self._abandon(pending, f"timed out after {seconds:g}s", notify_cancel)
        if pending.done():
            return pending.result()   # the answer won the race
        raise Timeout(pending.method, seconds)

    @staticmethod
    def _stretched(ticket: Ticket | None, timeout: float | None, hard: float | None,
                   now: float) -> float | None:
        """A new deadline if progress arrived within the budget, else None."""
        if ticket is None or timeout is None or not ticket.last_report:
            return None
        deadline = ticket.last_report + timeout
        if hard is not None:
            deadline = min(deadline, hard)
        return deadline if deadline > now else None

    def _abandon(self, pending: Pending, reason: str, notify: bool) -> None:
        if self._correlator.abandon(pending.ident) is not None and notify:
            self._transport.cancel(pending.ident, reason)

    def _notify(self, method: str, params: dict[str, Any] | None) -> None:
        self._check_usable()
        self._transport.send(protocol.notification(method, params))

    def _request(self, method: str, params: Mapping[str, Any], *, timeout: float | None,
                 cancelled: Any, progress_token: str | int | None = None,
                 tool_call_id: str | None = None, refresh: bool = False,
                 headers: Mapping[str, str] | None = None) -> dict[str, Any]:
        """Send a request in the negotiated era and return the caller's view of its result.

        Completes a multi round-trip request (``input_required``) through the
        hooks, serves and fills the result cache, and tracks progress.
        ``timeout`` bounds each round trip, not the time hooks spend.
        """
        if cancelled is not None:
            check_cancel_signal(cancelled)
        budget = self._default_budget if timeout is None else self._budget(timeout)
        info = self._era_info or self._ensure_era(budget, cancelled, method)
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
            meta = self._meta(info, ticket.token if ticket is not None else None)
            shaped = self._round_trip(info, method, params, meta, budget, cancelled, ticket,
                                      headers)
            more = shaped.result_type == "input_required"
            if more:
                shaped = self._more_rounds(info, method, params, meta, budget, cancelled, ticket,
                                           headers, shaped)
        finally:
            self._progress.close(ticket)
        if key is not None and not more:
            self._cache.put(key, shaped.body, shaped.ttl_ms)
        return shaped.body

    def _round_trip(self, info: EraInfo, method: str, params: Mapping[str, Any],
                    meta: dict[str, Any] | None, budget: float | None, cancelled: Any,
                    ticket: Ticket | None,
                    headers: Mapping[str, str] | None = None) -> protocol.Shaped:
        answer = self._exchange(method, params, meta, budget, cancelled=cancelled, ticket=ticket,
                                headers=headers)
        return self._shaped(info, method, answer)

    def _shaped(self, info: EraInfo, method: str, answer: dict[str, Any]) -> protocol.Shaped:
        """An answer message as a shaped result; an error answer is raised."""
        if "error" in answer:
            error = protocol.error_from(answer)
            if method == "tools/call" and error.code == protocol.INVALID_PARAMS:
                self._cache.evict("tools/list")   # S15: an early refetch is allowed
            raise error
        shaped = protocol.shape_result(method, answer.get("result"))
        if info.era == "modern" and not info.server_info and shaped.server_info:
            info.server_info = dict(shaped.server_info)
        return shaped

    # -- shutting down -------------------------------------------------------------

    def close(self) -> None:
        """Close the connection; idempotent, and safe after the server died.

        The transport closes (stdio: stdin closed, the child given
        ``kill_grace`` seconds, then SIGTERM, then SIGKILL), outstanding calls
        fail with :class:`TransportClosed`, and the notification stream
        finishes.
        """
        with self._state_lock:
            if self._state == "closed":
                return
            self._state = "closed"
            pools = [p for p in (self._executor, self._workers) if p is not None]
            deadlines = self._deadlines
            rounds = list(self._rounds)
        closed = TransportClosed()
        self._correlator.fail_all(closed)
        try:
            self._transport.close()
        finally:
            self._correlator.fail_all(closed)
            if deadlines is not None:
                deadlines.stop()
            self._notifications.finish()
            self._cache.clear()
            current = threading.current_thread()
            for thread in self._probe_threads:   # each ends once its exchange has failed
                if thread is not current:
                    thread.join(self._opts["probe_timeout"] + 5)
            for pool in pools:
                pool.shutdown(wait=not current.name.startswith("mcp-client-"))
            for thread in rounds:   # like the pool's threads: each ends once its hook returns
                if thread is not current:
                    thread.join()

    def _warn(self, text: str) -> None:
        warn_through(self._on_warn_hook, text, log)
