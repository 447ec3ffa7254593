"""Which process this is, and whether another one on this host is still alive.

A store keeps an in-flight hold as a row stamped with its process (host, pid
and, on Linux, the process's start time, so a reused pid is not taken for the
dead one).  A hold whose process is gone -- killed, even by SIGKILL, which runs
no cleanup -- is purged by the next transaction on the same host.
"""

from __future__ import annotations

import os
import socket

__all__ = ["HOST", "started", "alive"]

#: This host's name, as holds are stamped with it.
HOST = socket.gethostname()


def _stat(pid: int) -> list[str] | None:
    """The fields of ``/proc/PID/stat`` after the command name (None off Linux or when gone)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as stat:
            return stat.read().rpartition(")")[2].split()
    except OSError:
        return None


def started(pid: int) -> str | None:
    """When process ``pid`` started (clock ticks since boot, from ``/proc``); None if unknown."""
    fields = _stat(pid)
    return fields[19] if fields is not None and len(fields) > 19 else None


def alive(pid: int, since: str | None) -> bool:
    """Whether process ``pid``, started at ``since``, is still running.

    A zombie (killed, not yet reaped) counts as dead; so does a live process
    whose start time differs (the pid was reused).  Unsure counts as alive: a
    hold is only purged when its process is known to be gone.
    """
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        pass   # it exists, owned by somebody else
    fields = _stat(pid)
    if fields is None:
        return True
    if fields[0] == "Z":
        return False
    return since is None or len(fields) <= 19 or fields[19] == since
