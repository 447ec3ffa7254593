"""Loggers that import :mod:`logging` on first use.

``import mcp_client`` has an import-time budget (40 ms on a slow machine), and
``logging`` alone costs a third of it.  The modules a stdio client loads get
their logger from :func:`get_logger`: an object with the :class:`logging.Logger`
methods they use, which imports :mod:`logging`, fetches the real
``logging.getLogger(name)`` and gives the package logger its
:class:`logging.NullHandler` the first time anything is logged.  Modules that
are themselves loaded on demand use :mod:`logging` directly.  The library
never configures logging.

It also owns the wire trace: every JSON-RPC message a transport writes or
reads, and over HTTP every request line, status line and their headers, as
one DEBUG record each on the logger ``mcp_client.wire``
(:data:`WIRE_LOGGER`).  A transport asks :func:`wire_trace` for a
:class:`WireTrace` when its connection starts and gets None unless that
logger is enabled for DEBUG then; each hook is ``if trace is not None``, so
a connection that does not trace formats nothing and calls nothing.  What a
record shows is redacted (:func:`mcp_client._redact.redact_payload`,
:func:`~mcp_client._redact.redact_header`) and cut to :data:`TRACE_CHARS`
characters, the payload's size in bytes said after the cut.
"""

from __future__ import annotations


TYPE_CHECKING = False
if TYPE_CHECKING:
    import logging
    from typing import Any

__all__ = ["get_logger", "install_null_handler", "warn_through", "wire_trace",
           "WireTrace", "WIRE_LOGGER", "TRACE_CHARS"]

_PACKAGE = __name__.rpartition(".")[0]
#: The logger the wire trace is written to.
WIRE_LOGGER = f"{_PACKAGE}.wire"
#: The most characters of one payload a trace record shows (a readability bound).
TRACE_CHARS = 2000
#: Where a 2026-07-28 result names its server (``protocol.META_SERVER_INFO``).
_META_SERVER_INFO = "io.modelcontextprotocol/serverInfo"
#: Characters read past the cut, so a URL across it is redacted whole.
_MARGIN = 2048


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


def wire_trace(transport: str) -> WireTrace | None:
    """A trace for one connection, or None when ``mcp_client.wire`` does not log DEBUG.

    Args:
        transport: how the connection is named until the server says its
            name (``stdio pid=4242``, ``http http://127.0.0.1:8000/mcp``), with
            any URL already redacted.
    """
    import logging

    logger = logging.getLogger(WIRE_LOGGER)
    if not logger.isEnabledFor(logging.DEBUG):
        return None
    install_null_handler()
    return WireTrace(logger, transport)


class WireTrace:
    """Writes one connection's traffic to ``mcp_client.wire`` (any thread may call it).

    Each record's message is ``[CONNECTION] TEXT`` where TEXT starts with
    ``>>`` (out) or ``<<`` (in); the record also carries ``mcp_connection``,
    ``mcp_direction`` (``"out"``/``"in"``) and ``mcp_trace`` (TEXT alone) for
    handlers that print the trace their own way.  Once an answer names the
    server (``serverInfo.name``), the connection is named after it too.
    """

    __slots__ = ("_logger", "transport", "server")

    def __init__(self, logger: logging.Logger, transport: str) -> None:
        self._logger = logger
        self.transport = transport
        self.server: str | None = None

    def __repr__(self) -> str:
        return f"<WireTrace {self.label}>"

    @property
    def label(self) -> str:
        """The connection's name in the records."""
        return f"{self.server} {self.transport}" if self.server else self.transport

    def sent(self, payload: bytes | str) -> None:
        """One message written (its encoded text)."""
        self._write("out", f">> {_shown(payload)}")

    def received(self, payload: bytes | str) -> None:
        """One message read (its text as it arrived)."""
        if self.server is None:
            self._learn(payload)
        self._write("in", f"<< {_shown(payload)}")

    def request(self, method: str, target: str, headers: Any, body: Any) -> None:
        """An HTTP request line, its headers and its body, as they go out."""
        from ._redact import redact_url

        self._write("out", f">> {method} {redact_url(target)}{_headers(headers)}")
        if isinstance(body, (bytes, str)) and body:
            self.sent(body)

    def response(self, status: int, reason: str, headers: Any) -> None:
        """An HTTP status line and its headers, as they came in."""
        self._write("in", f"<< HTTP {status} {reason}".rstrip() + _headers(headers))

    def event(self, event: str, data: str, ident: str | None) -> None:
        """One server-sent event (the JSON-RPC message in its data, if any)."""
        lines = [f"<< event: {event}"]
        if ident is not None:
            lines.append(f"<< id: {ident}")
        if event == "endpoint":
            from ._redact import redact_url

            lines.append(f"<< data: {redact_url(data.strip())}")
        else:
            if self.server is None and event == "message":
                self._learn(data)
            lines.append(f"<< data: {_shown(data)}")
        self._write("in", "\n".join(lines))

    def _write(self, direction: str, text: str) -> None:
        label = self.label
        self._logger.debug("[%s] %s", label, text, extra={
            "mcp_connection": label, "mcp_direction": direction, "mcp_trace": text})

    def _learn(self, payload: bytes | str) -> None:
        """Take the server's name from an answer that carries ``serverInfo``."""
        probe = payload if isinstance(payload, str) else payload[:65536].decode("utf-8", "replace")
        if "serverInfo" not in probe or len(payload) > 65536:
            return
        import json

        try:
            result = json.loads(payload).get("result")
            # 2025-11-25 initialize: result.serverInfo; 2026-07-28: in result._meta
            info = result.get("serverInfo") or result["_meta"][_META_SERVER_INFO]
            name = info["name"]
        except (ValueError, AttributeError, KeyError, TypeError, RecursionError):
            return
        if isinstance(name, str) and name:
            # the label heads every record: a newline in it would forge a trace line
            self.server = "".join(c for c in name[:100] if c.isprintable()) or None


def _shown(payload: bytes | str) -> str:
    """``payload`` redacted and cut at :data:`TRACE_CHARS`, its size said after the cut."""
    from ._redact import redact_payload

    window = TRACE_CHARS + _MARGIN
    if isinstance(payload, bytes):
        text = payload[:window * 4].decode("utf-8", "replace")
    else:
        text = payload[:window]
    text = text.rstrip("\r\n")
    if len(text) <= TRACE_CHARS:
        return redact_payload(text)
    head = redact_payload(text)[:TRACE_CHARS]
    # A URL that runs into the cut may have lost the "@" that marks its userinfo.
    start = head.rfind("://")
    if start >= 0 and not any(c in head[start:] for c in " \t\n'\"<>"):
        head = head[:start + 3] + "***"
    return f"{head}\u2026 ({_size(payload):,} bytes)"


def _size(payload: bytes | str) -> int:
    """The payload's size in bytes, its line ending not counted."""
    if isinstance(payload, str):
        payload = payload.encode("utf-8", "replace")
    size = len(payload)
    while size and payload[size - 1] in b"\r\n":
        size -= 1
    return size


def _headers(headers: Any) -> str:
    """``  Name: value`` for each header, credentials hidden."""
    if not headers:
        return ""
    from ._redact import redact_header

    return "".join(f"  {name}: {redact_header(str(name), str(value))}"
                   for name, value in headers.items())
