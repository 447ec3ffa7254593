"""The typed failure vocabulary of mcp_client.

Everything the client raises on its own behalf is an :class:`MCPClientError`, so
one ``except MCPClientError`` separates "the MCP conversation went wrong" from
"the code around it went wrong".  Each subclass carries its context as
attributes, so nobody has to scrape a message string.

A tool that reports ``isError`` is a *result*, never an exception.  This module
imports nothing but the standard library.
"""

from __future__ import annotations

import reprlib

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Mapping, Sequence


__all__ = [
    "exit_status",
    "MCPClientError",
    "Timeout",
    "Cancelled",
    "ServerGone",
    "TransportClosed",
    "TransportError",
    "ProtocolError",
    "OutputMismatch",
    "URLElicitationRequired",
    "UnsupportedVersion",
    "InputLoopExceeded",
    "SpawnFailed",
    "SkillError",
    "InvalidArgument",
    "StoreError",
    "StoreUnavailable",
    "UnsupportedStore",
    "TaskNotResumable",
    "DiscoveryError",
]


class MCPClientError(Exception):
    """The root of every exception this library raises on its own behalf."""


class Timeout(MCPClientError, TimeoutError):
    """A request outlived its budget; the connection survives.

    Attributes:
        method: the JSON-RPC method that timed out (``None`` if unknown).
        seconds: the budget that ran out.
        detail: the message, when it says more than ``METHOD timed out after
            Ns`` (connecting: which of the probe and the handshake went
            unanswered); ``None`` otherwise.
    """

    def __init__(self, method: str | None, seconds: float, detail: str | None = None) -> None:
        self.method = method
        self.seconds = seconds
        self._detail = detail   # a property: the message already says it
        super().__init__(detail or f"{method or 'request'} timed out after {seconds:g}s")

    @property
    def detail(self) -> str | None:
        return self._detail

    def __reduce__(self) -> Any:
        return (type(self), (self.method, self.seconds, self._detail))


class Cancelled(MCPClientError):
    """The caller abandoned a request through its ``cancelled`` event or future.

    Attributes:
        method: the JSON-RPC method that was abandoned.
    """

    def __init__(self, method: str | None) -> None:
        self.method = method
        super().__init__(f"{method or 'request'} was cancelled")

    def __reduce__(self) -> Any:
        return (type(self), (self.method,))


def exit_status(code: int | None) -> str:
    """How a child's exit status reads: ``exit code 1``, ``killed by SIGKILL``.

    A negative status is the signal that ended the child (as
    the ``returncode`` of a :class:`subprocess.Popen` has it); it is named, because
    ``exit code -11`` reads as the server's own choice and a segfault is not.
    """
    if code is None:
        return "exit status unknown"
    if code >= 0:
        return f"exit code {code}"
    import signal   # only on this path: this module imports nothing at load time

    try:
        return f"killed by {signal.Signals(-code).name}"
    except ValueError:
        return f"killed by signal {-code}"


class ServerGone(MCPClientError):
    """The server went away while requests were outstanding.

    For a stdio server this means the child process exited; ``stderr_tail``
    holds the last lines it wrote to stderr, which is usually the whole
    diagnosis (a missing API key, a bad path, a runtime it cannot start under).

    Attributes:
        exit_code: the child's exit status (negative: killed by that signal,
            which the message names, as :func:`exit_status` does), or
            ``None`` when it is not known.
        stderr_tail: the last lines of the server's stderr, newline-joined.
    """

    def __init__(self, exit_code: int | None = None, stderr_tail: str = "",
                 detail: str | None = None) -> None:
        self.exit_code = exit_code
        self.stderr_tail = stderr_tail
        self.detail = detail
        super().__init__(self._render())

    def _render(self) -> str:
        text = self.detail or "the server went away"
        if self.exit_code is not None:
            text += f" ({exit_status(self.exit_code)})"
        if self.stderr_tail:
            text += "; last words on stderr:\n" + self.stderr_tail
        return text

    def __reduce__(self) -> Any:
        return (type(self), (self.exit_code, self.stderr_tail, self.detail))


class TransportClosed(MCPClientError):
    """The connection was closed by this side; outstanding requests fail with it."""

    def __init__(self, message: str = "the connection is closed") -> None:
        super().__init__(message)


class TransportError(MCPClientError):
    """One request failed on the wire without a JSON-RPC answer.

    Over HTTP: a non-2xx status whose body is not a JSON-RPC error, a redirect
    that is not followed, a response stream that ended before the answer.

    Attributes:
        status: the HTTP status, or ``None`` when there was none.
        body: the start of the response body (at most a few hundred characters).
        headers: the response's headers (empty when there was no response), so
            that, e.g., a 401's ``WWW-Authenticate`` can be acted on.
    """

    def __init__(self, message: str, *, status: int | None = None, body: str = "",
                 headers: Mapping[str, str] | None = None) -> None:
        self.status = status
        self.body = body
        self.headers: dict[str, str] = dict(headers or {})
        text = message if status is None else f"{message} (HTTP {status})"
        if body:
            text += f": {body}"
        super().__init__(text)

    def __reduce__(self) -> Any:
        return (_rebuild_transport_error, (type(self), str(self), self.status, self.body,
                                           self.headers))


def _rebuild_transport_error(cls: type[TransportError], text: str, status: int | None,
                             body: str, headers: dict[str, str]) -> TransportError:
    error = cls.__new__(cls)
    Exception.__init__(error, text)
    error.status, error.body, error.headers = status, body, headers
    return error


class ProtocolError(MCPClientError):
    """The server answered with a JSON-RPC error, or broke the protocol.

    Attributes:
        code: the JSON-RPC error code (``None`` when the client detected the
            violation itself, e.g. an unknown ``resultType``).
        message: the server's (or the client's) message.
        data: the error's ``data`` member, if any.
        method: the request it answered, when known (named first in the text).
    """

    def __init__(self, code: int | None, message: str, data: Any = None, *,
                 method: str | None = None) -> None:
        self.code = code
        self.message = message
        self.data = data
        self.method = method
        text = message if code is None else f"{message} (code {code})"
        if method:
            text = f"{method}: {text}"
        if data not in (None, "", {}, []):
            text += f"; data: {data!r}"
        super().__init__(text)

    def __reduce__(self) -> Any:
        return (_rebuild_protocol_error, (type(self), self.code, self.message, self.data,
                                          self.method))


def _rebuild_protocol_error(cls: type[ProtocolError], code: int | None, message: str,
                            data: Any, method: str | None) -> ProtocolError:
    return cls(code, message, data, method=method)


class OutputMismatch(ProtocolError):
    """A tool's ``structuredContent`` does not satisfy its ``outputSchema``.

    Detected by the client (2025-11-25 server/tools: clients SHOULD validate),
    so ``code`` is None; ``data`` is ``{"tool", "path", "reason"}``.

    Attributes:
        tool: the tool's name.
        path: where the content breaks the schema, as a JSON path (``$.temperature``).
        reason: the validator's message.
    """

    def __init__(self, tool: str, path: str, reason: str) -> None:
        self.tool = tool
        self.path = path
        self.reason = reason
        super().__init__(None, f"{tool}: structuredContent does not match the tool's "
                         f"outputSchema at {path}: {reason}",
                         {"tool": tool, "path": path, "reason": reason}, method="tools/call")

    def __reduce__(self) -> Any:
        return (type(self), (self.tool, self.path, self.reason))


class URLElicitationRequired(ProtocolError):
    """The server refused a request until the user completes URL elicitations.

    The JSON-RPC error ``-32042`` (2025-11-25 client/elicitation, "URL
    Elicitation Required Error"): ``data.elicitations`` lists URL-mode
    elicitations (``{"mode": "url", "url", "message", "elicitationId"}``) for
    the user to open before the request is retried.  Nothing is opened or
    retried for the caller: show each URL to the user, then retry (the server
    may send ``notifications/elicitation/complete`` for each, on
    :attr:`Client.notifications <mcp_client.Client.notifications>`).

    Attributes:
        elicitations: the URL-mode entries of ``data.elicitations`` (each a dict
            with a string ``url``; anything else the server put there is left
            out, and is still in ``data``).
    """

    def __init__(self, code: int | None, message: str, data: Any = None, *,
                 method: str | None = None) -> None:
        super().__init__(code, message, data, method=method)
        found = data.get("elicitations") if isinstance(data, dict) else None
        self.elicitations: list[dict[str, Any]] = [
            dict(entry) for entry in (found if isinstance(found, list) else [])
            if isinstance(entry, dict) and entry.get("mode") == "url"
            and isinstance(entry.get("url"), str)]


class UnsupportedVersion(MCPClientError):
    """No protocol version both sides speak, or a version the client refuses.

    Attributes:
        offered: the versions this client offered (or was asked to offer).
        supported: the versions the server named (empty when unknown).
    """

    def __init__(self, offered: Sequence[str], supported: Sequence[str] = (),
                 detail: str | None = None) -> None:
        self.offered = tuple(offered)
        self.supported = tuple(supported)
        self.detail = detail
        text = detail or "no mutually supported protocol version"
        text += f"; offered {', '.join(self.offered) or 'nothing'}"
        text += f"; the server supports {', '.join(self.supported) or 'nothing we know'}"
        super().__init__(text)

    def __reduce__(self) -> Any:
        return (type(self), (self.offered, self.supported, self.detail))


class InputLoopExceeded(MCPClientError):
    """A server kept answering ``input_required`` past ``max_input_rounds``.

    Attributes:
        method: the request that kept asking.
        rounds: how many retries were made before giving up.
    """

    def __init__(self, method: str, rounds: int) -> None:
        self.method = method
        self.rounds = rounds
        super().__init__(f"{method} kept asking for input past {rounds} rounds; giving up")

    def __reduce__(self) -> Any:
        return (type(self), (self.method, self.rounds))


class SpawnFailed(MCPClientError):
    """A stdio server could not be started.

    Attributes:
        command: the command that was to be run.
        reason: why not (the operating system's reason, or the client's).
    """

    def __init__(self, command: str, reason: str) -> None:
        self.command = command
        self.reason = reason
        super().__init__(f"cannot start {command!r}: {reason}")

    def __reduce__(self) -> Any:
        return (type(self), (self.command, self.reason))


class SkillError(MCPClientError):
    """A skill that could not be had, or was refused (the ``io.modelcontextprotocol/skills``
    extension, SEP-2640).

    A refused skill is never half-used: nothing of it is returned.

    Attributes:
        name: the skill asked for (its name, its ``SKILL.md`` URI, or the
            name in the entry given); None for a listing.
        reason: one word, for code to branch on: ``"not_declared"`` (the
            server does not declare the extension), ``"not_found"``,
            ``"ambiguous"`` (a name several skills share), ``"invalid"`` (an
            entry out of shape), ``"too_large"`` (past 512 files or 16 MiB),
            ``"dynamic"`` (no digests to verify against), ``"unlisted"`` (a file
            the entry does not list), ``"unreadable"`` (a read that failed or
            returned no content), or a verification failure: ``"size"``,
            ``"digest"`` or ``"frontmatter"``.
        uri: the file concerned, when one is (None otherwise).
        detail: what was wrong, in words.
    """

    def __init__(self, name: str | None, reason: str, detail: str, *,
                 uri: str | None = None) -> None:
        self.name = name
        self.reason = reason
        self.uri = uri
        self.detail = detail
        subject = f"skill {name!r}" if name else "skills"
        super().__init__(f"{subject}: {detail} ({reason})")

    def __reduce__(self) -> Any:
        return (_rebuild_skill_error, (self.name, self.reason, self.detail, self.uri))


def _rebuild_skill_error(name: str | None, reason: str, detail: str,
                         uri: str | None) -> SkillError:
    return SkillError(name, reason, detail, uri=uri)


class InvalidArgument(MCPClientError, ValueError, TypeError):
    """A constructor or method was given an argument it cannot use.

    Raised where the call is made, before anything starts (a layer's
    ``agent_id``, a table's ``default_ttl``, a hook that is not callable).
    It is also a :class:`ValueError` and a :class:`TypeError` -- the builtins
    these checks raised before, a wrong value or a wrong type -- so an
    ``except ValueError`` or ``except TypeError`` written for them still
    catches it (as numpy's ``AxisError`` is both a ``ValueError`` and an
    ``IndexError``).

    Attributes:
        argument: the parameter's name (``"agent_id"``).
        value: what was passed.
        reason: what it must be (``"must be a non-empty string"``).
    """

    def __init__(self, argument: str, value: Any, reason: str) -> None:
        self.argument = argument
        self.value = value
        self.reason = reason
        super().__init__(f"{argument} {reason}, not {reprlib.repr(value)}")

    def __reduce__(self) -> Any:
        return (type(self), (self.argument, self.value, self.reason))


class StoreError(MCPClientError):
    """A fleet store (:mod:`mcp_client.store`) could not do what was asked.

    Attributes:
        store: which store, as it may be shown (a password never is).
        reason: what went wrong.
    """

    def __init__(self, store: str, reason: str) -> None:
        self.store = store
        self.reason = reason
        super().__init__(f"store {store}: {reason}")

    def __reduce__(self) -> Any:
        return (type(self), (self.store, self.reason))


class StoreUnavailable(StoreError):
    """The store cannot be reached, or stayed locked past its bound.

    Nothing was granted: a lease acquire that meets this error holds nothing
    (the store fails closed).  The next call tries again; nothing needs restarting.
    """


class UnsupportedStore(StoreError):
    """The URL names an engine this version does not provide."""


class TaskNotResumable(MCPClientError):
    """:meth:`Client.resume_task <mcp_client.client.Client.resume_task>` was given a
    store that cannot vouch for the task on this client's server.

    Nothing was sent to the server.

    Attributes:
        task_id: the task asked for.
        reason: ``"unknown"`` (the store keeps no record of it) or
            ``"other_server"`` (it was started on another server).
        server: this client's server, as the store names servers.
        recorded: the server the record names (None: no record).
    """

    def __init__(self, task_id: str, reason: str, server: str,
                 recorded: str | None = None) -> None:
        self.task_id = task_id
        self.reason = reason
        self.server = server
        self.recorded = recorded
        why = (f"it was started on {recorded}, and this client is connected to {server}"
               if recorded is not None else "the store has no record of it")
        super().__init__(f"task {task_id!r} cannot be resumed here: {why}")

    def __reduce__(self) -> Any:
        return (type(self), (self.task_id, self.reason, self.server, self.recorded))


class DiscoveryError(MCPClientError):
    """A server could not be found, or used, through an MCP registry
    (:mod:`mcp_client.discovery`).

    Attributes:
        name: the server asked for (None for a search).
        reason: one word, for code to branch on: ``"unreachable"`` (the registry
            did not answer, or not in JSON), ``"not_found"``, ``"deleted"`` (the
            registry marks the version deleted), ``"invalid"`` (a document out of
            shape, or a registry URL that is not one), ``"unsupported"`` (nothing in
            the entry this client can run), ``"integrity"`` (a download whose
            SHA-256 is not the one published, or an unsafe archive).
        detail: what was wrong, in words.
    """

    def __init__(self, name: str | None, reason: str, detail: str) -> None:
        self.name = name
        self.reason = reason
        self.detail = detail
        subject = f"server {name!r}" if name else "registry"
        super().__init__(f"{subject}: {detail} ({reason})")

    def __reduce__(self) -> Any:
        return (type(self), (self.name, self.reason, self.detail))
