"""``python -m mcp_client``: the command line of :mod:`mcp_client.cli`.

Also the target of the ``mcp-client`` console script (``mcp_client.__main__:main``).
"""

from __future__ import annotations

import sys

from .cli import main

__all__ = ["main"]

if __name__ == "__main__":
    sys.exit(main())
