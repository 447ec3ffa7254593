"""The fleet store's cost: policy decisions that read a shared grant book, and lease
acquire/release latency, per engine, in 1 and 16 processes.

    python bench/store.py [--engines none,memory,sqlite,postgresql,redis]
                          [--processes 1,16] [--seconds 2] [--json PATH]

Engines:

* ``none`` -- today's in-process objects: ``Grants([rule])`` and ``LeaseTable()``
  with no store (each process has its own).
* ``memory`` -- ``open_store("memory:")`` (each process has its own).
* ``sqlite`` -- ``open_store("sqlite:///TMP/bench.db")``, one file every process
  shares.
* ``postgresql`` / ``redis`` -- ``open_store($MCP_TEST_POSTGRES_URL)`` /
  ``open_store($MCP_TEST_REDIS_URL)``, shared; skipped, with the reason, when the
  variable is unset, the engine is not in this version (``UnsupportedStore``) or
  the server cannot be reached.  A run uses its own book and workspace names
  and leaves no grant behind.

A *decision* is ``Policy.execute_tool_calls([call])`` for a tool no rule
allows (so the policy asks its book), over a provider that answers at once,
with a book holding one grant that allows it: the book is read on every
decision (for a shared book, that is what makes a grant written elsewhere
count at once).  Decisions/s is the sum over the processes, each running
for ``--seconds``.  A *lease* operation is ``LeaseTable.try_acquire(holder,
[path], ttl)`` then ``release(holder, [path])``, each process on its own
path (no conflicts: the cost is the store's, not waiting), timed one by one;
p50 and p99 are over every operation of every process.

Each process is a fresh ``python bench/store.py --worker ...``; they start
together (each waits for a go line on stdin once it is set up).  On a
machine with fewer cores than processes, the 16-process figures measure the
scheduler as much as the store.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
ENGINES = ("none", "memory", "sqlite", "postgresql", "redis")
#: The one grant every book holds: it allows the tool a decision is asked about.
RULE = {"tool": "fs_write", "decision": "allow"}
CALL = {"id": "1", "function": {"name": "fs_write", "arguments": {"text": "x"}}}


class Provider:
    """A provider with one tool the server did not annotate, answering at once."""

    def tools_for_llm(self) -> list[dict[str, Any]]:
        return [{"type": "function", "function": {"name": "fs_write", "description": "write",
                                                  "parameters": {"type": "object"}}}]

    def tool_annotations(self, name: str) -> None:
        return None

    def execute_tool_calls(self, calls: list[Any]) -> list[dict[str, Any]]:
        return [{"role": "tool", "tool_call_id": call["id"], "content": "ok",
                 "is_error": False} for call in calls]


# -- one process ----------------------------------------------------------------------

def worker(engine: str, url: str, book: str, workspace: str, index: int,
           seconds: float) -> None:
    """Set up, say ready, and on each go line run one phase and print its figures."""
    from mcp_client.leases import LeaseTable
    from mcp_client.policy import Grants, Policy
    from mcp_client.store import open_store

    store = None if engine == "none" else open_store(url)
    if store is None:
        grants, table = Grants([RULE]), LeaseTable()
    else:
        grants = Grants([RULE], store=store, book=book, agent=f"bench-{index}")
        table = LeaseTable(store=store, workspace=workspace)
    policy = Policy(Provider(), grants_store=grants)
    assert policy.execute_tool_calls([CALL])[0]["is_error"] is False, "the grant did not allow"
    holder, path = f"bench-{index}", f"/bench/{index}/file.txt"
    say({"ready": index})

    sys.stdin.readline()
    decisions, end = 0, time.perf_counter() + seconds
    while time.perf_counter() < end:
        for _ in range(20):
            policy.execute_tool_calls([CALL])
        decisions += 20
    say({"decisions": decisions, "seconds": seconds})

    sys.stdin.readline()
    acquire, release = [], []
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        start = time.perf_counter()
        if table.try_acquire(holder, [path], 60) is not None:
            raise SystemExit(f"lease of {path} refused")
        middle = time.perf_counter()
        table.release(holder, [path])
        acquire.append(middle - start)
        release.append(time.perf_counter() - middle)
    say({"acquire": acquire, "release": release})
    if store is not None:
        store.close()


def say(fields: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(fields) + "\n")
    sys.stdout.flush()


# -- the run --------------------------------------------------------------------------

def engine_url(engine: str, folder: str) -> tuple[str | None, str | None]:
    """The URL to open for ``engine`` (None: skip it, with the reason)."""
    if engine == "none":
        return "", None
    if engine == "memory":
        return "memory:", None
    if engine == "sqlite":
        return f"sqlite:///{folder}/bench.db", None
    variable = {"postgresql": "MCP_TEST_POSTGRES_URL", "redis": "MCP_TEST_REDIS_URL"}[engine]
    url = os.environ.get(variable)
    if not url:
        return None, f"{variable} is not set"
    return url, None


def check_open(url: str) -> str | None:
    """Why the store at ``url`` cannot be benchmarked (None: it opens)."""
    from mcp_client.exceptions import StoreError, UnsupportedStore
    from mcp_client.store import open_store

    try:
        open_store(url).close()
    except UnsupportedStore as exc:
        return f"not in this version ({exc.reason})"
    except StoreError as exc:
        return f"cannot be opened: {exc}"
    return None


def run(engine: str, url: str, processes: int, seconds: float) -> dict[str, Any]:
    tag = uuid.uuid4().hex[:8]
    book, workspace = f"bench-{tag}", f"bench-{tag}"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        p for p in (ROOT, os.environ.get("PYTHONPATH")) if p)}
    procs = [subprocess.Popen([sys.executable, __file__, "--worker", engine, url, book,
                               workspace, str(index), str(seconds)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
             for index in range(processes)]
    try:
        for proc in procs:
            read(proc)                           # ready
        phases = []
        for _ in range(2):
            for proc in procs:
                assert proc.stdin is not None
                proc.stdin.write("go\n")
                proc.stdin.flush()
            phases.append([read(proc) for proc in procs])
        for proc in procs:
            if proc.wait(timeout=60) != 0:
                raise RuntimeError(f"a worker exited with {proc.returncode}")
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    if engine in ("sqlite", "postgresql", "redis"):
        forget(url, book)
    decided = sum(figure["decisions"] for figure in phases[0])
    acquire = sorted(t for figure in phases[1] for t in figure["acquire"])
    release = sorted(t for figure in phases[1] for t in figure["release"])
    return {"engine": engine, "processes": processes,
            "decisions_per_s": decided / seconds,
            "acquire_p50_us": quantile(acquire, 0.5) * 1e6,
            "acquire_p99_us": quantile(acquire, 0.99) * 1e6,
            "release_p50_us": quantile(release, 0.5) * 1e6,
            "release_p99_us": quantile(release, 0.99) * 1e6,
            "lease_ops": len(acquire)}


def read(proc: subprocess.Popen[str]) -> dict[str, Any]:
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not line:
        raise RuntimeError(f"a worker ended early (exit {proc.wait()})")
    result: dict[str, Any] = json.loads(line)
    return result


def forget(url: str, book: str) -> None:
    """Leave no grant behind in a shared store."""
    from mcp_client.policy import Grants
    from mcp_client.store import open_store

    with open_store(url) as store:
        grants = Grants(store=store, book=book, agent="bench")
        for rule in grants.grants:
            grants.revoke(rule)


def quantile(samples: list[float], q: float) -> float:
    return samples[min(len(samples) - 1, int(q * (len(samples) - 1) + 0.5))] if samples else 0.0


def table(results: list[dict[str, Any]], skipped: dict[str, str]) -> str:
    lines = ["| engine | processes | decisions/s | acquire p50 | acquire p99 | release p50 "
             "| release p99 |", "|---|---:|---:|---:|---:|---:|---:|"]
    for r in results:
        lines.append(f"| {LABELS[r['engine']]} | {r['processes']} | {r['decisions_per_s']:,.0f} "
                     f"| {micro(r['acquire_p50_us'])} | {micro(r['acquire_p99_us'])} "
                     f"| {micro(r['release_p50_us'])} | {micro(r['release_p99_us'])} |")
    for engine, why in skipped.items():
        lines.append(f"| {LABELS[engine]} | -- | skipped: {why} | | | | |")
    return "\n".join(lines)


LABELS = {"none": "no store (in-process)", "memory": "MemoryStore", "sqlite": "SQLite (WAL)",
          "postgresql": "PostgreSQL", "redis": "Redis"}


def micro(value: float) -> str:
    return f"{value:,.0f} µs" if value >= 100 else f"{value:.1f} µs"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engines", default=",".join(ENGINES))
    parser.add_argument("--processes", default="1,16")
    parser.add_argument("--seconds", type=float, default=2.0,
                        help="how long each phase runs in each process (default 2)")
    parser.add_argument("--json", metavar="PATH", help="also write every figure as JSON")
    args = parser.parse_args(argv)
    engines = [e for e in args.engines.split(",") if e]
    unknown = set(engines) - set(ENGINES)
    if unknown:
        parser.error(f"unknown engines: {', '.join(sorted(unknown))}")
    counts = [int(n) for n in args.processes.split(",") if n]
    results, skipped = [], {}
    with tempfile.TemporaryDirectory() as folder:
        for engine in engines:
            url, why = engine_url(engine, folder)
            if url is None:
                skipped[engine] = str(why)
                continue
            if engine in ("postgresql", "redis"):
                why = check_open(url)
                if why is not None:
                    skipped[engine] = why
                    continue
            for count in counts:
                result = run(engine, url, count, args.seconds)
                results.append(result)
                print(f"{LABELS[engine]}, {count} processes: "
                      f"{result['decisions_per_s']:,.0f} decisions/s", file=sys.stderr)
    load = os.getloadavg()
    print(table(results, skipped))
    print(f"\n{os.cpu_count()} cores, load average {load[0]:.2f}, Python "
          f"{sys.version.split()[0]}, {args.seconds:g} s per phase per process")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as file:
            json.dump({"results": results, "skipped": skipped, "load": load,
                       "cores": os.cpu_count(), "seconds": args.seconds}, file, indent=2)
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        engine, url, book, workspace, index, seconds = sys.argv[2:8]
        worker(engine, url, book, workspace, int(index), float(seconds))
    else:
        sys.exit(main())
