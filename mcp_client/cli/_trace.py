"""``--trace``: the wire trace of ``mcp_client.wire`` printed on stderr.

This module owns the one logging handler the command line installs: while
a verb runs with ``--trace``, every record of the logger ``mcp_client.wire``
(see :mod:`mcp_client._log`) is written to stderr as the trace text alone,
``>>`` for what the client sent and ``<<`` for what it read -- HTTP request
and status lines with their headers included, credentials hidden, long
payloads cut, control characters shown escaped.  It must not change any
other logger, and it leaves the wire logger as it found it.
"""

from __future__ import annotations

import logging
from typing import IO, Callable

from .._log import WIRE_LOGGER
from ._terminal import printable

__all__ = ["Tracing"]


class _Printer(logging.Handler):
    """Writes each wire record's trace text to a stream."""

    def __init__(self, stream: IO[str], before: Callable[[], None] | None) -> None:
        super().__init__(logging.DEBUG)
        self._stream = stream
        self._before = before

    def emit(self, record: logging.LogRecord) -> None:
        text = getattr(record, "mcp_trace", None)
        if not isinstance(text, str):
            text = record.getMessage()
        # What a server sent is shown before any parser saw it: a raw ESC (or a
        # C1 control, valid unescaped in JSON) would be a terminal escape.
        text = "\n".join(printable(line) for line in text.split("\n"))
        try:
            if self._before is not None:
                self._before()   # a progress bar is redrawn after the line
            self._stream.write(text + "\n")
            self._stream.flush()
        except (OSError, ValueError):
            pass   # stderr went away: the trace is not worth a failure


class Tracing:
    """The wire logger turned on for one run (:meth:`start`), and back off (:meth:`stop`).

    Args:
        stream: where the trace goes (the run's stderr).
        before: called before each line (clears a progress bar).
    """

    def __init__(self, stream: IO[str], before: Callable[[], None] | None = None) -> None:
        self._logger = logging.getLogger(WIRE_LOGGER)
        self._handler = _Printer(stream, before)
        self._level = self._logger.level

    def start(self) -> Tracing:
        """Print the trace from now on (before connecting: a connection decides at its start)."""
        self._logger.addHandler(self._handler)
        self._logger.setLevel(logging.DEBUG)
        return self

    def stop(self) -> None:
        """Stop printing and give the logger its level back (idempotent)."""
        if self._handler in self._logger.handlers:
            self._logger.removeHandler(self._handler)
            self._logger.setLevel(self._level)
