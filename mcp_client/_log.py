"""Loggers that import :mod:`logging` on first use.

``import mcp_client`` has an import-time budget (40 ms on a slow machine), and
``logging`` alone costs a third of it.  The modules a stdio client loads get
their logger from :func:`get_logger`: an object with the :class:`logging.Logger`
methods they use, which imports :mod:`logging`, fetches the real
``logging.getLogger(name)`` and gives the package logger its
:class:`logging.NullHandler` the first time anything is logged.  Modules that
are themselves loaded on demand use :mod:`logging` directly.  The library
never configures logging.
"""

from __future__ import annotations


TYPE_CHECKING = False
if TYPE_CHECKING:
    import logging
    from typing import Any

__all__ = ["get_logger", "install_null_handler", "warn_through"]

_PACKAGE = __name__.rpartition(".")[0]


def install_null_handler() -> None:
    """Give the package logger a NullHandler (once); imports logging."""
    import logging

    root = logging.getLogger(_PACKAGE)
    if not any(isinstance(h, logging.NullHandler) for h in root.handlers):
        root.addHandler(logging.NullHandler())


class _LazyLogger:
    __slots__ = ("_name", "_logger")

    def __init__(self, name: str) -> None:
        self._name = name
        self._logger: logging.Logger | None = None

    def _real(self) -> logging.Logger:
        if self._logger is None:
            import logging

            install_null_handler()
            self._logger = logging.getLogger(self._name)
        return self._logger

    def debug(self, msg: str, *args: Any, **kwargs: Any) -> None:
        self._real().debug(msg, *args, **kwargs)

    def warning(self, msg: str, *args: Any, **kwargs: Any) -> None:
        self._real().warning(msg, *args, **kwargs)

    def error(self, msg: str, *args: Any, **kwargs: Any) -> None:
        self._real().error(msg, *args, **kwargs)

    def exception(self, msg: str, *args: Any, **kwargs: Any) -> None:
        self._real().exception(msg, *args, **kwargs)


def get_logger(name: str) -> Any:
    """A logger for ``name`` that costs nothing until it is used."""
    return _LazyLogger(name)


def warn_through(hook: Any, text: str, logger: Any) -> None:
    """Tell ``hook`` (an ``on_warn``) about ``text``; log it if there is none or it raises.

    A warning hook that raises must never break the thread that warned.
    """
    if hook is not None:
        try:
            hook(text)
            return
        except Exception:
            pass
    logger.warning("%s", text)
