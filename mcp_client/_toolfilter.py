"""Which of a provider's tools are kept: include and exclude globs on tool names.

:class:`ToolFilter` is what ``Registry.add(..., include=, exclude=)`` and an
``mcpServers`` entry's ``"tools": {"include": [...], "exclude": [...]}`` build.
The globs are :func:`fnmatch.fnmatchcase` patterns (``*``, ``?``, ``[...]``;
case-sensitive) matched against the names the provider declares -- for a
:class:`~mcp_client.Client`, the server's own tool names (unless a name had
to be rewritten for a model API; see :mod:`mcp_client.names`).  It is pure:
no I/O, no state after construction.
"""

from __future__ import annotations

import fnmatch

from .exceptions import MCPClientError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["ToolFilter", "patterns"]


def patterns(value: Any, what: str) -> tuple[str, ...]:
    """``value`` as a tuple of glob patterns: a list (or tuple) of non-empty strings.

    Raises:
        MCPClientError: anything else (a bare string included: ``"read_*"``
            would otherwise read as seven one-letter patterns).
    """
    if not isinstance(value, (list, tuple)) or not all(
            isinstance(item, str) and item for item in value):
        raise MCPClientError(f"{what} must be a list of non-empty glob patterns, "
                             f"not {value!r:.80}")
    return tuple(value)


class ToolFilter:
    """Keep a tool whose name matches an ``include`` glob (all, when None) and no
    ``exclude`` glob.

    Raises:
        MCPClientError: a pattern list that is not a list of non-empty strings.
    """

    def __init__(self, include: Any = None, exclude: Any = None) -> None:
        self.include = None if include is None else patterns(include, "include")
        self.exclude = () if exclude is None else patterns(exclude, "exclude")

    def __repr__(self) -> str:
        return f"<ToolFilter include={self.include!r} exclude={self.exclude!r}>"

    def allows(self, name: str) -> bool:
        """Whether the tool called ``name`` is kept."""
        if self.include is not None and not any(fnmatch.fnmatchcase(name, p)
                                                for p in self.include):
            return False
        return not any(fnmatch.fnmatchcase(name, p) for p in self.exclude)
