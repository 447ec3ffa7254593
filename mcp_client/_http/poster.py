"""Sending for :class:`~mcp_client.http.HTTPTransport`: the POSTs, and its session's requests.

A :class:`Poster` owns the transport's connections (a ``requests.Session``
pool and, beside it, the direct path of :mod:`mcp_client._http.direct`)
and what one POST takes on the wire (2026-07-28 basic/transports;
2025-11-25 for the session):

* the direct path when it may take the POST, else requests'; a bearer token
  the direct path sent and the server refused in a way ``auth=`` can cure
  (:func:`~mcp_client._http.direct.for_auth`) is sent again the requests way;
* redirects: only 307/308 to the same origin are followed
  (:func:`~mcp_client._http.checks.redirect`), at most ``max_redirects`` times;
* in a 2025-11-25 session, the session's headers on every POST, and a new
  session when a 404 says the old one is gone (the request is retried once);
* the answer handed to :class:`~mcp_client._http.posts.Answers`.

It is its session's :class:`~mcp_client._http.session.Carrier`: the GET
stream, resuming and DELETE go out through it.  It must not start threads,
nor know about requests in flight: the transport does.
"""

from __future__ import annotations

import json
from types import ModuleType
from typing import TYPE_CHECKING, Any, Callable, Mapping

from .._redact import redact_url
from ..exceptions import TransportError
from .answers import Reader
from .checks import redirect
from .failures import Failures
from .posts import Answers, Exchange
from .session import LegacySession

if TYPE_CHECKING:
    import requests

    from .._log import WireTrace
    from .direct import DirectPool

__all__ = ["Poster"]

#: :mod:`mcp_client._http.wire` and :mod:`mcp_client._http.direct`, which import
#: requests and http.client: loaded by :meth:`Poster.start`, not by ``import
#: mcp_client``, and kept here so that no POST pays for an import statement.
_wire = ModuleType("mcp_client._http.wire (not loaded yet)")
_direct = ModuleType("mcp_client._http.direct (not loaded yet)")

HeadersOf = Callable[[Mapping[str, Any], "Mapping[str, str] | None"], "dict[str, str]"]


class Poster:
    """Sends one transport's requests to its endpoint ``url``.

    Args:
        url: the endpoint.
        headers: the caller's, sent on every request.
        persistent: keep a pool of connections (else one per request).
        auth: the ``auth=`` object (or pair), applied to every request.
        connect_timeout: seconds allowed for connecting.
        max_redirects: how many same-origin 307/308 hops one POST may take.
        pool_size: idle connections kept per host.
        reader: the transport's answer reader.
        headers_of: a message's POST headers (the transport's).
        on_session: called when an ``initialize`` answer opened a 2025-11-25 session.
    """

    def __init__(self, url: str, *, headers: Mapping[str, str], persistent: bool, auth: Any,
                 connect_timeout: float, max_redirects: int, pool_size: int, reader: Reader,
                 headers_of: HeadersOf, on_session: Callable[[], None]) -> None:
        self.url = url
        self._headers = headers
        self._persistent = persistent
        self._auth = auth
        self._connect_timeout = connect_timeout
        self._max_redirects = max_redirects
        self._pool_size = pool_size
        self._failures: Failures = reader.failures
        self._headers_of = headers_of
        self._trace: WireTrace | None = None
        self.pool: requests.Session | None = None   # set by start() when persistent
        self._direct: DirectPool | None = None   # set by start() when POSTs may go direct
        self.legacy = LegacySession(self, reader)
        self.answers = Answers(reader, self.legacy, shown=redact_url(url), on_session=on_session)

    def __repr__(self) -> str:
        return f"<Poster {redact_url(self.url)} pool={self.pool is not None}>"

    def start(self, trace: WireTrace | None) -> None:
        """Load requests, and make the pool (and the direct path) when persistent."""
        global _wire, _direct
        from . import direct, wire

        _wire, _direct = wire, direct
        self._trace = trace
        if self._persistent:
            self.pool = self.new_pool()
            self._direct = direct.pool_for(self.url, self.pool, size=self._pool_size,
                                           trace=trace)

    # -- pools -----------------------------------------------------------------------

    def new_pool(self) -> requests.Session:
        """A new requests session (:mod:`mcp_client._http.wire`), closed by its user."""
        pool: requests.Session = _wire.new_session(self.url, pool_size=self._pool_size,
                                                   trace=self._trace)
        return pool

    def open_pool(self) -> requests.Session:
        """The requests session an exchange uses: the pool, or a new one."""
        return self.pool or self.new_pool()

    def close_pool(self, pool: requests.Session) -> None:
        """Done with what :meth:`open_pool` gave: a new one is closed."""
        if pool is not self.pool:
            _wire.close_session(pool)

    # -- POSTs -----------------------------------------------------------------------

    def exchange(self, exchange: Exchange, body: bytes, headers: dict[str, str]) -> None:
        """POST one message and read its answer (a worker's whole job).

        Raises:
            MCPClientError: the exchange failed (a TransportError, or auth='s own).
        """
        pool = self.open_pool()
        exchange.pool = pool
        try:
            for retried in (False, True):
                wire, sent = self.legacy.stamp(headers, exchange.method)
                if not self._post_and_read(exchange, body, wire, expire=bool(sent) and not retried):
                    return
                # 2025-11-25 session management: a 404 to a request that carried the
                # session id means the session is gone; the request was never processed.
                assert sent is not None
                self.legacy.renew(pool, sent, exchange.handle)
        finally:
            self.close_pool(pool)

    def post_own(self, message: dict[str, Any], *, pool: requests.Session,
                 handle: Any) -> dict[str, Any] | None:
        """POST a message of the session's own (a new session's handshake); its answer.

        Returns:
            the answer, kept rather than delivered (None: a notification).
        """
        method = message["method"]
        exchange = Exchange(0, message.get("id"), method, handle)
        exchange.pool, exchange.sink = pool, []
        wire, _ = self.legacy.stamp(self._headers_of(message, None), method)
        self._post_and_read(exchange, json.dumps(message).encode("utf-8"), wire, expire=False)
        return exchange.sink[0] if exchange.sink else None

    def _post_and_read(self, exchange: Exchange, body: bytes, headers: dict[str, str], *,
                       expire: bool) -> bool:
        """POST and read the answer; True (nothing read) on a 404 when ``expire`` is set."""
        assert exchange.pool is not None
        url = self.url
        for _ in range(self._max_redirects + 1):
            if exchange.handle.aborted:
                return False
            response = self._post_once(exchange, url, body, headers)
            try:
                if expire and response.status_code == 404:
                    error = self.legacy.expired(response, exchange.method)
                    if error is None:
                        return True
                    if exchange.ident is not None:
                        self.answers.answer(exchange, {**error, "id": exchange.ident})
                    return False
                if response.status_code not in (301, 302, 303, 307, 308):
                    self.answers.read(exchange, response)
                    return False
                url = redirect(exchange.method, url, response)
            finally:
                response.close()
        raise TransportError(f"{exchange.method}: more than {self._max_redirects} "
                             f"redirects, the last to {redact_url(url)}")

    def _post_once(self, exchange: Exchange, url: str, body: bytes,
                   headers: dict[str, str]) -> Any:
        """One POST of ``exchange``: the direct path when it may take it, else requests'."""
        assert exchange.pool is not None
        direct = self._direct
        if direct is not None and exchange.pool is self.pool \
                and not len(exchange.pool.cookies):
            prepared = direct.prepare(url, body, headers, self._auth)
            if prepared is not None:
                request, authorized = prepared
                try:
                    exchange.remaining()   # raises once the caller's timeout passed
                    response = direct.post(request, connect_timeout=self._connect_timeout,
                                           deadline=exchange.deadline, handle=exchange.handle)
                except _direct.DirectError as exc:
                    raise self._failures.direct(exc, exchange.method, url) from None
                if not authorized or not _direct.for_auth(response.status_code,
                                                          response.headers):
                    if "Set-Cookie" in response.headers:
                        _wire.keep_cookies(exchange.pool, url, response.headers)
                    return response
                response.close()
        return self._send(exchange.pool, "POST", exchange.method, url, body, headers,
                          read_timeout=exchange.remaining())

    # -- the session's requests ------------------------------------------------------

    def request(self, pool: requests.Session, verb: str, what: str,
                headers: Mapping[str, str], *,
                read_timeout: float | None = None) -> requests.Response:
        """``verb`` (GET, DELETE) the endpoint: the caller's headers, then ``headers``.

        Raises:
            TransportError: no HTTP answer.
        """
        out = {**self._headers, **headers}
        if not self._persistent:
            out["Connection"] = "close"
        return self._send(pool, verb, what, self.url, None, out, read_timeout=read_timeout)

    def _send(self, pool: requests.Session, verb: str, what: str, url: str,
              body: bytes | None, headers: Mapping[str, str], *,
              read_timeout: float | None = None) -> requests.Response:
        """One request the requests way, its failures translated (the response is streamed)."""
        with self._failures.mapped(what, verb, url):
            response: requests.Response = _wire.send(
                pool, verb, url, body=body, headers=headers,
                auth=_wire.explicit_auth(self._auth, headers),
                timeout=(self._connect_timeout, read_timeout))
        return response

    # -- the end ---------------------------------------------------------------------

    def close(self) -> None:
        """Close the direct path, end the session (DELETE) and close the pool."""
        if self._direct is not None:
            self._direct.close()
        pool = self.pool
        if pool is None and self.legacy.session_id:
            pool = self.new_pool()   # not persistent: a connection for the DELETE
        if pool is not None:
            self.legacy.end(pool, self._connect_timeout)   # 2025-11-25: DELETE ends the session
            _wire.close_session(pool)
