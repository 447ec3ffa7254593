"""The ``prompt`` verb's missing arguments, asked on a terminal with the server's suggestions.

This module owns deciding which of a prompt's arguments to ask for and
fetching suggestions for them (``completion/complete``, 2025-11-25 and
2026-07-28 server/utilities/completion); the asking itself is
:meth:`mcp_client.cli._terminal.Form.arguments`.  It never fails the command
on a suggestion: listing the prompts or completing an argument that fails is
a warning (``-v`` shows it), and the prompt is rendered with what the person
typed.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from ..exceptions import MCPClientError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ._terminal import Form

__all__ = ["ask_prompt_arguments", "wanted_arguments"]


def ask_prompt_arguments(client: Any, form: Form, name: str, given: dict[str, Any] | None,
                         budget: Mapping[str, Any], *,
                         warn: Callable[[str], None]) -> dict[str, Any] | None:
    """``given`` with the prompt's missing arguments asked for on ``form``.

    Args:
        client: the connected client.
        form: the terminal to ask on.
        name: the prompt.
        given: the arguments of the command line (None: no JSON was given).
        budget: the verb's ``timeout``, for each request.
        warn: told when a request for the prompts or a suggestion fails.

    Returns:
        the arguments to render the prompt with (``given`` itself if nothing
        was asked).

    Raises:
        Declined: end of input while asking.
    """
    try:
        found = [p for p in client.list_prompts(**budget) if p.get("name") == name]
    except MCPClientError as exc:
        warn(f"could not list the prompts to ask for arguments: {exc}")
        return given
    wanted = wanted_arguments(found[0] if found else {}, given)
    if not wanted:
        return given

    def suggest(argument: str, typed: str, context: Mapping[str, str]) -> Any:
        try:
            return client.complete({"type": "ref/prompt", "name": name},
                                   {"name": argument, "value": typed},
                                   context=dict(context) or None, **budget)
        except MCPClientError as exc:
            warn(f"no suggestions for {argument!r}: {exc}")
            return None

    offered = "completions" in client.capabilities
    return form.arguments(wanted, given or {}, suggest if offered else None)


def wanted_arguments(prompt: Mapping[str, Any],
                     given: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """The declared arguments to ask for: required ones not given, and every
    missing one when nothing was given."""
    declared = prompt.get("arguments")
    if not isinstance(declared, list):
        return []
    have = given or {}
    return [a for a in declared if isinstance(a, dict) and isinstance(a.get("name"), str)
            and a["name"] not in have and (a.get("required") is True or given is None)]
