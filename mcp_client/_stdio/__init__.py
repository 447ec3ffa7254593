"""What the stdio transport shares between its children, below :mod:`mcp_client.stdio`.

``watcher``: one thread for every child's stderr and exit.  Private: the
transport is the only user.
"""
