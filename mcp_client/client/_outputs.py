"""Structured output checked against a tool's ``outputSchema``.

2025-11-25 and 2026-07-28 server/tools ("Output Schema"): servers MUST return
``structuredContent`` that conforms to a declared ``outputSchema`` and clients
SHOULD validate it.  :class:`OutputChecks` does that with ``jsonschema``
(imported on first use), in the draft the schema's ``$schema`` names, else
2020-12.  A ``$ref`` is resolved only inside the schema: nothing is fetched
over the network (no retrieval is configured on the validator's registry).
The schema's regular expressions run in bounded time (:mod:`mcp_client.client._schema`):
one that does not finish is a mismatch, never a hang.

It holds one compiled validator per distinct schema, so a catalogue's schemas
are compiled once, not per call.  It does no I/O and keeps no connection.
"""

from __future__ import annotations

import json
import threading

from . import _schema
from ..exceptions import OutputMismatch

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Mapping

__all__ = ["OutputChecks", "MAX_VALIDATORS"]

#: Compiled validators kept; beyond, the oldest is dropped (a server whose schemas churn).
MAX_VALIDATORS = 512


class OutputChecks:
    """Check tool results against their tools' output schemas (thread-safe)."""

    def __init__(self) -> None:
        self._validators: dict[str, Any] = {}
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"<OutputChecks compiled={len(self._validators)}>"

    def problem(self, tool: Mapping[str, Any] | None, result: Mapping[str, Any], *,
                budget: float | None = None) -> OutputMismatch | None:
        """Why ``result`` breaks ``tool``'s ``outputSchema``; None when it does not.

        A tool without an ``outputSchema`` and a result with ``isError`` are
        not checked.  A declared schema with no ``structuredContent`` is a
        mismatch at ``$``; so is a schema that is not valid JSON Schema, and
        one whose patterns do not finish within ``budget`` seconds (None:
        :data:`~mcp_client.client._schema.PATTERN_BUDGET`, which also caps it).
        """
        if tool is None or result.get("isError") is True:
            return None
        schema = tool.get("outputSchema")
        if not isinstance(schema, dict):
            return None
        name = str(tool.get("name"))
        if "structuredContent" not in result:
            return OutputMismatch(name, "$", "the result has no structuredContent")
        import jsonschema  # on first use: a client that never checks never pays for it

        try:
            validator = self._validator(schema)
        except jsonschema.exceptions.SchemaError as exc:
            return OutputMismatch(name, "$", "the outputSchema is not valid JSON Schema "
                                  f"({exc.message[:300]})")
        try:
            error = _schema.first_error(validator, result["structuredContent"], budget=budget)
        except Exception as exc:   # an unresolvable $ref: jsonschema has no common base for it
            return OutputMismatch(name, "$", f"the outputSchema could not be applied ({exc})")
        if error is None:
            return None
        return OutputMismatch(name, error.json_path, error.message[:300])

    def _validator(self, schema: dict[str, Any]) -> Any:
        key = json.dumps(schema, sort_keys=True, default=str)
        with self._lock:
            found = self._validators.get(key)
        if found is not None:
            return found
        validator = _schema.validator_for(schema)
        with self._lock:
            if len(self._validators) >= MAX_VALIDATORS:
                self._validators.pop(next(iter(self._validators)))
            self._validators[key] = validator
        return validator
