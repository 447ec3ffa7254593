"""The host page of ``mcp-client app``: one app view, served on 127.0.0.1 to the user's browser.

This module owns :class:`Viewer`, a small HTTP server on a loopback port
that plays the *host page* of the MCP Apps extension (``io.modelcontextprotocol/ui``)
for one view: it serves the page, the view's HTML under the view's own
Content-Security-Policy, and relays the view's JSON-RPC messages to an
:class:`~mcp_client.apps.AppBridge`.  What the bridge answers (the
protocol) is the bridge's; what the browser does with the page is the
browser's; this module is the wire between them, and the guard at the door.

Decisions:

* **The standard library's** :class:`http.server.ThreadingHTTPServer`, no
  dependency.  The server answers one person's browser on a loopback
  port for as long as one view is open: a handful of requests a second at
  most, no TLS (loopback), no streaming (every exchange is one small POST).
  That is what ``http.server`` does well; a framework would add a
  dependency to every install of the client for a command few run.  Its
  known weaknesses do not bite here: it binds 127.0.0.1 only, serves no
  files from disk, and refuses every request that lacks a secret.  It
  speaks HTTP/1.0 (one request per connection), so no idle keep-alive
  connection holds a thread when the viewer stops, and each connection's
  socket has a timeout, so a browser's speculative connection that never
  sends a request does not either.
* **Secrets.**  The URL printed and opened carries a one-time token
  (:func:`secrets.token_urlsafe`, 32 bytes): the first ``GET /?token=...``
  with it gets the page, and the token is spent -- a second load, any other
  token, or none is ``403``.  The page then carries a session secret of its
  own, sent in a header (``X-MCP-Viewer-Session``) with every relayed
  message and heartbeat, and in the query of the close beacon (a beacon
  cannot set headers).  The view's HTML is at a third, single-use path.
  Tokens are compared with :func:`secrets.compare_digest`.  Every answer
  says ``Cache-Control: no-store`` and ``Referrer-Policy: no-referrer``.
  A request whose ``Host`` is not this server (``127.0.0.1:PORT`` or
  ``localhost:PORT``) is refused too: a site whose name was made to
  resolve to the loopback address gets nowhere, even with a token.
* **The sandbox.**  The view is an ``<iframe sandbox="allow-scripts">``:
  no ``allow-same-origin``, so the view runs in an opaque origin and can
  reach neither the page, its secret, nor the viewer's endpoints with the
  page's standing (the spec's host page keeps the view in an origin apart
  from its own; a sandboxed frame is that origin here, as the spec's
  "Sandbox proxy" would be on a web host).  The view's document is
  served with a ``Content-Security-Policy`` header built from the
  resource's ``_meta.ui.csp`` as the spec maps it (:func:`view_csp`): the
  spec's restrictive default when it declares nothing, ``connect-src``
  from ``connectDomains``, the static-resource directives from
  ``resourceDomains``, ``frame-src`` from ``frameDomains``, ``base-uri``
  from ``baseUriDomains``, ``object-src 'none'`` always.  An origin that
  is not a plain ``scheme://host[:port]`` source (a keyword, a bare
  ``*``, a ``;``) is dropped, never copied into the header.  The
  resource's ``permissions`` become the frame's ``allow`` attribute.
* **The relay.**  The page posts each message the frame sends
  (``event.source`` is the frame) to ``POST /rpc``; the server answers
  ``{"reply": ..., "push": [...]}``: the bridge's reply (or ``null`` for a
  notification), and messages to post to the view after it.  The view's
  ``ui/notifications/initialized`` is answered with the ``tool-input`` and
  ``tool-result`` notifications (the spec: nothing is sent to a view
  before it says it is initialised).  A bridge that raises answers a
  request with a JSON-RPC internal error; it never takes the server down.
* **Stopping.**  :meth:`Viewer.wait` returns when the page is closed (it
  sends ``POST /close`` as a beacon on ``pagehide``), when its heartbeat
  (``POST /heartbeat`` every ``heartbeat`` seconds) has not been heard for
  ``heartbeat_timeout`` seconds once the page has loaded (a browser that
  died), or when the caller stops waiting (Ctrl-C).  :meth:`Viewer.close`
  stops the server and joins its threads; it is idempotent.  The timeout
  is generous by default because browsers slow a hidden tab's timers to
  once a minute.
"""

from __future__ import annotations

import html
import json
import logging
import re
import secrets
import threading
import time
import urllib.parse
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any, Callable, Mapping

__all__ = ["Viewer", "view_csp", "frame_allow", "SESSION_HEADER"]

log = logging.getLogger(__name__)

#: The header that carries the page's session secret on every relayed message.
SESSION_HEADER = "X-MCP-Viewer-Session"

#: The most bytes one relayed message may have.
MAX_MESSAGE = 4 * 1024 * 1024

#: A CSP host-source the viewer copies into a header: ``scheme://host[:port][/path]``,
#: the host possibly ``*.``-prefixed; nothing that could end a directive or name a keyword.
_SOURCE = re.compile(r"^(https?|wss?)://(\*\.)?[A-Za-z0-9.-]+(:(\d{1,5}|\*))?"
                     r"(/[A-Za-z0-9._~/%-]*)?$")

#: The spec's ``permissions`` keys and the Permissions-Policy feature each maps to.
_PERMISSIONS = {"camera": "camera", "microphone": "microphone", "geolocation": "geolocation",
                "clipboardWrite": "clipboard-write"}


def _sources(csp: Mapping[str, Any], key: str, dropped: list[str]) -> list[str]:
    """The valid origins of ``csp[key]``; each one refused is added to ``dropped``."""
    values = csp.get(key)
    if not isinstance(values, list):
        if values is not None:
            dropped.append(f"{key}: {values!r}")
        return []
    kept = []
    for value in values:
        if isinstance(value, str) and _SOURCE.fullmatch(value):   # "$" lets a "\n" by
            kept.append(value)
        else:
            dropped.append(f"{key}: {value!r}")
    return kept


def view_csp(csp: Mapping[str, Any] | None,
             dropped: list[str] | None = None) -> str:
    """The ``Content-Security-Policy`` header of a view whose resource declared ``csp``.

    ``None`` or ``{}`` gives the spec's restrictive default; declared
    origins widen only the directive the spec maps them to.  Origins that
    are not plain ``scheme://host[:port][/path]`` sources are left out, and
    named in ``dropped`` when a list is given.
    """
    dropped = [] if dropped is None else dropped
    csp = csp if isinstance(csp, Mapping) else {}
    connect = _sources(csp, "connectDomains", dropped)
    resource = _sources(csp, "resourceDomains", dropped)
    frame = _sources(csp, "frameDomains", dropped)
    base = _sources(csp, "baseUriDomains", dropped)

    def directive(name: str, *always: str, extra: list[str] = resource) -> str:
        return " ".join([name, *always, *extra])

    parts = [
        "default-src 'none'",
        directive("script-src", "'self'", "'unsafe-inline'"),
        directive("style-src", "'self'", "'unsafe-inline'"),
        directive("img-src", "'self'", "data:"),
        directive("media-src", "'self'", "data:"),
        directive("font-src", "'self'"),
        " ".join(["connect-src", *(connect or ["'none'"])]),
        " ".join(["frame-src", *(frame or ["'none'"])]),
        " ".join(["base-uri", *(base or ["'self'"])]),
        "object-src 'none'",
        "form-action 'none'",
    ]
    return "; ".join(parts)


def frame_allow(permissions: Mapping[str, Any] | None) -> str:
    """The iframe's ``allow`` attribute for the resource's ``permissions`` ("" for none)."""
    if not isinstance(permissions, Mapping):
        return ""
    return "; ".join(feature for key, feature in _PERMISSIONS.items() if key in permissions)


def _same(given: str, secret: str) -> bool:
    """Whether ``given`` is ``secret``, compared in constant time (any text may be given)."""
    return bool(given) and secrets.compare_digest(given.encode("utf-8"), secret.encode("utf-8"))


def _page_template() -> str:
    return resources.files(__package__).joinpath("viewer.html").read_text(encoding="utf-8")


class _Server(ThreadingHTTPServer):
    """The HTTP server: handler threads are joined on close (``block_on_close``)."""

    daemon_threads = False
    block_on_close = True
    viewer: Viewer

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A request that broke (a browser that hung up): logged, never printed."""
        log.debug("the viewer's request from %s failed", client_address, exc_info=True)


class _Handler(BaseHTTPRequestHandler):
    """One request: every path checks its secret first (403 without it)."""

    server: _Server
    timeout = 2                      # a connection that sends nothing does not keep a thread
    server_version = "mcp-client-viewer"
    sys_version = ""

    def log_message(self, format: str, *args: Any) -> None:   # noqa: A002 -- the base's name
        """Quiet: the command line's stderr is the user's."""

    # -- answers -----------------------------------------------------------------------

    def _send(self, status: int, body: bytes, content_type: str,
              headers: Mapping[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("X-Content-Type-Options", "nosniff")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _refuse(self, status: int = HTTPStatus.FORBIDDEN) -> None:
        phrase = HTTPStatus(status).phrase
        self._send(status, f"{status} {phrase}\n".encode(), "text/plain; charset=utf-8")

    def _json(self, value: Any) -> None:
        self._send(HTTPStatus.OK, json.dumps(value).encode(), "application/json")

    # -- the verbs ---------------------------------------------------------------------

    def _foreign_host(self) -> bool:
        """True (and refused) unless the request names this server as its host.

        A page of another site whose name was made to resolve to 127.0.0.1
        (DNS rebinding) sends its own name here.
        """
        port = self.server.viewer.port
        if self.headers.get("Host") in (f"127.0.0.1:{port}", f"localhost:{port}"):
            return False
        self._refuse()
        return True

    def do_GET(self) -> None:
        viewer = self.server.viewer
        if self._foreign_host():
            return
        url = urllib.parse.urlsplit(self.path)
        query = urllib.parse.parse_qs(url.query)
        if url.path == "/":
            page = viewer._open_page(query.get("token", [""])[0])
            if page is None:
                return self._refuse()
            body, policy = page
            return self._send(HTTPStatus.OK, body, "text/html; charset=utf-8",
                              {"Content-Security-Policy": policy,
                               "X-Frame-Options": "DENY"})
        if url.path.startswith("/view/"):
            view = viewer._open_view(url.path[len("/view/"):])
            if view is None:
                return self._refuse()
            body, policy = view
            return self._send(HTTPStatus.OK, body, "text/html; charset=utf-8",
                              {"Content-Security-Policy": policy})
        self._refuse()

    do_HEAD = do_GET

    def do_POST(self) -> None:
        viewer = self.server.viewer
        if self._foreign_host():
            return
        url = urllib.parse.urlsplit(self.path)
        query = urllib.parse.parse_qs(url.query)
        session = self.headers.get(SESSION_HEADER) or query.get("session", [""])[0]
        if not viewer._is_session(session):
            return self._refuse()
        length = self.headers.get("Content-Length") or "0"
        if not length.isdigit() or int(length) > MAX_MESSAGE:
            return self._refuse(HTTPStatus.REQUEST_ENTITY_TOO_LARGE)
        body = self.rfile.read(int(length))
        if url.path == "/heartbeat":
            viewer._heard()
            return self._json({})
        if url.path == "/close":
            viewer._page_closed()
            return self._json({})
        if url.path != "/rpc":
            return self._refuse(HTTPStatus.NOT_FOUND)
        try:
            message = json.loads(body)
        except ValueError:
            return self._refuse(HTTPStatus.BAD_REQUEST)
        if not isinstance(message, dict):
            return self._refuse(HTTPStatus.BAD_REQUEST)
        viewer._heard()
        self._json(viewer.relay(message))


class Viewer:
    """The host page of one app view, on ``http://127.0.0.1:PORT`` (see the module docstring).

    Args:
        bridge: answers the view's messages (``handle(message) -> dict | None``)
            and makes the notifications it is shown (``tool_input(arguments)``,
            ``tool_result(result)``): an :class:`~mcp_client.apps.AppBridge`.
        view: the view (an :class:`~mcp_client.apps.AppView`: ``uri``,
            ``html``, ``csp``, ``permissions``).
        arguments: the tool call's arguments, for the ``tool-input`` notification.
        result: the tool call's wire result, for the ``tool-result`` notification.
        title: the page's title and heading.
        heartbeat: seconds between the page's heartbeats.
        heartbeat_timeout: seconds without one (once the page has loaded)
            after which the page is taken for gone.
        on_dropped: called with each CSP origin left out of the view's header.
    """

    def __init__(self, bridge: Any, view: Any, *, arguments: Mapping[str, Any] | None,
                 result: Mapping[str, Any], title: str = "MCP app",
                 heartbeat: float = 10.0, heartbeat_timeout: float = 150.0,
                 on_dropped: Callable[[str], None] | None = None) -> None:
        self.bridge = bridge
        self.view = view
        self.arguments = dict(arguments or {})
        self.result = dict(result)
        self.title = title
        self.heartbeat = heartbeat
        self.heartbeat_timeout = heartbeat_timeout
        self._lock = threading.Lock()
        self._token: str | None = secrets.token_urlsafe(32)
        self._session = secrets.token_urlsafe(32)
        self._view_token: str | None = secrets.token_urlsafe(32)
        self._nonce = secrets.token_urlsafe(16)
        self._loaded = False
        self._shown = False
        self._last_heard = time.monotonic()
        self.closed = threading.Event()
        #: Why the viewer stopped waiting: ``"page closed"``, ``"heartbeat lost"`` or None.
        self.reason: str | None = None
        dropped: list[str] = []
        self._view_policy = view_csp(getattr(view, "csp", None), dropped)
        for item in dropped:
            if on_dropped is not None:
                on_dropped(item)
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.viewer = self
        self._thread: threading.Thread | None = None
        self._stopped = False

    # -- the public surface ------------------------------------------------------------

    @property
    def port(self) -> int:
        """The loopback port the viewer listens on."""
        return int(self._server.server_address[1])

    @property
    def origin(self) -> str:
        """``http://127.0.0.1:PORT``."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        """The page's address, one-time token included (empty once the token is spent)."""
        token = self._token
        return f"{self.origin}/?token={token}" if token else ""

    def start(self) -> Viewer:
        """Serve on a thread of its own; returns ``self``."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._server.serve_forever,
                                            kwargs={"poll_interval": 0.1},
                                            name="mcp-client-viewer", daemon=True)
            self._thread.start()
        return self

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the page is closed or its heartbeat is lost; True if it was.

        ``timeout`` (seconds, None for no limit) bounds the wait; a
        ``KeyboardInterrupt`` raised while waiting propagates.
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        step = max(0.05, min(1.0, self.heartbeat))
        while True:
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                return self.closed.is_set()
            if self.closed.wait(step if left is None else min(step, left)):
                return True
            with self._lock:
                silent = time.monotonic() - self._last_heard
                lost = self._loaded and silent > self.heartbeat_timeout
            if lost:
                self._stop_waiting("heartbeat lost")

    def close(self) -> None:
        """Stop serving and join the server's threads; idempotent."""
        with self._lock:
            if self._stopped:
                return
            self._stopped = True
        if self._thread is not None:
            self._server.shutdown()
            self._thread.join()
        self._server.server_close()   # joins the request threads (block_on_close)
        self.closed.set()

    def __enter__(self) -> Viewer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def relay(self, message: dict[str, Any]) -> dict[str, Any]:
        """One message from the view: ``{"reply": the bridge's answer or None, "push": [...]}``.

        ``push`` holds what to post to the view after the reply: the
        ``tool-input`` and ``tool-result`` notifications once the view has
        said ``ui/notifications/initialized`` (the first time only).
        """
        try:
            reply = self.bridge.handle(message)
        except Exception as exc:   # the bridge's bug is the view's error, not the server's end
            ident = message.get("id")
            reply = None if ident is None or "method" not in message else {
                "jsonrpc": "2.0", "id": ident,
                "error": {"code": -32603, "message": f"{type(exc).__name__}: {exc}"}}
        push: list[dict[str, Any]] = []
        if message.get("method") == "ui/notifications/initialized":
            with self._lock:
                first, self._shown = not self._shown, True
            if first:
                try:
                    push = [self.bridge.tool_input(self.arguments),
                            self.bridge.tool_result(self.result)]
                except Exception:   # the view waits on: better than a broken relay
                    log.warning("the view's tool-input and tool-result could not be made",
                                exc_info=True)
        return {"reply": reply, "push": push}

    # -- what the handler asks ---------------------------------------------------------

    def _open_page(self, token: str) -> tuple[bytes, str] | None:
        """The page for the one-time ``token`` (spending it), or None."""
        with self._lock:
            expected = self._token
            if expected is None or not _same(token, expected):
                return None
            self._token = None
            self._loaded = True
            self._last_heard = time.monotonic()
        nonce = self._nonce
        config = {"session": self._session, "header": SESSION_HEADER,
                  "view": f"/view/{self._view_token}", "heartbeat": int(self.heartbeat * 1000)}
        text = _page_template()
        for name, value in (("NONCE", nonce), ("TITLE", html.escape(self.title)),
                            ("ALLOW", html.escape(frame_allow(getattr(self.view, "permissions",
                                                                      None)))),
                            ("CONFIG", json.dumps(config).replace("<", "\\u003c"))):
            text = text.replace("{{" + name + "}}", value)
        policy = (f"default-src 'none'; script-src 'nonce-{nonce}'; style-src 'nonce-{nonce}'; "
                  "connect-src 'self'; frame-src 'self'; img-src 'self' data:; "
                  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
        return text.encode("utf-8"), policy

    def _open_view(self, token: str) -> tuple[bytes, str] | None:
        """The view's HTML for its single-use path token (spending it), or None."""
        with self._lock:
            expected = self._view_token
            if expected is None or not _same(token, expected):
                return None
            self._view_token = None
        return str(self.view.html).encode("utf-8"), self._view_policy

    def _is_session(self, session: str) -> bool:
        with self._lock:
            loaded = self._loaded
        return loaded and _same(session, self._session)

    def _heard(self) -> None:
        with self._lock:
            self._last_heard = time.monotonic()

    def _page_closed(self) -> None:
        self._stop_waiting("page closed")

    def _stop_waiting(self, reason: str) -> None:
        with self._lock:
            if self.reason is None:
                self.reason = reason
        self.closed.set()
