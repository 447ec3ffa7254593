"""The mark a view's tool call carries down a provider stack: :class:`AppCall`.

A tool whose ``_meta.ui.visibility`` leaves out ``"model"`` does not exist on
the model's path: it is never declared, and a call naming it is an unknown
tool.  A view may still call it (SEP-1865, "Visibility"), through the same
layers, so a :class:`~mcp_client.policy.Policy` judges it like any call.  The
seam is this object: :class:`~mcp_client.apps.AppBridge` puts one under
:data:`APP_CALL` in the call's request ``_meta``
(:func:`mcp_client.provider.call_meta`, which every layer carries down), and
the client's LLM bridge reaches an app-only tool only for a call that carries
one *made for that very client*; it takes the mark out before the request is
written, and leaves the call's result on it, whole (content blocks and
``structuredContent``, where the model's entry has text).

Why an object and not a flag: a model's tool calls are data decoded from JSON
(or an SDK's objects built from it), so nothing a model writes -- in its
arguments, or in any key of the call -- can be this object; a forged
``"_meta": {"mcp-client-sync/app-call": ...}`` is dropped like any other
value there and the call is judged as the model's.
"""

from __future__ import annotations

from typing import Any, Mapping

__all__ = ["APP_CALL", "AppCall", "take_app_call"]

#: The request ``_meta`` key the mark travels under (taken out before the wire).
APP_CALL = "mcp-client-sync/app-call"


class AppCall:
    """One tool call a view made, on its way down a provider stack.

    Args:
        client: the client whose server the view came from: only that client
            lets the call reach an app-only tool.
        tool: the server's name of the tool.

    Attributes:
        result: the ``tools/call`` result as :meth:`Client.call_tool
            <mcp_client.Client.call_tool>` gives it (``content`` blocks,
            ``structuredContent``, ``isError``), left here by the client that
            ran the call; None while it has not run (or a layer refused it).
    """

    __slots__ = ("client", "tool", "result")

    def __init__(self, client: Any, tool: str) -> None:
        self.client = client
        self.tool = tool
        self.result: Mapping[str, Any] | None = None

    def __copy__(self) -> AppCall:   # a layer that copies a call's _meta keeps the mark
        return self

    def __deepcopy__(self, memo: Any) -> AppCall:
        return self

    def __repr__(self) -> str:
        state = "answered" if self.result is not None else "pending"
        return f"<AppCall {self.tool!r} {state}>"


def take_app_call(meta: dict[str, Any] | None,
                  owner: Any) -> tuple[dict[str, Any] | None, AppCall | None]:
    """``meta`` without the mark, and the mark when it is an :class:`AppCall` for ``owner``.

    The key is removed whatever its value (a forged one never reaches the
    wire); an empty ``_meta`` left behind is None.
    """
    if meta is None or APP_CALL not in meta:
        return meta, None
    mark = meta.pop(APP_CALL)
    mine = isinstance(mark, AppCall) and owner is not None and mark.client is owner
    found = mark if mine else None
    return (meta or None), found
