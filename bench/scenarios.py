"""One measurement, in a fresh process: ``python bench/scenarios.py CLIENT SCENARIO SERVER``.

CLIENT is ``mcp_client``, ``sdk`` (the official SDK's client) or ``floor``
(no library); SCENARIO one of :data:`SCENARIOS`; SERVER ``echo`` (the
hand-written stdio echo server), ``sdk`` (the SDK's echo server over stdio)
or the ``http://`` URL of a running Streamable HTTP server (``-`` for
``import``, which needs none).  It prints one JSON line::

    {"client": ..., "scenario": ..., "server": ..., "value": ..., "unit": ..., "detail": {...}}

or the same with ``"na": "<why>"`` when the client cannot run the scenario,
or ``"error": "<what>"`` when it ran and failed.  Only the chosen client's
driver is imported, so one client's imports never weigh on another's figures.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import subprocess
import sys
import time
import traceback
from typing import Any, Callable

from common import BenchError, Figure, NotAvailable, Sizes, target_for
import http_scenarios

__all__ = ["CLIENTS", "SCENARIOS", "IMPORTS", "measure", "import_cost", "main"]

CLIENTS = ("mcp_client", "sdk", "floor")
SCENARIOS = ("connect", "sequential", "inflight", "batch", "cached_list", "import",
             *http_scenarios.SCENARIOS)
#: What each client costs to import: the statement a program needs before its first call.
IMPORTS = {"mcp_client": "import mcp_client", "sdk": "import mcp.client",
           "floor": "import json, subprocess"}
#: Fresh interpreters per figure inside one import measurement (the minimum is kept).
IMPORT_REPEATS = 5

_DRIVERS = {"mcp_client": "drive_mcp_client", "sdk": "drive_sdk", "floor": "drive_floor"}


#: The import scenario's environment: bytecode caching on, as for any program's
#: second run (some environments set PYTHONDONTWRITEBYTECODE, which would make
#: every fresh process compile the package from source and time the compiler).
_IMPORT_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _python(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, check=True,
                          env=_IMPORT_ENV)


def _importtime_roots(stderr: str) -> dict[str, int]:
    """Top-level modules of a ``-X importtime`` report -> cumulative µs."""
    roots: dict[str, int] = {}
    for line in stderr.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        _, cumulative, name = line.split("|", 2)
        name = name[1:] if name.startswith(" ") else name
        if name.startswith(" ") or not cumulative.strip().isdigit():
            continue   # nested under another import, or the header
        roots[name.strip()] = int(cumulative)
    return roots


def import_cost(statement: str) -> Figure:
    """Wall time of a fresh ``python -c STATEMENT`` minus a bare ``python -c pass`` (ms),
    with the ``-X importtime`` total and the number of modules loaded."""
    bare: list[float] = []
    loaded: list[float] = []
    _python("-c", statement)   # a warm-up that writes the .pyc files
    for _ in range(IMPORT_REPEATS):
        for sink, code in ((bare, "pass"), (loaded, statement)):
            start = time.perf_counter()
            _python("-c", code)
            sink.append(time.perf_counter() - start)
    baseline = _importtime_roots(_python("-X", "importtime", "-c", "pass").stderr)
    timed = _importtime_roots(_python("-X", "importtime", "-c", statement).stderr)
    importtime_us = sum(us for name, us in timed.items() if name not in baseline)
    count = _python("-c", "import sys; n = set(sys.modules); " + statement +
                    "; print(len(set(sys.modules) - n))").stdout
    return Figure((min(loaded) - min(bare)) * 1000, "ms",
                  {"importtime_ms": importtime_us / 1000, "modules": int(count),
                   "bare_ms": min(bare) * 1000})


def measure(client: str, scenario: str, server: str, sizes: Sizes) -> Figure:
    """Run one scenario; raises NotAvailable or BenchError."""
    if scenario == "import":
        return import_cost(IMPORTS[client])
    if scenario in http_scenarios.SCENARIOS:
        return http_scenarios.measure(client, scenario, target_for(server), sizes)
    driver = importlib.import_module(_DRIVERS[client])
    run: Callable[..., Figure] = getattr(driver, scenario)
    return run(target_for(server), sizes)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("client", choices=CLIENTS)
    parser.add_argument("scenario", choices=SCENARIOS)
    parser.add_argument("server", help="echo, sdk, an http:// URL, or - for import")
    defaults = Sizes()
    parser.add_argument("--calls", type=int, default=defaults.calls)
    parser.add_argument("--warmup", type=int, default=defaults.warmup)
    parser.add_argument("--rounds", type=int, default=defaults.rounds)
    parser.add_argument("--lookups", type=int, default=defaults.lookups)
    args = parser.parse_args(argv)
    sizes = Sizes(calls=args.calls, warmup=args.warmup, rounds=args.rounds,
                  lookups=args.lookups)
    label = "http" if args.server.startswith("http") else args.server
    line: dict[str, Any] = {"client": args.client, "scenario": args.scenario, "server": label}
    try:
        figure = measure(args.client, args.scenario, args.server, sizes)
        line.update(value=figure.value, unit=figure.unit, detail=figure.detail)
    except NotAvailable as exc:
        line["na"] = str(exc)
    except (BenchError, Exception) as exc:
        traceback.print_exc()
        line["error"] = f"{type(exc).__name__}: {exc}"
    sys.stdout.write(json.dumps(line) + "\n")
    sys.stdout.flush()
    return 1 if "error" in line else 0


if __name__ == "__main__":
    # The SDK's children would otherwise inherit a buffered, interleaved stderr.
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
