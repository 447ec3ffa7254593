"""The chaos echo server (``echo.py``) with a stdout or stderr that misbehaves.

The fault is the first argument; every real answer still goes out whole, on a line of its own,
unless the fault is that it does not:

``random N SEED``
    before every answer, N random bytes (seeded) and a newline.
``random-forever SEED``
    answers ``server/discover``, then writes random bytes without end and answers nothing.
``long MIB``
    before every ``tools/call`` answer, one line of MIB mebibytes.
``partial MS``
    every answer in three pieces, cut inside multi-byte characters, MS milliseconds apart.
``stall``
    answers ``server/discover``; of every later answer, only the first half.
``invalid-utf8``
    before every answer, lines of invalid UTF-8; ``echo`` answers carry an invalid byte.
``stray-ids``
    before every answer, responses and errors to ids the client never sent.
``duplicates``
    every answer twice, and the previous answer once more before the next.
``flood N``
    before every ``tools/call`` answer, N notifications (log messages and progress).
``stderr MIB``
    before every ``tools/call`` answer, MIB mebibytes on stderr: lines, and one line of 1 MiB
    with no newline until its end.

Usage: ``python tests/servers/chaos/noisy.py FAULT [ARGS...]``
"""

import json
import os
import random
import sys
import time
from typing import Any, Dict, List, Optional

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from echo import Server, encode, error, result  # noqa: E402

MIB = 1024 * 1024
INVALID_UTF8 = [b"\xff\xfe\xfd", b"\xc0\xaf overlong", b"\xed\xa0\x80 surrogate",
                b"\xe2\x82 truncated", b'{"jsonrpc": "2.0", "method": "x\xff"}']


class Noisy(Server):
    def __init__(self, fault: str, args: List[str]) -> None:
        super().__init__()
        self.fault = fault
        self.args = args
        self.random = random.Random(int(args[-1]) if fault.startswith("random") else 0)
        self.last: Optional[bytes] = None
        self.discovered = False

    def emit(self, message: Dict[str, Any]) -> None:
        data = encode(message)
        if self.fault == "random":
            self.out.write(self.random.randbytes(int(self.args[0])) + b"\n")
        elif self.fault == "partial":
            self.pieces(message)
            return
        elif self.fault == "stall" and self.discovered:
            data = data[:len(data) // 2]
        elif self.fault == "invalid-utf8":
            self.out.write(b"\n".join(INVALID_UTF8) + b"\n")
        elif self.fault == "stray-ids":
            self.strays()
        elif self.fault == "duplicates":
            self.out.write(data + (self.last or b""))
            self.last = data
        self.discovered = True
        self.out.write(data)

    def on_call(self, ident: Any, name: Any, arguments: Dict[str, Any]) -> None:
        if self.fault == "long":
            self.out.write(b'{"pad": "' + b"x" * (int(self.args[0]) * MIB) + b'"}\n')
        elif self.fault == "flood":
            self.flood(int(self.args[0]))
        elif self.fault == "stderr":
            self.stderr(int(self.args[0]))
        elif self.fault == "invalid-utf8" and name == "echo":
            text = json.dumps(str(arguments.get("text", ""))).encode()
            self.out.write(b'{"jsonrpc":"2.0","id":' + json.dumps(ident).encode()
                           + b',"result":{"content":[{"type":"text","text":'
                           + text[:-1] + b'\xff"}]}}\n')
            return
        super().on_call(ident, name, arguments)

    def pieces(self, message: Dict[str, Any]) -> None:
        data = json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"
        cuts = sorted({len(data) // 3, len(data) // 3 + 1, 2 * len(data) // 3})
        for start, end in zip([0] + cuts, cuts + [len(data)]):
            self.out.write(data[start:end])
            self.out.flush()
            time.sleep(int(self.args[0]) / 1000)

    def strays(self) -> None:
        for n in range(3):
            self.out.write(encode(result(10 ** 6 + self.random.randrange(10 ** 6), {})))
            self.out.write(encode(result(f"nobody-{n}", {"content": []})))
            self.out.write(encode(error(-n - 1, -32000, "for nobody")))

    def flood(self, count: int) -> None:
        batch = []
        for n in range(count):
            if n % 2:
                note = {"jsonrpc": "2.0", "method": "notifications/message",
                        "params": {"level": "info", "data": f"flood {n}"}}
            else:
                note = {"jsonrpc": "2.0", "method": "notifications/progress",
                        "params": {"progressToken": "nobody", "progress": n}}
            batch.append(encode(note))
            if len(batch) == 1000:
                self.out.write(b"".join(batch))
                batch = []
        self.out.write(b"".join(batch))

    def stderr(self, mib: int) -> None:
        line = b"E" * 1023 + b"\n"
        block = line * 1024   # 1 MiB of lines
        for _ in range(mib - 1):
            sys.stderr.buffer.write(block)
        sys.stderr.buffer.write(b"L" * (MIB - 1) + b"\n")   # one line, cut into pieces
        sys.stderr.buffer.write(b"end of the flood\n")
        sys.stderr.buffer.flush()

    def read_stdin(self) -> None:
        if self.fault != "random-forever":
            super().read_stdin()
            return
        line = sys.stdin.buffer.readline()   # server/discover, answered
        self.on_line(line)
        self.flush()
        while True:
            chunk = self.random.randbytes(64 * 1024)
            self.out.write(chunk)
            self.out.flush()


if __name__ == "__main__":
    Noisy(sys.argv[1], sys.argv[2:]).serve()
