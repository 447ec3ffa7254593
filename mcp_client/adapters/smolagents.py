"""A provider's tools as smolagents ``Tool`` objects, for ``ToolCallingAgent`` and ``CodeAgent``.

::

    from smolagents import CodeAgent
    from mcp_client.adapters import smolagents as mcp_smolagents

    agent = CodeAgent(tools=mcp_smolagents.tools(provider), model=model)
    agent.run("Echo 'hi'")

Each tool is a ``smolagents.Tool`` whose ``forward`` runs one call through the
provider (:func:`mcp_client.adapters._calls.call`), so every layer of the
provider -- a :class:`~mcp_client.policy.Policy`, :class:`~mcp_client.leases.Leases`
-- judges it.  smolagents (1.26) has no asynchronous tool entry and no approval
mechanism: ``forward`` is synchronous, and a Policy ``ask`` is answered by the
Policy's own ``on_ask`` callback while ``forward`` waits.

Decisions:

* **Names.**  smolagents refuses, when a ``Tool`` is built, a name that is not a
  Python identifier or is a keyword (``CodeAgent`` calls a tool as a Python
  function; ``ToolCallingAgent`` checks the same rule).  A provider publishes
  names matching ``^[a-zA-Z0-9_-]{1,64}$``, so ``get-weather`` or ``2fa_check``
  can come.  Names are kept exactly as published -- a rule, a lease and the
  refusals the model reads name a tool by its published name -- so such a tool
  is left out, with a warning on this module's logger.  So is a tool named
  ``final_answer``: smolagents keeps that name for the end of a run.
* **Inputs.**  Each property of the tool's JSON Schema becomes one entry of
  ``inputs``: the property's schema as published, with ``type`` set to a type
  smolagents authorises, ``description`` always present (``""`` when the
  server gave none), and ``nullable: True`` when the property is not in
  ``required`` (smolagents' word for an argument that may be left out).  A
  JSON ``type`` smolagents has is kept; a list of such types is kept as the
  list (smolagents checks an argument against each); ``anyOf`` whose members
  each carry such a type becomes the list of those types; anything else (no
  type, ``$ref``, ``oneOf``, an unknown type) is ``"any"`` -- which smolagents
  shows the model as a string.  smolagents builds the schema the model sees
  from ``inputs`` alone, so keywords of the whole schema (``$defs``,
  ``additionalProperties``) do not reach the model; the published schema stays
  on the tool as ``parameters``.
* **Arguments.**  ``forward(*args, **kwargs)`` with
  ``skip_forward_signature_validation``, for every tool: a parameter name need
  not be a Python identifier (``ToolCallingAgent`` passes the model's arguments
  as a dict; code can pass ``**{"max-results": 3}``), and positional arguments
  -- a ``CodeAgent``'s ``demo_echo("hi")`` -- are matched to the properties in
  their published order.  A ``None`` for a parameter that is not required and
  whose schema does not admit ``null`` means "not given" (smolagents tells the
  model such a parameter is nullable) and is left out of the call.
* **Output.**  ``output_type`` is ``"string"``: the text of the result, as the
  provider words it (a structured result's text is its JSON).  The
  ``structuredContent`` is not returned: the provider's declarations carry no
  output schema, and smolagents fixes ``output_type`` before any call.
* **Errors.**  A refused call (a Policy ``deny``, a refused ``ask``) and a
  server's ``isError`` raise :class:`ToolCallFailed` inside ``forward``.  That
  is smolagents' convention: ``ToolCallingAgent`` wraps it in
  ``AgentToolExecutionError`` and ``CodeAgent`` in ``AgentExecutionError``,
  records it on the step, shows the model the message, and the run goes on.
  smolagents ends the step at the first error: when a ``ToolCallingAgent`` runs
  several calls of one turn together and one fails, the others have run, but
  the model is shown only the error.
"""

from __future__ import annotations

import keyword
import logging
from typing import Any, Iterable, Mapping

try:
    import smolagents  # type: ignore[import-untyped]   # no type hints (no py.typed)
except ImportError as exc:   # pragma: no cover - the extra's absence is tested in a subprocess
    raise ImportError("mcp_client.adapters.smolagents needs smolagents: "
                      "pip install 'mcp-client-sync[smolagents]'") from exc

from ..exceptions import MCPClientError
from . import _calls

__all__ = ["tools", "ToolCallFailed"]

_log = logging.getLogger(__name__)

#: The types smolagents accepts in ``inputs`` (``smolagents.tools.AUTHORIZED_TYPES``).
_TYPES = frozenset(smolagents.tools.AUTHORIZED_TYPES)
#: The tool name smolagents keeps for the end of a run.
_RESERVED = "final_answer"


class ToolCallFailed(MCPClientError):
    """A call the provider refused, or whose tool reported ``isError``.

    Raised inside a tool's ``forward``; smolagents shows the message to the model
    as the tool's error and the run goes on.

    Attributes:
        text: what the provider said (the refusal's or the failure's text).
        structured: the result's ``structuredContent``, or None.
    """

    def __init__(self, text: str, structured: Any = None) -> None:
        super().__init__(text)
        self.text = text
        self.structured = structured


def tools(provider: Any) -> list[Any]:
    """The provider's tools as ``smolagents.Tool`` objects, in the provider's order.

    A tool whose name smolagents cannot take (not a Python identifier, a
    keyword, ``final_answer``) is left out with a warning.  Besides smolagents'
    attributes, each tool keeps ``provider``, ``parameters`` (the JSON Schema as
    published) and ``annotations`` (what its server said, or None).

    Raises:
        MCPClientError: ``provider`` is not a provider, or its tools cannot be listed.
    """
    built = []
    for tool in _calls.catalogue(provider):
        if not tool.name.isidentifier() or keyword.iskeyword(tool.name) or tool.name == _RESERVED:
            _log.warning("smolagents cannot take the tool name %r (a tool's name must be a "
                         "Python identifier, not a keyword nor %r): the tool is left out",
                         tool.name, _RESERVED)
            continue
        built.append(_ProviderTool(provider, tool))
    return built


def _types_of(schema: Mapping[str, Any]) -> Any:
    """The smolagents type of a property's schema: one type, a list of types, or ``"any"``."""
    declared = schema.get("type")
    if isinstance(declared, str):
        return declared if declared in _TYPES else "any"
    if isinstance(declared, list):
        named = [t for t in declared if isinstance(t, str) and t in _TYPES]
        return (named[0] if len(named) == 1 else named) if named and len(named) == len(
            declared) else "any"
    members = schema.get("anyOf")
    if isinstance(members, list) and members:
        kinds = [m.get("type") if isinstance(m, Mapping) else None for m in members]
        if all(isinstance(k, str) and k in _TYPES for k in kinds):
            return list(dict.fromkeys(kinds))
    return "any"


def _admits_null(kind: Any) -> bool:
    return kind in ("null", "any") or (isinstance(kind, list) and "null" in kind)


def _inputs(parameters: Mapping[str, Any]) -> tuple[dict[str, dict[str, Any]], frozenset[str]]:
    """``inputs`` for a JSON Schema, and the optional parameters whose ``None`` means absent."""
    properties = parameters.get("properties")
    required = parameters.get("required")
    needed = set(required) if isinstance(required, list) else set()
    inputs: dict[str, dict[str, Any]] = {}
    absent_if_none = set()
    for name, raw in (properties.items() if isinstance(properties, Mapping) else ()):
        entry = dict(raw) if isinstance(raw, Mapping) else {}
        kind = _types_of(entry)
        entry["type"] = kind
        if kind == "any":
            entry.pop("anyOf", None)   # smolagents would read a type from each member
        if not isinstance(entry.get("description"), str):
            entry["description"] = ""
        if name not in needed:
            entry["nullable"] = True
            if not _admits_null(kind):
                absent_if_none.add(name)
        inputs[name] = entry
    return inputs, frozenset(absent_if_none)


class _ProviderTool(smolagents.Tool):  # type: ignore[misc]   # smolagents has no type hints
    """One of a provider's tools; ``forward`` runs a call through the provider."""

    skip_forward_signature_validation = True

    def __init__(self, provider: Any, tool: _calls.Tool) -> None:
        self.provider = provider
        self.name = tool.name
        self.description = tool.description
        self.parameters = tool.parameters
        self.annotations = tool.annotations
        self.inputs, self._absent_if_none = _inputs(tool.parameters)
        self.output_type = "string"
        super().__init__()

    def forward(self, *args: Any, **kwargs: Any) -> str:
        """Run the call; the result's text, or :class:`ToolCallFailed`."""
        outcome = _calls.call(self.provider, self.name, self._arguments(args, kwargs))
        if outcome.is_error:
            raise ToolCallFailed(outcome.text, outcome.structured)
        return outcome.text

    def _arguments(self, args: Iterable[Any], kwargs: dict[str, Any]) -> dict[str, Any]:
        positional = list(args)
        names = list(self.inputs)
        if len(positional) > len(names):
            raise TypeError(f"{self.name} takes at most {len(names)} positional arguments "
                            f"({len(positional)} given)")
        arguments = dict(zip(names, positional))
        for name, value in kwargs.items():
            if name in arguments:
                raise TypeError(f"{self.name} got more than one value for argument {name!r}")
            arguments[name] = value
        return {name: value for name, value in arguments.items()
                if not (value is None and name in self._absent_if_none)}
