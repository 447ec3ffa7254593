"""A scripted transport: the server side of a conversation, written by a test.

Usage::

    fake = FakeTransport()
    fake.on("server/discover", {"supportedVersions": ["2026-07-28"], "capabilities": {}})
    fake.on("tools/list", {"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]})
    client = Client(transport=fake)
    client.list_tools()
    assert fake.requests("tools/list")[0]["params"]["_meta"][...] == ...

An answer is one of:

* a ``dict`` -- sent as the ``result``;
* :class:`Error` -- sent as a JSON-RPC error;
* :class:`Raw` -- sent exactly as given (``"id"`` may be left out to have the
  request's id filled in);
* :class:`Die` -- the "server" exits: ``on_close`` gets
  :class:`~mcp_client.exceptions.ServerGone`;
* :data:`NO_ANSWER` -- silence (for timeouts);
* a callable taking the request message and returning any of the above.

:meth:`FakeTransport.on` takes several answers: they are used in order, the
last one repeating.  A method nobody scripted is answered ``-32601``.
Answers are delivered on the transport's own reader thread, in order, as a
real wire would; ``hold=True`` keeps a script's answers back until
:meth:`FakeTransport.release`.
"""

from __future__ import annotations

import json
import queue
import threading
from concurrent.futures import Future
from typing import Any, Callable, Mapping

from ..exceptions import MCPClientError, ServerGone, TransportClosed
from ..transport import CloseCallback, ErrorCallback, MessageCallback, Transport, WarnCallback

__all__ = ["FakeTransport", "Error", "Raw", "Die", "NO_ANSWER"]


class Error:
    """A scripted JSON-RPC error answer."""

    def __init__(self, code: int, message: str = "error", data: Any = None) -> None:
        self.code, self.message, self.data = code, message, data

    def body(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error


class Raw:
    """A scripted answer sent exactly as given (the id is filled in if absent)."""

    def __init__(self, message: Mapping[str, Any]) -> None:
        self.message = dict(message)


class Die:
    """A scripted death: the server exits with ``exit_code`` after ``stderr_tail``."""

    def __init__(self, exit_code: int | None = 1, stderr_tail: str = "") -> None:
        self.exit_code, self.stderr_tail = exit_code, stderr_tail


class _NoAnswer:
    def __repr__(self) -> str:
        return "NO_ANSWER"


#: A scripted silence.
NO_ANSWER = _NoAnswer()

Answer = Any  # dict | Error | Raw | Die | _NoAnswer | Callable[[dict], Answer]


class _Script:
    def __init__(self, answers: tuple[Answer, ...], when: Callable[[dict[str, Any]], bool] | None,
                 hold: bool) -> None:
        self.answers = list(answers)
        self.when = when
        self.hold = hold

    def next(self) -> Answer:
        return self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]


class FakeTransport(Transport):
    """A server double driven by scripts.

    Args:
        restartable: whether :meth:`restart` revives a dead fake (as a stdio
            child would be restarted).
    """

    def __init__(self, *, restartable: bool = False) -> None:
        self._scripts: dict[str, list[_Script]] = {}
        self._sent: list[dict[str, Any]] = []
        self._held: list[tuple[str, dict[str, Any], Answer]] = []
        self._server_requests: dict[Any, Future[dict[str, Any]]] = {}
        self._cond = threading.Condition()
        self._queue: queue.Queue[Callable[[], None] | None] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._state = "new"
        self._restartable = restartable
        self.restarts = 0
        self._on_message: MessageCallback | None = None
        self._on_close: CloseCallback | None = None
        self._on_warn: WarnCallback | None = None
        self._death: ServerGone | None = None
        self._next_server_id = 1

    def __repr__(self) -> str:
        return f"<FakeTransport {self._state} sent={len(self._sent)}>"

    # -- scripting --------------------------------------------------------------

    def on(self, method: str, *answers: Answer,
           when: Callable[[dict[str, Any]], bool] | None = None, hold: bool = False) -> None:
        """Script the answers to ``method`` (the newest matching script wins).

        Args:
            method: the request method.
            *answers: used in order; the last one repeats.
            when: only requests for which this returns True use this script.
            hold: keep answers back until :meth:`release`.
        """
        if not answers:
            raise ValueError("on() needs at least one answer")
        with self._cond:
            self._scripts.setdefault(method, []).insert(0, _Script(answers, when, hold))

    def release(self, method: str | None = None) -> int:
        """Deliver held answers (for ``method``, or all); returns how many."""
        with self._cond:
            chosen = [h for h in self._held if method is None or h[0] == method]
            self._held = [h for h in self._held if h not in chosen]
        for _, message, answer in chosen:
            self._enqueue(self._answer_later(message, answer))
        return len(chosen)

    def push(self, message: Mapping[str, Any]) -> None:
        """Deliver any message to the client, on the reader thread, in order."""
        copy = dict(message)
        self._enqueue(lambda: self._deliver(copy))

    def notify(self, method: str, params: Mapping[str, Any] | None = None) -> None:
        """Push a notification."""
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = dict(params)
        self.push(message)

    def request(self, method: str, params: Mapping[str, Any] | None = None, *,
                ident: int | str | None = None) -> Future[dict[str, Any]]:
        """Push a server request; the future gets the client's reply message."""
        with self._cond:
            if ident is None:
                ident = self._next_server_id
                self._next_server_id += 1
            future: Future[dict[str, Any]] = Future()
            self._server_requests[ident] = future
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": ident, "method": method}
        if params is not None:
            message["params"] = dict(params)
        self.push(message)
        return future

    def die(self, exit_code: int | None = 1, stderr_tail: str = "") -> None:
        """Make the "server" exit now."""
        self._enqueue(lambda: self._die(Die(exit_code, stderr_tail)))

    # -- what the client sent ------------------------------------------------------

    @property
    def sent(self) -> list[dict[str, Any]]:
        """Every message the client sent, in order (a copy)."""
        with self._cond:
            return list(self._sent)

    def requests(self, method: str | None = None) -> list[dict[str, Any]]:
        """The requests the client sent (of ``method``, or all)."""
        return [m for m in self.sent if "id" in m and "method" in m
                and (method is None or m["method"] == method)]

    def notifications(self, method: str | None = None) -> list[dict[str, Any]]:
        """The notifications the client sent (of ``method``, or all)."""
        return [m for m in self.sent if "id" not in m and "method" in m
                and (method is None or m["method"] == method)]

    def wait_for(self, method: str, count: int = 1, timeout: float = 5.0) -> dict[str, Any]:
        """Block until the client has sent ``count`` messages of ``method``.

        Returns:
            the ``count``-th such message.

        Raises:
            AssertionError: not within ``timeout`` seconds.
        """
        def found() -> list[dict[str, Any]]:
            return [m for m in self._sent if m.get("method") == method]

        with self._cond:
            if not self._cond.wait_for(lambda: len(found()) >= count, timeout):
                raise AssertionError(f"the client sent {len(found())} {method} message(s), "
                                     f"not {count}, within {timeout}s")
            return found()[count - 1]

    # -- the Transport contract ------------------------------------------------------

    @property
    def closed(self) -> bool:
        return self._state in ("closed", "dead")

    @property
    def can_restart(self) -> bool:
        return self._restartable and self._state == "dead"

    def start(self, on_message: MessageCallback, on_close: CloseCallback,
              on_warn: WarnCallback, on_error: ErrorCallback | None = None) -> None:
        self._on_message, self._on_close, self._on_warn = on_message, on_close, on_warn
        self._state = "open"
        self._thread = threading.Thread(target=self._run, name="mcp-fake-reader", daemon=True)
        self._thread.start()

    def restart(self) -> None:
        if not self.can_restart:
            raise RuntimeError("this FakeTransport cannot restart")
        self.restarts += 1
        self._death = None
        self._state = "open"

    def send(self, message: dict[str, Any], *, headers: Mapping[str, str] | None = None) -> None:
        if self._state == "closed":
            raise TransportClosed()
        if self._state == "dead":
            assert self._death is not None
            raise self._death
        try:  # what a real wire would carry: JSON, and a copy
            message = json.loads(json.dumps(message, allow_nan=False))
        except (TypeError, ValueError, RecursionError) as exc:   # not JSON, or too deep
            raise MCPClientError(f"cannot encode the message as JSON: {exc}") from exc
        with self._cond:
            self._sent.append(message)
            self._cond.notify_all()
        if "method" not in message:
            self._reply_to_server_request(message)
            return
        if "id" not in message:
            return
        script = self._script_for(message)
        answer: Answer = script.next() if script else \
            Error(-32601, "Method not found", message["method"])
        if script is not None and script.hold:
            with self._cond:
                self._held.append((message["method"], message, answer))
            return
        self._enqueue(self._answer_later(message, answer))

    def close(self) -> None:
        if self._state == "closed":
            return
        self._state = "closed"
        self._queue.put(None)
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(5)

    # -- internals ---------------------------------------------------------------

    def _script_for(self, message: dict[str, Any]) -> _Script | None:
        with self._cond:
            for script in self._scripts.get(message["method"], []):
                if script.when is None or script.when(message):
                    return script
        return None

    def _reply_to_server_request(self, message: dict[str, Any]) -> None:
        with self._cond:
            future = self._server_requests.pop(message.get("id"), None)
        if future is not None:
            future.set_result(message)

    def _answer_later(self, message: dict[str, Any], answer: Answer) -> Callable[[], None]:
        return lambda: self._answer(message, answer)

    def _enqueue(self, job: Callable[[], None]) -> None:
        self._queue.put(job)

    def _run(self) -> None:
        while True:
            job = self._queue.get()
            if job is None or self._state == "closed":
                return
            try:
                job()
            except Exception as exc:  # a broken script is the test's problem: say so
                if self._on_warn is not None:
                    self._on_warn(f"FakeTransport script raised {exc!r}")

    def _answer(self, request: dict[str, Any], answer: Answer) -> None:
        while callable(answer) and not isinstance(answer, (Error, Raw, Die, _NoAnswer)):
            answer = answer(request)
        if answer is NO_ANSWER or self._state != "open":
            return
        if isinstance(answer, Die):
            self._die(answer)
            return
        if isinstance(answer, Raw):
            message = dict(answer.message)
            message.setdefault("id", request["id"])
        elif isinstance(answer, Error):
            message = {"jsonrpc": "2.0", "id": request["id"], "error": answer.body()}
        else:
            message = {"jsonrpc": "2.0", "id": request["id"], "result": answer}
        self._deliver(message)

    def _deliver(self, message: dict[str, Any]) -> None:
        if self._state == "open" and self._on_message is not None:
            self._on_message(message)

    def _die(self, death: Die) -> None:
        if self._state != "open":
            return
        self._death = ServerGone(death.exit_code, death.stderr_tail, "the server exited")
        self._state = "dead"
        if self._on_close is not None:
            self._on_close(self._death)
