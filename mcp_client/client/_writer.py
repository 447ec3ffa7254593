"""How one connection's requests are written to its wire.

:class:`Writer` is the one place that asks "does this wire take lines?"
(:attr:`~mcp_client.transport.Transport.line_wire`).  Over a line wire
(stdio) a request is encoded as one line of JSON here, its ``_meta``
envelope's text kept once and reused, and a thread may hold its pipelined
requests to write them in one go; over any other wire the request's dict is
handed to ``send`` (or ``send_led``, for a caller about to lead).

A request whose send fails is abandoned and the error raised; one sent while
the wire died under it fails with why the wire died.  It owns no connection
state: it reads the state its host (:class:`~._hosts.WireState`) shows.
"""

from __future__ import annotations

import threading

from .. import protocol
from ..exceptions import MCPClientError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Mapping, Sequence

    from ..correlator import Correlator, Pending
    from ..transport import Transport
    from ._hosts import WireState

__all__ = ["Writer"]


class Writer:
    """The writing side of one connection (see the module).

    Args:
        transport: the started wire; :attr:`transport` is replaced when the
            connection swaps its wire (the HTTP+SSE fallback).
        correlator: the connection's request table.
        host: the connection, for its state.
        shared_envelope: the ``_meta`` every modern request shares now (None: none).
    """

    def __init__(self, transport: Transport, correlator: Correlator, host: WireState,
                 shared_envelope: Callable[[], dict[str, Any] | None]) -> None:
        self.transport = transport
        self._correlator = correlator
        self._host = host
        self._shared_envelope = shared_envelope
        self._meta_json: tuple[dict[str, Any], str] | None = None   # see meta_text
        self._held: list[tuple[Pending, bytes]] | None = None   # see hold
        self._holder = 0

    def __repr__(self) -> str:
        held = "-" if self._held is None else len(self._held)
        return f"<Writer {self.transport!r} held={held}>"

    def post(self, pending: Pending, params: Mapping[str, Any], meta: dict[str, Any] | None,
             *, headers: Mapping[str, str] | None = None, pipelined: bool = False,
             led: bool = False) -> None:
        """Send ``pending``'s request (``pipelined``: or hold it, see :meth:`hold`).

        ``led``: the caller leads next (:meth:`Transport.send_led`: the wire
        may post it from there).

        If the send fails the request is abandoned and the error raised --
        unless the request completed meanwhile (the wire died under it): then
        its cell holds that answer, and this returns.
        """
        transport = self.transport
        try:
            if transport.line_wire and headers is None:
                kept = self._meta_json
                text = kept[1] if kept is not None and kept[0] is meta else self.meta_text(meta)
                line = protocol.request_line(pending.ident, pending.method, params, meta, text)
                held = self._held
                if pipelined and held is not None and self._holder == threading.get_ident():
                    held.append((pending, line))   # sent with the others: send_held()
                    return
                transport.send_line(line)
            else:
                send = transport.send_led if led else transport.send
                send(protocol.request(pending.ident, pending.method, params, meta=meta),
                     headers=headers)
        except BaseException:
            if self._correlator.abandon(pending.ident) is None:
                return   # completed meanwhile (the wire died): the cell has its answer
            raise
        host = self._host
        if host.state != "open":  # the wire died between the check and the send
            self._correlator.fail(pending.ident, host.failure())

    def post_all(self, pendings: Sequence[Pending], params: Sequence[dict[str, Any]],
                 metas: Sequence[dict[str, Any] | None]) -> None:
        """Send requests (registered already) together: one write over a line wire.

        Never raises: a request that cannot be encoded fails its own cell, and a
        write that fails fails every cell it carried, as their own sends would have.
        """
        transport = self.transport
        line_wire = transport.line_wire
        sent: list[Pending] = []
        lines: list[bytes] = []
        last: Any = None
        text: str | None = None
        for pending, body, meta in zip(pendings, params, metas):
            try:
                if line_wire:
                    if meta is not last:   # the shared envelope: encoded once
                        last, text = meta, self.meta_text(meta)
                    lines.append(protocol.request_line(pending.ident, pending.method, body, meta,
                                                       text))
                else:
                    transport.send(protocol.request(pending.ident, pending.method, body,
                                                    meta=meta))
            except Exception as exc:   # not JSON, or the wire refused it
                self.fail([pending], exc)
                continue
            sent.append(pending)
        if lines:
            try:
                transport.send_line(b"".join(lines))
            except Exception as exc:
                self.fail(sent, exc)
                return
        self.fail(sent)   # the wire died between the check and the send, if it did

    def meta_text(self, meta: dict[str, Any] | None) -> str | None:
        """The JSON of the envelope every modern request shares (kept, never mutated)."""
        if meta is None:
            return None
        kept = self._meta_json
        if kept is not None and kept[0] is meta:
            return kept[1]
        text = protocol.encode_line(meta)[:-1].decode()
        if meta is self._shared_envelope():
            self._meta_json = (meta, text)
        return text

    def hold(self) -> None:
        """Keep this thread's pipelined requests until :meth:`send_held`, to write them
        in one go.

        Only over a line wire (stdio), and for one thread at a time: a batch
        of pipelined calls costs the server one wake-up, not one per call.
        """
        if self.transport.line_wire and self._held is None:
            self._held, self._holder = [], threading.get_ident()

    def send_held(self, stop: bool = False) -> None:
        """Write the requests this thread holds (``stop``: and hold no more).

        A write that fails fails each of them, as their own send would have.
        """
        held = self._held
        if held is None or self._holder != threading.get_ident():
            return
        self._held = None if stop else []
        if not held:
            return
        pendings = [pending for pending, _ in held]
        try:
            self.transport.send_line(b"".join(line for _, line in held))
        except MCPClientError as exc:
            self.fail(pendings, exc)
            return
        self.fail(pendings)

    def fail(self, pendings: Sequence[Pending], exc: BaseException | None = None) -> None:
        """Fail requests whose send failed with ``exc`` (None: those sent while the wire
        died under them, if it has, with why it died)."""
        if exc is None:
            host = self._host
            if host.state == "open":
                return
            exc = host.failure()
        for pending in pendings:
            self._correlator.fail(pending.ident, exc)
