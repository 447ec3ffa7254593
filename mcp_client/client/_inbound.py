"""What arrives from the server, on the transport's reader thread.

A mixin of :class:`~mcp_client.Client`: every inbound message is classified
(PROTOCOL §2: by shape, never by id) and handed on -- answers to the
pending-request table, notifications to the progress book, ``on_log``, the
cache and the :attr:`~mcp_client.Client.notifications` stream, and (legacy)
server requests to a worker thread, because a hook may wait on a human while
the reader must keep reading.  Nothing here blocks.
"""

from __future__ import annotations

import os

from .. import protocol
from ..exceptions import MCPClientError
from ..protocol import Kind

TYPE_CHECKING = False
if TYPE_CHECKING:
    import threading
    from concurrent.futures import ThreadPoolExecutor
    from typing import Any, Callable

    from ..cache import Cache
    from ..correlator import Correlator
    from ._era import EraInfo
    from ._inputs import Inputs
    from ._progress import ProgressBook
    from ._stream import Stream
    from ..transport import Transport

__all__ = ["Inbound"]

#: Which cached methods a list_changed notification makes stale.
_EVICTS = {
    "notifications/tools/list_changed": ("tools/list",),
    "notifications/prompts/list_changed": ("prompts/list",),
    "notifications/resources/list_changed": ("resources/list", "resources/templates/list"),
}


class Inbound:
    """Mixin: the client's handling of inbound messages."""

    _correlator: Correlator
    _progress: ProgressBook
    _cache: Cache
    _notifications: Stream
    _inputs: Inputs
    _transport: Transport
    _opts: dict[str, Any]
    _era_info: EraInfo | None
    _state: str
    _state_lock: threading.Lock
    _workers: ThreadPoolExecutor | None
    _dead: MCPClientError | None
    _warn: Callable[[str], None]

    def _on_message(self, message: dict[str, Any]) -> None:
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
        self._notifications.publish(message)

    def _on_log_message(self, params: Any) -> None:
        hook = self._opts["on_log"]
        if hook is None or not isinstance(params, dict):
            return
        info, level = self._era_info, self._opts["log_level"]
        if info is not None and info.era == "legacy" and level is not None and \
                params.get("level") in protocol.LOG_LEVELS and \
                protocol.LOG_LEVELS.index(params["level"]) < protocol.LOG_LEVELS.index(level):
            return  # legacy servers log at every level unasked (S7): filter here
        try:
            hook(params)
        except Exception as exc:
            self._warn(f"on_log raised {exc!r}")

    def _on_server_request(self, message: dict[str, Any]) -> None:
        with self._state_lock:
            if self._state == "closed":
                return
            if self._workers is None:
                from concurrent.futures import ThreadPoolExecutor
                self._workers = ThreadPoolExecutor(
                    4, thread_name_prefix=f"mcp-client-hooks-{os.getpid()}")
            self._workers.submit(self._answer_server_request, message)

    def _answer_server_request(self, message: dict[str, Any]) -> None:
        """A legacy server's request, answered on a worker thread (S6)."""
        reply = self._inputs.answer_request(message)
        try:
            self._transport.send(reply)
        except MCPClientError as exc:
            self._warn(f"could not answer the server's {message['method']} request: {exc}")

    def _on_request_error(self, ident: Any, exc: MCPClientError) -> None:
        if not self._correlator.fail(ident, exc):
            self._warn(f"dropped a failure of request {ident!r} nobody awaits: {exc}")

    def _on_transport_close(self, exc: MCPClientError) -> None:
        self._dead = exc
        self._correlator.fail_all(exc)
