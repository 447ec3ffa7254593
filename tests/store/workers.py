"""What the processes of ``test_processes`` run (importable by name in a child process)."""

from __future__ import annotations

import threading
import time
from typing import Any

from mcp_client.leases import LeaseTable
from mcp_client.store import open_store

#: seconds a worker waits for a cue before giving up
PATIENCE = 30.0
#: how many groups the racers fall in; everyone in a group conflicts with everyone else
GROUPS = 4
#: the path each racer of group ``g`` wants: every two conflict (containment, or case
#: folding, which fails closed), so exactly one racer of a group can win
VARIANTS = ("/ws/g{g}", "/ws/G{g}", "/ws/g{g}/x", "/ws/G{g}/X/y")
#: the one path of the second round, and what its holder writes (a fenced resource)
FENCED = "/ws/fenced"


def wanted(index: int) -> list[str]:
    """What racer ``index`` claims: its group's path and one of its own."""
    group = index % GROUPS
    return [VARIANTS[(index // GROUPS) % len(VARIANTS)].format(g=group), f"/ws/own{index}"]


def _table(database: str, workspace: str) -> LeaseTable:
    """A table over the store ``database`` names (a file path or a store URL)."""
    return LeaseTable(store=open_store(database), workspace=workspace)


def race(database: str, workspace: str, index: int, start: Any, resume: Any,
         results: Any, fence: str) -> None:
    """Claim once at the start signal and report; then, on ``resume``, take the fenced path
    in turn and check the token against the last one written there."""
    try:
        table = _table(database, workspace)
        holder = f"w{index}"
        start.wait(PATIENCE)
        results.put(("try", index, table.try_acquire(holder, wanted(index), 60) is None))
        resume.wait(PATIENCE)
        table.release_holder(holder)
        deadline = time.monotonic() + PATIENCE
        while table.try_acquire(holder, [FENCED], 60) is not None:
            if time.monotonic() > deadline:
                raise TimeoutError("never granted")
            table.wait_for_change(0.5)
        mine = [lease for lease in table.snapshot() if lease.path == FENCED]
        with open(fence, encoding="ascii") as file:
            last = int(file.read() or 0)
        with open(fence, "w", encoding="ascii") as file:
            file.write(str(mine[0].token))
        alone = [lease.holder for lease in mine] == [holder]
        table.release(holder, [FENCED])
        results.put(("fenced", index, mine[0].token, alone and last < mine[0].token))
    except BaseException as exc:   # the parent must hear of it, not time out
        results.put(("error", index, repr(exc)))


def hold_and_hang(database: str, workspace: str, ttl: float, ready: Any, results: Any) -> None:
    """Take a lease on ``/k`` and hold ``/h`` in flight, then hang until killed."""
    table = _table(database, workspace)
    table.try_acquire("victim", ["/k"], ttl)
    table.hold("victim", ["/h"], strict=False)
    results.put([lease.token for lease in table.snapshot()])
    ready.set()
    threading.Event().wait(PATIENCE)


def release_on_cue(database: str, workspace: str, ready: Any, cue: Any) -> None:
    """Hold ``/w`` until ``cue``, then release it."""
    table = _table(database, workspace)
    table.try_acquire("other", ["/w"], 60)
    ready.set()
    cue.wait(PATIENCE)
    table.release("other")
