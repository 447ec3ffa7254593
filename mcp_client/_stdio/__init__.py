"""What the stdio transport (:mod:`mcp_client.stdio`) is built from, private to it."""
