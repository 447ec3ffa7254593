"""Where mcp_client's time goes in the sequential scenario: cProfile on both threads.

``python bench/prof_sequential.py [--calls N] [--top K] [--server echo|sdk]``
runs the sequential ``call_tool`` loop against the hand-written echo server
with one :mod:`cProfile` profiler on the caller's thread and another on the
transport's reader thread (installed by wrapping ``StdioTransport._read_loop``
before the connection starts -- a private name, so this tool may need updating
when the transport changes; without it only the caller is profiled).  It
prints the top functions of each thread by own time, and a summary by kind:
JSON, locks and waits, futures, pipe I/O.  Profiling slows Python code
roughly twofold, so compare shares, not absolute times, with ``run.py``.

For a sampling view of every thread without that overhead::

    py-spy record --threads --rate 500 -o profile.svg -- python bench/prof_sequential.py --plain
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import time
from typing import Any, Callable

from common import ECHO_TEXT, check_echo, target_for

import mcp_client.stdio
from mcp_client import Client

__all__ = ["main", "KINDS"]

#: Summary buckets: a function lands in the first whose test matches its (file, name).
KINDS: list[tuple[str, Callable[[str, str], bool]]] = [
    ("JSON encode/decode", lambda f, n: "json" in f or n in ("encode", "decode")),
    ("locks (incl. blocked waiting)", lambda f, n: "acquire" in n or "release" in n or
     f.endswith("threading.py") or "'wait'" in n),
    ("futures", lambda f, n: "concurrent/futures" in f),
    ("pipe I/O (os.write, readline)", lambda f, n: "posix.write" in n or "readline" in n or
     "'write'" in n),
    ("mcp_client code", lambda f, n: "mcp_client" in f),
]

_reader_profile = cProfile.Profile()


def _profile_reader() -> bool:
    original = getattr(mcp_client.stdio.StdioTransport, "_read_loop", None)
    if original is None:
        return False

    def profiled(self: Any, *args: Any) -> None:
        _reader_profile.enable()
        try:
            original(self, *args)
        finally:
            _reader_profile.disable()

    setattr(mcp_client.stdio.StdioTransport, "_read_loop", profiled)
    return True


def _report(title: str, profile: cProfile.Profile, top: int) -> None:
    stream = io.StringIO()
    stats = pstats.Stats(profile, stream=stream)
    stats.sort_stats("tottime").print_stats(top)
    raw: dict[Any, Any] = getattr(stats, "stats")
    total = sum(entry[2] for entry in raw.values()) or 1.0
    buckets = {kind: 0.0 for kind, _ in KINDS}
    buckets["other"] = 0.0
    for (filename, _, name), entry in raw.items():
        kind = next((k for k, test in KINDS if test(filename, name)), "other")
        buckets[kind] += entry[2]
    print(f"\n=== {title}: {total:.3f} s of own time ===")
    for kind, seconds in sorted(buckets.items(), key=lambda item: -item[1]):
        print(f"  {kind:<32} {seconds:8.3f} s  {seconds / total * 100:5.1f}%")
    print(stream.getvalue())


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="cProfile mcp_client's sequential scenario")
    parser.add_argument("--calls", type=int, default=5000)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--server", default="echo", choices=("echo", "sdk"))
    parser.add_argument("--plain", action="store_true", help="no cProfile (for py-spy)")
    args = parser.parse_args(argv)
    reader = not args.plain and _profile_reader()
    target = target_for(args.server)
    caller = cProfile.Profile()
    with Client.connect_stdio(target.argv[0], args=list(target.argv[1:])) as client:
        client.list_tools()
        arguments = {"text": ECHO_TEXT}
        for _ in range(100):
            client.call_tool("echo", arguments)
        start = time.perf_counter()
        if not args.plain:
            caller.enable()
        for _ in range(args.calls):
            check_echo(client.call_tool("echo", arguments)["content"][0]["text"], ECHO_TEXT)
        if not args.plain:
            caller.disable()
        elapsed = time.perf_counter() - start
    print(f"{args.calls} calls in {elapsed:.3f} s: {args.calls / elapsed:,.0f} calls/s, "
          f"{elapsed / args.calls * 1e6:.1f} µs per call"
          f"{'' if args.plain else ' (under cProfile)'}")
    if not args.plain:
        _report("caller thread", caller, args.top)
        if reader:
            _report("reader thread (whole connection)", _reader_profile, args.top)


if __name__ == "__main__":
    main()
