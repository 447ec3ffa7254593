"""What the stdio transport checks before it starts a child: the command line and the
environment, and how an operating-system refusal to start it is told.

No shell is involved: the command and its arguments go to the operating
system as they are, so they are checked to be strings without a NUL byte.
"""

from __future__ import annotations

import os
from typing import Mapping, Sequence

from .._environ import InheritEnv, base_environment, is_inherit_env
from ..exceptions import SpawnFailed

__all__ = ["check_argv", "check_env", "os_reason", "SHIMS"]

#: Commands that are batch shims on Windows (``npx.cmd``): named in the reason.
SHIMS = ("npx", "npm", "pnpm", "yarn", "uvx")


def _has_nul(value: str) -> bool:
    return "\0" in value


def check_argv(command: str, args: Sequence[str]) -> list[str]:
    """``[command, *args]``, checked: strings, no NUL byte.

    Raises:
        SpawnFailed: what is wrong with them.
    """
    if not isinstance(command, str) or not command:
        raise SpawnFailed(str(command), "the command must be a non-empty string")
    if isinstance(args, (str, bytes)):
        raise SpawnFailed(command, "args must be a list of strings, not one string")
    argv = [command]
    for arg in args:
        if not isinstance(arg, str):
            raise SpawnFailed(command, f"every argument must be a string, not {arg!r}")
        argv.append(arg)
    if any(_has_nul(a) for a in argv):
        raise SpawnFailed(command, "a NUL byte in the command or its arguments")
    return argv


def check_env(command: str, env: Mapping[str, str] | None,
              inherit: InheritEnv) -> dict[str, str] | None:
    """The child's environment (None: this process's own), ``env`` checked.

    Raises:
        SpawnFailed: ``inherit`` or an entry of ``env`` is unusable.
    """
    if not is_inherit_env(inherit):
        raise SpawnFailed(command, f"inherit_env must be True, False or \"safe\", "
                                   f"not {inherit!r}")
    if env is None:
        return None if inherit is True else base_environment(inherit)
    if not isinstance(env, Mapping):
        raise SpawnFailed(command, "env must be a mapping of strings to strings")
    for key, value in env.items():
        if not isinstance(key, str) or not isinstance(value, str):
            raise SpawnFailed(command, f"env entry {key!r} must map a string to a string")
        if _has_nul(key) or _has_nul(value):
            raise SpawnFailed(command, f"a NUL byte in env entry {key!r}")
        if not key or "=" in key:
            raise SpawnFailed(command, f"invalid environment variable name {key!r}")
    return {**base_environment(inherit), **env}


def os_reason(command: str, exc: OSError) -> str:
    """Why ``command`` could not be started, for :class:`SpawnFailed`."""
    reason = exc.strerror or str(exc)
    if exc.filename is not None and str(exc.filename) != command:
        reason += f" ({exc.filename})"
    if os.name == "nt" and isinstance(exc, FileNotFoundError) and \
            os.path.basename(command).lower() in SHIMS:
        reason += f"; on Windows name the batch shim, e.g. {command}.cmd, " \
                  "and run it through cmd.exe /c"
    return reason
