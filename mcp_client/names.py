"""Tool names a model API accepts, and the way back to the names a server used.

OpenAI-style function calling accepts a function name only if it matches
``^[a-zA-Z0-9_-]{1,64}$``.  MCP allows more: up to 128 characters, dots
included (2025-11-25 / 2026-07-28 server/tools "Tool names"),
and a :class:`~mcp_client.registry.Registry` prefix pushes even a short name
over the limit.  This module owns the rule and a deterministic,
collision-free mapping between the names a provider has (its *keys*) and the
names it publishes to a model.  It is shared by the client bridge
(``mcp_client.client._bridge``) and the registry.

It must not do I/O or know what a provider is: a :class:`NameMap` is built
from a list and answers lookups, nothing more.  The one thing kept between
listings is :class:`Bindings`, the memory of which name was given to which key.

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
* A published name stays with the key it was first given to, for the life of
  the :class:`Bindings` that gave it (a registry's, a client's): a rule, a
  lease or a model's memory names a tool by its published name, so the name
  must never come to mean another tool.  Keys that held a name before keep
  it, ahead of every priority; a newcomer whose name is bound to another key
  -- present or gone -- gets the hashed form, and is reported
  (:attr:`NameMap.displaced`).  A name whose key went away stays reserved: a
  call to it reaches nothing until that key comes back.  Names are compared
  exactly, as model APIs compare them: ``Delete`` and ``delete`` are two names.
"""

from __future__ import annotations

import hashlib
import re
import threading
from dataclasses import dataclass
from typing import Generic, Hashable, Iterable, Iterator, Mapping, TypeVar

__all__ = ["LLM_NAME", "MAX_LENGTH", "HASH_DIGITS", "is_llm_name", "clean", "hashed", "fit",
           "NameMap", "Displaced", "Bindings"]

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


@dataclass(frozen=True)
class Displaced(Generic[K]):
    """A key that did not get the name it would have had alone.

    Attributes:
        key: the key.
        wanted: the name it would have had (its wanted name, fitted).
        given: the name it got.
        holder: the key ``wanted`` is bound to (None when a name of this
            map's own rewriting is in the way).
    """

    key: K
    wanted: str
    given: str
    holder: K | None


class NameMap(Generic[K]):
    """A two-way map between provider keys and the names published to a model.

    Args:
        entries: ``(key, wanted, identity)`` triples in priority order:
            ``wanted`` is the name the key would like to publish, ``identity``
            a string unique to the key (it seeds the hash).  A key seen twice
            keeps its first entry.
        bound: names given before, name -> key (see :class:`Bindings`): a
            key listed here keeps its name ahead of every priority, and no
            other key is given a name listed here.
    """

    def __init__(self, entries: Iterable[tuple[K, str, str]], *,
                 bound: Mapping[str, K] | None = None) -> None:
        unique: dict[K, tuple[str, str]] = {}
        for key, wanted, identity in entries:
            unique.setdefault(key, (wanted, identity))
        reserved: Mapping[str, K] = bound or {}
        earlier: dict[K, str] = {}
        for name, key in reserved.items():
            earlier.setdefault(key, name)
        self._names: dict[K, str] = {}
        self._keys: dict[str, K] = {}
        #: The keys that were given another name than their own (see :class:`Displaced`).
        self.displaced: list[Displaced[K]] = []
        fresh = []
        for key in unique:
            if key in earlier:
                self._claim(key, earlier[key])
            else:
                fresh.append(key)
        rewritten: list[K] = []
        for key in fresh:
            wanted, _ = unique[key]
            if is_llm_name(wanted) and wanted not in self._keys and wanted not in reserved:
                self._claim(key, wanted)
            else:
                rewritten.append(key)
        for key in rewritten:
            wanted, identity = unique[key]
            name = own = fit(wanted, identity)
            digits = HASH_DIGITS
            while name in self._keys or name in reserved:
                name = self._fallback(wanted, identity, digits)
                digits += 4
            self._claim(key, name)
            if name != own:
                self.displaced.append(Displaced(key, own, name,
                                                reserved.get(own, self._keys.get(own))))

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


class Bindings(Generic[K]):
    """Every name published so far, bound to the key it was first given to.

    One per publisher (a :class:`~mcp_client.registry.Registry`, a client's
    bridge), kept for its life and never shrunk, so a name -- even one whose
    key went away -- is never given to another key (see the module
    docstring).  It grows by one entry per key ever published.  Thread-safe.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._keys: dict[str, K] = {}

    def __repr__(self) -> str:
        return f"<Bindings {len(self._keys)} names>"

    def __len__(self) -> int:
        return len(self._keys)

    def key_for(self, name: str) -> K | None:
        """The key ``name`` was given to, or None when it was never published."""
        with self._lock:
            return self._keys.get(name)

    def name_map(self, entries: Iterable[tuple[K, str, str]]) -> tuple[NameMap[K],
                                                                       list[Displaced[K]]]:
        """A :class:`NameMap` over ``entries`` that keeps every earlier binding.

        Returns:
            the map, and the keys displaced that were bound for the first time
            now (each newcomer is reported once, however often it is listed).
        """
        with self._lock:
            names = NameMap(entries, bound=self._keys)
            new = set()
            for key in names:
                name = names.name_for(key)
                assert name is not None
                if name not in self._keys:
                    self._keys[name] = key
                    new.add(key)
            return names, [d for d in names.displaced if d.key in new]
