"""The caller's cancel signal: the ``cancelled=`` argument of every blocking method.

A signal is a :class:`threading.Event` (set to cancel) or a
:class:`concurrent.futures.Future` (done to cancel: a cancelled call of an
outer batch, for instance).  Waits that honour one look at it every
:data:`CANCEL_POLL` seconds, because neither kind can wake a second waiter.

A :class:`CallStop` is the bridge's signal for one model's call
(``cancel_tool_calls``): no wait polls it; each request sent for the call is
attached to it while in flight, and setting it gives those requests up at once.
"""

from __future__ import annotations

import sys
import threading

from ..exceptions import Cancelled, MCPClientError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Iterable

    from ..correlator import Pending

__all__ = ["CANCEL_POLL", "STOP_LEAD", "CallStop", "cancel_all", "check_cancel_signal", "fired",
           "is_future", "pause"]

#: How often a wait with ``cancelled=`` looks at it, in seconds.
CANCEL_POLL = 0.02
#: How long a thread whose request a :class:`CallStop` may give up reads a line
#: wire (stdio) before it waits as a follower: a cancel from another thread
#: completes the request's cell but cannot wake a read of the pipe.
STOP_LEAD = 0.05


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


class CallStop(threading.Event):
    """The cancel signal of one call of a bridge batch, set by ``cancel_tool_calls``.

    It is an Event, so it can go wherever ``cancelled=`` goes, but a request
    given one does not poll it: the request's cell is attached while it is in
    flight (:meth:`attach`), and :meth:`cancel` gives each attached request up
    (``give_up(pending)``: its cell fails with :class:`Cancelled` and the server
    is told; False if the answer won), waking whoever waits on it.  A request
    attached after the stop was set is given up at once.  Once the call has its
    outcome (:meth:`finish`) there is nothing left to cancel.
    """

    def __init__(self) -> None:
        super().__init__()
        self._lock = threading.Lock()
        self._attached: dict[Pending, Callable[[Pending], bool]] = {}
        self._finished = False

    def attach(self, pending: Pending, give_up: Callable[[Pending], bool]) -> None:
        """Tie ``pending`` (a request sent for the call) to this stop until :meth:`detach`."""
        with self._lock:
            if not self.is_set():
                self._attached[pending] = give_up
                return
        give_up(pending)

    def detach(self, pending: Pending) -> None:
        """``pending`` is no longer in flight (it was answered, or given up)."""
        with self._lock:
            self._attached.pop(pending, None)

    def finish(self) -> None:
        """The call has its outcome: a later :meth:`cancel` cancels nothing."""
        with self._lock:
            self._finished = True
            self._attached.clear()

    def cancel(self) -> bool:
        """Set the stop and give up every request attached (:func:`cancel_all` of one).

        Returns:
            Whether this cancelled the call: False when it was cancelled or
            finished already, or every request attached had its answer.
        """
        return cancel_all([self]) == 1

    def _take(self) -> dict[Pending, Callable[[Pending], bool]] | None:
        """Set the stop; the requests to give up (None: cancelled or finished already)."""
        with self._lock:
            if self.is_set() or self._finished:
                return None
            self.set()
            attached, self._attached = self._attached, {}
        return attached


def cancel_all(stops: Iterable[CallStop]) -> int:
    """Cancel calls: every stop is set first -- so that no call of a batch starts
    while another's request is given up -- then their requests are given up.

    Returns:
        How many calls this cancelled (see :meth:`CallStop.cancel`).
    """
    count = 0
    for attached in [stop._take() for stop in stops]:
        if attached is not None:
            gave_up = [give_up(pending) for pending, give_up in attached.items()]
            # none attached: not sent yet, or between round trips
            count += not gave_up or any(gave_up)
    return count
