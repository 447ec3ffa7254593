"""The role a wire implements, and the contract it signs up to.

A transport moves JSON-RPC messages (already-parsed ``dict`` objects) between
the client and one server.  It knows nothing about eras, ids or results: the
:class:`~mcp_client.Client` owns those.  The contract:

* :meth:`Transport.start` is called once, by the client, before anything is
  sent.  From then on the transport calls ``on_message(message)`` for every
  inbound JSON object, **on a thread the transport owns**: a stream transport's
  one reader thread, in the order the server sent them; over HTTP, one worker
  per request, concurrently, in order within each response.  A wire that
  implements :meth:`Transport.lead` may also call it on a caller's thread
  inside ``lead()``, still one reader at a time and in order.  A callback must
  not block for long: everything behind it on the wire waits.  Input that is not a JSON object is
  reported through ``on_warn`` and skipped, never delivered.
* When one request fails on the wire without a JSON-RPC answer (an HTTP
  status with no JSON-RPC body, a stream that ended early), the transport calls
  ``on_error(ident, exc)`` with that request's id and a
  :class:`~mcp_client.exceptions.TransportError` (or :class:`Timeout`); the
  client fails that request alone.  Stream transports never need it.
* When the wire dies on its own (the child exited, the stream broke), the
  transport calls ``on_close(exc)`` exactly once, with a
  :class:`~mcp_client.exceptions.ServerGone` that says why, after the last
  ``on_message``.  It is never called for a :meth:`Transport.close` the client asked for.
* :meth:`Transport.send` may be called from any thread, concurrently; messages are never
  interleaved on the wire.  It raises :class:`ServerGone` or
  :class:`TransportClosed` when the message cannot be written.  ``headers`` is
  per-message wire metadata that a transport may use (HTTP does; stdio ignores
  it).
* :meth:`Transport.cancel` tells the server a request was abandoned, in whatever way the
  wire defines (stdio: a ``notifications/cancelled``; HTTP: closing that
  request's response stream).  It never raises.
* :meth:`Transport.close` is idempotent, may be called from any thread (never from the
  reader thread's callbacks), releases every resource and joins every thread
  the transport started.
* :meth:`Transport.restart` (optional, see :attr:`Transport.can_restart`) brings a dead wire back:
  the client uses it when a stdio server exits during the era probe.

Capabilities and the fast path.  A wire says what it can do in five class
flags; the client reads them, never the wire's type, and every promise a
flag makes is part of this contract (and of
:func:`~mcp_client.testing.check_transport`):

* :attr:`~Transport.supports_handshake` -- the 2025-11-25 handshake era can
  be spoken over this wire.
* :attr:`~Transport.cancel_is_hangup` -- :meth:`~Transport.cancel` is a hang-up that
  costs the server nothing (HTTP), so even an abandoned probe may use it.
* :attr:`~Transport.wants_tool_headers` -- ``tools/call`` wants its
  ``x-mcp-header`` values as :meth:`~Transport.send`'s ``headers``; the value may change
  once the era is known (HTTP: False after an ``initialize``).
* :attr:`~Transport.pipelines` -- :meth:`~Transport.send` never waits on the peer: it
  returns while nothing reads the answers (stdio: an outbox takes what the
  pipe does not), so the client may send a call from the caller's thread and
  finish it on the thread that delivers its answer.
* :attr:`~Transport.line_wire` -- :meth:`~Transport.send_line` takes messages already
  encoded: ``data`` is one or more lines of JSON, each one JSON-RPC message
  ending in ``\\n``, and each reaches the server as the very message
  :meth:`~Transport.send` would have sent (same order, nothing dropped or merged).
  Without the flag :meth:`~Transport.send_line` raises ``NotImplementedError``.

The methods of the fast path, which every wire has (the base gives defaults):

* :meth:`~Transport.send_line` -- see :attr:`~Transport.line_wire`.
* :meth:`~Transport.send_led` and :meth:`~Transport.lead` -- a caller about to wait for an answer
  sends its request with :meth:`~Transport.send_led` and then, **on the same thread and
  before it sends anything else**, calls :meth:`~Transport.lead`; a wire may leave the
  request for :meth:`~Transport.lead` to write and read on that thread (HTTP) or read
  the wire there while no reader thread does (stdio).  :meth:`~Transport.lead` calls
  ``first`` exactly once, returns what is left of its ``timeout`` (None for
  None; 0.0 when it ran out) and never loses an answer: one it does not
  deliver itself is delivered by the transport's own threads.  The defaults
  are :meth:`~Transport.send` and a :meth:`~Transport.lead` that reads nothing.

And two optional members a wire may define (the client looks them up):

* ``sse_fallback()`` -- an unstarted transport of the 2024-11-05 HTTP+SSE
  kind for the same server, which the client swaps in when ``initialize`` is
  refused over Streamable HTTP (the base's is None: no fallback).
* :attr:`~Transport.session_id` -- the wire's session id (HTTP's
  ``Mcp-Session-Id`` of the 2025-11-25 era), a ``str`` or None.
"""

from __future__ import annotations

import abc

from .exceptions import MCPClientError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Mapping
    MessageCallback = Callable[[dict[str, Any]], None]
    ErrorCallback = Callable[[Any, MCPClientError], None]
    CloseCallback = Callable[[MCPClientError], None]
    WarnCallback = Callable[[str], None]
else:   # names for importers' annotations; ``typing`` is not imported at run time
    MessageCallback = ErrorCallback = CloseCallback = WarnCallback = object

__all__ = ["Transport", "MessageCallback", "CloseCallback", "WarnCallback", "ErrorCallback"]


class Transport(abc.ABC):
    """Abstract base of every wire (stdio, Streamable HTTP, test doubles).

    The contract, the capability flags and the fast path are the module's
    (:mod:`mcp_client.transport`); :func:`mcp_client.testing.check_transport`
    asserts them.
    """

    #: Whether the 2025-11-25 handshake era can be spoken over this wire
    #: (stdio and HTTP: yes; a wire of one's own may say no).
    supports_handshake: bool = True
    #: Whether :meth:`cancel` is a hang-up that costs the server nothing to
    #: receive (HTTP), so even an abandoned probe may use it.
    cancel_is_hangup: bool = False
    #: Whether ``tools/call`` wants ``x-mcp-header`` values as ``headers``
    #: (2026-07-28 Streamable HTTP, x-mcp-header).
    wants_tool_headers: bool = False
    #: Whether :meth:`send` returns without waiting on the peer, even while
    #: nothing reads its answers (stdio's outbox), so a call may be sent from
    #: the caller's thread and finished on the reader's (``call_tool_async``,
    #: widened batches).
    pipelines: bool = False
    #: Whether :meth:`send_line` takes messages already encoded, one line of
    #: JSON each (stdio), which spares the client building them as dicts.
    line_wire: bool = False
    #: A factory of the 2024-11-05 HTTP+SSE transport to fall back to (HTTP
    #: defines it as a method); None: this wire has none.
    sse_fallback: Callable[[], Transport] | None = None

    @abc.abstractmethod
    def start(self, on_message: MessageCallback, on_close: CloseCallback,
              on_warn: WarnCallback, on_error: ErrorCallback | None = None) -> None:
        """Open the wire and start delivering inbound messages.

        Raises:
            SpawnFailed: (stdio) the server could not be started.
        """

    @abc.abstractmethod
    def send(self, message: dict[str, Any], *, headers: Mapping[str, str] | None = None) -> None:
        """Write one message.

        Raises:
            ServerGone: the server is gone.
            TransportClosed: :meth:`close` was called.
        """

    def send_line(self, data: bytes) -> None:
        """Write messages already encoded: one or more lines of JSON, each ending in ``\\n``.

        Only on a wire that declares :attr:`line_wire`; each line reaches the
        server as the message :meth:`send` would have written, in order.

        Raises:
            NotImplementedError: the wire does not declare :attr:`line_wire`.
            ServerGone: as :meth:`send`.
            TransportClosed: as :meth:`send`.
        """
        raise NotImplementedError(f"{type(self).__name__} takes messages, not lines")

    def send_led(self, message: dict[str, Any], *,
                 headers: Mapping[str, str] | None = None) -> None:
        """Write one request whose answer this thread awaits through :meth:`lead`, next.

        The caller promises to call :meth:`lead` on this thread right after,
        before it sends anything else, so a wire may leave the request for
        :meth:`lead` to write and read on the caller's thread (HTTP: the POST
        and its answer).  The default is :meth:`send`.
        """
        self.send(message, headers=headers)

    def lead(self, done: Callable[[], bool], timeout: float | None,
             waiting: Callable[[], int],
             first: Callable[[], None] | None = None) -> float | None:
        """Let a caller that waits for an answer read the wire on its own thread (optional).

        A wire that can reads and dispatches inbound messages on the calling
        thread, as its reader would, until ``done()`` or ``timeout`` seconds
        (None: no bound), and returns what is left of ``timeout`` (0.0: none);
        ``waiting()`` says how many other answers are awaited (a standing
        request, such as the open ``subscriptions/listen``, not among them:
        :meth:`Correlator.waiting <mcp_client.correlator.Correlator.waiting>`); ``first``, if
        given, runs once, as soon as this thread leads (or does not).  The
        default reads nothing and returns ``timeout``: the caller waits as a
        follower.  An answer this call does not deliver is delivered by the
        transport's own threads, as any other.
        """
        if first is not None:
            first()
        return timeout

    def cancel(self, ident: int | str, reason: str) -> None:
        """Tell the server that request ``ident`` was abandoned (never raises, never waits).

        The caller's own budget has run out or it gave up, so an override
        must not block on a wire that is going away: drop the notice instead.

        The default suits stream transports: send ``notifications/cancelled``
        (2026-07-28 and 2025-11-25 utilities/cancellation).
        """
        try:
            self.send({"jsonrpc": "2.0", "method": "notifications/cancelled",
                       "params": {"requestId": ident, "reason": reason}})
        except MCPClientError:
            pass

    @abc.abstractmethod
    def close(self) -> None:
        """Shut the wire down and join its threads; idempotent."""

    @property
    def can_restart(self) -> bool:
        """Whether :meth:`restart` can bring a dead wire back."""
        return False

    def restart(self) -> None:
        """Bring a dead wire back, with the same callbacks (optional)."""
        raise NotImplementedError(f"{type(self).__name__} cannot restart")

    @property
    def closed(self) -> bool:
        """True once :meth:`close` was called or the wire died."""
        return False

    @property
    def session_id(self) -> str | None:
        """The wire's session id (HTTP's ``Mcp-Session-Id``); None: no session."""
        return None

    def connected(self) -> None:
        """The era is settled: the probe and any handshake are over (optional).

        Called by the client once per negotiation.  A stdio transport starts
        its stderr tail's own part here (what came before, much of it a
        legacy server's complaints about the probe, is folded into one line).
        """
