"""Quickstart: start a real MCP server as a child process, look at it, call a tool.

Run it from the repository root::

    python examples/quickstart.py

The server is ``examples/servers/quickstart_server.py``, written with the
official MCP SDK (the ``examples`` extra installs it).
"""

from __future__ import annotations

import sys
from pathlib import Path

from mcp_client import Client

SERVER = Path(__file__).resolve().parent / "servers" / "quickstart_server.py"


def main() -> None:
    with Client.connect_stdio(sys.executable, args=[str(SERVER)],
                              client_name="quickstart") as mcp:
        info = mcp.server_info
        print(f"era:    {mcp.era} (protocol {mcp.protocol_version})")
        print(f"server: {info.get('name')} {info.get('version')}")
        print("tools:")
        for tool in mcp.list_tools():
            print(f"  {tool['name']:<12} {tool.get('description', '')}")
        result = mcp.call_tool("add", {"a": 2, "b": 3})
        text = " ".join(block["text"] for block in result["content"] if block["type"] == "text")
        print(f"add(a=2, b=3) -> {text}")


if __name__ == "__main__":
    main()
