"""The transport check's part for capabilities and the fast path (:func:`check_fast_path`).

What a wire declares in its flags, and the fast-path methods every wire has
(:mod:`mcp_client.transport`, "Capabilities and the fast path"), are part of
the role's contract: the client takes them at their word, so a flag whose
promise is broken loses or mangles messages.  This module asserts them, for
:func:`~mcp_client.testing.check_transport`, on a started transport whose
server answers ``request(ident)``; it sends nothing else.
"""

from __future__ import annotations

import json
import threading
from typing import Any, Callable, Protocol

from ..transport import Transport

__all__ = ["check_fast_path", "FLAGS"]

#: The capability flags of :class:`~mcp_client.transport.Transport`.
FLAGS = ("supports_handshake", "cancel_is_hangup", "wants_tool_headers", "pipelines",
         "line_wire")
#: How many requests a pipelining wire must take while nothing reads its answers
#: (enough to fill a pipe's buffer both ways: 64 KiB on Linux).
BURST = 256
#: What the client's encoder writes on a line wire (compact, and never NaN).
_encode = json.JSONEncoder(separators=(",", ":"), allow_nan=False).encode


class Answers(Protocol):
    """What the check's recorder offers this module."""

    answers: dict[Any, Any]
    gate: threading.Event

    def wait_for(self, idents: list[Any], timeout: float) -> list[Any]: ...


def _fail(what: str) -> AssertionError:
    return AssertionError(what)


def _kind(answer: Any) -> Any:
    """What an answer says, its id aside: a result, an error's code, or on_error's type."""
    if isinstance(answer, BaseException):
        return ("on_error", type(answer).__name__)
    if "error" in answer:
        error = answer["error"]
        return ("error", error.get("code") if isinstance(error, dict) else None)
    return ("result", "result" in answer)


def _answered(recorder: Answers, idents: list[Any], timeout: float, how: str) -> None:
    missing = recorder.wait_for(idents, timeout)
    if missing:
        raise _fail(f"no answer within {timeout:g}s to the requests {missing} {how}")


def _check_members(transport: Transport) -> None:
    """The flags are bools; session_id is a str or None; sse_fallback gives a new wire."""
    for flag in FLAGS:
        value = getattr(transport, flag, None)
        if not isinstance(value, bool):
            raise _fail(f"the capability flag {flag} is {value!r}, not a bool")
    session = transport.session_id
    if session is not None and not isinstance(session, str):
        raise _fail(f"session_id is {session!r}, not a str or None")
    make = transport.sse_fallback
    if make is None:
        return
    if not callable(make):
        raise _fail(f"sse_fallback is {make!r}, neither None nor callable")
    fallback = make()
    try:
        if not isinstance(fallback, Transport) or fallback.closed:
            raise _fail(f"sse_fallback() gave {fallback!r}, not an unstarted Transport")
    finally:
        if isinstance(fallback, Transport):
            fallback.close()


def _check_led(transport: Transport, recorder: Answers,
               request: Callable[[int | str], dict[str, Any]], timeout: float) -> None:
    """send_led() then lead() on this thread: first() once, time left, the answer in."""
    firsts: list[str] = []
    ident = "led-1"
    transport.send_led(request(ident))
    left = transport.lead(lambda: ident in recorder.answers, timeout, lambda: 0,
                          lambda: firsts.append(threading.current_thread().name))
    if firsts != [threading.current_thread().name]:
        raise _fail(f"lead() ran first() {len(firsts)} times on {firsts}; it runs it once, "
                    "on the calling thread")
    if not isinstance(left, (int, float)) or not 0 <= left <= timeout:
        raise _fail(f"lead() with a timeout of {timeout:g}s returned {left!r}, not what is "
                    "left of it")
    _answered(recorder, [ident], timeout, "sent with send_led() and then led")
    nothing = transport.lead(lambda: True, None, lambda: 0)
    if nothing is not None:
        raise _fail(f"lead() with no timeout returned {nothing!r}, not None")


def _check_lines(transport: Transport, recorder: Answers,
                 request: Callable[[int | str], dict[str, Any]], timeout: float) -> None:
    """line_wire: each line is the message send() would write, one line or several at once."""
    if not transport.line_wire:
        try:
            transport.send_line(_encode(request("unlined")).encode() + b"\n")
        except NotImplementedError:
            return
        raise _fail("send_line() did not raise NotImplementedError on a wire that does not "
                    "declare line_wire")
    transport.send(request("line-0"))
    lines = [_encode(request(f"line-{n}")).encode() + b"\n" for n in (1, 2, 3)]
    transport.send_line(lines[0])
    transport.send_line(lines[1] + lines[2])
    idents = ["line-0", "line-1", "line-2", "line-3"]
    _answered(recorder, idents, timeout, "sent with send_line() (line_wire: dropped?)")
    sent = _kind(recorder.answers["line-0"])
    for ident in idents[1:]:
        got = _kind(recorder.answers[ident])
        if got != sent:
            raise _fail(f"request {ident} sent with send_line() was answered {got}, the same "
                        f"request sent with send() {sent}: line_wire promises the same message")


def _check_pipelined(transport: Transport, recorder: Answers,
                     request: Callable[[int | str], dict[str, Any]], timeout: float) -> None:
    """pipelines: send() returns while on_message is held and nothing reads the answers."""
    idents = [f"burst-{n}" for n in range(BURST)]
    failures: list[BaseException] = []

    def burst() -> None:
        try:
            for ident in idents:
                transport.send(request(ident))
        except BaseException as exc:   # reported on the checking thread
            failures.append(exc)

    sender = threading.Thread(target=burst, name="mcp-check-burst")
    recorder.gate.clear()
    try:
        sender.start()
        sender.join(timeout)
        stuck = sender.is_alive()
    finally:
        recorder.gate.set()
    sender.join(timeout)
    if stuck:
        raise _fail(f"send() waited on the peer while on_message was held ({BURST} requests "
                    f"not sent in {timeout:g}s), yet the wire declares pipelines")
    if failures:
        raise _fail(f"send() raised {failures[0]!r} while on_message was held "
                    "(the wire declares pipelines)")
    _answered(recorder, idents, timeout, "sent while on_message was held")


def check_fast_path(transport: Transport, recorder: Answers,
                    request: Callable[[int | str], dict[str, Any]], timeout: float) -> None:
    """Assert the capability flags and the fast path on a started, healthy transport.

    Raises:
        AssertionError: a flag or a fast-path method broke its promise.
    """
    _check_members(transport)
    _check_lines(transport, recorder, request, timeout)
    if transport.pipelines:
        _check_pipelined(transport, recorder, request, timeout)
    _check_led(transport, recorder, request, timeout)
