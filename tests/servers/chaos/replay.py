"""Writes to stdout exactly the bytes it is told to: the stdio reader's fuzzing partner.

Every stdin line is a JSON object ``{"write": BASE64, "cuts": [OFFSETS], "n": N}``: the decoded
bytes go to stdout in pieces split at the offsets, each piece flushed on its own, followed by
``\\n{"done": N}\\n`` (so whatever line the bytes left open ends before the marker).  Exits on
stdin EOF.

Usage: ``python tests/servers/chaos/replay.py``
"""

import base64
import json
import sys


def main() -> None:
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        order = json.loads(line)
        data = base64.b64decode(order["write"])
        cuts = sorted(c for c in order["cuts"] if 0 < c < len(data))
        for start, end in zip([0] + cuts, cuts + [len(data)]):
            out.write(data[start:end])
            out.flush()
        out.write(b'\n{"done": %d}\n' % order["n"])
        out.flush()


if __name__ == "__main__":
    main()
