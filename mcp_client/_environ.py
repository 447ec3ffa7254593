"""What a child server inherits from this process's environment.

This module owns the three answers :class:`~mcp_client.stdio.StdioTransport`
gives to ``inherit_env``: ``True`` -- everything (``connect_stdio``'s default:
a server you start yourself sees what your shell sees); ``False`` -- nothing
but the ``env`` given; ``"safe"`` -- the official MCP SDKs' allow-list of
variables a program needs to run at all (where the home folder is, how to find
programs, who the user is), plus the ``env`` given.  ``"safe"`` is the default
for servers started from an ``mcpServers`` file, as in the official SDKs: a
server named in a file somebody shared should not receive every API key and
token of the shell that started it.

Decision: a variable of the allow-list whose value starts with ``()`` is
left out under ``"safe"``, as the official Python SDK does: that is how bash
exports a shell function, which a bash started by the server would define
(Shellshock, CVE-2014-6271).  A value given in ``env`` is passed as given:
naming it was a choice.
"""

from __future__ import annotations

import os
import sys
from typing import Literal, Mapping, Union

__all__ = ["InheritEnv", "SAFE_ENV_VARS", "safe_env_vars", "safe_environment", "is_inherit_env",
           "base_environment"]

#: ``inherit_env``'s values.
InheritEnv = Union[bool, Literal["safe"]]

#: The allow-lists of the official MCP SDKs (Python SDK ``mcp.client.stdio``,
#: ``DEFAULT_INHERITED_ENV_VARS``), by platform.
_POSIX_VARS = ("HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER")
_WINDOWS_VARS = ("APPDATA", "HOMEDRIVE", "HOMEPATH", "LOCALAPPDATA", "PATH",
                 "PROCESSOR_ARCHITECTURE", "SYSTEMDRIVE", "SYSTEMROOT", "TEMP", "USERNAME",
                 "USERPROFILE")


def safe_env_vars(platform: str = sys.platform) -> tuple[str, ...]:
    """The variables ``inherit_env="safe"`` passes on, on ``platform`` (a ``sys.platform``)."""
    return _WINDOWS_VARS if platform == "win32" else _POSIX_VARS


#: The variables ``inherit_env="safe"`` passes on, on this platform.
SAFE_ENV_VARS = safe_env_vars()


def safe_environment(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The allow-listed variables of ``environ`` (default ``os.environ``) that are set.

    A value starting with ``()`` (an exported shell function) is left out.
    """
    source = os.environ if environ is None else environ
    found = {}
    for name in SAFE_ENV_VARS:
        value = source.get(name)
        if value is not None and not value.startswith("()"):
            found[name] = value
    return found


def is_inherit_env(value: object) -> bool:
    """True for the values ``inherit_env`` accepts: ``True``, ``False`` or ``"safe"``."""
    return isinstance(value, bool) or (isinstance(value, str) and value == "safe")


def base_environment(inherit: InheritEnv) -> dict[str, str]:
    """What the child starts from before ``env`` is layered over it."""
    if inherit is True:
        return dict(os.environ)
    return safe_environment() if inherit == "safe" else {}
