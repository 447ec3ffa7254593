"""The lease layer: one agent's :class:`Leases`, a provider over a provider.

It publishes ``lock_acquire`` and ``lock_release``, answers them from the
workspace's :class:`~mcp_client.leases.LeaseTable`, and judges each mutating
call on the table as it is forwarded (the rules: :mod:`mcp_client.leases`).
What a call's shell commands may change it asks the policy's shell reader.
"""

from __future__ import annotations

import json
import logging
import time
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping

from .. import paths
from ..exceptions import InvalidArgument, StoreError
from ..policy import command_locations
from ..provider import (CallParts, Layer, call_meta, declared_name, error_message,
                        parse_arguments, tool_message, with_meta)
from ._table import ANYWHERE, Conflict, Lease, LeaseTable, is_seconds

if TYPE_CHECKING:
    from ..types import ToolAnnotations, ToolDeclaration, ToolMessage

__all__ = ["Leases", "ACQUIRE", "RELEASE", "ENFORCED_TOOLS", "TTL_CAP_FACTOR", "DEFAULT_WAIT",
           "POLL_SECONDS", "LEASE_META"]

log = logging.getLogger(__name__)

ACQUIRE = "lock_acquire"
RELEASE = "lock_release"
#: The tools that change things, by name: a filesystem toolkit's (``fs_*``) and the
#: reference filesystem server's (@modelcontextprotocol/server-filesystem),
#: matched bare or after any prefix (``fs_write_file``).
ENFORCED_TOOLS = ("fs_write", "fs_edit", "fs_move", "fs_delete", "write_file", "edit_file",
                  "move_file", "create_directory")
#: The longest ``ttl`` a ``lock_acquire`` may ask for, in ``default_ttl`` units.
TTL_CAP_FACTOR = 10
#: The default wait of ``lock_acquire``, seconds: long enough for another agent's edit.
DEFAULT_WAIT = 90.0
#: How often a waiting acquire looks again, at the least: about once a second.
POLL_SECONDS = 1.0
#: The request ``_meta`` key a forwarded mutating call carries its lease's fencing
#: token under: ``{"workspace": str, "token": int}``.
LEASE_META = "mcp-client-sync/lease"

_DECLARATIONS: list[dict[str, Any]] = [
    {"type": "function", "function": {
        "name": ACQUIRE,
        "description": "Claim files or directories before changing them, so that other "
                       "agents working in the same place do not overwrite your work. All or "
                       "nothing; waits up to `wait` seconds for paths another agent holds.",
        "parameters": {"type": "object", "properties": {
            "paths": {"type": "array", "items": {"type": "string"},
                      "description": "The paths to claim (a directory covers everything "
                                     "below it)."},
            "ttl": {"type": "number", "description": "Seconds the claim lasts unless "
                                                     "renewed (default 300)."},
            "wait": {"type": "number", "description": "Seconds to wait for paths another "
                                                      "agent holds (default 90; 0: never)."}},
            "required": ["paths"]}}},
    {"type": "function", "function": {
        "name": RELEASE,
        "description": "Give back claimed paths (all of yours when `paths` is left out).",
        "parameters": {"type": "object", "properties": {
            "paths": {"type": "array", "items": {"type": "string"}}}}}},
]


def _answer(ident: Any, payload: Any, *, is_error: bool = False) -> ToolMessage:
    """A lock call's answer: ``payload`` as strict JSON (no ``Infinity`` or ``NaN``)."""
    try:
        content = json.dumps(payload, allow_nan=False)
    except ValueError:     # nothing here should hold NaN; if it does, say so in JSON
        content, is_error = json.dumps({"error": "the answer could not be written"}), True
    return tool_message(ident, content, is_error=is_error)


def _lock_error(ident: Any, name: str, text: str) -> ToolMessage:
    """A lock call's error, as JSON shaped like its success (nothing acquired or freed)."""
    outcome: dict[str, Any] = {"acquired": False} if name == ACQUIRE else {"released": []}
    return _answer(ident, {**outcome, "error": f"{name}: {text}"}, is_error=True)


def _named(tool: str, names: Iterable[str]) -> bool:
    """``tool`` is one of ``names``, bare or after a prefix and separator."""
    return any(tool == name or (tool.endswith(name) and tool[-len(name) - 1] in "_.-")
               for name in names)


def _roots(roots: Any) -> dict[str, str]:
    """``roots`` checked: each prefix's directory a plain absolute path, normalised."""
    if roots is None:
        return {}
    if not isinstance(roots, Mapping):
        raise InvalidArgument("roots", roots, "must be a mapping of tool-name prefix to directory")
    checked = {}
    for prefix, root in roots.items():
        try:
            if not isinstance(prefix, str):
                raise ValueError(prefix)
            checked[prefix] = paths.check_root(root)
        except ValueError:
            raise InvalidArgument("roots", roots, "must map each prefix to a plain absolute "
                                                  f"path ({prefix!r}: {root!r})") from None
    return checked


def _tool_names(names: Any) -> frozenset[str]:
    try:
        items = None if isinstance(names, (str, bytes)) else list(names)
    except TypeError:
        items = None
    if items is None or not all(isinstance(name, str) for name in items):
        raise InvalidArgument("enforced_tools", names, "must be a list of tool-name strings")
    return frozenset(items)


def _shielded(hook: Callable[[], Any] | None, what: str) -> None:
    if hook is None:
        return
    try:
        hook()
    except Exception:
        log.exception("%s raised; ignored", what)


def _unfenced(call: Any) -> Any:
    """``call`` without a lease ``_meta`` entry: only this layer says which lease covers
    a call, so a token that came with it (forged, or stale) never reaches the server."""
    meta = call_meta(call)
    if meta is None or LEASE_META not in meta:
        return call
    stripped = {key: value for key, value in call.items() if key != "_meta"}
    rest = {key: value for key, value in meta.items() if key != LEASE_META}
    return {**stripped, "_meta": rest} if rest else stripped


class Leases(Layer):
    """One agent's view of the workspace's leases, as a provider layer.

    Args:
        inner: the provider underneath.
        table: the workspace's :class:`LeaseTable`.
        agent_id: this agent's id (the holder name others are told).
        roots: tool-name prefix -> the server's directory (as for the policy).
        concurrent: how many agents are live now; more than one turns strict
            mode on.
        enforced_tools: exactly the mutating tools (default: see the module
            docstring, "Which tools").
        on_wait_begin: told when an acquire really starts waiting.
        on_wait_end: told when that wait ends, however it ends.
        cancelled: asked on every poll; True ends a wait early.

    Raises:
        InvalidArgument: ``table`` is not a :class:`LeaseTable`, ``agent_id``
            is empty or not a string, a root is not a plain absolute path,
            ``enforced_tools`` is not a list of names, or a hook is neither
            callable nor None.
        MCPClientError: ``inner`` is not a provider.
    """

    def __init__(self, inner: Any, table: LeaseTable, agent_id: str, *,
                 roots: Mapping[str, str] | None = None,
                 concurrent: Callable[[], Any] | None = None,
                 enforced_tools: Iterable[str] | None = None,
                 on_wait_begin: Callable[[], Any] | None = None,
                 on_wait_end: Callable[[], Any] | None = None,
                 cancelled: Callable[[], Any] | None = None) -> None:
        if not isinstance(table, LeaseTable):
            raise InvalidArgument("table", table, "must be a LeaseTable")
        if not isinstance(agent_id, str) or not agent_id:
            raise InvalidArgument("agent_id", agent_id, "must be a non-empty string")
        for name, hook in (("concurrent", concurrent), ("on_wait_begin", on_wait_begin),
                           ("on_wait_end", on_wait_end), ("cancelled", cancelled)):
            if hook is not None and not callable(hook):
                raise InvalidArgument(name, hook, "must be callable or None")
        self.roots = _roots(roots)
        self._by_name_only = enforced_tools is not None
        self.enforced_tools = frozenset(ENFORCED_TOOLS) if enforced_tools is None else \
            _tool_names(enforced_tools)
        super().__init__(inner)
        self.table = table
        self.agent_id = agent_id
        self._concurrent = concurrent
        self._on_wait_begin = on_wait_begin
        self._on_wait_end = on_wait_end
        self._cancelled = cancelled

    def __repr__(self) -> str:
        return f"<Leases agent={self.agent_id!r} over {self.provider!r}>"

    @property
    def inner(self) -> Any:
        """The provider underneath: :attr:`~mcp_client.provider.Layer.provider` under its
        older name (read-only)."""
        return self.provider

    # -- the provider pair -----------------------------------------------------------

    def tool_annotations(self, name: str) -> ToolAnnotations | None:
        """The inner provider's annotations for ``name`` (None when it cannot say)."""
        if name in (ACQUIRE, RELEASE):
            return None
        return super().tool_annotations(name)

    def tools_for_llm(self) -> list[ToolDeclaration]:
        """``lock_acquire`` and ``lock_release``, then the inner provider's tools."""
        mine: list[ToolDeclaration] = json.loads(json.dumps(_DECLARATIONS))
        return mine + [d for d in self.provider.tools_for_llm()
                       if declared_name(d) not in (ACQUIRE, RELEASE)]

    def handle_calls(self, calls: list[Any], parts: list[CallParts]) -> list[ToolMessage]:
        """Lock calls here, each mutating call judged as it goes, the rest batched.

        Consecutive calls that no lease is about go to the inner provider as
        one batch.  A lock call, and a mutating call that names a location,
        is a barrier: what came before it has been answered when it is
        handled, so order is kept.  A mutating call is judged on the table
        *at that moment* and forwarded alone, its places held until its
        answer is in (:meth:`LeaseTable.hold`).
        """
        results: list[ToolMessage | None] = [None] * len(calls)
        batch: list[int] = []

        def flush() -> None:
            if batch:
                answers = list(self.provider.execute_tool_calls([_unfenced(calls[i])
                                                                 for i in batch]))
                for index, answer in zip(batch, answers):
                    results[index] = answer
                batch.clear()

        for index, part in enumerate(parts):
            if part.name in (ACQUIRE, RELEASE):
                flush()
                try:
                    results[index] = self._lock_call(part.ident, part.name, part.arguments)
                except StoreError as exc:   # the store fails closed: nothing was granted
                    results[index] = error_message(part.ident, f"{part.name}: {exc}")
                continue
            named = None if part.name is None else self._places(part.name, part.arguments)
            if named is None:
                batch.append(index)
                continue
            flush()
            try:
                results[index] = self._guarded(calls[index], part, named)
            except StoreError as exc:   # judged on no table: not forwarded
                results[index] = error_message(part.ident, f"{part.name}: {exc}; not run")
        flush()
        return [r if r is not None else error_message(None, "no result") for r in results]

    # -- lock calls ------------------------------------------------------------------

    def _resolve(self, tool: str, wanted: Any) -> list[str] | str:
        """The normalised paths of a lock call, or why they cannot be read."""
        if isinstance(wanted, str):
            wanted = [wanted]
        if not isinstance(wanted, list) or not wanted:
            return "paths must be a non-empty list of strings"
        root = paths.root_for(self.roots, tool)
        resolved = []
        for item in wanted:
            path = paths.resolve(item, root)
            if path is None:
                return (f"cannot lock {item!r}: it is not a plain path under a known root "
                        "(relative paths need a root; '..', '~', escapes and the like are "
                        "refused)")
            if root is not None and paths.contains(root, path) is not paths.Tri.YES:
                return f"cannot lock {item!r}: it is outside the lock root {root}"
            resolved.append(path)
        return resolved

    def _lock_call(self, ident: Any, name: str, raw: Any) -> ToolMessage:
        try:
            arguments = parse_arguments(raw)
        except ValueError as exc:
            return _lock_error(ident, name, str(exc))
        if name == RELEASE:
            wanted = None
            if arguments.get("paths") is not None:
                resolved = self._resolve(name, arguments["paths"])
                if isinstance(resolved, str):
                    return _lock_error(ident, name, resolved)
                wanted = resolved
            freed = self.table.release(self.agent_id, wanted)
            return _answer(ident, {"released": freed})
        resolved = self._resolve(ACQUIRE, arguments.get("paths"))
        if isinstance(resolved, str):
            return _lock_error(ident, name, resolved)
        cap = self.table.default_ttl * TTL_CAP_FACTOR
        ttl = arguments.get("ttl", self.table.default_ttl)
        wait = arguments.get("wait", DEFAULT_WAIT)
        if not is_seconds(ttl) or not 0 < ttl <= cap:
            return _lock_error(ident, name, f"ttl must be a number of seconds above 0 and at "
                                            f"most {cap:g}")
        if not is_seconds(wait) or wait < 0:
            return _lock_error(ident, name, "wait must be a number of seconds, 0 or more")
        return _answer(ident, self._acquire(resolved, float(ttl),
                                            float(min(wait, self.table.default_ttl))))

    def _acquire(self, wanted: list[str], ttl: float, wait: float) -> dict[str, Any]:
        blocker = self.table.try_acquire(self.agent_id, wanted, ttl)
        if blocker is None:
            return {"acquired": True, "paths": wanted, "ttl": ttl}
        if wait > 0:
            deadline = time.monotonic() + wait
            _shielded(self._on_wait_begin, "on_wait_begin")
            try:
                while blocker is not None and not self._is_cancelled():
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        break
                    self.table.wait_for_change(min(POLL_SECONDS, remaining))
                    blocker = self.table.try_acquire(self.agent_id, wanted, ttl)
            finally:
                _shielded(self._on_wait_end, "on_wait_end")
            if blocker is None:
                return {"acquired": True, "paths": wanted, "ttl": ttl}
        hint = ("another agent's change to this is in flight; try again in a moment, or "
                "call with a wait") if blocker.in_flight else \
            "another agent holds this; work on something else and try again later, or wait longer"
        return {"acquired": False, "path": blocker.path, "holder": blocker.holder,
                "held_for_seconds": round(self.table.held_for(blocker), 1), "hint": hint}

    def _is_cancelled(self) -> bool:
        if self._cancelled is None:
            return False
        try:
            return bool(self._cancelled())
        except Exception:   # fails open: keep waiting
            log.exception("cancelled() raised; treated as not cancelled")
            return False

    # -- enforcement ---------------------------------------------------------------

    def _strict(self) -> bool:
        if self._concurrent is None:
            return False
        try:
            live = self._concurrent()
        except Exception:   # fails closed
            return True
        if isinstance(live, bool) or not isinstance(live, int):
            return True
        return live > 1

    def _enforced(self, tool: str) -> str | None:
        """Why ``tool`` is enforced: ``"name"``, ``"annotations"``, or None (it is not)."""
        if self._by_name_only:
            return "name" if tool in self.enforced_tools else None
        if _named(tool, self.enforced_tools):
            return "name"
        try:
            notes = self.tool_annotations(tool)
        except Exception:   # fails closed: it may change things
            log.debug("tool_annotations(%r) failed", tool, exc_info=True)
            return "annotations"
        if isinstance(notes, Mapping) and notes.get("readOnlyHint") is True and \
                notes.get("destructiveHint") is not True:
            return None
        return "annotations"

    def _places(self, tool: str, raw: Any) -> list[paths.Location | None] | None:
        """What a mutating call writes (None in the list: a location it names unreadably,
        or, for a tool enforced by name, none named); None when no lease is about it."""
        how = self._enforced(tool)
        if how is None:
            return None
        try:
            arguments = parse_arguments(raw)
        except ValueError:
            return None   # the inner provider reports malformed arguments
        root = paths.root_for(self.roots, tool)
        found = paths.locate(arguments, root, strays=True)
        changed = command_locations(arguments, root)
        if changed is not None:         # what its shell commands may change, too
            found = [*(found or []), *changed] or None
        if found is None:
            return [None] if how == "name" else None   # else it names nothing to lease
        return list(found) or None

    def _guarded(self, call: Any, part: CallParts, named: list[paths.Location | None],
                 ) -> ToolMessage:
        """Judge one mutating call on the table as it is now; forward it alone, held."""
        tool = part.name
        assert tool is not None
        strict = self._strict()     # the host's callback: asked outside the table's lock
        claim = self.table.hold(self.agent_id, [None if location is None else location.resolved
                                                for location in named], strict=strict)
        if isinstance(claim, Conflict):
            location = named[claim.at]
            if claim.blocker is not None:
                return error_message(part.ident, self._blocked(tool, claim.blocker, location))
            return error_message(part.ident,
                                 self._teach(tool, None if location is None else location.value))
        try:
            fence = self._fence(claim.places)
            call = _unfenced(call) if fence is None else with_meta(call, part, {LEASE_META: fence})
            answers = list(self.provider.execute_tool_calls([call]))
        finally:
            try:
                self.table.end_hold(claim)
            except StoreError as exc:   # the answer is in: keep it; the hold ends with us
                log.warning("%s: could not end the hold of %s (it stays until this process "
                            "ends): %s", self.agent_id, tool, exc)
        return answers[0] if answers else error_message(part.ident, "no result")

    def _fence(self, places: Iterable[str | None]) -> dict[str, Any] | None:
        """The fencing ``_meta`` for a call writing ``places``: the highest token among
        this agent's leases over any of them, or None when none covers one.

        Read after the hold is taken: while it lasts no other holder can be
        granted these places, so a lease seen here is still the newest grant.
        """
        wanted = [place for place in places if place is not None]
        tokens = [lease.token for lease in self.table.snapshot()
                  if lease.holder == self.agent_id and not lease.in_flight and
                  any(paths.contains(lease.path, place) is paths.Tri.YES for place in wanted)]
        if not tokens:
            return None
        return {"workspace": self.table.workspace, "token": max(tokens)}

    def _blocked(self, tool: str, blocker: Lease, location: paths.Location | None) -> str:
        held = f"held for {self.table.held_for(blocker):.0f}s"
        if blocker.in_flight:
            what = "everything" if blocker.path == ANYWHERE else blocker.path
            return (f"{tool}: {blocker.holder} is changing {what} right now (a call in "
                    f"flight, {held}); try again when it is done, or work on something else")
        if location is not None and location.resolved is not None:
            return (f"{tool}: {blocker.path} is leased by {blocker.holder} ({held}); call "
                    f"{ACQUIRE} with a wait, or work on something else")
        what = "the call names no location" if location is None else \
            f"{location.key} cannot be read as a plain path inside the root"
        return (f"{tool}: {what}, so it cannot be shown to miss {blocker.path}, leased by "
                f"{blocker.holder} ({held}); name the path plainly, or work on something "
                "else until the lease is released")

    @staticmethod
    def _teach(tool: str, where: Any) -> str:
        what = f" {where!r}" if where is not None else ""
        return (f"{tool}: other agents are working in this workspace, so changes need a "
                f"lease. Call {ACQUIRE} with the path{what} first (and {RELEASE} when "
                "done), then repeat this call.")
