"""``watch=True``: one ``subscriptions/listen`` request kept open on a modern server.

On a 2026-07-28 server ``list_changed`` and ``resources/updated`` arrive only
on a listen stream (2026-07-28 ``subscriptions/listen``).  :class:`Watch` keeps one open, on a
thread of its own, for what the server's capabilities offer; it reopens it
after a bounded, logged backoff when it ends or the wire drops (what was
missed meanwhile is unknowable, so every cached list is dropped), and cancels
it on ``close()`` (stdio: ``notifications/cancelled``; HTTP: the stream is
closed).  A legacy session carries these notifications unasked: nothing is
opened there.  Whatever the era, :meth:`Watch.seen` tells the
``on_list_changed`` hook; the cache eviction itself is the connection's.
"""

from __future__ import annotations

import os
import threading
import time

from .. import protocol
from .._log import get_logger
from ..exceptions import MCPClientError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Mapping

    from ..correlator import Pending
    from ._hosts import WatchHost
    from ._era import EraInfo

__all__ = ["Watch", "LISTEN", "LISTEN_BACKOFF", "LISTS"]

log = get_logger(__name__)

LISTEN = "subscriptions/listen"
#: The wait before reopening: first, doubling to cap; reset once a listen stayed up a minute.
LISTEN_BACKOFF = (0.1, 5.0)
#: Reopening gives up after this many listens in a row that ended unacknowledged.
MAX_FAILURES = 8
#: The cached lists every listen that ended may have missed a change to.
LISTS = ("tools/list", "prompts/list", "resources/list", "resources/templates/list")
#: capability -> the listen filter's key for its ``listChanged``.
_FILTER = {"tools": "toolsListChanged", "prompts": "promptsListChanged",
           "resources": "resourcesListChanged"}
_REISSUE = "reissued with new filters"
_KINDS = {"notifications/tools/list_changed": "tools",
          "notifications/prompts/list_changed": "prompts",
          "notifications/resources/list_changed": "resources"}


class Watch:
    """The listen request of one connection (see the module).

    Args:
        connection: the connection it sends on.
        opts: the client's checked options (``watch``, ``on_list_changed``).
        evict: drops the cached lists (called when a listen ended).
        warn: where warnings go.
    """

    def __init__(self, connection: WatchHost, opts: Mapping[str, Any],
                 evict: Callable[[], object], warn: Callable[[str], None]) -> None:
        self._connection = connection
        self._enabled = bool(opts["watch"])
        self._hook: Callable[[str], None] | None = opts["on_list_changed"]
        self._evict = evict
        self._warn = warn
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._wake = threading.Event()
        # The thread is between listens and waits on _wake for a call to say something
        # changed (set before it looks, so a call cannot slip between look and wait); a
        # call wakes it only then, and not for the same era info it has already looked at.
        self._idle = False
        self._idle_on: EraInfo | None = None
        self._thread: threading.Thread | None = None
        self._pending: Pending | None = None
        self._ended: threading.Event | None = None
        self.honoured: dict[str, Any] | None = None   # the last acknowledgment's filter
        self._uris: list[str] = []         # resource subscriptions, in the order made
        self._reissue = threading.Event()  # the listen ends to be sent again with new filters

    def __repr__(self) -> str:
        return f"<Watch {'on' if self._enabled else 'off'} honoured={self.honoured}>"

    def ensure(self, info: EraInfo) -> None:
        """Start watching once the era is known to be modern; wake a watch waiting for it."""
        if self._thread is not None:   # every request passes here: wake only an idle thread
            if self._idle and info is not self._idle_on:
                self._wake.set()
            return
        if not (self._enabled or self._uris) or info.era != "modern" or self._stop.is_set():
            return
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, daemon=True,
                                                name=f"mcp-client-watch-{os.getpid()}")
                self._thread.start()

    def subscribe(self, uri: str, on: bool, timeout: float | None) -> None:
        """Subscribe to ``uri``'s updates (``on``), or end that subscription.

        Legacy: ``resources/subscribe`` / ``resources/unsubscribe`` on the
        session.  Modern: the listen's ``resourceSubscriptions``, reissued now.

        Raises:
            MCPClientError: a bad URI, or a server that does not declare
                ``resources.subscribe``; the errors of a request.
        """
        if not isinstance(uri, str) or not uri:
            raise MCPClientError(f"a resource URI must be a non-empty string, not {uri!r}")
        connection = self._connection
        info = connection.ensure_era(connection.budget(timeout))
        resources = connection.discovered().capabilities.get("resources")
        if not isinstance(resources, dict) or resources.get("subscribe") is not True:
            raise MCPClientError("the server does not declare resources.subscribe: "
                                 f"cannot {'subscribe to' if on else 'unsubscribe from'} {uri}")
        if info.era != "modern":
            method = "resources/subscribe" if on else "resources/unsubscribe"
            connection.request(method, {"uri": uri}, timeout=timeout, cancelled=None)
        with self._lock:
            known = uri in self._uris
            if on and not known:
                self._uris.append(uri)
            elif not on and known:
                self._uris.remove(uri)
            else:
                return
        if info.era == "modern":
            self._reissue.set()
            self._end_listen()
            self._wake.set()   # the filter changed: an idle thread looks again
            self.ensure(info)

    @property
    def subscriptions(self) -> list[str]:
        """The resource URIs subscribed to."""
        return list(self._uris)

    def seen(self, method: str, params: Any) -> None:
        """An inbound notification (reader thread): the acknowledgment, or a list change."""
        if method == "notifications/subscriptions/acknowledged":
            honoured = params.get("notifications") if isinstance(params, dict) else None
            self.honoured = dict(honoured) if isinstance(honoured, dict) else {}
            log.debug("subscriptions/listen acknowledged: %s", self.honoured)
            return
        kind = _KINDS.get(method)
        if kind is None or self._hook is None:
            return
        try:
            self._hook(kind)
        except Exception as exc:   # the host's hook must not break the reader
            self._warn(f"on_list_changed raised {exc!r}")

    def stop(self) -> None:
        """Cancel the open listen and reopen none (the connection is closing)."""
        self._stop.set()
        self._wake.set()
        self._end_listen()

    def _end_listen(self) -> None:
        """Give up the open listen: the server is told, and the thread moves on."""
        pending, ended = self._pending, self._ended
        if ended is not None:
            ended.set()
        if pending is not None and self._connection.abandon(pending):
            try:
                self._connection.cancel(pending.ident, "the client is closing")
            except MCPClientError as exc:
                log.debug("could not cancel the listen: %s", exc)

    def join(self, timeout: float = 5.0) -> None:
        """Wait for the watch thread (after :meth:`stop`)."""
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)

    # -- the thread ------------------------------------------------------------------------

    def _run(self) -> None:
        delay, failures = LISTEN_BACKOFF[0], 0
        while True:
            self._idle_on, self._idle = None, True
            self._wake.clear()
            if self._stop.is_set():
                return
            connection = self._connection
            info = connection.era_info
            if info is None or info.era != "modern" or connection.state != "open":
                if info is not None and connection.state == "open":
                    self._idle_on = info   # a legacy session: only a new negotiation can change it
                self._wake.wait()   # the next call (after a restart) negotiates, then wakes us
                continue
            self._reissue.clear()   # the filter is read now: a reissue asked before is done
            looked = connection.discovered()
            wanted = self._filter(looked)
            if not wanted:   # nothing offered, or nothing subscribed yet
                self._idle_on = looked   # a call on the info looked at has nothing new to say
                self._wake.wait()
                continue
            self._idle = False
            started = time.monotonic()
            why = self._listen(info, wanted)
            if why is None or self._stop.is_set():
                return
            if why is _REISSUE:
                self._reissue.clear()
                continue
            self._evict()   # a change may have come and gone while nobody listened
            if time.monotonic() - started > 60:
                delay, failures = LISTEN_BACKOFF[0], 0
            failures = 0 if self.honoured is not None else failures + 1
            if failures >= MAX_FAILURES:
                self._warn(f"subscriptions/listen failed {failures} times in a row ({why}); "
                           "not reopening it before the next call")
                self._idle_on, self._idle = None, True
                self._wake.clear()
                if not self._stop.is_set():
                    self._wake.wait()
                failures = 0
                continue
            self._warn(f"subscriptions/listen ended ({why}); reopening it in {delay:g}s")
            if self._stop.wait(delay):
                return
            delay = min(delay * 2, LISTEN_BACKOFF[1])

    def _listen(self, info: EraInfo, wanted: dict[str, Any]) -> str | None:
        """Keep one listen open until it ends; why it ended, or None to stop watching."""
        connection = self._connection
        ended = threading.Event()
        self.honoured = None
        try:
            pending = connection.register(LISTEN, lambda _: ended.set(), standing=True)
        except MCPClientError as exc:
            return str(exc)
        self._pending, self._ended = pending, ended
        if self._stop.is_set():   # stop() ran before this listen was known to it
            self.stop()
        try:
            connection.writer.post(pending, {"notifications": wanted}, connection.meta(info, None))
        except MCPClientError as exc:
            return str(exc)
        ended.wait()
        self._pending = self._ended = None
        if self._stop.is_set():
            return None
        if self._reissue.is_set():
            return _REISSUE
        if not pending.done():
            return None
        try:
            answer = pending.result()
        except MCPClientError as exc:
            return str(exc)
        if "error" in answer:
            error = protocol.error_from(answer, LISTEN)
            if error.code == protocol.METHOD_NOT_FOUND:
                self._warn(f"the server does not serve {LISTEN} ({error}); not watching it")
                return None
            return str(error)
        return "the server ended it"

    def _filter(self, info: EraInfo) -> dict[str, Any]:
        """What to listen for: the ``listChanged`` the capabilities offer (``watch``), and
        the resource subscriptions."""
        caps = info.capabilities
        wanted: dict[str, Any] = {}
        for capability, key in _FILTER.items():
            offered = caps.get(capability)
            if self._enabled and isinstance(offered, dict) and offered.get("listChanged") is True:
                wanted[key] = True
        if self._uris:
            wanted["resourceSubscriptions"] = list(self._uris)
        return wanted
