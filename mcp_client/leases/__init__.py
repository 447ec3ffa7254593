"""File leases: an in-process, advisory, bounded-wait lock table with two tools.

Two agents editing one checkout will, eventually, edit one file: read it,
think, write it back -- and the second agent's write throws the first one's
away.  This package closes that window with file leases.

* :class:`LeaseTable` -- one per workspace, shared by every agent's stack,
  thread-safe.  A lease is a path held by one agent until it is released or
  its TTL runs out (``default_ttl``, 300 s).  Leases are *hierarchical*: a
  lease on a directory covers everything below it, so two leases conflict
  when either path contains the other (segment-wise, as
  :mod:`mcp_client.paths` compares; paths that differ only in case are taken
  to conflict, failing closed).  Given a store
  (``LeaseTable(store=open_store(url), workspace=...)``, :mod:`mcp_client.store`),
  the table keeps its leases and holds there instead, shared by every process
  that opens the same store and workspace; without one, nothing reaches
  outside the process.
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

Fencing: every grant takes the table's next integer, its fencing token
(``Lease.token``, strictly increasing per table, that is per workspace;
a renew keeps the path's token, a path granted again after it expired or was
released gets a higher one).  A mutating call this agent's leases cover is
forwarded with ``_meta["mcp-client-sync/lease"] = {"workspace": ..., "token":
...}`` (:data:`LEASE_META`; the highest token among its leases over the
call's places; the workspace is the table's ``workspace`` when it has one,
else ``"default"``), merged into whatever ``_meta`` the call already carries
(:func:`mcp_client.provider.with_meta`); a call no lease of this agent covers
(outside strict mode) carries none.  A server that remembers the highest token
it has seen per path and refuses an older one stops a holder that paused past
its TTL -- the lease check alone cannot -- and ``examples/servers/files_server.py``
does so (the recipe: the "Fencing tokens" section of the layers guide).

None of this reaches outside the process: a lease is advisory and dies with
it.  The server's own sandbox stays the filesystem's truth.
"""

from __future__ import annotations

from ._layer import ACQUIRE, ENFORCED_TOOLS, LEASE_META, RELEASE, TTL_CAP_FACTOR, Leases
from ._table import ANYWHERE, Conflict, Hold, Lease, LeaseTable

__all__ = ["LeaseTable", "Leases", "Lease", "Hold", "Conflict", "ACQUIRE", "RELEASE",
           "ENFORCED_TOOLS", "TTL_CAP_FACTOR", "ANYWHERE", "LEASE_META"]
