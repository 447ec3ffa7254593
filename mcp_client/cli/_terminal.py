"""The command line's conversation with a person at a terminal.

This module owns what ``python -m mcp_client`` does on a terminal rather than
on stdout: a progress bar on stderr while a tool call reports progress, an
elicitation form that asks the server's questions one field at a time, and
the entry of a prompt's missing arguments.  All of them write to stderr only,
so stdout stays the command's output (pipe it, and what arrives is the
answer alone).  Nothing here decides *whether* to be interactive:
:mod:`mcp_client.cli` checks that stdin and stderr are terminals and hands
in the streams.

Decisions about the form (the 2025-11-25 / 2026-07-28 elicitation
``requestedSchema`` is a flat object of primitive fields):

* Each property is asked for in schema order, with its title, description,
  type, whether it is required and its default.  Types: ``string`` (with
  ``format``, ``minLength``, ``maxLength``, ``pattern``), ``number``,
  ``integer`` (with ``minimum``/``maximum``), ``boolean`` (``y``/``n``,
  ``yes``/``no``, ``true``/``false``), single-choice enums (``enum``, with
  ``enumNames``, or ``oneOf``/``anyOf`` of ``const`` + ``title``) chosen by
  number or by value, and multiple-choice arrays (comma-separated).  Any
  other property type is read as JSON.
* An empty answer takes the default when there is one, skips an optional
  field, and is refused for a required field.  An answer that does not parse
  or does not satisfy the property's schema (checked with ``jsonschema``,
  formats included, patterns in bounded time by the client's schema checks) is
  explained and asked again.
* End of input (Ctrl-D) at any prompt **declines** the request
  (``{"action": "decline"}``).  Ctrl-C is not an answer: it interrupts the
  whole command (exit 130), which abandons the call.  The form never answers
  ``cancel``.
* A ``url``-mode elicitation (:meth:`Form.url`) shows the server's message,
  the full URL and its host (with a warning for a user part before ``@`` and
  for a punycode or non-ASCII host; control characters shown escaped, so a
  URL cannot rewrite the terminal), and asks ``[y/n]``; a URL that is not
  http(s), names no host, or has a host part browsers would read otherwise
  (a backslash, a space) is declined unasked: ``y`` accepts -- the person opens the URL in a browser
  themselves; nothing here opens or fetches it (2025-11-25 client/elicitation,
  "Safe URL Handling") -- ``n`` or end of input declines.  A url-mode request
  that reaches the form is declined.
* A prompt's arguments (:meth:`Form.arguments`) are asked in the prompt's
  order, required ones until they get a value, optional ones skipped by
  Enter.  When the command passes a ``suggest`` callable (the server declared
  ``completions``), a ``suggestions: a, b, c`` line comes before each
  question (at most :data:`SHOWN_SUGGESTIONS` values, then how many more),
  asked with the arguments answered so far as context; an answer ending in
  ``?`` asks again with suggestions for what precedes it.  No suggestions
  (None, or none found) shows no line.  Plain lines, not readline: stdout
  belongs to the answer, and a scripted terminal sees exactly what a person
  does.  End of input stops the entry (:class:`Declined`).
* Input is read a line at a time with ``select`` between lines, so a form
  left open when the command is interrupted from another thread can be told
  to stop (:meth:`Form.stop`) and never holds the process open.
"""

from __future__ import annotations

import json
import select
import threading
import urllib.parse
from typing import IO, Any, Callable, Mapping, Sequence

from ..client import first_error, validator_for

#: ``suggest(argument, typed, context) -> {"values", "total"?, "hasMore"?}`` or None.
Suggest = Callable[[str, str, Mapping[str, str]], "Mapping[str, Any] | None"]

__all__ = ["ProgressBar", "Form", "Declined", "printable", "url_check"]

#: Characters in the progress bar's bar.
BAR_WIDTH = 24
#: Suggestions shown for one prompt argument.
SHOWN_SUGGESTIONS = 10
#: Seconds between checks for :meth:`Form.stop` while waiting for a line.
_POLL = 0.2
_YES = ("y", "yes", "true", "1")
_NO = ("n", "no", "false", "0")


class Declined(Exception):
    """The person ended the form (end of input)."""


class ProgressBar:
    """A one-line progress bar on a terminal, fed by ``on_progress``.

    Reports arrive on the client's reader thread, so drawing never waits for
    anything but a short lock; while a :class:`Form` is open the bar is
    paused (reports are dropped, the next one redraws it).

    Args:
        stream: the terminal (stderr).
    """

    def __init__(self, stream: IO[str]) -> None:
        self._stream = stream
        self._lock = threading.Lock()
        self._drawn = False
        self._paused = False

    def __call__(self, report: Mapping[str, Any]) -> None:
        progress, total = report.get("progress"), report.get("total")
        message = report.get("message") or ""
        if isinstance(total, (int, float)) and total > 0 and isinstance(progress, (int, float)):
            filled = max(0, min(BAR_WIDTH, int(BAR_WIDTH * progress / total)))
            line = f"[{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {progress:g}/{total:g}"
        else:
            line = f"[progress {progress}]"
        line = f"{line} {message}".rstrip()
        with self._lock:
            if self._paused:
                return
            self._stream.write("\r\x1b[K" + line[:200])
            self._stream.flush()
            self._drawn = True

    def task(self, task: Mapping[str, Any]) -> None:
        """Draw a task's status line, fed by ``on_task_status``."""
        line = f"[task {task.get('status')}] {task.get('statusMessage') or ''}".rstrip()
        with self._lock:
            if self._paused:
                return
            self._stream.write("\r\x1b[K" + line[:200])
            self._stream.flush()
            self._drawn = True

    def clear(self) -> None:
        """Erase the bar (before anything else is written)."""
        with self._lock:
            self._erase()

    def pause(self, paused: bool) -> None:
        """Erase the bar and stop drawing it (True), or start again (False)."""
        with self._lock:
            self._erase()
            self._paused = paused

    def _erase(self) -> None:
        if self._drawn:
            self._stream.write("\r\x1b[K")
            self._stream.flush()
            self._drawn = False


class Form:
    """Answers ``elicitation/create`` by asking a person, field by field.

    Args:
        stdin: the terminal to read answers from.
        stderr: the terminal to ask on.
        progress: the bar to pause while the form is open (or None).
    """

    def __init__(self, stdin: IO[str], stderr: IO[str],
                 progress: ProgressBar | None = None) -> None:
        self._in, self._out = stdin, stderr
        self._turn = threading.Lock()
        self._progress = progress
        self._stopped = threading.Event()

    def stop(self) -> None:
        """Make a waiting prompt give up (the command is ending)."""
        self._stopped.set()

    def __call__(self, request: Mapping[str, Any]) -> dict[str, Any]:
        params = request.get("params") or {}
        with self._turn:   # one form at a time, even when a round asks several questions
            if self._progress is not None:
                self._progress.pause(True)
            try:
                return self._ask(params)
            finally:
                if self._progress is not None:
                    self._progress.pause(False)

    def _ask(self, params: Mapping[str, Any]) -> dict[str, Any]:
        self._say(f"\nThe server asks: {params.get('message', '(no message)')}")
        if params.get("mode", "form") != "form":
            self._say("(this is not a form; declined)")
            return {"action": "decline"}
        schema = params.get("requestedSchema")
        properties = schema.get("properties") if isinstance(schema, Mapping) else None
        properties = properties if isinstance(properties, Mapping) else {}
        required = schema.get("required") if isinstance(schema, Mapping) else None
        required = set(required) if isinstance(required, list) else set()
        self._say("(Enter takes the default or skips an optional field; Ctrl-D declines.)")
        content: dict[str, Any] = {}
        try:
            for name, prop in properties.items():
                prop = prop if isinstance(prop, Mapping) else {}
                value = self._field(name, prop, name in required)
                if value is not _SKIP:
                    content[name] = value
        except Declined:
            if not self._stopped.is_set():
                self._say("declined")
            return {"action": "decline"}
        return {"action": "accept", "content": content}

    def url(self, request: Mapping[str, Any], *, server: str | None = None) -> dict[str, Any]:
        """Answer a URL-mode ``elicitation/create``: show the URL, ask for consent."""
        params = request.get("params") or {}
        with self._turn:
            if self._progress is not None:
                self._progress.pause(True)
            try:
                return self._ask_url(params, server)
            finally:
                if self._progress is not None:
                    self._progress.pause(False)

    def _ask_url(self, params: Mapping[str, Any], server: str | None) -> dict[str, Any]:
        who = f"The server {server}" if server else "The server"
        url = str(params.get("url", ""))
        message = printable(str(params.get("message", "(no message)")))
        self._say(f"\n{who} asks you to open a URL: {message}")
        self._say(f"  {printable(url)}")
        refusal, host, warnings = url_check(url)
        if refusal is not None:
            self._say(f"  refused: {refusal}")
            self._say("declined")
            return {"action": "decline"}
        self._say(f"  host: {host}")
        for warning in warnings:
            self._say(f"  warning: {warning}")
        self._say("  (it is not opened for you: open it in your browser to go on)")
        while True:
            try:
                text = self._line("  Open it and continue? [y/n]: ").lower()
            except Declined:
                text = "n"
            if text in _YES or text in _NO:
                action = "accept" if text in _YES else "decline"
                if action == "decline" and not self._stopped.is_set():
                    self._say("declined")
                return {"action": action}
            self._say("    answer y or n")

    def arguments(self, declared: Sequence[Mapping[str, Any]], given: Mapping[str, Any],
                  suggest: Suggest | None = None) -> dict[str, Any]:
        """Ask for each of ``declared`` (a prompt's ``arguments`` entries) not in ``given``.

        Returns:
            ``given`` with the answers added.

        Raises:
            Declined: end of input.
        """
        answers = dict(given)
        with self._turn:
            hint = "; a value ending in ? shows suggestions for it" if suggest else ""
            self._say(f"The prompt needs arguments (Enter skips an optional one{hint}; "
                      "Ctrl-D stops).")
            for argument in declared:
                name = str(argument.get("name", ""))
                if not name or name in answers:
                    continue
                value = self._argument(name, argument, answers, suggest)
                if value is not None:
                    answers[name] = value
        return answers

    def _argument(self, name: str, argument: Mapping[str, Any], answers: Mapping[str, Any],
                  suggest: Suggest | None) -> str | None:
        required = argument.get("required") is True
        if isinstance(argument.get("description"), str) and argument["description"]:
            self._say(f"  {name}: {argument['description']}")
        context = {k: v for k, v in answers.items() if isinstance(v, str)}
        typed: str | None = ""
        while True:
            if suggest is not None and typed is not None:   # once per thing typed
                self._suggestions(suggest(name, typed, context))
            text = self._line(f"  {name}{' (required)' if required else ''}: ")
            typed = text[:-1] if text.endswith("?") else None
            if typed is not None:
                continue
            if text or not required:
                return text or None
            self._say("    a value is required")

    def _suggestions(self, found: Mapping[str, Any] | None) -> None:
        values = list(found.get("values") or []) if found else []
        if not values:
            return
        shown = values[:SHOWN_SUGGESTIONS]
        total = found.get("total") if found else None
        more = (total if isinstance(total, int) and total > len(shown) else len(values)) \
            - len(shown)
        tail = f" ({more} more)" if more > 0 else \
            " (and more)" if found and found.get("hasMore") else ""
        self._say(f"    suggestions: {', '.join(shown)}{tail}")

    def _field(self, name: str, prop: Mapping[str, Any], required: bool) -> Any:
        choices = _choices(prop)
        label = str(prop.get("title") or name)
        if isinstance(prop.get("description"), str) and prop["description"]:
            self._say(f"  {label}: {prop['description']}")
        if choices:
            for index, (value, title) in enumerate(choices, 1):
                shown = f"{title} ({value})" if title != str(value) else title
                self._say(f"    {index}. {shown}")
        prompt = f"  {label}{_describe(prop, required)}: "
        while True:
            text = self._line(prompt)
            if text == "":
                if "default" in prop:
                    return prop["default"]
                if not required:
                    return _SKIP
                self._say("    a value is required")
                continue
            try:
                value = _parse(text, prop, choices)
            except ValueError as exc:
                self._say(f"    {exc}")
                continue
            problem = _check(prop, value)
            if problem is None:
                return value
            self._say(f"    {problem}")

    def _say(self, text: str) -> None:
        self._out.write(_terminal_safe(text) + "\n")
        self._out.flush()

    def _line(self, prompt: str) -> str:
        """One answer, without its newline; raises :class:`Declined` at end of input."""
        self._out.write(_terminal_safe(prompt))
        self._out.flush()
        while not self._stopped.is_set():
            try:
                ready, _, _ = select.select([self._in], [], [], _POLL)
            except (ValueError, OSError):   # not a selectable stream: just read
                ready = [self._in]
            if ready:
                line = self._in.readline()
                if not line:
                    self._out.write("\n")
                    raise Declined()
                return line.rstrip("\r\n").strip()
        raise Declined()


def url_check(url: str) -> tuple[str | None, str, list[str]]:
    """Why ``url`` is not offered at all (or None), its host as shown, and warnings.

    Refused: a scheme other than http(s) (``javascript:``, ``file:``, ``data:``
    run or read things where a browser opens them), no host, and a host part
    with a backslash, a space or an invisible character -- where browsers and
    :func:`urllib.parse.urlsplit` disagree (a browser reads
    ``https://evil\\@good/`` as host ``evil``), so the host shown could be
    another than the one opened.  Warned: a user part before ``@`` (it looks
    like a host and is not one), and a host that is punycode or not ASCII,
    shown in both forms (it may imitate another name).
    """
    try:
        parts = urllib.parse.urlsplit(url)
        host = parts.hostname
    except ValueError:   # an invalid IPv6 literal, say
        return "the URL cannot be read", "", []
    if any(c == "\\" or c == " " or not c.isprintable() for c in parts.netloc):
        return ("the URL's host part holds a backslash, a space or an invisible character, "
                "which browsers read otherwise than shown here"), "", []
    if parts.scheme.lower() not in ("http", "https"):
        return "only an http or https URL is offered for opening", "", []
    if not host:
        return "the URL names no host", "", []
    warnings = []
    userinfo = parts.netloc.rpartition("@")[0]
    if userinfo:
        warnings.append(f"the part before @ ({userinfo}) is not the host; the browser "
                        f"goes to {host}")
    shown = host
    if not host.isascii():
        try:
            shown = f"{host} ({host.encode('idna').decode('ascii')})"
        except UnicodeError:
            return "the URL's host name is no valid international name", "", []
        warnings.append("the host name is not plain ASCII; it may imitate another one")
    elif "xn--" in host:
        warnings.append("the host name is punycode; it may imitate another one")
    return None, shown, warnings


def _terminal_safe(text: str) -> str:
    """``text`` for the terminal: its lines kept, every other control character escaped.

    What the form shows is mostly the server's (a message, a title, a choice,
    a suggestion): an ESC sequence in it must not move the cursor or rewrite
    what the person reads.
    """
    if text.isprintable():
        return text
    return "\n".join(printable(line) for line in text.split("\n"))


def printable(text: str) -> str:
    """``text`` with control characters escaped (``\\x1b``), safe to show on a terminal."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


class _Skip:
    def __repr__(self) -> str:
        return "<skip>"


_SKIP = _Skip()


def _choices(prop: Mapping[str, Any]) -> list[tuple[Any, str]]:
    """``(value, title)`` for an enum property (or the items of a multi-select)."""
    source = prop.get("items") if prop.get("type") == "array" else prop
    if not isinstance(source, Mapping):
        return []
    if isinstance(source.get("enum"), list):
        names = source.get("enumNames")
        names = names if isinstance(names, list) and len(names) == len(source["enum"]) else None
        return [(v, str(names[n]) if names else str(v)) for n, v in enumerate(source["enum"])]
    for key in ("oneOf", "anyOf"):
        options = source.get(key)
        if isinstance(options, list) and options and \
                all(isinstance(o, Mapping) and "const" in o for o in options):
            return [(o["const"], str(o.get("title", o["const"]))) for o in options]
    return []


def _describe(prop: Mapping[str, Any], required: bool) -> str:
    kind = prop.get("type")
    bits = []
    if kind == "boolean":
        default = prop.get("default")
        bits.append("[Y/n]" if default is True else "[y/N]" if default is False else "[y/n]")
    elif kind == "array":
        bits.append("(numbers or values, comma-separated)")
    elif _choices(prop):
        bits.append("(number or value)")
    elif kind in ("number", "integer"):
        bits.append(f"({kind})")
    elif isinstance(prop.get("format"), str):
        bits.append(f"({prop['format']})")
    elif kind not in (None, "string"):
        bits.append("(JSON)")
    if required:
        bits.append("(required)")
    if "default" in prop and kind != "boolean":
        bits.append(f"[default: {_shown(prop['default'])}]")
    return (" " + " ".join(bits)) if bits else ""


def _shown(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _parse(text: str, prop: Mapping[str, Any], choices: list[tuple[Any, str]]) -> Any:
    kind = prop.get("type")
    if kind == "array":
        return [_choose(part.strip(), choices) for part in text.split(",") if part.strip()]
    if choices:
        return _choose(text, choices)
    if kind == "boolean":
        if text.lower() in _YES:
            return True
        if text.lower() in _NO:
            return False
        raise ValueError("answer y or n")
    if kind == "integer":
        try:
            return int(text)
        except ValueError:
            raise ValueError("not an integer") from None
    if kind == "number":
        try:
            number = float(text)
        except ValueError:
            raise ValueError("not a number") from None
        plain = number.is_integer() and not any(c in text.lower() for c in ".e")
        return int(number) if plain else number
    if kind in (None, "string"):
        return text
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON: {exc.msg}") from None


def _choose(text: str, choices: list[tuple[Any, str]]) -> Any:
    if text.isdigit() and 1 <= int(text) <= len(choices):
        return choices[int(text) - 1][0]
    for value, title in choices:
        if text == str(value) or text == title:
            return value
    raise ValueError(f"choose a number from 1 to {len(choices)}, or one of the values")


def _check(prop: Mapping[str, Any], value: Any) -> str | None:
    """Why ``value`` does not satisfy the property's schema, or None."""
    import jsonschema  # on first use, like mcp_client.client._inputs

    schema = {"type": "object", "properties": {"value": dict(prop)}}
    try:   # its patterns in bounded time, as the client's own check of the answer
        error = first_error(validator_for(schema, formats=True), {"value": value})
    except jsonschema.exceptions.SchemaError:
        return None   # the client validates the whole answer before it is sent
    return None if error is None else error.message
