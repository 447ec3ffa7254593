"""Test doubles for code built on mcp_client, shipped so users can test their agents.

* :class:`FakeTransport` -- a scripted server: answers per method or per
  request, notifications and server requests pushed at any moment, and a
  record of everything the client sent.  No subprocess, no network.
* :class:`InProcessTransport` -- a live official-SDK server object in this
  process, no wire (what :class:`~mcp_client.local.LocalServer` rests on;
  it lives in the client package and is re-exported here).
* :func:`check_provider` and :func:`check_transport` -- the contract of each
  role, asserted against an implementation of your own (or of ours).
* :class:`TestKit` and :class:`ProgressKit` -- official-SDK servers with one
  tool of every shape, and tools that report progress; in this process
  (``kit.local()``) or as a child process (``TestKit.connect_stdio()``).

Nothing here imports the ``mcp`` SDK: it is imported when a caller hands an
SDK server object over, or builds a kit.
"""

from __future__ import annotations

from ..client import InProcessTransport
from ._checks import check_provider, check_transport
from .fake import NO_ANSWER, Die, Error, FakeTransport, Raw
from .kits import ProgressKit, TestKit

__all__ = ["FakeTransport", "Error", "Raw", "Die", "NO_ANSWER", "InProcessTransport",
           "TestKit", "ProgressKit", "check_provider", "check_transport"]
