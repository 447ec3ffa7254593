"""The stdio transport's child process: started in a group of its own, stopped step by step.

:func:`spawn` runs the command directly (no shell) in a new process group
(POSIX) so that :func:`stop` and :func:`kill_group` reach what the server
started (``npx``/``uvx`` spawn grandchildren).  :func:`stop` follows the
stdio transport's shutdown (2026-07-28 basic/transports): close stdin, wait,
SIGTERM, wait, SIGKILL.  :func:`exit_steps` is what the watcher does after a
child's exit when its stdout is still held open.  No threads of its own.
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import threading
from typing import Any, Callable, Iterator, Mapping, Sequence

from ..exceptions import SpawnFailed
from .command import os_reason
from .pipes import Waker

__all__ = ["spawn", "stop", "kill_group", "send_signal", "close_pipes", "exit_steps",
           "exit_code", "join_threads", "DRAIN_WAIT"]

log = logging.getLogger(__name__)

#: How long a dying child gets to finish writing stderr before the tail is read.
DRAIN_WAIT = 2.0
#: SIGKILL where there is one (POSIX), else SIGTERM.
KILL = getattr(signal, "SIGKILL", signal.SIGTERM)
_POSIX = os.name == "posix"


def spawn(command: str, argv: Sequence[str], env: Mapping[str, str] | None,
          cwd: str | os.PathLike[str] | None) -> subprocess.Popen[bytes]:
    """Start ``argv`` with three pipes, in a process group of its own.

    Our ends of stdin and stdout are non-blocking (POSIX): a server that
    stops reading must not block a send, and stdout is read with ``poll()``.

    Raises:
        SpawnFailed: the command could not be started.
    """
    flags: dict[str, Any] = {"start_new_session": True} if _POSIX else {
        "creationflags": getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)}
    try:
        proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, env=env, cwd=cwd, **flags)
    except OSError as exc:
        raise SpawnFailed(command, os_reason(command, exc)) from exc
    except (ValueError, TypeError) as exc:
        raise SpawnFailed(command, str(exc)) from exc
    assert proc.stdin is not None and proc.stdout is not None
    if _POSIX:   # our ends only
        os.set_blocking(proc.stdin.fileno(), False)
        os.set_blocking(proc.stdout.fileno(), False)
    return proc


def send_signal(proc: subprocess.Popen[bytes], signum: int, group_only: bool = False) -> None:
    """``signum`` to the child's whole group (POSIX), or to the child (unless ``group_only``)."""
    try:
        if _POSIX:
            os.killpg(proc.pid, signum)
        elif not group_only:
            proc.send_signal(signum)
    except (ProcessLookupError, PermissionError, OSError):
        pass


def kill_group(proc: subprocess.Popen[bytes]) -> None:
    """Kill what is left in the child's process group (POSIX; nothing elsewhere)."""
    send_signal(proc, KILL, group_only=True)


def _wait(proc: subprocess.Popen[bytes], timeout: float | None) -> bool:
    try:
        proc.wait(timeout)
        return True
    except subprocess.TimeoutExpired:
        return False


def stop(proc: subprocess.Popen[bytes], write_lock: threading.Lock, grace: float) -> None:
    """Close stdin (under ``write_lock``), wait, SIGTERM, wait, SIGKILL; then kill the group."""
    if write_lock.acquire(timeout=grace):
        try:
            if proc.stdin is not None:
                proc.stdin.close()
        except OSError:
            pass
        finally:
            write_lock.release()
    if not _wait(proc, grace):
        send_signal(proc, signal.SIGTERM)
        if not _wait(proc, grace):
            send_signal(proc, KILL)
            _wait(proc, None)
    # Whatever the leader did, its group goes with it: orphaned
    # grandchildren would otherwise hold our pipes open.
    kill_group(proc)


def exit_code(proc: subprocess.Popen[bytes], stderr_done: threading.Event) -> int | None:
    """The dead child's exit status, once its stderr is read (None: it still runs)."""
    stderr_done.wait(DRAIN_WAIT)   # the tail complete before the death is reported
    try:
        return proc.wait(DRAIN_WAIT)
    except subprocess.TimeoutExpired:
        return None


def join_threads(threads: list[threading.Thread], timeout: float) -> None:
    """Join each thread (but the calling one), ``timeout`` seconds each; log those still alive."""
    current = threading.current_thread()
    for thread in threads:
        if thread is not current:
            thread.join(timeout)
            if thread.is_alive():
                log.warning("%s did not finish", thread.name)


def close_pipes(proc: subprocess.Popen[bytes]) -> None:
    """Close our ends of the child's three pipes."""
    for stream in (proc.stdin, proc.stdout, proc.stderr):
        try:
            if stream is not None:
                stream.close()
        except OSError:
            pass


def exit_steps(proc: subprocess.Popen[bytes], waker: Waker, reading: Callable[[], bool],
               warn: Callable[[str], None]) -> Iterator[float]:
    """After the child's exit (on the watcher thread): make sure its death is reported.

    ``reading()`` says whether the reader still waits for stdout to end on
    an open transport.  Yields the seconds to pause between steps, which the
    watcher spends on the other children, never blocking.
    """
    if not reading():
        return
    yield DRAIN_WAIT
    if not reading():
        return
    # The server is gone but stdout is still held open by what it left
    # behind: that group is orphaned, and only its end frees the reader.
    warn(f"the server (pid {proc.pid}) exited but its process group holds "
         "stdout open; killing the group")
    kill_group(proc)
    yield DRAIN_WAIT
    if not reading():
        return
    # Still held: by a process that left the group (a daemon), which no
    # signal of ours reaches.  Stop reading, so the death is reported.
    warn(f"the server (pid {proc.pid}) exited but a process outside its group "
         "still holds its pipes open; no longer reading them")
    waker.set()
