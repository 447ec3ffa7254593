"""A scratch jail for real shell commands, and a provider whose one tool runs commands in it.

The Policy's shell tests read commands; these helpers *run* them, so a test can
show that a command the Policy refused would really have done harm, and that
through the Policy it did none.  Everything a jailed command can reach is
bounded:

* it runs under real ``bash -c`` inside ``unshare --pid --fork --mount-proc
  --kill-child``: a fresh PID namespace with its own ``/proc``, so a stray
  ``kill`` meets only the jail's own processes, and when ``unshare`` ends every
  process in the namespace ends with it;
* ``unshare`` starts a new session, and on a timeout only that session's
  process group is killed (``os.killpg`` of the jail's own pid, never ``-1``);
* the working directory is a folder inside a scratch folder the caller made
  with :mod:`tempfile`, which is also ``HOME`` and ``TMPDIR`` (so an
  ``ssh-agent`` socket or a ``sort`` spill file lands there too); the
  environment is ``PATH``, ``HOME``, ``LANG`` and ``TMPDIR`` and nothing else.

Where the kernel refuses a PID namespace to this user, a second attempt maps
the user to root in a user namespace (``--map-root-user``); where both fail,
or ``unshare`` is missing, :func:`jail_problem` says why and the tests skip --
unless ``MCP_REQUIRE_JAIL=1`` is set (CI sets it), when they fail instead.
"""

from __future__ import annotations

import copy
import functools
import os
import shutil
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["JAIL_TIMEOUT", "Ran", "jail_problem", "jail_required", "run_in_jail", "JailShell",
           "Asker"]

#: Seconds one jailed command may take; far above what any of them needs (a few ms).
JAIL_TIMEOUT = 20.0
#: The one PATH a jailed command sees.
JAIL_PATH = "/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin"

_UNSHARE = ("--pid", "--fork", "--mount-proc", "--kill-child")


@dataclass(frozen=True)
class Ran:
    """What one jailed command did: its exit status and its output."""

    returncode: int
    stdout: str
    stderr: str


@functools.lru_cache(maxsize=1)
def _unshare_argv() -> tuple[tuple[str, ...] | None, str]:
    """The ``unshare`` prefix that works here, or None and the reason none does."""
    unshare = shutil.which("unshare")
    if unshare is None:
        return None, "unshare is not installed"
    bash = shutil.which("bash")
    if bash is None:
        return None, "bash is not installed"
    problems = []
    for extra in ((), ("--map-root-user",)):
        argv = (unshare, *extra, *_UNSHARE, bash, "-c", 'test "$$" = 1')
        try:
            probe = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True,
                                   timeout=JAIL_TIMEOUT, env={"PATH": JAIL_PATH}, check=False)
        except (OSError, subprocess.SubprocessError) as exc:
            problems.append(f"{' '.join(argv[:-3])}: {exc}")
            continue
        if probe.returncode == 0:
            return (unshare, *extra, *_UNSHARE), ""
        problems.append(f"{' '.join(argv[:-3])}: exit {probe.returncode} "
                        f"{probe.stderr.decode(errors='replace').strip()}")
    return None, "no PID namespace: " + "; ".join(problems)


def jail_problem() -> str | None:
    """Why no command can be jailed here, or None when the jail works."""
    argv, why = _unshare_argv()
    return None if argv is not None else why


def jail_required() -> bool:
    """Whether a missing jail is a failure (``MCP_REQUIRE_JAIL=1``) rather than a skip."""
    return os.environ.get("MCP_REQUIRE_JAIL") == "1"


def run_in_jail(command: str, *, scratch: Path, cwd: Path, stdin: str | None = None,
                timeout: float = JAIL_TIMEOUT) -> Ran:
    """Run ``command`` with ``bash -c`` in a fresh PID namespace, in ``cwd``, with HOME ``scratch``.

    Args:
        command: the shell text, as a tool call would carry it.
        scratch: the scratch folder (``HOME``); ``cwd`` must be inside it.
        cwd: the working directory.
        stdin: text for standard input; ``None`` is an empty stdin.
        timeout: seconds before the jail's process group is killed.

    Raises:
        RuntimeError: no jail here (see :func:`jail_problem`), or ``cwd`` is
            not inside ``scratch``.
        subprocess.TimeoutExpired: the command outlived ``timeout`` (and was killed).
    """
    prefix, why = _unshare_argv()
    if prefix is None:
        raise RuntimeError(f"no jail: {why}")
    scratch, cwd = scratch.resolve(), cwd.resolve()
    if scratch == Path("/") or not cwd.is_relative_to(scratch):
        raise RuntimeError(f"{cwd} is not inside the scratch folder {scratch}")
    environment = {"PATH": JAIL_PATH, "HOME": str(scratch), "LANG": "C.UTF-8",
                   "TMPDIR": str(scratch)}
    process = subprocess.Popen([*prefix, "bash", "-c", command], cwd=cwd, env=environment,
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, err = process.communicate((stdin or "").encode(), timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)      # the jail's own group, nothing else
        process.communicate()
        raise
    return Ran(process.returncode, out.decode(errors="replace"), err.decode(errors="replace"))


class JailShell:
    """A provider with one tool, ``sh_run {"command": ...}``, that runs the command in the jail.

    Every command runs in ``root`` (a folder inside ``scratch``).  ``ran``
    lists the commands it was handed, in order, so a test can tell a call
    that reached it from one the layer above refused.  The tool is annotated
    as one that writes, so no read-only rule lets it through.
    """

    def __init__(self, scratch: Path, root: Path, *, stdin: str | None = None) -> None:
        self.scratch = scratch
        self.root = root
        self.stdin = stdin
        self.ran: list[str] = []
        self.outputs: list[Ran] = []

    def tools_for_llm(self) -> list[dict[str, Any]]:
        return [{"type": "function", "function": {
            "name": "sh_run", "description": "Run a bash command in the project folder.",
            "parameters": {"type": "object", "properties": {"command": {"type": "string"}},
                           "required": ["command"]}}}]

    def tool_annotations(self, name: str) -> dict[str, Any] | None:
        return {"readOnlyHint": False, "destructiveHint": True} if name == "sh_run" else None

    def execute_tool_calls(self, calls: list[Any]) -> list[dict[str, Any]]:
        results = []
        for call in calls:
            command = call["function"]["arguments"]["command"]
            self.ran.append(command)
            ran = run_in_jail(command, scratch=self.scratch, cwd=self.root, stdin=self.stdin)
            self.outputs.append(ran)
            results.append({"role": "tool", "tool_call_id": call["id"],
                            "content": ran.stdout + ran.stderr, "is_error": ran.returncode != 0})
        return results


class Asker:
    """An ``on_ask`` that records every question and answers ``deny-once``."""

    def __init__(self) -> None:
        self.questions: list[dict[str, Any]] = []

    def __call__(self, question: dict[str, Any]) -> str:
        self.questions.append(copy.deepcopy(question))
        return "deny-once"
