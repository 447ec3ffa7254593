"""A registry's server entry (``server.json``, 2025-12-11), and the ``mcpServers`` entry it makes.

This module reads a ``{"server", "_meta"}`` document into a :class:`ServerEntry`
and builds the command line or the HTTP entry that runs it.  It touches no
network, except :mod:`._mcpb` for a bundle.

Decisions (what the published schema leaves to the client):

* The order of a command line is the runtime, its ``runtimeArguments``, the
  package (pinned), then its ``packageArguments``: ``npx -y ID@VERSION``,
  ``uvx ID==VERSION``, ``docker run -i --rm [-e VAR]... ID:VERSION`` (an OCI
  identifier that already carries a tag or digest is kept as it is), ``dnx
  ID@VERSION --yes``; ``runtimeHint`` names the runtime when given.
* A value the entry gives is used (its ``{name}`` variables filled in); a
  value the user must supply -- a required or secret input with no value --
  becomes a ``${VAR}`` reference, expanded from the environment when the
  configuration is used, so a secret is never written into the file; an
  optional input with a ``default`` gets it; any other is left out.
  :meth:`ServerEntry.inputs` lists the references an entry makes.
* A ``${`` the entry itself spells is written ``$${`` (:func:`literal`): the
  configuration expands ``${VAR}`` from the environment, and a published value
  must not name a variable of its own choosing (``https://x/?k=${AWS_SECRET}``
  would send that secret to the entry's remote).  Only the references this
  module makes are expanded.
* Variable names are ``MCP_<SERVER>_<NAME>``: the server name's last part and the
  input's name (an environment variable or header) or its ``valueHint``/flag,
  upper-cased, every other character ``_`` (``MCP_FILES_TOKEN`` for a ``files``
  server's ``FILES_TOKEN``).  The publisher names inputs, never the variable: a
  reference outside ``MCP_`` could make the file send a variable the user keeps
  for something else (``AWS_SECRET_ACCESS_KEY``) to the publisher's host.
* A package is used before a remote, the first that this client can run
  (``stdio`` packages of npm, pypi, oci, nuget or mcpb); ``prefer="remote"``
  turns that round.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Mapping

from ..exceptions import DiscoveryError
from ._api import literal

__all__ = ["ServerEntry", "OFFICIAL", "Input", "reference_name"]

#: Where the registry puts its own facts about an entry (status, isLatest...).
OFFICIAL = "io.modelcontextprotocol.registry/official"

_RUNNABLE = ("npm", "pypi", "oci", "nuget", "mcpb")
_VARIABLE = re.compile(r"\{([A-Za-z_][A-Za-z0-9_.-]*)\}")


@dataclass(frozen=True)
class Input:
    """A value the user must supply before the entry runs.

    Attributes:
        variable: the ``${VAR}`` reference the entry holds.
        kind: ``"env"``, ``"header"`` or ``"argument"``.
        secret: the server says it is a secret.
        description: what the server says it is (``""`` when nothing).
    """

    variable: str
    kind: str
    secret: bool
    description: str


def reference_name(text: str) -> str:
    """``text`` as an environment variable name (``--api-key`` -> ``API_KEY``)."""
    name = re.sub(r"[^A-Za-z0-9]", "_", text.strip("-")).upper().strip("_") or "VALUE"
    return f"_{name}" if name[0].isdigit() else name


class _Values:
    """Fills inputs in, and remembers the references it had to make.

    Every reference is ``MCP_<SERVER>_<NAME>``: the entry names the input, but never a
    variable outside the ``MCP_`` namespace, so a hostile entry cannot have the file send
    ``${AWS_SECRET_ACCESS_KEY}`` (or any variable the user keeps for something else) to
    its own host or process.
    """

    def __init__(self, server: str = "") -> None:
        self.inputs: list[Input] = []
        self._prefix = f"MCP_{reference_name(server)}_" if server else "MCP_"

    def reference(self, name: str, kind: str, item: Mapping[str, Any]) -> str:
        own = reference_name(name)
        server = self._prefix[len("MCP_"):]
        variable = f"MCP_{own}" if server and own.startswith(server) else self._prefix + own
        if all(known.variable != variable for known in self.inputs):
            description = item.get("description")
            self.inputs.append(Input(variable, kind, item.get("isSecret") is True,
                                     description if isinstance(description, str) else ""))
        return "${" + variable + "}"

    def value(self, item: Mapping[str, Any], name: str, kind: str) -> str | None:
        """The value of one input, a reference, or None (leave it out)."""
        given = item.get("value")
        if isinstance(given, str):
            return self.fill(given, item.get("variables"), kind)
        secret, required = item.get("isSecret") is True, item.get("isRequired") is True
        default = item.get("default")
        if isinstance(default, str) and not secret:
            return literal(default)
        if secret or required:
            return self.reference(name, kind, item)
        return None

    def fill(self, text: str, variables: Any, kind: str) -> str:
        """``text`` (escaped) with each ``{name}`` it has a variable for filled in."""
        text = literal(text)
        if not isinstance(variables, Mapping):
            return text

        def one(match: re.Match[str]) -> str:
            variable = variables.get(match.group(1))
            if not isinstance(variable, Mapping):
                return match.group(0)
            filled = self.value(variable, match.group(1), kind)
            return match.group(0) if filled is None else filled

        return _VARIABLE.sub(one, text)

    def arguments(self, items: Any) -> list[str]:
        args: list[str] = []
        for item in items if isinstance(items, list) else []:
            if not isinstance(item, Mapping):
                continue
            if item.get("type") == "named" and isinstance(item.get("name"), str):
                value = self.value(item, item["name"], "argument")
                if value is not None:
                    args += [literal(item["name"]), value]
            elif item.get("type") == "positional":
                hint = item.get("valueHint")
                value = self.value(item, hint if isinstance(hint, str) else "value",
                                   "argument")
                if value is not None:
                    args.append(value)
        return args

    def pairs(self, items: Any, kind: str) -> dict[str, str]:
        found: dict[str, str] = {}
        for item in items if isinstance(items, list) else []:
            if isinstance(item, Mapping) and isinstance(item.get("name"), str):
                value = self.value(item, item["name"], kind)
                if value is not None:
                    found[item["name"]] = value
        return found


@dataclass(frozen=True)
class ServerEntry:
    """One version of a server, as a registry publishes it.

    Attributes:
        name: the server's name (``io.github.owner/server``).
        version: this version.
        description: what it does.
        status: ``"active"``, ``"deprecated"`` or ``"deleted"`` (the registry's word).
        packages: its ``packages`` (each a dict, as published).
        remotes: its ``remotes`` (each a dict, as published).
        server: the whole ``server.json`` document.
        meta: the registry's ``_meta``.
    """

    name: str
    version: str
    description: str
    status: str
    packages: tuple[dict[str, Any], ...] = field(default=())
    remotes: tuple[dict[str, Any], ...] = field(default=())
    server: dict[str, Any] = field(default_factory=dict, repr=False)
    meta: dict[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def from_document(cls, document: Mapping[str, Any], asked: str | None = None) -> ServerEntry:
        """The entry of a ``{"server", "_meta"}`` document.

        Raises:
            DiscoveryError: ``invalid``: no server, or one without a name and version.
        """
        server = document.get("server")
        if not isinstance(server, dict) or not isinstance(server.get("name"), str) or \
                not isinstance(server.get("version"), str):
            raise DiscoveryError(asked, "invalid", "the registry's document has no server "
                                 "with a name and a version")
        raw_meta = document.get("_meta")
        meta: dict[str, Any] = raw_meta if isinstance(raw_meta, dict) else {}
        raw_official = meta.get(OFFICIAL)
        official: dict[str, Any] = raw_official if isinstance(raw_official, dict) else {}
        status = official.get("status", server.get("status", "active"))
        description = server.get("description")
        return cls(server["name"], server["version"],
                   description if isinstance(description, str) else "",
                   status if isinstance(status, str) else "active",
                   tuple(p for p in server.get("packages") or () if isinstance(p, dict)),
                   tuple(r for r in server.get("remotes") or () if isinstance(r, dict)),
                   dict(server), dict(meta))

    @property
    def short_name(self) -> str:
        """The part of the name after its namespace (``server`` of ``io.github.owner/server``)."""
        return self.name.rsplit("/", 1)[-1]

    def inputs(self, *, prefer: str = "package", bundles: str | None = None) -> list[Input]:
        """The values the user must supply: the ``${VAR}`` references :meth:`config` makes.

        An ``mcpb`` bundle's own inputs are in its manifest: it is fetched (or found
        unpacked) as :meth:`config` does.
        """
        values = _Values(self.short_name)
        self._build(values, prefer, bundles=bundles, fetch=True)
        return values.inputs

    def config(self, *, prefer: str = "package", bundles: str | None = None) -> dict[str, Any]:
        """The ``mcpServers`` entry that runs this server (see the module docstring).

        Args:
            prefer: ``"package"`` (run it here, the default) or ``"remote"``.
            bundles: where an ``mcpb`` bundle is unpacked (default
                ``~/.cache/mcp-client/bundles``); it is downloaded and checked against
                its ``fileSha256`` first.

        Raises:
            DiscoveryError: ``unsupported`` (nothing here can be run), or a bundle
                that cannot be had (``unreachable``, ``integrity``).
        """
        return self._build(_Values(self.short_name), prefer, bundles=bundles, fetch=True)

    def _build(self, values: _Values, prefer: str, *, bundles: str | None,
               fetch: bool = True) -> dict[str, Any]:
        if prefer not in ("package", "remote"):
            raise DiscoveryError(self.name, "invalid", f"prefer must be 'package' or 'remote', "
                                 f"not {prefer!r}")
        packages = [p for p in self.packages if p.get("registryType") in _RUNNABLE and
                    (p.get("transport") or {}).get("type", "stdio") == "stdio" and
                    isinstance(p.get("identifier"), str)]
        remotes = [r for r in self.remotes if r.get("type") in ("streamable-http", "sse") and
                   isinstance(r.get("url"), str)]
        order: list[Any] = [*packages, *remotes] if prefer == "package" else \
            [*remotes, *packages]
        if not order:
            kinds = sorted({str(p.get("registryType")) for p in self.packages})
            raise DiscoveryError(self.name, "unsupported", "the entry has no stdio package "
                                 f"this client runs (it has: {', '.join(kinds) or 'none'}) "
                                 "and no remote")
        chosen = order[0]
        if chosen in remotes:
            return _remote(chosen, values)
        return _package(self, chosen, values, bundles=bundles, fetch=fetch)


def _remote(remote: Mapping[str, Any], values: _Values) -> dict[str, Any]:
    entry: dict[str, Any] = {"type": "http" if remote["type"] == "streamable-http" else "sse",
                             "url": values.fill(remote["url"], remote.get("variables"),
                                                "header")}
    headers = values.pairs(remote.get("headers"), "header")
    if headers:
        entry["headers"] = headers
    return entry


def _package(entry: ServerEntry, package: Mapping[str, Any], values: _Values, *,
             bundles: str | None, fetch: bool) -> dict[str, Any]:
    kind, ident = package["registryType"], literal(package["identifier"])
    version = literal(package["version"]) if isinstance(package.get("version"), str) else ""
    runtime_args = values.arguments(package.get("runtimeArguments"))
    package_args = values.arguments(package.get("packageArguments"))
    env = values.pairs(package.get("environmentVariables"), "env")
    hint = literal(package["runtimeHint"]) if isinstance(package.get("runtimeHint"), str) \
        else None
    if kind == "mcpb":
        from ._mcpb import bundle_config

        return bundle_config(entry.name, package, env, package_args, values.reference,
                             bundles=bundles, fetch=fetch)
    if kind == "npm":
        pinned = f"{ident}@{version}" if version else ident
        yes = [] if "-y" in runtime_args or "--yes" in runtime_args else ["-y"]
        command, args = hint or "npx", [*runtime_args, *yes, pinned, *package_args]
    elif kind == "pypi":
        pinned = f"{ident}=={version}" if version else ident
        command, args = hint or "uvx", [*runtime_args, pinned, *package_args]
    elif kind == "oci":
        tagged = ident if ("@" in ident or ":" in ident.rsplit("/", 1)[-1] or not version) \
            else f"{ident}:{version}"
        passed = [flag for name in env for flag in ("-e", literal(name))]
        command, args = hint or "docker", ["run", "-i", "--rm", *runtime_args, *passed, tagged,
                                           *package_args]
    else:   # nuget
        pinned = f"{ident}@{version}" if version else ident
        command, args = hint or "dnx", [*runtime_args, pinned, "--yes", *package_args]
    config: dict[str, Any] = {"command": command, "args": args}
    if env:
        config["env"] = env
    return config
