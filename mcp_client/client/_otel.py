"""OpenTelemetry spans for a client's requests, and the W3C trace context they carry.

Made only for a client given ``tracer_provider=`` (extra ``[otel]``): this module is
imported then and not before, so a client without it imports no ``opentelemetry``
module and pays nothing.

Decisions (the OpenTelemetry semantic conventions for MCP, as the official SDK's
server spans follow them):

* One span per request that goes to the wire (a cache hit sends nothing and has
  none), kind CLIENT, named ``{method} {target}`` -- ``tools/call echo``,
  ``prompts/get review``, ``resources/read file:///x`` -- or ``{method}``.
* Attributes: ``mcp.method.name``; ``gen_ai.tool.name`` and
  ``gen_ai.operation.name`` (``execute_tool``) for a call, ``gen_ai.prompt.name``,
  ``mcp.resource.uri``; ``mcp.protocol.version`` and ``mcp.client.era``;
  ``network.transport`` (``pipe`` for stdio, ``tcp`` for HTTP) and, over HTTP,
  ``server.address`` and ``server.port``.
* A failure sets the status ERROR and ``error.type`` to the exception's class
  (``Timeout``, ``ProtocolError``...), with the exception recorded; a tool result
  with ``isError`` sets ERROR and ``error.type`` ``tool_error``.
* The span's context goes in the request's ``_meta`` as ``traceparent`` (and
  ``tracestate`` when there is one), W3C Trace Context as the MCP trace-context
  proposal (SEP-414) carries it, so a server's spans join the agent's trace.
* Pipelined calls are not traced one by one: a traced client sends each call on
  its own (tracing costs a little speed, never a span).
* A batch (``execute_tool_calls``) is one INTERNAL span, ``execute_tool_calls``
  with ``mcp.batch.size``, the parent of its calls' spans on every thread they run on.
"""

from __future__ import annotations

import contextlib
from typing import Any, Iterator, Mapping
from urllib.parse import urlsplit

from .._version import __version__
from ..exceptions import MCPClientError

__all__ = ["Tracing"]


class Tracing:
    """Spans for one client, from its ``tracer_provider``.

    Args:
        provider: an OpenTelemetry ``TracerProvider`` (anything with ``get_tracer``).
        transport: the client's transport (its kind and URL name the server).

    Raises:
        MCPClientError: ``opentelemetry`` is not installed.
    """

    def __init__(self, provider: Any, transport: Any) -> None:
        try:
            from opentelemetry import trace
        except ImportError as exc:   # said once, where it is first needed
            raise MCPClientError("tracer_provider needs OpenTelemetry: pip install "
                                 "'mcp-client-sync[otel]'") from exc
        self._trace = trace
        self._tracer = provider.get_tracer("mcp_client", __version__)
        self._static = _transport_attributes(transport)

    @contextlib.contextmanager
    def span(self, method: str, params: Mapping[str, Any], info: Any) -> Iterator[Any]:
        """A CLIENT span around one request; an exception ends it as an error."""
        target, attributes = _target(method, params)
        attributes.update(self._static)
        attributes["mcp.protocol.version"] = str(getattr(info, "version", "") or "")
        attributes["mcp.client.era"] = str(getattr(info, "era", "") or "")
        name = f"{method} {target}" if target else method
        with self._tracer.start_as_current_span(
                name, kind=self._trace.SpanKind.CLIENT, attributes=attributes,
                record_exception=True, set_status_on_exception=True) as span:
            try:
                yield span
            except BaseException as exc:
                span.set_attribute("error.type", type(exc).__qualname__)
                raise

    def carrier(self, span: Any) -> dict[str, str]:
        """``traceparent`` (and ``tracestate``) of ``span``, for a request's ``_meta``."""
        context = span.get_span_context()
        if not context.is_valid:
            return {}
        carried = {"traceparent": f"00-{context.trace_id:032x}-{context.span_id:016x}-"
                                  f"{int(context.trace_flags):02x}"}
        state = context.trace_state.to_header() if context.trace_state else ""
        if state:
            carried["tracestate"] = state
        return carried

    def answered(self, span: Any, method: str, result: Mapping[str, Any]) -> None:
        """A tool result with ``isError`` marks the span an error (``tool_error``)."""
        if method == "tools/call" and result.get("isError") is True:
            span.set_attribute("error.type", "tool_error")
            span.set_status(self._trace.Status(self._trace.StatusCode.ERROR, "isError"))

    @contextlib.contextmanager
    def batch(self, size: int) -> Iterator[Any]:
        """An INTERNAL span around one ``execute_tool_calls`` batch."""
        with self._tracer.start_as_current_span(
                "execute_tool_calls", kind=self._trace.SpanKind.INTERNAL,
                attributes={"mcp.batch.size": size}) as span:
            yield span


def _target(method: str, params: Mapping[str, Any]) -> tuple[str | None, dict[str, Any]]:
    attributes: dict[str, Any] = {"mcp.method.name": method}
    name = params.get("name")
    if method == "tools/call" and isinstance(name, str):
        attributes.update({"gen_ai.tool.name": name, "gen_ai.operation.name": "execute_tool"})
        return name, attributes
    if method == "prompts/get" and isinstance(name, str):
        attributes["gen_ai.prompt.name"] = name
        return name, attributes
    uri = params.get("uri")
    if method.startswith("resources/") and isinstance(uri, str):
        attributes["mcp.resource.uri"] = uri
        return uri, attributes
    return None, attributes


def _transport_attributes(transport: Any) -> dict[str, Any]:
    url = getattr(transport, "url", None)
    if not isinstance(url, str):
        return {"network.transport": "pipe"}
    parts = urlsplit(url)
    found: dict[str, Any] = {"network.transport": "tcp"}
    if parts.hostname:
        found["server.address"] = parts.hostname
    if parts.port or parts.scheme in ("http", "https"):
        found["server.port"] = parts.port or (443 if parts.scheme == "https" else 80)
    return found
