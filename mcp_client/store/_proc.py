"""This host: which process this is, whether another one is alive, what disk a file is on.

A store keeps an in-flight hold as a row stamped with its process: host name,
boot id and pid namespace, pid and, on Linux, the process's start time (so a
reused pid is not taken for the dead one).  A hold whose process is gone --
killed, even by SIGKILL, which runs no cleanup -- is purged by the next
transaction on the same host (:func:`gone`); so is every hold from before the
host's last boot.  A hold from another host or pid namespace cannot be judged
from here and is kept: the store fails closed.
"""

from __future__ import annotations

import os
import socket

__all__ = ["HOST", "BOOT", "PIDNS", "started", "alive", "gone", "filesystem",
           "NETWORK_FILESYSTEMS"]

#: Filesystem types whose locking SQLite cannot rely on (its "How To Corrupt An
#: SQLite Database File", section 2.1; WAL also needs shared memory on one host).
NETWORK_FILESYSTEMS = frozenset({"nfs", "nfs4", "cifs", "smb3", "smbfs", "9p", "afs",
                                 "ceph", "glusterfs", "fuse.sshfs", "lustre", "gpfs"})

#: This host's name, as holds are stamped with it.
HOST = socket.gethostname()


def _boot() -> str | None:
    try:
        with open("/proc/sys/kernel/random/boot_id", encoding="ascii") as boot:
            return boot.read().strip() or None
    except OSError:
        return None


def _pidns() -> str | None:
    try:
        return os.readlink("/proc/self/ns/pid")
    except OSError:
        return None


#: This boot of the host (None off Linux): a pid means nothing across boots.
BOOT = _boot()
#: This process's pid namespace (None off Linux): a pid means nothing outside it.
PIDNS = _pidns()


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
    except (TypeError, ValueError, OverflowError):
        return True   # not a pid this code wrote: unsure, so alive
    fields = _stat(pid)
    if fields is None:
        return True
    if fields[0] == "Z":
        return False
    return since is None or len(fields) <= 19 or fields[19] == since


def filesystem(path: str, mounts: str = "/proc/mounts") -> str | None:
    """The type of the filesystem ``path`` is on (the longest mount point above it);
    None when the mount table cannot be read (off Linux)."""
    try:
        with open(mounts, encoding="utf-8", errors="replace") as table:
            rows = [line.split() for line in table]
    except OSError:
        return None
    best: tuple[int, str] | None = None
    for row in rows:
        if len(row) < 3:
            continue
        point = row[1].replace("\\040", " ")
        inside = path == point or path.startswith(point.rstrip("/") + "/")
        if inside and (best is None or len(point) > best[0]):
            best = (len(point), row[2])
    return None if best is None else best[1]


def gone(pid: int, since: str | None, boot: str | None, pidns: str | None) -> bool:
    """Whether the process a hold on this host was stamped with is known to be gone."""
    if boot is not None and BOOT is not None and boot != BOOT:
        return True   # the host rebooted since: every process of then is gone
    if pidns != PIDNS:
        return False   # another pid namespace (a container): its pids are not ours to test
    return not alive(pid, since)
