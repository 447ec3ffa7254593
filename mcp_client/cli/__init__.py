"""``python -m mcp_client`` (and ``mcp-client``): the command line, as a package.

The face re-exports :func:`main`, :func:`build_parser`, :func:`exit_code_for`
and the exit codes; :mod:`._main` runs the command line and records its
behaviour, the options and verbs are parsed in :mod:`._parser`, one run
(hooks, connecting, the verb, the failure report) is :mod:`._run`, the exit
codes :mod:`._exits`, rendering :mod:`._output`, the terminal conversation
(progress bar, elicitation form) :mod:`._terminal`, and the operator's
``grants`` and ``leases`` verbs, which read and fix a fleet store,
:mod:`._fleet`.
"""
from __future__ import annotations

from ._main import (EXIT_CLIENT, EXIT_CONNECTION, EXIT_INTERRUPTED, EXIT_OK, EXIT_PROTOCOL,
                    EXIT_TOOL_ERROR, EXIT_USAGE, build_parser, exit_code_for, main)

__all__ = ["main", "build_parser", "exit_code_for", "EXIT_OK", "EXIT_TOOL_ERROR", "EXIT_USAGE",
           "EXIT_PROTOCOL", "EXIT_CONNECTION", "EXIT_CLIENT", "EXIT_INTERRUPTED"]
