"""Which protocol era a server speaks: the probe and the handshake.

The era belongs to the server process (stdio) or origin (HTTP), so it is
decided once per connection, on the first call that needs it (the probe;
2026-07-28 backward compatibility):

* ``server/discover`` is sent first -- nothing precedes it on the wire -- under
  its own short ``probe_timeout``.  A DiscoverResult that names a version we
  speak means modern, at the first version *we* prefer that it names.
* ``-32022`` means modern: probe once more at a mutual modern version, fall
  back to the handshake if the server names only handshake versions, or raise
  :class:`UnsupportedVersion`.
* ``-32021`` means modern at the probed version; ``-32020`` on discover can only
  mean our own request is malformed, so it is raised.
* Anything else -- an error, a timeout, an answer that is not a DiscoverResult,
  an empty ``supportedVersions`` -- means legacy: ``initialize``, check the
  version that came back (any handshake version we implement), then
  ``notifications/initialized``.  ``-32022`` on ``initialize`` is modern
  evidence (a slow dual-era server answered the timed-out probe and locked
  itself modern): probe once more.
* A pinned modern version (``era="2026-07-28"``) is probed at that version
  under the handshake's budget, with no fallback: a DiscoverResult naming it,
  or ``-32021``, is the era; anything else a server answers is
  :class:`UnsupportedVersion` naming both sides, so a legacy-only server is
  refused at connect rather than failing every call with ``-32602``.
* A dead wire is not an era signal and is raised -- except that a stdio child
  that exits *during the probe* (some legacy servers exit on any first
  message but ``initialize``) is restarted once and given the handshake.

Neither the probe nor ``initialize`` is ever cancelled on the wire
(2025-11-25 lifecycle).  This module sends nothing
itself: it drives the callables it is given.
"""

from __future__ import annotations


import threading
import time

from .. import protocol
from .._redact import redact_url
from ..exceptions import (Cancelled, MCPClientError, ProtocolError, ServerGone, Timeout,
                          TransportError, UnsupportedVersion)
from ._cancel import CANCEL_POLL, fired

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Mapping, Sequence
    Exchange = Callable[[str, dict[str, Any], "dict[str, Any] | None", float], dict[str, Any]]

__all__ = ["EraInfo", "Negotiator", "Exchange", "Attempt", "fill_from_discover"]

#: HTTP statuses a legacy-only Streamable HTTP server answers a discover with.
_LEGACY_STATUSES = (400, 404, 405)
#: ``exchange(method, params, meta, timeout) -> the answer message`` (result or error).


class EraInfo:
    """What negotiation found out (a plain class: ``dataclasses`` costs an import)."""

    __slots__ = ("era", "version", "supported", "server_info", "capabilities",
                 "instructions", "discovered")

    def __init__(self, era: str, version: str, supported: tuple[str, ...] = (),
                 server_info: dict[str, Any] | None = None,
                 capabilities: dict[str, Any] | None = None,
                 instructions: str | None = None, discovered: bool = False) -> None:
        self.era = era                         # "modern" | "legacy"
        self.version = version
        self.supported = supported
        self.server_info = server_info if server_info is not None else {}
        self.capabilities = capabilities if capabilities is not None else {}
        self.instructions = instructions
        self.discovered = discovered           # a DiscoverResult filled the fields

    def __repr__(self) -> str:
        return f"<EraInfo {self.era} {self.version}>"


def _info_from_discover(version: str, result: dict[str, Any],
                        supported: Sequence[str]) -> EraInfo:
    shaped = protocol.shape_result("server/discover", result)
    server_info = shaped.server_info or result.get("serverInfo")
    caps = result.get("capabilities")
    instructions = result.get("instructions")
    return EraInfo("modern", version, tuple(supported),
                   dict(server_info) if isinstance(server_info, dict) else {},
                   dict(caps) if isinstance(caps, dict) else {},
                   instructions if isinstance(instructions, str) else None, True)


def fill_from_discover(info: EraInfo, result: Any) -> None:
    """Complete ``info`` from a DiscoverResult sent after the era was decided."""
    if not isinstance(result, dict):
        return
    if not info.server_info:
        found = protocol.shape_result("server/discover", result).server_info
        info.server_info = dict(found or result.get("serverInfo") or {})
    supported = protocol.discover_versions(result)
    info.supported = tuple(supported or info.supported)
    caps, instructions = result.get("capabilities"), result.get("instructions")
    info.capabilities = dict(caps) if isinstance(caps, dict) else info.capabilities
    info.instructions = instructions if isinstance(instructions, str) else None
    info.discovered = True


class Attempt:
    """One era negotiation, waited on by every call that needs the era."""

    __slots__ = ("_done", "info", "error")

    def __init__(self) -> None:
        self._done = threading.Event()
        self.info: EraInfo | None = None
        self.error: MCPClientError | None = None

    def failed(self) -> bool:
        return self._done.is_set() and self.error is not None

    def finish(self, info: EraInfo | None, error: MCPClientError | None) -> None:
        self.info, self.error = info, error
        self._done.set()

    def wait(self, budget: float | None, cancelled: Any, method: str) -> EraInfo:
        """The negotiated era, waiting at most ``budget`` seconds.

        Raises:
            Timeout: the budget ran out first (named after the waiting call).
            Cancelled: ``cancelled`` (an Event or a Future) fired first.
            MCPClientError: the negotiation failed (every waiter gets the error).
        """
        deadline = None if budget is None else time.monotonic() + budget
        while True:
            if cancelled is not None and fired(cancelled):
                raise Cancelled(method)
            wait = None if deadline is None else deadline - time.monotonic()
            if cancelled is not None:
                wait = CANCEL_POLL if wait is None else min(CANCEL_POLL, wait)
            if wait is not None and wait <= 0:
                raise Timeout(method, budget or 0.0)
            if self._done.wait(wait):
                if self.error is not None:
                    raise self.error
                assert self.info is not None
                return self.info


class Negotiator:
    """Runs the era state machine once.

    Args:
        exchange: sends one request and returns the answer message; raises
            :class:`Timeout` and the transport's death exceptions.
        notify: sends one notification.
        restart: brings a dead stdio child back; returns False if it cannot.
        versions: the modern versions we speak, best first.
        mode: ``"auto"``, ``"legacy"`` or a pinned modern version.
        client_info: ``{"name", "version"}``.
        capabilities: the declared client capabilities.
        probe_timeout: the probe's budget.
        handshake_timeout: ``initialize``'s budget.
        connect_budget: seconds for the probe and the handshake together
            (``None``: each has only its own budget); the probe then gets at
            most half of it, so that a legacy server that ignores the probe
            still has time to answer ``initialize``.
        handshake: whether the wire can speak the handshake era at all; where
            it cannot, every legacy signal raises :class:`UnsupportedVersion`.
        endpoint: the URL, over HTTP (named when nothing answers there).
        fallback: replaces the wire with the 2024-11-05 HTTP+SSE transport
            when ``initialize`` is refused with 400/404/405; False if it cannot.
    """

    def __init__(self, *, exchange: Exchange,
                 notify: Callable[[str, "dict[str, Any] | None"], None],
                 restart: Callable[[], bool], versions: Sequence[str], mode: str,
                 client_info: Mapping[str, Any], capabilities: Mapping[str, Any],
                 probe_timeout: float, handshake_timeout: float,
                 connect_budget: float | None = None, handshake: bool = True,
                 endpoint: str | None = None, fallback: Callable[[], bool] | None = None) -> None:
        self._exchange = exchange
        self._notify = notify
        self._restart = restart
        self._versions = tuple(versions)
        self._mode = mode
        self._client_info = dict(client_info)
        self._capabilities = dict(capabilities)
        self._probe_timeout = probe_timeout
        self._handshake_timeout = handshake_timeout
        self._connect_budget = connect_budget
        self._deadline: float | None = None
        self._unanswered = 0.0   # seconds the probe went unanswered, if it did
        self._handshake_allowed = handshake
        self._endpoint = endpoint
        self._discover_status: int | None = None   # the HTTP status a failed probe got
        self._fallback = fallback
        self._initialize_status: int | None = None   # ... and the refused initialize
        self._why_legacy = ""
        self._reprobed = False
        self._restarted = False
        self._named: list[str] = []   # every version the server named, for errors

    def run(self) -> EraInfo:
        """Decide the era (sends the probe and/or the handshake)."""
        if self._connect_budget is not None:
            self._deadline = time.monotonic() + self._connect_budget
        if self._mode == "legacy":
            return self._handshake()
        if self._mode != "auto":
            return self._pinned(self._mode)
        return self._probe(self._versions[0])

    # -- a pinned modern version -----------------------------------------------

    def _pinned(self, version: str) -> EraInfo:
        """``server/discover`` at the pinned version, and no fallback.

        The server must speak ``version``: a DiscoverResult that names it (or a
        ``-32021``, modern at that version) is the era; anything a legacy
        server answers, or a version list without it, is
        :class:`UnsupportedVersion` naming both sides.  There is no handshake
        to fall back to, so the probe has the handshake's budget.
        """
        budget = self._handshake_budget()
        try:
            answer = self._exchange("server/discover", {}, self._meta(version), budget)
        except TransportError as exc:
            if exc.status not in _LEGACY_STATUSES:
                raise
            raise self._pin_refused(version, f"server/discover failed: {exc}") from None
        if "error" in answer:
            error = protocol.error_from(answer)
            if error.code == protocol.MISSING_CAPABILITY:
                return EraInfo("modern", version)
            if error.code == protocol.HEADER_MISMATCH:
                return self._probe_error(version, error)   # raises: a client bug
            if error.code == protocol.UNSUPPORTED_VERSION:
                raise UnsupportedVersion((version,), self._supported_from(error),
                                         f"era is pinned to {version}, which the server "
                                         "does not speak")
            raise self._pin_refused(version, f"server/discover was answered {error}")
        supported = protocol.discover_versions(answer.get("result"))
        if not supported:
            raise self._pin_refused(version, "the answer to server/discover is not a "
                                    "DiscoverResult")
        if version not in supported:
            raise self._pin_refused(version, "", supported)
        return _info_from_discover(version, answer["result"], supported)

    @staticmethod
    def _pin_refused(version: str, why: str, supported: Sequence[str] = ()) -> UnsupportedVersion:
        if supported:
            return UnsupportedVersion((version,), supported, f"era is pinned to {version}, "
                                      "which the server does not speak")
        return UnsupportedVersion(
            (version,), (protocol.LATEST_LEGACY_VERSION,),
            f"era is pinned to {version}, but this looks like a legacy-only server that "
            f"speaks the {protocol.LATEST_LEGACY_VERSION} handshake ({why}); "
            "use era=\"auto\" or \"legacy\"")

    # -- the connect budget ------------------------------------------------------

    def _left(self) -> float | None:
        """Seconds left of the connect budget (None: there is none); raises once spent."""
        if self._deadline is None:
            return None
        left = self._deadline - time.monotonic()
        if left <= 0:
            raise self._never_answered(None)
        return left

    def _probe_budget(self) -> float:
        left = self._left()
        return self._probe_timeout if left is None else min(self._probe_timeout, left / 2)

    def _handshake_budget(self) -> float:
        left = self._left()
        if left is None:
            return self._handshake_timeout
        return min(self._handshake_timeout, left) if self._handshake_timeout else left

    def _never_answered(self, waited: float | None) -> Timeout:
        """The Timeout of a connect that got no answer: it names what went unanswered."""
        budget = self._connect_budget
        within = f" within the connect budget of {budget:g}s" if budget is not None else ""
        if self._unanswered:
            shown = "" if waited is None else f", {round(waited, 1):g}s"
            detail = (f"the server never answered the probe (server/discover, "
                      f"{round(self._unanswered, 1):g}s) or the handshake "
                      f"(initialize{shown}){within}")
        else:
            detail = f"initialize was not answered{within or f' within {waited or 0:.3g}s'}"
        return Timeout("initialize", budget if budget is not None else waited or 0.0, detail)

    # -- the probe ---------------------------------------------------------------

    def _meta(self, version: str) -> dict[str, Any]:
        return protocol.envelope(version, client_info=self._client_info,
                                 capabilities=self._capabilities)

    def _probe(self, version: str) -> EraInfo:
        budget = self._probe_budget()
        try:
            answer = self._exchange("server/discover", {}, self._meta(version), budget)
        except Timeout:
            self._why_legacy = f"server/discover was not answered within {budget:g}s"
            self._unanswered = budget
            return self._handshake()
        except TransportError as exc:
            # HTTP: only a 400/404/405 without a JSON-RPC body is what a legacy
            # server answers; an unreachable server, a 401 or a
            # 500 says nothing about the era and is raised as it is.
            if exc.status not in _LEGACY_STATUSES:
                raise
            self._discover_status = exc.status
            self._why_legacy = f"server/discover failed: {exc}"
            return self._handshake()
        except ServerGone:
            if self._restarted or not self._restart():
                raise
            self._restarted = True
            return self._handshake()
        if "error" in answer:
            return self._probe_error(version, protocol.error_from(answer))
        supported = protocol.discover_versions(answer.get("result"))
        if supported is None:
            self._why_legacy = "the answer to server/discover is not a DiscoverResult"
            return self._handshake()
        self._named.extend(supported)
        mutual = protocol.pick_version(self._versions, supported)
        if mutual is None:
            self._why_legacy = "server/discover named no modern version this client speaks"
            return self._handshake()
        return _info_from_discover(mutual, answer["result"], supported)

    def _probe_error(self, version: str, error: ProtocolError) -> EraInfo:
        if error.code == protocol.UNSUPPORTED_VERSION:
            return self._unsupported(error, version)
        if error.code == protocol.MISSING_CAPABILITY:
            return EraInfo("modern", version)
        if error.code == protocol.HEADER_MISMATCH:
            raise ProtocolError(error.code, "server/discover was refused as malformed "
                                f"({error.message}); this is a client bug", error.data)
        self._why_legacy = f"server/discover was answered {error}"
        return self._handshake()

    def _supported_from(self, error: ProtocolError) -> list[str]:
        data = error.data if isinstance(error.data, dict) else {}
        named = data.get("supported")
        versions = [v for v in named if isinstance(v, str)] if isinstance(named, list) else []
        self._named.extend(v for v in versions if v not in self._named)
        return versions

    def _unsupported(self, error: ProtocolError, tried: str | None) -> EraInfo:
        supported = self._supported_from(error)
        modern = [v for v in supported if protocol.is_modern_version(v)]
        mutual = protocol.pick_version(self._versions, modern)
        # A -32022 may name the very version we tried (a server that changed its
        # mind, or a test of whether we retry): one more probe, never more.
        if mutual is not None and not self._reprobed:
            self._reprobed = True
            return self._probe(mutual)
        if tried is not None and any(protocol.legacy_version_ok(v) for v in supported):
            return self._handshake()
        raise UnsupportedVersion(self._versions + protocol.LEGACY_VERSIONS, self._named,
                                 "the server speaks no protocol version this client does")

    # -- the handshake (2025-11-25 lifecycle) ------------------------------------

    def _no_handshake(self, exc: TransportError) -> TransportError:
        """What to raise when the ``initialize`` POST got no JSON-RPC answer.

        A 404 to the probe and to ``initialize`` alike, with no session ever
        issued, is a wrong URL -- not an old server (2026-07-28 Streamable
        HTTP, "Backward Compatibility").
        """
        if exc.status == 404 and self._discover_status == 404 and self._endpoint and \
                self._initialize_status in (None, 404):
            also = ", initialize and the HTTP+SSE GET were all" \
                if self._initialize_status == 404 else " and initialize were both"
            return TransportError(
                f"nothing serves MCP at {redact_url(self._endpoint)}: server/discover{also} "
                "answered 404 (is the path right?)", status=404, body=exc.body, headers=exc.headers)
        return exc

    def _handshake(self) -> EraInfo:
        if not self._handshake_allowed:
            why = self._why_legacy or "no modern answer"
            raise UnsupportedVersion(
                self._versions, self._named,
                f"this looks like a legacy-only server ({why}); this wire cannot speak "
                "the 2025-11-25 handshake")
        params = {"protocolVersion": protocol.LATEST_LEGACY_VERSION,
                  "capabilities": self._capabilities, "clientInfo": self._client_info}
        budget = self._handshake_budget()
        try:
            answer = self._exchange("initialize", params, None, budget)
        except Timeout:
            if self._unanswered or self._deadline is not None:
                raise self._never_answered(budget) from None
            raise
        except TransportError as exc:
            # 2025-11-25 "Backward Compatibility": a 400/404/405 to initialize
            # means an older server may speak HTTP+SSE at the same URL.
            if exc.status in _LEGACY_STATUSES and self._initialize_status is None and \
                    self._fallback is not None:
                self._initialize_status = exc.status
                if self._fallback():
                    return self._handshake()
            raise self._no_handshake(exc) from exc
        if "error" in answer:
            error = protocol.error_from(answer)
            if error.code == protocol.UNSUPPORTED_VERSION:
                return self._unsupported(error, None)
            raise ProtocolError(error.code, f"initialize failed: {error.message}", error.data)
        result = answer.get("result")
        if not isinstance(result, dict):
            raise ProtocolError(None, "initialize: the result is not an object", result)
        version = result.get("protocolVersion")
        if not protocol.legacy_version_ok(version):
            raise UnsupportedVersion(protocol.LEGACY_VERSIONS, [str(version)],
                                     "initialize came back with a version this client "
                                     "does not implement")
        self._notify("notifications/initialized", None)
        info = result.get("serverInfo")
        caps = result.get("capabilities")
        instructions = result.get("instructions")
        return EraInfo("legacy", str(version), (),
                       dict(info) if isinstance(info, dict) else {},
                       dict(caps) if isinstance(caps, dict) else {},
                       instructions if isinstance(instructions, str) else None)
