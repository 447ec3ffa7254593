"""The command line's exit codes, and which failure gets which.

This module owns the numbers :func:`mcp_client.cli.main` returns and the
mapping from an exception to one of them (:func:`exit_code_for`); the
codes are listed, with what each means, in :mod:`mcp_client.cli._main`.
It also defines :class:`UsageError`, the command line's own mistake (code
2).  No I/O here.
"""

from __future__ import annotations

import argparse

from ..exceptions import (InputLoopExceeded, ProtocolError, ServerGone, SpawnFailed,
                          StoreUnavailable, Timeout, TransportClosed, TransportError,
                          UnsupportedStore, UnsupportedVersion)

__all__ = ["EXIT_OK", "EXIT_TOOL_ERROR", "EXIT_USAGE", "EXIT_PROTOCOL", "EXIT_CONNECTION",
           "EXIT_CLIENT", "EXIT_INTERRUPTED", "UsageError", "exit_code_for"]

EXIT_OK = 0
EXIT_TOOL_ERROR = 1
EXIT_USAGE = 2          # argparse's own code for a bad command line
EXIT_PROTOCOL = 3
EXIT_CONNECTION = 4
EXIT_CLIENT = 5
EXIT_INTERRUPTED = 130  # 128 + SIGINT, what a shell reports


class UsageError(Exception):
    """A mistake on the command line, found after argparse was done."""


def exit_code_for(exc: BaseException) -> int:
    """The exit code of a failure (see :mod:`mcp_client.cli._main`)."""
    from ..config import ConfigError   # a file that cannot be used is a usage mistake

    if isinstance(exc, (UsageError, argparse.ArgumentError, ConfigError, UnsupportedStore)):
        return EXIT_USAGE
    if isinstance(exc, (ProtocolError, UnsupportedVersion, InputLoopExceeded)):
        return EXIT_PROTOCOL
    if isinstance(exc, (SpawnFailed, ServerGone, TransportClosed, TransportError, Timeout,
                        StoreUnavailable)):
        return EXIT_CONNECTION
    if isinstance(exc, KeyboardInterrupt):
        return EXIT_INTERRUPTED
    return EXIT_CLIENT
