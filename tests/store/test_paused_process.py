"""A holder process stopped (SIGSTOP) past its lease's TTL, across real processes.

One files server (``examples/servers/files_server.py --http``) serves two agents.  Agent A
is a child process, its ``Leases`` layer on a shared SQLite store.  It takes a one-second
lease on ``notes.txt`` (fencing token t1), and its layer builds a write that is still on
its way out -- kept below the layer, as a request a process is stopped with -- when A is
stopped with SIGSTOP.  While A is stopped its lease runs out on the store's clock, and
agent B, this process, takes the path (t2 > t1) and writes through the same server.  Then
A is continued: the write it had built reaches the server late, carrying t1, and the
server refuses it by token; a new write of A's is refused by its own layer (the lease is
B's now).  B's work stands.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from mcp_client import Client
from mcp_client.exceptions import MCPClientError
from mcp_client.leases import LEASE_META, Leases, LeaseTable
from mcp_client.registry import Registry
from mcp_client.store import open_store

from ..base import LeakCheckingTestCase

ROOT = Path(__file__).resolve().parents[2]
FILES = ROOT / "examples" / "servers" / "files_server.py"
#: Seconds to wait for something that should happen promptly.
WAIT = 30.0

AGENT = r'''
import json, sys
from mcp_client import Client
from mcp_client.leases import Leases, LeaseTable
from mcp_client.registry import Registry
from mcp_client.store import open_store

store_url, root, url = sys.argv[1:4]
registry = Registry()
registry.add(Client.connect_http(url), prefix="fs", owned=True)


class OnItsWay:
    # Below the layer: keeps the calls it is handed (a request leaving as A stops).
    kept = []

    def tools_for_llm(self):
        return registry.tools_for_llm()

    def tool_annotations(self, name):
        return registry.tool_annotations(name)

    def execute_tool_calls(self, calls):
        self.kept.extend(calls)
        return [{"role": "tool", "tool_call_id": c["id"], "content": "(on its way)",
                 "is_error": False} for c in calls]


table = LeaseTable(store=open_store(store_url), workspace="repo")


def layer(provider):
    return Leases(provider, table, "agent-A", roots={"fs": root, "lock": root},
                  concurrent=lambda: 2)


def say(name, answer, **more):
    print(json.dumps({"call": name, "is_error": answer.get("is_error"),
                      "content": answer["content"], **more}), flush=True)


def call(name, arguments):
    return {"id": name, "type": "function",
            "function": {"name": name, "arguments": json.dumps(arguments)}}


on_its_way = OnItsWay()
say("lock_acquire", layer(registry).execute_tool_calls(
    [call("lock_acquire", {"paths": ["notes.txt"], "ttl": 1, "wait": 0})])[0])
layer(on_its_way).execute_tool_calls([call("fs_write", {"path": "notes.txt",
                                                        "content": "A, late"})])
say("prepared", {"content": ""}, meta=on_its_way.kept[0].get("_meta"))
sys.stdin.readline()          # stopped (SIGSTOP) about here, past the lease's TTL
say("late", registry.execute_tool_calls(on_its_way.kept)[0])
say("fs_write", layer(registry).execute_tool_calls(
    [call("fs_write", {"path": "notes.txt", "content": "A, again"})])[0])
registry.close()
'''


def call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"id": name, "type": "function",
            "function": {"name": name, "arguments": json.dumps(arguments)}}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class PausedProcessTest(LeakCheckingTestCase):
    def read_line(self, agent: subprocess.Popen[str]) -> dict[str, Any]:
        assert agent.stdout is not None
        ready, _, _ = select.select([agent.stdout], [], [], WAIT)
        self.assertTrue(ready, "agent A said nothing")
        line = agent.stdout.readline()
        self.assertTrue(line, "agent A ended")
        said: dict[str, Any] = json.loads(line)
        return said

    def serve(self, root: str) -> tuple[str, Client]:
        """The one files server both agents use, over HTTP; and B's client to it."""
        port = free_port()
        server = subprocess.Popen([sys.executable, str(FILES), root, "--http", str(port)],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

        def stop() -> None:
            server.terminate()
            try:
                server.wait(WAIT)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()

        self.addCleanup(stop)
        url = f"http://127.0.0.1:{port}/mcp"
        deadline = time.monotonic() + WAIT
        while True:
            try:
                return url, Client.connect_http(url, connect_timeout=2.0)
            except MCPClientError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise
                try:   # still starting (it says nothing when it listens): pace on its exit
                    server.wait(0.1)
                except subprocess.TimeoutExpired:
                    pass

    def test_a_stopped_holders_late_write_is_refused_by_token(self) -> None:
        folder = tempfile.mkdtemp(prefix="mcp-paused-")
        self.addCleanup(shutil.rmtree, folder)
        root = os.path.join(folder, "work")
        os.mkdir(root)
        url, client_b = self.serve(root)
        registry = Registry()
        self.addCleanup(registry.close)
        registry.add(client_b, prefix="fs", owned=True)
        store_url = f"sqlite://{os.path.join(folder, 'fleet.db')}"
        agent = subprocess.Popen([sys.executable, "-c", AGENT, store_url, root, url],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                 env={**os.environ, "PYTHONPATH": str(ROOT)})

        def reap() -> None:
            if agent.poll() is None:
                agent.send_signal(signal.SIGCONT)
                agent.kill()
            agent.wait(WAIT)
            for stream in (agent.stdin, agent.stdout):
                if stream is not None:
                    stream.close()

        self.addCleanup(reap)
        acquired = self.read_line(agent)
        self.assertEqual(json.loads(acquired["content"])["acquired"], True, acquired)
        prepared = self.read_line(agent)
        store = open_store(store_url)
        self.addCleanup(store.close)
        table = LeaseTable(store=store, workspace="repo")
        [lease_a] = table.snapshot()
        self.assertEqual(prepared["meta"][LEASE_META],
                         {"workspace": "repo", "token": lease_a.token})

        agent.send_signal(signal.SIGSTOP)                    # A stops, its write on its way
        deadline = time.monotonic() + WAIT
        while table.snapshot() and time.monotonic() < deadline:
            table.wait_for_change(0.2)                       # its TTL runs out meanwhile
        self.assertEqual(table.snapshot(), [])

        agent_b = Leases(registry, table, "agent-B", roots={"fs": root, "lock": root},
                         concurrent=lambda: 2)
        taken = agent_b.execute_tool_calls([call("lock_acquire",
                                                 {"paths": ["notes.txt"], "wait": 0})])[0]
        self.assertTrue(json.loads(taken["content"])["acquired"], taken)
        [lease_b] = table.snapshot()
        self.assertGreater(lease_b.token, lease_a.token)
        wrote = agent_b.execute_tool_calls([call("fs_write", {"path": "notes.txt",
                                                              "content": "B's work"})])[0]
        self.assertFalse(wrote["is_error"], wrote)

        agent.send_signal(signal.SIGCONT)                    # A wakes; its write arrives late
        assert agent.stdin is not None
        agent.stdin.write("go\n")
        agent.stdin.flush()
        late = self.read_line(agent)
        self.assertTrue(late["is_error"], late)
        self.assertIn("stale lease", late["content"])       # the server, by token
        again = self.read_line(agent)
        self.assertTrue(again["is_error"], again)
        self.assertIn("agent-B", again["content"])          # A's own layer
        self.assertEqual(Path(root, "notes.txt").read_text(), "B's work")
        self.assertEqual(agent.wait(WAIT), 0)
