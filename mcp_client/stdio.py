"""A server run as a child process: one JSON-RPC message per line each way.

This module owns the child process and its three pipes.  The command is run
directly with :class:`subprocess.Popen` -- no shell, so no quoting, globbing or
injection: an argument containing ``; rm -rf /`` is one argument containing
that text.  One thread per child, named after its pid, reads stdout (one
message per line).  Its stderr and its exit are watched by one thread shared
by every child of the process (:mod:`mcp_client._stdio.watcher`): stderr is
drained into a ring of the last ``stderr_lines`` lines, each also passed to
``on_stderr``, because a child whose stderr pipe fills up stops dead; and the
exit is noticed even when a grandchild it left behind holds stdout open (the
orphaned group is killed, so the death is reported rather than waited out).
An idle child so costs one thread and a share of one.  Writes never block
the caller: our end of stdin is non-blocking, and whatever a full pipe does
not take waits in an outbox that a second thread, started only then, drains
-- so a server that stops reading its stdin cannot stop a call from timing
out or :meth:`StdioTransport.close` from returning.

A caller blocked on its answer does not wait for the reader thread: it reads
stdout itself while it waits (leader/follower, :mod:`mcp_client._stdio.reading`),
one reader at a time, every line dispatched as the reader thread would, and
the reader thread takes over whenever no caller waits.

Reads never outlive the transport either.  On POSIX the reader and the
watcher wait in ``poll()`` on the child's pipes *and* on a wake-up pipe of
our own, and read with ``os.read``: a process that escaped the server's
process group (a daemon it double-forked, a ``setsid`` helper) can hold our
pipes open for ever, and no signal to the group reaches it.
:meth:`StdioTransport.close` wakes both once the child is stopped, and the
exit's last step wakes them when the child died and even the group's end did
not free stdout -- so the death is still reported.  The bytes are cut into
lines by :class:`~mcp_client._lines.LineBuffer`.

When the child dies, the reader finishes the stderr tail *before* reporting
:class:`~mcp_client.exceptions.ServerGone`, so the diagnosis a dying server
writes is never lost to a race with its exit.  Once the client has settled
the era (:meth:`StdioTransport.connected`), the lines written before that --
on ``mcp`` 1.x servers ~95 lines of complaint about the ``server/discover``
probe -- are folded into one line of the tail whenever the server wrote
anything after them, so a dead server's own last words come first.  :meth:`StdioTransport.close`
follows the stdio transport's shutdown (2026-07-28 basic/transports): close
stdin, wait, SIGTERM, wait, SIGKILL -- to the whole process group on POSIX,
since servers launched through ``npx``/``uvx`` spawn grandchildren -- then
reaps the child and joins the threads.

Decisions: a line longer than ``max_line_bytes`` (16 MiB) is
dropped with a warning rather than buffered without bound; blank lines are
skipped silently; a line that is not a JSON object -- including JSON nested
too deeply for the parser -- is reported through ``on_warn`` and skipped; in
a line that is not valid UTF-8 (which JSON text must be, RFC 8259 §8.1) the
bad bytes become U+FFFD, as the SSE parser does, and the message is delivered
with a warning rather than lost whole.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import threading
from typing import Any, Callable, Mapping, Sequence

from ._environ import SAFE_ENV_VARS, InheritEnv, safe_env_vars
from ._lines import LineBuffer
from ._stdio.command import check_argv, check_env
from ._stdio.outbox import Outbox
from ._stdio.pipes import Waker as _Waker
from ._stdio.process import DRAIN_WAIT as _DRAIN_WAIT
from ._stdio.process import (KILL, close_pipes, exit_code, exit_steps, join_threads, kill_group,
                             send_signal, spawn, stop)
from ._stdio.reading import PipeReader, read_to_end
from ._stdio.tail import StderrTail
from ._stdio.watcher import Watch, watch
from .exceptions import MCPClientError, ProtocolError, ServerGone, SpawnFailed, TransportClosed
from .protocol import decode_message, quick_message
from .transport import CloseCallback, ErrorCallback, MessageCallback, Transport, WarnCallback
from ._log import WireTrace, warn_through, wire_trace

__all__ = ["StdioTransport", "DEFAULT_MAX_LINE_BYTES", "SAFE_ENV_VARS", "safe_env_vars"]

log = logging.getLogger(__name__)

#: The largest stdout line accepted, in bytes (a bound on memory, not a spec value).
DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024
#: The most a ``notifications/cancelled`` waits for another writer to release the pipe.
_CANCEL_WAIT = 0.1
#: The longest stderr line kept whole; a longer one is kept in pieces this long.
_STDERR_LINE = 64 * 1024
_POSIX = os.name == "posix"


#: One encoder for every message (json.dumps with options builds a new one per call).
_encode = json.JSONEncoder(separators=(",", ":"), allow_nan=False).encode


class StdioTransport(Transport):
    """Runs an MCP server as a child process and talks to it over its pipes.

    Args:
        command: the program to run (looked up on PATH, never through a shell).
        args: its arguments.
        env: variables layered over the inherited environment (or, with
            ``inherit_env=False``, the whole environment).
        cwd: the child's working directory.
        inherit_env: what the child starts from: ``True``, this process's
            whole environment; ``False``, nothing; ``"safe"``, only the
            variables of :data:`SAFE_ENV_VARS` that are set (the official
            SDKs' allow-list; see :mod:`mcp_client._environ`).
        on_stderr: called with each line the child writes to stderr (on the
            watcher thread every child shares: keep it quick; exceptions are
            reported through ``on_warn``).
        kill_grace: seconds to wait after closing stdin, and again after
            SIGTERM, before escalating.
        stderr_lines: how many stderr lines to keep for :class:`ServerGone`.
        max_line_bytes: the largest stdout line accepted.

    Raises:
        SpawnFailed: a NUL byte in the command, an argument or the environment,
            or another bad value.
    """

    pipelines = True   # send() never waits on a live child: the outbox takes the rest
    line_wire = True

    def __init__(self, command: str, *, args: Sequence[str] = (),
                 env: Mapping[str, str] | None = None, cwd: str | os.PathLike[str] | None = None,
                 inherit_env: InheritEnv = True, on_stderr: Callable[[str], None] | None = None,
                 kill_grace: float = 2.0, stderr_lines: int = 100,
                 max_line_bytes: int = DEFAULT_MAX_LINE_BYTES) -> None:
        self.command = command
        self._argv = check_argv(command, args)
        self._env = check_env(command, env, inherit_env)
        self._cwd = cwd
        self._kill_grace = float(kill_grace)
        self._max_line = int(max_line_bytes)
        self._tail = StderrTail(stderr_lines, on_stderr, self._warn)
        self._write_lock = threading.Lock()
        self._state_lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._threads: list[threading.Thread] = []
        self._stderr_done = threading.Event()
        self._reader_done = threading.Event()
        self._died = threading.Event()
        self._outbox: Outbox | None = None   # per child: what a full stdin pipe did not take
        self._waker: _Waker | None = None
        self._watch: Watch | None = None
        self._pipe: PipeReader | None = None   # stdout, read by the reader thread or a caller
        self._state = "new"
        self._death: ServerGone | None = None
        self._on_message: MessageCallback | None = None
        self._on_close: CloseCallback | None = None
        self._on_warn: WarnCallback | None = None
        self._trace: WireTrace | None = None   # set per child: see mcp_client._log

    # -- lifecycle -------------------------------------------------------------

    @property
    def argv(self) -> list[str]:
        """The command line the child is started with: ``[command, *args]`` (a copy)."""
        return list(self._argv)

    @property
    def pid(self) -> int | None:
        """The child's process id (None before start, and once the child is gone)."""
        proc = self._proc
        return None if proc is None or proc.poll() is not None else proc.pid

    @property
    def returncode(self) -> int | None:
        """The child's exit status once it has exited."""
        return self._proc.poll() if self._proc is not None else None

    @property
    def stderr_tail(self) -> str:
        """The last ``stderr_lines`` lines the child wrote to stderr.

        Lines from before :meth:`connected` are folded into one line when the
        child wrote anything after it (see the module).
        """
        return self._tail.text

    def connected(self) -> None:
        self._tail.settle(self._proc.stderr if self._proc is not None else None)

    @property
    def closed(self) -> bool:
        return self._state in ("closed", "dead")

    @property
    def can_restart(self) -> bool:
        return self._state in ("dying", "dead")

    def __repr__(self) -> str:
        return f"<StdioTransport {self.command!r} pid={self.pid} {self._state}>"

    def start(self, on_message: MessageCallback, on_close: CloseCallback,
              on_warn: WarnCallback, on_error: ErrorCallback | None = None) -> None:
        self._on_message, self._on_close, self._on_warn = on_message, on_close, on_warn
        self._spawn()

    def restart(self) -> None:
        """Start the command again after the child died (keeps the callbacks).

        What the dead child left in its process group is killed, and its pipes
        are no longer read, before the new child starts.
        """
        # a dying child's reader finishes its report first
        join_threads(self._threads[:1], self._kill_grace * 2 + 1)
        with self._state_lock:
            if self._state != "dead":
                raise MCPClientError(f"cannot restart a transport that is {self._state}")
        if self._proc is not None:
            kill_group(self._proc)
        self._let_go()
        self._reap()
        self._tail.clear()
        self._death = None
        self._spawn()

    def _spawn(self) -> None:
        proc = spawn(self.command, self._argv, self._env, self._cwd)
        self._proc = proc
        self._stderr_done = threading.Event()
        self._reader_done = threading.Event()
        self._died = threading.Event()
        threads: list[threading.Thread] = []
        self._outbox = Outbox(proc, self._write_lock, lambda: self._state == "open",
                              lambda: self.stderr_tail, threads)
        self._waker = waker = _Waker()
        self._trace = wire_trace(f"stdio pid={proc.pid}")
        self._pipe = None
        if _POSIX:
            assert proc.stdout is not None
            self._pipe = PipeReader(proc.stdout.fileno(), waker,
                                    LineBuffer(self._max_line, on_drop=self._dropped),
                                    self._handle_line)
        with self._state_lock:
            self._state = "open"
        reader = threading.Thread(target=self._read_loop, args=(proc, waker),
                                  name=f"mcp-stdio-reader-{proc.pid}", daemon=True)
        threads.append(reader)
        self._threads = threads
        try:
            self._watch = watch(proc, waker, on_line=self._tail.add,
                                on_exit=lambda: exit_steps(proc, waker, self._reading, self._warn),
                                stderr_done=self._stderr_done, max_line=_STDERR_LINE)
        except (OSError, RuntimeError) as exc:   # no fd or thread left: take the child back
            self._abandon(proc)
            raise SpawnFailed(self.command, f"cannot watch the child: {exc}") from exc
        reader.start()
        log.debug("started %s", self)

    def _abandon(self, proc: subprocess.Popen[bytes]) -> None:
        with self._state_lock:
            self._state = "closed"
        send_signal(proc, KILL)
        self._reap()   # closes the pipes and the waker too

    # -- the reading threads ---------------------------------------------------

    def _read_loop(self, proc: subprocess.Popen[bytes], waker: _Waker) -> None:
        assert proc.stdout is not None
        try:   # POSIX: the pipe is shared with the callers that lead (see lead())
            read_to_end(self._pipe, proc.stdout, waker,
                        lambda: LineBuffer(self._max_line, on_drop=self._dropped),
                        self._handle_line)
        except (OSError, ValueError):
            pass  # the pipe was closed under us
        finally:
            self._reader_done.set()
            self._on_eof(proc)

    def _dropped(self, size: int) -> None:
        self._warn(f"dropped a stdout line of {size} bytes "
                   f"(longer than max_line_bytes={self._max_line})")

    def _handle_line(self, line: bytes) -> None:
        if self._trace is not None and line.strip():
            self._trace.received(line)
        if line[:1] == b"{":   # the common case, kept short: one object alone on its line
            try:
                message = quick_message(line.decode("utf-8"))
            except UnicodeDecodeError:
                message = None   # the long way below says what is wrong with it
            if message is not None:
                callback = self._on_message   # _deliver(), inline: once per answer
                if callback is not None:
                    try:
                        callback(message)
                    except Exception as exc:  # never let a callback kill the reader
                        self._warn(f"message handler raised {exc!r}")
                return
        if not line.strip():
            return
        try:
            text, mangled = line.decode("utf-8"), False
        except UnicodeDecodeError:   # one bad byte must not cost a whole answer
            text, mangled = line.decode("utf-8", "replace"), True
        try:
            message = decode_message(text)
        except ProtocolError as exc:
            self._warn(f"skipped a stdout line that is {exc.message}: {line[:200]!r}")
            return
        if mangled:
            self._warn(f"a stdout line is not valid UTF-8; its bad bytes became U+FFFD: "
                       f"{line[:200]!r}")
        self._deliver(message)

    def _deliver(self, message: dict[str, Any]) -> None:
        callback = self._on_message
        if callback is None:
            return
        try:
            callback(message)
        except Exception as exc:  # never let a callback kill the reader
            self._warn(f"message handler raised {exc!r}")

    def _reading(self) -> bool:
        """Whether the reader still waits for stdout to end on an open transport."""
        return not self._reader_done.is_set() and self._state == "open"

    def _on_eof(self, proc: subprocess.Popen[bytes]) -> None:
        with self._state_lock:
            if self._state != "open" or proc is not self._proc:
                return  # close() is in charge
            self._state = "dying"
        code = exit_code(proc, self._stderr_done)
        death = ServerGone(code, self.stderr_tail,
                           "the server exited" if code is not None else
                           "the server closed its stdout")
        with self._state_lock:
            if self._state != "dying":
                return
            self._state = "dead"
            self._death = death
        self._died.set()
        callback = self._on_close
        if callback is not None:
            try:
                callback(death)
            except Exception as exc:
                self._warn(f"close handler raised {exc!r}")

    def lead(self, done: Callable[[], bool], timeout: float | None,
             waiting: Callable[[], int],
             first: Callable[[], None] | None = None) -> float | None:
        """Read stdout on the caller's thread until ``done()`` (see :mod:`._stdio.reading`).

        Returns what is left of ``timeout``; at once, with ``timeout``, when
        another thread reads the pipe or the transport is not open.
        """
        pipe = self._pipe
        if pipe is None or self._state != "open":
            if first is not None:
                first()
            return timeout
        return pipe.lead(done, timeout, waiting, first)

    # -- sending ---------------------------------------------------------------

    def send(self, message: dict[str, Any], *, headers: Mapping[str, str] | None = None) -> None:
        try:
            data = _encode(message).encode() + b"\n"
        except (TypeError, ValueError, RecursionError) as exc:   # not JSON, or too deep
            raise MCPClientError(f"cannot encode the message as JSON: {exc}") from exc
        with self._write_lock:
            self._check_open()
            self._write(data, patient=True)

    def send_line(self, data: bytes) -> None:
        """Write one message already encoded as a line of JSON (ending in ``\\n``)."""
        with self._write_lock:
            if self._state != "open":
                self._check_open()
            proc, outbox = self._proc, self._outbox
            if outbox is None or outbox.data or self._trace is not None or proc is None or \
                    proc.stdin is None:
                self._write(data, patient=True)
                return
            try:   # _write(), the common case inline: nothing queued, no trace
                written = os.write(proc.stdin.fileno(), data)
            except (OSError, ValueError):   # a full or broken pipe: the long way says which
                self._write(data, patient=True)
                return
            if written < len(data):
                outbox.queue(data[written:])

    def cancel(self, ident: int | str, reason: str) -> None:
        """``notifications/cancelled``, best effort (never raises, never waits).

        Its call has spent its budget: a dying server (stdout closed, child
        alive) or a broken pipe means no notice; another writer, a moment.
        """
        data = _encode({"jsonrpc": "2.0", "method": "notifications/cancelled",
                        "params": {"requestId": ident, "reason": reason}}).encode() + b"\n"
        if self._state != "open" or not self._write_lock.acquire(timeout=_CANCEL_WAIT):
            return
        try:
            if self._state == "open":
                self._write(data, patient=False)
        except MCPClientError:
            pass
        finally:
            self._write_lock.release()

    def _write(self, data: bytes, *, patient: bool) -> None:
        """Write ``data``, queueing what the pipe does not take (write lock held).

        ``patient``: on a broken pipe, wait for the reader to report the death.
        """
        proc, outbox = self._proc, self._outbox
        assert proc is not None and proc.stdin is not None and outbox is not None
        if self._trace is not None:
            self._trace.sent(data)
        if outbox.data:   # a backlog is draining: keep the order
            outbox.queue(data)
            return
        try:
            written = os.write(proc.stdin.fileno(), data)
        except BlockingIOError:
            written = 0
        except (OSError, ValueError) as exc:
            if not patient:
                return
            # A broken pipe: the reader is about to see EOF and report the
            # death with its exit code and stderr tail; report that one --
            # unless this thread holds the pipe (it leads), and so the EOF.
            pipe = self._pipe
            if pipe is None or not pipe.leads_here():
                self._reader_done.wait(_DRAIN_WAIT)
            self._check_open()
            raise ServerGone(proc.poll(), self.stderr_tail,
                             "the server stopped reading its stdin") from exc
        if written < len(data):
            outbox.queue(data[written:])

    def _check_open(self) -> None:
        state = self._state
        if state == "open":
            return
        if state == "closed":
            raise TransportClosed()
        if state == "dying":   # the reader is collecting the exit code and stderr tail
            self._died.wait(2 * _DRAIN_WAIT + 1)
        if self._death is not None:
            raise self._death
        if state == "new":
            raise TransportClosed("the transport was never started")
        raise ServerGone(self.returncode, self.stderr_tail, "the server exited")

    # -- shutting down ---------------------------------------------------------

    def close(self) -> None:
        with self._state_lock:
            if self._state == "closed":
                return
            self._state = "closed"
        proc = self._proc
        if proc is not None:
            stop(proc, self._write_lock, self._kill_grace)
        self._let_go()
        self._reap()
        log.debug("closed %s", self)

    def _let_go(self) -> None:
        """Stop reading the child's pipes, whoever still holds them, and join the readers."""
        if self._waker is not None:
            self._waker.set()
        join_threads(self._threads, self._kill_grace * 2 + 1)
        watched = self._watch
        if watched is not None and not watched.release(self._kill_grace * 2 + 1):
            log.warning("the stderr watcher did not let go of %s", self)

    def _reap(self) -> None:
        proc = self._proc
        if proc is None:
            return
        if self._pipe is not None:   # a caller that leads leaves first (the waker is set)
            self._pipe.retire(self._kill_grace)
        close_pipes(proc)
        if self._waker is not None:
            self._waker.close()
        try:
            proc.wait(self._kill_grace)
        except subprocess.TimeoutExpired:
            pass

    def _warn(self, text: str) -> None:
        warn_through(self._on_warn, text, log)
