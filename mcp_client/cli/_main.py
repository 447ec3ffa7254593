"""``python -m mcp_client`` (and ``mcp-client``): try an MCP server from a terminal.

Usage::

    mcp-client VERB [ARGS] (--stdio "COMMAND ARGS..." | --http URL [--header K:V]...
                            | --sse URL [--header K:V]... | --config FILE [--server NAME])
               [--json] [--timeout S] [--era ERA] [--log-level LEVEL] [-v] [--trace]

Verbs: ``info``, ``tools``, ``call TOOL [JSON]``, ``resources``, ``read URI``,
``templates``, ``prompts``, ``prompt NAME [JSON]``, and for OAuth-protected
``--http`` servers ``login`` and ``logout``.  Options may come before or
after the verb.

This module owns the command line: parsing it, connecting, running one verb,
printing the answer and choosing the exit code.  The options and verbs
are :mod:`mcp_client.cli._parser`, the codes and the mapping
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
  file that cannot be used, an unknown or disabled server.
* ``3`` -- protocol: the server answered with a JSON-RPC error or broke the
  protocol (``ProtocolError``, ``UnsupportedVersion``, ``InputLoopExceeded``).
* ``4`` -- connection: the server could not be started or reached, died, or
  did not answer in time (``SpawnFailed``, ``ServerGone``,
  ``TransportClosed``, ``TransportError``, ``Timeout``).
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
  ``logout`` forgets them.
* ``JSON`` arguments may be ``-`` to read them from stdin.  Prompt arguments
  are passed as given (the protocol wants strings).  On a terminal (stdin
  and stderr), ``prompt`` first asks for the prompt's required arguments the
  JSON left out -- and its optional ones when there was no JSON -- with the
  server's suggestions when it declares ``completions`` (see
  :mod:`mcp_client.cli._terminal`); a completion that fails only costs the
  suggestions.  Ctrl-D there is a usage error.  Piped, nothing is asked.
* ``--timeout`` is the budget of the verb's own requests (seconds, ``0`` for
  none; each page of a list counts as one); connecting keeps the client's
  defaults (``probe_timeout`` 5 s, then the handshake under
  ``request_timeout`` 60 s), so a short budget for a call does not fail a
  slow-starting server.
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import difflib
import json
import os
import shlex
import shutil
import sys
from typing import IO, Any, Callable, Sequence

from .._redact import redact_url
from ..exceptions import MCPClientError, ServerGone
from ._exits import (EXIT_CLIENT, EXIT_CONNECTION, EXIT_INTERRUPTED, EXIT_OK, EXIT_PROTOCOL,
                     EXIT_TOOL_ERROR, EXIT_USAGE, UsageError, exit_code_for)
from ._output import program_label, write_error_json
from ._parser import (PROG, VERB_METHODS, ParseError, build_parser, check_server_options,
                      json_arguments, option, parse_headers)

__all__ = ["main", "build_parser", "exit_code_for", "EXIT_OK", "EXIT_TOOL_ERROR", "EXIT_USAGE",
           "EXIT_PROTOCOL", "EXIT_CONNECTION", "EXIT_CLIENT", "EXIT_INTERRUPTED"]

#: Lines of the server's stderr kept for the failure report.
STDERR_LINES = 50


# -- one run ---------------------------------------------------------------------------

class _Run:
    """One invocation: the streams, the options, the connection and the report."""

    def __init__(self, args: argparse.Namespace, stdin: IO[str], stdout: IO[str],
                 stderr: IO[str]) -> None:
        self.args = args
        self.stdin, self.stdout, self.stderr = stdin, stdout, stderr
        self.json = bool(option(args, "json", False))
        self.arguments: dict[str, Any] | None = None
        self.server: str | None = None    # how errors name the server (module docstring)
        self.method: str | None = None    # the request under way, for errors
        self.handshake = "initialize" if option(args, "era") == "legacy" else "server/discover"
        self.verbose = bool(option(args, "verbose", False))
        self.server_stderr: collections.deque[str] = collections.deque(maxlen=STDERR_LINES)
        self.terminal = _isatty(stderr)
        self.interactive = self.terminal and _isatty(stdin)
        from ._terminal import Form, ProgressBar

        self.progress = ProgressBar(stderr) if self.terminal and args.verb == "call" else None
        self.form = Form(stdin, stderr, self.progress) if self.interactive else None

    # -- the client's hooks --------------------------------------------------------

    def client_options(self) -> dict[str, Any]:
        options: dict[str, Any] = {"on_warn": self._on_warn, "on_elicit": self._on_elicit,
                                   "on_elicit_url": self._on_elicit_url}
        if option(self.args, "era") is not None:
            options["era"] = self.args.era
        if option(self.args, "log_level") is not None:
            options["log_level"] = self.args.log_level
            options["on_log"] = self._on_log
        if self.progress is not None:
            options["on_progress"] = self.progress
            options["on_task_status"] = self.progress.task
        return options

    def note(self, text: str) -> None:
        if self.progress is not None:
            self.progress.clear()
        self.stderr.write(f"{PROG}: {text}\n")
        self.stderr.flush()

    def _on_warn(self, text: str) -> None:
        if self.verbose:
            self.note(f"warning: {text}")

    def _on_stderr(self, line: str) -> None:
        self.server_stderr.append(line)
        if self.verbose:
            self.note(f"[server stderr] {line}")

    def _on_log(self, params: dict[str, Any]) -> None:
        data = params.get("data")
        text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
        where = " ".join(str(p) for p in (params.get("level"), params.get("logger")) if p)
        self.note(f"[server {where}] {text}")

    def _on_elicit(self, request: dict[str, Any]) -> dict[str, Any]:
        if self.form is not None:
            return self.form(request)
        message = (request.get("params") or {}).get("message", "")
        self.note(f"the server asked {message!r}; declined (stdin is not a terminal)")
        return {"action": "decline"}

    def _on_elicit_url(self, request: dict[str, Any]) -> dict[str, Any]:
        if self.form is not None:
            return self.form.url(request, server=self.server)
        from ._terminal import printable

        params = request.get("params") or {}
        self.note(f"the server asked you to open {printable(str(params.get('url')))} "
                  f"({printable(str(params.get('message', '')))}); declined (stdin is not "
                  "a terminal)")
        return {"action": "decline"}

    # -- connecting ----------------------------------------------------------------

    def connect(self) -> Any:
        from ..client import Client

        options = self.client_options()
        if option(self.args, "stdio"):
            try:
                argv = shlex.split(self.args.stdio)
            except ValueError as exc:
                raise UsageError(f"--stdio: {exc}") from None
            if not argv:
                raise UsageError("--stdio needs a command")
            self.server = program_label(argv)
            return Client.connect_stdio(argv[0], args=argv[1:], on_stderr=self._on_stderr,
                                        **options)
        if option(self.args, "http"):
            headers = parse_headers(option(self.args, "header", []))
            self.server = redact_url(self.args.http)
            if option(self.args, "auth") == "oauth":
                options["auth"] = auth = self.oauth()
                auth.login(self.args.http)   # before the probe: a person is not a server
            return Client.connect_http(self.args.http, headers=headers or None, **options)
        if option(self.args, "sse"):
            headers = parse_headers(option(self.args, "header", []))
            return Client.connect_sse(self.args.sse, headers=headers or None, **options)
        entry = self._config_entry()
        self.server = entry.name
        if entry.era == "legacy" and option(self.args, "era") is None:
            self.handshake = "initialize"
        if option(self.args, "era") is not None:
            entry = dataclasses.replace(entry, era=self.args.era)
        if entry.kind == "stdio":
            options["on_stderr"] = self._on_stderr
        return entry.connect(**options)

    def oauth(self) -> Any:
        """The OAuth object of ``--auth oauth`` and ``login``: the user's token file."""
        from ..auth import FileTokenStorage, OAuth
        from ..auth._storage import user_token_path

        return OAuth(client_name=PROG, storage=FileTokenStorage(user_token_path()))

    def account(self) -> int:
        """The ``login`` and ``logout`` verbs."""
        from .._redact import redact_url

        auth = self.oauth()
        shown = redact_url(self.args.http)
        if self.args.verb == "logout":
            auth.bind(self.args.http)
            auth.forget()
            self.note(f"logged out of {shown}")
        else:
            auth.login(self.args.http)
            self.note(f"logged in to {shown}")
        auth.close()
        return EXIT_OK

    def _config_entry(self) -> Any:
        from ..config import ConfigError, load_config

        broken: dict[str | None, ConfigError] = {}

        def note(exc: ConfigError) -> None:
            broken.setdefault(exc.server, exc)

        try:   # only the chosen entry has to be usable
            entries = load_config(self.args.config, on_error=note)
        except ConfigError as exc:
            raise UsageError(str(exc)) from None
        by_name = {entry.name: entry for entry in entries}
        name = option(self.args, "server")
        if name is None:
            enabled = [entry.name for entry in entries if not entry.disabled]
            if len(enabled) != 1 or broken:
                listed = ", ".join(enabled + [str(n) for n in broken]) or "none"
                raise UsageError(f"--config needs --server NAME (servers: {listed})")
            name = enabled[0]
        if name in broken:
            raise UsageError(str(broken[name]))
        if name not in by_name:
            known = list(by_name) + [str(n) for n in broken]
            close = difflib.get_close_matches(name, known, n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise UsageError(f"no server {name!r} in {self.args.config}{hint}; it has: "
                             f"{', '.join(known) or 'none'}")
        if by_name[name].disabled:
            raise UsageError(f"server {name!r} is disabled in {self.args.config}")
        return by_name[name]

    # -- the verbs -----------------------------------------------------------------

    def perform(self, client: Any) -> tuple[Any, Callable[[Any], str], int]:
        """Run the verb: (its data, how to render it for people, exit code)."""
        from . import _output as out

        verb, args = self.args.verb, self.args
        width = shutil.get_terminal_size().columns if _isatty(self.stdout) else None
        budget = {"timeout": option(args, "timeout")}
        # The handshake first, under the client's own budgets, so that an error
        # can say which request failed and which server it was.
        self.method = self.handshake
        name = client.server_info.get("name")
        if isinstance(name, str) and name and not option(args, "config"):
            self.server = name
        if verb != "info":
            self.method = VERB_METHODS[verb]
        if verb == "info":
            return _info(client), out.info_text, EXIT_OK
        if verb == "tools":
            return client.list_tools(**budget), lambda d: out.tools_table(d, width=width), \
                EXIT_OK
        if verb == "resources":
            return client.list_resources(**budget), \
                lambda d: out.resources_table(d, width=width), EXIT_OK
        if verb == "templates":
            return client.list_resource_templates(**budget), \
                lambda d: out.templates_table(d, width=width), EXIT_OK
        if verb == "prompts":
            return client.list_prompts(**budget), lambda d: out.prompts_table(d, width=width), \
                EXIT_OK
        if verb == "read":
            return client.read_resource(args.uri, **budget), out.contents_text, EXIT_OK
        if verb == "prompt":
            if self.form is not None:
                self.arguments = self.prompt_arguments(client, budget)
            return client.get_prompt(args.name, self.arguments, **budget), out.prompt_text, \
                EXIT_OK
        result = client.call_tool(args.name, self.arguments, **budget)
        code = EXIT_TOOL_ERROR if result.get("isError") is True else EXIT_OK
        return result, out.result_text, code

    def prompt_arguments(self, client: Any, budget: dict[str, Any]) -> dict[str, Any] | None:
        """The ``prompt`` verb's arguments, the missing ones asked on the terminal."""
        from ._arguments import ask_prompt_arguments
        from ._terminal import Declined

        assert self.form is not None
        self.method = "prompts/list"
        try:
            return ask_prompt_arguments(client, self.form, self.args.name, self.arguments,
                                        budget, warn=self._on_warn)
        except Declined:
            raise UsageError(f"the arguments of prompt {self.args.name!r} were not all "
                             "given") from None
        finally:
            self.method = VERB_METHODS["prompt"]

    def show(self, data: Any, render: Callable[[Any], str]) -> None:
        if self.progress is not None:
            self.progress.clear()
        text = json.dumps(data, indent=2, ensure_ascii=False) if self.json else render(data)
        self.stdout.write(text if text.endswith("\n") else text + "\n")
        self.stdout.flush()

    def fail(self, exc: BaseException, client: Any = None) -> int:
        """Report a failure (see the module docstring); the exit code.

        Called once the client is closed, so every line the server wrote to
        stderr has been read: a server that dies at once may be reported
        before its last words are in (``ServerGone.stderr_tail`` empty), and
        the transport knows its exit status by now even if the error did not.
        """
        code = exit_code_for(exc)
        transport = getattr(client, "transport", None)
        # The transport's own tail is complete once it is closed, and holds only the
        # last run of a server restarted for the handshake; the lines we were handed
        # are the fallback when there is no client (it failed while being built).
        kept = getattr(transport, "stderr_tail", "")
        tail = kept.splitlines() if isinstance(kept, str) else []
        report: dict[str, Any] = {}
        if isinstance(exc, ServerGone):
            text = exc.detail or "the server went away"
            status = exc.exit_code
            if status is None:
                status = getattr(transport, "returncode", None)
            if status is not None:
                text += f" (exit code {status})"
                report["exit_code"] = status
            tail = tail or exc.stderr_tail.splitlines()
        else:
            text = str(exc)
            method = self._method(exc)
            if method and text.startswith(f"{method}: "):
                text = text[len(method) + 2:]   # named once, by _where or the "method" key
        tail = tail or list(self.server_stderr)
        if code != EXIT_CONNECTION:   # the server answered: its stderr is beside the point
            tail = []
        if self.json:
            self._fail_json(exc, text, report, tail)
            return code
        kind = "" if isinstance(exc, UsageError) else f"{type(exc).__name__}: "
        where = self._where(exc, text)
        self.note(f"error: {kind}{where + ': ' if where else ''}{text}")
        for wanted in getattr(exc, "elicitations", ()):   # URLElicitationRequired
            from ._terminal import printable

            self.note(f"the server asks you to open {printable(wanted['url'])} "
                      f"({printable(str(wanted.get('message', '')))}), then to run the "
                      "command again")
        if tail and not self.verbose:
            self.stderr.write("--- server stderr ---\n" + "\n".join(tail) + "\n")
            self.stderr.flush()
        return code

    def _method(self, exc: BaseException) -> str | None:
        method = getattr(exc, "method", None)
        return method if isinstance(method, str) and method else self.method

    def _where(self, exc: BaseException, text: str) -> str:
        """``METHOD on SERVER``, or as much of it as the message does not say."""
        if isinstance(exc, UsageError):
            return ""
        method, server = self._method(exc), self.server
        if method and text.startswith(method):
            method = None
        if method and server:
            return f"{method} on {server}"
        return server or method or ""

    def _fail_json(self, exc: BaseException, text: str, report: dict[str, Any],
                   tail: list[str]) -> None:
        """The failure as ``{"error": {...}}``: the one document on stdout."""
        error: dict[str, Any] = {
            "type": "UsageError" if isinstance(exc, UsageError) else type(exc).__name__,
            "message": text}
        if not isinstance(exc, UsageError):
            if self.server:
                error["server"] = self.server
            if self._method(exc):
                error["method"] = self._method(exc)
            attributes = {k: v for k, v in vars(exc).items() if not k.startswith("_")}
            for key, value in {**attributes, **report}.items():
                error.setdefault(key, value)
            if tail:
                error["stderr_tail"] = "\n".join(tail)
        write_error_json(self.stdout, error)

    def close(self) -> None:
        if self.form is not None:
            self.form.stop()
        if self.progress is not None:
            self.progress.clear()


def _info(client: Any) -> dict[str, Any]:
    return {"serverInfo": client.server_info, "era": client.era,
            "protocolVersion": client.protocol_version,
            "supportedVersions": list(client.supported_versions),
            "capabilities": client.capabilities, "instructions": client.instructions}


def _isatty(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


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
    run = _Run(args, stdin, stdout, stderr)
    tracing = _tracing(run) if option(args, "trace", False) else None
    client = None
    failure: UsageError | MCPClientError | None = None
    try:
        check_server_options(args)
        run.arguments = json_arguments(option(args, "arguments"), stdin)
        if args.verb in ("login", "logout"):
            return run.account()
        try:
            client = run.connect()
        except MCPClientError as exc:
            if type(exc) is MCPClientError:   # a bad URL, header or value: the command line's
                raise UsageError(str(exc)) from None
            raise
        data, render, code = run.perform(client)
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


def _tracing(run: _Run) -> Any:
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
