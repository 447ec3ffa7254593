"""The multi round-trip loop (PROTOCOL §6), and the caller's cancel signal.

A 2026-07-28 ``tools/call``, ``resources/read`` or ``prompts/get`` answered
with ``resultType: "input_required"`` is retried under a fresh id with the
hooks' ``inputResponses`` and the server's ``requestState`` until it
completes, or :class:`~mcp_client.exceptions.InputLoopExceeded` after
``max_input_rounds``; a round with only state is retried after a backoff.  The
blocking calls and the pipelined ones (:mod:`mcp_client.client._flights`) share this
loop; it lives in a mixin so the client module keeps to the connection.
"""

from __future__ import annotations

import sys
import threading

from ..exceptions import Cancelled, InputLoopExceeded, MCPClientError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Mapping

    from .. import protocol
    from ._era import EraInfo
    from ._inputs import Inputs
    from ._progress import Ticket

__all__ = ["Rounds", "check_cancel_signal", "is_future"]

#: The wait before retrying a state-only ``input_required`` round: first, cap (PROTOCOL §6.2).
_STATE_BACKOFF = (0.05, 0.25)


def is_future(value: Any) -> bool:
    futures = sys.modules.get("concurrent.futures")   # no Future exists before it is imported
    return futures is not None and isinstance(value, futures.Future)


def check_cancel_signal(signal: Any) -> None:
    if signal is not None and not isinstance(signal, threading.Event) and not is_future(signal):
        raise MCPClientError("cancelled must be a threading.Event or a concurrent.futures.Future,"
                             f" not {type(signal).__name__}")


class Rounds:
    """Mixin: the ``input_required`` loop of :class:`~mcp_client.Client`."""

    # Provided by the class this is mixed into.
    _opts: dict[str, Any]
    _inputs: Inputs
    _round_trip: Callable[..., protocol.Shaped]

    def _more_rounds(self, info: EraInfo, method: str, params: Mapping[str, Any],
                     meta: dict[str, Any] | None, budget: float | None, cancelled: Any,
                     ticket: Ticket | None, headers: Mapping[str, str] | None,
                     shaped: protocol.Shaped) -> protocol.Shaped:
        """Complete a multi round-trip request through the hooks (PROTOCOL §6)."""
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
            else:  # load shedding: only state came back (PROTOCOL §6.2)
                self._pause(backoff, cancelled, method)
                backoff = min(backoff * 2, _STATE_BACKOFF[1])
            if shaped.request_state is not None:
                retry["requestState"] = shaped.request_state
            shaped = self._round_trip(info, method, retry, meta, budget, cancelled, ticket,
                                      headers)
        return shaped

    @staticmethod
    def _pause(seconds: float, cancelled: Any, method: str) -> None:
        if isinstance(cancelled, threading.Event):
            stopped = cancelled.wait(seconds)
        elif is_future(cancelled):
            try:
                cancelled.result(seconds)
            except BaseException:   # a timeout, or the future's own failure: both mean "look"
                pass
            stopped = cancelled.done()
        else:
            stopped = threading.Event().wait(seconds)
        if stopped:
            raise Cancelled(method)
