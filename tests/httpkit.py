"""HTTP servers for the transport tests: the live SDK server, and scripted stdlib ones.

:class:`LiveServer` runs ``tests/servers/http_server.py`` (the demo server over the official
SDK's Streamable HTTP app) as a child process.  :class:`ScriptedServer` is a stdlib
``http.server`` in a thread whose every POST is answered by a function the test gives -- the
way to build the misbehaving servers (HTML 500s, streams cut mid-event, redirects,
legacy-only endpoints) that no real SDK would be.  :class:`RawServer` is a bare listening socket,
for servers that do not speak HTTP at all: accepting and never reading, answering garbage,
resetting the connection.
"""

from __future__ import annotations

import json
import os
import queue
import re
import selectors
import shutil
import socket
import ssl
import struct
import subprocess
import tempfile
import threading
import time
import unittest
from unittest import mock
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

from mcp_client import Client, MCPClientError, protocol
from mcp_client.http import HTTPTransport

from .base import PYTHON, LeakCheckingTestCase, discover, server

#: seconds a live server gets to print its port
START_TIMEOUT = 30.0
#: seconds any one wait in a test may take before it counts as a hang
WAIT = 10.0


def connect(url: str, **options: Any) -> Client:
    """A client over HTTP (client options and HTTP options alike)."""
    return Client.connect_http(url, **options)


class LiveServer:
    """The demo server over Streamable HTTP, in a child process on 127.0.0.1.

    ``script`` names another server of ``tests/servers`` that prints ``PORT=<n>``
    once it listens and exits on stdin EOF.
    """

    def __init__(self, *args: str, script: str = "http_server.py") -> None:
        self.proc = subprocess.Popen([PYTHON, *server(script), *args],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE)
        try:
            self.port = self._read_port()
        except BaseException:
            self.stop()
            raise
        self.url = f"http://127.0.0.1:{self.port}/mcp"

    def _read_port(self) -> int:
        assert self.proc.stdout is not None
        with selectors.DefaultSelector() as selector:
            selector.register(self.proc.stdout, selectors.EVENT_READ)
            if not selector.select(START_TIMEOUT):
                raise RuntimeError("the HTTP server did not print its port")
        line = self.proc.stdout.readline().decode()
        if not line.startswith("PORT="):
            raise RuntimeError(f"the HTTP server said {line!r}")
        return int(line[5:])

    def stop(self) -> str:
        """Stop the server (stdin EOF, then SIGTERM, then SIGKILL); returns its stderr."""
        err = b""
        for escalate in (None, self.proc.terminate, self.proc.kill):
            if escalate is not None:
                escalate()
            try:
                err = self.proc.communicate(timeout=10)[1] or b""   # closes stdin first
                break
            except subprocess.TimeoutExpired:
                continue
        return err.decode("utf-8", "replace")


class Seen:
    """One request a :class:`ScriptedServer` received."""

    def __init__(self, handler: BaseHTTPRequestHandler, body: bytes) -> None:
        self.method = handler.command
        self.path = handler.path
        self.headers = {k.lower(): v for k, v in handler.headers.items()}
        self.raw_headers = list(handler.headers.items())
        self.body = body
        self.port = handler.client_address[1]
        try:
            self.json: Any = json.loads(body) if body else None
        except ValueError:
            self.json = None

    @property
    def rpc_method(self) -> str | None:
        return self.json.get("method") if isinstance(self.json, dict) else None

    @property
    def rpc_id(self) -> Any:
        return self.json.get("id") if isinstance(self.json, dict) else None


Respond = Callable[["Reply", Seen], None]


class Reply:
    """What a scripted handler writes back; each method sends one whole answer."""

    def __init__(self, handler: BaseHTTPRequestHandler) -> None:
        self.handler = handler

    def send(self, status: int, body: bytes = b"", content_type: str | None = None,
             headers: dict[str, str] | None = None) -> None:
        self.handler.send_response(status)
        if content_type:
            self.handler.send_header("Content-Type", content_type)
        for name, value in (headers or {}).items():
            self.handler.send_header(name, value)
        self.handler.send_header("Content-Length", str(len(body)))
        self.handler.end_headers()
        self.handler.wfile.write(body)
        self.handler.wfile.flush()

    def json(self, message: Any, status: int = 200) -> None:
        self.send(status, json.dumps(message).encode(), "application/json")

    def result(self, seen: Seen, result: dict[str, Any]) -> None:
        self.json({"jsonrpc": "2.0", "id": seen.rpc_id, "result": result})

    def stream_head(self, *, chunked: bool = True) -> None:
        """Start an event stream: chunked, or ended by closing the connection."""
        self.handler.send_response(200)
        self.handler.send_header("Content-Type", "text/event-stream")
        if chunked:
            self.handler.send_header("Transfer-Encoding", "chunked")
        else:
            self.handler.send_header("Connection", "close")
            self.handler.close_connection = True
        self.handler.end_headers()
        self.handler.wfile.flush()

    def stream_write(self, data: bytes, *, chunked: bool = True) -> None:
        if chunked:
            data = f"{len(data):x}\r\n".encode() + data + b"\r\n"
        self.handler.wfile.write(data)
        self.handler.wfile.flush()

    def stream_end(self) -> None:
        self.handler.wfile.write(b"0\r\n\r\n")
        self.handler.wfile.flush()

    def hang_up(self) -> None:
        """Drop the connection now, whatever was written."""
        self.handler.close_connection = True
        try:
            self.handler.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def wait_for_hang_up(self, timeout: float) -> bool:
        """Block until the client closes the connection; True if it did in time."""
        sock = self.handler.connection
        before = sock.gettimeout()
        sock.settimeout(timeout)
        try:
            closed: bool = sock.recv(1) == b""
            return closed
        except OSError:
            return False
        finally:
            sock.settimeout(before)   # writes block again as they did

    def drip(self, data: bytes, every: float, *, chunked: bool = False) -> bool:
        """Write ``data`` a byte at a time, ``every`` seconds apart (paced by waiting for
        the client to hang up); False as soon as it has."""
        for byte in data:
            try:
                self.stream_write(bytes([byte]), chunked=chunked)
            except OSError:
                return False
            if self.wait_for_hang_up(every):
                return False
        return True

    def reset(self) -> None:
        """Abort the connection with a TCP RST (whatever was written)."""
        reset(self.handler.connection)
        self.handler.close_connection = True


def reset(sock: socket.socket) -> None:
    """Close ``sock`` so that the peer gets a RST, not a FIN."""
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        sock.close()
    except OSError:
        pass


def event(message: Any, *, crlf: bool = True) -> bytes:
    """One SSE event carrying ``message`` as the SDK frames it."""
    end = b"\r\n" if crlf else b"\n"
    return b"event: message" + end + b"data: " + json.dumps(message).encode() + end + end


#: What a scripted server answers to server/discover.
DISCOVERED = discover({"tools": {}, "resources": {}, "prompts": {}}, name="scripted",
                      uncached=True)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 10   # an idle keep-alive connection ends after this

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        seen = Seen(self, self.rfile.read(length))
        owner: ScriptedServer = self.server.owner   # type: ignore[attr-defined]
        owner.record(seen)
        owner.respond(Reply(self), seen)

    def do_GET(self) -> None:
        self._other("get")

    def do_DELETE(self) -> None:
        self._other("delete")

    def _other(self, verb: str) -> None:
        seen = Seen(self, b"")
        owner: ScriptedServer = self.server.owner   # type: ignore[attr-defined]
        owner.record(seen)
        handler = getattr(owner.script, verb, None)
        if handler is None:
            Reply(self).send(405, b"Method Not Allowed", "text/plain", {"Allow": "POST"})
        else:
            handler(Reply(self), seen)

    def log_message(self, format: str, *args: Any) -> None:
        pass


class _Server(ThreadingHTTPServer):
    daemon_threads = False   # joined by server_close(), so tests can check for leaks
    block_on_close = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass   # a client that hung up mid-answer is what several tests are about


class ScriptedServer:
    """A stdlib HTTP server on 127.0.0.1 whose POSTs ``respond(reply, seen)`` answers.

    The default answers ``server/discover`` with a DiscoverResult and everything
    else with the result ``{}``; pass ``respond`` to script more.
    """

    def __init__(self, respond: Respond | None = None) -> None:
        self.requests: list[Seen] = []
        self._lock = threading.Lock()
        self._respond = respond or self.default
        self.script = respond   # a LegacyScript also answers GET and DELETE
        self.httpd = _Server(("127.0.0.1", 0), _Handler)
        self.httpd.owner = self   # type: ignore[attr-defined]
        self.port = self.httpd.server_address[1]
        self.origin = f"http://127.0.0.1:{self.port}"
        self.url = self.origin + "/mcp"
        self._thread = threading.Thread(target=self.httpd.serve_forever,
                                        kwargs={"poll_interval": 0.05},
                                        name=f"scripted-http-{self.port}")
        self._thread.start()

    def record(self, seen: Seen) -> None:
        with self._lock:
            self.requests.append(seen)

    def respond(self, reply: Reply, seen: Seen) -> None:
        self._respond(reply, seen)

    @staticmethod
    def default(reply: Reply, seen: Seen) -> None:
        if seen.rpc_method == "server/discover":
            reply.result(seen, DISCOVERED)
        elif seen.rpc_id is None:
            reply.send(202)
        else:
            reply.result(seen, {"resultType": "complete"})

    def seen(self, method: str) -> list[Seen]:
        with self._lock:
            return [s for s in self.requests if s.rpc_method == method]

    def verbs(self, verb: str) -> list[Seen]:
        with self._lock:
            return [s for s in self.requests if s.method == verb]

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self._thread.join(10)


class RawServer:
    """A listening socket on 127.0.0.1; every connection is ``handle(conn, stopped)`` on a
    thread of its own.  :meth:`stop` sets ``stopped`` and shuts every connection down, so a
    handler that waits on either ends; it then joins them all."""

    def __init__(self, handle: Callable[[socket.socket, threading.Event], object]) -> None:
        self._handle = handle
        self.stopped = threading.Event()
        self.connections: list[socket.socket] = []
        self._threads: list[threading.Thread] = []
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(0.05)
        self.port = self._listener.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self._accepter = threading.Thread(target=self._accept, name=f"raw-http-{self.port}")
        self._accepter.start()

    def _accept(self) -> None:
        while not self.stopped.is_set():
            try:
                conn, _ = self._listener.accept()
            except OSError:   # the poll interval passed: look at ``stopped`` again
                continue
            self.connections.append(conn)
            thread = threading.Thread(target=self._serve, args=(conn,),
                                      name=f"raw-http-{self.port}-{len(self._threads)}")
            self._threads.append(thread)
            thread.start()

    def _serve(self, conn: socket.socket) -> None:
        try:
            self._handle(conn, self.stopped)
        except OSError:
            pass   # the client went away: what several tests are about
        finally:
            conn.close()

    def stop(self) -> None:
        self.stopped.set()
        self._accepter.join(10)
        self._listener.close()
        for conn in self.connections:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        for thread in self._threads:
            thread.join(10)


def read_request(conn: socket.socket) -> bytes:
    """Read one HTTP request (headers and a Content-Length body) from a raw connection."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return data
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    found = re.search(rb"(?im)^content-length:\s*(\d+)", head)
    length = int(found.group(1)) if found else 0
    while len(body) < length:
        chunk = conn.recv(65536)
        if not chunk:
            break
        body += chunk
    return head + b"\r\n\r\n" + body


def elapsed(since: float) -> float:
    return time.monotonic() - since


class Wire:
    """An :class:`HTTPTransport` driven by hand: raw messages in, callbacks recorded."""

    def __init__(self, test: unittest.TestCase, url: str, **options: Any) -> None:
        self.transport = HTTPTransport(url, **options)
        self.messages: queue.Queue[dict[str, Any]] = queue.Queue()
        self.errors: queue.Queue[tuple[Any, MCPClientError]] = queue.Queue()
        self.warnings: list[str] = []
        self.closes: list[MCPClientError] = []
        self.transport.start(self.messages.put, self.closes.append, self.warnings.append,
                             lambda ident, exc: self.errors.put((ident, exc)))
        test.addCleanup(self.transport.close)

    def request(self, ident: int, method: str, params: dict[str, Any] | None = None,
                headers: dict[str, str] | None = None) -> None:
        meta = protocol.envelope("2026-07-28", client_info={"name": "t", "version": "1"},
                                 capabilities={})
        self.transport.send(protocol.request(ident, method, params or {}, meta=meta),
                            headers=headers)

    def answer(self) -> dict[str, Any]:
        while True:
            message = self.messages.get(timeout=WAIT)
            if "id" in message:
                return message

    def error(self) -> tuple[Any, MCPClientError]:
        return self.errors.get(timeout=WAIT)


class ViaRequests(unittest.TestCase):
    """Mixin: every POST of the test takes the requests path, never the direct one.

    Most POSTs in these tests would go direct (plain ``http://``, no proxy);
    the same tests with this mixin keep requests' path -- which proxies,
    TLS, cookies and ``auth=`` hooks take -- checked as thoroughly.
    """

    def setUp(self) -> None:
        super().setUp()
        patch = mock.patch("mcp_client._http.direct.pool_for", return_value=None)
        patch.start()
        self.addCleanup(patch.stop)


class ScriptedCase(LeakCheckingTestCase):
    """A test case that builds scripted servers and clients of them, closed in order.

    With ``era = "legacy"`` every scripted server is put behind a 2025-11-25 session
    (:class:`LegacyScript`: discover refused, ``initialize`` issues a session id, every
    later POST must carry it) before ``respond`` sees anything: the same faults, the
    other era.
    """

    era = "modern"

    def serve(self, respond: Any = None) -> ScriptedServer:
        if self.era == "legacy":
            script = LegacyScript(delegate=respond or ScriptedServer.default)
            self.addCleanup(script.stopped.set)
            respond = script
        srv = ScriptedServer(respond)
        self.addCleanup(srv.stop)
        return srv

    def raw(self, handle: Callable[[socket.socket, threading.Event], object]) -> RawServer:
        srv = RawServer(handle)
        self.addCleanup(srv.stop)
        return srv

    def client(self, srv: ScriptedServer | RawServer, **options: Any) -> Client:
        self.warnings: list[str] = []
        options.setdefault("on_warn", self.warnings.append)
        client = connect(options.pop("url", srv.url), **options)
        self.addCleanup(client.close)
        return client

    def on_call(self, answer: Any) -> Any:
        """A responder: ``answer(reply, seen)`` for tools/call, the defaults for the rest."""
        def respond(reply: Reply, seen: Seen) -> None:
            if seen.rpc_method == "tools/call":
                answer(reply, seen)
            else:
                ScriptedServer.default(reply, seen)
        return respond


MISSING_SESSION = {"jsonrpc": "2.0", "id": "server-error",
                   "error": {"code": -32600, "message": "Bad Request: Missing session ID"}}
TOOLS = {"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]}


class LegacyScript:
    """A 2025-11-25 Streamable HTTP server double: sessions, a GET stream, DELETE.

    ``server/discover`` gets ``discover(reply, seen)`` (default: the 400 "Missing session
    ID" of the SDKs); ``initialize`` issues a session (``stateful``) and answers
    ``version``; a request with an unknown session id gets 404.  ``push`` queues messages
    for the GET stream (offered when ``get_stream``); the client's answers to server
    requests land in ``answers``; ``tools/call`` goes to ``on_call`` when given.
    """

    def __init__(self, *, stateful: bool = True, version: str = "2025-11-25",
                 get_stream: bool = False, delete_status: int = 200,
                 discover: Respond | None = None, on_call: Respond | None = None,
                 delegate: Respond | None = None) -> None:
        self.stateful, self.version, self.get_stream = stateful, version, get_stream
        self.delete_status = delete_status
        self.discover = discover or (lambda reply, seen: reply.json(MISSING_SESSION, 400))
        self.on_call = on_call
        self.delegate = delegate   # answers every POST once the session is checked
        self.live: set[str] = set()
        self.issued: list[str] = []
        self.deleted: list[str | None] = []
        self.answers: queue.Queue[Any] = queue.Queue()
        self.pushes: queue.Queue[Any] = queue.Queue()
        self.get_opened = threading.Event()
        self.stopped = threading.Event()

    def __call__(self, reply: Reply, seen: Seen) -> None:
        method = seen.rpc_method
        if method == "server/discover":
            self.discover(reply, seen)
        elif method == "initialize":
            self.initialize(reply, seen)
        elif not self.session_ok(reply, seen):
            return
        elif self.delegate is not None:
            self.delegate(reply, seen)
        elif seen.rpc_id is None or method is None:
            if method is None:
                self.answers.put(seen.json)
            reply.send(202)
        elif method == "tools/list":
            reply.result(seen, TOOLS)
        elif method == "tools/call" and self.on_call is not None:
            self.on_call(reply, seen)
        else:
            reply.result(seen, {"content": [{"type": "text", "text": "ok"}]})

    def initialize(self, reply: Reply, seen: Seen) -> None:
        headers = {}
        if self.stateful:
            session = f"s-{len(self.issued) + 1}"
            self.issued.append(session)
            self.live.add(session)
            headers["Mcp-Session-Id"] = session
        result = {"protocolVersion": self.version, "capabilities": {"tools": {}},
                  "serverInfo": {"name": "legacy-script", "version": "1"}}
        reply.send(200, json.dumps({"jsonrpc": "2.0", "id": seen.rpc_id,
                                    "result": result}).encode(), "application/json", headers)

    def session_ok(self, reply: Reply, seen: Seen) -> bool:
        if not self.stateful:
            return True
        session = seen.headers.get("mcp-session-id")
        if session is None:
            reply.json(MISSING_SESSION, 400)
            return False
        if session not in self.live:
            reply.send(404, b"Session not found", "text/plain")
            return False
        return True

    def expire(self) -> None:
        """Forget every session, as a restarted server would."""
        self.live.clear()

    def push(self, message: Any) -> None:
        self.pushes.put(message)

    def get(self, reply: Reply, seen: Seen) -> None:
        if not self.get_stream:
            reply.send(405, b"", None, {"Allow": "POST, DELETE"})
            return
        if not self.session_ok(reply, seen):
            return
        reply.stream_head()
        self.get_opened.set()
        while not self.stopped.is_set():
            try:
                message = self.pushes.get(timeout=0.02)
            except queue.Empty:
                if reply.wait_for_hang_up(0.02):
                    return
                continue
            try:
                reply.stream_write(event(message))
            except OSError:
                return

    def delete(self, reply: Reply, seen: Seen) -> None:
        self.deleted.append(seen.headers.get("mcp-session-id"))
        self.live.discard(seen.headers.get("mcp-session-id", ""))
        reply.send(self.delete_status)


class Everywhere:
    """A server that answers every POST and GET alike with one status (a wrong URL)."""

    def __init__(self, status: int, body: bytes = b"", content_type: str | None = "text/plain",
                 headers: dict[str, str] | None = None) -> None:
        self.status, self.body, self.kind, self.headers = status, body, content_type, headers

    def __call__(self, reply: Reply, seen: Seen) -> None:
        reply.send(self.status, self.body, self.kind, self.headers)

    get = __call__


class SSEScript:
    """A 2024-11-05 HTTP+SSE server double: GET opens the stream, POSTs are answered on it.

    ``endpoint`` is the ``endpoint`` event's data (None: never sent), sent after
    ``endpoint_delay`` seconds; POSTs to the URL the client started from get ``refuse``
    (the Streamable HTTP attempts of a fallback).  The client's answers to server requests
    land in ``answers``; ``push`` sends any message on the stream.
    """

    def __init__(self, *, endpoint: str | None = "/messages?session_id=abc",
                 endpoint_delay: float = 0.0, refuse: int = 405,
                 version: str = "2024-11-05") -> None:
        self.endpoint, self.endpoint_delay, self.refuse = endpoint, endpoint_delay, refuse
        self.version = version
        self.outbound: queue.Queue[Any] = queue.Queue()
        self.answers: queue.Queue[Any] = queue.Queue()
        self.stopped = threading.Event()

    def push(self, message: Any) -> None:
        self.outbound.put(message)

    def __call__(self, reply: Reply, seen: Seen) -> None:
        if not seen.path.startswith("/messages"):
            reply.send(self.refuse, b"", None, {"Allow": "GET"})
            return
        reply.send(202)
        message, method = seen.json, seen.rpc_method
        if method is None:
            self.answers.put(message)
        elif method == "initialize":
            self.push({"jsonrpc": "2.0", "id": seen.rpc_id, "result": {
                "protocolVersion": self.version, "capabilities": {"tools": {}},
                "serverInfo": {"name": "sse-script", "version": "1"}}})
        elif method == "tools/list":
            self.push({"jsonrpc": "2.0", "id": seen.rpc_id, "result": TOOLS})
        elif seen.rpc_id is not None:
            self.push({"jsonrpc": "2.0", "id": seen.rpc_id,
                       "result": {"content": [{"type": "text", "text": "ok"}]}})

    def get(self, reply: Reply, seen: Seen) -> None:
        reply.stream_head()
        if self.endpoint is not None:
            if self.endpoint_delay and reply.wait_for_hang_up(self.endpoint_delay):
                return
            reply.stream_write(b"event: endpoint\ndata: " + self.endpoint.encode() + b"\n\n")
        while not self.stopped.is_set():
            try:
                message = self.outbound.get(timeout=0.02)
            except queue.Empty:
                if reply.wait_for_hang_up(0.02):
                    return
                continue
            try:
                reply.stream_write(event(message))
            except OSError:
                return


def certificate(folder: str, *, common_name: str, san: bool) -> tuple[str, str]:
    """A self-signed certificate naming ``common_name`` (in a SAN too if ``san``), as PEM."""
    import datetime
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])
    now = datetime.datetime.now(datetime.timezone.utc)
    builder = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
               .public_key(key.public_key()).serial_number(x509.random_serial_number())
               .not_valid_before(now - datetime.timedelta(minutes=5))
               .not_valid_after(now + datetime.timedelta(days=1))
               .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True))
    if san:
        builder = builder.add_extension(x509.SubjectAlternativeName(
            [x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
    cert = builder.sign(key, hashes.SHA256())
    cert_path, key_path = os.path.join(folder, "cert.pem"), os.path.join(folder, "key.pem")
    with open(cert_path, "wb") as out:
        out.write(cert.public_bytes(serialization.Encoding.PEM))
    with open(key_path, "wb") as out:
        out.write(key.private_bytes(serialization.Encoding.PEM,
                                    serialization.PrivateFormat.PKCS8,
                                    serialization.NoEncryption()))
    return cert_path, key_path


class TLSCase(ScriptedCase):
    """Scripted servers behind TLS, with a certificate of their own."""

    def tls_server(self, respond: Any = None, *, common_name: str = "127.0.0.1",
                   san: bool = True) -> tuple[ScriptedServer, str]:
        folder = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, folder, True)
        cert, key = certificate(folder, common_name=common_name, san=san)
        srv = self.serve(respond)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert, key)
        srv.httpd.socket = context.wrap_socket(srv.httpd.socket, server_side=True)
        return srv, cert
