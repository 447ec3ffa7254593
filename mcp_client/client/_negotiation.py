"""One connection's era: negotiated once, on a thread of its own, when a call first needs it.

:class:`Negotiation` starts the probe (:class:`~._era.Negotiator`, which
decides) on the first call that needs the era; every call waits for it within
its own budget (:class:`~._era.Attempt`).  It also keeps what follows from the
era: the ``_meta`` envelope every modern request carries, the one
``server/discover`` sent later to fill in what a ``-32021`` answer to the
probe left unknown (S14), and the legacy ``logging/setLevel``.  Like the Negotiator it sends
nothing itself: it drives the callables the connection gives it.
"""

from __future__ import annotations

import os
import threading

from .. import protocol
from .._log import get_logger
from ..exceptions import MCPClientError, TransportClosed
from ._era import Attempt, Negotiator, fill_from_discover
from ._tasks.extension_2026_07_28 import declares_tasks, with_tasks

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Mapping

    from ..transport import Transport
    from ._era import EraInfo

    #: ``exchange(method, params, meta, timeout, notify_cancel) -> the answer message``.
    Exchange = Callable[[str, "Mapping[str, Any]", "dict[str, Any] | None", "float | None",
                         bool], "dict[str, Any]"]

__all__ = ["Negotiation"]

log = get_logger(__name__)


class Negotiation:
    """The era of one connection (see the module).

    Args:
        exchange: sends one request and returns its answer message.
        notify: sends one notification.
        restart: brings a dead stdio child back; False if it cannot.
        opts: the client's checked options.
        budget: a request's default budget (``request_timeout`` as checked).
        client_info: ``{"name", "version"}``.
        capabilities: the declared client capabilities.
        wire: the connection's transport now, read at each attempt: whether it
            can speak the 2025-11-25 handshake, and whether giving up a request
            hangs up on it (HTTP), which the probe may do; the probe never
            sends ``notifications/cancelled``.
        warn: where warnings go.
        fallback: replaces the wire with the 2024-11-05 HTTP+SSE one when
            ``initialize`` is refused with 400/404/405; False if it cannot.
    """

    def __init__(self, *, exchange: Exchange,
                 notify: Callable[[str, dict[str, Any] | None], None],
                 restart: Callable[[], bool], opts: Mapping[str, Any], budget: float | None,
                 client_info: dict[str, Any], capabilities: dict[str, Any],
                 wire: Callable[[], Transport], warn: Callable[[str], None],
                 fallback: Callable[[], bool]) -> None:
        self._exchange = exchange
        self._notify = notify
        self._restart = restart
        self._opts = opts
        self._budget = budget
        self._client_info = client_info
        self._capabilities = capabilities
        self._wire = wire
        self._warn = warn
        self._fallback = fallback
        self.info: EraInfo | None = None   # what negotiation found, once it has
        self._lock = threading.Lock()
        self._refused = False
        self._attempt: Attempt | None = None
        self._threads: list[threading.Thread] = []
        self._discover_tried = False
        self._envelope: tuple[EraInfo, str, dict[str, Any]] | None = None

    def __repr__(self) -> str:
        info = self.info
        return f"<Negotiation {f'{info.era} {info.version}' if info else 'pending'}>"

    def ensure(self, budget: float | None, cancelled: Any, method: str) -> EraInfo:
        """The era, negotiating it first if nobody has.

        One negotiation runs on its own thread under its own budgets; each
        caller waits for it at most its own ``budget`` and honours its own
        ``cancelled`` (a burst of first calls sends one probe).  A failure is
        shared by its waiters; the next call starts a new attempt.

        Raises:
            TransportClosed: after :meth:`refuse`.
        """
        info = self.info
        if info is not None:
            return info
        with self._lock:
            if self._refused:
                raise TransportClosed()
            attempt = self._attempt
            if attempt is None or attempt.failed():
                attempt = Attempt()
                self._attempt = attempt
                thread = threading.Thread(target=self._negotiate, args=(attempt,),
                                          name=f"mcp-client-probe-{os.getpid()}", daemon=True)
                self._threads.append(thread)
                thread.start()
        return attempt.wait(budget, cancelled, method)

    def _negotiate(self, attempt: Attempt) -> None:
        try:
            info = self._negotiator().run()
            self._wire().connected()
            self.info = info
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
                                    self._budget, True)
        except MCPClientError as exc:
            self._warn(f"logging/setLevel failed: {exc}")
            return
        if "error" in answer and answer["error"].get("code") != protocol.METHOD_NOT_FOUND:
            self._warn(f"logging/setLevel was refused: {protocol.error_from(answer)}")

    def _negotiator(self) -> Negotiator:
        wire = self._wire()

        def exchange(method: str, params: dict[str, Any], meta: dict[str, Any] | None,
                     timeout: float) -> dict[str, Any]:
            # Never a notifications/cancelled for the probe or initialize; a
            # hang-up (HTTP) frees the connection and tells the server nothing else.
            return self._exchange(method, params, meta, timeout or None, wire.cancel_is_hangup)

        return Negotiator(exchange=exchange, notify=self._notify, restart=self._restart,
                          versions=self._opts["protocol_versions"], mode=self._opts["era"],
                          client_info=self._client_info, capabilities=self._capabilities,
                          probe_timeout=self._opts["probe_timeout"],
                          handshake_timeout=self._opts["request_timeout"],
                          connect_budget=self._opts["connect_budget"],
                          handshake=wire.supports_handshake,
                          endpoint=getattr(wire, "url", None), fallback=self._fallback)

    def discovered(self) -> EraInfo:
        """The era info, with a discover sent once if it never was."""
        info = self.info
        assert info is not None
        if info.era != "modern" or info.discovered or self._discover_tried:
            return info
        self._discover_tried = True
        meta = self.meta(info, None)
        try:
            answer = self._exchange("server/discover", {}, meta, self._opts["probe_timeout"],
                                    False)
        except MCPClientError:
            return info
        fill_from_discover(info, answer.get("result"))
        return info

    def meta(self, info: EraInfo, progress_token: str | int | None,
             tasks: bool = False) -> dict[str, Any] | None:
        """A request's ``_meta``: the modern envelope, or a legacy progress token.

        ``tasks`` declares the tasks extension on this one request (SEP-2663:
        per-request capabilities) when the client does not declare it anyway.
        """
        if info.era != "modern":
            return {"progressToken": progress_token} if progress_token is not None else None
        if tasks and not declares_tasks(self._capabilities):
            return protocol.envelope(info.version, client_info=self._client_info,
                                     capabilities=with_tasks(self._capabilities),
                                     log_level=self._opts["log_level"],
                                     progress_token=progress_token)
        if progress_token is None:
            cached = self._envelope
            if cached is None or cached[0] is not info or cached[1] != info.version:
                cached = (info, info.version, self._build_envelope(info.version, None))
                self._envelope = cached
            return cached[2]   # shared and never mutated: it is only ever serialised
        return self._build_envelope(info.version, progress_token)

    def shared_envelope(self) -> dict[str, Any] | None:
        """The envelope :meth:`meta` hands every request without a progress token."""
        cached = self._envelope
        return None if cached is None else cached[2]

    def forget_envelope(self) -> None:
        """Build the envelope afresh: an option it carries (``log_level``) changed."""
        self._envelope = None

    def _build_envelope(self, version: str, token: str | int | None) -> dict[str, Any]:
        return protocol.envelope(version, client_info=self._client_info,
                                 capabilities=self._capabilities,
                                 log_level=self._opts["log_level"], progress_token=token)

    def reset(self) -> None:
        """Forget the era: the server was started again, and the next call probes anew."""
        with self._lock:
            self.info = None
            self._attempt = None
            self._discover_tried = False
            self._envelope = None

    def refuse(self) -> None:
        """Start no negotiation from now on (the connection is closing)."""
        with self._lock:
            self._refused = True

    def join(self) -> None:
        """Wait for the probe threads; each ends once its exchange has failed."""
        current = threading.current_thread()
        for thread in self._threads:
            if thread is not current:
                thread.join(self._opts["probe_timeout"] + 5)
