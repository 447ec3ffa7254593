"""The default user-agent step: open a browser, receive its redirect on 127.0.0.1.

:class:`Loopback` listens on ``127.0.0.1`` (a random port unless one is
given; RFC 8252 §7.3) and answers the browser's redirect with a small page
that says the tab may be closed.  It waits a bounded time, ignores requests
for other paths and callbacks whose ``state`` is not the one expected (a
stale tab must not end a login, nor a forged one), and stops listening once
it has the answer: a second callback finds nobody there.  It has no thread:
:meth:`Loopback.wait` accepts on the calling thread.

The listener is bound with ``SO_REUSEADDR`` so that a login right after
another finds its port again: the first one's answered connection (closed by
this side first) holds the port in TIME_WAIT for a minute, and on Linux only a
socket bound with ``SO_REUSEADDR`` may bind beside a TIME_WAIT socket that had
it too.  It never lets two sockets listen on one port (that takes
``SO_REUSEPORT``, not used: another program could then take the redirect); on
Windows, where ``SO_REUSEADDR`` would allow exactly that, the port is bound
with ``SO_EXCLUSIVEADDRUSE`` instead.

:func:`launch_browser` starts the browser on a thread of its own and returns
at once: ``webbrowser`` waits for a browser command it runs in the
foreground (w3m, lynx, a curl wrapper, a ``BROWSER`` command line) until it
exits, and such a browser exits only once the listener has answered it.  A
browser that cannot be started, or whose command fails, interrupts
:meth:`Loopback.wait` (:meth:`Loopback.interrupt`), so the caller can offer
another way in.
"""

from __future__ import annotations

import os
import selectors
import socket
import threading
import time
from typing import Callable
from urllib.parse import parse_qs, urlsplit

from ._errors import AuthError

__all__ = ["Loopback", "browser_available", "launch_browser", "DEFAULT_CALLBACK_TIMEOUT",
           "NO_BROWSER"]

#: Seconds a login may take in the browser before it is given up (a bound, not a spec value).
DEFAULT_CALLBACK_TIMEOUT = 300.0
_PATH = "/callback"
_MAX_REQUEST = 16 * 1024
_DONE = (b"<!doctype html><title>Logged in</title><p>The login is complete. "
         b"You can close this tab.</p>")
_WRONG = b"<!doctype html><title>Not this login</title><p>This is not the login in progress.</p>"
NO_BROWSER = ("no web browser is available to log in; pass on_authorize= (a function that "
              "gets the authorization URL and returns the URL the browser was redirected "
              "to) or on_no_browser= (one that shows the URL and returns what the person "
              "pastes), or log in once with a FileTokenStorage shared with this program "
              "(mcp-client login --http URL, which asks for the pasted address)")


def browser_available() -> bool:
    """Whether ``webbrowser`` knows a browser to start (it may still fail to start)."""
    import webbrowser

    try:
        webbrowser.get()
    except webbrowser.Error:
        return False
    return True


def launch_browser(url: str, on_failure: Callable[[], None]) -> threading.Thread:
    """Open ``url`` in the user's browser on a daemon thread, without waiting for it.

    ``on_failure()`` is called from that thread when there is no browser, it
    cannot be started, or its command exits with a failure.  The thread ends
    when the browser command does: at once for a graphical browser, when the
    user quits it for one in the foreground (it is a daemon, so a browser left
    open does not keep the program alive).

    Returns:
        the thread (``mcp-login-browser``).
    """
    import webbrowser

    def run() -> None:
        try:
            opened = webbrowser.get().open(url)
        except (webbrowser.Error, OSError):
            opened = False
        if not opened:
            on_failure()

    thread = threading.Thread(target=run, name="mcp-login-browser", daemon=True)
    thread.start()
    return thread


class Loopback:
    """A one-shot HTTP listener on 127.0.0.1 for the authorization redirect.

    Args:
        port: the port (0: any free one).
        timeout: seconds :meth:`wait` waits in all.

    Raises:
        AuthError: the port cannot be bound.
    """

    def __init__(self, port: int = 0, timeout: float = DEFAULT_CALLBACK_TIMEOUT) -> None:
        self._timeout = float(timeout)
        self.port = int(port)
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            _reuse_safely(self._sock)
            self._sock.bind(("127.0.0.1", self.port))
            self._sock.listen(8)
        except OSError as exc:
            self._sock.close()
            raise AuthError(f"cannot listen on 127.0.0.1:{port} for the login redirect: "
                            f"{exc.strerror or exc}") from None
        self.port = int(self._sock.getsockname()[1])
        # interrupt() writes to one end, wait() watches the other beside the listener.
        self._wake, self._waker = socket.socketpair()

    def __repr__(self) -> str:
        return f"<Loopback 127.0.0.1:{self.port} {'closed' if self._sock.fileno() < 0 else 'open'}>"

    @property
    def redirect_uri(self) -> str:
        """``http://127.0.0.1:<port>/callback``."""
        return f"http://127.0.0.1:{self.port}{_PATH}"

    def wait(self, state: str) -> str | None:
        """The redirect URL of the first callback that carries ``state``.

        Returns:
            the URL, or None once :meth:`interrupt` was called (before or
            during the wait).

        Raises:
            AuthError: none came within the timeout.
        """
        deadline = time.monotonic() + self._timeout
        with selectors.DefaultSelector() as selector:
            selector.register(self._sock, selectors.EVENT_READ)
            selector.register(self._wake, selectors.EVENT_READ)
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AuthError(f"the browser did not come back from the login within "
                                    f"{self._timeout:g}s")
                ready = {key.fileobj for key, _ in selector.select(left)}
                if self._sock in ready:   # a redirect already here wins over an interrupt
                    target = self._accept(state, deadline)
                    if target is not None:
                        self.close()
                        return target
                if self._wake in ready:
                    return None

    def interrupt(self) -> None:
        """Make :meth:`wait` return None (from any thread; harmless once closed)."""
        try:
            self._waker.send(b"!")
        except OSError:
            pass

    def _accept(self, state: str, deadline: float) -> str | None:
        self._sock.settimeout(0.0)
        try:
            conn, _ = self._sock.accept()
        except BlockingIOError:   # the client gave up between select and accept
            return None
        except OSError as exc:
            raise AuthError(f"the login listener failed: {exc.strerror or exc}") from None
        with conn:
            return self._serve(conn, state, deadline)

    def _serve(self, conn: socket.socket, state: str, deadline: float) -> str | None:
        conn.settimeout(max(0.1, min(5.0, deadline - time.monotonic())))
        data = b""
        try:
            while b"\r\n\r\n" not in data and len(data) < _MAX_REQUEST:
                chunk = conn.recv(4096)
                if not chunk:
                    break
                data += chunk
        except OSError:
            return None
        line = data.split(b"\r\n", 1)[0].decode("latin-1")
        parts = line.split()
        target = parts[1] if len(parts) == 3 and parts[0] == "GET" else ""
        split = urlsplit(target)
        if split.path != _PATH:
            _reply(conn, b"404 Not Found", b"")
            return None
        got = parse_qs(split.query).get("state", [""])[0]
        if got != state:
            _reply(conn, b"400 Bad Request", _WRONG)
            return None
        _reply(conn, b"200 OK", _DONE)
        return f"http://127.0.0.1:{self.port}{target}"

    def close(self) -> None:
        """Stop listening (idempotent)."""
        self._sock.close()
        self._wake.close()
        self._waker.close()


def _reuse_safely(sock: socket.socket) -> None:
    """Let ``sock`` bind a port in TIME_WAIT but never share a listening one (see above)."""
    if os.name == "nt":
        exclusive = getattr(socket, "SO_EXCLUSIVEADDRUSE", None)
        if exclusive is not None:
            sock.setsockopt(socket.SOL_SOCKET, exclusive, 1)
        return
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)


def _reply(conn: socket.socket, status: bytes, body: bytes) -> None:
    head = (b"HTTP/1.1 " + status + b"\r\nContent-Type: text/html; charset=utf-8\r\n"
            b"Content-Length: " + str(len(body)).encode() + b"\r\nConnection: close\r\n"
            b"Cache-Control: no-store\r\n\r\n")
    try:
        conn.sendall(head + body)
    except OSError:
        pass
