"""OpenTelemetry spans for a policy's decisions (``Policy(..., tracer_provider=...)``).

Imported only for a policy given a ``tracer_provider``, so a policy without one
imports nothing of OpenTelemetry.  Each decision is an INTERNAL span ``policy
{tool}`` (a child of whatever span is current: a traced agent's turn, say) with
``gen_ai.tool.name``, ``mcp.policy.decision`` (``allow`` or ``deny``) and, for a
refusal, ``mcp.policy.reason`` (the refusal's text, which names the rule or says
that nobody could be asked).  A decision that raised is recorded on its span.
"""

from __future__ import annotations

from typing import Any, Callable, TypeVar

from .._version import __version__
from ..exceptions import MCPClientError

__all__ = ["DecisionSpans"]

D = TypeVar("D")


class DecisionSpans:
    """Wraps a policy's decisions in spans from ``provider``.

    Raises:
        MCPClientError: ``opentelemetry`` is not installed.
    """

    def __init__(self, provider: Any) -> None:
        try:
            from opentelemetry import trace
        except ImportError as exc:
            raise MCPClientError("tracer_provider needs OpenTelemetry: pip install "
                                 "'mcp-client-sync[otel]'") from exc
        self._kind = trace.SpanKind.INTERNAL
        self._tracer = provider.get_tracer("mcp_client.policy", __version__)

    def decide(self, decide: Callable[[], D], tool: str) -> D:
        """``decide()`` (which returns ``(arguments, outcome)``) inside its span."""
        with self._tracer.start_as_current_span(f"policy {tool}", kind=self._kind,
                                                attributes={"gen_ai.tool.name": tool}) as span:
            decided = decide()
            outcome = decided[1]   # type: ignore[index]
            span.set_attribute("mcp.policy.decision", "allow" if outcome.allow else "deny")
            if not outcome.allow:
                span.set_attribute("mcp.policy.reason", str(outcome.content)[:500])
            return decided
