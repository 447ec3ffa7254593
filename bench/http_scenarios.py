"""The HTTP benchmark (issue 20, items 3 and 5): servers, scenarios, rows and budgets.

``run.py`` and ``report.py`` register what this module defines, so the HTTP
figures are measured and reported beside the others:

* four **servers**, all endpoints of one hand-written ``servers/echo_http.py``
  child per run (no SDK on the server side, so the clients' cost shows):
  ``echo-http`` (2026-07-28, JSON answers), ``echo-sse`` (2026-07-28, event
  stream answers), ``echo-legacy`` and ``echo-legacy-sse`` (an endpoint that
  refuses 2026-07-28 as mcp 1.x does: every client falls back to a
  2025-11-25 session).  ``connect``, ``sequential`` and ``inflight`` run on
  them for all three clients (the floor: :mod:`http_floor`);
* three **scenarios** of mcp_client's own, in one process each, their two
  sides interleaved in blocks so that the machine's load hits both alike:
  ``auth_cost`` (client CPU per call with a valid bearer token minus without,
  µs), ``watch_cost`` (sequential calls/s with ``watch=True`` and a listen
  open, over calls/s without, on the stdio echo server) and ``era_cost``
  (HTTP requests the server saw for a connection and its first
  ``list_tools`` with ``era="auto"`` minus with ``era="legacy"``, on a legacy
  server).

Nothing here imports a client library at module level: ``run.py`` and
``report.py`` import it too.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
import urllib.request
from typing import Any, Callable

from common import ECHO_TEXT, SERVERS_DIR, BenchError, Figure, NotAvailable, Sizes, Target, \
    check_echo

__all__ = ["SERVERS", "SCENARIOS", "SCENARIO_SERVERS", "CLIENTS", "EchoHttpServer", "wanted",
           "measure", "rows", "BUDGETS"]

#: Server name -> its endpoint's path on the echo HTTP server (see servers/echo_http.py).
SERVERS = {"echo-http": "/mcp", "echo-sse": "/sse/mcp", "echo-legacy": "/legacy/mcp",
           "echo-legacy-sse": "/legacy/sse/mcp"}
_NAMES = {"echo-http": "echo HTTP (JSON)", "echo-sse": "echo HTTP (SSE)",
          "echo-legacy": "echo legacy HTTP (JSON)", "echo-legacy-sse": "echo legacy HTTP (SSE)"}
#: The scenarios run on the echo HTTP servers (the others are the stdio suite's).
COMMON = ("connect", "sequential", "inflight")
#: This module's own scenarios, each on one server, for mcp_client alone.
SCENARIO_SERVERS = {"auth_cost": "echo-http", "watch_cost": "echo", "era_cost": "echo-legacy"}
SCENARIOS = tuple(SCENARIO_SERVERS)
CLIENTS = ("mcp_client",)
#: The bearer token the echo HTTP server accepts (its default ``--token``).
TOKEN = "bench-token"
#: Blocks each side of an interleaved comparison is split into (the median block counts).
BLOCKS = 10
#: Pairs of fresh connections ``watch_cost`` runs (see :func:`watch_cost`).
WATCH_PAIRS = 10
#: Connections per side of ``era_cost`` (each a fresh client and session).
ERA_CONNECTS = 15


def wanted(scenario: str, server: str) -> bool:
    """Whether ``scenario`` is measured on ``server`` (run.py's plan asks)."""
    if scenario in SCENARIO_SERVERS:
        return SCENARIO_SERVERS[scenario] == server
    return server not in SERVERS or scenario in COMMON


class EchoHttpServer:
    """``servers/echo_http.py`` as a child process on a random port (one per run)."""

    def __init__(self, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen([sys.executable, os.path.join(SERVERS_DIR, "echo_http.py"),
                                      "--token", TOKEN], env=env, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line.startswith("PORT="):
            self.close()
            raise SystemExit(f"the echo HTTP server did not start (it said {line!r})")
        self.base = f"http://127.0.0.1:{int(line[5:])}"

    def url_for(self, server: str) -> str | None:
        path = SERVERS.get(server)
        return None if path is None else self.base + path

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if self.proc.stdout is not None:
            self.proc.stdout.close()


# -- the scenarios (in the measuring process) --------------------------------------------

def measure(client: str, scenario: str, target: Target, sizes: Sizes) -> Figure:
    """Run one of :data:`SCENARIOS` (mcp_client only)."""
    if client != "mcp_client":
        raise NotAvailable(f"{scenario} measures mcp_client's own features")
    runs: dict[str, Callable[[Target, Sizes], Figure]] = {
        "auth_cost": auth_cost, "watch_cost": watch_cost, "era_cost": era_cost}
    return runs[scenario](target, sizes)


def _blocks(sides: dict[str, Callable[[], None]],
            calls: int) -> dict[str, list[tuple[float, float]]]:
    """Run ``calls`` calls of each side in BLOCKS interleaved blocks: (wall s, CPU s) each."""
    per_block = max(20, calls // BLOCKS)
    out: dict[str, list[tuple[float, float]]] = {name: [] for name in sides}
    for index in range(BLOCKS):
        order = list(sides) if index % 2 == 0 else list(reversed(sides))
        for name in order:
            call = sides[name]
            wall, cpu = time.perf_counter(), time.process_time()
            for _ in range(per_block):
                call()
            out[name].append(((time.perf_counter() - wall) / per_block,
                              (time.process_time() - cpu) / per_block))
    return out


def _echo_call(client: Any) -> Callable[[], None]:
    def call() -> None:
        check_echo(client.call_tool("echo", {"text": ECHO_TEXT})["content"][0]["text"],
                   ECHO_TEXT)
    return call


#: Requests per repeat of the isolated auth measurement, and repeats (the fastest counts).
AUTH_REQUESTS, AUTH_REPEATS = 20_000, 5


def _oauth(url: str) -> Any:
    """A ``ClientCredentials`` whose storage already holds a valid token for ``url``."""
    from mcp_client.auth import ClientCredentials, MemoryTokenStorage
    from mcp_client.auth._discovery import canonical_resource
    from mcp_client.auth._storage import storage_key

    storage = MemoryTokenStorage()
    storage.save(storage_key(canonical_resource(url), "bench"),
                 {"tokens": {"access_token": TOKEN, "token_type": "Bearer"}})
    return ClientCredentials("bench", client_secret="unused", storage=storage)


def _isolated_auth_us(url: str) -> dict[str, float]:
    """CPU per request of mcp_client's HTTP request preparation, without I/O (µs).

    What the transport does for every POST before the socket: on the direct
    path (``mcp_client._http.direct``, which a plain ``http://`` POST takes)
    ``DirectPool.prepare`` -- the ``auth=`` object asked for its header, the
    request's bytes built; on the requests path (TLS, proxies, other
    ``auth=`` hooks) ``mcp_client._http.wire.send`` on a session whose
    adapter answers 200 at once.  Each with the headers of a ``tools/call``:
    without auth, with the OAuth object, with a plain ``Authorization``
    header.  Only the code that differs between them runs besides, so the
    difference is the token's cost, free of the machine's noise.  Keys:
    ``none``/``oauth``/``header`` (direct) and ``requests_*`` (requests path).
    """
    import requests

    from mcp_client._http import direct, wire

    class Canned(requests.adapters.BaseAdapter):
        def send(self, request: Any, **options: Any) -> Any:
            response = requests.Response()
            response.status_code, response.request, response.url = 200, request, request.url
            response.connection = self
            return response

        def close(self) -> None:
            pass

    session = wire.new_session(url, pool_size=1)
    pool = direct.pool_for(url, session, size=1)
    assert pool is not None, "the benchmark's URL takes the direct path"
    session.mount("http://", Canned())
    plain = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
             "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "echo"}
    sides = {"none": (None, plain), "oauth": (_oauth(url), plain),
             "header": (None, {**plain, "Authorization": f"Bearer {TOKEN}"})}
    body = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}'

    def on_direct(auth: Any, headers: dict[str, str]) -> None:
        assert pool is not None and pool.prepare(url, body, headers, auth) is not None

    def on_requests(auth: Any, headers: dict[str, str]) -> None:
        wire.send(session, "POST", url, body=body, headers=headers,
                  auth=wire.explicit_auth(auth, headers), timeout=(10, None))

    best: dict[str, float] = {}
    for _ in range(AUTH_REPEATS):
        for prefix, step in (("", on_direct), ("requests_", on_requests)):
            for name, (auth, headers) in sides.items():
                start = time.process_time()
                for _ in range(AUTH_REQUESTS):
                    step(auth, headers)
                took = (time.process_time() - start) / AUTH_REQUESTS * 1e6
                best[prefix + name] = min(best.get(prefix + name, float("inf")), took)
    session.close()
    return best


def auth_cost(target: Target, sizes: Sizes) -> Figure:
    """Client CPU per request added by a valid OAuth bearer token (µs).

    The figure is :func:`_isolated_auth_us`'s difference on the direct path (its
    ``requests_*`` figures, in ``detail``, are the requests path's): the token is an
    :class:`mcp_client.auth.ClientCredentials` record already in its storage
    (valid, not expiring).  ``detail`` has the same measured end to end:
    sequential calls on the server's ``/auth/mcp`` endpoint (which refuses a
    request without the token) against ``/mcp`` of the same server, the whole
    process's CPU per call, in interleaved blocks -- the same answer, within
    the noise of a busy machine -- and the figures for a plain header.
    """
    from mcp_client import Client

    assert target.url is not None and target.url.endswith("/mcp")
    secured = target.url[:-len("/mcp")] + "/auth/mcp"
    clients = {"none": Client.connect_http(target.url),
               "oauth": Client.connect_http(secured, auth=_oauth(secured)),
               "header": Client.connect_http(secured,
                                             headers={"Authorization": f"Bearer {TOKEN}"})}
    try:
        sides = {name: _echo_call(client) for name, client in clients.items()}
        for call in sides.values():
            for _ in range(sizes.warmup):
                call()
        timed = _blocks(sides, sizes.calls)
    finally:
        for client in clients.values():
            client.close()
    isolated = _isolated_auth_us(secured)
    cpu = {name: statistics.median(c for _, c in blocks) * 1e6 for name, blocks in timed.items()}
    wall = {name: statistics.median(w for w, _ in blocks) * 1e6 for name, blocks in timed.items()}
    end_to_end = {name: statistics.median(a[1] - b[1] for a, b in zip(timed[name], timed["none"]))
                  * 1e6 for name in ("oauth", "header")}
    return Figure(isolated["oauth"] - isolated["none"], "µs", {
        "isolated_us": isolated, "header_extra_us": isolated["header"] - isolated["none"],
        "requests_path_extra_us": isolated["requests_oauth"] - isolated["requests_none"],
        "end_to_end_extra_cpu_us": end_to_end, "cpu_us": cpu, "wall_us": wall})


def watch_cost(target: Target, sizes: Sizes) -> Figure:
    """Sequential calls/s with ``watch=True`` (a listen open) over calls/s without (ratio).

    Both clients talk to ``servers/echo_stdio_watch.py``, which declares
    ``tools.listChanged`` and keeps every listen open.  The two sides run in
    WATCH_PAIRS pairs of fresh connections, their blocks interleaved: where
    the OS places a server process (beside its client, or across the cores)
    moves one connection's round trip by up to 2x for as long as it lives,
    so one pair alone would measure that placement, not ``watch=True``.
    """
    if target.url is not None:
        raise NotAvailable("watch_cost runs on the stdio echo server")
    timed: dict[str, list[tuple[float, float]]] = {"watch": [], "plain": []}
    ratios: list[float] = []
    extra_cpu: list[float] = []
    honoured = None
    for _ in range(WATCH_PAIRS):
        blocks, honoured = _watch_pair(sizes)
        ratios += [b[0] / a[0] for a, b in zip(blocks["watch"], blocks["plain"])]
        extra_cpu += [(a[1] - b[1]) * 1e6 for a, b in zip(blocks["watch"], blocks["plain"])]
        for name, side in blocks.items():
            timed[name] += side
    cpu = {name: statistics.median(c for _, c in blocks) * 1e6 for name, blocks in timed.items()}
    wall = {name: statistics.median(w for w, _ in blocks) * 1e6 for name, blocks in timed.items()}
    return Figure(statistics.median(ratios), "×", {"cpu_us": cpu, "wall_us": wall,
                                                   "extra_cpu_us": statistics.median(extra_cpu),
                                                   "honoured": honoured,
                                                   "pairs": WATCH_PAIRS})


def _watch_pair(sizes: Sizes) -> tuple[dict[str, list[tuple[float, float]]], Any]:
    """One pair of fresh connections, with and without ``watch=True``: their blocks."""
    from mcp_client import Client

    argv = [sys.executable, os.path.join(SERVERS_DIR, "echo_stdio_watch.py")]
    clients = {"watch": Client.connect_stdio(argv[0], args=argv[1:], watch=True),
               "plain": Client.connect_stdio(argv[0], args=argv[1:])}
    try:
        sides = {name: _echo_call(client) for name, client in clients.items()}
        for call in sides.values():
            for _ in range(sizes.warmup):
                call()
        watch = getattr(getattr(clients["watch"], "_connection", None), "watch", None)
        honoured = getattr(watch, "honoured", None)
        if honoured is None:
            raise BenchError("the watching client has no acknowledged listen open")
        return _blocks(sides, sizes.calls), honoured
    finally:
        for client in clients.values():
            client.close()


def _stats(base: str) -> dict[str, Any]:
    with urllib.request.urlopen(base + "/stats", timeout=10) as answer:
        data: dict[str, Any] = json.loads(answer.read())
    return data


def era_cost(target: Target, sizes: Sizes) -> Figure:
    """HTTP requests the server saw for connect + first ``list_tools`` + close with
    ``era="auto"``, minus with ``era="legacy"``, on a legacy server (count).

    ``detail`` has both counts by method and the time each took, and the extra
    time in round trips (one round trip: a ``tools/call`` on the same session).
    """
    from mcp_client import Client

    assert target.url is not None
    base = target.url.split("/", 3)
    stats_base = "/".join(base[:3])
    counts: dict[str, list[int]] = {"auto": [], "legacy": []}
    seconds: dict[str, list[float]] = {"auto": [], "legacy": []}
    methods: dict[str, dict[str, int]] = {}
    trips: list[float] = []
    for index in range(ERA_CONNECTS):
        for era in ("auto", "legacy") if index % 2 == 0 else ("legacy", "auto"):
            before = _stats(stats_base)
            start = time.perf_counter()
            client = Client.connect_http(target.url, era=era)
            client.list_tools()
            seconds[era].append(time.perf_counter() - start)
            trip = time.perf_counter()
            _echo_call(client)()
            trips.append(time.perf_counter() - trip)
            client.close()
            after = _stats(stats_base)
            counts[era].append(after["total"] - before["total"])
            methods[era] = {key: value - before["by_method"].get(key, 0)
                            for key, value in after["by_method"].items()
                            if value != before["by_method"].get(key, 0)}
    extra = statistics.median(a - b for a, b in zip(counts["auto"], counts["legacy"]))
    extra_ms = statistics.median(a - b for a, b in zip(seconds["auto"], seconds["legacy"])) * 1e3
    trip_ms = statistics.median(trips) * 1e3
    return Figure(float(extra), "requests", {
        "requests": {era: statistics.median(c) for era, c in counts.items()},
        "by_method": methods, "extra_ms": extra_ms, "round_trip_ms": trip_ms,
        "extra_round_trips": extra_ms / trip_ms if trip_ms else None,
        "connect_ms": {era: statistics.median(s) * 1e3 for era, s in seconds.items()}})


# -- the report ----------------------------------------------------------------------------

def rows(row: Callable[..., Any]) -> list[Any]:
    """The figures table's rows for this module (``row``: report.Row)."""
    out = []
    for server, name in _NAMES.items():
        out.append(row(f"connect/{server}", f"connect + first list_tools, {name}", "connect",
                       server, "ms", False))
    for server, name in _NAMES.items():
        out.append(row(f"sequential/{server}", f"sequential call_tool, {name}", "sequential",
                       server, "calls/s", True))
    for server, name in _NAMES.items():
        out.append(row(f"inflight/{server}", f"64 in flight (call_tool_async), {name}",
                       "inflight", server, "calls/s", True))
    out.append(row("auth_cost", "CPU per call added by a valid OAuth token, echo HTTP",
                   "auth_cost", "echo-http", "µs", False, floor=False))
    out.append(row("watch_cost", "sequential calls/s with watch=True ÷ without, stdio echo",
                   "watch_cost", "echo", "×", True, floor=False))
    out.append(row("watch_cost_cpu", "CPU per call added by watch=True, stdio echo",
                   "watch_cost", "echo", "µs", False, floor=False, field="extra_cpu_us"))
    out.append(row("era_cost", "HTTP requests added by era=\"auto\" over era=\"legacy\"",
                   "era_cost", "echo-legacy", "requests", False, floor=False))
    out.append(row("era_cost_trips", "connect time added by era=\"auto\", in round trips",
                   "era_cost", "echo-legacy", "round trips", False, floor=False,
                   field="extra_round_trips"))
    return out


def _budgets() -> list[tuple[str, str, str | None, str, float]]:
    out: list[tuple[str, str, str | None, str, float]] = []
    for server, name in (("echo-http", "HTTP JSON"), ("echo-sse", "HTTP SSE"),
                         ("echo-legacy", "legacy HTTP JSON"),
                         ("echo-legacy-sse", "legacy HTTP SSE")):
        out.append((f"sequential calls/s ≥ 0.8× floor ({name})", f"sequential/{server}",
                    "floor", ">=", 0.8))
        out.append((f"64 in flight ≥ 2× SDK, call_tool_async ({name})", f"inflight/{server}",
                    "sdk", ">=", 2.0))
    out += [("valid OAuth token ≤ 10 µs CPU more per call (HTTP)", "auth_cost", None, "<=",
             10.0),
            ("watch=True costs nothing per call: ≥ 0.95× (stdio echo)", "watch_cost", None,
             ">=", 0.95),
            ("watch=True costs nothing per call: ≤ 5 µs CPU more (stdio echo)",
             "watch_cost_cpu", None, "<=", 5.0),
            ("era=\"auto\" on a legacy server: ≤ 1 request more than era=\"legacy\"",
             "era_cost", None, "<=", 1.0),
            ("era=\"auto\" on a legacy server: ≤ 1.5 round trips more (time)",
             "era_cost_trips", None, "<=", 1.5)]
    return out


#: (label, row, against, op, bound): report.Budget's fields.
BUDGETS = _budgets()
