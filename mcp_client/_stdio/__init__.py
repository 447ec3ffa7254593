"""What the stdio transport (:mod:`mcp_client.stdio`) is built from, private to it.

``watcher``: one thread for every child's stderr and exit; ``reading``: the
pipe reader a waiting caller may lead (leader/follower).
"""
