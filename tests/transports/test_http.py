"""mcp_client.http: Streamable HTTP against the live SDK server, and the headers it sends.

The live server (``tests/servers/http_server.py``) runs once per class, in its event-stream
mode and in its ``--json`` mode.  Header, connection and import checks use the scripted stdlib
servers of ``tests/httpkit.py``; the misbehaving ones are in ``test_http_faults.py``.
"""

from __future__ import annotations

import json
import queue
import subprocess
import threading
import time
from typing import TYPE_CHECKING, Any, ClassVar
from unittest import mock

import requests.adapters
import requests.auth

from mcp_client import Cancelled, Client, MCPClientError, ProtocolError, Timeout, TransportClosed
from mcp_client import protocol
from mcp_client.http import HTTPTransport
from mcp_client.xheaders import headers_for_call
from mcp_client.types import Notification, block_text, resource_text, text_of

from ..base import HERE, PYTHON, LeakCheckingTestCase, of_type, server, wait_until
from ..httpkit import (DISCOVERED, LiveServer, Reply, ScriptedCase, ScriptedServer, Seen,
                       ViaRequests, WAIT, Wire, connect, elapsed)

# -- the live SDK server ---------------------------------------------------------------


if TYPE_CHECKING:   # what the mixin is mixed into, so its tests' self.assert* are checked
    _MixinBase = LeakCheckingTestCase
else:               # and not a TestCase itself at run time, so it is not collected alone
    _MixinBase = object


class LiveMixin(_MixinBase):
    """Tests that hold in both of the SDK server's response modes (mixed into a TestCase)."""

    live: ClassVar[LiveServer]
    server_args: ClassVar[tuple[str, ...]] = ()
    #: Whether the server cancels a handler whose client hung up.
    sees_hang_up: ClassVar[bool] = True

    @classmethod
    def setUpClass(cls) -> None:
        super().setUpClass()
        cls.live = LiveServer(*cls.server_args)

    @classmethod
    def tearDownClass(cls) -> None:
        cls.live.stop()
        super().tearDownClass()

    def client(self, **options: Any) -> Client:
        self.warnings: list[str] = []
        options.setdefault("on_warn", self.warnings.append)
        client = connect(self.live.url, **options)
        self.addCleanup(client.close)
        return client

    def test_discover(self) -> None:
        client = self.client()
        self.assertEqual((client.era, client.protocol_version), ("modern", "2026-07-28"))
        self.assertEqual(client.supported_versions, ("2026-07-28",))
        self.assertEqual(client.server_info, {"name": "demo-server", "version": "0.1.0"})
        self.assertEqual(client.instructions, "Demo server for protocol tests.")
        self.assertIn("tools", client.capabilities)

    def test_lists(self) -> None:
        client = self.client()
        tools = {tool["name"]: tool for tool in client.list_tools()}
        self.assertLessEqual({"echo", "count", "region_query", "watched"}, set(tools))
        self.assertEqual(tools["region_query"]["inputSchema"]["properties"]["region"]
                         ["x-mcp-header"], "Region")
        self.assertEqual([r["uri"] for r in client.list_resources()], ["res://readme"])
        self.assertEqual([p["name"] for p in client.list_prompts()], ["review"])
        self.assertEqual(client.list_resource_templates(), [])

    def test_calls_reads_and_prompts(self) -> None:
        client = self.client()
        result = client.call_tool("echo", {"text": "hi"})
        self.assertEqual(result["content"], [{"type": "text", "text": "hi"}])
        self.assertFalse({"resultType", "_meta", "ttlMs", "cacheScope"} & set(result))
        self.assertEqual(client.call_tool("weather", {"city": "Oslo"})["structuredContent"],
                         {"temperature": 21.5, "conditions": "sunny in Oslo"})
        self.assertTrue(client.call_tool("fail")["isError"])
        self.assertEqual(resource_text(client.read_resource("res://readme")),
                         "# Demo\nhello")
        prompt = client.get_prompt("review", {"code": "x=1"})
        self.assertEqual(block_text(prompt["messages"][0]["content"]), "Please review:\nx=1")

    def test_json_rpc_errors_are_raised_whatever_the_status(self) -> None:
        client = self.client()
        with self.assertRaises(ProtocolError) as caught:   # HTTP 400
            client.call_tool("greet", {})
        self.assertEqual(caught.exception.code, protocol.MISSING_CAPABILITY)
        with self.assertRaises(ProtocolError) as caught:   # HTTP 400
            client.read_resource("res://nope")
        self.assertEqual(caught.exception.code, protocol.INVALID_PARAMS)
        self.assertFalse(client.ping())                    # HTTP 404 + -32601

    def test_concurrent_calls_are_answered_out_of_order(self) -> None:
        client = self.client()
        client.era
        futures = [client.call_tool_async("delay", {"ms": (n * 37) % 16 * 20, "tag": f"c{n}"})
                   for n in range(16)]
        for n, future in enumerate(futures):
            self.assertEqual(text_of(future.result(WAIT)), f"c{n}")

    def test_a_timeout_leaves_the_client_usable(self) -> None:
        client = self.client()
        client.era
        started = time.monotonic()
        with self.assertRaises(Timeout):
            client.call_tool("slow", {"seconds": 5}, timeout=0.3)
        self.assertLess(elapsed(started), 2)
        self.assertEqual(text_of(client.call_tool("echo", {"text": "again"})),
                         "again")

    def test_cancellation_is_seen_by_the_server(self) -> None:
        client = self.client()
        tag = f"cancel-{type(self).__name__}"
        stop = threading.Event()
        future = client.call_tool_async("watched", {"tag": tag, "seconds": 30}, cancelled=stop)
        self.assertEqual(client.call_tool("wait_started", {"tag": tag, "wait": 5})
                         ["structuredContent"]["result"], "running")
        stop.set()
        with self.assertRaises(Cancelled):
            future.result(WAIT)
        seen = client.call_tool("outcome", {"tag": tag, "wait": 5 if self.sees_hang_up else 0})
        self.assertEqual(seen["structuredContent"]["result"],
                         "cancelled" if self.sees_hang_up else "running")

    def test_multi_round_trip_elicitation(self) -> None:
        asked: list[dict[str, Any]] = []

        def on_elicit(request: dict[str, Any]) -> dict[str, Any]:
            asked.append(request)
            return {"action": "accept", "content": {"ok": True}}

        client = self.client(on_elicit=on_elicit)
        result = client.call_tool("confirm", {"action": "deploy"})
        self.assertIn("action=accept", text_of(result))
        self.assertEqual(asked[0]["params"]["message"], "Really deploy?")

    def test_an_x_mcp_header_tool(self) -> None:
        client = self.client()
        result = client.call_tool("region_query", {"region": "Zürich", "query": "select 1"})
        self.assertEqual(text_of(result), "Zürich: select 1")
        self.assertEqual(self.warnings, [])

    def test_x_mcp_header_reaches_the_server(self) -> None:
        wire = Wire(self, self.live.url)
        wire.request(1, "tools/list")
        tools = {t["name"]: t for t in wire.answer()["result"]["tools"]}
        arguments = {"region": "Zürich", "query": "q"}
        wire.request(2, "tools/call", {"name": "region_query", "arguments": arguments},
                     headers=headers_for_call(tools["region_query"], arguments))
        self.assertEqual(wire.answer()["result"]["content"][0]["text"], "Zürich: q")
        wire.request(3, "tools/call", {"name": "region_query", "arguments": arguments})
        answer = wire.answer()   # HTTP 400 with a JSON-RPC body
        self.assertEqual((answer["id"], answer["error"]["code"]), (3, protocol.HEADER_MISMATCH))
        self.assertTrue(wire.errors.empty())


class LiveSSETest(LiveMixin, LeakCheckingTestCase):
    server_args = ()

    def test_progress_arrives_before_the_answer(self) -> None:
        client = self.client()
        notes: list[Notification] = []
        client.notifications.subscribe(notes.append)
        result = client.call_tool("count", {"n": 3}, progress_token="p-1")
        self.assertEqual(text_of(result), "counted to 3")
        self.assertEqual([(n["method"], n["params"]["progress"]) for n in notes],
                         [("notifications/progress", 1), ("notifications/progress", 2),
                          ("notifications/progress", 3)])
        self.assertEqual({n["params"]["progressToken"] for n in notes}, {"p-1"})

    def test_logs_arrive_over_the_stream(self) -> None:
        client = self.client(log_level="info")
        notes: list[Notification] = []
        client.notifications.subscribe(notes.append)
        client.call_tool("chatty")
        self.assertEqual([(n["params"]["level"], n["params"]["data"]) for n in notes
                          if n["method"] == "notifications/message"],
                         [("info", "info from chatty"), ("warning", "warning from chatty")])


class LiveSSEViaRequestsTest(ViaRequests, LiveSSETest):
    pass


class _Spy(HTTPTransport):
    """Records the thread of every HTTP request it makes."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.threads: list[tuple[str, threading.Thread]] = []
        poster = self._poster
        post_once, send = poster._post_once, poster._send

        def spied_post_once(exchange: Any, *args: Any) -> Any:   # every POST, either path
            self.threads.append((exchange.method, threading.current_thread()))
            return post_once(exchange, *args)

        def spied_send(pool: Any, verb: str, what: str, *args: Any, **kwargs: Any) -> Any:
            if verb != "POST":
                self.threads.append((what, threading.current_thread()))
            return send(pool, verb, what, *args, **kwargs)

        poster._post_once = spied_post_once   # type: ignore[method-assign, assignment]
        poster._send = spied_send   # type: ignore[method-assign]


class LedPostTest(LeakCheckingTestCase):
    """A blocking call posts its own request on its own thread (HTTPTransport.lead)."""

    live: ClassVar[LiveServer]

    @classmethod
    def setUpClass(cls) -> None:
        super().setUpClass()
        cls.live = LiveServer()

    @classmethod
    def tearDownClass(cls) -> None:
        cls.live.stop()
        super().tearDownClass()

    def client(self, **options: Any) -> tuple[Client, _Spy]:
        transport = _Spy(self.live.url)
        client = Client(transport, **options)
        self.addCleanup(client.close)
        client.list_tools()   # the catalogue a tools/call looks its headers up in
        transport.threads.clear()
        return client, transport

    def test_a_blocking_call_posts_on_the_callers_thread(self) -> None:
        client, transport = self.client()
        self.assertEqual(text_of(client.call_tool("echo", {"text": "here"})), "here")
        self.assertEqual(transport.threads, [("tools/call", threading.current_thread())])

    def test_a_call_with_cancelled_goes_through_a_worker(self) -> None:
        client, transport = self.client()
        result = client.call_tool("echo", {"text": "w"}, cancelled=threading.Event())
        self.assertEqual(text_of(result), "w")
        self.assertEqual([what for what, _ in transport.threads], ["tools/call"])
        self.assertIsNot(transport.threads[0][1], threading.current_thread())

    def test_a_led_timeout_raises_in_time_and_leaves_the_transport_usable(self) -> None:
        client, transport = self.client()
        started = time.monotonic()
        with self.assertRaises(Timeout):
            client.call_tool("slow", {"seconds": 5}, timeout=0.3)
        self.assertLess(elapsed(started), 2)
        self.assertEqual(text_of(client.call_tool("echo", {"text": "again"})),
                         "again")
        self.assertEqual({thread for _, thread in transport.threads},
                         {threading.current_thread()})

    def test_notifications_before_the_answer_are_dispatched(self) -> None:
        client, transport = self.client(log_level="info")
        notes: list[Notification] = []
        client.notifications.subscribe(notes.append)
        self.assertEqual(text_of(client.call_tool("chatty")), "done")
        self.assertEqual([n["params"]["data"] for n in notes
                          if n["method"] == "notifications/message"],
                         ["info from chatty", "warning from chatty"])
        self.assertEqual(transport.threads[-1], ("tools/call", threading.current_thread()))

    def test_a_pool_its_manager_forgot_is_closed_with_the_session(self) -> None:
        with mock.patch("mcp_client._http.direct.pool_for", return_value=None):
            client, transport = self.client()   # POSTs take requests' path
        session = transport._session
        assert session is not None
        adapter = of_type(session.get_adapter(self.live.url), requests.adapters.HTTPAdapter)
        used = list(adapter._mcp_pools.values())   # type: ignore[attr-defined]
        adapter.poolmanager.clear()   # forgets its pools (urllib3 2: without closing them)
        self.assertEqual(text_of(client.call_tool("echo", {"text": "anew"})),
                         "anew")
        client.close()
        self.assertEqual([pool.pool for pool in used], [None])   # closed with the session


class LiveJSONTest(LiveMixin, LeakCheckingTestCase):
    server_args = ("--json",)
    # mcp 2.3.0 watches for the client's hang-up only on its event-stream path
    # (mcp/server/_streamable_http_modern.py): a json_response handler runs on.
    sees_hang_up = False

    def test_json_mode_drops_progress(self) -> None:
        client = self.client()
        notes: list[Notification] = []
        client.notifications.subscribe(notes.append)
        result = client.call_tool("count", {"n": 2}, progress_token="p-2")
        self.assertEqual(text_of(result), "counted to 2")
        self.assertEqual(notes, [])   # the SDK's json_response mode sends none (PROTOCOL §7.3)


class LiveJSONViaRequestsTest(ViaRequests, LiveJSONTest):
    pass


# -- scripted servers ------------------------------------------------------------------


class HeaderAuth(requests.auth.AuthBase):
    """Signs every request, counting them."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, request: Any) -> Any:
        self.count += 1
        request.headers["X-Signed"] = f"sig-{self.count}"
        return request


class HeadersTest(ScriptedCase):
    def test_every_post_carries_the_protocol_caller_and_auth_headers(self) -> None:
        srv = self.serve()
        auth = HeaderAuth()
        client = self.client(srv, headers={"Authorization": "Bearer t0k", "X-Trace": "abc"},
                             auth=auth)
        client.list_tools()
        client.call_tool("café", {})
        client.read_resource("res://readme")
        client.get_prompt("p")
        names = {"tools/call": "=?base64?Y2Fmw6k=?=", "resources/read": "res://readme",
                 "prompts/get": "p"}
        self.assertLessEqual({"server/discover", "tools/list", "tools/call", "resources/read",
                              "prompts/get"}, {s.rpc_method for s in srv.requests})
        for seen in srv.requests:
            with self.subTest(seen.rpc_method):
                headers = seen.headers
                self.assertEqual(headers["content-type"], "application/json")
                self.assertEqual(headers["accept"], "application/json, text/event-stream")
                self.assertEqual(headers["mcp-protocol-version"], "2026-07-28")
                self.assertEqual(headers["mcp-method"], seen.rpc_method)
                self.assertEqual(headers.get("mcp-name"), names.get(seen.rpc_method or ""))
                self.assertEqual(headers["authorization"], "Bearer t0k")
                self.assertEqual(headers["x-trace"], "abc")
                self.assertTrue(headers["x-signed"].startswith("sig-"))
                self.assertTrue(headers["user-agent"].startswith("mcp-client/"))
                self.assertNotIn("mcp-session-id", headers)
        self.assertEqual(auth.count, len(srv.requests))

    TOOLS = [{"name": "valid", "inputSchema": {"type": "object", "properties": {
                 "region": {"type": "string", "x-mcp-header": "Region"},
                 "n": {"type": "integer", "x-mcp-header": "N"}}}},
             {"name": "invalid", "inputSchema": {"type": "object", "properties": {
                 "f": {"type": "number", "x-mcp-header": "F"}}}}]

    def catalogue(self, refuse_first_call: bool = False) -> ScriptedServer:
        refused: list[Seen] = []

        def respond(reply: Reply, seen: Seen) -> None:
            if seen.rpc_method == "tools/list":
                reply.result(seen, {"tools": self.TOOLS, "ttlMs": 60000, "cacheScope": "public"})
            elif seen.rpc_method == "tools/call" and refuse_first_call and not refused:
                refused.append(seen)
                reply.json({"jsonrpc": "2.0", "id": seen.rpc_id, "error": {
                    "code": -32020, "message": "Mcp-Param-Region header is missing"}}, 400)
            else:
                ScriptedServer.default(reply, seen)

        return self.serve(respond)

    def test_invalid_tools_are_dropped_and_arguments_ride_as_headers(self) -> None:
        srv = self.catalogue()
        client = self.client(srv)
        self.assertEqual([t["name"] for t in client.list_tools()], ["valid"])
        self.assertEqual(len(self.warnings), 1)
        self.assertIn("'invalid'", self.warnings[0])
        client.call_tool("valid", {"region": "Zürich", "n": 7})
        client.call_tool("valid", {"region": None})
        first, second = srv.seen("tools/call")
        self.assertEqual((first.headers["mcp-param-region"], first.headers["mcp-param-n"]),
                         ("=?base64?WsO8cmljaA==?=", "7"))
        self.assertFalse({"mcp-param-region", "mcp-param-n"} & set(second.headers))

    def test_a_header_mismatch_refetches_the_catalogue_and_retries_once(self) -> None:
        srv = self.catalogue(refuse_first_call=True)
        client = self.client(srv)
        self.assertEqual(client.call_tool("valid", {"region": "eu"}), {"content": []})
        self.assertEqual(len(srv.seen("tools/list")), 2)   # before the call, then refreshed
        self.assertEqual([s.headers["mcp-param-region"] for s in srv.seen("tools/call")],
                         ["eu", "eu"])

    def test_per_message_headers_and_refused_ones(self) -> None:
        srv = self.serve()
        wire = Wire(self, srv.url)
        wire.request(1, "tools/call", {"name": "t", "arguments": {}},
                     headers={"Mcp-Param-Region": "us-west1"})
        wire.answer()
        self.assertEqual(srv.seen("tools/call")[0].headers["mcp-param-region"], "us-west1")
        for bad in ({"Mcp-Method": "x"}, {"Accept": "*/*"}, {"X-Bad": "a\r\nb"}):
            with self.subTest(bad=bad), self.assertRaises(MCPClientError):
                wire.request(2, "tools/call", {"name": "t"}, headers=bad)

    def test_bad_construction_is_refused(self) -> None:
        bad: list[dict[str, Any]] = [
            {"url": "ftp://x/mcp"}, {"url": "http:///mcp"},
            {"url": "http://h/mcp", "headers": {"Content-Type": "text/plain"}},
            {"url": "http://h/mcp", "headers": {"Mcp-Param-X": "1"}},
            {"url": "http://h/mcp", "connect_timeout": 0},
            {"url": "http://h/mcp", "auth": "token"},
            {"url": "http://h:port/mcp"}, {"url": "http://h/mcp", "headers": {"X Bad": "1"}},
            {"url": "http://h/mcp", "headers": {"X-Lead": " space"}},
            {"url": "http://h/mcp", "max_event_bytes": 0},
            {"url": "http://h/mcp", "max_redirects": -1}]
        for kwargs in bad:
            with self.subTest(kwargs=kwargs), self.assertRaises(MCPClientError):
                HTTPTransport(**kwargs)

    def test_a_notification_is_posted_and_its_202_ignored(self) -> None:
        srv = self.serve()
        wire = Wire(self, srv.url)
        wire.request(1, "tools/list")
        wire.answer()
        wire.transport.send(protocol.notification("notifications/initialized"))
        wire.request(2, "tools/list")   # a worker per message: wait for both
        wire.answer()
        wire.transport.close()
        seen = srv.seen("notifications/initialized")[0]
        self.assertEqual((seen.headers["mcp-method"], seen.headers["mcp-protocol-version"]),
                         ("notifications/initialized", "2026-07-28"))
        self.assertEqual((wire.warnings, wire.errors.qsize(), wire.closes), ([], 0, []))


class ConnectionTest(ScriptedCase):
    def test_persistent_reuses_one_connection(self) -> None:
        srv = self.serve()
        client = self.client(srv)
        for _ in range(3):
            client.call_tool("t")
        self.assertEqual(len(srv.seen("tools/call")), 3)
        self.assertEqual(len({s.port for s in srv.requests}), 1)

    def test_the_pool_keeps_a_connection_for_each_call_in_flight(self) -> None:
        in_flight = 40   # more than urllib3's default pool, fewer than ours
        together = threading.Barrier(in_flight, timeout=WAIT)

        def respond(reply: Reply, seen: Seen) -> None:
            if seen.rpc_method == "tools/call":
                together.wait()   # every call of the round is on a connection of its own
            ScriptedServer.default(reply, seen)

        srv = self.serve(respond)
        client = self.client(srv)
        for _ in range(2):
            futures = [client.call_tool_async("t") for _ in range(in_flight)]
            for future in futures:
                future.result(WAIT)
        calls = srv.seen("tools/call")
        self.assertEqual(len(calls), 2 * in_flight)
        # the second round finds the first round's connections in the pool: none is new
        self.assertEqual(len({s.port for s in calls}), in_flight)

    def test_sequential_posts_reuse_one_worker_thread(self) -> None:
        srv = self.serve()
        answers: queue.Queue[tuple[dict[str, Any], threading.Thread]] = queue.Queue()
        transport = HTTPTransport(srv.url)
        self.addCleanup(transport.close)
        transport.start(lambda message: answers.put((message, threading.current_thread())),
                        lambda exc: None, lambda text: None)
        workers = []   # the Thread objects stay referenced: identity means one thread
        for ident in range(1, 4):
            transport.send({"jsonrpc": "2.0", "id": ident, "method": "tools/call",
                            "params": {"name": "t"}})
            message, worker = answers.get(timeout=WAIT)
            self.assertEqual(message["id"], ident)
            workers.append(worker)
            # The answer is delivered before its worker has released the connection and
            # gone idle: the next message finds it idle only once it has.
            wait_until(lambda: len(transport._workers._idle) == 1, WAIT)
        self.assertEqual(len({id(worker) for worker in workers}), 1)
        self.assertEqual(workers[0].name, "mcp-http-request-3")   # named for its last request

    def test_a_cookie_the_server_sets_is_sent_back(self) -> None:
        def respond(reply: Reply, seen: Seen) -> None:
            if seen.rpc_method == "server/discover":
                reply.send(200, json.dumps({"jsonrpc": "2.0", "id": seen.rpc_id,
                                            "result": DISCOVERED}).encode(), "application/json",
                           {"Set-Cookie": "route=b7; Path=/"})
            else:
                ScriptedServer.default(reply, seen)

        srv = self.serve(respond)
        client = self.client(srv)
        client.call_tool("t")
        self.assertNotIn("cookie", srv.seen("server/discover")[0].headers)
        self.assertEqual(srv.seen("tools/call")[0].headers.get("cookie"), "route=b7")

    def test_not_persistent_opens_one_per_post(self) -> None:
        srv = self.serve()
        client = self.client(srv, persistent=False)
        for _ in range(3):
            client.call_tool("t")
        self.assertEqual(len(srv.seen("tools/call")), 3)
        self.assertEqual(len({s.port for s in srv.requests}), len(srv.requests))
        self.assertEqual({s.headers["connection"] for s in srv.requests}, {"close"})

    def test_repr_and_state(self) -> None:
        transport = HTTPTransport("http://127.0.0.1:9/mcp")
        self.assertEqual(repr(transport), "<HTTPTransport http://127.0.0.1:9/mcp new in_flight=0>")
        with self.assertRaises(TransportClosed):
            transport.send({"jsonrpc": "2.0", "id": 1, "method": "x"})
        self.assertFalse(transport.closed)
        transport.close()
        transport.close()
        self.assertTrue(transport.closed)
        self.assertTrue(transport.supports_handshake)
        self.assertTrue(transport.wants_tool_headers)


class ImportTest(LeakCheckingTestCase):
    PROBE = ("import sys\n{body}\nprint(sorted({{m.split('.')[0] for m in sys.modules}}"
             " & {{'requests', 'urllib3', 'sseclient'}}))")

    def run_python(self, body: str) -> str:
        code = self.PROBE.format(body=body)
        done = subprocess.run([PYTHON, "-c", code], capture_output=True, text=True, timeout=60,
                              cwd=str(HERE.parent))
        self.assertEqual(done.returncode, 0, done.stderr)
        return done.stdout.strip()

    def test_import_and_a_stdio_client_never_load_http_libraries(self) -> None:
        script = server("dual_stdio.py")[0]
        body = ("import mcp_client, mcp_client.http\n"
                "mcp_client.http.HTTPTransport('http://127.0.0.1:9/mcp')\n"
                f"with mcp_client.Client.connect_stdio({PYTHON!r}, args=[{script!r}]) as c:\n"
                "    c.list_tools()")
        self.assertEqual(self.run_python(body), "[]")

    def test_starting_an_http_transport_loads_them(self) -> None:
        body = ("from mcp_client.http import HTTPTransport\n"
                "t = HTTPTransport('http://127.0.0.1:9/mcp')\n"
                "t.start(print, print, print)\n"
                "t.close()")
        self.assertEqual(self.run_python(body), "['requests', 'urllib3']")
