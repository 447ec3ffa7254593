"""Real HTTP servers of every era, reached by ``connect_http(url)`` with no era option.

* the official SDK (mcp 2.3.0) server in its legacy session mode (behind a router that
  refuses 2026-07-28 as mcp 1.x does) and in its stateless mode, and dual-era with
  ``era="legacy"``;
* ``@modelcontextprotocol/server-everything`` (TypeScript SDK 1.x) in ``streamableHttp``
  mode, when ``MCP_SERVER_EVERYTHING`` names its entry script (``.ci/run`` sets it);
* a server from the newest ``mcp`` 1.x release, when ``MCP_LEGACY_PYTHON`` names a Python
  that has it (``.ci/run`` builds that virtual environment).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import unittest
import urllib.error
import urllib.request
from typing import Any

from mcp_client import Client
from mcp_client.types import text_of

from ..base import ClientCase, server, wait_until
from ..httpkit import WAIT, LiveServer
from ..client.test_hooks_real import SAMPLED, name_it

ROOTS = {"roots": [{"uri": "file:///srv", "name": "srv"}]}


def post_raw(url: str, message: dict[str, Any], headers: dict[str, str]) -> int:
    """POST one message with urllib; the HTTP status."""
    request = urllib.request.Request(url, data=json.dumps(message).encode(), method="POST",
                                     headers={"Content-Type": "application/json",
                                              "Accept": "application/json, text/event-stream",
                                              **headers})
    try:
        with urllib.request.urlopen(request, timeout=WAIT) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)


class PeerCase(ClientCase):
    def live(self, *args: str) -> LiveServer:
        srv = LiveServer(*args)
        self.addCleanup(srv.stop)
        return srv

    def peer(self, url: str, **options: Any) -> Client:
        """A client of the peer at ``url`` (30 s for each request: these peers start cold)."""
        return self.connect(url=url, **{"request_timeout": 30, **options})


class SDKLegacySessionTest(PeerCase):
    def test_the_probe_reaches_the_legacy_session_and_hooks_answer_it(self) -> None:
        srv = self.live("--handshake-only")
        client = self.peer(srv.url, on_elicit=name_it, on_sample=lambda r: SAMPLED,
                           on_list_roots=lambda r: ROOTS)
        self.assertIn("echo", [tool["name"] for tool in client.list_tools()])
        self.assertEqual((client.era, client.protocol_version), ("legacy", "2025-11-25"))
        session = client.session_id
        self.assertIsNotNone(session)
        self.assertEqual(text_of(client.call_tool("echo", {"text": "hi"})), "hi")
        self.assertEqual(text_of(client.call_tool("greet")), "Hello, Ada!")
        self.assertIn("text='Paris'", text_of(client.call_tool("ask_llm")))
        self.assertIn("file:///srv", text_of(client.call_tool("where_am_i")))
        client.close()
        # close() sent DELETE: the session is gone on the server
        assert session is not None
        status = post_raw(srv.url, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                          {"Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-11-25"})
        self.assertEqual(status, 404)

    def test_a_restarted_server_is_survived(self) -> None:
        first = self.live("--handshake-only")
        client = self.peer(first.url)
        client.call_tool("echo", {"text": "one"})
        old = client.session_id
        first.stop()
        second = self.live("--handshake-only", "--port", str(first.port))
        self.assertEqual(second.url, first.url)
        self.assertEqual(text_of(client.call_tool("echo", {"text": "two"})), "two")
        self.assertNotEqual(client.session_id, old)
        self.assertTrue(any("new session" in w for w in self.warnings), self.warnings)

    def test_stateless_mode(self) -> None:
        srv = self.live("--handshake-only", "--stateless")
        client = self.peer(srv.url)
        self.assertEqual(text_of(client.call_tool("echo", {"text": "hi"})), "hi")
        self.assertEqual(client.era, "legacy")
        self.assertIsNone(client.session_id)

    def test_era_legacy_against_the_dual_era_server(self) -> None:
        srv = self.live()
        client = self.peer(srv.url, era="legacy", on_elicit=name_it)
        self.assertEqual(text_of(client.call_tool("greet")), "Hello, Ada!")
        self.assertEqual(client.era, "legacy")
        self.assertIsNotNone(client.session_id)

    def test_its_http_sse_server(self) -> None:
        srv = self.live("--sse")
        url = srv.url.replace("/mcp", "/sse")
        client = self.peer(url, on_elicit=name_it, on_list_roots=lambda r: ROOTS)
        self.assertEqual(text_of(client.call_tool("echo", {"text": "hi"})), "hi")
        self.assertEqual(type(client.transport).__name__, "SSETransport")
        self.assertEqual(text_of(client.call_tool("greet")), "Hello, Ada!")
        self.assertIn("file:///srv", text_of(client.call_tool("where_am_i")))

    def test_the_dual_era_server_is_reached_modern(self) -> None:
        srv = self.live()
        client = self.peer(srv.url)
        self.assertEqual(text_of(client.call_tool("echo", {"text": "hi"})), "hi")
        self.assertEqual((client.era, client.session_id), ("modern", None))


def listening(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
        return True
    except OSError:
        return False


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class ChildServer:
    """A server started as ``argv`` that listens on 127.0.0.1:``port``."""

    def __init__(self, argv: list[str], port: int, env: dict[str, str] | None = None) -> None:
        self.port = port
        self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, env={**os.environ, **(env or {})})

    def wait_listening(self) -> None:
        wait_until(lambda: self.proc.poll() is not None or listening(self.port), 60)
        if self.proc.poll() is not None or not listening(self.port):
            raise RuntimeError(f"the server did not start: {self.stop()[-500:]}")

    def stop(self) -> str:
        """Stop the server (SIGTERM, then SIGKILL); its stderr."""
        if self.proc.poll() is None:
            self.proc.terminate()
        try:
            err = self.proc.communicate(timeout=10)[1]
        except subprocess.TimeoutExpired:
            self.proc.kill()
            err = self.proc.communicate()[1]
        return (err or b"").decode("utf-8", "replace")


EVERYTHING = os.environ.get("MCP_SERVER_EVERYTHING")
NODE = os.environ.get("MCP_NODE", "node")
LEGACY_PYTHON = os.environ.get("MCP_LEGACY_PYTHON")


@unittest.skipUnless(EVERYTHING and os.path.exists(EVERYTHING),
                     "MCP_SERVER_EVERYTHING does not name server-everything's entry script "
                     "(.ci/run installs it)")
class ServerEverythingTest(PeerCase):
    def test_streamable_http(self) -> None:
        port = free_port()
        child = ChildServer([NODE, str(EVERYTHING), "streamableHttp"], port,
                            {"PORT": str(port)})
        self.addCleanup(child.stop)
        child.wait_listening()
        client = self.peer(f"http://127.0.0.1:{port}/mcp", on_elicit=name_it,
                           on_sample=lambda r: SAMPLED, on_list_roots=lambda r: ROOTS)
        names = [tool["name"] for tool in client.list_tools()]
        self.assertEqual(client.era, "legacy")
        self.assertIsNotNone(client.session_id)
        self.assertIn("echo", names)
        self.assertIn("Echo: hi", text_of(client.call_tool("echo", {"message": "hi"})))
        sampled = client.call_tool("trigger-sampling-request", {"prompt": "capital?",
                                                                "maxTokens": 10})
        self.assertIn("Paris", json.dumps(sampled))
        self.assertIn("file:///srv", json.dumps(client.call_tool("get-roots-list")))

    def test_sse(self) -> None:
        port = free_port()
        child = ChildServer([NODE, str(EVERYTHING), "sse"], port, {"PORT": str(port)})
        self.addCleanup(child.stop)
        child.wait_listening()
        client = self.peer(f"http://127.0.0.1:{port}/sse", on_sample=lambda r: SAMPLED)
        self.assertIn("Echo: hi", text_of(client.call_tool("echo", {"message": "hi"})))
        self.assertEqual(client.era, "legacy")
        self.assertEqual(type(client.transport).__name__, "SSETransport")
        sampled = client.call_tool("trigger-sampling-request", {"prompt": "capital?",
                                                                "maxTokens": 10})
        self.assertIn("Paris", json.dumps(sampled))


@unittest.skipUnless(LEGACY_PYTHON and os.path.exists(LEGACY_PYTHON),
                     "MCP_LEGACY_PYTHON does not name a Python with mcp 1.x (.ci/run builds it)")
class MCPOneTest(PeerCase):
    def start(self, *args: str) -> str:
        port = free_port()
        child = ChildServer([str(LEGACY_PYTHON), *server("mcp1_http.py"), "--port", str(port),
                             *args], port)
        self.addCleanup(child.stop)
        child.wait_listening()
        return f"http://127.0.0.1:{port}/mcp"

    def test_stateful(self) -> None:
        client = self.peer(self.start(), on_elicit=name_it)
        self.assertIn("echo", [tool["name"] for tool in client.list_tools()])
        self.assertEqual(client.era, "legacy")
        self.assertIsNotNone(client.session_id)
        self.assertEqual(text_of(client.call_tool("echo", {"text": "hi"})), "hi")
        self.assertEqual(text_of(client.call_tool("greet")), "Hello, Ada!")

    def test_stateless(self) -> None:
        client = self.peer(self.start("--stateless"))
        self.assertEqual(text_of(client.call_tool("echo", {"text": "hi"})), "hi")
        self.assertIsNone(client.session_id)

    def test_http_sse_by_fallback_and_directly(self) -> None:
        url = self.start("--sse").replace("/mcp", "/sse")
        client = self.peer(url, on_elicit=name_it)
        self.assertEqual(text_of(client.call_tool("greet")), "Hello, Ada!")
        self.assertEqual(type(client.transport).__name__, "SSETransport")
        client.close()
        direct = Client.connect_sse(url, request_timeout=30)
        self.addCleanup(direct.close)
        self.assertEqual(text_of(direct.call_tool("echo", {"text": "hi"})), "hi")
