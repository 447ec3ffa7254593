"""What one batch of the bridge is planned from: the catalogue, and the calls' targets.

:class:`Catalogue` is one fetched ``tools/list`` (tools by name, the names
published for them, which of them a model or a view may call);
:func:`plan` answers the calls that cannot run and lists the rest;
:func:`capped` cuts a result's text for a model.  Pure: no wire, no threads.
The rules are :mod:`mcp_client.client._bridge`'s (its docstring says them).
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping, Sequence

from .._log import get_logger
from ..apps import AppCall, app_may_call, model_may_see
from ..names import Bindings, NameMap, is_llm_name
from ..provider import CallParts, error_message, parse_arguments, refuse_unreadable

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..types import ToolMessage

__all__ = ["Catalogue", "catalogue_tools", "client_names", "plan", "capped"]

log = get_logger(__name__)


def catalogue_tools(tools: Any) -> list[dict[str, Any]]:
    if not isinstance(tools, list):
        return []
    return [tool for tool in tools if isinstance(tool, dict)
            and isinstance(tool.get("name"), str) and tool["name"]]


def client_names(tools: Iterable[Mapping[str, Any]],
                 bindings: Bindings[str] | None = None) -> NameMap[str]:
    """The published names of a server's tools (each tool's own name is its key).

    With ``bindings``, every name it gave before stays with its tool, and a
    tool displaced from its own name for the first time is logged.
    """
    entries = ((tool["name"], tool["name"], tool["name"]) for tool in tools)
    if bindings is None:
        return NameMap(entries)
    names, displaced = bindings.name_map(entries)
    for moved in displaced:
        log.warning("the server lists %r, but %s is bound to its tool %r; it is published as %s",
                    moved.key, moved.wanted, moved.holder, moved.given)
    return names


class Catalogue:
    """A fetched tools/list: tools by name, and the names published for them."""

    def __init__(self, tools: Sequence[dict[str, Any]], bindings: Bindings[str]) -> None:
        self.tools: dict[str, dict[str, Any]] = {}
        self.app_only = frozenset(tool["name"] for tool in tools if not model_may_see(tool))
        for tool in tools:
            self.tools.setdefault(tool["name"], tool)
        self.names = client_names(tools, bindings)

    def resolve(self, name: str) -> str | None:
        """The server's name for a published name, or None (any other spelling too)."""
        return self.names.key_for(name)

    def allows(self, name: str, mark: AppCall | None) -> bool:
        """Whether the caller -- a view when ``mark`` is given, else a model -- may call it."""
        tool = self.tools.get(name)
        if tool is None:
            return mark is None
        return app_may_call(tool) if mark is not None else model_may_see(tool)

    def annotations(self) -> dict[str, Mapping[str, Any] | None]:
        return {name: tool.get("annotations") for name, tool in self.tools.items()}


def plan(parts: Sequence[CallParts], catalogue: Catalogue | None,
         bound: Callable[[str], str | None], marks: Sequence[AppCall | None],
         app_only: frozenset[str],
         ) -> tuple[list[ToolMessage | None], list[tuple[int, str, dict[str, Any]]]]:
    """Answer the calls that cannot run; list the rest as (slot, server's name, arguments).

    Without a catalogue, a name published before goes to the tool it was given
    to (``bound``), any other name a model API accepts goes as given -- except,
    for a model's call, a tool the last catalogue had as app-only.  A view's
    call (``marks``) to a tool whose visibility leaves out ``"app"`` is refused.
    """
    entries: list[ToolMessage | None] = [None] * len(parts)
    planned: list[tuple[int, str, dict[str, Any]]] = []
    for index, part in enumerate(parts):
        entries[index] = refuse_unreadable(part)
        if entries[index] is not None or part.name is None:
            continue
        mark = marks[index]
        if catalogue is None:
            target = bound(part.name) or (part.name if is_llm_name(part.name) else None)
            if mark is None and target in app_only:
                target = None
        else:
            target = catalogue.resolve(part.name)
            if target is not None and not catalogue.allows(target, mark):
                if mark is not None:
                    entries[index] = error_message(part.ident, f"{part.name} is not callable "
                                                   "by the app")
                    continue
                target = None
        if target is None:
            entries[index] = error_message(part.ident, f"unknown tool: {part.name}")
            continue
        try:
            planned.append((index, target, parse_arguments(part.arguments)))
        except ValueError as exc:
            entries[index] = error_message(part.ident, f"{part.name}: {exc}")
    return entries, planned


def capped(entry: ToolMessage, limit: int | None) -> ToolMessage:
    """``entry`` with its text cut to ``limit`` characters and a notice saying how much
    was cut (``structured_content`` untouched: the program still has all of it)."""
    text = entry["content"]
    if limit is None or len(text) <= limit:
        return entry
    cut = len(text) - limit
    entry["content"] = (f"{text[:limit]}\n[cut: {cut:,} more characters of {len(text):,} not "
                        "shown; ask the tool for less, e.g. a narrower query or one page]")
    return entry
