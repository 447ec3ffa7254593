"""The direct path: a POST on keep-alive sockets of our own, plain or TLS.

requests and urllib3 spend about 1,000 Python function calls on every POST
(request and response objects, header merging, timeout objects, pool
bookkeeping), and :mod:`http.client` parses every answer's headers with the
``email`` package: most of the client's time against a fast server.  Most
POSTs need none of it: no proxy, no cookies to send, no ``~/.netrc``
credentials, no client certificate, no ``auth=`` hook beyond a bearer token,
TLS verified against the CA bundle requests would use (:func:`pool_for`).
Those go here: the request written in one ``sendall`` (line, headers and
body), the answer read by :mod:`mcp_client._http.framing`, on connections
this module pools per origin.  Every other request keeps the requests path
(:mod:`mcp_client._http.wire`), the reference for what a request carries.

What a request sent here has in common with the requests path: the session's
headers under the message's (case-insensitively), ``Accept-Encoding: gzip,
deflate`` (and the answer decoded), the connect timeout for connecting (and
the TLS handshake), ``TCP_NODELAY``, the same
:class:`~mcp_client._http.wire.Handle` for aborting it from another thread,
the wire trace's request and status lines, and a ``Set-Cookie`` answer
stored in the session's jar (whose next request then goes the requests way,
which sends cookies).  A connection returns to
the pool only when its answer was read to the end, nothing followed it and
neither side asked to close it; an idle one the server has closed meanwhile is dropped when taken,
not used.  Like the requests path (``max_retries=0``), a POST is never sent
twice.  Unlike it, a blocking call's timeout bounds the whole answer, not
each read of it: a server dripping a byte at a time cannot stretch it.

Failures before the answer's head are :class:`DirectError`, which the
transport says as it says requests' (``connected`` tells a failure to
connect from a failure after); a body that breaks off raises
:class:`~mcp_client._http.framing.BadAnswer` or ``OSError``.

It must not know about MCP: no JSON-RPC, no headers of the protocol.
"""

from __future__ import annotations

import functools
import io
import os
import select
import socket
import ssl
import threading
import time
from typing import Any, Mapping
from urllib.parse import urlsplit

from .._origin import UnsafeURL, connect_origin
from .framing import BadAnswer, Body, Headers, read_head

__all__ = ["DirectError", "DirectPool", "DirectResponse", "pool_for", "authorization",
           "for_auth"]

#: What the direct path accepts and can decode (requests may advertise more: br, zstd).
ACCEPT_ENCODING = "gzip, deflate"
_BAD_VALUE_CHARS = ("\r", "\n", "\0")
_CHUNK = 64 * 1024   # the connection's read buffer


class DirectError(Exception):
    """A direct exchange failed on the wire before its answer's head was read.

    Attributes:
        reason: the readable cause (``Connection refused``, ...).
        connected: False when connecting failed (nothing was sent).
        timed_out: a timeout ended it.
    """

    def __init__(self, reason: str, *, connected: bool, timed_out: bool = False) -> None:
        super().__init__(reason)
        self.reason, self.connected, self.timed_out = reason, connected, timed_out


def _reason(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or type(exc).__name__


def _arrived(sock: socket.socket) -> bool:
    """Whether reading ``sock`` now would not wait: bytes (or its end) have arrived."""
    if isinstance(sock, ssl.SSLSocket) and sock.pending():
        return True
    try:
        poller = select.poll()
    except AttributeError:   # no poll(): select() works for the descriptors that matter here
        return bool(select.select([sock], [], [], 0)[0])
    poller.register(sock, select.POLLIN)
    return bool(poller.poll(0))


#: An idle keep-alive socket that can be read was closed by its server (or sent junk).
_dropped = _arrived
#: Reads :meth:`DirectResponse.close` makes of what has already arrived of a body.
_FINISHING_READS = 16


class _NotYet(TimeoutError):
    """A read of a connection in ``nowait`` mode found nothing to read."""


class _Socket(io.RawIOBase):
    """A connection's socket as the raw stream under its reader, each read held to a deadline.

    A read timeout alone bounds each ``recv``, not the answer: a server
    dripping a byte a second would never trip one.  With ``deadline`` set (a
    :func:`time.monotonic` value), every read gets what is left of it, and
    none starts once it passed.  With ``nowait`` set, a read that would
    have to wait fails at once instead (:class:`_NotYet`, a ``TimeoutError``).
    """

    def __init__(self, sock: socket.socket) -> None:
        super().__init__()
        self.sock = sock
        self.deadline: float | None = None
        self.nowait = False

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self.nowait:
            if not _arrived(self.sock):
                raise _NotYet("not here yet")
            # Readable is not enough under TLS: what arrived may be a record that
            # holds no data, or part of one; a blocking read would wait for more.
            self.sock.settimeout(0.0)   # post() sets the next exchange's own
            try:
                return self.sock.recv_into(buffer)
            except (ssl.SSLWantReadError, BlockingIOError):
                raise _NotYet("not all here yet") from None
        if self.deadline is not None:
            left = self.deadline - time.monotonic()
            if left <= 0:
                raise socket.timeout("timed out")
            self.sock.settimeout(left)
        return self.sock.recv_into(buffer)


class _Connection:
    """One keep-alive socket and the buffered reader that outlives each answer on it."""

    __slots__ = ("sock", "stream", "reader", "_mcp_handle")

    def __init__(self, sock: socket.socket) -> None:
        self.sock: socket.socket | None = sock
        self.stream = _Socket(sock)
        self.reader = io.BufferedReader(self.stream, _CHUNK)
        self._mcp_handle: Any = None   # the Handle it is attached to (see wire.Handle.attach)

    def close(self) -> None:
        sock, self.sock = self.sock, None
        self.reader.close()
        if sock is not None:
            sock.close()


class DirectPool:
    """Keep-alive connections to one ``http://`` origin, and the POSTs on them.

    Args:
        host: the origin's host.
        port: its port.
        size: idle connections kept (more may be open; they are closed after use).
        headers: the session's own headers, which every request carries under its own.
    """

    def __init__(self, host: str, port: int, *, size: int, headers: Mapping[str, str],
                 tls: ssl.SSLContext | None = None, trace: Any = None) -> None:
        self.host, self.port, self._size, self._tls = host, port, size, tls
        self._trace = trace   # a WireTrace: request and status lines, headers, bodies
        shown = f"[{host}]" if ":" in host else host
        default = 443 if tls is not None else 80
        self._host_line = f"Host: {shown}\r\n" if port == default else f"Host: {shown}:{port}\r\n"
        self._origin = ("https" if tls is not None else "http", shown.lower(), port)
        base = {**headers, "Accept-Encoding": ACCEPT_ENCODING}
        self._base = {name.lower(): (name, value) for name, value in base.items()}
        self._idle: list[_Connection] = []
        self._lock = threading.Lock()
        self._closed = False

    def __repr__(self) -> str:
        return f"<DirectPool {self.host}:{self.port} idle={len(self._idle)}>"

    def _take(self) -> _Connection | None:
        while True:
            with self._lock:
                if not self._idle:
                    return None
                conn = self._idle.pop()
            if conn.sock is not None and not _dropped(conn.sock):
                return conn
            conn.close()

    def _give(self, conn: _Connection) -> None:
        with self._lock:
            if not self._closed and len(self._idle) < self._size:
                self._idle.append(conn)
                return
        conn.close()

    def head(self, target: str, body: bytes, headers: Mapping[str, str]) -> bytes:
        """The request's bytes: its line, the session's headers under ``headers``, ``body``.

        Raises:
            ValueError: a header is not Latin-1 (``UnicodeEncodeError``) or has a
                line break or a NUL in it -- one the server gave, such as a
                protocol version (requests' way says which).
        """
        merged = dict(self._base)
        for name, value in headers.items():
            merged[name.lower()] = (name, value)
        lines = "".join([f"{name}: {value}\r\n" for name, value in merged.values()])
        if lines.count("\n") != len(merged) or lines.count("\r") != len(merged) \
                or "\0" in lines:
            raise ValueError("a header has a line break or a NUL in it")
        data = (f"POST {target} HTTP/1.1\r\n{self._host_line}{lines}"
                f"Content-Length: {len(body)}\r\n\r\n").encode("latin-1") + body
        if self._trace is not None:
            shown = {"Host": self._host_line[6:-2], **dict(merged.values()),
                     "Content-Length": str(len(body))}
            self._trace.request("POST", target, shown, body)
        return data

    def serves(self, url: str) -> bool:
        """Whether ``url`` is this pool's origin as requests and urllib3 read it.

        Only the path and query of a URL go on a request line here, the
        connection being the pool's: a URL of any other origin (or one
        :mod:`mcp_client._origin` refuses) must never be sent on it.
        """
        try:
            return connect_origin(url) == self._origin
        except UnsafeURL:
            return False

    def prepare(self, url: str, body: bytes, headers: Mapping[str, str],
                auth: Any) -> tuple[bytes, bool] | None:
        """``(request, authorized)`` for a POST of ``body`` to ``url``; None: requests' way.

        ``authorized``: ``auth`` gave the request its ``Authorization``
        header (see :func:`authorization`), so a refusal of it (see
        :func:`for_auth`) is for ``auth`` to answer, which it does on
        requests' way.  A header that cannot be sent as it is (see
        :meth:`head`), or a URL requests cannot prepare (see
        :func:`target_of`), also goes requests' way, which says which it is.
        """
        if not self.serves(url):
            return None   # requests' way, whose origin checks say what is wrong
        go, value = authorization(auth, url)
        if not go:
            return None
        if value is not None:
            headers = {**headers, "Authorization": value}
        try:
            return self.head(target_of(url), body, headers), value is not None
        except ValueError:
            return None

    def post(self, request: bytes, *, connect_timeout: float, deadline: float | None,
             handle: Any) -> DirectResponse:
        """Send ``request`` (from :meth:`prepare`) and read its answer's head.

        ``deadline`` (a :func:`time.monotonic` value, or None) bounds sending
        and every read of the answer, its body's included.

        Raises:
            DirectError: connecting, sending or reading the head failed.
        """
        conn = self._take()
        connected = conn is not None
        try:
            if conn is None:
                conn = _Connection(self._connect(connect_timeout))
                connected = True
            assert conn.sock is not None
            conn.stream.deadline = deadline
            conn.sock.settimeout(None if deadline is None else
                                 max(deadline - time.monotonic(), 0.001))
            handle.attach(conn)
            if handle.aborted:
                raise DirectError("the exchange was cancelled", connected=True)
            try:
                conn.sock.sendall(request)
            except (BrokenPipeError, ConnectionResetError):
                # A server may answer before it has read the whole request (a 413,
                # a 401) and close: its answer is still there to read, as urllib3
                # reads it.  With none, reading the head says how the connection ended.
                pass
            status, version, headers, reason = read_head(conn.reader)
            if self._trace is not None:
                self._trace.response(status, reason, headers)
            body = Body(conn.reader, status, version, headers)
        except DirectError:
            self._drop(conn, handle)
            raise
        except socket.timeout as exc:
            self._drop(conn, handle)
            what = "read timed out" if connected else "timed out"
            raise DirectError(what, connected=connected, timed_out=True) from exc
        except (OSError, BadAnswer) as exc:
            self._drop(conn, handle)
            raise DirectError(_reason(exc), connected=connected) from exc
        except BaseException:
            self._drop(conn, handle)   # whatever it was, the socket is not left open
            raise
        return DirectResponse(self, conn, status, headers, body, handle)

    def _connect(self, timeout: float) -> socket.socket:
        """A new socket to the origin, its TLS handshake done (both within ``timeout``)."""
        sock = socket.create_connection((self.host, self.port), timeout)
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if self._tls is not None:
                sock = self._tls.wrap_socket(sock, server_hostname=self.host)
        except BaseException:
            sock.close()
            raise
        return sock

    @staticmethod
    def _drop(conn: _Connection | None, handle: Any) -> None:
        if conn is not None:
            handle.detach(conn)
            conn.close()

    def release(self, conn: _Connection, reusable: bool, handle: Any) -> None:
        """An exchange on ``conn`` is over: pool it if ``reusable`` and not aborted, else close."""
        handle.detach(conn)   # first: an abort from now on touches nothing
        if reusable and not handle.aborted:
            conn.stream.deadline = None
            self._give(conn)
        else:
            conn.close()

    def close(self) -> None:
        """Close every idle connection; those in use close when their exchange ends."""
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()


class DirectResponse:
    """The answer to a direct POST, read the way the transport reads a requests response.

    ``status_code`` and ``headers`` as requests has them; ``raw`` is the
    response itself, with ``read(n)`` and ``read1(n)`` returning decoded
    bytes (``b""`` at the end; :class:`~mcp_client._http.framing.BadAnswer`
    or ``OSError`` when the body breaks off); :meth:`close` puts the
    connection back or closes it.
    """

    def __init__(self, pool: DirectPool, conn: _Connection, status: int, headers: Headers,
                 body: Body, handle: Any) -> None:
        self._pool, self._body, self._handle = pool, body, handle
        self._conn: _Connection | None = conn
        self.status_code = status
        self.headers = headers
        self.raw = self

    def __repr__(self) -> str:
        return f"<DirectResponse {self.status_code}>"

    def read(self, amount: int, decode_content: bool = True) -> bytes:
        """Up to ``amount`` bytes, fewer only at the end."""
        return self._body.read(amount)

    def read1(self, amount: int, decode_content: bool = True) -> bytes:
        """What one read of the socket gives (at most ``amount`` bytes; ``b""`` at the end)."""
        return self._body.read1(amount)

    def close(self) -> None:
        """End the exchange: the connection goes back to the pool only if it may (idempotent)."""
        conn, self._conn = self._conn, None
        if conn is None:
            return
        body = self._body
        reusable = not body.will_close and not self._handle.aborted \
            and self._finish(conn, body)
        self._pool.release(conn, reusable, self._handle)

    @staticmethod
    def _finish(conn: _Connection, body: Body) -> bool:
        """Read the rest of ``body`` if it has already arrived, never waiting for it.

        A stream whose answer was its last event usually ends just after
        (the chunked stream's last chunk): read, the connection can be
        pooled.  A stream that goes on is not waited for: its connection
        is closed.

        Returns:
            whether the connection may be pooled: ``body`` was read to its
            end and nothing follows it -- no byte already read past it, none
            arrived, no end of the connection.  Bytes after an answer answer
            no request of ours: taken for the next request's answer, they
            would be that answer (what the requests path, whose buffer dies
            with each response, never does).
        """
        conn.stream.nowait = True
        try:
            for _ in range(_FINISHING_READS):
                if body.done or not body.read1(_CHUNK):
                    break
            if not body.done:
                return False
            try:
                conn.reader.peek(1)   # bytes buffered or arrived, or the connection's end
            except _NotYet:
                return True   # nothing: the server waits for the next request
            return False
        except (OSError, BadAnswer):
            return False   # not all here yet, or broken: the connection is not pooled
        finally:
            conn.stream.nowait = False


@functools.lru_cache(maxsize=64)
def target_of(url: str) -> str:
    """What goes on the request line for ``url``: its path (``/`` at least) and query.

    As requests sends them: percent-encoded (a space, a control character, a
    non-ASCII one as UTF-8), whether the URL is the caller's or a redirect's
    ``Location``; raw, they would make another request line.

    Raises:
        ValueError: requests cannot send to ``url`` either (it says why).
    """
    parts = urlsplit(_prepared(url))
    return (parts.path or "/") + (f"?{parts.query}" if parts.query else "")


def _prepared(url: str) -> str:
    """``url`` as requests sends it: its host IDNA-encoded, path and query percent-encoded."""
    from requests.models import PreparedRequest

    request = PreparedRequest()
    request.prepare_url(url, None)   # requests' InvalidURL and MissingSchema are ValueErrors
    return str(request.url)


def pool_for(url: str, session: Any, *, size: int, trace: Any = None) -> DirectPool | None:
    """A direct pool for ``url`` sent on ``session`` -- None when it must take the requests way.

    An ``http://`` or ``https://`` URL without userinfo qualifies (its origin
    read as urllib3 reads it, :func:`~mcp_client._origin.connect_origin`), on a
    session that uses no proxy for it (``session.proxies``, read from the
    environment once), has no ``~/.netrc`` credentials and no client
    certificate, and verifies TLS the usual way (``session.verify``: True
    for requests' CA bundle, or the path of a bundle or a folder of them,
    as ``REQUESTS_CA_BUNDLE`` gives).  A bundle that cannot be loaded is left
    to requests' way, which reports it on each request.
    """
    try:
        # The host as urllib3 connects to it (an A-label; an IPv6 literal in brackets).
        scheme, host, port = connect_origin(url)
    except UnsafeURL:
        return None   # userinfo, or requests' way says what is wrong with the URL
    if any(session.proxies.values()) or session.auth is not None or session.cert is not None:
        return None
    tls = None
    if scheme == "https":
        tls = _tls_context(session.verify)
        if tls is None:
            return None
    bare = host[1:-1] if host.startswith("[") else host
    return DirectPool(bare, port, size=size, headers=session.headers, tls=tls, trace=trace)


def _tls_context(verify: Any) -> ssl.SSLContext | None:
    """The TLS settings ``verify`` stands for in requests (None: not one this path takes).

    Certificates and host names are checked against only the given CAs (as
    urllib3 does with ``ca_certs``), TLS 1.2 at least, ALPN ``http/1.1``; a
    host name must be in the certificate's subject alternative names, never
    only in its common name (urllib3 checks it so, ``ssl`` would accept it).
    """
    cafile: str | None
    capath: str | None
    if verify is True:
        from requests.utils import DEFAULT_CA_BUNDLE_PATH

        cafile, capath = DEFAULT_CA_BUNDLE_PATH, None
    elif isinstance(verify, str) and verify:
        cafile, capath = (None, verify) if os.path.isdir(verify) else (verify, None)
    else:
        return None   # verify=False, or something requests alone understands
    try:
        context = ssl.create_default_context(cafile=cafile, capath=capath)
    except (OSError, ValueError):
        return None
    context.minimum_version = max(context.minimum_version, ssl.TLSVersion.TLSv1_2)
    context.hostname_checks_common_name = False
    context.set_alpn_protocols(["http/1.1"])
    return context


def for_auth(status: int, headers: Mapping[str, str]) -> bool:
    """Whether an answer refuses a token in a way an ``auth=`` hook cures (sent again).

    A 401, or a 403 whose challenge asks for more scope (``insufficient_scope``,
    RFC 6750 §3.1): what :class:`~mcp_client.auth.BearerAuth` answers.  Any
    other 403 is final -- sent again, the same request would be posted twice
    for the same refusal.
    """
    if status == 401:
        return True
    return status == 403 and "insufficient_scope" in (headers.get("WWW-Authenticate") or "")


def authorization(auth: Any, url: str) -> tuple[bool, str | None]:
    """``(direct, value)``: whether ``auth`` lets a request to ``url`` go direct, and its header.

    No ``auth`` goes direct with no header.  An ``auth=`` object offering
    ``direct_authorization(url)`` (the bearer-token classes of
    :mod:`mcp_client.auth`) goes direct with the value it returns, unless it
    returns None (it needs the requests way: no token yet, or a proof per
    request).  Any other ``auth`` takes the requests way.
    """
    if auth is None:
        return True, None
    offer = getattr(auth, "direct_authorization", None)
    if offer is None:
        return False, None
    value = offer(url)
    if not isinstance(value, str) or any(c in value for c in _BAD_VALUE_CHARS):
        return False, None   # the requests way checks it and says what is wrong
    return True, value
