"""The Registry: one prefixed tool namespace over many providers.

A provider is anything with ``tools_for_llm()`` and
``execute_tool_calls(calls)``: a :class:`~mcp_client.Client`, a
:class:`~mcp_client.local.LocalServer`, another :class:`Registry` (so
registries nest), a policy layer, or an object of your own.  An official-SDK
server object is wrapped in a ``LocalServer`` on the way in.

The registry owns the prefixes, the names it publishes and the routing back.
It publishes each provider's tools as ``{prefix}{sep}{name}``, routes each call
to the provider that owns its name, hands every provider its own calls as one
batch, and threads the answers back into the model's order.  It must not raise
out of :meth:`Registry.execute_tool_calls` (a provider that throws fails only
its own calls), must not look inside a provider (it never reaches two levels
down), and must not close a provider it was handed: only the ``LocalServer``
objects it created itself are closed by :meth:`Registry.close`.

Decisions:

* Every published name matches ``^[a-zA-Z0-9_-]{1,64}$``: a prefixed name
  that is too long is shortened with a stable hash (:mod:`mcp_client.names`).
  When two providers' names collide (``fs`` + ``ext_read`` and ``fs_ext`` +
  ``read``) in one listing, the one longest-prefix routing would pick keeps
  the plain name and the other is hashed -- never merged -- and ``on_warn``
  says so.
* A published name stays bound to the tool it was first given to (the
  provider's prefix and the provider's name for it) for the life of the
  registry, because rules and leases name tools by it: when ``fs_ext`` later
  lists ``delete`` while ``fs``'s ``ext_delete`` holds ``fs_ext_delete``, the
  newcomer gets the hashed name, and ``on_warn`` says so once.  This holds
  across a provider added later, a tool list that changes, and a name
  shortened for the 64-character limit.  A name whose tool went away (its
  provider removed, or the tool no longer listed) stays reserved: a call to it
  is an unknown tool, and it is never given to another tool; the tool gets it
  back when it returns under the same prefix.  Names differing only in case
  are different names (model APIs and rules compare them exactly).
* A call is routed by the names published at the last :meth:`Registry.tools_for_llm`
  (listed once more when the name is not among them), and by nothing else:
  a name the registry never published -- ``fs_files.delete`` where it
  published ``fs_files_delete`` -- is an unknown tool, even though its prefix
  would say whose it is, so a rule or a lease about the published name
  cannot be walked around by another spelling.  The one exception is a
  view's call (MCP Apps): a tool only a view may call is never published, and
  :meth:`Registry.app_tool_name` names it ``{prefix}{sep}{name}`` (None when
  that name is published for another tool); only a call carrying the view's
  :class:`~mcp_client.apps.AppCall` is routed by such a name, and the client
  underneath still checks the mark was made for it.  A view's call by any
  other name than :meth:`Registry.app_tool_name` gives for its own tool is
  refused: a view calls only its own server's tools.
* Prefixes and the separator are made of ``[a-zA-Z0-9_-]``: a model API would
  refuse anything else.  A prefix added twice is an error.
* Providers' batches run one provider after another, in the order each first
  appears in the model's batch; within a provider its own scheduler decides
  (:mod:`mcp_client.batch`).  The registry cannot know whether two providers'
  tools are safe to overlap, so it never assumes so.
* A provider whose ``tools_for_llm()`` throws is left out of the list and
  reported through ``on_warn`` (or the log): one broken server does not hide
  every other tool from the model.
* The published list is built once per catalogue: every
  :meth:`Registry.tools_for_llm` still asks each provider, but when each
  one hands back the same declaration objects as last time (a
  :class:`~mcp_client.Client` does while its catalogue is cached) and no
  provider was added or removed, the renamed declarations of last time come
  back, in a new list -- the same objects, so copy one before changing it.
  Over 5,000 tools that is a fraction of a millisecond against tens.
"""

from __future__ import annotations

import json
import logging
import operator
import re
import threading
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, NamedTuple, Sequence, cast

from .apps import APP_CALL, AppCall
from .exceptions import MCPClientError
from ._toolfilter import ToolFilter
from .local import LocalServer, is_sdk_server
from .names import Bindings, NameMap, is_llm_name
from .provider import (CallParts, as_call_list, call_ids, call_meta, declared_name, error_message,
                       is_provider, read_call, refuse_unreadable)
from ._log import warn_through

if TYPE_CHECKING:
    from .types import ProviderEntry, ToolAnnotations, ToolDeclaration, ToolMessage

__all__ = ["Registry"]

log = logging.getLogger(__name__)

_PREFIX = re.compile(r"^[a-zA-Z0-9_-]+$")
_SEP = re.compile(r"^[a-zA-Z0-9_-]*$")


class _Entry(NamedTuple):
    prefix: str
    provider: Any
    owned: bool
    tools: ToolFilter | None = None   # None: every tool the provider declares


def _identity(prefix: str, name: str) -> str:
    """``json.dumps([prefix, name])``, byte for byte (it seeds a shortened name's hash),
    without the encoder's cost for the names that need no escaping (nearly all)."""
    if name.isascii() and name.isprintable() and '"' not in name and "\\" not in name:
        return f'["{prefix}", "{name}"]'   # a prefix is [a-zA-Z0-9_-]: nothing to escape
    return json.dumps([prefix, name])


class _Listing(NamedTuple):
    """One built :meth:`Registry.tools_for_llm`: what it was built from, and what it gave."""

    generation: int                      # of the providers (add and remove count up)
    sources: tuple[tuple[Any, ...], ...]  # each provider's declarations, as they came
    published: tuple[ToolDeclaration, ...]
    names: NameMap[tuple[str, str]]

    def built_from(self, generation: int, sources: Sequence[Sequence[Any]]) -> bool:
        """True if every provider handed over the very same declarations again."""
        return generation == self.generation and len(sources) == len(self.sources) and all(
            len(new) == len(old) and all(map(operator.is_, new, old))
            for new, old in zip(sources, self.sources))


class Registry:
    """Many providers behind one prefixed namespace; itself a provider.

    Args:
        sep: what joins a prefix to a tool name (``[a-zA-Z0-9_-]*``).
        on_warn: told about a provider that could not list its tools or
            failed a batch (default: the ``mcp_client.registry`` logger).

    Raises:
        MCPClientError: a separator a model API would refuse.
    """

    def __init__(self, *, sep: str = "_", on_warn: Callable[[str], None] | None = None) -> None:
        if not isinstance(sep, str) or not _SEP.match(sep):
            raise MCPClientError(f"sep must be made of letters, digits, _ and -, not {sep!r}")
        self._sep = sep
        self._on_warn = on_warn
        self._lock = threading.Lock()
        self._entries: dict[str, _Entry] = {}
        self._published: NameMap[tuple[str, str]] | None = None
        self._bindings: Bindings[tuple[str, str]] = Bindings()   # every name ever published
        self._listing: _Listing | None = None
        self._generation = 0   # counts every add and remove: a listing of before is stale
        self._app_names: dict[str, tuple[str, str]] = {}   # a view's names for unpublished tools
        self._closed = False
        #: The servers a configuration named that did not connect
        #: (:meth:`from_config` fills it; ``mcp_client.config.ConfigFailure`` items).
        self.failures: list[Any] = []

    @classmethod
    def from_config(cls, source: Any, *, environ: Mapping[str, str] | None = None,
                    **options: Any) -> Registry:
        """A registry over every enabled server of an ``mcpServers`` configuration.

        Delegates to :func:`mcp_client.config.connect_config`: each server is
        added under its name and owned (closed by :meth:`close`); one that does
        not connect is listed in :attr:`failures` and the rest still connect.

        Args:
            source: a file name or the parsed configuration.
            environ: where ``${VAR}`` is looked up (default: ``os.environ``).
            **options: client options for every server, plus transport options.

        Raises:
            ConfigError: the configuration cannot be used (nothing was started).
        """
        from .config import connect_config

        return connect_config(source, registry_factory=cls, environ=environ, **options)

    def __repr__(self) -> str:
        state = " closed" if self._closed else ""
        return f"<Registry sep={self._sep!r} providers={list(self._entries)}{state}>"

    @property
    def sep(self) -> str:
        """The separator between prefix and tool name."""
        return self._sep

    # -- providers -----------------------------------------------------------------

    def add(self, provider: Any, *, prefix: str, owned: bool = False,
            include: Sequence[str] | None = None, exclude: Sequence[str] | None = None,
            **options: Any) -> Any:
        """Publish a provider's tools under ``prefix``.

        With ``include`` and ``exclude`` (glob patterns on the names the
        provider declares, see :mod:`mcp_client._toolfilter`), only the tools
        matching an ``include`` pattern (every tool, when None) and no
        ``exclude`` pattern are published; a call to any other is an
        ``unknown tool`` entry and never reaches the provider.

        Args:
            provider: an object with ``tools_for_llm()`` and
                ``execute_tool_calls(calls)``, or an official-SDK server
                object (wrapped in a :class:`~mcp_client.local.LocalServer`,
                which this registry then owns and closes).
            prefix: letters, digits, ``_`` and ``-``.
            owned: this registry takes the provider over and closes it in
                :meth:`close` (an SDK object's ``LocalServer`` always is).
            include: the tools to publish (globs; None: all of them).
            exclude: the tools never to publish (globs), applied after ``include``.
            **options: client options for the ``LocalServer`` an SDK object
                is wrapped in (``on_progress``, ``tool_concurrency``, ...);
                refused for any other provider.

        Returns:
            the provider as added (the ``LocalServer`` for an SDK object).

        Raises:
            MCPClientError: not a provider, a bad prefix, a prefix that is
                already taken, a pattern list that is not a list of strings,
                or options for a provider that is not wrapped.
        """
        if not isinstance(prefix, str) or not _PREFIX.match(prefix):
            raise MCPClientError(f"a prefix must be letters, digits, _ and -, not {prefix!r}")
        tools = None if include is None and exclude is None else ToolFilter(include, exclude)
        with self._lock:
            if prefix in self._entries:
                raise MCPClientError(f"prefix {prefix!r} is already registered")
        created = is_sdk_server(provider)
        if created:
            provider, owned = LocalServer(provider, **options), True
        elif options:
            raise MCPClientError(f"options ({', '.join(options)}) configure the LocalServer an "
                                 "SDK server object is wrapped in; this provider is ready-made")
        elif not is_provider(provider):
            raise MCPClientError("a provider needs tools_for_llm() and execute_tool_calls(calls);"
                                 f" {type(provider).__name__} has not both")
        with self._lock:
            taken = prefix in self._entries
            if not taken:
                self._entries[prefix] = _Entry(prefix, provider, owned, tools)
                self._generation += 1
        if taken:
            if created:
                provider.close()
            raise MCPClientError(f"prefix {prefix!r} is already registered")
        return provider

    def remove(self, prefix: str) -> Any:
        """Stop publishing ``prefix``; returns its provider (now the caller's), or None."""
        with self._lock:
            entry = self._entries.pop(prefix, None)
            self._generation += 1
        return None if entry is None else entry.provider

    @property
    def providers(self) -> list[ProviderEntry]:
        """``[{"prefix", "provider"}, ...]`` in the order they were added."""
        with self._lock:
            return [{"prefix": e.prefix, "provider": e.provider} for e in self._entries.values()]

    def close(self) -> None:
        """Close the providers this registry owns; idempotent.

        It owns the ``LocalServer`` objects it created and the providers added
        with ``owned=True``; the others are the caller's and stay open.
        """
        with self._lock:
            self._closed = True
            owned = [e.provider for e in self._entries.values() if e.owned]
        for provider in owned:
            close = getattr(provider, "close", None)
            if callable(close):
                try:
                    close()
                except Exception as exc:
                    self._warn(f"closing a provider failed: {type(exc).__name__}: {exc}")

    def __enter__(self) -> Registry:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- the provider pair -----------------------------------------------------------

    def tools_for_llm(self) -> list[ToolDeclaration]:
        """Every provider's declarations, renamed ``{prefix}{sep}{name}``.

        A provider that throws is left out and reported (see the module
        docstring).  While no provider's catalogue changed, the declarations
        are the objects of the last call (in a new list): copy one before
        changing it.
        """
        with self._lock:
            entries = list(self._entries.values())
            generation, listing = self._generation, self._listing
        sources = [self._declarations(entry) for entry in entries]
        if listing is not None and listing.built_from(generation, sources):
            return list(listing.published)
        listing = self._built(generation, entries, sources)
        with self._lock:
            if self._generation == generation:
                self._listing = listing
                self._published = listing.names
        return list(listing.published)

    def _built(self, generation: int, entries: Sequence[_Entry],
               sources: Sequence[Sequence[Any]]) -> _Listing:
        """The published declarations and names, made from every provider's own."""
        listed: list[tuple[str, str, Mapping[str, Any]]] = []
        for entry, declarations in zip(entries, sources):
            for declaration in declarations:
                name = declared_name(declaration)
                if name is None:
                    self._warn(f"provider {entry.prefix!r} declared a tool without a name")
                    continue
                listed.append((entry.prefix, name, declaration))
        by_priority = sorted(listed, key=lambda item: -len(item[0]))
        names, displaced = self._bindings.name_map(
            ((prefix, name), f"{prefix}{self._sep}{name}", _identity(prefix, name))
            for prefix, name, _ in by_priority)
        for moved in displaced:
            holder = "" if moved.holder is None else \
                f" is bound to {moved.holder[1]!r} of provider {moved.holder[0]!r};"
            self._warn(f"provider {moved.key[0]!r} lists {moved.key[1]!r}, but "
                       f"{moved.wanted}{holder or ' is taken;'} it is published as "
                       f"{moved.given}")
        published: list[ToolDeclaration] = []
        seen: set[str] = set()
        for prefix, name, declaration in listed:
            public = names.name_for((prefix, name))
            if public is None or public in seen:
                continue
            seen.add(public)
            published.append(cast("ToolDeclaration", {
                **declaration, "function": {**declaration["function"], "name": public}}))
        return _Listing(generation, tuple(tuple(found) for found in sources), tuple(published),
                        names)

    def _declarations(self, entry: _Entry) -> list[Any]:
        try:
            declarations = entry.provider.tools_for_llm()
        except Exception as exc:
            self._warn(f"provider {entry.prefix!r} could not list its tools: "
                       f"{type(exc).__name__}: {exc}")
            return []
        if not isinstance(declarations, list):
            self._warn(f"provider {entry.prefix!r} listed its tools as "
                       f"{type(declarations).__name__}, not a list")
            return []
        if entry.tools is not None:
            return [d for d in declarations
                    if (name := declared_name(d)) is None or entry.tools.allows(name)]
        return declarations

    def route(self, name: str) -> tuple[str, str] | None:
        """``(prefix, the provider's name)`` for a published tool name, or None.

        A name missing from the last listing lists every provider again once;
        a name that is still not published is routed nowhere.
        """
        routed = self._published_key(name)
        if routed is None:
            self.tools_for_llm()
            routed = self._published_key(name)
        return routed

    def _published_key(self, name: str) -> tuple[str, str] | None:
        with self._lock:
            published = self._published
            key = published.key_for(name) if published is not None else None
            return key if key is not None and key[0] in self._entries else None

    def app_tool_name(self, client: Any, tool: str) -> str | None:
        """The name a view's call to ``client``'s ``tool`` goes by here (MCP Apps).

        The provider that has it (its ``app_tool_name``) is found; the name is
        the published one when the tool is published, else
        ``{prefix}{sep}{name}``, routed only for a call carrying the view's mark.

        Returns:
            the name, or None: no provider reaches that tool, or the name it
            would have is published for another tool.
        """
        with self._lock:
            entries = list(self._entries.values())
        for entry in entries:
            ask = getattr(entry.provider, "app_tool_name", None)
            inner = ask(client, tool) if callable(ask) else None
            if not isinstance(inner, str):
                continue
            self.tools_for_llm()   # the names published now
            with self._lock:
                published = self._published
                public = published.name_for((entry.prefix, inner)) if published else None
                if public is not None:
                    return public
                wanted = f"{entry.prefix}{self._sep}{inner}"
                if not is_llm_name(wanted) or (published and published.key_for(wanted)):
                    return None
                self._app_names[wanted] = (entry.prefix, inner)
                return wanted
        return None

    def _app_route(self, name: str, call: Any) -> tuple[str, str] | None:
        """Where a view's call (one carrying an :class:`AppCall`) to ``name`` goes, if
        :meth:`app_tool_name` gave that name; None for any other call."""
        if not isinstance((call_meta(call) or {}).get(APP_CALL), AppCall):
            return None
        with self._lock:
            routed = self._app_names.get(name)
            return routed if routed is not None and routed[0] in self._entries else None

    def _views_own(self, name: str, call: Any) -> bool:
        """False for a view's call (one carrying an :class:`AppCall`) that ``name`` would
        route to another tool than the view's own server's: a view calls only those."""
        mark = (call_meta(call) or {}).get(APP_CALL)
        return not isinstance(mark, AppCall) or self.app_tool_name(mark.client, mark.tool) == name

    def tool_annotations(self, name: str) -> ToolAnnotations | None:
        """What the owning provider says about one tool (None if it cannot say)."""
        routed = self.route(name)
        if routed is None:
            return None
        with self._lock:
            entry = self._entries.get(routed[0])
        ask = getattr(entry.provider, "tool_annotations", None) if entry else None
        return cast("ToolAnnotations | None", ask(routed[1])) if callable(ask) else None

    def cancel_tool_calls(self, ids: Iterable[str | int]) -> int:
        """Cancel running calls with these ids in every provider that can
        (``cancel_tool_calls``, see :mod:`mcp_client.provider`).

        Returns:
            How many calls they cancelled, summed (0 when none matched).

        Raises:
            MCPClientError: ``ids`` is not an iterable of call ids.
        """
        wanted = call_ids(ids)
        with self._lock:
            providers = [entry.provider for entry in self._entries.values()]
        total = 0
        for provider in providers:
            cancel = getattr(provider, "cancel_tool_calls", None)
            if not callable(cancel):
                continue
            try:
                total += int(cancel(wanted))
            except Exception as exc:   # one provider's failure must not spare the others
                self._warn(f"cancel_tool_calls failed in {provider!r}: "
                           f"{type(exc).__name__}: {exc}")
        return total

    def execute_tool_calls(self, calls: Iterable[Any]) -> list[ToolMessage]:
        """Run a model's calls: one batch per provider, answers in the model's order.

        Never raises for a call: a malformed call, a name no provider owns, or a
        provider that throws or answers out of shape each become ``is_error``
        entries for the calls concerned, and only those.

        Raises:
            MCPClientError: ``calls`` is not a list (a programming error).
        """
        items = as_call_list(calls)
        parts = [read_call(call) for call in items]
        answers: list[ToolMessage | None] = [None] * len(parts)
        batches: dict[str, list[tuple[int, dict[str, Any]]]] = {}
        for index, part in enumerate(parts):
            answers[index] = refuse_unreadable(part)
            if answers[index] is not None or part.name is None:
                continue
            app_routed = self._app_route(part.name, items[index])
            routed = app_routed or self.route(part.name)
            if routed is None:
                answers[index] = error_message(part.ident, f"unknown tool: {part.name}")
                continue
            if app_routed is None and not self._views_own(part.name, items[index]):
                answers[index] = error_message(part.ident, f"{part.name} is not callable by "
                                               "the app")
                continue
            forwarded: dict[str, Any] = {
                "id": part.ident, "type": "function",
                "function": {"name": routed[1], "arguments": part.arguments}}
            meta = call_meta(items[index])   # a layer's request _meta goes on with it
            if meta is not None:
                forwarded["_meta"] = meta
            batches.setdefault(routed[0], []).append((index, forwarded))
        for prefix, slots in batches.items():
            for (index, _), answer in zip(slots, self._run(prefix, slots, parts)):
                answers[index] = answer
        return [answer for answer in answers if answer is not None]

    def _run(self, prefix: str, slots: Sequence[tuple[int, dict[str, Any]]],
             parts: Sequence[CallParts]) -> list[ToolMessage]:
        """One provider's batch, answers re-addressed to the model's call ids."""
        with self._lock:
            entry = self._entries.get(prefix)
        idents = [parts[index].ident for index, _ in slots]
        names = [parts[index].name for index, _ in slots]
        try:
            if entry is None:
                raise MCPClientError(f"provider {prefix!r} was removed")
            answers = entry.provider.execute_tool_calls([call for _, call in slots])
            if not isinstance(answers, list) or len(answers) != len(slots):
                count = len(answers) if isinstance(answers, list) else type(answers).__name__
                raise MCPClientError(f"answered {count} for {len(slots)} calls")
        except Exception as exc:
            self._warn(f"provider {prefix!r} failed a batch: {type(exc).__name__}: {exc}")
            return [error_message(ident, f"{name} could not run: its provider failed "
                                         f"({type(exc).__name__}: {exc})")
                    for ident, name in zip(idents, names)]
        return [self._readdressed(answer, ident) for answer, ident in zip(answers, idents)]

    @staticmethod
    def _readdressed(answer: Any, ident: Any) -> ToolMessage:
        if not isinstance(answer, Mapping):
            return error_message(ident, "the provider's answer could not be read")
        entry = dict(answer)
        entry["role"] = "tool"
        entry["tool_call_id"] = ident
        entry.setdefault("content", "")
        entry["is_error"] = entry.get("is_error") is True
        return cast("ToolMessage", entry)

    def _warn(self, text: str) -> None:
        warn_through(self._on_warn, text, log)
