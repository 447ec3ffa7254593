"""A transport to an official-SDK server object running in this process.

:class:`InProcessTransport` puts a :class:`~mcp_client.Client` in front of an
``mcp.server.mcpserver.MCPServer`` (or a low-level ``mcp.server.Server``) with
no subprocess and no pipe.  The server runs exactly as ``MCPServer.run("stdio")``
runs it -- the SDK's dual-era loop (``Server.run``), whose first request decides
the era -- on memory streams, and every message crosses the boundary the way it
crosses a stdio pipe: the client's dict is encoded as JSON and validated with the
SDK's own JSON-RPC adapter, and the server's message is dumped with
``model_dump_json(by_alias=True, exclude_unset=True)`` and parsed back.  That is
what makes a :class:`~mcp_client.local.LocalServer` byte-identical to the same
server reached over stdio.

It owns two threads, both named and joined in :meth:`close`: the event loop the
server runs on (``mcp-inprocess-loop-<name>``) and the reader that hands each
server message to the client (``mcp-inprocess-reader-<name>``), so a client
callback never runs on the server's loop and never blocks it.

It must not import the ``mcp`` SDK until :meth:`start` (a caller handed over an
SDK object, so the SDK is already loaded), and must not leave the server's loop
running after :meth:`close`: the server is given end-of-input, as a stdio
server would be, ``shutdown_grace`` seconds to finish, and is then cancelled.
"""

from __future__ import annotations

import json
import logging
import math
import queue
import threading
from typing import Any, Mapping

from .._log import WireTrace, warn_through, wire_trace
from ..exceptions import MCPClientError, ServerGone, TransportClosed
from ..protocol import decode_message
from ..transport import CloseCallback, ErrorCallback, MessageCallback, Transport, WarnCallback

__all__ = ["InProcessTransport", "lowlevel_server"]

log = logging.getLogger(__name__)

#: Seconds :meth:`InProcessTransport.start` waits for the server's loop to come up.
START_TIMEOUT = 30.0
#: Seconds a server gets to finish after end-of-input (the SDK's in-memory
#: transport uses 2 s, ``mcp.client._memory.SERVER_SHUTDOWN_GRACE``).
SHUTDOWN_GRACE = 2.0

_STOP = object()


def lowlevel_server(server: Any) -> Any:
    """The low-level ``mcp.server.Server`` behind an SDK server object.

    Raises:
        MCPClientError: ``server`` is neither an ``MCPServer`` nor a ``Server``.
    """
    try:
        from mcp.server.lowlevel.server import Server
        from mcp.server.mcpserver import MCPServer
    except ImportError as exc:  # no SDK, so nothing can be an SDK server object
        raise MCPClientError(f"an in-process server must be an official-SDK server object, not "
                             f"{type(server).__name__} (the mcp SDK is not importable)") from exc
    if isinstance(server, MCPServer):
        return server._lowlevel_server
    if isinstance(server, Server):
        return server
    raise MCPClientError("an in-process server must be an mcp.server.mcpserver.MCPServer or "
                         f"an mcp.server.Server, not {type(server).__name__}")


class InProcessTransport(Transport):
    """A live SDK server object in this process, reached with no wire.

    Args:
        server: an ``MCPServer`` or a low-level ``Server`` (not yet running).
        raise_exceptions: the SDK's flag: a handler's exception stops the
            server (reported as :class:`~mcp_client.exceptions.ServerGone`)
            instead of becoming an error answer.
        shutdown_grace: seconds the server gets to finish after end-of-input.
    """

    def __init__(self, server: Any, *, raise_exceptions: bool = False,
                 shutdown_grace: float = SHUTDOWN_GRACE) -> None:
        self._low = lowlevel_server(server)
        self._name = str(getattr(self._low, "name", "server"))
        self._raise_exceptions = raise_exceptions
        self._grace = shutdown_grace
        self._state = "new"
        self._lock = threading.Lock()
        self._inbox: queue.Queue[Any] = queue.Queue()
        self._ready = threading.Event()
        self._threads: list[threading.Thread] = []
        self._portal: Any = None
        self._to_server: Any = None
        self._scope: Any = None
        self._death: ServerGone | None = None
        self._on_message: MessageCallback | None = None
        self._on_close: CloseCallback | None = None
        self._on_warn: WarnCallback | None = None
        self._trace: WireTrace | None = None   # set by start(): see mcp_client._log

    def __repr__(self) -> str:
        return f"<InProcessTransport server={self._name!r} {self._state}>"

    @property
    def closed(self) -> bool:
        return self._state in ("closed", "dead")

    # -- the Transport contract ------------------------------------------------------

    def start(self, on_message: MessageCallback, on_close: CloseCallback,
              on_warn: WarnCallback, on_error: ErrorCallback | None = None) -> None:
        if self._state != "new":
            raise MCPClientError("an InProcessTransport is started once")
        self._on_message, self._on_close, self._on_warn = on_message, on_close, on_warn
        self._trace = wire_trace(f"in-process {self._name}")
        loop = threading.Thread(target=self._run_loop, name=f"mcp-inprocess-loop-{self._name}",
                                daemon=True)
        reader = threading.Thread(target=self._read, name=f"mcp-inprocess-reader-{self._name}",
                                  daemon=True)
        self._threads = [loop, reader]
        self._state = "open"
        loop.start()
        reader.start()
        if not self._ready.wait(START_TIMEOUT) or self._portal is None:
            self.close()
            raise MCPClientError(f"the in-process server {self._name!r} did not start")

    def send(self, message: dict[str, Any], *, headers: Mapping[str, str] | None = None) -> None:
        if self._state == "new":
            raise MCPClientError("the InProcessTransport has not been started")
        if self._state == "closed":
            raise TransportClosed()
        if self._state == "dead":
            assert self._death is not None
            raise self._death
        try:
            line = json.dumps(message, allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise MCPClientError(f"cannot encode the message as JSON: {exc}") from exc
        if self._trace is not None:
            self._trace.sent(line)
        item = self._decode(line)
        if threading.current_thread() is self._threads[0]:
            raise MCPClientError("send() was called on the in-process server's own loop")
        try:
            self._portal.call(self._to_server.send_nowait, item)
        except Exception as exc:  # the loop has stopped: the server is gone
            raise self._death or ServerGone(None, "", "the in-process server stopped") from exc

    def close(self) -> None:
        with self._lock:
            if self._state == "closed":
                return
            self._state = "closed"
        portal = self._portal
        loop = self._threads[0] if self._threads else None
        if portal is not None and loop is not None and loop.is_alive():
            try:
                portal.call(self._to_server.close)      # end-of-input, as on a pipe
            except Exception:
                pass  # the loop already stopped
            loop.join(self._grace)
            if loop.is_alive():
                try:
                    portal.call(self._scope.cancel)
                except Exception:
                    pass
        self._inbox.put(_STOP)
        for thread in self._threads:
            if thread is not threading.current_thread():
                thread.join(10)

    # -- internals ---------------------------------------------------------------

    @staticmethod
    def _decode(line: str) -> Any:
        """The message as the SDK's stdio reader would hand it to the server."""
        import mcp_types
        from mcp.shared.message import SessionMessage

        try:
            return SessionMessage(mcp_types.jsonrpc_message_adapter.validate_json(
                line, by_name=False))
        except Exception as exc:  # the stdio reader passes the failure on, so do we
            return exc

    def _run_loop(self) -> None:
        import anyio

        try:
            anyio.run(self._serve)
        except BaseException as exc:  # noqa: B902 -- reported as the server's death
            self._stopped(exc)
        finally:
            self._ready.set()

    async def _serve(self) -> None:
        import anyio
        from anyio.from_thread import BlockingPortal
        from mcp.shared.message import SessionMessage

        to_server, server_in = anyio.create_memory_object_stream[SessionMessage | Exception](
            math.inf)
        server_out, from_server = anyio.create_memory_object_stream[SessionMessage](math.inf)
        failure: BaseException | None = None
        async with BlockingPortal() as portal:
            async with anyio.create_task_group() as tasks:
                self._scope = tasks.cancel_scope
                self._to_server, self._portal = to_server, portal
                tasks.start_soon(self._pump, from_server)
                self._ready.set()
                try:
                    await self._low.run(server_in, server_out,
                                        self._low.create_initialization_options(),
                                        raise_exceptions=self._raise_exceptions)
                except Exception as exc:
                    failure = exc
                finally:
                    server_out.close()
            # The pump has forwarded every message: the death comes after them.
            self._stopped(failure)

    async def _pump(self, from_server: Any) -> None:
        async with from_server:
            async for item in from_server:
                text = item.message.model_dump_json(by_alias=True, exclude_unset=True)
                if self._trace is not None:
                    self._trace.received(text)
                self._inbox.put(decode_message(text))

    def _stopped(self, failure: BaseException | None) -> None:
        """The server's loop ended: on its own (a death) or after :meth:`close`."""
        with self._lock:
            if self._state != "open":
                return
            self._state = "dead"
            detail = "the in-process server stopped"
            if failure is not None:
                detail += f": {type(failure).__name__}: {failure}"
            self._death = ServerGone(None, "", detail)
        self._inbox.put(self._death)

    def _read(self) -> None:
        while True:
            item = self._inbox.get()
            if item is _STOP:
                return
            if isinstance(item, ServerGone):
                if self._on_close is not None:
                    self._on_close(item)
                return
            if self._state == "closed" or self._on_message is None:
                continue
            try:
                self._on_message(item)
            except Exception as exc:  # a client callback must not kill the reader
                self._warn(f"the client's message callback raised {exc!r}")

    def _warn(self, text: str) -> None:
        warn_through(self._on_warn, text, log)
