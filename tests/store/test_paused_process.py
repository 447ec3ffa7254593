"""A holder process stopped (SIGSTOP) past its lease's TTL, across real processes.

Agent A is a child process with its own files server (``examples/servers/files_server.py``
over stdio), its ``Leases`` layer on a shared SQLite store.  It takes a one-second lease on
``notes.txt`` and is stopped with SIGSTOP before it writes.  While it is stopped its lease
runs out on the store's clock, and agent B -- this process, with a files server of its
own over the same folder -- takes the path (a higher fencing token) and writes.  Then A is
continued and writes: its own layer refuses the stale write (the lease is gone and B's is
in the way), so nothing of A's lands over B's work.  (The server's own check of the token,
for a request that outlives its call, is ``tests/providers/test_lease_fencing.py``.)
"""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from mcp_client import Client
from mcp_client.leases import Leases, LeaseTable
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

store_url, root, server = sys.argv[1:4]
registry = Registry()
registry.add(Client.connect_stdio(sys.executable, args=[server, root]), prefix="fs",
             owned=True)
table = LeaseTable(store=open_store(store_url), workspace="repo")
layer = Leases(registry, table, "agent-A", roots={"fs": root, "lock": root},
               concurrent=lambda: 2)

def call(name, arguments):
    answer = layer.execute_tool_calls([{"id": name, "type": "function", "function": {
        "name": name, "arguments": json.dumps(arguments)}}])[0]
    print(json.dumps({"call": name, "is_error": answer.get("is_error"),
                      "content": answer["content"]}), flush=True)

call("lock_acquire", {"paths": ["notes.txt"], "ttl": 1, "wait": 0})
sys.stdin.readline()          # stopped here (SIGSTOP), past the lease's TTL
call("fs_write", {"path": "notes.txt", "content": "A, late"})
registry.close()
'''


def call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"id": name, "type": "function",
            "function": {"name": name, "arguments": json.dumps(arguments)}}


class PausedProcessTest(LeakCheckingTestCase):
    def read_line(self, agent: subprocess.Popen[str]) -> dict[str, Any]:
        assert agent.stdout is not None
        ready, _, _ = select.select([agent.stdout], [], [], WAIT)
        self.assertTrue(ready, "agent A said nothing")
        line = agent.stdout.readline()
        self.assertTrue(line, "agent A ended")
        said: dict[str, Any] = json.loads(line)
        return said

    def test_a_holder_stopped_past_its_ttl_cannot_write_over_the_next_holder(self) -> None:
        folder = tempfile.mkdtemp(prefix="mcp-paused-")
        self.addCleanup(shutil.rmtree, folder)
        root = os.path.join(folder, "work")
        os.mkdir(root)
        store_url = f"sqlite://{os.path.join(folder, 'fleet.db')}"
        agent = subprocess.Popen([sys.executable, "-c", AGENT, store_url, root, str(FILES)],
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

        store = open_store(store_url)
        self.addCleanup(store.close)
        table = LeaseTable(store=store, workspace="repo")
        [lease_a] = table.snapshot()
        agent.send_signal(signal.SIGSTOP)                    # A is paused, lease in hand
        deadline = time.monotonic() + WAIT
        while table.snapshot() and time.monotonic() < deadline:
            table.wait_for_change(0.2)                       # its TTL runs out meanwhile
        self.assertEqual(table.snapshot(), [])

        registry = Registry()
        self.addCleanup(registry.close)
        registry.add(Client.connect_stdio(sys.executable, args=[str(FILES), root]),
                     prefix="fs", owned=True)
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

        agent.send_signal(signal.SIGCONT)                    # A wakes and writes, late
        assert agent.stdin is not None
        agent.stdin.write("go\n")
        agent.stdin.flush()
        late = self.read_line(agent)
        self.assertEqual(late["call"], "fs_write")
        self.assertTrue(late["is_error"], late)
        self.assertIn("agent-B", late["content"])
        self.assertEqual(Path(root, "notes.txt").read_text(), "B's work")
        self.assertEqual(agent.wait(WAIT), 0)
