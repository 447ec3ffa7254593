"""Would a faster JSON library pay for big results?  The parse of one answer line, measured.

A tools/call answer of 1, 16 and 64 MiB -- one text block, or one base64 image block --
is parsed from the bytes read, the way the transports parse it: with the standard
library's ``json.loads`` and with ``orjson.loads`` (when installed).  Prints the best of
five parses of each, and the ratio (above 1: orjson is faster).

Usage: ``python bench/json_parse.py`` (``pip install orjson`` for the comparison).
"""

from __future__ import annotations

import base64
import json
import os
import time
from typing import Any, Callable


def answer_line(size: int, kind: str) -> bytes:
    """A JSON-RPC answer carrying ``size`` bytes of text, or of base64 image data."""
    if kind == "text":
        block = {"type": "text", "text": "x" * size}
    else:
        block = {"type": "image", "mimeType": "image/png",
                 "data": base64.b64encode(os.urandom(size * 3 // 4)).decode()}
    return json.dumps({"jsonrpc": "2.0", "id": 7, "result": {"content": [block]}}).encode()


def best(parse: Callable[[bytes], Any], line: bytes, runs: int = 5) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        parse(line)
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    try:
        import orjson
    except ImportError:
        orjson = None
    print(f"{'size':>7} {'kind':<6} {'json':>9} {'orjson':>9} {'ratio':>6}")
    for mib in (1, 16, 64):
        for kind in ("text", "image"):
            line = answer_line(mib << 20, kind)
            stdlib = best(json.loads, line)
            fast = best(orjson.loads, line) if orjson is not None else float("nan")
            print(f"{mib:>3} MiB {kind:<6} {stdlib * 1e3:>7.1f}ms {fast * 1e3:>7.1f}ms "
                  f"{stdlib / fast:>5.2f}x")
            del line


if __name__ == "__main__":
    main()
