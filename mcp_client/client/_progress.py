"""Progress tokens: minted per call, joined back to the call that owns them.

Progress is opt-in from the client's end: a request carries
``_meta.progressToken`` and the server reports under it with
``notifications/progress`` (the same in both eras; basic/utilities/progress).  The
notification names no request, so the token is the only join key.  This
module mints tokens -- never the JSON-RPC id, never reused -- remembers which
call each one belongs to while the call is running, and forgets it the moment
the call answers: a late report, or one quoting a token nobody here minted,
is dropped rather than attributed to the wrong call.

It also timestamps each report, which is what lets
``reset_timeout_on_progress`` keep a long call alive.
"""

from __future__ import annotations

import itertools
import os
import threading
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

__all__ = ["ProgressBook", "Ticket"]


class Ticket:
    """One call's progress token and what is known about its reports."""

    __slots__ = ("token", "tool_call_id", "last_report", "notify")

    def __init__(self, token: str | int, tool_call_id: str | None, notify: bool) -> None:
        self.token = token
        self.tool_call_id = tool_call_id
        self.last_report = 0.0   # time.monotonic() of the latest report, 0 if none
        self.notify = notify     # hand reports to on_progress


class ProgressBook:
    """The live progress tokens of one client.

    Args:
        on_progress: told ``{tool_call_id, progress, total?, message?}`` for
            reports on tokens this book minted for it.
        on_warn: told when ``on_progress`` raises.
    """

    def __init__(self, on_progress: Callable[[dict[str, Any]], Any] | None,
                 on_warn: Callable[[str], None]) -> None:
        self._on_progress = on_progress
        self._warn = on_warn
        self._lock = threading.Lock()
        self._live: dict[str | int, Ticket] = {}
        self._counter = itertools.count(1)
        self._prefix = f"mcp-client-{os.getpid()}-{id(self):x}"

    def open(self, token: str | int | None, tool_call_id: str | None) -> Ticket | None:
        """Start tracking a call.

        Args:
            token: the caller's own token, or None to mint one when
                ``on_progress`` is set (and to track nothing otherwise).
            tool_call_id: the model's id for the call, when it came through the bridge.
        """
        if token is None:
            if self._on_progress is None:
                return None
            ticket = Ticket(f"{self._prefix}-{next(self._counter)}", tool_call_id, True)
        else:
            ticket = Ticket(token, tool_call_id, False)
        with self._lock:
            self._live[ticket.token] = ticket
        return ticket

    def close(self, ticket: Ticket | None) -> None:
        """Forget a call's token: later reports on it are dropped."""
        if ticket is not None:
            with self._lock:
                if self._live.get(ticket.token) is ticket:
                    del self._live[ticket.token]

    def report(self, params: Any) -> None:
        """Handle one ``notifications/progress`` (on the reader thread)."""
        if not isinstance(params, dict):
            return
        token = params.get("progressToken")
        if not isinstance(token, (str, int)) or isinstance(token, bool):
            return
        with self._lock:
            ticket = self._live.get(token)
        if ticket is None:
            return  # late, or not ours: never attributed to the wrong call
        ticket.last_report = time.monotonic()
        if not ticket.notify or self._on_progress is None:
            return
        payload: dict[str, Any] = {"tool_call_id": ticket.tool_call_id,
                                   "progress": params.get("progress")}
        for key in ("total", "message"):
            if key in params:
                payload[key] = params[key]
        try:
            self._on_progress(payload)
        except Exception as exc:
            self._warn(f"on_progress raised {exc!r}")
