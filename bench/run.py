"""The benchmark: ``python bench/run.py [--runs N] [--quick] [--report] [--only SCENARIO]``.

Every measurement is a fresh process (``bench/scenarios.py CLIENT SCENARIO
SERVER``, one JSON line back), for three clients -- mcp_client, the official
SDK's client and a no-library floor -- on the same servers: the hand-written
stdio echo server, the SDK's echo server over stdio, and the SDK's server
over Streamable HTTP on 127.0.0.1 (started here, one per run).  Runs are
repeated (the client order rotating each run) and each figure is reported as
the median with its min-max spread.  ``--report`` writes ``bench/RESULTS.md``
and ``bench/chart.png`` (see ``report.py``); without it the table is only
printed.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import subprocess
import sys
import time
from typing import Any, Iterator

from common import BENCH_DIR, SERVERS_DIR, Sizes
from report import Results, machine, render_markdown, write_chart, write_readme_table
from scale import SCALE, scale_lines, write_chart as write_scale_chart
from scenarios import CLIENTS, SCENARIOS
import http_scenarios

__all__ = ["main", "plan", "HttpServer"]

REPO_DIR = os.path.dirname(BENCH_DIR)
SERVERS = ("echo", "sdk", "http", "legacy", *http_scenarios.SERVERS)
#: The servers that run as one HTTP child per run (``legacy``: the SDK's legacy sessions).
HTTP_SERVERS = ("http", "legacy")
#: Which clients each scenario is run for (the others have no such figure).
SCENARIO_CLIENTS = {
    "connect": CLIENTS, "sequential": CLIENTS, "inflight": CLIENTS,
    "batch": ("mcp_client",), "cached_list": ("mcp_client", "sdk"), "import": CLIENTS,
    **{name: http_scenarios.CLIENTS for name in http_scenarios.SCENARIOS},
}
QUICK = Sizes(calls=200, warmup=10, rounds=3, lookups=1000)
#: The SDK's servers cost far more per call than the clients do, so their calls and rounds are
#: divided by this: the ratios hardly move, and a full run stays under ten minutes.
SLOW_SERVER_DIVISOR = 2
#: Seconds one measurement may take before it is killed and reported as an error.
MEASUREMENT_TIMEOUT = 300


@dataclasses.dataclass(frozen=True)
class Job:
    """One measurement to make."""

    client: str
    scenario: str
    server: str


def plan(scenarios: list[str], servers: list[str], run_index: int) -> list[Job]:
    """The measurements of one run, the client order rotated by ``run_index``."""
    jobs: list[Job] = []
    for scenario in scenarios:
        clients = list(SCENARIO_CLIENTS[scenario])
        shift = run_index % len(clients)
        clients = clients[shift:] + clients[:shift]
        for server in (["-"] if scenario == "import" else
                       [s for s in servers if http_scenarios.wanted(scenario, s)]):
            # no floor over legacy HTTP: a hand-rolled session is more library than floor
            jobs.extend(Job(client, scenario, server) for client in clients
                        if not (server == "legacy" and client == "floor"))
    return jobs


class HttpServer:
    """The SDK's Streamable HTTP echo server, as a child process on a random port.

    ``legacy``: behind a router that refuses 2026-07-28, so clients speak the
    2025-11-25 handshake in a session.
    """

    def __init__(self, env: dict[str, str], *, legacy: bool = False) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, os.path.join(SERVERS_DIR, "sdk_http.py")]
            + (["--handshake-only"] if legacy else []), env=env,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line.startswith("PORT="):
            self.close()
            raise SystemExit(f"the HTTP server did not start (it said {line!r})")
        self.url = f"http://127.0.0.1:{int(line[5:])}/mcp"

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()   # EOF on stdin: the server shuts down
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if self.proc.stdout is not None:
            self.proc.stdout.close()


def _environment() -> dict[str, str]:
    """The children's environment: this checkout first on PYTHONPATH (no install needed)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (REPO_DIR, env.get("PYTHONPATH")) if p)
    env["PYTHONUNBUFFERED"] = "1"
    return env


def _sizes_for(server: str, sizes: Sizes) -> Sizes:
    if server == "echo" or server in http_scenarios.SERVERS:
        return sizes
    return dataclasses.replace(sizes, calls=max(1, sizes.calls // SLOW_SERVER_DIVISOR),
                               rounds=max(1, sizes.rounds // SLOW_SERVER_DIVISOR))


def _measure(job: Job, url: str | None, sizes: Sizes, env: dict[str, str]) -> dict[str, Any]:
    server = url or job.server
    sizes = _sizes_for(job.server, sizes)
    argv = [sys.executable, os.path.join(BENCH_DIR, "scenarios.py"), job.client, job.scenario,
            server, "--calls", str(sizes.calls), "--warmup", str(sizes.warmup),
            "--rounds", str(sizes.rounds), "--lookups", str(sizes.lookups)]
    base: dict[str, Any] = {"client": job.client, "scenario": job.scenario,
                            "server": job.server}
    started = time.perf_counter()
    try:
        done = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=REPO_DIR,
                              timeout=MEASUREMENT_TIMEOUT)
    except subprocess.TimeoutExpired:
        return {**base, "error": f"timed out after {MEASUREMENT_TIMEOUT}s"}
    base["wall_s"] = round(time.perf_counter() - started, 2)
    lines = done.stdout.strip().splitlines()
    try:
        line: dict[str, Any] = json.loads(lines[-1])
    except (IndexError, ValueError):
        tail = done.stderr.strip().splitlines()[-3:]
        return {**base, "error": f"exit {done.returncode}: {' | '.join(tail)}"}
    if "error" in line and done.stderr.strip():
        line["stderr"] = done.stderr.strip().splitlines()[-5:]
    return {**line, "server": job.server, "wall_s": base["wall_s"], "calls": sizes.calls,
            "rounds": sizes.rounds}


def _describe(line: dict[str, Any]) -> str:
    if "value" in line:
        return f"{line['value']:,.1f} {line['unit']}"
    return f"n/a ({line['na']})" if "na" in line else f"ERROR {line['error']}"


def _runs(args: argparse.Namespace, sizes: Sizes, env: dict[str, str]) -> Iterator[dict[str, Any]]:
    unavailable: set[Job] = set()
    for index in range(args.runs):
        scenarios = [scenario for scenario in args.only if scenario != SCALE]
        jobs = [job for job in plan(scenarios, args.server, index) if job not in unavailable]
        https = {name: HttpServer(env, legacy=name == "legacy") for name in HTTP_SERVERS
                 if any(job.server == name for job in jobs)}
        echo_http = http_scenarios.EchoHttpServer(env) if any(
            job.server in http_scenarios.SERVERS for job in jobs) else None
        try:
            for job in jobs:
                http = https.get(job.server)
                url = http.url if http else echo_http.url_for(job.server) if echo_http else None
                line = _measure(job, url, sizes, env)
                line["run"] = index + 1
                if "na" in line:
                    unavailable.add(job)   # it will not become available next run
                print(f"run {index + 1}/{args.runs}  {job.scenario:<11} {job.server:<15} "
                      f"{job.client:<10} {_describe(line)}", flush=True)
                yield line
        finally:
            for http in https.values():
                http.close()
            if echo_http is not None:
                echo_http.close()


def _parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="mcp_client vs the official SDK client "
                                                 "vs no library")
    parser.add_argument("--runs", type=int, default=None, help="repetitions (default 5)")
    parser.add_argument("--quick", action="store_true",
                        help="a smoke run: one run, small workloads")
    parser.add_argument("--report", action="store_true",
                        help="write bench/RESULTS.md and bench/chart.png")
    parser.add_argument("--only", action="append", choices=SCENARIOS + (SCALE,),
                        metavar="SCENARIO", help="run only this scenario (repeatable): "
                        f"{', '.join(SCENARIOS + (SCALE,))}")
    parser.add_argument("--server", action="append", choices=SERVERS,
                        help="run only against this server (repeatable)")
    parser.add_argument("--json", metavar="PATH", help="also write every raw measurement here")
    parser.add_argument("--render", metavar="PATH",
                        help="measure nothing: rebuild the report from a --json file")
    args = parser.parse_args(argv)
    args.runs = args.runs if args.runs is not None else (1 if args.quick else 5)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    args.only = args.only or list(SCENARIOS) + [SCALE]
    args.server = args.server or list(SERVERS)
    return args


def main(argv: list[str] | None = None) -> int:
    args = _parse(argv)
    if args.render:
        with open(args.render, encoding="utf-8") as source:
            saved = json.load(source)
        about, lines = saved["machine"], saved["measurements"]
    else:
        sizes = QUICK if args.quick else Sizes()
        about = machine(REPO_DIR)
        started = time.time()
        lines = list(_runs(args, sizes, _environment()))
        if SCALE in args.only:   # one Registry over many servers: bench/scale.py
            lines += scale_lines(_environment(), runs=args.runs, quick=args.quick, cwd=REPO_DIR)
        about.update(elapsed_s=round(time.time() - started), runs=args.runs, quick=args.quick,
                     sizes=dataclasses.asdict(sizes), load_after=os.getloadavg())
    results = Results(lines, about)
    text = render_markdown(results)
    print()
    print(text)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as sink:
            json.dump({"machine": about, "measurements": lines}, sink, indent=1)
    if args.report:
        with open(os.path.join(BENCH_DIR, "RESULTS.md"), "w", encoding="utf-8") as sink:
            sink.write(text)
        write_chart(results, os.path.join(BENCH_DIR, "chart.png"))
        write_scale_chart(lines, os.path.join(BENCH_DIR, "scale.png"))
        write_readme_table(results, os.path.join(REPO_DIR, "README.rst"))
        print("wrote bench/RESULTS.md, bench/chart.png, bench/scale.png and README.rst's table")
    return 1 if any("error" in line for line in lines) else 0


if __name__ == "__main__":
    sys.exit(main())
