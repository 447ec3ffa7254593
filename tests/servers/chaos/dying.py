"""The chaos echo server (``echo.py``), dying at a bad moment.

``probe``
    exits with status 3 on the first message it reads, whatever it is (so a client that
    restarts it for the handshake sees it die again), after a last line on stderr.
``probe-orphan``
    like ``probe``, but first starts a grandchild in its process group that sleeps for a
    minute holding stderr (not stdout); ``orphan PID`` on stderr names it.
``call``
    answers ``server/discover``; exits with status 5 on ``tools/call``, after a last line on
    stderr and with the answer unwritten.
``close MS``
    serves normally; on stdin EOF writes a last line on stderr, waits MS milliseconds and exits
    with status 7 (a close that is under way when the child goes).
``stdout``
    answers ``server/discover``; on ``tools/call`` closes its stdout and stays alive, answering
    nothing more, until stdin reaches EOF (a server that hung up on us but did not exit).
``term``
    serves normally; ignores stdin EOF; on SIGTERM floods stdout and stderr with 1 MiB each and
    exits with status 9.

Usage: ``python tests/servers/chaos/dying.py WHEN [MS]``
"""

import os
import signal
import subprocess
import sys
import time
from typing import Any, Dict, List

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from echo import Server  # noqa: E402


def last_words(text: str, status: int) -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()
    os._exit(status)


class Dying(Server):
    def __init__(self, when: str, args: List[str]) -> None:
        super().__init__()
        self.when = when
        self.args = args

    def on_line(self, line: bytes) -> None:
        if self.when == "probe-orphan":
            orphan = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"],
                                      stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
            sys.stderr.write(f"orphan {orphan.pid}\n")
        if self.when.startswith("probe"):
            last_words("dying: the probe killed me", 3)
        super().on_line(line)

    def on_call(self, ident: Any, name: Any, arguments: Dict[str, Any]) -> None:
        if self.when == "call":
            self.flush()
            last_words("dying: in the middle of a call", 5)
        if self.when == "stdout":
            sys.stderr.write("dying: closing stdout\n")
            sys.stderr.flush()
            os.close(1)
            sys.stdin.buffer.read()   # alive, holding stderr, until the client lets go
            os._exit(0)
        super().on_call(ident, name, arguments)

    def serve(self) -> None:
        if self.when == "term":
            signal.signal(signal.SIGTERM, self.noisy_death)
        super().serve()
        if self.when == "close":
            sys.stderr.write("dying: stdin closed\n")
            sys.stderr.flush()
            time.sleep(int(self.args[0]) / 1000)
            os._exit(7)
        if self.when == "term":
            while True:
                time.sleep(1)

    def noisy_death(self, signum: int, frame: Any) -> None:
        os.write(2, b"dying: terminated\n")
        for fd in (1, 2):
            try:
                os.write(fd, b"z" * 1024 * 1024)
            except OSError:
                pass
        os._exit(9)


if __name__ == "__main__":
    Dying(sys.argv[1], sys.argv[2:]).serve()
