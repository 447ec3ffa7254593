"""``restart="on-failure"``: when a stdio server that died may be started again, and how.

:class:`Revival` keeps the policy -- how many restarts a window allows, the
backoff before each, who is told -- and runs one restart of the transport.
The connection decides *when* (the next call after the wire died, never the
calls that were in flight: a tool call may have run, so those fail with
:class:`~mcp_client.exceptions.ServerGone` and are never retried) and makes
the state change itself (dead -> open, see :mod:`._connection`).
"""

from __future__ import annotations

import threading
import time

from .._log import get_logger
from ..exceptions import MCPClientError, ServerGone

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Mapping

    from ..transport import Transport

__all__ = ["Revival", "RESTART_WINDOW", "RESTART_BACKOFF"]

log = get_logger(__name__)

#: Restarts count against ``max_restarts`` for this many seconds.
RESTART_WINDOW = 60.0
#: How a death past the restart budget ends its message.
_STAYS_DEAD = " stays dead"
#: The wait before a restart: none for the first in the window, then first, doubling to cap.
RESTART_BACKOFF = (0.1, 2.0)


class Revival:
    """The restart policy of one connection (see the module).

    Args:
        opts: the client's checked options (``restart``, ``max_restarts``,
            ``on_restart``).
        warn: where warnings go (the client's ``on_warn``).
    """

    def __init__(self, opts: Mapping[str, Any], warn: Callable[[str], None]) -> None:
        self._enabled = opts["restart"] == "on-failure"
        self._limit: int = opts["max_restarts"]
        self._hook: Callable[[dict[str, Any]], None] | None = opts["on_restart"]
        self._warn = warn
        self._times: list[float] = []      # when each restart in the window began
        self._stop = threading.Event()    # set by close(): a backoff ends at once
        self.lock = threading.Lock()      # one restart at a time
        self.restarts = 0                 # restarts over the connection's life
        self._told: MCPClientError | None = None   # the death give_up warned of

    def __repr__(self) -> str:
        return f"<Revival {'on-failure' if self._enabled else 'never'} {self.restarts}>"

    def revive(self, transport: Transport, dead: Callable[[], MCPClientError | None],
               reopened: Callable[[], None],
               spent: Callable[[MCPClientError], None] | None = None) -> None:
        """Restart a dead ``transport`` if the policy allows, then call ``reopened``.

        ``dead`` tells why the connection is dead (None: it is not, or no
        longer); one restart runs at a time, and a caller that waited for
        another's finds the connection open again and does nothing.  Once the
        restarts ran out, ``spent`` is given what the connection should raise
        from now on: the death, saying that it stays dead.
        """
        if not self.wanted(transport):
            return
        with self.lock:
            why = dead()
            if why is None or not self.wanted(transport):
                return
            if self.exhausted():
                self.give_up(why)
                if spent is not None:
                    spent(self.stays_dead(why))
            elif self.run(transport, why):
                reopened()

    def wanted(self, transport: Transport) -> bool:
        """Whether a dead ``transport`` should be started again now."""
        return self._enabled and not self._stop.is_set() and transport.can_restart

    def exhausted(self) -> bool:
        """Whether ``max_restarts`` restarts already began within the window."""
        now = time.monotonic()
        self._times = [t for t in self._times if now - t < RESTART_WINDOW]
        return len(self._times) >= self._limit

    def run(self, transport: Transport, why: MCPClientError) -> bool:
        """Back off, then restart ``transport``; False if it could not be (warned).

        The caller holds :attr:`lock` and checked :meth:`wanted` and
        :meth:`exhausted` (as :meth:`revive` does).
        """
        recent = len(self._times)
        if recent:
            delay = min(RESTART_BACKOFF[0] * 2 ** (recent - 1), RESTART_BACKOFF[1])
            if self._stop.wait(delay):
                return False
        self._times.append(time.monotonic())
        self.restarts += 1
        attempt = len(self._times)
        self._warn(f"the server died ({why}); restarting it "
                   f"(restart {attempt} of {self._limit} within {RESTART_WINDOW:g}s)")
        try:
            transport.restart()
        except MCPClientError as exc:
            self._warn(f"the server could not be started again: {exc}")
            return False
        self._tell({"attempt": attempt, "restarts": self.restarts, "reason": str(why),
                    "exit_code": getattr(why, "exit_code", None),
                    "pid": getattr(transport, "pid", None)})
        return True

    def give_up(self, why: MCPClientError) -> None:
        """Warn, once per death, that the restarts ran out."""
        if why is self._told:
            return
        self._told = why
        self._warn(f"the server died ({why}) and was restarted {self._limit} times within "
                   f"{RESTART_WINDOW:g}s; it stays dead")

    def stays_dead(self, why: MCPClientError) -> MCPClientError:
        """``why``, saying that the restart budget is spent (a ServerGone stays one)."""
        if not isinstance(why, ServerGone) or (why.detail or "").endswith(_STAYS_DEAD):
            return why
        said = (f"{why.detail or 'the server went away'}; restarted {len(self._times)} "
                f"times within {RESTART_WINDOW:g}s (max_restarts={self._limit}), it"
                f"{_STAYS_DEAD}")
        return ServerGone(why.exit_code, why.stderr_tail, said)

    def stop(self) -> None:
        """Start nothing more (the connection is closing); a backoff under way ends now."""
        self._stop.set()

    def _tell(self, info: dict[str, Any]) -> None:
        if self._hook is None:
            return
        try:
            self._hook(info)
        except Exception as exc:   # the host's hook must not break the call that revived
            self._warn(f"on_restart raised {exc!r}")
