"""What the HTTP transports share, below :mod:`mcp_client.http` and :mod:`mcp_client.http_sse`.

``wire``: requests sessions, the abortable handle, redacted urllib3 records;
``direct`` and ``framing``: the direct path of a POST; ``checks``: the
header, origin, settings and redirect checks; ``failures``: requests',
urllib3's and the direct path's failures said as the library's errors;
``answers``: the reader of every answer (a JSON body, an event stream's
messages); ``posts`` and ``poster``: one POST's answer and the sending of
it; ``session``: the 2025-11-25 Streamable HTTP session (``Mcp-Session-Id``,
the GET stream, resumption, expiry), which talks to its transport through
``session.Carrier``; ``workers``: the POST threads.  Private: import from
the transports.
"""
