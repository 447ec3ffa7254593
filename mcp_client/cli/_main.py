"""``python -m mcp_client`` (and ``mcp-client``): try an MCP server from a terminal.

Usage::

    mcp-client VERB [ARGS] (--stdio "COMMAND ARGS..." | --http URL [--header K:V]...
                            | --sse URL [--header K:V]... | --config FILE [--server NAME])
               [--json] [--timeout S] [--era ERA] [--log-level LEVEL] [-v] [--trace]

Verbs: ``info``, ``tools``, ``call TOOL [JSON]``, ``resources``, ``read URI``,
``templates``, ``prompts``, ``prompt NAME [JSON]``, ``app TOOL [JSON]``
(call a tool and show its MCP Apps view in a browser: :mod:`mcp_client.cli._app`,
its own options ``--no-open`` and ``--rules FILE``), and for OAuth-protected
``--http`` servers ``login`` and ``logout``.  Options may come before or
after the verb.  The operator's verbs ``grants`` and ``leases`` read and fix
a fleet store instead of talking to a server (:mod:`mcp_client.cli._fleet`);
their options come after the verb.

This module owns the command line: parsing it, connecting, running one verb,
printing the answer and choosing the exit code; :func:`main` here ties
the steps together.  The options and verbs are
:mod:`mcp_client.cli._parser`, one run (the hooks, connecting, the verb and
the failure report) :mod:`mcp_client.cli._run`, the codes and the mapping
:mod:`mcp_client.cli._exits`.  Rendering lives in
:mod:`mcp_client.cli._output`, the terminal conversation (progress bar,
elicitation form) in :mod:`mcp_client.cli._terminal`.  It must never print a
Python traceback for an expected failure: every :class:`MCPClientError` and
every bad input becomes one line on stderr and an exit code.

Exit codes:

* ``0`` -- success.
* ``1`` -- the tool ran and reported ``isError`` (its result is still printed).
* ``2`` -- usage: a bad command line (a URL or header the transport
  refuses included), arguments that are not a JSON object, a configuration
  file that cannot be used, an unknown or disabled server, a store URL of an
  engine this version lacks (``UnsupportedStore``).
* ``3`` -- protocol: the server answered with a JSON-RPC error or broke the
  protocol (``ProtocolError``, ``UnsupportedVersion``, ``InputLoopExceeded``).
* ``4`` -- connection: the server could not be started or reached, died, or
  did not answer in time (``SpawnFailed``, ``ServerGone``,
  ``TransportClosed``, ``TransportError``, ``Timeout``); for ``grants`` and
  ``leases``, the store could not be reached (``StoreUnavailable``).
* ``5`` -- any other client error.
* ``130`` -- interrupted (Ctrl-C).

Decisions:

* ``--stdio`` is split with :func:`shlex.split` and run without a shell.
  ``--http`` reaches a server of either era (2026-07-28, or the 2025-11-25
  handshake in a session, or -- found by itself -- 2024-11-05 HTTP+SSE);
  ``--sse`` goes to HTTP+SSE directly.  ``--header`` is ``Name: value``
  (split at the first colon) and only goes with ``--http`` or ``--sse``.
  ``--config`` without ``--server`` picks the file's only enabled server,
  and is a usage error when there are several.  Only the
  chosen entry has to be usable: another entry naming an unset variable does
  not stop this one.  ``--era`` wins over the entry's ``era``.
* Output: stdout carries the answer only -- tables and text, or with
  ``--json`` one JSON document (the client's data as returned: a list for the
  list verbs, the result object for ``call``/``read``/``prompt``, and for
  ``info`` an object with ``serverInfo``, ``era``, ``protocolVersion``,
  ``supportedVersions``, ``capabilities`` and ``instructions``).  On failure
  stdout is empty (except a tool's ``isError`` result, which is a result);
  the error goes to stderr as one line naming the exception, the method
  and the server (``error: ProtocolError: resources/read on demo-server:
  ...``).  With ``--json`` the error is the one JSON document instead, on
  stdout, and stderr stays quiet: ``{"error": {"type", "message",
  "server"?, "method"?, ...}}`` with the exception's attributes
  (``code``, ``data``, ``exit_code``, ``stderr_tail``, ``seconds``...);
  usage errors, argparse's own included, are ``"type": "UsageError"``.  The
  exit codes are the same either way.
* The server is named by its ``serverInfo`` name once the handshake told
  it, before that by the ``--config`` entry's name, the program of
  ``--stdio`` (with its first argument that is not an option) or the
  ``--http`` URL (userinfo and query values hidden).
* The server's stderr (the last lines the stdio transport keeps) is printed
  to stderr, under a ``--- server stderr ---`` line, when the command fails
  to connect, or the server died or did not answer in time (exit code 4)
  -- after the client is closed, so a server that dies at once has had its
  last words read.  A protocol error is the server's answer, so its stderr
  is not shown.  ``-v`` shows it as it arrives, with the client's own
  warnings.  ``--log-level``
  asks the server for log messages and prints them to stderr as
  ``[server LEVEL logger] message``.
* ``--trace`` prints the wire trace on stderr (:mod:`mcp_client.cli._trace`):
  every JSON-RPC message, ``>>`` out and ``<<`` in, and over HTTP the
  request and status lines with their headers, credentials hidden.
* A progress bar is drawn on stderr for ``call`` when stderr is a terminal.
* Elicitation is answered through a form on the terminal when stdin and
  stderr are both terminals (see :mod:`mcp_client.cli._terminal`: Ctrl-D
  declines), and declined otherwise, with a note on stderr.  Both modes are
  declared: a URL-mode request shows the URL and asks for consent (``y``
  accepts; the URL is never opened or fetched by the command).  A server's
  ``-32042`` (URL elicitation required) is a protocol error whose report
  lists each URL to open before running the command again.  Sampling and
  roots are not offered.
* OAuth: ``login --http URL`` logs in through the browser and keeps the
  tokens in the user's token file (:func:`mcp_client.auth._storage.user_token_path`,
  mode 0600); ``--auth oauth`` on any verb uses them (and logs in first when
  there are none, before connecting, so no probe budget cuts a person short);
  ``logout`` forgets them.  ``login`` returns once a browser command it
  started has ended (a text browser in the terminal: when it is quit, so the
  terminal is not left to two programs).  With no browser (or one that
  fails), ``login`` -- and ``--auth oauth`` when stdin is a terminal --
  prints the authorization URL on stderr and reads the address the browser
  ended on, or the code, from stdin (``OAuth(on_no_browser=...)``).
* ``JSON`` arguments may be ``-`` to read them from stdin.  Prompt arguments
  are passed as given (the protocol wants strings).  On a terminal (stdin
  and stderr), ``prompt`` first asks for the prompt's required arguments the
  JSON left out -- and its optional ones when there was no JSON -- with the
  server's suggestions when it declares ``completions`` (see
  :mod:`mcp_client.cli._terminal`); a completion that fails only costs the
  suggestions.  Ctrl-D there is a usage error.  Piped, nothing is asked.
* ``--timeout`` is the budget of the verb's own requests (seconds, ``0`` for
  none; each page of a list counts as one), and also bounds connecting as a
  whole (the client's ``connect_budget``: the probe, then the handshake), so
  ``--timeout 5`` on a server that never answers fails within about 5 s,
  saying that neither ``server/discover`` nor ``initialize`` was answered;
  a stdio server then gets a tenth of it (0.2 s to 2 s, the ``kill_grace``)
  to exit once its stdin is closed, before SIGTERM.
  Without it connecting keeps the client's defaults (``probe_timeout`` 5 s,
  then the handshake under ``request_timeout`` 60 s).
"""

from __future__ import annotations

import os
import sys
from typing import IO, Any, Sequence

from ..exceptions import MCPClientError
from ._app import load_rules
from ._fleet import run_fleet
from ._exits import (EXIT_CLIENT, EXIT_CONNECTION, EXIT_INTERRUPTED, EXIT_OK, EXIT_PROTOCOL,
                     EXIT_TOOL_ERROR, EXIT_USAGE, UsageError, exit_code_for)
from ._output import write_error_json
from ._parser import (FLEET_VERBS, REGISTRY_VERBS, ParseError, build_parser,
                      check_server_options, json_arguments, option)
from ._run import Run

__all__ = ["main", "build_parser", "exit_code_for", "EXIT_OK", "EXIT_TOOL_ERROR", "EXIT_USAGE",
           "EXIT_PROTOCOL", "EXIT_CONNECTION", "EXIT_CLIENT", "EXIT_INTERRUPTED"]


def main(argv: Sequence[str] | None = None, *, stdin: IO[str] | None = None,
         stdout: IO[str] | None = None, stderr: IO[str] | None = None) -> int:
    """Run the command line.

    Args:
        argv: the arguments (default: ``sys.argv[1:]``).
        stdin, stdout, stderr: the streams (default: the process's).

    Returns:
        the exit code (see the module docstring).
    """
    stdin = sys.stdin if stdin is None else stdin
    stdout = sys.stdout if stdout is None else stdout
    stderr = sys.stderr if stderr is None else stderr
    words = list(sys.argv[1:] if argv is None else argv)
    try:
        args = build_parser().parse_args(words)
    except SystemExit as exc:   # --help or --version
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    except ParseError as exc:
        if "--json" in words:
            write_error_json(stdout, {"type": "UsageError", "message": exc.message})
        else:   # what argparse itself prints
            exc.parser.print_usage(stderr)
            stderr.write(f"{exc.parser.prog}: error: {exc.message}\n")
        return EXIT_USAGE
    if args.verb in FLEET_VERBS:
        return run_fleet(args, stdout, stderr)
    if args.verb in REGISTRY_VERBS:
        from ._discover import run_discovery

        return run_discovery(args, stdout, stderr)
    run = Run(args, stdin, stdout, stderr)
    tracing = _tracing(run) if option(args, "trace", False) else None
    client = None
    failure: UsageError | MCPClientError | None = None
    try:
        check_server_options(args)
        run.arguments = json_arguments(option(args, "arguments"), stdin)
        if args.verb == "app":
            run.rules = load_rules(option(args, "rules"))
        if args.verb in ("login", "logout"):
            return run.account()
        try:
            client = run.connect()
        except MCPClientError as exc:
            if type(exc) is MCPClientError:   # a bad URL, header or value: the command line's
                raise UsageError(str(exc)) from None
            raise
        data, render, code = run.perform(client)
        if args.verb != "app":   # the app verb printed its page's address as it opened
            run.show(data, render)
        if code == EXIT_TOOL_ERROR:
            run.note("the tool reported an error (isError)")
        return code
    except (UsageError, MCPClientError) as exc:
        failure = exc
    except KeyboardInterrupt:
        if run.terminal:
            stderr.write("\n")   # the cursor may be on a prompt or a progress bar
        if run.json:
            write_error_json(stdout, {"type": "KeyboardInterrupt", "message": "interrupted"})
        else:
            run.note("interrupted")
        return EXIT_INTERRUPTED
    except BrokenPipeError:   # stdout closed early (| head): not worth a word
        _silence(stdout)
        return EXIT_OK
    finally:
        run.close()   # first: a form waiting for a line must let the client close
        if client is not None:
            client.close()
        if tracing is not None:
            tracing.stop()
    return run.fail(failure, client)


def _tracing(run: Run) -> Any:
    """``--trace``: the wire logger printed on the run's stderr, until :meth:`stop`."""
    from ._trace import Tracing

    bar = run.progress
    return Tracing(run.stderr, before=bar.clear if bar is not None else None).start()


def _silence(stream: IO[str]) -> None:
    """Point ``stream``'s descriptor at /dev/null so the exit flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass
