"""Tool names a model API accepts, and the way back to the names a server used.

OpenAI-style function calling accepts a function name only if it matches
``^[a-zA-Z0-9_-]{1,64}$``.  MCP allows more: up to 128 characters, dots
included (2025-11-25 / 2026-07-28 server/tools "Tool names"),
and a :class:`~mcp_client.registry.Registry` prefix pushes even a short name
over the limit.  This module owns the rule and a deterministic,
collision-free mapping between the names a provider has (its *keys*) and the
names it publishes to a model.  It is shared by the client bridge
(``mcp_client.client._bridge``) and the registry.

It must not do I/O, hold state between calls or know what a provider is: a
:class:`NameMap` is built from a list and answers lookups, nothing more.

Decisions:

* A character outside ``[a-zA-Z0-9_-]`` becomes ``_``; an empty name becomes
  ``tool``.
* A name longer than 64 characters keeps its first 55 characters and gains
  ``_`` plus the first 8 hex digits of the SHA-256 of the entry's *identity*
  (a string unique to the entry, e.g. the server's own tool name), so the same
  catalogue gives the same names in every process and on every run.
* Collisions are never merged.  Entries are served in priority order, and a
  name that was already acceptable is served before any rewritten one: it is
  the server's real name, and a model may have seen it.  An entry whose name
  (or rewritten name) is taken gets the hashed form instead, with more digits
  until it is free.
"""

from __future__ import annotations

import hashlib
import re
from typing import Generic, Hashable, Iterable, Iterator, TypeVar

__all__ = ["LLM_NAME", "MAX_LENGTH", "HASH_DIGITS", "is_llm_name", "clean", "hashed", "fit",
           "NameMap"]

#: What OpenAI-style function-calling APIs accept as a function name.
LLM_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
#: The length limit of :data:`LLM_NAME`.
MAX_LENGTH = 64
#: Hex digits of the identity hash appended to a shortened or colliding name.
HASH_DIGITS = 8

_INVALID = re.compile(r"[^a-zA-Z0-9_-]")

K = TypeVar("K", bound=Hashable)


def is_llm_name(name: object) -> bool:
    """True if ``name`` is a string a model API accepts as a function name."""
    return isinstance(name, str) and LLM_NAME.fullmatch(name) is not None


def clean(name: str) -> str:
    """``name`` with every character a model API refuses replaced by ``_``."""
    return _INVALID.sub("_", name) or "tool"


def hashed(base: str, identity: str, digits: int = HASH_DIGITS) -> str:
    """``base`` (cleaned), cut so that ``_`` and ``digits`` hash digits fit in 64."""
    digest = hashlib.sha256(identity.encode("utf-8", "surrogatepass")).hexdigest()
    keep = MAX_LENGTH - 1 - digits
    return f"{clean(base)[:keep]}_{digest[:digits]}"


def fit(name: str, identity: str) -> str:
    """The acceptable name for ``name`` when nothing else competes for it."""
    cleaned = clean(name)
    return cleaned if len(cleaned) <= MAX_LENGTH else hashed(cleaned, identity)


class NameMap(Generic[K]):
    """A two-way map between provider keys and the names published to a model.

    Args:
        entries: ``(key, wanted, identity)`` triples in priority order:
            ``wanted`` is the name the key would like to publish, ``identity``
            a string unique to the key (it seeds the hash).  A key seen twice
            keeps its first entry.
    """

    def __init__(self, entries: Iterable[tuple[K, str, str]]) -> None:
        unique: dict[K, tuple[str, str]] = {}
        for key, wanted, identity in entries:
            unique.setdefault(key, (wanted, identity))
        self._names: dict[K, str] = {}
        self._keys: dict[str, K] = {}
        rewritten: list[K] = []
        for key, (wanted, _) in unique.items():
            if is_llm_name(wanted) and wanted not in self._keys:
                self._claim(key, wanted)
            else:
                rewritten.append(key)
        for key in rewritten:
            wanted, identity = unique[key]
            name = fit(wanted, identity)
            digits = HASH_DIGITS
            while name in self._keys:
                name = self._fallback(wanted, identity, digits)
                digits += 4
            self._claim(key, name)

    @staticmethod
    def _fallback(wanted: str, identity: str, digits: int) -> str:
        if digits <= 48:
            return hashed(wanted, identity, digits)
        # Beyond any real collision of SHA-256 prefixes: keep terminating.
        return hashed(wanted, f"{identity}\0{digits}", 48)

    def _claim(self, key: K, name: str) -> None:
        self._names[key] = name
        self._keys[name] = key

    def name_for(self, key: K) -> str | None:
        """The published name of ``key`` (None for a key the map does not hold)."""
        return self._names.get(key)

    def key_for(self, name: str) -> K | None:
        """The key published as ``name`` (None for a name nobody published)."""
        return self._keys.get(name)

    def __contains__(self, key: object) -> bool:
        return key in self._names

    def __len__(self) -> int:
        return len(self._names)

    def __iter__(self) -> Iterator[K]:
        return iter(self._names)

    def __repr__(self) -> str:
        renamed = sum(1 for key, name in self._names.items() if key != name)
        return f"<NameMap {len(self._names)} names, {renamed} rewritten>"
