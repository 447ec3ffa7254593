"""Option names, defaults and validation for :class:`~mcp_client.Client`.

Every option is keyword-only and checked at construction.  An option nobody
recognises is an error naming the closest known one, because an
ignored typo in a hook name is a client that quietly never elicits.
"""

from __future__ import annotations


from collections.abc import Iterable, Mapping

from . import protocol
from .exceptions import MCPClientError, UnsupportedVersion

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["CLIENT_OPTIONS", "STDIO_OPTIONS", "HTTP_OPTIONS", "TIMEOUT_OPTIONS", "unknown_option",
           "check_client_options", "split_options"]

#: Client options and their defaults (documented on :class:`~mcp_client.Client`).
CLIENT_OPTIONS: dict[str, Any] = {
    "client_name": "mcp_client",
    "client_version": None,          # the library's version
    "protocol_versions": protocol.MODERN_VERSIONS,
    "request_timeout": 60.0,
    "probe_timeout": 5.0,
    "connect_budget": None,          # probe plus handshake; None: each its own budget
    "on_warn": None,
    "log_level": None,
    "on_log": None,
    "on_progress": None,
    "on_elicit": None,
    "on_elicit_url": None,
    "on_sample": None,
    "sampling_tools": False,         # declare sampling.tools (needs on_sample)
    "on_list_roots": None,
    "max_input_rounds": 8,
    "client_capabilities": None,
    "tool_concurrency": 4,
    "era": "auto",
    "reset_timeout_on_progress": False,
    "max_total_timeout": None,
    "parallel_tools": (),
    "serial_tools": (),
    "restart": "never",
    "max_restarts": 3,
    "on_restart": None,
    "watch": False,
    "on_list_changed": None,
    "validate_output": True,
    "on_task_status": None,
    "tasks": False,
    "max_result_chars": 100_000,     # the most text of one result a model is handed
    "apps": False,
    "tracer_provider": None,         # OpenTelemetry spans per request (extra [otel])
}
#: Options that configure a stdio transport.
STDIO_OPTIONS = ("args", "env", "cwd", "on_stderr", "kill_grace", "stderr_lines",
                 "inherit_env", "max_line_bytes")
#: Options that configure an HTTP transport.
HTTP_OPTIONS = ("headers", "persistent", "connect_timeout", "auth", "max_event_bytes",
                "max_redirects")

_CALLABLES = ("on_warn", "on_log", "on_progress", "on_elicit", "on_elicit_url", "on_sample",
              "on_list_roots",
              "on_restart", "on_list_changed",
              "on_task_status")


#: What each timeout option bounds, the likeliest meaning of a bare ``timeout`` first.  An
#: unknown option that says "timeout" (``timeout``, ``timout``, ``read_timeout``) is
#: pointed at the first of these the call accepts, and told what each one bounds; the
#: closest spelling (``probe_timeout``) is rarely what was meant.  A new timeout option
#: adds its line here.
TIMEOUT_OPTIONS: dict[str, str] = {
    "request_timeout": "each request's wait for its answer (default 60 s; a call's "
                       "timeout= overrides it)",
    "probe_timeout": "the server/discover probe that finds a server's era when connecting "
                     "(default 5 s)",
    "connect_budget": "the whole connect, probe plus handshake (default none: each "
                      "its own)",
    "connect_timeout": "opening an HTTP connection (default 10 s)",
    "max_total_timeout": "a call kept alive by progress, in all (default none)",
}


def unknown_option(name: str, known: Iterable[str]) -> MCPClientError:
    """The error for an option nobody recognises, with a suggestion.

    A slip in a known name (``probe_timout``) suggests that name.  Otherwise a
    name that says "timeout" suggests the first of :data:`TIMEOUT_OPTIONS` in
    ``known`` and says what each of them bounds; any other name gets the
    closest known one, if any is close.
    """
    import difflib   # only on the error path
    import re

    known = list(known)
    timeouts = [option for option in TIMEOUT_OPTIONS if option in known]
    if timeouts and re.search(r"tim(e)?[_-]?out", name, re.IGNORECASE) and \
            not difflib.get_close_matches(name, timeouts, n=1, cutoff=0.85):
        bounds = "; ".join(f"{option} bounds {TIMEOUT_OPTIONS[option]}" for option in timeouts)
        return MCPClientError(f"unknown option: {name} (did you mean {timeouts[0]}? {bounds})")
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    hint = f" (did you mean {close[0]}?)" if close else ""
    return MCPClientError(f"unknown option: {name}{hint}")


def split_options(options: Mapping[str, Any], transport_options: Iterable[str],
                  other_transport: Iterable[str], kind: str) -> tuple[dict[str, Any],
                                                                      dict[str, Any]]:
    """Split ``options`` into (transport options, client options).

    Raises:
        MCPClientError: an option for the other transport, or an unknown one.
    """
    mine, rest = {}, {}
    own = set(transport_options)
    foreign = set(other_transport)
    for name, value in options.items():
        if name in own:
            mine[name] = value
        elif name in foreign:
            raise MCPClientError(f"option {name} is not for a {kind} connection")
        else:
            rest[name] = value
    return mine, rest


def _number(name: str, value: Any, *, minimum: float = 0.0, allow_none: bool = False,
            strictly: bool = False) -> float | None:
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        raise MCPClientError(f"option {name} must be a number, not {value!r}")
    if value < minimum or (strictly and value == minimum):
        relation = ">" if strictly else ">="
        raise MCPClientError(f"option {name} must be {relation} {minimum:g}, not {value!r}")
    return float(value)


def _integer(name: str, value: Any, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise MCPClientError(f"option {name} must be an integer >= {minimum}, not {value!r}")
    return value


def _versions(value: Any) -> tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, Iterable):
        raise MCPClientError("option protocol_versions must be a list of version strings")
    versions = tuple(value)
    if not versions:
        raise MCPClientError("option protocol_versions must name at least one version")
    for version in versions:
        if version in protocol.LEGACY_VERSIONS:
            raise UnsupportedVersion(
                versions, protocol.MODERN_VERSIONS,
                f"protocol_versions lists modern versions only; {version} is reached by "
                "the handshake, which is always available as a fallback")
        if not protocol.is_modern_version(version):
            raise MCPClientError(f"option protocol_versions: {version!r} is not a version")
    return versions


def _names(name: str, value: Any) -> frozenset[str]:
    if isinstance(value, str) or not isinstance(value, Iterable) or \
            not all(isinstance(v, str) for v in value):
        raise MCPClientError(f"option {name} must be a list of tool names")
    return frozenset(value)


def check_client_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """Validate client options and fill in defaults.

    Returns:
        every option in :data:`CLIENT_OPTIONS`, normalised.

    Raises:
        MCPClientError: an unknown option or a bad value.
        UnsupportedVersion: ``protocol_versions`` names a handshake version.
    """
    for name in options:
        if name not in CLIENT_OPTIONS:
            raise unknown_option(name, list(CLIENT_OPTIONS) + list(STDIO_OPTIONS)
                                 + list(HTTP_OPTIONS) + ["transport"])
    merged = {**CLIENT_OPTIONS, **options}
    for name in _CALLABLES:
        if merged[name] is not None and not callable(merged[name]):
            raise MCPClientError(f"option {name} must be callable, not {merged[name]!r}")
    for name in ("client_name", "client_version"):
        if merged[name] is not None and not isinstance(merged[name], str):
            raise MCPClientError(f"option {name} must be a string")
    merged["protocol_versions"] = _versions(merged["protocol_versions"])
    merged["request_timeout"] = _number("request_timeout", merged["request_timeout"])
    merged["probe_timeout"] = _number("probe_timeout", merged["probe_timeout"], strictly=True)
    merged["connect_budget"] = _number("connect_budget", merged["connect_budget"],
                                       allow_none=True) or None   # 0: no budget
    merged["max_total_timeout"] = _number("max_total_timeout", merged["max_total_timeout"],
                                          allow_none=True)
    merged["max_input_rounds"] = _integer("max_input_rounds", merged["max_input_rounds"], 0)
    merged["tool_concurrency"] = _integer("tool_concurrency", merged["tool_concurrency"], 1)
    level = merged["log_level"]
    if level is not None and level not in protocol.LOG_LEVELS:
        raise MCPClientError(f"option log_level must be one of {', '.join(protocol.LOG_LEVELS)},"
                             f" not {level!r}")
    caps = merged["client_capabilities"]
    if caps is not None and not isinstance(caps, Mapping):
        raise MCPClientError("option client_capabilities must be a dict")
    era = merged["era"]
    if era not in ("auto", "legacy") and not protocol.is_modern_version(era):
        raise MCPClientError(f"option era must be 'auto', 'legacy' or a modern protocol "
                             f"version, not {era!r}")
    merged["reset_timeout_on_progress"] = bool(merged["reset_timeout_on_progress"])
    if not isinstance(merged["validate_output"], bool):
        raise MCPClientError("option validate_output must be True or False")
    merged["parallel_tools"] = _names("parallel_tools", merged["parallel_tools"])
    merged["serial_tools"] = _names("serial_tools", merged["serial_tools"])
    if merged["restart"] not in ("never", "on-failure"):
        raise MCPClientError(f"option restart must be 'never' or 'on-failure', "
                             f"not {merged['restart']!r}")
    if not isinstance(merged["tasks"], bool):
        raise MCPClientError(f"option tasks must be True or False, not {merged['tasks']!r}")
    if not isinstance(merged["apps"], bool):
        raise MCPClientError(f"option apps must be True or False, not {merged['apps']!r}")
    if not isinstance(merged["watch"], bool):
        raise MCPClientError(f"option watch must be True or False, not {merged['watch']!r}")
    merged["max_restarts"] = _integer("max_restarts", merged["max_restarts"], 0)
    provider = merged["tracer_provider"]
    if provider is not None and not callable(getattr(provider, "get_tracer", None)):
        raise MCPClientError(f"option tracer_provider must be an OpenTelemetry TracerProvider "
                             f"(with get_tracer), not {type(provider).__name__}")
    if not isinstance(merged["sampling_tools"], bool):
        raise MCPClientError(f"option sampling_tools must be True or False, not "
                             f"{merged['sampling_tools']!r}")
    if merged["sampling_tools"] and merged["on_sample"] is None:
        raise MCPClientError("option sampling_tools declares tool use in sampling: it needs "
                             "an on_sample hook to answer those requests")
    if merged["max_result_chars"] is not None:
        merged["max_result_chars"] = _integer("max_result_chars", merged["max_result_chars"], 1)
    return merged
