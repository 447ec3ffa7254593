"""Test doubles for code built on mcp_client, shipped so users can test their agents.

* :class:`FakeTransport` -- a scripted server: answers per method or per
  request, notifications and server requests pushed at any moment, and a
  record of everything the client sent.  No subprocess, no network.

Nothing here imports the ``mcp`` SDK.
"""

from __future__ import annotations

from .fake import NO_ANSWER, Die, Error, FakeTransport, Raw

__all__ = ["FakeTransport", "Error", "Raw", "Die", "NO_ANSWER"]
