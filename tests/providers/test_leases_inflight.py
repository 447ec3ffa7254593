"""Leases: a mutating call is judged when it is forwarded, and held while it runs.

Issue 26, item 6.  A batch used to be checked whole and then forwarded, so a
write queued behind a slow call landed on a lease another agent took in
between (and, in strict mode, after the writer's own lease ran out).  These
tests hold the first call of a batch at a gate (a real thread and a
``threading.Event``, never a sleep), change the lease table while it waits,
and open the gate: the write is judged on the table as it is then.  The second
table holds the *write* at the gate and has another agent reach for what it
writes.
"""

from __future__ import annotations

import json
import threading
from typing import Any, Callable, Sequence

from mcp_client.leases import LeaseTable, Leases
from mcp_client.provider import parse_arguments
from mcp_client.types import ToolMessage

from ..base import LeakCheckingTestCase
from ..tables import add_rows

ROOT = "/srv/work"
ROOTS = {"fs": ROOT, "lock": ROOT, "": ROOT}
GATE_SECONDS = 10.0


def call(ident: str, name: str, arguments: Any) -> dict[str, Any]:
    return {"id": ident, "type": "function", "function": {"name": name, "arguments": arguments}}


def content(result: ToolMessage) -> Any:
    try:
        return json.loads(result["content"])
    except ValueError:
        return result["content"]


class Gated:
    """A provider whose ``slow`` calls (and, when asked, its first write) wait at a gate.

    ``slow`` and ``fs_read`` are annotated read-only; ``fs_write`` is enforced by
    name.  Every write that reaches it is recorded in :attr:`landed`.
    """

    def __init__(self, *, gate_first_write: bool = False, fail: bool = False) -> None:
        self.entered = threading.Event()
        self.gate = threading.Event()
        self.landed: list[Any] = []
        self.batches: list[list[str]] = []
        self._gate_write = gate_first_write
        self._fail = fail
        self._lock = threading.Lock()

    def tools_for_llm(self) -> list[dict[str, Any]]:
        return [{"type": "function", "function": {"name": n, "parameters": {"type": "object"}}}
                for n in ("slow", "fs_read", "fs_write")]

    def tool_annotations(self, name: str) -> dict[str, Any] | None:
        return {"readOnlyHint": True} if name in ("slow", "fs_read") else None

    def _wait_here(self, name: str) -> bool:
        with self._lock:
            gated = name == "slow" or (name == "fs_write" and self._gate_write)
            if name == "fs_write":
                self._gate_write = False
        if gated:
            self.entered.set()
            return self.gate.wait(GATE_SECONDS)
        return True

    def execute_tool_calls(self, calls: list[Any]) -> list[dict[str, Any]]:
        with self._lock:
            self.batches.append([c["function"]["name"] for c in calls])
        answers = []
        for c in calls:
            name = c["function"]["name"]
            opened = self._wait_here(name)
            if self._fail:
                raise RuntimeError("the provider broke")
            if name == "fs_write":
                with self._lock:
                    self.landed.append(parse_arguments(c["function"]["arguments"]).get("path"))
            answers.append({"role": "tool", "tool_call_id": c["id"],
                            "content": "done" if opened else "gate never opened",
                            "is_error": not opened})
        return answers


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class World:
    """Agent ``A`` over a gated provider, agent ``B`` beside it, one table and one clock."""

    def __init__(self, *, strict: bool = False, gate_first_write: bool = False,
                 fail: bool = False) -> None:
        self.clock = Clock()
        self.table = LeaseTable(clock=self.clock)
        self.live = [2 if strict else 1]
        self.inner = Gated(gate_first_write=gate_first_write, fail=fail)
        self.waiting = threading.Event()
        self.a = Leases(self.inner, self.table, "A", roots=ROOTS,
                        concurrent=lambda: self.live[0])
        self.b_inner = Gated()
        self.b = Leases(self.b_inner, self.table, "B", roots=ROOTS,
                        concurrent=lambda: self.live[0], on_wait_begin=self.waiting.set)
        self.results: list[ToolMessage] = []
        self.thread: threading.Thread | None = None

    def start(self, batch: Sequence[dict[str, Any]]) -> None:
        """Run ``batch`` as agent A in a thread, and return once a call waits at the gate."""
        self.thread = threading.Thread(target=lambda: self.results.extend(
            self.a.execute_tool_calls(list(batch))), name="agent-A-batch")
        self.thread.start()
        if not self.inner.entered.wait(GATE_SECONDS):
            raise AssertionError("no call reached the gate")

    def finish(self) -> list[ToolMessage]:
        self.inner.gate.set()
        assert self.thread is not None
        self.thread.join(GATE_SECONDS)
        if self.thread.is_alive():
            raise AssertionError("agent A's batch did not finish")
        return self.results

    def acquire(self, agent: Leases, path: Any, **extra: Any) -> Any:
        paths = path if isinstance(path, list) else [path]
        got = agent.execute_tool_calls([call("acq", "lock_acquire",
                                             {"paths": paths, "wait": 0, **extra})])
        return content(got[0])

    def release(self, agent: Leases) -> None:
        agent.execute_tool_calls([call("rel", "lock_release", {})])


def write(path: Any, ident: str = "w") -> dict[str, Any]:
    return call(ident, "fs_write", {} if path is None else {"path": path, "content": "x"})


# -- table 1: what happens while the call before the write waits --------------------

def _op(world: World, op: str) -> None:
    """One step another agent (or the clock) takes while A's slow call waits."""
    verb, _, arg = op.partition(":")
    if verb == "B":             # B claims a path (wait 0: never blocks this thread)
        world.acquire(world.b, arg)
    elif verb == "Bttl":        # B claims a path for one second
        world.acquire(world.b, arg, ttl=1)
    elif verb == "Brelease":
        world.release(world.b)
    elif verb == "A":           # A's own claim, from another of A's threads
        world.acquire(world.a, arg)
    elif verb == "Arelease":
        world.release(world.a)
    elif verb == "expire":      # every lease of ttl <= 1000 s runs out
        world.clock.now += 1000
    elif verb == "agents":      # how many agents are live from now on
        world.live[0] = int(arg)
    else:
        raise AssertionError(f"unknown step {op!r}")


def check_queued(self: LeakCheckingTestCase, label: str, strict: bool,
                 held: str | None, writes: Sequence[Any], ops: Sequence[str],
                 expected: Sequence[str]) -> None:
    """A holds ``held`` (ttl 100), runs [slow, *writes]; ``ops`` happen during ``slow``."""
    world = World(strict=strict)
    if held is not None:
        self.assertTrue(world.acquire(world.a, held, ttl=100)["acquired"])
    world.start([call("s", "slow", {})] + [write(p, f"w{i}") for i, p in enumerate(writes)])
    for op in ops:
        _op(world, op)
    results = world.finish()
    self.assertEqual(len(results), 1 + len(writes))
    self.assertFalse(results[0]["is_error"])
    outcomes = []
    for result in results[1:]:
        text = result["content"]
        if not result["is_error"]:
            outcomes.append("lands")
        elif "leased by B" in text or "cannot be shown to miss" in text:
            outcomes.append("leased")
        elif "Call lock_acquire" in text:
            outcomes.append("teach")
        else:
            outcomes.append(f"other: {text}")
    self.assertEqual(outcomes, list(expected), label)
    landed = [p for p, outcome in zip(writes, expected) if outcome == "lands"]
    self.assertEqual(world.inner.landed, landed)   # a refused write never reached the server
    self.assertEqual(world.table.holds(), [])      # every hold ended with its answer


X = "src/app.py"
QUEUED_ROWS: list[tuple[str, bool, str | None, list[Any], list[str], list[str]]] = [
    # label, strict, A holds, writes after the slow call, steps during it, expected
    ("default: nothing happens, the write lands", False, None, [X], [], ["lands"]),
    ("default: B takes the file, the write is refused", False, None, [X], [f"B:{X}"],
     ["leased"]),
    ("default: B takes the folder above", False, None, [X], ["B:src"], ["leased"]),
    ("default: B takes the whole root", False, None, [X], ["B:."], ["leased"]),
    ("default: B takes the file by its absolute path", False, None, [X],
     [f"B:{ROOT}/{X}"], ["leased"]),
    ("default: B takes the file spelt in other case", False, None, [X], ["B:SRC/App.py"],
     ["leased"]),
    ("default: B takes a file below the folder written", False, None, ["src"], [f"B:{X}"],
     ["leased"]),
    ("default: B takes a sibling, the write lands", False, None, [X], ["B:src/other.py"],
     ["lands"]),
    ("default: B takes the file and gives it back", False, None, [X],
     [f"B:{X}", "Brelease"], ["lands"]),
    ("default: B's lease on the file runs out", False, None, [X], [f"Bttl:{X}", "expire"],
     ["lands"]),
    ("default: B takes the file, A writes elsewhere", False, None, ["docs/readme.md"],
     [f"B:{X}"], ["lands"]),
    ("default: A holds the file, B cannot take it", False, X, [X], [f"B:{X}"], ["lands"]),
    ("default: A's lease runs out, B takes the file", False, X, [X], ["expire", f"B:{X}"],
     ["leased"]),
    ("default: A lets go, B takes the file", False, X, [X], ["Arelease", f"B:{X}"],
     ["leased"]),
    ("default: a write that names no path, B takes anything", False, None, [None],
     ["B:docs"], ["leased"]),
    ("default: the second of two writes is taken", False, None, [X, "docs/a.md"],
     ["B:docs"], ["lands", "leased"]),
    ("default: the first of two writes is taken", False, None, [X, "docs/a.md"],
     [f"B:{X}"], ["leased", "lands"]),
    ("strict: A's lease holds, the write lands", True, X, [X], [], ["lands"]),
    ("strict: A's lease runs out mid-batch", True, X, [X], ["expire"], ["teach"]),
    ("strict: A's lease runs out and B takes the file", True, X, [X], ["expire", f"B:{X}"],
     ["leased"]),
    ("strict: A lets go mid-batch", True, X, [X], ["Arelease"], ["teach"]),
    ("strict: A lets go and B takes the file", True, X, [X], ["Arelease", f"B:{X}"],
     ["leased"]),
    ("strict: A's folder lease runs out", True, "src", [X], ["expire"], ["teach"]),
    ("strict: A's folder lease holds", True, "src", [X, "src/b.py"], [],
     ["lands", "lands"]),
    ("strict: A renews before its lease runs out", True, X, [X], [f"A:{X}"], ["lands"]),
    ("strict: A takes the file again after it ran out", True, X, [X], ["expire", f"A:{X}"],
     ["lands"]),
    ("strict: B takes a sibling", True, X, [X], ["B:src/other.py"], ["lands"]),
    ("strict: B cannot take what A holds", True, X, [X], [f"B:{X}"], ["lands"]),
    ("strict: A holds nothing", True, None, [X], [], ["teach"]),
    ("strict: a second agent arrives mid-batch", False, None, [X], ["agents:2"], ["teach"]),
    ("strict: a lease over one of two writes runs out", True, "src", [X, "docs/a.md"],
     ["expire"], ["teach", "teach"]),
    ("strict: a write that names no path", True, X, [None], [], ["teach"]),
]


class QueuedWriteTable(LeakCheckingTestCase):
    """A write queued behind a slow call is judged when its turn comes."""


add_rows(QueuedWriteTable, "queued", QUEUED_ROWS, check_queued)


# -- table 2: what others may do while the write itself runs -------------------------

def _during(world: World, op: str) -> str:
    """One step by another agent while A's write is in flight; its outcome, in a word."""
    verb, _, arg = op.partition(":")
    if verb in ("B", "A"):
        agent = world.b if verb == "B" else world.a
        answer = world.acquire(agent, arg.split(",") if "," in arg else arg)
        return "granted" if answer["acquired"] else f"refused by {answer['holder']}"
    if verb in ("Bwrite", "Awrite", "Bread"):
        agent = world.a if verb == "Awrite" else world.b
        tool = "fs_read" if verb == "Bread" else "fs_write"
        got = agent.execute_tool_calls([call("o", tool, {"path": arg})])[0]
        return "refused" if got["is_error"] else "lands"
    if verb == "expire":
        world.clock.now += 1000
        return "-"
    if verb == "Arelease":
        world.release(world.a)
        return "-"
    raise AssertionError(f"unknown step {op!r}")


def check_in_flight(self: LeakCheckingTestCase, label: str, strict: bool, held: str | None,
                    path: Any, ops: Sequence[str], expected: Sequence[str]) -> None:
    """A holds ``held``, its write of ``path`` waits at the gate; ``ops`` run meanwhile."""
    world = World(strict=strict, gate_first_write=True)
    if held is not None:
        self.assertTrue(world.acquire(world.a, held, ttl=100)["acquired"])
    world.start([write(path)])
    outcomes = [_during(world, op) for op in ops]
    results = world.finish()
    self.assertEqual(outcomes, list(expected), label)
    self.assertFalse(results[0]["is_error"], results[0]["content"])
    self.assertEqual(world.table.holds(), [])   # once the answer is in, nothing is held


IN_FLIGHT_ROWS: list[tuple[str, bool, str | None, Any, list[str], list[str]]] = [
    # label, strict, A holds, A writes, steps while the write runs, their outcomes
    ("B claims the file being written", False, None, X, [f"B:{X}"], ["refused by A"]),
    ("B claims the folder above it", False, None, X, ["B:src"], ["refused by A"]),
    ("B claims the root", False, None, X, ["B:."], ["refused by A"]),
    ("B claims it spelt in other case", False, None, X, ["B:SRC/APP.PY"], ["refused by A"]),
    ("B claims a file below a folder being written", False, None, "src", [f"B:{X}"],
     ["refused by A"]),
    ("B claims a sibling", False, None, X, ["B:src/other.py"], ["granted"]),
    ("B claims a sibling and the file: all or nothing", False, None, X,
     [f"B:src/other.py,{X}", "B:src/other.py"], ["refused by A", "granted"]),
    ("A claims its own file from another thread", False, None, X, [f"A:{X}"], ["granted"]),
    ("A writes its own file again from another thread", False, None, X, [f"Awrite:{X}"],
     ["lands"]),
    ("B writes the file being written", False, None, X, [f"Bwrite:{X}"], ["refused"]),
    ("B writes the folder above it", False, None, X, ["Bwrite:src"], ["refused"]),
    ("B writes a sibling", False, None, X, ["Bwrite:src/other.py"], ["lands"]),
    ("B reads the file being written", False, None, X, [f"Bread:{X}"], ["lands"]),
    ("a write naming no path holds everything", False, None, None, ["B:docs"],
     ["refused by A"]),
    ("a write naming no path: B's write elsewhere waits its turn", False, None, None,
     ["Bwrite:docs/a.md"], ["refused"]),
    ("strict: A's lease runs out mid-write, B claims the file", True, X, X,
     ["expire", f"B:{X}"], ["-", "refused by A"]),
    ("strict: A lets go mid-write, B claims the file", True, X, X,
     ["Arelease", f"B:{X}"], ["-", "refused by A"]),
    ("strict: B claims a sibling", True, X, X, ["B:src/other.py"], ["granted"]),
]


class InFlightTable(LeakCheckingTestCase):
    """What a write touches is held until its answer is in."""


add_rows(InFlightTable, "in_flight", IN_FLIGHT_ROWS, check_in_flight)


# -- the single cases ------------------------------------------------------------------

class InFlightTest(LeakCheckingTestCase):
    def test_a_claim_with_a_wait_waits_for_the_write_and_then_gets_it(self) -> None:
        world = World(gate_first_write=True)
        world.start([write(X)])
        answer: list[dict[str, Any]] = []
        claimer = threading.Thread(target=lambda: answer.append(
            world.acquire(world.b, X, wait=30)), name="agent-B-claim")
        claimer.start()
        self.assertTrue(world.waiting.wait(GATE_SECONDS))   # B is waiting, not refused
        self.assertEqual(answer, [])
        world.finish()
        claimer.join(GATE_SECONDS)
        self.assertFalse(claimer.is_alive())
        self.assertTrue(answer[0]["acquired"])
        self.assertEqual(world.inner.landed, [X])

    def test_the_refusal_names_the_call_in_flight(self) -> None:
        world = World(gate_first_write=True)
        world.start([write(X)])
        answer = world.acquire(world.b, X)
        world.finish()
        self.assertEqual((answer["acquired"], answer["holder"], answer["path"]),
                         (False, "A", f"{ROOT}/{X}"))
        self.assertIn("in flight", answer["hint"])

    def test_a_provider_that_raises_still_ends_the_hold(self) -> None:
        world = World(fail=True)
        world.inner.gate.set()
        with self.assertRaises(RuntimeError):   # a provider that breaks its contract
            world.a.execute_tool_calls([write(X)])
        self.assertEqual(world.table.holds(), [])
        self.assertTrue(world.acquire(world.b, X)["acquired"])

    def test_writes_go_one_at_a_time_reads_still_go_together(self) -> None:
        world = World()
        world.inner.gate.set()
        world.a.execute_tool_calls([call("1", "fs_read", {"path": "a"}),
                                    call("2", "fs_read", {"path": "b"}), write("c", "3"),
                                    write("d", "4"), call("5", "slow", {})])
        self.assertEqual(world.inner.batches,
                         [["fs_read", "fs_read"], ["fs_write"], ["fs_write"], ["slow"]])

    def test_the_table_shows_holds(self) -> None:
        world = World(gate_first_write=True)
        world.start([write(X)])
        holds = world.table.holds()
        shown = repr(world.table)
        world.finish()
        self.assertEqual([(h.holder, h.path) for h in holds], [("A", f"{ROOT}/{X}")])
        self.assertIn("in_flight=1", shown)
        self.assertEqual(world.table.snapshot(), [])   # a hold is not a lease


# -- through a real client and an SDK server -------------------------------------------

def sdk_world(gate: threading.Event, entered: threading.Event,
              written: list[str]) -> Any:
    """An SDK server with a gated read-only ``slow`` tool and a ``write_file`` tool."""
    import anyio
    from mcp.server.mcpserver import MCPServer
    from mcp_types import ToolAnnotations

    server = MCPServer("gated")

    @server.tool(annotations=ToolAnnotations(read_only_hint=True))
    async def slow() -> str:
        entered.set()
        opened = await anyio.to_thread.run_sync(gate.wait, GATE_SECONDS)
        return "slept" if opened else "gate never opened"

    @server.tool()
    def write_file(path: str, content: str) -> str:
        written.append(path)
        return "written"

    return server


class ThroughAClientTest(LeakCheckingTestCase):
    def run_batch(self, **options: Any) -> tuple[list[ToolMessage], list[str], Any]:
        from mcp_client.local import LocalServer

        gate, entered = threading.Event(), threading.Event()
        written: list[str] = []
        local = LocalServer(sdk_world(gate, entered, written), **options)
        self.addCleanup(local.close)
        table = LeaseTable()
        a = Leases(local, table, "A", roots={"": ROOT})
        b = Leases(Gated(), table, "B", roots={"": ROOT})
        results: list[ToolMessage] = []
        runner = threading.Thread(target=lambda: results.extend(a.execute_tool_calls(
            [call("1", "slow", {}), call("2", "write_file", {"path": X, "content": "x"})])),
            name="agent-A-batch")
        runner.start()
        self.assertTrue(entered.wait(GATE_SECONDS))
        claim = b.execute_tool_calls([call("3", "lock_acquire", {"paths": [X], "wait": 0})])
        gate.set()
        runner.join(GATE_SECONDS)
        self.assertFalse(runner.is_alive())
        return results, written, content(claim[0])

    def test_the_write_behind_a_slow_call_is_refused(self) -> None:
        results, written, claim = self.run_batch()
        self.assertTrue(claim["acquired"])
        self.assertFalse(results[0]["is_error"])
        self.assertTrue(results[1]["is_error"])
        self.assertIn("leased by B", results[1]["content"])
        self.assertEqual(written, [])

    def test_also_when_the_client_would_run_them_together(self) -> None:
        results, written, claim = self.run_batch(parallel_tools=["slow", "write_file"])
        self.assertTrue(claim["acquired"])
        self.assertTrue(results[1]["is_error"])
        self.assertEqual(written, [])


def _unused(_: Callable[..., Any]) -> None:   # pragma: no cover - keeps imports honest
    pass
