"""A request's time budget: the arithmetic of its deadlines, and nothing else.

Pure functions over ``time.monotonic()`` instants (no clock is read here):
the connection's blocking requests and the pipelined calls of
:mod:`._flights` both keep their timeouts with them, so that the two agree on
what ``request_timeout``, ``max_total_timeout`` and
``reset_timeout_on_progress`` mean.
"""

from __future__ import annotations

import threading

from ..exceptions import MCPClientError

__all__ = ["checked_budget", "hard_deadline", "stretched"]


def checked_budget(timeout: float) -> float | None:
    """``timeout`` as a budget in seconds; None for none (0, or more than a thread can wait).

    Raises:
        MCPClientError: ``timeout`` is not a number >= 0.
    """
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or \
            timeout != timeout or timeout < 0:
        raise MCPClientError(f"timeout must be a number >= 0, not {timeout!r}")
    if timeout > threading.TIMEOUT_MAX:   # float("inf") included: no budget at all
        return None
    return float(timeout) or None


def hard_deadline(start: float, cap: float | None) -> float | None:
    """The ``max_total_timeout`` (``cap``) instant of a request started at ``start``."""
    return None if cap is None else start + cap


def stretched(last_report: float, timeout: float | None, hard: float | None,
              now: float) -> float | None:
    """The deadline progress reported at ``last_report`` (0: none yet) stretches a request to.

    None -- the request has timed out -- without a budget, without a report,
    or when the stretched deadline (capped by ``hard``) has passed by ``now``.
    """
    if timeout is None or not last_report:
        return None
    deadline = last_report + timeout
    if hard is not None:
        deadline = min(deadline, hard)
    return deadline if deadline > now else None
