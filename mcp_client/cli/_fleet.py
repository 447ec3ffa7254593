"""The operator's verbs: ``grants`` and ``leases`` read and fix a fleet store.

Usage::

    mcp-client grants --store URL [--book NAME] [list | revoke N | export] [--json]
    mcp-client leases --store URL [--workspace NAME] [list | release HOLDER] [--json]

This module owns those two verbs: opening the store the URL names
(:func:`mcp_client.store.open_store`), reading or changing its grant book
(through :class:`~mcp_client.policy.Grants`) or a workspace's leases
(through :class:`~mcp_client.leases.LeaseTable`), printing the answer and
choosing the exit code.  They talk to no server.

Decisions:

* ``grants list`` numbers the grants from 1, oldest first, each with its
  rule as JSON; ``revoke N`` removes the grant ``list`` numbered ``N``
  (read again and removed by its rule, so a grant added meanwhile is never
  the one removed) and writes a ``revoke`` audit record whose agent is
  ``mcp-client``; ``export`` prints the grants as one JSON list, which
  ``Grants(grants)`` (or ``Grants(grants, store=...)``) takes back.
* ``leases list`` shows every live lease and every hold of a call in flight:
  path, holder, since (UTC, on the store's clock), expires in (``in
  flight`` for a hold: it ends with its call) and the fencing token (``-``
  for a hold).  ``release HOLDER`` frees every lease HOLDER has in the
  workspace; a call of theirs in flight keeps its hold (it ends with the
  call), and the command says so.
* ``--json``: ``grants list`` is ``[{"n", "rule"}]``, ``revoke`` is
  ``{"n", "revoked"}``, ``export`` the list of rules either way; ``leases
  list`` is ``[{"path", "holder", "since", "expires", "expires_in",
  "in_flight", "token"}]`` (``expires`` and ``expires_in`` are ``null`` for a
  hold, ``token`` 0), ``release`` is ``{"holder", "released", "in_flight"}``.
* Only a shared store makes sense: ``memory:`` is refused, and so is an
  SQLite file that does not exist (a mistyped path would otherwise make an
  empty store and show nothing).
* Exit codes are the command line's (:mod:`mcp_client.cli._main`): 2 for a
  bad command line (``revoke`` without a number, or a number the book does
  not have; a store URL that is not one, or of an engine this version lacks;
  an empty book, workspace or holder name), 4 when the store
  cannot be reached or stays locked (:class:`~mcp_client.store.StoreUnavailable`),
  5 for another store error, 130 interrupted.  An error is one line on
  stderr -- or under ``--json`` the one document ``{"error": {"type",
  "message", "store"?}}`` on stdout -- with the store's password hidden.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from typing import IO, Any, Callable

from .._redact import redact_text, redact_url
from ..exceptions import InvalidArgument, MCPClientError, StoreError
from ._exits import EXIT_INTERRUPTED, EXIT_OK, UsageError, exit_code_for
from ._output import table, write_error_json
from ._parser import PROG, option

__all__ = ["run_fleet", "AGENT"]

#: The agent named in the audit record of a grant this command revokes.
AGENT = PROG
#: Options of the server verbs that mean nothing to ``grants`` and ``leases``.
_SERVER_OPTIONS = ("stdio", "http", "sse", "config", "server", "header", "auth")
#: The option that gave what a store or a table calls an argument.
_OPTIONS = {"url": "--store", "name": "--book", "book": "--book", "workspace": "--workspace",
            "agent_id": "HOLDER", "holder": "HOLDER"}


def run_fleet(args: argparse.Namespace, stdout: IO[str], stderr: IO[str]) -> int:
    """Run ``grants`` or ``leases``; the exit code (see the module docstring)."""
    as_json = bool(option(args, "json", False))
    try:
        given = [f"--{name}" for name in _SERVER_OPTIONS if option(args, name)]
        if given:
            raise UsageError(f"{args.verb} reads a store and talks to no server: "
                             f"{', '.join(given)} is not for it")
        with _open(args.store) as store:
            verb = _grants if args.verb == "grants" else _leases
            data, text, notes = verb(store, args)
    except InvalidArgument as exc:   # a URL, book, workspace or holder the store refuses
        named = _OPTIONS.get(exc.argument)
        refused = f"{named} {exc.reason}, not {exc.value!r}" if named else str(exc)
        return _fail(UsageError(refused), args, as_json, stdout, stderr)
    except (UsageError, MCPClientError) as exc:
        return _fail(exc, args, as_json, stdout, stderr)
    except KeyboardInterrupt:
        if as_json:
            write_error_json(stdout, {"type": "KeyboardInterrupt", "message": "interrupted"})
        else:
            stderr.write(f"{PROG}: interrupted\n")
        return EXIT_INTERRUPTED
    shown = json.dumps(data, indent=2, ensure_ascii=False) if as_json else text()
    if shown:
        stdout.write(shown if shown.endswith("\n") else shown + "\n")
        stdout.flush()
    for note in notes:
        stderr.write(f"{PROG}: {note}\n")
    return EXIT_OK


def _open(url: str) -> Any:
    """The store ``url`` names, refusing one that cannot be the fleet's."""
    from ..store import open_store

    if url == "memory:":
        raise UsageError("--store memory: is one process's own store, empty in this one; "
                         "give the URL of the store the agents share")
    scheme, sep, rest = url.partition("://")
    path = rest if sep and scheme.lower() == "sqlite" else None if sep else url
    if path is not None and path and not os.path.exists(path):
        raise UsageError(f"--store: no such store file: {path}")
    return open_store(url)


# -- grants -------------------------------------------------------------------------

def _grants(store: Any, args: argparse.Namespace) -> tuple[Any, Callable[[], str], list[str]]:
    from ..policy import Grants

    book = Grants(store=store, book=args.book, agent=AGENT)
    rules = book.grants
    if args.action == "export":
        if args.target is not None:
            raise UsageError(f"export takes no argument, not {args.target!r}")
        return rules, lambda: json.dumps(rules, indent=2, ensure_ascii=False), []
    if args.action == "list":
        if args.target is not None:
            raise UsageError(f"list takes no argument, not {args.target!r}")
        listed = [{"n": n, "rule": rule} for n, rule in enumerate(rules, 1)]
        rows = [[str(item["n"]), _compact(item["rule"])] for item in listed]
        notes = [] if rules else [f"the book {args.book!r} has no grants"]
        return listed, lambda: table(["N", "RULE"], rows) if rows else "", notes
    number = _number(args.target, len(rules), args.book)
    try:
        removed = book.revoke(rules[number - 1])   # by its rule: safe while others write
    except MCPClientError as exc:
        if isinstance(exc, StoreError):
            raise
        raise UsageError(f"grant {number} is no longer in the book {args.book!r} (it changed "
                         "since it was read); list it again") from None
    return ({"n": number, "revoked": removed},
            lambda: f"revoked {number}: {_compact(removed)}", [])


def _number(text: str | None, count: int, book: str) -> int:
    """``revoke N``'s N: a number ``list`` shows."""
    if text is None:
        raise UsageError("revoke needs the grant's number, as grants list shows it")
    try:
        number = int(text)
    except ValueError:
        raise UsageError(f"revoke wants a grant's number, not {text!r}") from None
    if not 1 <= number <= count:
        held = f"1 to {count}" if count else "none: it is empty"
        raise UsageError(f"no grant {number} in the book {book!r} (its numbers: {held})")
    return number


def _compact(rule: Any) -> str:
    return json.dumps(rule, ensure_ascii=False, separators=(", ", ": "))


# -- leases -------------------------------------------------------------------------

def _leases(store: Any, args: argparse.Namespace) -> tuple[Any, Callable[[], str], list[str]]:
    from ..leases import LeaseTable

    workspace = LeaseTable(store=store, workspace=args.workspace)
    if args.action == "release":
        if not args.target:
            raise UsageError("release needs the holder whose leases are freed")
        freed = workspace.release_holder(args.target)
        flying = sorted({h.path for h in workspace.holds() if h.holder == args.target})
        notes = [] if freed else [f"{args.target!r} held no lease in the workspace "
                                  f"{args.workspace!r}"]
        if flying:
            notes.append(f"{args.target!r} has calls in flight on {', '.join(flying)}; "
                         "their holds end with the calls")
        data = {"holder": args.target, "released": freed, "in_flight": flying}
        return data, lambda: "\n".join(freed), notes
    if args.target is not None:
        raise UsageError(f"list takes no argument, not {args.target!r}")
    now = store.now()
    held = sorted(workspace.snapshot(), key=lambda lease: (lease.path, lease.holder))
    holds = sorted(workspace.holds(), key=lambda lease: (lease.since, lease.path))
    listed: list[dict[str, Any]] = []
    rows: list[list[str]] = []
    for lease in held + holds:
        left = None if lease.in_flight else max(0.0, lease.expires - now)
        listed.append({"path": lease.path, "holder": lease.holder, "since": lease.since,
                       "expires": None if left is None else lease.expires, "expires_in": left,
                       "in_flight": lease.in_flight, "token": lease.token})
        rows.append([lease.path, lease.holder, _when(lease.since),
                     "in flight" if left is None else _duration(left),
                     "-" if lease.in_flight else str(lease.token)])
    notes = [] if listed else [f"the workspace {args.workspace!r} has no leases"]
    headers = ["PATH", "HOLDER", "SINCE", "EXPIRES IN", "TOKEN"]
    return listed, lambda: table(headers, rows) if rows else "", notes


def _when(since: float) -> str:
    """A time on the store's clock (epoch seconds for every shared engine), in UTC."""
    return time.strftime("%Y-%m-%d %H:%M:%SZ", time.gmtime(since))


def _duration(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, rest = divmod(int(seconds), 60)
    if minutes < 60:
        return f"{minutes}m {rest:02d}s"
    return f"{minutes // 60}h {minutes % 60:02d}m"


# -- failures -----------------------------------------------------------------------

def _fail(exc: BaseException, args: argparse.Namespace, as_json: bool, stdout: IO[str],
          stderr: IO[str]) -> int:
    """One line on stderr (or the JSON document), the store's password hidden."""
    secret = str(args.store)
    message = redact_text(str(exc))
    if secret:
        message = message.replace(secret, redact_url(secret))
    if as_json:
        error: dict[str, Any] = {
            "type": "UsageError" if isinstance(exc, UsageError) else type(exc).__name__,
            "message": message}
        if isinstance(exc, StoreError):
            error["store"] = redact_url(exc.store)
        write_error_json(stdout, error)
    else:
        kind = "" if isinstance(exc, UsageError) else f"{type(exc).__name__}: "
        stderr.write(f"{PROG}: error: {kind}{message}\n")
        stderr.flush()
    return exit_code_for(exc)
