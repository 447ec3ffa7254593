"""The requests/urllib3 plumbing under :class:`~mcp_client.http.HTTPTransport`.

This module owns one thing requests cannot do on its own: abort one HTTP
exchange from another thread, at any moment -- while connecting, while
waiting for the status line, or while a response stream is being read --
without touching the other exchanges that share the session's pool.  That is
what 2026-07-28 cancellation over HTTP needs (closing the
response *is* the cancellation, and a connection carrying an abandoned
request must never go back to the pool).

How: the session's connection pools use connection classes that, whenever a
worker thread uses a connection for a request, attach it to that thread's
current :class:`Handle`; the pools detach it when it is put back.
:meth:`Handle.abort` shuts the attached socket down (``SHUT_RDWR``), which
wakes the worker's blocked ``recv`` and sends the server a FIN; urllib3 then
discards the broken connection instead of reusing it.  The handle keeps the
socket itself as well as the connection: for an answer that ends when the
connection does (``Connection: close``, HTTP/1.0), ``http.client`` hands the
socket to the response and forgets it (``conn.sock`` is then None), and the
body -- an event stream that may never end -- is still read from it.

Two more things it keeps from the caller's secrets.  ``urllib3`` logs each
request's path and query at DEBUG (``"POST /mcp?token=..." 200``): a filter on
its loggers redacts the records emitted by this module's exchanges -- and no
others, so another user of ``urllib3`` in the process logs as before (the one
change this package makes to logging).  And ``~/.netrc``: requests applies
a session's netrc credentials to every request without ``auth=``, replacing
an ``Authorization`` header the caller set; :func:`explicit_auth` keeps them
for requests that carry none.

A session made with a :class:`~mcp_client._log.WireTrace` writes every
request line, status line and their headers (as they cross the socket, the
ones requests and ``auth=`` add included) and every request body to that
trace; without one, its connections are the untraced classes and cost nothing
more.

It imports requests and urllib3 at module level, so
:mod:`mcp_client.http` imports it on first use only.  It must not know about
MCP: no JSON-RPC, no headers of the protocol, no threads of its own.
"""

from __future__ import annotations

import contextlib
import functools
import http.client
import logging
import socket
import threading
from typing import Any, Iterator, Mapping
from urllib.parse import urlsplit

import requests
import requests.utils
import urllib3
from requests.adapters import HTTPAdapter
from requests.cookies import MockRequest, MockResponse, extract_cookies_to_jar, \
    get_cookie_header
from requests.hooks import dispatch_hook
from requests.structures import CaseInsensitiveDict
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
from urllib3.poolmanager import PoolManager
from urllib3.poolmanager import pool_classes_by_scheme as _DEFAULT_POOLS

from .._redact import redact_text, redact_url
from .._version import __version__

__all__ = ["Handle", "active", "new_session", "close_session", "explicit_auth", "send",
           "keep_cookies", "WIRE_ERRORS"]

#: Exceptions that mean "this exchange failed on the wire" once a response
#: exists (reading its body): urllib3's own and the socket's.
WIRE_ERRORS: tuple[type[BaseException], ...] = (
    urllib3.exceptions.HTTPError, requests.RequestException, OSError,
    http.client.HTTPException)   # the direct path's (mcp_client._http.direct)

_local = threading.local()
#: Pools an adapter remembers by request (URL and settings) before it starts afresh.
_POOLS_KEPT = 32
#: urllib3's loggers that quote a request's URL or path (urllib3 2.x).
_URLLIB3_LOGGERS = ("urllib3.connectionpool", "urllib3.poolmanager", "urllib3.util.retry",
                    "urllib3.connection")


class _RedactRecords(logging.Filter):
    """Redacts the URLs in the records urllib3 logs while one of our exchanges runs."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(getattr(_local, "handle", None), Handle):
            if isinstance(record.args, tuple) and record.args:
                record.args = tuple(_redact_arg(arg) for arg in record.args)
            elif isinstance(record.msg, str):   # with arguments it is only a format string
                record.msg = redact_text(record.msg)
        return True


def _redact_arg(arg: Any) -> Any:
    if not isinstance(arg, str):
        return arg
    return redact_url(arg) if arg.startswith("/") or "://" in arg else redact_text(arg)


_FILTER = _RedactRecords()
for _name in _URLLIB3_LOGGERS:
    logging.getLogger(_name).addFilter(_FILTER)


def _shutdown(sock: Any) -> None:
    if sock is None:
        return
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass   # already closed or never connected: nothing left to stop


class Handle:
    """The abortable side of one exchange: the connection it uses right now."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._conn: Any = None
        self._sock: Any = None        # the conn's socket, which a response may outlive it with
        self._aborted = False
        self._finished = False

    def __repr__(self) -> str:
        state = "aborted" if self._aborted else "finished" if self._finished else "live"
        return f"<Handle {state} attached={self._conn is not None}>"

    @property
    def aborted(self) -> bool:
        """True once :meth:`abort` was called."""
        return self._aborted

    def attach(self, conn: Any) -> None:
        """Record that this exchange now uses ``conn`` (a worker-thread call)."""
        with self._lock:
            if self._finished:
                return
            self._conn = conn
            self._sock = getattr(conn, "sock", None) or self._sock
            conn._mcp_handle = self
            if self._aborted:
                _shutdown(self._sock)

    def detach(self, conn: Any) -> None:
        """Forget ``conn``: it goes back to the pool (a worker-thread call)."""
        with self._lock:
            if self._conn is conn:
                self._conn = self._sock = None

    def abort(self) -> None:
        """Stop the exchange from any thread: shut its connection down (idempotent).

        The shutdown happens under the lock that :meth:`detach` takes, so a
        connection already handed back to the pool -- and perhaps to another
        exchange -- is never touched.
        """
        with self._lock:
            self._aborted = True
            if self._conn is not None:
                _shutdown(getattr(self._conn, "sock", None) or self._sock)

    def settimeout(self, seconds: float | None) -> None:
        """Bound the next reads of the attached socket (a call of the exchange's thread)."""
        with self._lock:
            sock = getattr(self._conn, "sock", None) or self._sock
            if sock is not None:
                sock.settimeout(seconds)

    def finish(self) -> None:
        """The exchange is over: later aborts touch nothing."""
        with self._lock:
            self._finished = True
            self._conn = self._sock = None


@contextlib.contextmanager
def active(handle: Handle) -> Iterator[Handle]:
    """Make ``handle`` the one the current thread's requests attach to (nestable)."""
    outer, _local.handle = getattr(_local, "handle", None), handle
    try:
        yield handle
    finally:
        _local.handle = outer


def _track(conn: Any) -> None:
    handle = getattr(_local, "handle", None)
    if isinstance(handle, Handle):
        handle.attach(conn)


def _untrack(conn: Any) -> None:
    handle = getattr(conn, "_mcp_handle", None)
    if isinstance(handle, Handle):
        handle.detach(conn)
        conn._mcp_handle = None


class _OneWrite:
    """A connection that writes a request's head and its (bytes) body in one ``send``.

    urllib3 sends them apart: the server then wakes for the head alone, and a
    peer that has Nagle on waits for a delayed ACK before the body follows.
    ``http.client`` itself joins them when it is handed the body (so does the floor).
    """

    _mcp_hold = False                  # the next send is a head to keep for the body
    _mcp_held: bytes | None = None

    def request(self, method: str, url: str, body: Any = None, *args: Any,
                **kwargs: Any) -> None:
        _track(self)
        self._mcp_held = None
        self._mcp_hold = isinstance(body, bytes) and bool(body) and not kwargs.get("chunked")
        super().request(method, url, body, *args, **kwargs)   # type: ignore[misc]

    def send(self, data: Any) -> None:
        held = self._mcp_held
        if held is not None:
            self._mcp_held = None
            data = held + data
        elif self._mcp_hold and isinstance(data, bytes):
            self._mcp_hold = False
            self._mcp_held = data   # the head: it goes with the body
            return
        super().send(data)   # type: ignore[misc]


class _TrackedHTTPConnection(_OneWrite, HTTPConnection):
    def connect(self) -> None:
        super().connect()
        _track(self)   # again: an abort that came while connecting takes effect now


class _TrackedHTTPSConnection(_OneWrite, HTTPSConnection):
    def connect(self) -> None:
        super().connect()
        _track(self)


class _Traced:
    """Writes a connection's request and status lines to its session's wire trace."""

    _mcp_trace: Any = None   # set on the subclasses :func:`_traced_pools` makes

    def request(self, method: str, url: str, body: Any = None, headers: Any = None,
                **kwargs: Any) -> None:
        self._mcp_trace.request(method, url, headers, body)
        super().request(method, url, body, headers, **kwargs)   # type: ignore[misc]

    def getresponse(self) -> Any:
        response = super().getresponse()   # type: ignore[misc]
        self._mcp_trace.response(response.status, response.reason, response.headers)
        return response


class _TrackedHTTPPool(HTTPConnectionPool):
    ConnectionCls = _TrackedHTTPConnection

    def _put_conn(self, conn: Any) -> None:
        if conn is not None:
            _untrack(conn)
        super()._put_conn(conn)


class _TrackedHTTPSPool(HTTPSConnectionPool):
    ConnectionCls = _TrackedHTTPSConnection

    def _put_conn(self, conn: Any) -> None:
        if conn is not None:
            _untrack(conn)
        super()._put_conn(conn)


_POOLS: dict[str, type[HTTPConnectionPool]] = {"http": _TrackedHTTPPool,
                                               "https": _TrackedHTTPSPool}


def _traced_pools(trace: Any) -> dict[str, type[HTTPConnectionPool]]:
    """Pool classes whose connections write to ``trace`` (one set per traced session)."""
    pools: dict[str, type[HTTPConnectionPool]] = {}
    for scheme, pool in _POOLS.items():
        conn = type(f"_Traced{pool.ConnectionCls.__name__}", (_Traced, pool.ConnectionCls),
                    {"_mcp_trace": trace})
        pools[scheme] = type(f"_Traced{pool.__name__}", (pool,), {"ConnectionCls": conn})
    return pools


def _install(manager: PoolManager, trace: Any) -> None:
    # Only over urllib3's own pools: a SOCKS manager has pools of its own,
    # whose exchanges can then be aborted only once their response exists.
    if manager.pool_classes_by_scheme is _DEFAULT_POOLS:
        manager.pool_classes_by_scheme = _POOLS if trace is None else _traced_pools(trace)


class _Adapter(HTTPAdapter):
    def __init__(self, *args: Any, trace: Any = None, **kwargs: Any) -> None:
        self._mcp_trace = trace   # before super(): it builds the pool manager
        self._mcp_pools: dict[Any, Any] = {}
        self._mcp_lines: dict[Any, str] = {}
        super().__init__(*args, **kwargs)

    def get_connection_with_tls_context(self, request: Any, verify: Any,
                                        proxies: Any = None, cert: Any = None) -> Any:
        """The pool for ``request``, remembered until it is closed.

        requests works it out again for every request (parsing the URL, building
        the pool key, asking the manager); it depends on nothing but these
        arguments.  A pool the manager lets go of (urllib3 2 drops the least
        recently used one without closing it) stays in use here, and
        :func:`close_session` closes it with the others.
        """
        key = (request.url, verify, cert, tuple(sorted(proxies.items())) if proxies else ())
        pool = self._mcp_pools.get(key)
        if pool is None or pool.pool is None:
            pool = super().get_connection_with_tls_context(request, verify, proxies, cert)
            if len(self._mcp_pools) >= _POOLS_KEPT:
                self._mcp_pools.clear()
            self._mcp_pools[key] = pool
        return pool

    def request_url(self, request: Any, proxies: Any) -> str:
        """What goes on the request line (remembered: it depends on the URL and proxies only)."""
        key = (request.url, tuple(sorted(proxies.items())) if proxies else ())
        url = self._mcp_lines.get(key)
        if url is None:
            url = super().request_url(request, proxies)
            if len(self._mcp_lines) >= _POOLS_KEPT:
                self._mcp_lines.clear()
            self._mcp_lines[key] = url
        return url

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **kwargs)
        _install(self.poolmanager, self._mcp_trace)

    def proxy_manager_for(self, proxy: str, **kwargs: Any) -> Any:
        manager = super().proxy_manager_for(proxy, **kwargs)
        if isinstance(manager, PoolManager):
            _install(manager, self._mcp_trace)
        return manager


def new_session(url: str, *, pool_size: int, trace: Any = None) -> requests.Session:
    """A session for ``url`` whose exchanges can be aborted through :class:`Handle`.

    What requests would read from the environment on every request -- the
    proxies for ``url`` (``HTTP(S)_PROXY``, ``ALL_PROXY``, ``NO_PROXY``), the
    CA bundle (``REQUESTS_CA_BUNDLE``, ``CURL_CA_BUNDLE``) and ``~/.netrc``
    credentials -- is read once, here: walking ``os.environ`` for each POST
    cost more than the rest of the client's work on it.  A change to the
    environment therefore reaches the next connection, not this one.

    Args:
        url: the endpoint (a same-origin redirect keeps its host, and with
            it the proxy decision).
        pool_size: connections kept per host (more may be opened, and are
            then closed after use instead of pooled).
        trace: the connection's :class:`~mcp_client._log.WireTrace`, if it traces.
    """
    session = requests.Session()
    adapter = _Adapter(pool_connections=4, pool_maxsize=pool_size, max_retries=0, trace=trace)
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    session.headers["User-Agent"] = \
        f"mcp-client/{__version__} {requests.utils.default_user_agent()}"
    settings = session.merge_environment_settings(url, {}, None, None, None)
    session.proxies = dict(settings["proxies"] or {})
    session.verify = settings["verify"]
    if not urlsplit(url).username:   # credentials in the URL win over ~/.netrc
        session.auth = requests.utils.get_netrc_auth(url)   # see explicit_auth
    session.trust_env = False
    return session


def _as_given(request: requests.PreparedRequest) -> requests.PreparedRequest:
    return request


def explicit_auth(auth: Any, headers: Mapping[str, str]) -> Any:
    """The ``auth=`` for one request: the caller's, and never the session's over a header.

    requests applies the session's ``auth`` (here: ``~/.netrc`` credentials)
    to any request that has none of its own -- replacing an ``Authorization``
    header the caller wrote.  A request with such a header gets an ``auth``
    that changes nothing instead.
    """
    if auth is None and any(name.lower() == "authorization" for name in headers):
        return _as_given
    return auth


@functools.lru_cache(maxsize=64)
def _prepared_url(url: str) -> tuple[str, bool]:
    """``url`` as requests sends it, and whether it carries userinfo (cached: it is pure)."""
    request = requests.PreparedRequest()
    request.prepare_url(url, None)
    return str(request.url), bool(urlsplit(url).username or urlsplit(url).password)


@functools.lru_cache(maxsize=256)
def _check_header(header: tuple[str, Any]) -> None:
    """requests' check of one header (cached: it is pure, and the same few repeat)."""
    requests.utils.check_header_validity(header)


def send(session: requests.Session, verb: str, url: str, *, body: bytes | None,
         headers: Mapping[str, str], auth: Any, timeout: Any) -> requests.Response:
    """What ``session.request(verb, url, ..., stream=True, allow_redirects=False)`` sends.

    The same request -- the session's headers under ``headers``, ``auth``
    (else the session's, else the URL's userinfo), the session's cookies both
    ways, its proxies and verification, the response hooks an ``auth`` object
    registers -- with less of the work requests repeats on every call: the
    URL is prepared once, each distinct header checked once, the adapter
    remembers the pool and request line of a URL, and the settings a session made by
    :func:`new_session` never changes are not merged again (``trust_env`` is
    off).  A caller that follows no redirects needs none of their bookkeeping.

    Raises:
        requests.RequestException: as ``session.request`` would.
    """
    request = requests.PreparedRequest()
    request.method = verb
    request.url, userinfo = _prepared_url(url)
    request.headers = prepared = CaseInsensitiveDict[str]()
    for header in {**session.headers, **headers}.items():
        _check_header(header)   # as prepare_headers does (bytes values go as given)
        prepared[header[0]] = header[1]  # type: ignore[assignment]
    jar = session.cookies
    request._cookies = jar   # type: ignore[attr-defined]  # auth handlers may read it
    if len(jar):
        cookie = get_cookie_header(jar, request)   # type: ignore[no-untyped-call]
        if cookie is not None:
            request.headers["Cookie"] = cookie
    request.prepare_body(body, None)
    if auth is None:
        auth = session.auth
    if auth is not None or userinfo:
        request.prepare_auth(auth, url)
    options: dict[str, Any] = {"stream": True, "timeout": timeout, "verify": session.verify,
                               "cert": session.cert, "proxies": session.proxies}
    response: requests.Response = session.get_adapter(url).send(request, **options)
    response = dispatch_hook(   # type: ignore[no-untyped-call]
        "response", request.hooks, response, **options)
    for earlier in response.history:   # an auth hook's retries
        extract_cookies_to_jar(jar, earlier.request, earlier.raw)   # type: ignore[no-untyped-call]
    if response.raw is not None and response.raw.headers.get("Set-Cookie") is not None:
        extract_cookies_to_jar(jar, request, response.raw)   # type: ignore[no-untyped-call]
    return response


def keep_cookies(session: requests.Session, url: str, headers: Any) -> None:
    """Store the ``Set-Cookie`` of an answer from ``url`` that did not go through requests.

    ``headers``: the answer's, with ``get_all(name)`` (a direct response's).
    The session's next request, which has cookies to send, goes the requests way.
    """
    request = requests.PreparedRequest()
    request.prepare_url(url, None)
    request.prepare_headers({})
    session.cookies.extract_cookies(MockResponse(headers),   # type: ignore[arg-type]
                                    MockRequest(request))   # type: ignore[arg-type]


def close_session(session: requests.Session) -> None:
    """Close ``session`` and every idle connection it pooled.

    ``Session.close()`` alone leaves them open under urllib3 2: its pool
    manager forgets its pools without closing them, so their sockets would
    linger (and keep the server's side busy) until garbage collection.
    """
    for adapter in list(session.adapters.values()):
        managers = [getattr(adapter, "poolmanager", None)]
        managers += list(getattr(adapter, "proxy_manager", {}).values())
        for manager in managers:
            if isinstance(manager, PoolManager):
                for key in list(manager.pools.keys()):
                    pool = manager.pools.get(key)
                    if pool is not None:
                        pool.close()
        if isinstance(adapter, _Adapter):   # and those a manager let go of, still in use
            for pool in list(adapter._mcp_pools.values()):
                pool.close()
    session.close()
