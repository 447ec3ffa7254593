"""The client's less common requests: the raw request, notifications, the log
level and argument completion.

:class:`Extras` is a mixin of :class:`~mcp_client.Client` (like
:class:`~._async.AsyncTwins`): methods over the client's ``_connection`` and
``_opts``, no state of its own.  Each checks its arguments before anything
reaches the wire, so that a bad one is an
:class:`~mcp_client.exceptions.MCPClientError` here and never the server's.
"""

from __future__ import annotations

from collections.abc import Mapping

from .. import protocol
from ..exceptions import MCPClientError, ProtocolError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ..types import Completion
    from ._connection import Connection

__all__ = ["Extras", "completion_params"]

#: Methods :meth:`Extras.request` refuses: the connection's own, whose answers change
#: its state (2025-11-25 lifecycle; 2026-07-28 server/discover is the probe's).
_OWN_METHODS = frozenset({"initialize", "server/discover"})
_REF_KEYS = {"ref/prompt": "name", "ref/resource": "uri"}


class Extras:
    """Mixin: ``request``, ``notify``, ``set_logging_level`` and ``complete``."""

    _connection: Connection
    _opts: dict[str, Any]

    def request(self, method: str, params: Mapping[str, Any] | None = None, *,
                timeout: float | None = None, cancelled: Any = None) -> dict[str, Any]:
        """Send any request and return its raw result: the escape hatch.

        The era's envelope is applied (2026-07-28: ``_meta`` with the version,
        client info and capabilities), ``input_required`` rounds are completed
        through the hooks, and the bookkeeping (``resultType``, ``_meta``,
        ``ttlMs``, ...) is stripped from what is returned.

        Args:
            method: the JSON-RPC method (``"completion/complete"``).
            params: a JSON object; None means ``{}``.
            timeout: seconds (None: ``request_timeout``; 0: no budget).
            cancelled: a ``threading.Event`` or ``Future`` that abandons the call.

        Raises:
            MCPClientError: a bad method or params, or the connection's own
                ``initialize``/``server/discover``.
            ProtocolError: the server answered with a JSON-RPC error.
            Timeout, Cancelled, ServerGone, TransportClosed: as every request.
        """
        _check_method(method)
        if method in _OWN_METHODS:
            raise MCPClientError(f"{method} is the connection's own request; it cannot be "
                                 "sent through request()")
        return self._connection.request(method, _params(params), timeout=timeout,
                                        cancelled=cancelled)

    def notify(self, method: str, params: Mapping[str, Any] | None = None) -> None:
        """Send a notification (``notifications/...``); nothing comes back.

        Raises:
            MCPClientError: a bad method or params.  TransportClosed, ServerGone.
        """
        _check_method(method)
        if not method.startswith("notifications/"):
            raise MCPClientError(f"{method!r} is not a notification (they are named "
                                 "notifications/...); send requests with request()")
        self._connection.ensure_era()   # never a bare notification before the handshake
        self._connection.notify(method, _params(params) or None)

    def set_logging_level(self, level: str, *, timeout: float | None = None) -> None:
        """Ask the server for log messages at ``level`` and above (``on_log``).

        Legacy servers (2025-11-25 utilities/logging) are sent
        ``logging/setLevel``, a session setting.  2026-07-28 has no such
        request: the level travels in every request's ``_meta``
        (``io.modelcontextprotocol/logLevel``), so from now on each request
        carries this one.  Either way it replaces the ``log_level`` option, and
        messages below it that a legacy server sends anyway (one that answers
        ``logging/setLevel`` with "method not found") are not given to ``on_log``.

        Args:
            level: an RFC 5424 severity: ``debug``, ``info``, ``notice``,
                ``warning``, ``error``, ``critical``, ``alert``, ``emergency``.

        Raises:
            MCPClientError: an unknown level.
            ProtocolError: a legacy server refused it (other than ``-32601``).
        """
        if level not in protocol.LOG_LEVELS:
            raise MCPClientError(f"level must be one of {', '.join(protocol.LOG_LEVELS)}, "
                                 f"not {level!r}")
        info = self._connection.ensure_era()
        if info.era == "legacy":
            try:
                self._connection.request("logging/setLevel", {"level": level},
                                         timeout=timeout, cancelled=None)
            except ProtocolError as exc:
                # a server that logs but never implemented setLevel (the SDK's, S7): the
                # level is applied here, to what it sends, instead
                if exc.code != protocol.METHOD_NOT_FOUND:
                    raise
        self._connection.set_log_level(level)

    def complete(self, ref: Mapping[str, Any], argument: Mapping[str, Any], *,
                 context: Mapping[str, Any] | None = None, timeout: float | None = None,
                 cancelled: Any = None) -> Completion:
        """Suggestions for one argument of a prompt or resource template.

        ``completion/complete`` (2025-11-25 and 2026-07-28 server/utilities/
        completion); the server declares the ``completions`` capability.

        Args:
            ref: ``{"type": "ref/prompt", "name": ...}`` or
                ``{"type": "ref/resource", "uri": <template>}``.
            argument: ``{"name": ..., "value": <what the user typed so far>}``.
            context: the arguments already chosen, ``{"owner": "ada"}`` (or in
                the wire's own shape, ``{"arguments": {...}}``).

        Returns:
            ``{"values": [...], "total"?: int, "hasMore"?: bool}``.

        Raises:
            MCPClientError: a bad ``ref``, ``argument`` or ``context``.
            ProtocolError: the server refused, or its answer is malformed.
            Timeout, Cancelled, ServerGone, TransportClosed: as every request.
        """
        params = completion_params(ref, argument, context)
        result = self._connection.request("completion/complete", params, timeout=timeout,
                                          cancelled=cancelled)
        return _completion(result.get("completion"))


def completion_params(ref: Any, argument: Any, context: Any) -> dict[str, Any]:
    """A ``completion/complete`` request's params, checked."""
    if not isinstance(ref, Mapping) or ref.get("type") not in _REF_KEYS:
        raise MCPClientError("ref must be {'type': 'ref/prompt', 'name': ...} or "
                             "{'type': 'ref/resource', 'uri': ...}")
    key = _REF_KEYS[ref["type"]]
    if not isinstance(ref.get(key), str) or not ref[key]:
        raise MCPClientError(f"a {ref['type']} reference needs a non-empty {key!r}")
    if not isinstance(argument, Mapping) or not isinstance(argument.get("name"), str) or \
            not isinstance(argument.get("value"), str):
        raise MCPClientError("argument must be {'name': str, 'value': str}")
    params: dict[str, Any] = {"ref": dict(ref),
                              "argument": {"name": argument["name"], "value": argument["value"]}}
    if context is not None:
        if isinstance(context, Mapping) and set(context) == {"arguments"}:
            context = context["arguments"]
        if not isinstance(context, Mapping) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in context.items()):
            raise MCPClientError("context must map argument names to their (string) values")
        params["context"] = {"arguments": dict(context)}
    return params


def _completion(found: Any) -> Completion:
    if not isinstance(found, dict) or not isinstance(found.get("values"), list) or \
            not all(isinstance(v, str) for v in found["values"]):
        raise ProtocolError(None, "the result has no completion.values list of strings",
                            method="completion/complete")
    shaped: Completion = {"values": list(found["values"])}
    total, more = found.get("total"), found.get("hasMore")
    if total is not None:
        if isinstance(total, bool) or not isinstance(total, int):
            raise ProtocolError(None, f"completion.total is not an integer: {total!r}",
                                method="completion/complete")
        shaped["total"] = total
    if more is not None:
        if not isinstance(more, bool):
            raise ProtocolError(None, f"completion.hasMore is not a boolean: {more!r}",
                                method="completion/complete")
        shaped["hasMore"] = more
    return shaped


def _check_method(method: Any) -> None:
    if not isinstance(method, str) or not method or len(method) > 256:
        raise MCPClientError(f"a method must be a non-empty string, not {method!r}")


def _params(params: Any) -> dict[str, Any]:
    if params is None:
        return {}
    if not isinstance(params, Mapping):
        raise MCPClientError(f"params must be a dict (a JSON object), not "
                             f"{type(params).__name__}")
    return dict(params)
