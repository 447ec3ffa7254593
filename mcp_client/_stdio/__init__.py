"""What the stdio transport (:mod:`mcp_client.stdio`) is built from, private to it.

``watcher``: one thread for every child's stderr and exit; ``reading``: the
pipe reader a waiting caller may lead (leader/follower); ``pipes``: the
wake-up pipe and chunked reads; ``command``: the checks of a command line and
environment before a child starts; ``process``: starting the child in a
group of its own and stopping it step by step; ``tail``: the ring of its last
stderr lines; ``outbox``: what a full stdin pipe did not take, and the thread
that drains it.
"""
