"""The private parts of :mod:`mcp_client.config`, the ``mcpServers`` format.

:mod:`mcp_client.config` is the face and records the format's rules; this
package holds what it is built from: :mod:`._text` (JSON with comments and
``${VAR}`` expansion, strings in, strings out), :mod:`._entry` (the
validated entry, its error, and how an entry connects) and :mod:`._reader`
(one entry's keys checked and expanded).  Nothing here is public: import
the names from :mod:`mcp_client.config`.
"""

from __future__ import annotations

__all__: list[str] = []
