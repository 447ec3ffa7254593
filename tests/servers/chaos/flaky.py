"""The chaos echo server (``echo.py``), crashing now and then, for ``restart="on-failure"``.

``every N``
    exits with status 5 on every Nth ``tools/call`` it reads (the answer unwritten), after a
    last line on stderr; a restarted child counts from zero again.
``once PATH``
    the first run (``PATH`` absent) creates ``PATH`` and exits with status 5 on its first
    ``tools/call``; every later run exits with status 4 at once, before reading anything
    (a server that cannot start again after its crash).

Usage: ``python tests/servers/chaos/flaky.py WHEN ARG``
"""

import os
import sys
from typing import Any, Dict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from echo import Server  # noqa: E402


def last_words(text: str, status: int) -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()
    os._exit(status)


class Flaky(Server):
    def __init__(self, every: int) -> None:
        super().__init__()
        self.every = every
        self.calls = 0

    def on_call(self, ident: Any, name: Any, arguments: Dict[str, Any]) -> None:
        self.calls += 1
        if self.calls % self.every == 0:
            self.flush()
            last_words(f"flaky: crashing on call {self.calls}", 5)
        super().on_call(ident, name, arguments)


if __name__ == "__main__":
    when, arg = sys.argv[1], sys.argv[2]
    if when == "every":
        Flaky(int(arg)).serve()
    elif os.path.exists(arg):
        last_words("flaky: cannot start again", 4)
    else:
        open(arg, "w").close()
        Flaky(1).serve()
