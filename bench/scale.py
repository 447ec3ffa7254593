"""The scale benchmark: one ``Registry`` over many servers (issue 20, item 4).

``python bench/scale.py [--sizes 10,20,50,100] [--http 20] [--runs N] [--quick]``
measures, for each number of stdio echo servers (``servers/echo_stdio.py
--tools 50``) and once over HTTP servers, in a fresh process each time:

- **connect**: ``Registry.from_config`` over that many ``mcpServers``
  entries, which starts them in parallel and probes each one's era (ms);
- **RSS and threads per server**: this process's resident set and OS threads
  after connecting, minus before, over the number of servers;
- **tools_for_llm**: the first call (every server's ``tools/list``, then the
  listing built), a call after one server was removed and added again (the
  listing built anew from the clients' kept declarations) and a cached call
  (the median of many), over 50 tools a server -- 5,000 at 100 servers;
- **batch**: 100 read-only calls spread over 20 servers (all of them below
  20) as one ``execute_tool_calls`` (calls/s, median of the rounds);
- **agents**: 16 threads sharing the registry, each behind its own
  ``Policy(Leases(registry, table, agent))`` (the default rules: reads go
  through; one ``LeaseTable``), making
  single-call turns round-robin over every server (calls/s, all threads).

The HTTP servers are this module's own: ``python bench/scale.py serve-http``
is a threaded ``http.server`` (keep-alive, ``application/json`` answers)
that answers from ``servers/echo_stdio.py``'s prebuilt bytes, so it costs
no more per call than the stdio echo does -- not the SDK's server, whose
cost per call would hide the client's.  Each HTTP server is its own process,
started before the clock runs.

``scale_lines()`` is what ``run.py`` calls; :func:`render_section` and
:func:`write_chart` are what ``report.py`` calls.  A measurement prints one
JSON line: ``{"client": "mcp_client", "scenario": "scale", "server":
"scale-stdio"|"scale-http", "kind": "stdio"|"http", "servers": N, "detail":
{...}}`` (or ``"error"`` instead of ``"detail"``).
"""

from __future__ import annotations

import argparse
import http.server
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from typing import Any, Callable, Iterable, Sequence

from common import BENCH_DIR, SERVERS_DIR

__all__ = ["SCALE", "SIZES", "HTTP_SERVERS", "scale_lines", "measure", "render_section",
           "write_chart", "main"]

#: The name ``run.py --only`` knows this benchmark by.
SCALE = "scale"
SIZES = (10, 20, 50, 100)
QUICK_SIZES = (10, 20)
HTTP_SERVERS = 20
TOOLS_PER_SERVER = 50
BATCH_CALLS = 100
BATCH_SERVERS = 20
AGENTS = 16
#: Seconds one measurement may take before it is killed and reported as an error.
TIMEOUT = 600

_ECHO = os.path.join(SERVERS_DIR, "echo_stdio.py")


# -- the HTTP echo server ------------------------------------------------------------------

def serve_http(tools: int) -> None:
    """Serve the echo server's answers over HTTP on 127.0.0.1 until stdin reaches EOF."""
    sys.path.insert(0, SERVERS_DIR)
    import echo_stdio

    echo_stdio.configure(tools)

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"   # keep-alive
        disable_nagle_algorithm = True  # headers and body are two writes: no delayed ACK

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            answer = echo_stdio.answer(body)
            self.send_response(200 if answer else 202)
            self.send_header("Content-Length", str(len(answer)))
            if answer:
                self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, name="serve", daemon=True).start()
    print(f"PORT={server.server_address[1]}", flush=True)
    while sys.stdin.buffer.read(4096):
        pass
    server.shutdown()


class _HttpServers:
    """``count`` HTTP echo servers, each a child process, started in parallel."""

    def __init__(self, count: int) -> None:
        argv = [sys.executable, os.path.abspath(__file__), "serve-http",
                "--tools", str(TOOLS_PER_SERVER)]
        self.procs = [subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                       text=True) for _ in range(count)]
        self.urls = []
        for proc in self.procs:
            assert proc.stdout is not None
            line = proc.stdout.readline()
            if not line.startswith("PORT="):
                self.close()
                raise RuntimeError(f"an HTTP echo server did not start (it said {line!r})")
            self.urls.append(f"http://127.0.0.1:{int(line[5:])}/mcp")

    def close(self) -> None:
        for proc in self.procs:
            if proc.stdin is not None:
                proc.stdin.close()
        for proc in self.procs:
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            if proc.stdout is not None:
                proc.stdout.close()


# -- one measurement -----------------------------------------------------------------------

def _rss_kb() -> int:
    with open("/proc/self/statm", encoding="ascii") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024


def _os_threads() -> int:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("Threads:"):
                return int(line.split()[1])
    return threading.active_count()


def _ms(run: Callable[[], Any]) -> float:
    started = time.perf_counter()
    run()
    return (time.perf_counter() - started) * 1000


def _call(index: int, prefix: str, tool: int) -> dict[str, Any]:
    name = "echo" if tool == 0 else f"echo_{tool}"
    return {"id": f"c{index}", "type": "function",
            "function": {"name": f"{prefix}_{name}", "arguments": {"text": f"t{index}"}}}


def _check(answers: Sequence[dict[str, Any]], calls: Sequence[dict[str, Any]]) -> None:
    for answer, call in zip(answers, calls):
        wanted = call["function"]["arguments"]["text"]
        if answer.get("is_error") or answer.get("content") != wanted:
            raise RuntimeError(f"{call['function']['name']} answered {answer!r}")
    if len(answers) != len(calls):
        raise RuntimeError(f"{len(answers)} answers for {len(calls)} calls")


def _config(kind: str, count: int, urls: Sequence[str]) -> dict[str, Any]:
    if kind == "http":
        return {"mcpServers": {f"s{i}": {"type": "http", "url": url}
                               for i, url in enumerate(urls)}}
    return {"mcpServers": {f"s{i}": {"command": sys.executable,
                                     "args": [_ECHO, "--tools", str(TOOLS_PER_SERVER)]}
                           for i in range(count)}}


def _python_calls(run: Callable[[], Any]) -> int:
    """Python function calls ``run()`` makes on this thread: a cost no noise can move."""
    count = 0

    def profile(frame: Any, event: str, arg: Any) -> None:
        nonlocal count
        if event == "call":
            count += 1

    sys.setprofile(profile)
    try:
        run()
    finally:
        sys.setprofile(None)
    return count


def _agent_layers(registry: Any) -> list[Any]:
    """AGENTS providers over one registry: Policy(Leases(registry)), one LeaseTable."""
    from mcp_client.leases import Leases, LeaseTable
    from mcp_client.policy import Policy

    table = LeaseTable()
    return [Policy(Leases(registry, table, f"agent-{n}"), rules=Policy.default_rules())
            for n in range(AGENTS)]


def _turns(layer: Any, prefixes: Sequence[str], first: int, turns: int) -> None:
    for index in range(first, first + turns):
        call = [_call(index, prefixes[index % len(prefixes)], index % TOOLS_PER_SERVER)]
        _check(layer.execute_tool_calls(call), call)


def _agents(registry: Any, prefixes: Sequence[str], turns: int) -> tuple[float, float]:
    """Calls/s of AGENTS threads making single-call turns, and one turn's Python calls."""
    layers = _agent_layers(registry)
    start = threading.Barrier(AGENTS + 1)
    failures: list[BaseException] = []

    def agent(n: int) -> None:
        start.wait()
        try:
            _turns(layers[n], prefixes, n * turns, turns)
        except BaseException as exc:   # reported after the join
            failures.append(exc)

    threads = [threading.Thread(target=agent, args=(n,), name=f"agent-{n}")
               for n in range(AGENTS)]
    for thread in threads:
        thread.start()
    start.wait()
    began = time.perf_counter()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - began
    if failures:
        raise RuntimeError(f"an agent failed: {failures[0]!r}")
    sample = 20
    python = _python_calls(lambda: _turns(layers[0], prefixes, 0, sample)) / sample
    return AGENTS * turns / elapsed, python


def measure(kind: str, count: int, *, rounds: int, lookups: int, turns: int) -> dict[str, Any]:
    """Every figure of one registry over ``count`` servers of ``kind`` (stdio or http)."""
    from mcp_client import Registry

    https = _HttpServers(count) if kind == "http" else None
    try:
        config = _config(kind, count, https.urls if https else ())
        rss, threads = _rss_kb(), _os_threads()
        began = time.perf_counter()
        registry = Registry.from_config(config)
        connect_ms = (time.perf_counter() - began) * 1000
        with registry:
            if registry.failures:
                raise RuntimeError(f"{len(registry.failures)} servers did not connect: "
                                   f"{registry.failures[0]}")
            figures = _figures(registry, count, rounds=rounds, lookups=lookups, turns=turns)
            figures.update(connect_ms=connect_ms,
                           rss_kb_per_server=(_rss_kb() - rss) / count,
                           threads_per_server=(figures.pop("threads") - threads) / count)
        return figures
    finally:
        if https is not None:
            https.close()


def _figures(registry: Any, count: int, *, rounds: int, lookups: int,
             turns: int) -> dict[str, Any]:
    prefixes = [f"s{i}" for i in range(count)]
    threads = _os_threads()   # idle, before anything else runs
    first_ms = _ms(registry.tools_for_llm)
    tools = len(registry.tools_for_llm())
    if tools != count * TOOLS_PER_SERVER:
        raise RuntimeError(f"{tools} tools listed, not {count * TOOLS_PER_SERVER}")
    moved = registry.remove(prefixes[-1])
    registry.add(moved, prefix=prefixes[-1], owned=True)
    changed_ms = _ms(registry.tools_for_llm)
    registry.add(registry.remove(prefixes[-1]), prefix=prefixes[-1], owned=True)
    changed_python = _python_calls(registry.tools_for_llm)
    cached_ms = statistics.median(_ms(registry.tools_for_llm) for _ in range(lookups))
    spread = prefixes[:BATCH_SERVERS]
    calls = [_call(i, spread[i % len(spread)], i // len(spread)) for i in range(BATCH_CALLS)]
    _check(registry.execute_tool_calls(calls), calls)   # untimed: every server warmed up
    batch_python = _python_calls(lambda: registry.execute_tool_calls(calls)) / BATCH_CALLS
    batch_ms = []
    for _ in range(rounds):
        started = time.perf_counter()
        answers = registry.execute_tool_calls(calls)
        batch_ms.append((time.perf_counter() - started) * 1000)
        _check(answers, calls)
    agents_calls_s, agent_python = _agents(registry, prefixes, turns)
    return {"threads": threads, "tools": tools, "tools_first_ms": first_ms,
            "tools_changed_ms": changed_ms, "tools_changed_python": changed_python,
            "tools_cached_ms": cached_ms,
            "tools_cached_python": _python_calls(registry.tools_for_llm),
            "batch_servers": len(spread), "batch_calls_s": BATCH_CALLS * 1000 /
            statistics.median(batch_ms), "batch_python_per_call": batch_python,
            "agents_calls_s": agents_calls_s, "agent_python_per_call": agent_python}


# -- many measurements (run.py) ------------------------------------------------------------

def scale_lines(env: dict[str, str], *, runs: int, quick: bool,
                cwd: str) -> Iterable[dict[str, Any]]:
    """Every measurement of the benchmark, each in a fresh process, printed as it comes."""
    sizes = QUICK_SIZES if quick else SIZES
    jobs = [("stdio", size) for size in sizes] + [("http", HTTP_SERVERS)]
    extra = ["--rounds", "3", "--lookups", "20", "--turns", "10"] if quick else []
    for run in range(runs):
        for kind, count in jobs:
            argv = [sys.executable, os.path.abspath(__file__), "measure", kind, str(count),
                    *extra]
            line = _measured(argv, env, cwd, kind, count)
            line["run"] = run + 1
            print(f"run {run + 1}/{runs}  scale       {kind:<5} {count:>3} servers  "
                  f"{_summary(line)}", flush=True)
            yield line


def _measured(argv: list[str], env: dict[str, str], cwd: str, kind: str,
              count: int) -> dict[str, Any]:
    base: dict[str, Any] = {"client": "mcp_client", "scenario": SCALE,
                            "server": f"scale-{kind}", "kind": kind, "servers": count}
    try:
        done = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=cwd,
                              timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return {**base, "error": f"timed out after {TIMEOUT}s"}
    try:
        line: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError):
        tail = done.stderr.strip().splitlines()[-3:]
        return {**base, "error": f"exit {done.returncode}: {' | '.join(tail)}"}
    return {**base, **line}


def _summary(line: dict[str, Any]) -> str:
    if "error" in line:
        return f"ERROR {line['error']}"
    d = line["detail"]
    return (f"connect {d['connect_ms']:,.0f} ms, {d['threads_per_server']:.2f} threads and "
            f"{d['rss_kb_per_server']:,.0f} KiB a server, tools_for_llm "
            f"{d['tools_cached_ms']:.2f} ms over {d['tools']:,} tools, batch "
            f"{d['batch_calls_s']:,.0f} calls/s, agents {d['agents_calls_s']:,.0f} calls/s")


# -- the report ----------------------------------------------------------------------------

#: (detail key, label, unit, how to show a value, a total over every server: its growth
#: is shown per server, which must stay flat)
FIGURES = (
    ("connect_ms", "connect all (parallel start + era probe)", "ms", "{:,.0f}", True),
    ("threads_per_server", "threads per idle server", "", "{:.2f}", False),
    ("rss_kb_per_server", "RSS per server (client side)", "KiB", "{:,.0f}", False),
    ("tools", "tools listed", "", "{:,.0f}", True),
    ("tools_first_ms", "tools_for_llm, first (fetch + build)", "ms", "{:,.1f}", True),
    ("tools_changed_ms", "tools_for_llm, after one server changed", "ms", "{:,.2f}", True),
    ("tools_changed_python", "tools_for_llm, after a change: Python calls", "", "{:,.0f}",
     True),
    ("tools_cached_ms", "tools_for_llm, cached", "ms", "{:.3f}", True),
    ("tools_cached_python", "tools_for_llm, cached: Python calls", "", "{:,.0f}", True),
    ("batch_calls_s", "batch of 100 read-only calls over ≤ 20 servers", "calls/s", "{:,.0f}",
     False),
    ("batch_python_per_call", "batch: Python calls per call (caller's thread)", "",
     "{:,.1f}", False),
    ("agents_calls_s", "16 agents under Policy + Leases", "calls/s", "{:,.0f}", False),
    ("agent_python_per_call", "agents: Python calls per call (caller's thread)", "",
     "{:,.1f}", False),
)


#: Why the rebuild after a change grows per server in time though not in work (measured).
REBUILD_NOTE = (
    "The rebuild after a change does the same Python work per tool at every size (its "
    "call count grows exactly with the tools), yet its time per server grows, about "
    "1.4-1.6× from 10 to 100 servers in the runs so far, with the garbage collector off "
    "as much as on.  cProfile puts that growth in walking the whole catalogue: the "
    "generator feeding the name map costs about 4.6× as much per tool at 5,000 tools as "
    "at 500.  That is the memory a larger catalogue spans, not more work per server; "
    "rebuilding only the changed server's part would remove it, and is not done (the "
    "cached figure, the one an agent pays per turn, is flat).")


def _medians(lines: Iterable[dict[str, Any]]) -> dict[tuple[str, int], dict[str, list[float]]]:
    grouped: dict[tuple[str, int], dict[str, list[float]]] = {}
    for line in lines:
        if line.get("scenario") != SCALE or "detail" not in line:
            continue
        figures = grouped.setdefault((line["kind"], int(line["servers"])), {})
        for key, value in line["detail"].items():
            if isinstance(value, (int, float)):
                figures.setdefault(key, []).append(float(value))
    return grouped


def _cell(values: list[float] | None, shape: str) -> str:
    if not values:
        return "—"
    text = shape.format(statistics.median(values))
    if len(values) > 1:
        text += f" ({shape.format(min(values))}–{shape.format(max(values))})"
    return text


def render_section(lines: Iterable[dict[str, Any]]) -> list[str]:
    """The scale section of RESULTS.md (empty when the benchmark did not run)."""
    lines = list(lines)
    grouped = _medians(lines)
    if not grouped and not any(line.get("scenario") == SCALE for line in lines):
        return []
    columns = sorted(grouped, key=lambda key: (key[0] != "stdio", key[1]))
    stdio = [key for key in columns if key[0] == "stdio"]
    out = ["## Scale: one Registry over many servers", "",
           f"Stdio echo servers with {TOOLS_PER_SERVER} tools each, started in parallel by "
           "`Registry.from_config`; HTTP: this benchmark's own threaded HTTP echo server "
           "(`bench/scale.py serve-http`), one process each.  Each column is a fresh process; "
           "median (min–max) of the runs.  *growth* is the largest size's figure over the "
           "smallest's -- per server for a total over every server (connect, tools_for_llm), "
           "which is flat (1.00×) when no per-server cost grows with the number of servers; "
           "the Python call counts are deterministic, the timings are not.", "",
           "| figure | unit | " + " | ".join(f"{kind} × {n}" for kind, n in columns) +
           " | growth |", "|---|---|" + "---|" * len(columns) + "---|"]
    for key, label, unit, shape, total in FIGURES:
        cells = [_cell(grouped[column].get(key), shape) for column in columns]
        out.append(f"| {label} | {unit or 'count'} | " + " | ".join(cells) +
                   f" | {_growth(grouped, stdio, key, total)} |")
    for line in lines:
        if line.get("scenario") == SCALE and "error" in line:
            out.append(f"\n- {line['kind']} × {line['servers']} (run {line.get('run')}): "
                       f"error: {line['error']}")
    out += ["", REBUILD_NOTE, ""] + _budgets(grouped)
    out += ["", "![how each figure grows with the number of servers](scale.png)"]
    return out


def _budgets(grouped: dict[tuple[str, int], dict[str, list[float]]]) -> list[str]:
    """Issue 20's two absolute scale budgets, judged at the largest stdio size measured."""
    largest = max((key for key in grouped if key[0] == "stdio"), default=None,
                  key=lambda key: key[1])
    if largest is None:
        return []
    out = []
    for key, label, bound in (("tools_cached_ms", "tools_for_llm() cached < 5 ms", 5.0),
                              ("threads_per_server", "threads per idle stdio server ≤ 2", 2.0)):
        values = grouped[largest].get(key)
        if not values:
            continue
        value = statistics.median(values)
        ok = value < bound if key == "tools_cached_ms" else value <= bound
        out.append(f"- {label}, {largest[1]} servers: {value:.3g} — **{'PASS' if ok else 'FAIL'}**")
    return out


def _growth(grouped: dict[tuple[str, int], dict[str, list[float]]],
            stdio: Sequence[tuple[str, int]], key: str, total: bool) -> str:
    if len(stdio) < 2:
        return "—"
    low, high = grouped[stdio[0]].get(key), grouped[stdio[-1]].get(key)
    if not low or not high or statistics.median(low) == 0:
        return "—"
    ratio = statistics.median(high) / statistics.median(low)
    servers = stdio[-1][1] / stdio[0][1]
    if total:
        return f"{ratio / servers:.2f}× per server ({ratio:.1f}× in all)"
    return f"{ratio:.2f}×"


def write_chart(lines: Iterable[dict[str, Any]], path: str) -> bool:
    """``scale.png``: each figure against the number of stdio servers (False: no data)."""
    grouped = _medians(lines)
    sizes = sorted(n for kind, n in grouped if kind == "stdio")
    if not sizes:
        return False
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = (("connect all", "ms", ["connect_ms"]),
              ("per idle server", "threads, or MB of RSS",
               ["threads_per_server", "rss_kb_per_server"]),
              ("tools_for_llm", "ms (log)", ["tools_first_ms", "tools_changed_ms",
                                             "tools_cached_ms"]),
              ("throughput", "calls/s", ["batch_calls_s", "agents_calls_s"]))
    labels = {key: label for key, label, *_ in FIGURES}
    fig, axes = plt.subplots(2, 2, figsize=(10, 7))
    for axis, (title, unit, keys) in zip(axes.flat, panels):
        for key in keys:
            scale = 1 / 1000 if key == "rss_kb_per_server" else 1.0
            values = [statistics.median(grouped[("stdio", n)].get(key, [0.0])) * scale
                      for n in sizes]
            axis.plot(sizes, values, marker="o", label=labels[key])
            http = grouped.get(("http", HTTP_SERVERS), {}).get(key)
            if http:
                axis.plot([HTTP_SERVERS], [statistics.median(http) * scale], marker="s",
                          linestyle="none", color=axis.lines[-1].get_color())
        if title == "tools_for_llm":
            axis.set_yscale("log")
            axis.axhline(5.0, color="#c0392b", linewidth=0.8, linestyle="--",
                         label="budget for the cached call (5 ms)")
        axis.set_title(title, fontsize=9)
        axis.set_xlabel("stdio servers (square: HTTP × 20)", fontsize=8)
        axis.set_ylabel(unit, fontsize=8)
        axis.set_xticks(sizes)
        axis.legend(fontsize=7)
        axis.grid(alpha=0.3)
    fig.suptitle("mcp_client: one Registry over many servers", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


# -- the command line ------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="one Registry over many servers")
    sub = parser.add_subparsers(dest="command")
    serve = sub.add_parser("serve-http", help="an HTTP echo server (prints PORT=)")
    serve.add_argument("--tools", type=int, default=TOOLS_PER_SERVER)
    one = sub.add_parser("measure", help="one measurement, one JSON line")
    one.add_argument("kind", choices=("stdio", "http"))
    one.add_argument("servers", type=int)
    one.add_argument("--rounds", type=int, default=10)
    one.add_argument("--lookups", type=int, default=200)
    one.add_argument("--turns", type=int, default=40)
    every = sub.add_parser("run", help="every size (the default)")
    for target in (parser, every):
        target.add_argument("--runs", type=int, default=1)
        target.add_argument("--quick", action="store_true")
        target.add_argument("--json", metavar="PATH", help="also write the measurements here")
        target.add_argument("--chart", metavar="PATH", help="also draw the chart here")
    args = parser.parse_args(argv)
    if args.command == "serve-http":
        serve_http(args.tools)
        return 0
    if args.command == "measure":
        line: dict[str, Any] = {"client": "mcp_client", "scenario": SCALE,
                                "server": f"scale-{args.kind}", "kind": args.kind,
                                "servers": args.servers}
        try:
            line["detail"] = measure(args.kind, args.servers, rounds=args.rounds,
                                     lookups=args.lookups, turns=args.turns)
        except Exception as exc:
            import traceback
            traceback.print_exc()
            line["error"] = f"{type(exc).__name__}: {exc}"
        print(json.dumps(line), flush=True)
        return 1 if "error" in line else 0
    repo = os.path.dirname(BENCH_DIR)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (repo, env.get("PYTHONPATH")) if p)
    lines = list(scale_lines(env, runs=args.runs, quick=args.quick, cwd=repo))
    print("\n".join(render_section(lines)))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as sink:
            json.dump(lines, sink, indent=1)
    if args.chart:
        write_chart(lines, args.chart)
    return 1 if any("error" in line for line in lines) else 0


if __name__ == "__main__":
    sys.exit(main())
