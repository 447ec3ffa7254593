"""Find a server by name in an MCP registry, and get the ``mcpServers`` entry that runs it.

The official MCP Registry (and any subregistry) publishes each server's
``server.json`` through a read API (``/v0.1``)::

    from mcp_client.discovery import resolve

    entry = resolve("io.github.modelcontextprotocol/server-filesystem")
    entry.config()   # {"command": "npx", "args": ["-y", "@modelcontextprotocol/...@1.2.3"]}

:func:`resolve` reads one version (``latest`` by default, pinned in the entry
it returns), :func:`search` finds servers by text, and
:meth:`ServerEntry.config` builds the ``mcpServers`` entry -- ``npx``, ``uvx``,
``docker``, ``dnx``, an unpacked ``mcpb`` bundle, or a remote ``http``/``sse``
entry -- with every value the user must supply as a ``${VAR}`` reference
(:meth:`ServerEntry.inputs` names them), so no secret is ever written into a
file.  ``mcp-client add NAME`` writes that entry into a configuration file;
``mcp-client search TEXT`` lists what a registry has.

Only ``active`` versions are used as they are: a ``deprecated`` one is
returned with a :class:`DeprecationWarning`, a ``deleted`` one is refused.
Every failure is a :class:`~mcp_client.exceptions.DiscoveryError`.
"""

from __future__ import annotations

import warnings

from ..exceptions import DiscoveryError
from ._api import DEFAULT_REGISTRY, check_registry, search_documents, version_document
from ._entry import Input, ServerEntry

__all__ = ["resolve", "search", "ServerEntry", "Input", "DEFAULT_REGISTRY", "DiscoveryError"]


def resolve(name: str, *, version: str = "latest", registry: str = DEFAULT_REGISTRY,
            timeout: float = 10.0) -> ServerEntry:
    """One version of a server, from the registry.

    Args:
        name: the server's name (``io.github.owner/server``).
        version: a version the registry has, or ``"latest"``.
        registry: the registry's origin (``/v0.1`` is added); ``https:``, or
            ``http:`` on this machine's loopback.
        timeout: seconds for the registry's answer.

    Raises:
        DiscoveryError: ``not_found``, ``deleted``, ``unreachable`` or ``invalid``.
    """
    if not isinstance(name, str) or "/" not in name or not name.strip("/"):
        raise DiscoveryError(name if isinstance(name, str) else None, "invalid",
                             "a server name has a namespace and a name "
                             "(io.github.owner/server)")
    if not isinstance(version, str) or not version:
        raise DiscoveryError(name, "invalid", f"version must be a string, not {version!r}")
    origin = check_registry(registry)
    entry = ServerEntry.from_document(version_document(origin, name, version, timeout=timeout),
                                      name)
    if entry.name != name:
        raise DiscoveryError(name, "invalid", f"the registry answered with another server "
                             f"({entry.name!r})")
    if entry.status == "deleted":
        raise DiscoveryError(name, "deleted", f"version {entry.version} is marked deleted "
                             "by the registry")
    if entry.status == "deprecated":
        warnings.warn(f"{name} {entry.version} is deprecated by the registry",
                      DeprecationWarning, stacklevel=2)
    return entry


def search(text: str, *, registry: str = DEFAULT_REGISTRY, limit: int = 30,
           timeout: float = 10.0) -> list[ServerEntry]:
    """The servers a registry's search finds (their latest versions), deleted ones left out.

    Raises:
        DiscoveryError: ``unreachable`` or ``invalid``.
    """
    if not isinstance(text, str):
        raise DiscoveryError(None, "invalid", f"search text must be a string, not {text!r}")
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise DiscoveryError(None, "invalid", f"limit must be a positive integer, not {limit!r}")
    found = []
    for document in search_documents(check_registry(registry), text, limit=limit,
                                     timeout=timeout):
        try:
            entry = ServerEntry.from_document(document)
        except DiscoveryError:
            continue
        if entry.status != "deleted":
            found.append(entry)
    return found
