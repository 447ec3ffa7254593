"""Saying a failed HTTP exchange as the library's error: the one place that does.

requests, urllib3, the socket and the direct path
(:mod:`mcp_client._http.direct`) each fail in their own words; every HTTP
transport turns them into a :class:`~mcp_client.exceptions.TransportError`
here, as httpx's ``map_exceptions`` does: :meth:`Failures.mapped` around a
request sent the requests way, :meth:`Failures.direct` for the direct path
(whose caller catches it itself: that path takes no extra frame), and
:meth:`Failures.cause` for a read that broke once the answer began.  What
they say: whether the host was reached at all, the innermost readable
reason, and a URL only as :mod:`mcp_client._redact` shows it -- a cause that
quotes a URL with secrets is not chained either.

It must not send anything or know about MCP: it only translates.
"""

from __future__ import annotations

from types import TracebackType
from typing import Any

from .._redact import redact_text, redact_url
from ..exceptions import TransportError

__all__ = ["Failures", "root_cause"]


def root_cause(exc: BaseException) -> str:
    """The innermost readable reason in a requests/urllib3 exception chain."""
    seen: set[int] = set()
    node: Any = exc
    reason = str(exc)
    while node is not None and id(node) not in seen:
        seen.add(id(node))
        if isinstance(node, OSError) and node.strerror:
            reason = node.strerror
        inner = getattr(node, "reason", None)
        if not isinstance(inner, BaseException):
            args = getattr(node, "args", ())
            inner = args[0] if args and isinstance(args[0], BaseException) else None
        node = inner or node.__cause__ or node.__context__
    return reason


class Failures:
    """The translations of one transport, whose endpoint is ``url``.

    Args:
        url: the endpoint, as given (it may carry secrets: only shown redacted).
        connect_timeout: the transport's bound on connecting, named when it passed.
    """

    __slots__ = ("url", "_shown", "_connect_timeout")

    def __init__(self, url: str, connect_timeout: float) -> None:
        self.url = url
        self._shown = redact_url(url)
        self._connect_timeout = connect_timeout

    def __repr__(self) -> str:
        return f"<Failures {self._shown}>"

    def mapped(self, what: str, verb: str, url: str) -> _Mapped:
        """A context manager: a requests exception inside becomes a :class:`TransportError`.

        ``what`` names the exchange (a method, ``"the GET stream"``), ``verb``
        and ``url`` the request that failed.
        """
        return _Mapped(self, what, verb, url)

    def direct(self, exc: Any, what: str, url: str) -> TransportError:
        """A direct POST's ``DirectError``, said as a requests failure is (no cause chained)."""
        kind = "connect" if exc.timed_out and not exc.connected else \
            "failed" if exc.timed_out else "unreachable"
        return self.no_answer(kind, what, "POST", url, exc.reason)

    def no_answer(self, kind: str, what: str, verb: str, url: str,
                  reason: str) -> TransportError:
        """No HTTP answer: ``kind`` is ``connect`` (timed out), ``unreachable`` or ``failed``."""
        shown = redact_url(url)
        if kind == "connect":
            return TransportError(f"{what}: could not connect to {shown} within "
                                  f"{self._connect_timeout:g}s")
        said = "cannot reach" if kind == "unreachable" else f"the {verb} to"
        ending = "" if kind == "unreachable" else " failed"
        return TransportError(f"{what}: {said} {shown}{ending}: "
                              f"{redact_text(reason, url, self.url)}")

    def cause(self, exc: BaseException, url: str | None = None) -> str:
        """:func:`root_cause`, with the URLs it may quote redacted (a broken read's words)."""
        return redact_text(root_cause(exc), url or self.url, self.url)

    def chained(self, exc: BaseException, url: str) -> BaseException | None:
        """``exc`` as the cause of ours -- unless a URL with secrets is in play.

        requests and urllib3 quote the URL's path and query in their messages
        (``Max retries exceeded with url: /mcp?token=...``), and a chained
        cause is printed with every traceback of ours.
        """
        secret = redact_url(url) != url or self._shown != self.url
        return None if secret else exc


class _Mapped:
    """:meth:`Failures.mapped`: translates on the way out, costs nothing on the way in."""

    __slots__ = ("_failures", "_what", "_verb", "_url")

    def __init__(self, failures: Failures, what: str, verb: str, url: str) -> None:
        self._failures, self._what, self._verb, self._url = failures, what, verb, url

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        import requests

        if not isinstance(exc, requests.exceptions.RequestException):
            return   # none, or not requests': it goes on as it is
        said = "connect" if isinstance(exc, requests.exceptions.ConnectTimeout) else \
            "unreachable" if isinstance(exc, requests.exceptions.ConnectionError) else "failed"
        failures = self._failures
        raise failures.no_answer(said, self._what, self._verb, self._url, root_cause(exc)) \
            from failures.chained(exc, self._url)
