"""Conformance checks for the two roles: :func:`check_transport` and :func:`check_provider`.

Each check takes ``make``, a zero-argument factory, and asserts the contract
its role's module states (:mod:`mcp_client.transport`,
:mod:`mcp_client.provider`) against what ``make()`` returns.  A failure is an
:class:`AssertionError` saying which promise was broken, so the checks run
inside any test framework::

    from mcp_client.testing import check_provider, check_transport

    def test_my_provider(self):
        check_provider(lambda: MyProvider(...))

``make()`` returns either the object itself or a context manager whose
``__enter__`` gives it (a ``contextlib.contextmanager`` that builds a stack
and tears down what is underneath, say).  The check owns what ``make()``
returned: it enters and exits the context manager, or else calls the
object's ``close()`` (when it has one) at the end, even when the check fails.
Each check calls ``make`` once.

The checks send nothing that has side effects on a server: a transport check
sends the request ``request(ident)`` builds (by default a ``server/discover``
that any 2026-07-28 server answers, with a result or an error); a provider
check runs calls that are malformed or name a tool nobody has, plus, only when
given, calls to the ``tool`` the caller names as safe to run.
"""

from __future__ import annotations

import contextlib
import json
import re
import threading
from typing import Any, Callable, Iterator, Mapping

from .. import protocol
from ..exceptions import MCPClientError, TransportClosed
from ..provider import Provider, is_provider
from ..transport import Transport
from ._fastpath import check_fast_path

__all__ = ["check_transport", "check_provider"]

#: Seconds any one wait of a check may take before it counts as a hang.
DEFAULT_TIMEOUT = 10.0
#: What a model API accepts as a function name (OpenAI's rule).
_LLM_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
#: A tool name nobody publishes.
UNKNOWN_TOOL = "mcp_client_check_no_such_tool"


@contextlib.contextmanager
def _made(make: Callable[[], Any]) -> Iterator[Any]:
    """What ``make()`` gives, torn down afterwards (see the module docstring)."""
    made = make()
    if callable(getattr(made, "__enter__", None)) and callable(getattr(made, "__exit__", None)):
        with made as entered:
            yield entered
        return
    try:
        yield made
    finally:
        close = getattr(made, "close", None)
        if callable(close):
            close()


def _fail(what: str) -> AssertionError:
    return AssertionError(what)


# -- providers ------------------------------------------------------------------------

class _Attributes:
    """A call given as an object (the shape of the ``openai`` package's tool calls)."""

    def __init__(self, ident: Any, function: Any) -> None:
        self.id = ident
        self.type = "function"
        self.function = function


class _Function:
    """A call's function given as an object."""

    def __init__(self, name: Any, arguments: Any) -> None:
        self.name = name
        self.arguments = arguments


class _Unreadable:
    """A call whose every attribute raises."""

    def __getattr__(self, name: str) -> Any:
        raise RuntimeError(f"no {name} here")


def _malformed() -> list[tuple[str, Any, Any]]:
    """(what it is, the call, the tool_call_id its entry must carry)."""
    return [
        ("a call whose function is null", {"id": "m1", "function": None}, "m1"),
        ("a call with no function", {"id": "m2"}, "m2"),
        ("a call whose name is not a string",
         {"id": "m3", "type": "function", "function": {"name": 7, "arguments": "{}"}}, "m3"),
        ("a call whose function is a string", {"id": "m4", "function": "x"}, "m4"),
        ("a call of another type",
         {"id": "m5", "type": "retrieval", "function": {"name": UNKNOWN_TOOL}}, "m5"),
        ("a number instead of a call", 5, None),
        ("None instead of a call", None, None),
        ("a call object whose function is None", _Attributes("m8", None), "m8"),
        ("a call object whose name is None", _Attributes("m9", _Function(None, "{}")), "m9"),
        ("a call object whose attributes raise", _Unreadable(), None),
    ]


def _unknown(ident: str) -> dict[str, Any]:
    return {"id": ident, "type": "function",
            "function": {"name": UNKNOWN_TOOL, "arguments": "{}"}}


def _run(provider: Any, calls: Any, what: str) -> Any:
    try:
        return provider.execute_tool_calls(calls)
    except Exception as exc:
        raise _fail(f"execute_tool_calls raised {type(exc).__name__} for {what}: {exc} "
                    "(a call's failure must be its entry)") from exc


def _check_entries(entries: Any, expected: list[tuple[Any, bool | None]], what: str) -> None:
    """One entry per call, in order: ``expected`` is (tool_call_id, is_error or None)."""
    if not isinstance(entries, list):
        raise _fail(f"execute_tool_calls returned {type(entries).__name__}, not a list, "
                    f"for {what}")
    if len(entries) != len(expected):
        raise _fail(f"{len(entries)} entries for {len(expected)} calls ({what})")
    for position, (entry, (ident, is_error)) in enumerate(zip(entries, expected)):
        where = f"entry {position} for {what}"
        if not isinstance(entry, dict):
            raise _fail(f"{where} is {type(entry).__name__}, not a dict")
        if entry.get("role") != "tool" or not isinstance(entry.get("content"), str) or \
                not isinstance(entry.get("is_error"), bool):
            raise _fail(f"{where} is not a tool entry (role, content, is_error): {entry!r}")
        if entry.get("tool_call_id") != ident:
            raise _fail(f"{where} answers tool_call_id {entry.get('tool_call_id')!r}, not "
                        f"{ident!r}: entries must come in call order")
        if is_error is not None and entry["is_error"] is not is_error:
            raise _fail(f"{where} has is_error {entry['is_error']}, expected {is_error}: "
                        f"{entry['content']!r}")


def _check_declarations(provider: Any, tool: str | None) -> None:
    try:
        declarations = provider.tools_for_llm()
    except Exception as exc:
        raise _fail(f"tools_for_llm raised {type(exc).__name__}: {exc}") from exc
    if not isinstance(declarations, list):
        raise _fail(f"tools_for_llm returned {type(declarations).__name__}, not a list")
    names = []
    for declaration in declarations:
        function = declaration.get("function") if isinstance(declaration, dict) else None
        name = function.get("name") if isinstance(function, dict) else None
        if not isinstance(name, str) or not _LLM_NAME.match(name):
            raise _fail(f"tools_for_llm declared {declaration!r}: a declaration is "
                        '{"type": "function", "function": {"name": ...}} with a name a model '
                        "API accepts")
        names.append(name)
    if len(set(names)) != len(names):
        raise _fail(f"tools_for_llm declared a name twice: {names}")
    if tool is not None and tool not in names:
        raise _fail(f"the tool to run, {tool!r}, is not declared ({names})")


def _check_not_a_list(provider: Any) -> None:
    single = {"id": "s", "type": "function", "function": {"name": UNKNOWN_TOOL}}
    for what, calls in (("None", None), ("a number", 5), ("a single call dict", single),
                        ("a string", "calls"), ("bytes", b"calls")):
        try:
            provider.execute_tool_calls(calls)
        except MCPClientError:
            continue
        except Exception as exc:
            raise _fail(f"execute_tool_calls({what}) raised {type(exc).__name__}: {exc}; "
                        "calls that is not a list is an MCPClientError") from exc
        raise _fail(f"execute_tool_calls({what}) did not raise MCPClientError")


def _check_malformed(provider: Any) -> None:
    cases = _malformed()
    for what, call, ident in cases:
        _check_entries(_run(provider, [call], what), [(ident, True)], what)
    batch: list[Any] = []
    expected: list[tuple[Any, bool | None]] = []
    for index, (_, call, ident) in enumerate(cases):
        batch += [call, _unknown(f"u{index}")]
        expected += [(ident, True), (f"u{index}", True)]
    _check_entries(_run(provider, batch, "a batch of malformed and unknown calls"), expected,
                   "a batch of malformed and unknown calls")


def _tool_calls(tool: str, arguments: Mapping[str, Any]) -> tuple[list[Any],
                                                                  list[tuple[Any, bool | None]]]:
    calls: list[Any] = [
        {"id": "t0", "type": "function", "function": {"name": tool,
                                                      "arguments": json.dumps(arguments)}},
        _unknown("t1"),
        {"id": "t2", "function": {"name": tool, "arguments": dict(arguments)}},
        {"id": "t3", "function": None},
        _Attributes("t4", _Function(tool, json.dumps(arguments))),
        {"id": 5, "type": "function", "function": {"name": tool,
                                                   "arguments": json.dumps(arguments)}},
    ]
    return calls, [("t0", False), ("t1", True), ("t2", False), ("t3", True), ("t4", False),
                   (5, False)]


def _check_threads(provider: Any, calls: list[Any], expected: list[tuple[Any, bool | None]],
                   timeout: float) -> None:
    """The same batch from several threads at once: each gets its own answers."""
    threads = 4
    start = threading.Barrier(threads)
    failures: list[BaseException] = []
    lock = threading.Lock()

    def one() -> None:
        try:
            start.wait(timeout)
            _check_entries(_run(provider, calls, "a batch run from several threads"), expected,
                           "a batch run from several threads")
        except BaseException as exc:   # reported on the checking thread
            with lock:
                failures.append(exc)

    workers = [threading.Thread(target=one, name=f"mcp-check-provider-{n}")
               for n in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout)
    if any(worker.is_alive() for worker in workers):
        raise _fail(f"execute_tool_calls from {threads} threads at once did not return in "
                    f"{timeout:g}s")
    if failures:
        raise failures[0]


def _check_annotations_and_close(provider: Any) -> None:
    lookup = getattr(provider, "tool_annotations", None)
    if callable(lookup):
        found = lookup(UNKNOWN_TOOL)
        if found is not None:
            raise _fail(f"tool_annotations of a tool nobody has is {found!r}, not None")
    close = getattr(provider, "close", None)
    if callable(close):
        close()
        close()   # idempotent


def check_provider(make: Callable[[], Any], *, tool: str | None = None,
                   arguments: Mapping[str, Any] | None = None,
                   timeout: float = DEFAULT_TIMEOUT) -> None:
    """Assert the provider contract (:mod:`mcp_client.provider`) against ``make()``.

    Checked: both methods exist (``isinstance(p, Provider)``); the
    declarations are a list with unique names a model API accepts;
    ``calls`` that is not a list (None, a number, a single call dict, a
    string) raises :class:`~mcp_client.exceptions.MCPClientError`; every
    malformed call (a null or missing function, a name that is not a
    string, a number, an object whose attributes raise...) and a call to an
    unknown tool is one ``is_error`` entry in its place, never an exception;
    an empty batch is ``[]``; the same batch from several threads at once
    gets the right answers; ``tool_annotations`` (optional) of an unknown
    tool is None; ``close`` (optional) may be called twice.

    Args:
        make: a zero-argument factory: the provider, or a context manager
            giving it (see the module docstring).
        tool: a declared tool that is safe to run with ``arguments`` and
            succeeds; when given, calls to it (arguments as a JSON string, as
            a dict, as an object's attributes, an integer id) are mixed with
            failing ones to check one entry per call, in order.
        arguments: ``tool``'s arguments (default: none).
        timeout: seconds the threaded batch may take.

    Raises:
        AssertionError: the provider broke its contract (the message says how).
    """
    with _made(make) as provider:
        if not isinstance(provider, Provider) or not is_provider(provider):
            raise _fail(f"{type(provider).__name__} lacks a callable tools_for_llm() or "
                        "execute_tool_calls(calls)")
        _check_declarations(provider, tool)
        _check_entries(_run(provider, [], "an empty batch"), [], "an empty batch")
        _check_not_a_list(provider)
        _check_malformed(provider)
        if tool is not None:
            calls, expected = _tool_calls(tool, arguments or {})
            _check_entries(_run(provider, calls, f"a batch calling {tool}"), expected,
                           f"a batch calling {tool}")
        else:
            calls = [_unknown("p0"), {"id": "p1", "function": None}, _unknown("p2")]
            expected = [("p0", True), ("p1", True), ("p2", True)]
        _check_threads(provider, calls, expected, timeout)
        _check_annotations_and_close(provider)


# -- transports -----------------------------------------------------------------------

def _discover(ident: int | str) -> dict[str, Any]:
    """A ``server/discover`` request at the newest modern version (the default probe)."""
    meta = protocol.envelope(protocol.MODERN_VERSIONS[0],
                             client_info={"name": "mcp_client-check", "version": "0"},
                             capabilities={})
    return protocol.request(ident, "server/discover", meta=meta)


class _Recorder:
    """The callbacks a transport is started with, and what they were told."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.changed = threading.Condition(self.lock)
        self.answers: dict[Any, Any] = {}   # id -> the message, or the on_error exception
        self.threads: set[str] = set()
        self.not_dicts: list[Any] = []
        self.closes: list[Any] = []
        self.warnings: list[str] = []
        self.gate = threading.Event()   # cleared: on_message holds (a reader that is busy)
        self.gate.set()

    def on_message(self, message: Any) -> None:
        if not self.gate.is_set():
            self.gate.wait()
        with self.changed:
            self.threads.add(threading.current_thread().name)
            if not isinstance(message, dict):
                self.not_dicts.append(message)
            elif "id" in message and "method" not in message:
                self.answers.setdefault(message["id"], message)
            self.changed.notify_all()

    def on_error(self, ident: Any, exc: Any) -> None:
        with self.changed:
            self.answers.setdefault(ident, exc)
            self.changed.notify_all()

    def on_close(self, exc: Any) -> None:
        with self.changed:
            self.closes.append(exc)
            self.changed.notify_all()

    def on_warn(self, text: str) -> None:
        with self.lock:
            self.warnings.append(text)

    def wait_for(self, idents: list[Any], timeout: float) -> list[Any]:
        with self.changed:
            self.changed.wait_for(lambda: all(i in self.answers for i in idents) or
                                  bool(self.closes), timeout)
            return [i for i in idents if i not in self.answers]


def _check_answered(transport: Transport, recorder: _Recorder,
                    request: Callable[[int | str], dict[str, Any]], timeout: float) -> None:
    """One request, then several sent from several threads at once, are each answered."""
    transport.send(request(1))
    if recorder.wait_for([1], timeout):
        raise _fail(f"no answer to request 1 within {timeout:g}s"
                    + (f" (the wire closed: {recorder.closes[0]!r})" if recorder.closes else ""))
    caller = threading.current_thread().name
    if recorder.threads & {caller}:
        raise _fail("on_message ran on the thread that called send(); it must run on a "
                    "thread the transport owns")
    idents: list[int | str] = [f"c{n}" for n in range(8)]
    failures: list[BaseException] = []
    start = threading.Barrier(len(idents))

    def send(ident: int | str) -> None:
        try:
            start.wait(timeout)
            transport.send(request(ident))
        except BaseException as exc:   # reported on the checking thread
            failures.append(exc)

    senders = [threading.Thread(target=send, args=(i,), name=f"mcp-check-send-{i}")
               for i in idents]
    for sender in senders:
        sender.start()
    for sender in senders:
        sender.join(timeout)
    if failures:
        raise _fail(f"send() from several threads at once raised {failures[0]!r}")
    missing = recorder.wait_for(list(idents), timeout)
    if missing:
        raise _fail(f"no answer within {timeout:g}s to the requests {missing} sent from "
                    "several threads at once (interleaved on the wire?)")
    if recorder.not_dicts:
        raise _fail(f"on_message was given {recorder.not_dicts[0]!r}, not a dict")
    if recorder.closes:
        raise _fail(f"on_close was called while the wire was healthy: {recorder.closes[0]!r}")


def _check_closed(transport: Transport, recorder: _Recorder,
                  request: Callable[[int | str], dict[str, Any]],
                  before: set[threading.Thread], timeout: float) -> None:
    """close() from another thread, twice; then send raises, cancel does not, nothing runs."""
    closer = threading.Thread(target=transport.close, name="mcp-check-close")
    closer.start()
    closer.join(timeout)
    if closer.is_alive():
        raise _fail(f"close() did not return within {timeout:g}s")
    transport.close()   # idempotent
    if not transport.closed:
        raise _fail("closed is False after close()")
    if recorder.closes:
        raise _fail(f"on_close was called for a close() the client asked for: "
                    f"{recorder.closes[0]!r}")
    try:
        transport.send(request(99))
    except TransportClosed:
        pass
    except Exception as exc:
        raise _fail(f"send() after close() raised {type(exc).__name__}, not "
                    "TransportClosed") from exc
    else:
        raise _fail("send() after close() did not raise TransportClosed")
    try:
        transport.cancel(99, "checking")
    except Exception as exc:
        raise _fail(f"cancel() after close() raised {type(exc).__name__}: {exc}") from exc
    left = [t.name for t in threading.enumerate() if t not in before and t.is_alive()
            and not t.name.startswith("mcp-check-")]
    if left:
        raise _fail(f"threads still running after close(): {left}")


def check_transport(make: Callable[[], Any], *,
                    request: Callable[[int | str], dict[str, Any]] = _discover,
                    timeout: float = DEFAULT_TIMEOUT) -> None:
    """Assert the transport contract (:mod:`mcp_client.transport`) against ``make()``.

    ``make()`` gives a :class:`~mcp_client.transport.Transport` that is not
    started yet, whose server answers ``request(ident)``; the check starts it.
    Checked: a request is answered (``on_message`` with a response of that
    id, or ``on_error`` with that id), on a thread the transport owns, not the
    sender's; requests sent from several threads at once are each answered
    (nothing interleaved); ``on_message`` is only given dicts; ``cancel`` of
    an unknown id never raises; ``on_close`` is never called for a healthy
    wire nor for a ``close()`` the client asked for; ``close()`` from another
    thread returns, may be called twice, sets ``closed``, and joins every
    thread the transport started; ``send`` after it raises
    :class:`~mcp_client.exceptions.TransportClosed`.

    And the capabilities and the fast path (:mod:`mcp_client.transport`):
    the five flags are bools, ``session_id`` a str or None, ``sse_fallback``
    None or a factory of an unstarted transport; a request sent with
    ``send_led`` and then led with ``lead`` on the same thread is answered,
    ``first`` runs once and the time left is returned; on a ``line_wire``
    wire, requests written with ``send_line`` (one line, and two at once)
    are each answered as the same request sent with ``send`` (and without
    the flag ``send_line`` raises ``NotImplementedError``); on a wire that
    ``pipelines``, a burst of requests is sent while ``on_message`` is held
    (nothing reads the answers), and each is answered once it is let go.

    Threads that start while the check runs and are alive after ``close()``
    count as the transport's: run the server in another process, or start
    its threads in ``make``.

    Args:
        make: a zero-argument factory: the transport, or a context manager
            giving it (see the module docstring).
        request: builds the request to send under an id (default: a
            ``server/discover`` at the newest 2026-07-28 version).
        timeout: seconds any one wait may take.

    Raises:
        AssertionError: the transport broke its contract (the message says how).
    """
    with _made(make) as transport:
        if not isinstance(transport, Transport):
            raise _fail(f"{type(transport).__name__} is not a mcp_client.transport.Transport")
        if transport.closed:
            raise _fail("closed is True before start()")
        recorder = _Recorder()
        before = set(threading.enumerate())
        transport.start(recorder.on_message, recorder.on_close, recorder.on_warn,
                        recorder.on_error)
        try:
            _check_answered(transport, recorder, request, timeout)
            check_fast_path(transport, recorder, request, timeout)
            try:
                transport.cancel("mcp-check-unknown", "checking")
            except Exception as exc:
                raise _fail(f"cancel() of an unknown id raised {type(exc).__name__}: "
                            f"{exc}") from exc
        except BaseException:
            transport.close()
            raise
        _check_closed(transport, recorder, request, before, timeout)
