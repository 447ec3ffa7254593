"""A small subscribable stream of items, each seen by every current subscriber.

:attr:`Client.notifications <mcp_client.Client.notifications>` is one.  A
subscriber sees every item published after it subscribed, on the publishing
thread (for notifications: the transport's reader thread), so a callback should
be a leaf -- hand the item to a queue and return.  A callback that raises is
reported through ``on_warn`` and stays subscribed; it never breaks the
publisher.  :meth:`Stream.finish` tells every ``on_done`` listener, once.
"""

from __future__ import annotations

import threading

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

    from ..types import Notification

__all__ = ["Stream", "Subscription"]


class Subscription:
    """A handle on one subscriber; :meth:`unsubscribe` ends it."""

    __slots__ = ("_stream", "callback", "on_done", "active")

    def __init__(self, stream: Stream, callback: Callable[[Notification], object],
                 on_done: Callable[[], Any] | None) -> None:
        self._stream = stream
        self.callback = callback
        self.on_done = on_done
        self.active = True

    def unsubscribe(self) -> None:
        """Stop receiving items (idempotent)."""
        self._stream._remove(self)


class Stream:
    """Fan-out of items to subscribers.

    Args:
        on_warn: told when a subscriber raises.
    """

    def __init__(self, *, on_warn: Callable[[str], None] | None = None) -> None:
        self._lock = threading.Lock()
        self._subscribers: tuple[Subscription, ...] = ()
        self._done = False
        self._on_warn = on_warn

    @property
    def done(self) -> bool:
        """True once :meth:`finish` was called."""
        return self._done

    def __repr__(self) -> str:
        state = "done" if self._done else "live"
        return f"<Stream {state} subscribers={len(self._subscribers)}>"

    def subscribe(self, callback: Callable[[Notification], object], *,
                  on_done: Callable[[], Any] | None = None) -> Subscription:
        """Call ``callback(item)`` for every item published from now on.

        Args:
            callback: the subscriber, given each item (a notification:
                :class:`mcp_client.types.Notification`).
            on_done: called once when the stream finishes (at once if it has).
        """
        subscription = Subscription(self, callback, on_done)
        with self._lock:
            finished = self._done
            if not finished:
                self._subscribers += (subscription,)
        if finished:
            subscription.active = False
            self._call(on_done)
        return subscription

    def publish(self, item: Any) -> None:
        """Hand ``item`` to every current subscriber, on this thread."""
        for subscription in self._subscribers:  # an immutable snapshot
            try:
                subscription.callback(item)
            except Exception as exc:
                self._warn(f"a notification subscriber raised {exc!r}")

    def finish(self) -> None:
        """End the stream: tell every ``on_done`` listener and drop subscribers."""
        with self._lock:
            if self._done:
                return
            self._done = True
            subscribers, self._subscribers = self._subscribers, ()
        for subscription in subscribers:
            subscription.active = False
            self._call(subscription.on_done)

    def _remove(self, subscription: Subscription) -> None:
        with self._lock:
            subscription.active = False
            self._subscribers = tuple(s for s in self._subscribers if s is not subscription)

    def _call(self, hook: Callable[[], Any] | None) -> None:
        if hook is None:
            return
        try:
            hook()
        except Exception as exc:
            self._warn(f"an on_done listener raised {exc!r}")

    def _warn(self, text: str) -> None:
        if self._on_warn is not None:
            try:
                self._on_warn(text)
            except Exception:
                pass
