"""``python -m mcp_client`` (and ``mcp-client``): the command line, as a package.

The face re-exports :func:`main`, :func:`build_parser`, :func:`exit_code_for`
and the exit codes; the verbs and their option parsing live in
:mod:`._main`, rendering in :mod:`._output`, the terminal conversation
(progress bar, elicitation form) in :mod:`._terminal`.
"""
from __future__ import annotations

from ._main import (EXIT_CLIENT, EXIT_CONNECTION, EXIT_INTERRUPTED, EXIT_OK, EXIT_PROTOCOL,
                    EXIT_TOOL_ERROR, EXIT_USAGE, build_parser, exit_code_for, main)

__all__ = ["main", "build_parser", "exit_code_for", "EXIT_OK", "EXIT_TOOL_ERROR", "EXIT_USAGE",
           "EXIT_PROTOCOL", "EXIT_CONNECTION", "EXIT_CLIENT", "EXIT_INTERRUPTED"]
