"""What the HTTP transports share, below :mod:`mcp_client.http` and :mod:`mcp_client.http_sse`.

``wire``: requests sessions, the abortable handle, redacted urllib3 records;
``checks``: the header, origin and settings checks; ``session``: the
2025-11-25 Streamable HTTP session (``Mcp-Session-Id``, the GET stream,
resumption, expiry).  Private: import from the transports.
"""
