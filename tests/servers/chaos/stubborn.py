"""The chaos echo server (``echo.py``), hard to stop.

``ignore-term``
    serves normally; ignores SIGTERM, and stdin EOF too: only SIGKILL ends it.
``grandchild``
    serves normally, but first starts a grandchild in the server's process group that sleeps
    for a minute holding stdout and stderr; ``tools/call`` ``die`` makes the server exit
    (status 6) while the grandchild lives on.
``daemon``
    like ``grandchild``, but the grandchild double-forks into a session of its own (a daemon),
    out of reach of any signal to the server's group; its pid is the first line on stderr
    (``daemon PID``) so that the test can end it.
``deaf``
    never reads stdin: every write to it piles up in the pipe.  Writes nothing either.
``deaf-after``
    answers ``server/discover``, then never reads stdin again.
``mute``
    serves normally until a ``tools/call`` ``never``: then closes its stdout, answering nothing
    more, and lives on until stdin ends.

Usage: ``python tests/servers/chaos/stubborn.py FAULT``
"""

import os
import signal
import subprocess
import sys
import time
from typing import Any, Dict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from echo import Server  # noqa: E402

SLEEPER = [sys.executable, "-c", "import time; time.sleep(60)"]


def daemonize() -> None:
    """Leave a process behind that holds our stdout and stderr, outside our group."""
    first = os.fork()
    if first:
        os.waitpid(first, 0)
        return
    os.setsid()
    second = os.fork()
    if second:
        os._exit(0)
    os.write(2, f"daemon {os.getpid()}\n".encode())
    os.closerange(3, 256)
    os.execv(sys.executable, SLEEPER)


class Stubborn(Server):
    def __init__(self, fault: str) -> None:
        super().__init__()
        self.fault = fault

    def on_call(self, ident: Any, name: Any, arguments: Dict[str, Any]) -> None:
        if name == "die":
            self.flush()
            os._exit(6)
        if name == "never" and self.fault == "mute":
            self.flush()
            os.close(1)
            self.out = open(os.devnull, "wb")   # what it still "answers" goes nowhere
            return
        super().on_call(ident, name, arguments)

    def serve(self) -> None:
        if self.fault == "ignore-term":
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
        elif self.fault == "grandchild":
            subprocess.Popen(SLEEPER)
        elif self.fault == "daemon":
            daemonize()
        if self.fault == "deaf":
            while True:
                time.sleep(1)
        if self.fault == "deaf-after":
            self.on_line(sys.stdin.buffer.readline())
            self.flush()
            while True:
                time.sleep(1)
        super().serve()
        while self.fault == "ignore-term":
            time.sleep(1)


if __name__ == "__main__":
    Stubborn(sys.argv[1]).serve()
