"""One human's grant book shared across processes: the books, Grants(store=...), real processes.

The process tests run a small worker (``WORKER``) per process, driven line by
line over stdin and answering JSON lines on stdout; they synchronise on what
the workers say (``asking``, ``waiting``, ``result``), never on sleeps.
"""

from __future__ import annotations

import json
import os
import pickle
import select
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from mcp_client import MCPClientError
from mcp_client.exceptions import InvalidArgument, StoreError, StoreUnavailable
from mcp_client.leases import LeaseTable
from mcp_client.policy import (REFUSED, GrantBook, GrantBookError, Grants, MemoryBook, Policy,
                               SQLiteBook)
from mcp_client.policy._book import SCHEMA_VERSION, Holder
from mcp_client.policy._grants import _FleetQuestion
from mcp_client.policy.rules import compile_rule
from mcp_client.store import open_store
from mcp_client.types import ToolMessage

from ..base import LeakCheckingTestCase
from .test_policy import FakeProvider, call

WAIT = 20.0
ROOT = str(Path(__file__).resolve().parents[2])
WRITE = {"tool": "fs_write", "decision": "allow", "under": "/srv/work"}

WORKER = r'''
import json, logging, sys
from mcp_client.policy import Grants, Policy
from mcp_client.store import open_store
from mcp_client.policy.rules import compile_rule
from mcp_client.types import ToolMessage

path, agent = sys.argv[1], sys.argv[2]

class Provider:
    def tools_for_llm(self):
        return [{"type": "function", "function": {"name": "fs_write", "description": "w",
                                                  "parameters": {"type": "object"}}}]
    def tool_annotations(self, name):
        return None
    def execute_tool_calls(self, calls):
        return [{"role": "tool", "tool_call_id": c["id"], "content": "ran", "is_error": False}
                for c in calls]

def say(**fields):
    sys.stdout.write(json.dumps(fields) + "\n")
    sys.stdout.flush()

class Tell(logging.Handler):
    def emit(self, record):
        if "waiting for the question lease" in record.getMessage():
            say(event="waiting")

asked = 0
mode = "deny-once"

def on_ask(question):
    global asked
    asked += 1
    if mode == "hold":
        say(event="asking", tool=question["tool"])
        return sys.stdin.readline().strip()
    return mode

grants = Grants(store=open_store(path), agent=agent)   # the fleet store's own book
asking = Policy(Provider(), on_ask=on_ask, grants_store=grants, roots={"fs": "/srv"})
headless = Policy(Provider(), grants_store=grants, roots={"fs": "/srv"})
logger = logging.getLogger("mcp_client.policy._grants")
logger.setLevel(logging.DEBUG)
logger.addHandler(Tell())
say(event="ready")
while True:
    line = sys.stdin.readline()
    command, _, rest = line.strip().partition(" ")
    if command == "decide":
        mode, target = rest.split(" ", 1)
        policy = headless if mode == "none" else asking
        arguments = json.dumps({"path": target})
        [result] = policy.execute_tool_calls([{"id": "c1", "type": "function", "function": {
            "name": "fs_write", "arguments": arguments}}])
        say(event="result", ran=not result["is_error"], content=result["content"], asked=asked)
    elif command == "add":
        rule = compile_rule(json.loads(rest), 0, where="grant")
        added = sum(grants.add([rule]) for _ in range(20))
        say(event="added", added=added)
    elif command == "revoke":
        say(event="revoked", rule=grants.revoke(int(rest)))
    else:
        break
'''


class Worker:
    """One worker process: send it a line, read what it says (bounded by ``WAIT``)."""

    def __init__(self, path: str, agent: str) -> None:
        env = {**os.environ, "PYTHONPATH": ROOT}
        self.process = subprocess.Popen([sys.executable, "-c", WORKER, path, agent],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        bufsize=0, env=env)
        self._buffer = b""

    @property
    def pid(self) -> int:
        return self.process.pid

    def send(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line.encode() + b"\n")

    def expect(self, event: str) -> dict[str, Any]:
        """The next message whose ``event`` is ``event`` (earlier ones are skipped)."""
        assert self.process.stdout is not None
        deadline = time.monotonic() + WAIT
        while True:
            line, newline, rest = self._buffer.partition(b"\n")
            if newline:
                self._buffer = rest
                message: dict[str, Any] = json.loads(line)
                if message["event"] == event:
                    return message
                continue
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.process.stdout], [], [], left)[0]:
                raise AssertionError(f"worker {self.pid} did not say {event!r}")
            chunk = os.read(self.process.stdout.fileno(), 65536)
            if not chunk:
                raise AssertionError(f"worker {self.pid} ended before saying {event!r}")
            self._buffer += chunk

    def close(self) -> None:
        if self.process.poll() is None:
            try:
                self.send("quit")
            except OSError:
                pass
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                stream.close()
        try:
            self.process.wait(WAIT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


class SQLiteStore:
    """The least a store needs for Grants: ``book(name)``."""

    def __init__(self, path: str, timeout: float = 5.0) -> None:
        self.path = path
        self.timeout = timeout

    def book(self, name: str) -> GrantBook:
        return SQLiteBook(self.path, name, timeout=self.timeout)


def dead_pid() -> int:
    """A pid that ran on this host and has been reaped."""
    done = subprocess.Popen([sys.executable, "-c", "pass"])
    done.wait()
    return done.pid


class TempCase(LeakCheckingTestCase):
    def setUp(self) -> None:
        super().setUp()
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        self.path = os.path.join(folder.name, "grants.db")


# -- the books -------------------------------------------------------------------------------


class BookContract(TempCase):
    """What every GrantBook does (run against each engine)."""

    __test__ = False

    def book(self) -> GrantBook:
        raise NotImplementedError

    def test_add_is_idempotent_and_keeps_order(self) -> None:
        book = self.book()
        self.assertIsInstance(book, GrantBook)
        first = {"tool": "a", "decision": "allow"}
        self.assertEqual(book.add([first, {"tool": "b", "decision": "deny"}]),
                         [first, {"tool": "b", "decision": "deny"}])
        self.assertEqual(book.add([{"decision": "allow", "tool": "a"}]), [])   # same grant
        self.assertEqual(book.rules(), [first, {"tool": "b", "decision": "deny"}])
        self.assertEqual(len(book.history()), 2)

    def test_revoke_by_index_and_by_rule(self) -> None:
        book = self.book()
        book.add([{"tool": "a", "decision": "allow"}, {"tool": "b", "decision": "allow"},
                  {"tool": "c", "decision": "deny"}])
        self.assertEqual(book.revoke(1), {"tool": "b", "decision": "allow"})
        self.assertEqual(book.revoke({"decision": "deny", "tool": "c"}),
                         {"tool": "c", "decision": "deny"})
        self.assertIsNone(book.revoke(5))
        self.assertIsNone(book.revoke({"tool": "z", "decision": "allow"}))
        self.assertEqual(book.rules(), [{"tool": "a", "decision": "allow"}])

    def test_history_records_who_when_and_the_question(self) -> None:
        book = self.book()
        before = time.time()
        book.add([WRITE], agent="planner", question={"tool": "fs_write", "why": "asked"})
        book.revoke(0, agent="operator")
        [granted, revoked] = book.history()
        self.assertEqual(granted, {"event": "grant", "rule": WRITE, "decision": "allow",
                                   "at": granted["at"], "agent": "planner",
                                   "host": socket.gethostname(), "pid": os.getpid(),
                                   "question": {"tool": "fs_write", "why": "asked"}})
        self.assertIsInstance(granted["at"], float)
        self.assertGreaterEqual(granted["at"], before)
        self.assertEqual((revoked["event"], revoked["agent"], revoked["question"]),
                         ("revoke", "operator", None))

    def test_the_question_lease_has_one_holder(self) -> None:
        book, me, other = self.book(), Holder.mine(), Holder.mine()
        self.assertFalse(book.question_open())
        self.assertTrue(book.acquire_question(me, 60))
        self.assertTrue(book.question_open())
        self.assertFalse(book.acquire_question(other, 60))
        self.assertTrue(book.acquire_question(me, 60))           # one's own: refreshed
        self.assertTrue(book.renew_question(me, 60))
        self.assertFalse(book.renew_question(other, 60))
        book.release_question(other)                            # not theirs: nothing happens
        self.assertTrue(book.question_open())
        book.release_question(me)
        self.assertFalse(book.question_open())
        self.assertTrue(book.acquire_question(other, 60))
        book.release_question(other)

    def test_an_expired_lease_is_free(self) -> None:
        book, me, other = self.book(), Holder.mine(), Holder.mine()
        self.assertTrue(book.acquire_question(me, 0))
        self.assertFalse(book.question_open())
        self.assertTrue(book.acquire_question(other, 60))
        self.assertFalse(book.renew_question(me, 60))
        book.release_question(other)

    def test_a_dead_holder_is_gone_at_once(self) -> None:
        book = self.book()
        ghost = Holder(socket.gethostname(), dead_pid(), 1)
        self.assertTrue(ghost.gone())
        self.assertTrue(book.acquire_question(ghost, 600))
        self.assertFalse(book.question_open())
        finished = threading.Thread(target=lambda: None, name="grants-test-finished")
        finished.start()
        finished.join()
        assert finished.ident is not None
        self.assertTrue(Holder(socket.gethostname(), os.getpid(), finished.ident).gone())
        self.assertFalse(Holder("another-host.invalid", 1, 1).gone())   # never assumed
        me = Holder.mine()
        self.assertTrue(book.acquire_question(me, 600))
        book.release_question(me)


class MemoryBookTest(BookContract):
    __test__ = True

    def book(self) -> GrantBook:
        return MemoryBook()


class SQLiteBookTest(BookContract):
    __test__ = True

    def book(self) -> GrantBook:
        return SQLiteBook(self.path, "default", timeout=0.2)

    def test_the_schema_is_versioned_and_books_are_separate(self) -> None:
        SQLiteBook(self.path, "a").add([WRITE])
        self.assertEqual(SQLiteBook(self.path, "b").rules(), [])
        with sqlite3.connect(self.path) as db:
            self.assertEqual(db.execute("SELECT version FROM mcp_grant_schema").fetchall(),
                             [(SCHEMA_VERSION,)])
            self.assertEqual(db.execute("PRAGMA journal_mode").fetchone(), ("wal",))
            db.execute("UPDATE mcp_grant_schema SET version = ?", (SCHEMA_VERSION + 1,))
        with self.assertRaises(GrantBookError) as caught:
            SQLiteBook(self.path, "a").rules()
        self.assertIn(self.path, str(caught.exception))
        self.assertIn("newer", str(caught.exception))

    def test_a_locked_file_fails_within_the_bound_and_loses_nothing(self) -> None:
        book = self.book()
        book.add([WRITE])
        holder = sqlite3.connect(self.path, isolation_level=None)
        self.addCleanup(holder.close)
        holder.execute("BEGIN EXCLUSIVE")
        for write in (lambda: book.add([{"tool": "x", "decision": "allow"}]),
                      lambda: book.acquire_question(Holder.mine(), 1)):
            with self.subTest(write), self.assertRaises(GrantBookError) as caught:
                write()
            self.assertIsInstance(caught.exception, MCPClientError)
            self.assertIn(self.path, str(caught.exception))
            self.assertIn("locked", str(caught.exception))
        self.assertEqual(book.rules(), [WRITE])                 # WAL: committed reads go on
        holder.execute("ROLLBACK")
        self.assertEqual(book.add([{"tool": "x", "decision": "allow"}]),
                         [{"tool": "x", "decision": "allow"}])

    def test_an_unreadable_file_fails_and_comes_back(self) -> None:
        book = self.book()
        book.add([WRITE])
        os.rename(self.path, self.path + ".away")
        os.mkdir(self.path)                                       # (the tests may run as root)
        with self.assertRaises(GrantBookError) as caught:
            book.rules()
        self.assertEqual(caught.exception.where, f"sqlite:{self.path} book 'default'")
        os.rmdir(self.path)
        os.rename(self.path + ".away", self.path)
        self.assertEqual(book.rules(), [WRITE])


# -- Grants over a book ----------------------------------------------------------------------


class SharedGrantsTest(TempCase):
    def policy(self, grants: Grants, **options: Any) -> Policy:
        return Policy(FakeProvider(), grants_store=grants, roots={"fs": "/srv"}, **options)

    def assertRefused(self, result: ToolMessage, *parts: str) -> None:
        self.assertTrue(result["is_error"], result)
        self.assertTrue(result["content"].startswith(REFUSED), result)
        for part in parts:
            self.assertIn(part, result["content"])

    def test_without_a_store_the_book_is_in_memory(self) -> None:
        grants = Grants([WRITE], agent="solo")
        self.assertFalse(grants.shared)
        self.assertEqual(repr(grants), "<Grants 1 grants>")
        self.assertEqual([rule.source for rule in grants.rules()], [WRITE])
        self.assertEqual(grants.revoke(0), WRITE)
        self.assertEqual(grants.rules(), [])                    # nothing kept past a change
        self.assertEqual([r["event"] for r in grants.history()], ["grant", "revoke"])
        with self.assertRaises(InvalidArgument):
            grants.revoke(0)
        with self.assertRaises(InvalidArgument):
            Grants(store=object())        # type: ignore[arg-type]

    def test_every_decision_reads_the_book(self) -> None:
        one = Grants(store=SQLiteStore(self.path), agent="one")
        two = Grants([WRITE], store=SQLiteStore(self.path))
        Grants([WRITE], store=SQLiteStore(self.path))            # the same start: one grant
        self.assertEqual((one.grants, len(one)), ([WRITE], 1))
        reader = self.policy(one)
        self.assertFalse(reader.execute_tool_calls([call("fs_write", {"path": "/srv/work/a"})])
                         [0]["is_error"])
        self.assertEqual(two.revoke(dict(WRITE)), WRITE)
        self.assertRefused(reader.execute_tool_calls([call("fs_write",
                                                           {"path": "/srv/work/a"})])[0],
                           "nobody to ask")
        self.assertIn("grants.db book 'default'", repr(one))

    def test_nothing_shared_widens_a_deny_or_the_floor(self) -> None:
        grants = Grants([{"tool": "*", "decision": "allow"}], store=SQLiteStore(self.path))
        policy = self.policy(grants, rules=[{"tool": "fs_delete", "decision": "deny"}])
        [deleted, outside, inside] = policy.execute_tool_calls([
            call("fs_delete", {"path": "/srv/work/a"}, "d"),
            call("fs_write", {"path": "/etc/passwd"}, "o"),
            call("fs_write", {"path": "/srv/work/a"}, "i")])
        self.assertRefused(deleted, "denied by rule 0")
        self.assertRefused(outside, "nobody to ask", "danger floor")
        self.assertFalse(inside["is_error"])

    def test_an_answer_is_audited_with_its_question(self) -> None:
        grants = Grants(store=SQLiteStore(self.path), agent="planner")
        policy = self.policy(grants, on_ask=lambda question: "always-allow")
        self.assertFalse(policy.execute_tool_calls([call("fs_write", {"path": "/srv/work/a"})])
                         [0]["is_error"])
        [record] = grants.history()
        self.assertEqual((record["rule"], record["agent"], record["pid"]),
                         (WRITE, "planner", os.getpid()))
        self.assertEqual((record["question"]["kind"], record["question"]["tool"]),
                         ("permission", "fs_write"))
        self.assertFalse(SQLiteBook(self.path).question_open())    # released after the answer

    def test_a_grant_that_does_not_validate_fails_closed(self) -> None:
        grants = Grants(store=SQLiteStore(self.path))
        SQLiteBook(self.path).add([{"tool": "fs_write", "decision": "allow", "bogus": 1}])
        result = self.policy(grants).execute_tool_calls([call("fs_write",
                                                              {"path": "/srv/work/a"})])[0]
        self.assertRefused(result, "GrantBookError", "grant 0 does not validate")

    def test_a_locked_book_never_allows_and_recovers(self) -> None:
        grants = Grants([{"tool": "fs_read", "decision": "allow"}],
                        store=SQLiteStore(self.path, timeout=0.2))
        asked: list[dict[str, Any]] = []

        def ask(question: dict[str, Any]) -> str:
            asked.append(question)
            return "always-allow"

        policy = self.policy(grants, on_ask=ask)
        holder = sqlite3.connect(self.path, isolation_level=None)
        self.addCleanup(holder.close)
        holder.execute("BEGIN EXCLUSIVE")
        result = policy.execute_tool_calls([call("fs_write", {"path": "/srv/work/a"})])[0]
        self.assertRefused(result, "could not decide", self.path, "locked")
        self.assertEqual(asked, [])
        self.assertEqual(policy.elicit_hook({"method": "elicitation/create"}),
                         {"action": "decline"})
        holder.execute("ROLLBACK")
        self.assertFalse(policy.execute_tool_calls([call("fs_write", {"path": "/srv/work/a"})])
                         [0]["is_error"])
        self.assertEqual(len(asked), 1)
        self.assertEqual(grants.grants, [{"tool": "fs_read", "decision": "allow"}, WRITE])

    def test_an_unreadable_book_never_allows_and_recovers(self) -> None:
        grants = Grants([WRITE], store=SQLiteStore(self.path, timeout=0.2))
        policy = self.policy(grants)
        os.rename(self.path, self.path + ".away")
        os.mkdir(self.path)
        result = policy.execute_tool_calls([call("fs_write", {"path": "/srv/work/a"})])[0]
        self.assertRefused(result, "could not decide", self.path)
        self.assertIn("<Grants unavailable", repr(grants))
        self.assertIn("grants=? shared-book", repr(policy))
        os.rmdir(self.path)
        os.rename(self.path + ".away", self.path)
        self.assertFalse(policy.execute_tool_calls([call("fs_write", {"path": "/srv/work/a"})])
                         [0]["is_error"])


class RenewCounting(MemoryBook):
    """A memory book that says when its question lease was renewed."""

    def __init__(self) -> None:
        super().__init__()
        self.renewed = threading.Event()

    def renew_question(self, holder: Holder, ttl: float) -> bool:
        renewed = super().renew_question(holder, ttl)
        self.renewed.set()
        return renewed


class FleetQuestionTest(TempCase):
    def test_the_lease_is_renewed_while_open_and_released_after(self) -> None:
        book = RenewCounting()
        question = _FleetQuestion(book, ttl=0.06)
        self.assertTrue(question.enter())
        try:
            self.assertFalse(question.enter())       # the same thread: refused, not a deadlock
            self.assertTrue(book.question_open())
            self.assertTrue(book.renewed.wait(WAIT))
            self.assertTrue(book.question_open())
            self.assertIn("mcp-question-lease-", {t.name[:19] for t in threading.enumerate()})
        finally:
            question.leave()
        self.assertFalse(book.question_open())       # and the renewing thread was joined
        self.assertNotIn("mcp-question-lease-", {t.name[:19] for t in threading.enumerate()})


# -- separate processes ----------------------------------------------------------------------


class StoreBookTest(TempCase):
    """The fleet stores hand out their books: ``Grants(store=open_store(url), book=name)``."""

    def test_a_memory_store_has_one_book_per_name(self) -> None:
        with open_store("memory:") as store:
            self.assertIs(store.book("b"), store.book("b"))
            one, two = Grants(store=store, book="b"), Grants(store=store, book="b")
            other = Grants(store=store, book="c")
            one.add([compile_rule(WRITE, 0, where="grant")])
            self.assertEqual((two.grants, other.grants), ([WRITE], []))
            with self.assertRaises(InvalidArgument):
                store.book("")

    def test_an_sqlite_store_keeps_its_books_beside_its_leases(self) -> None:
        table_store = open_store(f"sqlite://{self.path}")
        self.addCleanup(table_store.close)
        table = LeaseTable(store=table_store, workspace="w")
        self.assertIsNone(table.try_acquire("a", ["/srv/work"], 60))
        Grants([WRITE], store=open_store(self.path), agent="one")
        self.assertEqual(Grants(store=table_store).grants, [WRITE])
        self.assertEqual([lease.path for lease in table.snapshot()], ["/srv/work"])
        table_store.close()
        with self.assertRaises(StoreError):
            table_store.book("default")

    def test_a_book_outage_is_a_store_outage(self) -> None:
        error = GrantBookError("sqlite:/x.db book 'default'", "locked")
        self.assertIsInstance(error, StoreUnavailable)
        self.assertEqual((error.store, error.reason, error.where),
                         ("sqlite:/x.db book 'default'", "locked", "sqlite:/x.db book 'default'"))
        self.assertEqual(str(pickle.loads(pickle.dumps(error))), str(error))


class ProcessesTest(TempCase):
    """Every worker is a separate Python process sharing one SQLite book."""

    grace = WAIT

    def store(self) -> Any:
        """What ``Grants(store=...)`` is given to read the workers' book from here."""
        return SQLiteStore(self.path)

    def worker(self, agent: str) -> Worker:
        worker = Worker(self.path, agent)
        self.addCleanup(worker.close)
        worker.expect("ready")
        return worker

    def test_a_grant_made_in_one_process_is_used_by_anothers_next_decision(self) -> None:
        a, b = self.worker("a"), self.worker("b")
        b.send("decide none /srv/work/x")
        self.assertFalse(b.expect("result")["ran"])
        a.send("decide always-allow /srv/work/y")
        self.assertEqual(a.expect("result")["asked"], 1)
        b.send("decide none /srv/work/x")                  # no restart, no poll interval
        self.assertTrue(b.expect("result")["ran"])
        b.send("revoke 0")
        self.assertEqual(b.expect("revoked")["rule"], WRITE)
        a.send("decide none /srv/work/z")
        self.assertFalse(a.expect("result")["ran"])
        records = Grants(store=self.store()).history()
        self.assertEqual([(r["event"], r["agent"], r["pid"]) for r in records],
                         [("grant", "a", a.pid), ("revoke", "b", b.pid)])
        self.assertEqual(records[0]["question"]["arguments"], {"path": "/srv/work/y"})

    def test_two_processes_asking_the_same_question_ask_once(self) -> None:
        a, b = self.worker("a"), self.worker("b")
        a.send("decide hold /srv/work/one")
        a.expect("asking")                                  # a holds the question lease
        b.send("decide deny-once /srv/work/two")
        b.expect("waiting")                                 # b read the book, then waited
        a.send("always-allow")
        self.assertEqual((a.expect("result")["ran"], a.pid > 0), (True, True))
        result = b.expect("result")
        self.assertEqual((result["ran"], result["asked"]), (True, 0))   # b re-read the book
        self.assertEqual(Grants(store=self.store()).grants, [WRITE])

    def test_killing_the_process_that_holds_the_question_frees_it(self) -> None:
        a, b = self.worker("a"), self.worker("b")
        a.send("decide hold /srv/work/one")
        a.expect("asking")
        b.send("decide allow-once /srv/work/two")
        b.expect("waiting")
        started = time.monotonic()
        os.kill(a.pid, signal.SIGKILL)
        a.process.wait(WAIT)
        result = b.expect("result")
        self.assertEqual((result["ran"], result["asked"]), (True, 1))
        self.assertLess(time.monotonic() - started, 10.0)        # not the 15 s TTL
        self.assertFalse(self.store().book("default").question_open())

    def test_the_same_grant_added_by_two_processes_is_one_grant(self) -> None:
        a, b = self.worker("a"), self.worker("b")
        a.send("add " + json.dumps(WRITE))
        b.send("add " + json.dumps(WRITE))
        added = a.expect("added")["added"] + b.expect("added")["added"]
        self.assertEqual(added, 1)
        grants = Grants(store=self.store())
        self.assertEqual(grants.grants, [WRITE])
        self.assertEqual([r["event"] for r in grants.history()], ["grant"])
        self.assertEqual(compile_rule(WRITE, 0, where="grant").source, WRITE)
