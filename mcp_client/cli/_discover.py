"""The registry verbs: ``add`` writes a registry's server into a configuration file,
``search`` lists what a registry has.

Usage::

    mcp-client add NAME [--version V] [--config FILE] [--registry URL] [--as KEY] [--remote]
    mcp-client search TEXT [--registry URL] [--limit N] [--json]

This module owns those two verbs: asking :mod:`mcp_client.discovery`, writing
the entry, printing the answer and choosing the exit code.  They start no
server.

Decisions:

* ``add`` writes into ``--config`` (default ``mcp.json`` in the current
  folder, made when missing) under ``--as`` (default: the server name's last
  part), leaving every other entry as it was.  The file is read as JSON; one
  with comments is refused rather than rewritten without them.  An existing
  entry of that name is refused unless ``--force``.  The file is replaced
  atomically (written beside it, then renamed), with its mode kept.
* The values the user must supply are ``${VAR}`` references in the entry
  (never the values: a secret is never written) and are named on stderr, one
  line each, secrets marked, so the user knows what to export before
  connecting.  ``--json`` prints ``{"name", "key", "version", "entry",
  "inputs": [{"variable", "kind", "secret", "description"}]}``.
* The publisher names those variables.  For a remote entry, a reference to
  a variable already set here is warned about on stderr (with or without
  ``--json``), naming the host it would be sent to: an entry may name one
  such as ``AWS_SECRET_ACCESS_KEY`` to have it sent along.
* Exit codes are the command line's: 2 for a usage mistake (a name without a
  namespace, an entry that exists, a file that is not JSON), 4 when the
  registry cannot be reached, 5 for another failure (not found, deleted,
  nothing this client can run).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import tempfile
import warnings
from typing import IO, Any

from ..exceptions import DiscoveryError
from ._exits import EXIT_CLIENT, EXIT_CONNECTION, EXIT_OK, EXIT_USAGE
from ._output import table, write_error_json
from ._parser import PROG, option
from ._terminal import printable

__all__ = ["run_discovery"]


def run_discovery(args: argparse.Namespace, stdout: IO[str], stderr: IO[str]) -> int:
    """Run ``add`` or ``search``; the exit code."""
    as_json = bool(option(args, "json", False))
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", DeprecationWarning)
            code = _add(args, stdout, stderr, as_json) if args.verb == "add" else \
                _search(args, stdout, as_json)
        for warning in caught:
            stderr.write(f"{PROG}: warning: {warning.message}\n")
        return code
    except DiscoveryError as exc:
        usage = exc.reason == "invalid" or exc.reason == "exists"
        code = EXIT_USAGE if usage else EXIT_CONNECTION if exc.reason == "unreachable" \
            else EXIT_CLIENT
        if as_json:
            write_error_json(stdout, {"type": type(exc).__name__, "message": str(exc),
                                      "reason": exc.reason})
        else:
            stderr.write(f"{PROG}: {exc}\n")
        return code


def _add(args: argparse.Namespace, stdout: IO[str], stderr: IO[str], as_json: bool) -> int:
    from ..discovery import resolve

    entry = resolve(args.name, version=args.version, registry=args.registry)
    key = args.key or entry.short_name
    prefer = "remote" if args.remote else "package"
    config = entry.config(prefer=prefer)
    inputs = entry.inputs(prefer=prefer)
    _write_entry(args.config, key, config, force=args.force, name=args.name)
    if as_json:
        json.dump({"name": entry.name, "key": key, "version": entry.version, "entry": config,
                   "inputs": [dataclasses.asdict(item) for item in inputs]}, stdout, indent=2)
        stdout.write("\n")
    else:
        stdout.write(f"added {entry.name} {printable(entry.version)} to {args.config} as "
                     f"{key!r}\n")
        for item in inputs:
            secret = " (secret)" if item.secret else ""
            about = f": {printable(item.description)}" if item.description else ""
            stderr.write(f"{PROG}: set {item.variable}{secret} before connecting{about}\n")
    if "url" in config:
        _warn_set(config["url"], inputs, stderr)
    return EXIT_OK


def _warn_set(url: str, inputs: list[Any], stderr: IO[str]) -> None:
    """Warn about each reference of a remote entry that names a variable set here."""
    import urllib.parse

    try:
        host = urllib.parse.urlsplit(url).netloc.rpartition("@")[2] or url
    except ValueError:
        host = url
    for item in inputs:
        if item.variable in os.environ:
            stderr.write(f"{PROG}: warning: {item.variable} is set in this environment, and "
                         f"the entry sends it to {printable(host)}: check that the server "
                         "should have it\n")


def _write_entry(path: str, key: str, config: dict[str, Any], *, force: bool,
                 name: str) -> None:
    """Put ``config`` under ``mcpServers[key]`` in the file, the rest untouched."""
    document: dict[str, Any] = {"mcpServers": {}}
    mode = None
    if os.path.exists(path):
        try:
            with open(path, encoding="utf-8") as handle:
                loaded = json.load(handle)
            mode = os.stat(path).st_mode & 0o777
        except (OSError, ValueError) as exc:
            raise DiscoveryError(name, "invalid", f"{path} cannot be read as JSON ({exc}); "
                                 "it is left as it was") from None
        if not isinstance(loaded, dict) or not isinstance(loaded.get("mcpServers", {}), dict):
            raise DiscoveryError(name, "invalid", f"{path} has no mcpServers object; it is left "
                                 "as it was")
        document = loaded
        document.setdefault("mcpServers", {})
    if key in document["mcpServers"] and not force:
        raise DiscoveryError(name, "exists", f"{path} already has a server {key!r} (--as "
                             "another name, or --force to replace it)")
    document["mcpServers"][key] = config
    folder = os.path.dirname(os.path.abspath(path))
    handle_fd, scratch = tempfile.mkstemp(prefix=".mcp-client-", dir=folder)
    try:
        with os.fdopen(handle_fd, "w", encoding="utf-8") as handle:
            json.dump(document, handle, indent=2)
            handle.write("\n")
        if mode is not None:
            os.chmod(scratch, mode)
        os.replace(scratch, path)
    except BaseException:
        if os.path.exists(scratch):
            os.unlink(scratch)
        raise


def _search(args: argparse.Namespace, stdout: IO[str], as_json: bool) -> int:
    from ..discovery import search

    found = search(args.text, registry=args.registry, limit=args.limit)
    if as_json:
        json.dump([{"name": e.name, "version": e.version, "description": e.description,
                    "status": e.status} for e in found], stdout, indent=2)
        stdout.write("\n")
    elif not found:
        stdout.write("no server found\n")
    else:
        stdout.write(table(["name", "version", "description"],
                           [[e.name, e.version, e.description] for e in found]))
    return EXIT_OK
