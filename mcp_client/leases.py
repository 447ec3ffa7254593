"""File leases: an in-process, advisory, bounded-wait lock table with two tools.

Two agents editing one checkout will, eventually, edit one file: read it,
think, write it back -- and the second agent's write throws the first one's
away.  This module closes that window with file leases.

* :class:`LeaseTable` -- one per workspace, shared by every agent's stack,
  thread-safe.  A lease is a path held by one agent until it is released or
  its TTL runs out (``default_ttl``, 300 s).  Leases are *hierarchical*: a
  lease on a directory covers everything below it, so two leases conflict
  when either path contains the other (segment-wise, as
  :mod:`mcp_client.paths` compares; paths that differ only in case are taken
  to conflict, failing closed).
* :class:`Leases` -- one per agent, a provider wrapping a provider.  It
  publishes ``lock_acquire(paths, ttl?, wait?)`` and ``lock_release(paths?)``
  without any prefix, routes those names ahead of everything else, and
  enforces leases on the tools that change things (see "Which tools").

Acquisition is all or nothing.  It tries at once and, when somebody else holds
a path, waits -- woken by every release, and looking again about once a
second -- for up to ``wait`` seconds (90 by default, capped at the table's
``default_ttl``), holding nothing while it waits, so no cycle of waiters can
form.  ``wait: 0`` never blocks.  There is no queue and no fairness.  The
refusal at the end is a *value*, not an error: it names the holder and how long
it has held the path, so a model can work on something else and come back.
Re-acquiring a path this agent holds refreshes its TTL.

``on_wait_begin``/``on_wait_end`` fire around a wait that really begins (never
for an immediate grant, never for ``wait: 0``); ``on_wait_end`` fires on every
exit.  Both are shielded: a host whose bookkeeping raises does not turn a
granted lock into an error.  ``cancelled()`` is asked on every poll and ends a
wait early; it fails *open* (a raise counts as "not cancelled"), because
over-waiting costs seconds and a falsely abandoned acquire costs correctness.

Which tools: by default, a filesystem toolkit's ``fs_write``, ``fs_edit``,
``fs_move`` and ``fs_delete`` and the reference filesystem server's
``write_file``, ``edit_file``, ``move_file`` and ``create_directory``
(:data:`ENFORCED_TOOLS`, under any prefix: ``fs_write_file``), and every
other tool the server did not annotate ``readOnlyHint: true`` (MCP presumes
a tool without annotations may change things) or annotated
``destructiveHint: true``, judged on the locations it names -- one that
names none is let through, as there is nothing to lease.  A call with shell
commands also names what they may change
(:func:`mcp_client.policy._places.command_locations`): ``echo x > f``,
``rm -rf dir``, ``sed -i`` files, a writer's operands, and for a command that
may change anything (``make``, ``git checkout``) the directory it runs in;
plain reads (``ls``, ``cat``, ``git status``) name nothing.  ``enforced_tools``
replaces all of that with exactly the names it lists.

Enforcement: another holder's lease on a location a mutating call names always
refuses it.  Strict mode -- a mutation must be covered by a lease *this* agent
holds, or it is refused with an error that teaches ``lock_acquire`` -- is on
whenever ``concurrent()`` reports more than one live agent.  ``concurrent``
fails *closed*: a raise, or an answer that is not a count, means strict.  A
mutating call whose location cannot be read (no root, ``..``, not a string;
see :mod:`mcp_client.paths`; a string that looks like a path under a key
nobody knows, :mod:`mcp_client.argkeys`; or none at all, for a tool enforced
by name) is refused in strict mode, and outside it whenever another agent
holds anything at all -- it cannot be shown not to collide.

When: a mutating call is judged on the table *at the moment it is
forwarded*, not when its batch came in.  Calls no lease is about (reads, a
tool that names no location) go to the inner provider in runs, one batch per
run; a mutating call that names a location (or is enforced by name) waits
its turn -- everything before it has been answered -- and is then judged and
held in one step under the table's lock (:meth:`LeaseTable.hold`), and
forwarded alone.  What it writes stays *held* until its answer is in:
another agent's ``lock_acquire`` over it waits (or, with ``wait: 0``, is
refused, the refusal saying a change is in flight), another agent's write to
it is refused, and a call that names its location unreadably holds
everything (:data:`ANYWHERE`).  The agent's own claims and calls are never
held up by its own holds, and a hold is not a lease: it covers nothing in
strict mode.  A hold has no TTL; it lasts as long as the call, which the
provider underneath bounds (a client's ``request_timeout``), and it ends even
when that provider raises.  So a write queued behind a slow call meets a
lease another agent took meanwhile, and in strict mode the writer's own lease
that ran out meanwhile.  The price: such a call never runs beside another in
the inner provider (a client runs a batch with a write in it one call at a
time anyway, unless ``parallel_tools`` says otherwise).

Decisions: a lock call's paths are resolved against the root
of the name ``lock_acquire`` in ``roots`` (so ``{"lock": "/srv/work"}`` or a
catch-all ``""`` key), the same lexical rules the policy uses, and a path
outside that root is refused; a ``ttl`` must be above 0 and at most ten
times the table's ``default_ttl`` (:data:`TTL_CAP_FACTOR`), so no lease
outlives its holder for ever; every answer of a lock call -- the grant, the
refusal and the error -- is a strict JSON object (``{"acquired": true,
...}``, ``{"acquired": false, "error": ...}``; never ``NaN`` or
``Infinity``); calls
around a lock call are forwarded to the inner provider in separate batches, so
a ``lock_release`` never overtakes the write before it.

None of this reaches outside the process: a lease is advisory and dies with
it.  The server's own sandbox stays the filesystem's truth.
"""

from __future__ import annotations

import json
import logging
import math
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, NamedTuple, Sequence

from . import paths
from .policy import command_locations
from .provider import CallParts, Layer, declared_name, error_message, parse_arguments, tool_message

if TYPE_CHECKING:
    from .types import ToolAnnotations, ToolDeclaration, ToolMessage

__all__ = ["LeaseTable", "Leases", "Lease", "Hold", "Conflict", "ACQUIRE", "RELEASE",
           "ENFORCED_TOOLS", "TTL_CAP_FACTOR", "ANYWHERE"]

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
#: The path an in-flight hold is shown under when its call names a location that
#: cannot be read: it may be anywhere, so it is in the way of every claim.
ANYWHERE = "*"

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


@dataclass
class Lease:
    """One held path.

    ``in_flight`` marks a mutating call's hold rather than a lease (see
    :meth:`LeaseTable.hold`): it has no TTL (``expires`` is infinite) and ends
    when the call's answer is in; its ``path`` is :data:`ANYWHERE` when the
    call names a location that cannot be read.
    """

    path: str
    holder: str
    since: float
    expires: float
    in_flight: bool = False


class Hold:
    """A mutating call's claim on the places it writes, while it runs.

    Made by :meth:`LeaseTable.hold`, ended by :meth:`LeaseTable.end_hold`.

    Attributes:
        holder: the agent whose call it is.
        places: the normalised paths the call writes; None for a location
            that cannot be read (the hold is then in the way of everything).
        since: when the call was forwarded (the table's clock).
    """

    __slots__ = ("holder", "places", "since")

    def __init__(self, holder: str, places: Sequence[str | None], since: float) -> None:
        self.holder = holder
        self.places = tuple(places)
        self.since = since

    def __repr__(self) -> str:
        return f"<Hold holder={self.holder!r} places={list(self.places)!r}>"

    def leases(self) -> list[Lease]:
        """The hold as leases (``in_flight``), one per place."""
        return [Lease(ANYWHERE if place is None else place, self.holder, self.since, math.inf,
                      in_flight=True) for place in self.places]


class Conflict(NamedTuple):
    """Why :meth:`LeaseTable.hold` refused: ``places[at]`` is in the way.

    Attributes:
        at: which of the places (its index).
        blocker: another holder's lease or hold over it; None when strict mode
            wanted a lease of the caller's own and it holds none there.
    """

    at: int
    blocker: Lease | None


def _overlap(a: str, b: str) -> bool:
    """Whether two normalised paths conflict (either contains the other; case fails closed)."""
    return paths.contains(a, b) is not paths.Tri.NO or paths.contains(b, a) is not paths.Tri.NO


def _meets(place: str | None, path: str | None) -> bool:
    """Whether a held place and a wanted path may conflict (None: could be anything)."""
    return place is None or path is None or _overlap(place, path)


class LeaseTable:
    """The workspace's leases, shared by every agent's :class:`Leases`.

    Args:
        default_ttl: seconds a lease lasts unless a call says otherwise.
        clock: monotonic seconds (a test may pass its own).
    """

    def __init__(self, default_ttl: float = 300, *,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if isinstance(default_ttl, bool) or not isinstance(default_ttl, (int, float)) or \
                not default_ttl > 0:
            raise ValueError(f"default_ttl must be a positive number, not {default_ttl!r}")
        self.default_ttl = float(default_ttl)
        self._clock = clock
        self._cond = threading.Condition()
        self._leases: dict[str, Lease] = {}
        self._holds: list[Hold] = []

    def __repr__(self) -> str:
        return (f"<LeaseTable leases={len(self._leases)} in_flight={len(self._holds)} "
                f"default_ttl={self.default_ttl:g}>")

    def _purge(self, now: float) -> None:
        for path in [p for p, lease in self._leases.items() if lease.expires <= now]:
            del self._leases[path]

    def snapshot(self) -> list[Lease]:
        """The live leases (copies)."""
        with self._cond:
            self._purge(self._clock())
            return [Lease(**vars(lease)) for lease in self._leases.values()]

    def try_acquire(self, holder: str, wanted: Sequence[str], ttl: float) -> Lease | None:
        """Claim every path or none.

        Another holder's lease or in-flight hold over any of the paths refuses
        the whole claim; the holder's own never does.

        Returns:
            None when granted; otherwise a lease (or an ``in_flight`` hold, as a
            :class:`Lease`) of another holder that is in the way.
        """
        with self._cond:
            now = self._clock()
            self._purge(now)
            for path in wanted:
                blocker = self._in_the_way(holder, path)
                if blocker is not None:
                    return blocker
            for path in wanted:
                held = self._leases.get(path)
                since = held.since if held is not None and held.holder == holder else now
                self._leases[path] = Lease(path, holder, since, now + ttl)
            return None

    def release(self, holder: str, released: Iterable[str] | None = None) -> list[str]:
        """Give back ``released`` (all of ``holder``'s when None); returns what was freed."""
        with self._cond:
            wanted = None if released is None else set(released)
            freed = [p for p, lease in self._leases.items()
                     if lease.holder == holder and (wanted is None or p in wanted)]
            for path in freed:
                del self._leases[path]
            self._cond.notify_all()
        return freed

    def release_holder(self, agent_id: str) -> list[str]:
        """Give back everything ``agent_id`` holds (its run has drained)."""
        return self.release(agent_id, None)

    def release_all(self) -> None:
        """Empty the table of leases (at shutdown); a call in flight keeps its hold."""
        with self._cond:
            self._leases.clear()
            self._cond.notify_all()

    def blocking(self, holder: str, path: str | None) -> Lease | None:
        """Another holder's lease or in-flight hold over ``path`` (any of theirs when
        ``path`` is unknown)."""
        with self._cond:
            self._purge(self._clock())
            return self._in_the_way(holder, path)

    def covers(self, holder: str, path: str) -> bool:
        """Whether ``holder`` holds a lease on ``path`` or a directory above it.

        Only leases count: a hold of the holder's own is not permission.
        """
        with self._cond:
            self._purge(self._clock())
            return self._covers(holder, path)

    def hold(self, holder: str, places: Sequence[str | None], *,
             strict: bool) -> Hold | Conflict:
        """Judge a mutating call on the table as it is now, and hold what it writes.

        In one step under the table's lock: another holder's lease or hold over
        any place refuses it; with ``strict``, so does a place the holder has
        no lease over (or a place that cannot be read, None).  Otherwise the
        places are held -- another holder's :meth:`try_acquire` and
        :meth:`blocking` see them -- until :meth:`end_hold`.  A hold has no
        TTL: it lasts as long as the call, which the provider underneath
        bounds (a client's ``request_timeout``).

        Returns:
            the :class:`Hold` to end once the call's answer is in, or the
            :class:`Conflict` that refused it.
        """
        with self._cond:
            now = self._clock()
            self._purge(now)
            for index, place in enumerate(places):
                blocker = self._in_the_way(holder, place)
                if blocker is not None:
                    return Conflict(index, blocker)
                if strict and (place is None or not self._covers(holder, place)):
                    return Conflict(index, None)
            held = Hold(holder, places, now)
            self._holds.append(held)
            return held

    def end_hold(self, held: Hold) -> None:
        """End a hold (its call's answer is in); idempotent.  Wakes waiting claims."""
        with self._cond:
            self._holds = [h for h in self._holds if h is not held]
            self._cond.notify_all()

    def holds(self) -> list[Lease]:
        """The holds of calls in flight, one ``in_flight`` :class:`Lease` per place."""
        with self._cond:
            return [lease for held in self._holds for lease in held.leases()]

    def _in_the_way(self, holder: str, path: str | None) -> Lease | None:
        """Another holder's lease or hold over ``path`` (a copy); the lock is held."""
        for lease in self._leases.values():
            if lease.holder != holder and _meets(lease.path, path):
                return Lease(**vars(lease))
        for held in self._holds:
            if held.holder != holder:
                for place, lease in zip(held.places, held.leases()):
                    if _meets(place, path):
                        return lease
        return None

    def _covers(self, holder: str, path: str) -> bool:
        return any(lease.holder == holder and paths.contains(lease.path, path) is paths.Tri.YES
                   for lease in self._leases.values())

    def wait_for_change(self, timeout: float) -> None:
        """Block until a release, or ``timeout`` seconds."""
        with self._cond:
            self._cond.wait(timeout)

    def held_for(self, lease: Lease) -> float:
        """Seconds since ``lease`` was first taken."""
        return max(0.0, self._clock() - lease.since)


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


def _seconds(value: Any) -> bool:
    return not isinstance(value, bool) and isinstance(value, (int, float)) and \
        not (isinstance(value, float) and math.isnan(value))


def _named(tool: str, names: Iterable[str]) -> bool:
    """``tool`` is one of ``names``, bare or after a prefix and separator."""
    return any(tool == name or (tool.endswith(name) and tool[-len(name) - 1] in "_.-")
               for name in names)


def _shielded(hook: Callable[[], Any] | None, what: str) -> None:
    if hook is None:
        return
    try:
        hook()
    except Exception:
        log.exception("%s raised; ignored", what)


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
        TypeError: ``table`` is not a :class:`LeaseTable`.
        ValueError: ``agent_id`` is empty or not a string.
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
            raise TypeError("table must be a LeaseTable")
        if not isinstance(agent_id, str) or not agent_id:
            raise ValueError("agent_id must be a non-empty string")
        super().__init__(inner)
        self.table = table
        self.agent_id = agent_id
        self.roots = {prefix: paths.check_root(root) for prefix, root in (roots or {}).items()}
        self._concurrent = concurrent
        self._by_name_only = enforced_tools is not None
        self.enforced_tools = frozenset(ENFORCED_TOOLS if enforced_tools is None
                                        else enforced_tools)
        self._on_wait_begin = on_wait_begin
        self._on_wait_end = on_wait_end
        self._cancelled = cancelled

    def __repr__(self) -> str:
        return f"<Leases agent={self.agent_id!r} over {self.provider!r}>"

    @property
    def inner(self) -> Any:
        """The provider underneath: :attr:`provider` under its older name (read-only)."""
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
                answers = list(self.provider.execute_tool_calls([calls[i] for i in batch]))
                for index, answer in zip(batch, answers):
                    results[index] = answer
                batch.clear()

        for index, part in enumerate(parts):
            if part.name in (ACQUIRE, RELEASE):
                flush()
                results[index] = self._lock_call(part.ident, part.name, part.arguments)
                continue
            named = None if part.name is None else self._places(part.name, part.arguments)
            if named is None:
                batch.append(index)
                continue
            flush()
            results[index] = self._guarded(calls[index], part, named)
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
        if not _seconds(ttl) or not 0 < ttl <= cap:
            return _lock_error(ident, name, f"ttl must be a number of seconds above 0 and at "
                                            f"most {cap:g}")
        if not _seconds(wait) or wait < 0:
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
            answers = list(self.provider.execute_tool_calls([call]))
        finally:
            self.table.end_hold(claim)
        return answers[0] if answers else error_message(part.ident, "no result")

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
