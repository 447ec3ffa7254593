"""The cost of tracing: sequential ``call_tool`` over stdio, with and without a tracer.

Three clients of the same server, each in a fresh process: no ``tracer_provider``
(nothing of OpenTelemetry imported), a ``TracerProvider`` with no exporter (the spans
are made and dropped), and one with the SDK's in-memory exporter.  Prints calls per
second and microseconds per call for each, and the added cost per call.

Usage: ``python bench/otel.py [--calls N]``
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SERVER = ROOT / "examples" / "servers" / "quickstart_server.py"

DRIVER = r'''
import json, sys, time
from mcp_client import Client
mode, calls, server = sys.argv[1], int(sys.argv[2]), sys.argv[3]
options = {}
if mode != "off":
    from opentelemetry.sdk.trace import TracerProvider
    provider = TracerProvider()
    if mode == "exported":
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
        provider.add_span_processor(SimpleSpanProcessor(InMemorySpanExporter()))
    options["tracer_provider"] = provider
with Client.connect_stdio(sys.executable, args=[server], **options) as client:
    for _ in range(200):
        client.call_tool("add", {"a": 1, "b": 2})
    start = time.perf_counter()
    for _ in range(calls):
        client.call_tool("add", {"a": 1, "b": 2})
    took = time.perf_counter() - start
print(json.dumps({"per_call_us": took / calls * 1e6,
                  "otel_loaded": any(m.startswith("opentelemetry") for m in sys.modules)}))
'''


def run(mode: str, calls: int) -> dict[str, float]:
    done = subprocess.run([sys.executable, "-c", DRIVER, mode, str(calls), str(SERVER)],
                          capture_output=True, text=True, check=True, cwd=ROOT)
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=3000)
    calls = parser.parse_args().calls
    results = {mode: run(mode, calls) for mode in ("off", "dropped", "exported")}
    base = results["off"]["per_call_us"]
    print(f"{'tracing':<10} {'calls/s':>10} {'µs/call':>9} {'added':>9}  opentelemetry imported")
    for mode, result in results.items():
        per = result["per_call_us"]
        print(f"{mode:<10} {1e6 / per:>10,.0f} {per:>9.1f} {per - base:>+9.1f}  "
              f"{'yes' if result['otel_loaded'] else 'no'}")


if __name__ == "__main__":
    main()
