"""The caller's cancel signal: the ``cancelled=`` argument of every blocking method.

A signal is a :class:`threading.Event` (set to cancel) or a
:class:`concurrent.futures.Future` (done to cancel: a cancelled call of an
outer batch, for instance).  Waits that honour one look at it every
:data:`CANCEL_POLL` seconds, because neither kind can wake a second waiter.
"""

from __future__ import annotations

import sys
import threading

from ..exceptions import Cancelled, MCPClientError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["CANCEL_POLL", "check_cancel_signal", "fired", "is_future", "pause"]

#: How often a wait with ``cancelled=`` looks at it, in seconds.
CANCEL_POLL = 0.02


def is_future(value: Any) -> bool:
    """Whether ``value`` is a Future (without importing concurrent.futures: it is not free)."""
    futures = sys.modules.get("concurrent.futures")   # no Future exists before it is imported
    return futures is not None and isinstance(value, futures.Future)


def check_cancel_signal(signal: Any) -> None:
    """Raise :class:`MCPClientError` unless ``signal`` is None, an Event or a Future."""
    if signal is not None and not isinstance(signal, threading.Event) and not is_future(signal):
        raise MCPClientError("cancelled must be a threading.Event or a concurrent.futures.Future,"
                             f" not {type(signal).__name__}")


def fired(signal: Any) -> bool:
    """Whether a ``cancelled=`` signal (an Event or a Future) has fired."""
    return bool(signal.is_set()) if isinstance(signal, threading.Event) else bool(signal.done())


def pause(seconds: float, cancelled: Any, method: str) -> None:
    """Wait ``seconds``; :class:`Cancelled` (naming ``method``) if ``cancelled`` fires first."""
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
