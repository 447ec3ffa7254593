"""One run of the command line: the client's hooks on the terminal, the verb, the report.

This module owns :class:`Run`, everything between a parsed command line and
its exit code: the client options whose hooks talk to the terminal
(warnings, server stderr and logs, elicitation, progress), connecting to the
server the options name (``--stdio``, ``--http``, ``--sse`` or a
``--config`` entry, and the ``login``/``logout`` verbs), running the verb
and printing its answer, and the failure report on stderr or as JSON.
Rendering is :mod:`mcp_client.cli._output`'s; the behaviour is recorded in
:mod:`mcp_client.cli._main`.
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import difflib
import json
import shlex
import shutil
from typing import IO, Any, Callable

from .._redact import redact_url
from ..exceptions import ServerGone, exit_status
from ._exits import EXIT_CONNECTION, EXIT_OK, EXIT_TOOL_ERROR, UsageError, exit_code_for
from ._output import program_label, write_error_json
from ._parser import PROG, VERB_METHODS, option, parse_headers

__all__ = ["Run", "STDERR_LINES", "isatty"]

#: Lines of the server's stderr kept for the failure report.
STDERR_LINES = 50


class Run:
    """One invocation: the streams, the options, the connection and the report."""

    def __init__(self, args: argparse.Namespace, stdin: IO[str], stdout: IO[str],
                 stderr: IO[str]) -> None:
        self.args = args
        self.stdin, self.stdout, self.stderr = stdin, stdout, stderr
        self.json = bool(option(args, "json", False))
        self.arguments: dict[str, Any] | None = None
        self.rules: list[dict[str, Any]] | None = None   # the app verb's --rules
        self.server: str | None = None    # how errors name the server (cli._main)
        self.method: str | None = None    # the request under way, for errors
        self.handshake = "initialize" if option(args, "era") == "legacy" else "server/discover"
        self.verbose = bool(option(args, "verbose", False))
        self.server_stderr: collections.deque[str] = collections.deque(maxlen=STDERR_LINES)
        self.terminal = isatty(stderr)
        self.interactive = self.terminal and isatty(stdin)
        from ._terminal import Form, ProgressBar

        self.progress = ProgressBar(stderr) if self.terminal and args.verb == "call" else None
        self.form = Form(stdin, stderr, self.progress) if self.interactive else None

    # -- the client's hooks --------------------------------------------------------

    def client_options(self) -> dict[str, Any]:
        options: dict[str, Any] = {"on_warn": self._on_warn, "on_elicit": self._on_elicit,
                                   "on_elicit_url": self._on_elicit_url}
        if self.args.verb == "app":
            options["apps"] = True   # declare the MCP Apps extension: the view is read
        if option(self.args, "era") is not None:
            options["era"] = self.args.era
        if option(self.args, "timeout") is not None:
            options["connect_budget"] = self.args.timeout   # 0: none
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
                                        **self._stdio_grace(options))
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
            options = self._stdio_grace(options)
        return entry.connect(**options)

    def _stdio_grace(self, options: dict[str, Any]) -> dict[str, Any]:
        """Under ``--timeout``, a tenth of it (0.2 s to 2 s) for the server to exit on EOF.

        Exiting is part of the budget the user set: a server that ignores the
        end of its stdin is sent SIGTERM that much later (``kill_grace``).
        """
        timeout = option(self.args, "timeout")
        if timeout:
            options = {**options, "kill_grace": min(2.0, max(0.2, timeout / 10))}
        return options

    def oauth(self) -> Any:
        """The OAuth object of ``--auth oauth`` and ``login``: the user's token file."""
        from ..auth import FileTokenStorage, OAuth, user_token_path

        pasting = self.args.verb == "login" or self.interactive
        return OAuth(client_name=PROG, storage=FileTokenStorage(user_token_path()),
                     on_no_browser=self._paste if pasting else None)

    def _paste(self, url: str) -> str:
        """With no browser (an SSH session): the URL to open elsewhere, and the
        address (or code) the person pastes back on stdin."""
        from ._terminal import printable

        self.stderr.write(f"No browser could be opened here. Open this address in a browser "
                          f"on any machine:\n\n{printable(url)}\n\nthen paste here the address "
                          f"the browser ends on (from its address bar, even if the page does "
                          f"not load) or the code it shows, and press Enter:\n")
        self.stderr.flush()
        return self.stdin.readline()

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
            if not auth.wait_for_browser(0):   # a browser in this terminal: not under it
                self.note("the browser is still open; quit it to return")
                auth.wait_for_browser()
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
            if not enabled and len(broken) == 1:   # the one server: say what is wrong with it
                raise UsageError(str(next(iter(broken.values()))))
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
        width = shutil.get_terminal_size().columns if isatty(self.stdout) else None
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
        if verb == "app":
            from ._app import run_app

            return None, str, run_app(self, client, budget)
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
        """Report a failure (see :mod:`mcp_client.cli._main`); the exit code.

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
                text += f" ({exit_status(status)})"
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
            self._url_to_open(wanted)
        if tail and not self.verbose:
            self.stderr.write("--- server stderr ---\n" + "\n".join(tail) + "\n")
            self.stderr.flush()
        return code

    def _url_to_open(self, wanted: Any) -> None:
        """One URL a ``-32042`` asks the user to open: shown only if it may be opened."""
        from ._terminal import printable, url_check

        url = str(wanted.get("url", "")) if isinstance(wanted, dict) else ""
        refused, host, warnings = url_check(url)
        message = printable(str(wanted.get("message", ""))) if isinstance(wanted, dict) else ""
        if refused is not None:
            self.note(f"the server asks you to open a URL, not shown: {refused}")
            return
        self.note(f"the server asks you to open {printable(url)} ({message}; host: {host}), "
                  "then to run the command again")
        for warning in warnings:
            self.note(f"warning: {warning}")

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


def isatty(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
