"""Inbound messages of one connection, on its transport's reader thread.

:class:`Dispatcher` classifies each message the wire delivers (JSON-RPC 2.0:
by shape, never by id) and hands it on, without ever blocking the reader:
answers complete their cells in the correlator, notifications are published
(after progress, logging and the cache have seen them), and a (legacy)
server's requests go to a hook worker, because a hook may wait on a human.
It counts the server's requests waiting for an answer and refuses those past
:data:`MAX_SERVER_REQUESTS` at once, so that a flood cannot queue without end.

It changes no connection state: the wire's death is the connection's
(``on_close``); this reads the state its host (:class:`~._hosts.WireState`)
shows, to drop an answer nobody can send any more.
"""

from __future__ import annotations

import threading

from .. import protocol
from .._log import get_logger
from ..exceptions import MCPClientError
from ..protocol import Kind

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Mapping

    from ..cache import Cache
    from ..correlator import Correlator
    from ._hosts import WireState
    from ._inputs import Inputs
    from ._negotiation import Negotiation
    from ._pools import Pools
    from ._progress import ProgressBook
    from ._stream import Stream
    from ._watch import Watch
    from ._writer import Writer

__all__ = ["Dispatcher", "MAX_SERVER_REQUESTS"]

log = get_logger(__name__)

#: Server requests waiting for a hook worker or in one; beyond, each is refused at once
#: (-32603), so that a flood cannot queue without end.
MAX_SERVER_REQUESTS = 64
#: Which cached methods a list_changed notification makes stale.
_EVICTS = {
    "notifications/tools/list_changed": ("tools/list",),
    "notifications/prompts/list_changed": ("prompts/list",),
    "notifications/resources/list_changed": ("resources/list", "resources/templates/list"),
}


class Dispatcher:
    """The reader side of one connection (see the module); its ``on_*`` methods are the
    transport's callbacks.

    Args:
        host: the connection, for its state.
        correlator: the connection's request table.
        writer: the connection's :class:`~._writer.Writer` (its wire answers the server).
        opts: the client's checked options (``on_log``, ``log_level``).
        warn: where warnings go.
    """

    def __init__(self, host: WireState, correlator: Correlator, writer: Writer, *,
                 notifications: Stream, progress: ProgressBook, cache: Cache, watch: Watch,
                 inputs: Inputs, pools: Pools, negotiation: Negotiation,
                 opts: Mapping[str, Any], warn: Callable[[str], None]) -> None:
        self._host = host
        self._correlator = correlator
        self._writer = writer
        self._notifications = notifications
        self._progress = progress
        self._cache = cache
        self._watch = watch
        self._inputs = inputs
        self._pools = pools
        self._negotiation = negotiation
        self._opts = opts
        self._warn = warn
        self._lock = threading.Lock()
        self._serving = 0                # server requests taken, not yet answered
        self._flood_warned = False

    def __repr__(self) -> str:
        return f"<Dispatcher serving={self._serving}>"

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

    def on_request_error(self, ident: Any, exc: MCPClientError) -> None:
        """One request failed on the wire (HTTP: its POST), not the whole connection."""
        if not self._correlator.fail(ident, exc):
            self._warn(f"dropped a failure of request {ident!r} nobody awaits: {exc}")

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
        with self._lock:
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
            with self._lock:
                self._serving -= 1
        self._reply(message, reply)

    def _reply(self, message: dict[str, Any], reply: dict[str, Any]) -> None:
        try:
            self._writer.transport.send(reply)
        except MCPClientError as exc:
            if self._host.state == "closed":   # a hook that outlived close(): nobody to tell
                log.debug("dropped the answer to the server's %s request: %s",
                          message["method"], exc)
                return
            self._warn(f"could not answer the server's {message['method']} request: {exc}")
