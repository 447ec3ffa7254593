"""The command line's grammar: its options and verbs, and the checks argparse cannot make.

This module owns :func:`build_parser` (the verbs, and the options every
verb takes before or after it), reading a verb's ``JSON`` arguments and
``--header`` values, and the rules between options (one server, ``--header``
only with ``--http``/``--sse``...), each broken rule a
:class:`~mcp_client.cli._exits.UsageError`.  It connects to nothing and
prints nothing: argparse's own errors are raised as :class:`ParseError`
for :func:`mcp_client.cli.main` to print.
"""

from __future__ import annotations

import argparse
import json
from typing import IO, Any, NoReturn, Sequence

from .. import protocol
from .._version import __version__
from ._exits import UsageError

__all__ = ["PROG", "VERBS", "FLEET_VERBS", "REGISTRY_VERBS", "VERB_METHODS", "ParseError",
           "build_parser", "option",
           "json_arguments", "parse_headers", "check_server_options"]

PROG = "mcp-client"
VERBS = {
    "info": "who the server is, its era and capabilities",
    "tools": "list the tools, with their annotations",
    "call": "call a tool: call TOOL [JSON-ARGUMENTS]",
    "resources": "list the resources",
    "read": "read a resource: read URI",
    "templates": "list the resource templates",
    "prompts": "list the prompts",
    "prompt": "render a prompt: prompt NAME [JSON-ARGUMENTS]",
    "login": "log in to an OAuth-protected --http server (the tokens are kept for --auth oauth)",
    "logout": "forget the OAuth tokens kept for an --http server",
    "app": "call a tool and show its view (MCP Apps) in a browser: app TOOL [JSON-ARGUMENTS]",
}

#: The operator's verbs: they read and fix a fleet store (:mod:`mcp_client.store`),
#: and talk to no server.
FLEET_VERBS = {
    "grants": "a store's grant book: grants --store URL [--book NAME] [list | revoke N | export]",
    "leases": "a store's leases: leases --store URL [--workspace NAME] [list | release HOLDER]",
}

#: The registry verbs: they read an MCP registry (:mod:`mcp_client.discovery`) and
#: start no server.
REGISTRY_VERBS = {
    "add": "add a registry's server to a configuration file: add NAME [--version V] "
           "[--config FILE] [--registry URL]",
    "search": "find servers in a registry: search TEXT [--registry URL]",
}

#: The method each verb sends (``info`` sends only the handshake).
VERB_METHODS = {"tools": "tools/list", "call": "tools/call", "resources": "resources/list",
                "read": "resources/read", "templates": "resources/templates/list",
                "prompts": "prompts/list", "prompt": "prompts/get", "app": "tools/call"}


class ParseError(Exception):
    """argparse's usage error, held until ``main`` knows how to print it."""

    def __init__(self, parser: argparse.ArgumentParser, message: str) -> None:
        super().__init__(message)
        self.parser = parser
        self.message = message


class _Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors raise instead of printing and exiting."""

    def error(self, message: str) -> NoReturn:
        raise ParseError(self, message)


def _common_options() -> _Parser:
    """The options every verb takes (given before or after it)."""
    common = _Parser(add_help=False, argument_default=argparse.SUPPRESS)
    server = common.add_argument_group("the server (one of)")
    server.add_argument("--stdio", metavar="COMMAND",
                        help='start a server: "COMMAND ARGS..." (split like a shell, no shell)')
    server.add_argument("--http", metavar="URL",
                        help="reach a Streamable HTTP server (either era; an old HTTP+SSE "
                        "server is found by itself)")
    server.add_argument("--sse", metavar="URL",
                        help="reach a 2024-11-05 HTTP+SSE server directly")
    server.add_argument("--header", metavar="NAME:VALUE", action="append",
                        help="an HTTP header for --http or --sse (repeatable)")
    server.add_argument("--auth", choices=["oauth"],
                        help="--http: log in with OAuth (tokens kept by the login verb)")
    server.add_argument("--config", metavar="FILE", help="an mcpServers configuration file")
    server.add_argument("--server", metavar="NAME", help="the server in --config to use")
    out = common.add_argument_group("behaviour")
    out.add_argument("--json", action="store_true", help="print JSON for scripts")
    out.add_argument("--timeout", metavar="SECONDS", type=float,
                     help="budget for the verb's request (default 60) and for "
                          "connecting as a whole; 0: none")
    out.add_argument("--era", metavar="ERA",
                     help="auto (default), legacy, or a modern protocol version")
    out.add_argument("--log-level", metavar="LEVEL", choices=protocol.LOG_LEVELS,
                     help=f"ask for the server's logs on stderr ({', '.join(protocol.LOG_LEVELS)})")
    out.add_argument("-v", "--verbose", action="store_true",
                     help="show the server's stderr and the client's warnings as they come")
    out.add_argument("--trace", action="store_true",
                     help="print every message sent (>>) and read (<<) on stderr, HTTP "
                     "request and status lines and headers included (credentials hidden)")
    return common


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``python -m mcp_client``."""
    common = _common_options()
    parser = _Parser(
        prog=PROG, parents=[common],
        description="Talk to an MCP server: list its tools, call them, read its resources.",
        epilog="exit codes: 0 ok, 1 the tool reported isError, 2 usage, 3 protocol error, "
               "4 connection failure (could not start, died, timed out), 5 other client "
               "error, 130 interrupted")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    verbs = parser.add_subparsers(dest="verb", metavar="VERB", required=True)
    for verb, summary in VERBS.items():
        sub = verbs.add_parser(verb, parents=[common], help=summary, description=summary)
        if verb in ("call", "prompt", "app"):
            sub.add_argument("name", metavar="NAME" if verb == "prompt" else "TOOL")
            sub.add_argument("arguments", metavar="JSON", nargs="?", default=None,
                             help="the arguments as a JSON object ('-': read from stdin)")
        if verb == "app":
            sub.add_argument("--no-open", action="store_true", default=argparse.SUPPRESS,
                             help="print the page's address without opening a browser")
            sub.add_argument("--rules", metavar="FILE", default=argparse.SUPPRESS,
                             help="a JSON list of Policy rules judging every call the "
                                  "view makes")
        elif verb == "read":
            sub.add_argument("uri", metavar="URI")
    _fleet_verbs(verbs)
    _registry_verbs(verbs)
    return parser


def _registry_verbs(verbs: Any) -> None:
    """The ``add`` and ``search`` verbs (:mod:`mcp_client.cli._discover` runs them)."""
    from ..discovery import DEFAULT_REGISTRY   # (a light import: no HTTP machinery yet)

    registry = _Parser(add_help=False)
    registry.add_argument("--registry", metavar="URL", default=DEFAULT_REGISTRY,
                          help=f"the registry's origin (default {DEFAULT_REGISTRY}); https:, "
                               "or http: on loopback")
    registry.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                          help="print JSON for scripts")
    add = verbs.add_parser("add", parents=[registry], help=REGISTRY_VERBS["add"],
                           description=REGISTRY_VERBS["add"],
                           epilog="values you must supply are written as ${VAR} references "
                                  "and named on stderr; export them before connecting")
    add.add_argument("name", metavar="NAME", help="the server's name (io.github.owner/server)")
    add.add_argument("--version", default="latest", help="the version (default: latest)")
    add.add_argument("--config", metavar="FILE", default="mcp.json",
                     help="the mcpServers file to write into (default: mcp.json)")
    add.add_argument("--as", dest="key", metavar="KEY", default=None,
                     help="the entry's name in the file (default: the server name's last part)")
    add.add_argument("--remote", action="store_true",
                     help="use the server's remote endpoint rather than a package")
    add.add_argument("--force", action="store_true", help="replace an entry of the same name")
    search = verbs.add_parser("search", parents=[registry], help=REGISTRY_VERBS["search"],
                              description=REGISTRY_VERBS["search"])
    search.add_argument("text", metavar="TEXT")
    search.add_argument("--limit", type=int, default=30, help="at most this many (default 30)")


def _fleet_verbs(verbs: Any) -> None:
    """The ``grants`` and ``leases`` verbs (:mod:`mcp_client.cli._fleet` runs them)."""
    fleet = _Parser(add_help=False)
    fleet.add_argument("--store", metavar="URL", required=True,
                       help="the store: sqlite:///ABSOLUTE/PATH, a file path, postgresql://... "
                            "or redis://... (a password is never shown)")
    fleet.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                       help="print JSON for scripts")
    grants = verbs.add_parser("grants", parents=[fleet], help=FLEET_VERBS["grants"],
                              description=FLEET_VERBS["grants"],
                              epilog="list numbers the grants from 1; revoke N takes that "
                                     "number; export prints the book as JSON for Grants(...)")
    grants.add_argument("--book", metavar="NAME", default="default",
                        help="the grant book (default: default)")
    grants.add_argument("action", nargs="?", choices=("list", "revoke", "export"),
                        default="list", help="what to do (default: list)")
    grants.add_argument("target", metavar="N", nargs="?", default=None,
                        help="revoke: the grant's number in the list")
    leases = verbs.add_parser("leases", parents=[fleet], help=FLEET_VERBS["leases"],
                              description=FLEET_VERBS["leases"],
                              epilog="list shows the leases and the holds of calls in flight; "
                                     "release HOLDER frees every lease HOLDER has")
    leases.add_argument("--workspace", metavar="NAME", default="default",
                        help="the workspace (default: default)")
    leases.add_argument("action", nargs="?", choices=("list", "release"), default="list",
                        help="what to do (default: list)")
    leases.add_argument("target", metavar="HOLDER", nargs="?", default=None,
                        help="release: the holder whose leases are freed")


def option(args: argparse.Namespace, name: str, default: Any = None) -> Any:
    """An option's value, ``default`` when it was not given (options default to absent)."""
    return getattr(args, name, default)


def json_arguments(text: str | None, stdin: IO[str]) -> dict[str, Any] | None:
    """A verb's ``JSON`` argument as an object (``-``: read from ``stdin``), None if absent."""
    if text is None:
        return None
    if text == "-":
        text = stdin.read()
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"the arguments are not JSON ({exc.msg} at column {exc.colno}): "
                         f"{text!r}") from None
    if not isinstance(value, dict):
        raise UsageError(f"the arguments must be a JSON object, like '{{\"text\": \"hi\"}}', "
                         f"not {text!r}")
    return value


def parse_headers(values: Sequence[str]) -> dict[str, str]:
    """The ``--header NAME:VALUE`` options as a mapping (split at the first colon)."""
    headers = {}
    for value in values:
        name, sep, rest = value.partition(":")
        if not sep or not name.strip():
            raise UsageError(f"--header wants NAME:VALUE, not {value!r}")
        headers[name.strip()] = rest.strip()
    return headers


def check_server_options(args: argparse.Namespace) -> None:
    """The rules between options argparse cannot check; a :class:`UsageError` if one is broken."""
    chosen = [f"--{name}" for name in ("stdio", "http", "sse", "config") if option(args, name)]
    if not chosen:
        raise UsageError("say which server: --stdio \"COMMAND ARGS...\", --http URL, or "
                         "--config FILE --server NAME")
    if len(chosen) > 1:
        raise UsageError(f"{' and '.join(chosen)} cannot be used together; choose one")
    if option(args, "header") and not (option(args, "http") or option(args, "sse")):
        raise UsageError("--header goes with --http or --sse")
    if (option(args, "auth") or args.verb in ("login", "logout")) and not option(args, "http"):
        raise UsageError(f"{'--auth' if option(args, 'auth') else args.verb} goes with --http")
    if option(args, "server") and not option(args, "config"):
        raise UsageError("--server goes with --config")
    era = option(args, "era")
    if era is not None and era not in ("auto", "legacy") and not protocol.is_modern_version(era):
        raise UsageError(f"--era must be auto, legacy or a modern protocol version such as "
                         f"{protocol.MODERN_VERSIONS[0]}, not {era!r}")
    timeout = option(args, "timeout")
    if timeout is not None and not timeout >= 0:
        raise UsageError(f"--timeout must be a number of seconds >= 0, not {timeout:g}")
