"""A 2026-07-28 stdio server that speaks the ``io.modelcontextprotocol/tasks`` extension.

Neither official SDK implements the extension (SEP-2663) on the server side, so
this one is written by hand from its text and from the conformance suite's
``tasks-*`` scenarios: it declares the extension in ``server/discover``, makes a
task of a call to a task-supporting tool only when the request declares the
extension (``_meta`` clientCapabilities), answers ``-32021`` for a task-only
tool otherwise, serves ``tasks/get`` (a DetailedTask, with ``result`` or
``error`` inline), ``tasks/update`` and ``tasks/cancel`` (empty
acknowledgements) to declaring requests only, and refuses ``tasks/result``.

Tools:

* ``greet(name)`` -- plain;
* ``slow_compute(seconds)`` -- task-supporting (optional): sleeps, then answers;
  cancellable while it sleeps;
* ``failing_job`` -- task-only: completes with ``isError: true``;
* ``protocol_error_job`` -- task-only: fails with a JSON-RPC error;
* ``confirm_delete(filename)`` -- task-only: one elicitation;
* ``two_rounds`` -- task-only: an elicitation, then a sampling request;
* ``multi_input`` -- task-only: two elicitations at once;
* ``test_tool_with_task`` -- task-only: a multi round-trip elicitation before the task;
* ``audit`` -- plain: every request seen so far, ``[method, declared the extension]``.

Usage: ``python tests/servers/tasks_server.py`` (exits on stdin EOF), or
``python tests/servers/tasks_server.py --http PORT`` to serve
``http://127.0.0.1:PORT/`` (0: any free port; ``PORT=<n>`` is printed once it
listens, and it exits on stdin EOF).  The conformance suite's ``tasks-*``
server scenarios all pass against the HTTP mode.
"""

import json
import sys
import threading
import time
import uuid
from typing import Any, Callable, Dict, List, Optional

EXT = "io.modelcontextprotocol/tasks"
VERSION = "2026-07-28"
POLL_MS = 50
OBJECT = {"type": "object"}
NAME_SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}},
               "required": ["name"]}
CONFIRM_SCHEMA = {"type": "object", "properties": {"confirm": {"type": "boolean"}},
                  "required": ["confirm"]}


def tool(name: str, support: Optional[str] = None, **schema: Any) -> Dict[str, Any]:
    found: Dict[str, Any] = {"name": name, "inputSchema": {"type": "object", **schema}}
    if support:
        found["execution"] = {"taskSupport": support}
    return found


TOOLS = [tool("greet", properties={"name": {"type": "string"}}),
         tool("slow_compute", "optional", properties={"seconds": {"type": "number"}}),
         tool("failing_job", "required"), tool("protocol_error_job", "required"),
         tool("confirm_delete", "required", properties={"filename": {"type": "string"}}),
         tool("two_rounds", "required"), tool("multi_input", "required"),
         tool("test_tool_with_task", "required"), tool("audit")]
TASK_TOOLS = {t["name"] for t in TOOLS if "execution" in t}
REQUIRED = {t["name"] for t in TOOLS if t.get("execution", {}).get("taskSupport") == "required"}

out_lock = threading.Lock()
tasks: Dict[str, "Task"] = {}
seen: List[List[Any]] = []


def now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def text(value: str, **extra: Any) -> Dict[str, Any]:
    return {"content": [{"type": "text", "text": value}], **extra}


def elicit(message: str, schema: Dict[str, Any]) -> Dict[str, Any]:
    return {"method": "elicitation/create",
            "params": {"mode": "form", "message": message, "requestedSchema": schema}}


class Cancelled(Exception):
    pass


class Failed(Exception):
    pass


class Task:
    """One task: its status, what it waits for, and its outcome."""

    def __init__(self, name: str, arguments: Dict[str, Any]) -> None:
        self.id = uuid.uuid4().hex
        self.name, self.arguments = name, arguments
        self.status, self.message = "working", ""
        self.result: Optional[Dict[str, Any]] = None
        self.error: Optional[Dict[str, Any]] = None
        self.pending: Dict[str, Any] = {}
        self.answers: Dict[str, Any] = {}
        self.created = now()
        self.cond = threading.Condition()
        self.cancel_asked = False

    def view(self) -> Dict[str, Any]:
        with self.cond:
            found: Dict[str, Any] = {"taskId": self.id, "status": self.status,
                                     "createdAt": self.created, "lastUpdatedAt": now(),
                                     "ttlMs": 60000, "pollIntervalMs": POLL_MS}
            if self.message:
                found["statusMessage"] = self.message
            if self.status == "input_required":
                found["inputRequests"] = dict(self.pending)
            if self.status == "completed":
                found["result"] = self.result
            if self.status == "failed":
                found["error"] = self.error
            return found

    def ask(self, requests: Dict[str, Any]) -> Dict[str, Any]:
        """Wait until every request has its answer (or the task is cancelled)."""
        with self.cond:
            self.pending.update(requests)
            self.status = "input_required"
            while any(key not in self.answers for key in requests):
                if self.cancel_asked:
                    raise Cancelled()
                self.cond.wait()
            self.status = "working"
            return {key: self.answers[key] for key in requests}

    def deliver(self, responses: Dict[str, Any]) -> None:
        with self.cond:
            for key, value in responses.items():
                if key in self.pending:   # unknown or answered keys are ignored
                    del self.pending[key]
                    self.answers[key] = value
            self.cond.notify_all()

    def sleep(self, seconds: float) -> None:
        with self.cond:
            end = time.monotonic() + seconds
            while not self.cancel_asked and time.monotonic() < end:
                self.cond.wait(end - time.monotonic())
            if self.cancel_asked:
                raise Cancelled()

    def cancel(self) -> None:
        with self.cond:
            self.cancel_asked = True
            self.cond.notify_all()

    def run(self, work: Callable[["Task"], Dict[str, Any]]) -> None:
        try:
            outcome = work(self)
        except Cancelled:
            with self.cond:
                self.status, self.message = "cancelled", "cancelled on request"
            return
        except Failed as exc:
            with self.cond:
                self.status, self.message = "failed", f"Tool execution failed: {exc}"
                self.error = {"code": -32603, "message": str(exc)}
            return
        with self.cond:
            self.status, self.result = "completed", outcome


def slow_compute(task: Task) -> Dict[str, Any]:
    task.sleep(float(task.arguments.get("seconds", 0)))
    return text(f"computed after {task.arguments.get('seconds', 0)}s")


def failing_job(task: Task) -> Dict[str, Any]:
    return text("the job failed", isError=True)


def protocol_error_job(task: Task) -> Dict[str, Any]:
    raise Failed("the worker crashed")


def confirm_delete(task: Task) -> Dict[str, Any]:
    answer = task.ask({"confirm": elicit(f"Delete {task.arguments.get('filename')}?",
                                         CONFIRM_SCHEMA)})["confirm"]
    confirmed = answer.get("action") == "accept" and answer.get("content", {}).get("confirm")
    return text("deleted" if confirmed else f"kept ({answer.get('action')})")


def two_rounds(task: Task) -> Dict[str, Any]:
    name = task.ask({"who": elicit("Your name?", NAME_SCHEMA)})["who"]
    poem = task.ask({"poem": {"method": "sampling/createMessage", "params": {
        "messages": [{"role": "user", "content": {"type": "text", "text": "a poem"}}],
        "maxTokens": 20}}})["poem"]
    return text(f"{name.get('content', {}).get('name')}: {poem.get('content', {}).get('text')}")


def multi_input(task: Task) -> Dict[str, Any]:
    answers = task.ask({"first": elicit("First?", NAME_SCHEMA),
                        "second": elicit("Second?", NAME_SCHEMA)})
    return text(" & ".join(answers[k].get("content", {}).get("name", "?")
                           for k in ("first", "second")))


def test_tool_with_task(task: Task) -> Dict[str, Any]:
    return text(f"hello {task.arguments['_gathered']}")


WORK = {"slow_compute": slow_compute, "failing_job": failing_job,
        "protocol_error_job": protocol_error_job, "confirm_delete": confirm_delete,
        "two_rounds": two_rounds, "multi_input": multi_input,
        "test_tool_with_task": test_tool_with_task}


def declares(params: Dict[str, Any]) -> bool:
    caps = params.get("_meta", {}).get("io.modelcontextprotocol/clientCapabilities", {})
    return isinstance(caps.get("extensions"), dict) and EXT in caps["extensions"]


class Refused(Exception):
    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.error: Dict[str, Any] = {"code": code, "message": message}
        if data is not None:
            self.error["data"] = data


def missing() -> Refused:
    return Refused(-32021, "Missing required client capability",
                   {"requiredCapabilities": {"extensions": {EXT: {}}}})


def call_tool(params: Dict[str, Any]) -> Dict[str, Any]:
    name, arguments = str(params.get("name")), dict(params.get("arguments") or {})
    if name == "greet":
        return {"resultType": "complete", **text(f"Hello, {arguments.get('name')}!")}
    if name == "audit":
        return {"resultType": "complete", **text(json.dumps(seen))}
    if name not in TASK_TOOLS:
        raise Refused(-32602, f"unknown tool {name}")
    if not declares(params):
        if name in REQUIRED:
            raise missing()
        return {"resultType": "complete", **WORK[name](Task(name, arguments))}   # optional
    if name == "test_tool_with_task":   # SEP-2663 + SEP-2322: input first, then the task
        answer = (params.get("inputResponses") or {}).get("user_name")
        if answer is None:
            return {"resultType": "input_required",
                    "inputRequests": {"user_name": elicit("Your name?", NAME_SCHEMA)}}
        arguments["_gathered"] = answer.get("content", {}).get("name")
    task = Task(name, arguments)
    tasks[task.id] = task
    threading.Thread(target=task.run, args=(WORK[name],), daemon=True).start()
    created = task.view()
    for key in ("inputRequests", "result", "error"):
        created.pop(key, None)
    created["status"] = "working"
    return {"resultType": "task", **created}


def task_request(method: str, params: Dict[str, Any]) -> Dict[str, Any]:
    if not declares(params):
        raise missing()
    task = tasks.get(params.get("taskId", ""))
    if task is None:
        raise Refused(-32602, "Failed to retrieve task: Task not found")
    if method == "tasks/get":
        return {"resultType": "complete", **task.view()}
    if method == "tasks/update":
        task.deliver(dict(params.get("inputResponses") or {}))
    else:
        task.cancel()
    return {"resultType": "complete"}


def answer(method: str, params: Dict[str, Any]) -> Dict[str, Any]:
    if method == "server/discover":
        return {"resultType": "complete", "supportedVersions": [VERSION],
                "capabilities": {"tools": {}, "extensions": {EXT: {}}},
                "serverInfo": {"name": "tasks-server", "version": "0.1.0"},
                "ttlMs": 0, "cacheScope": "private"}
    if method == "tools/list":
        return {"resultType": "complete", "tools": TOOLS, "ttlMs": 0, "cacheScope": "private"}
    if method == "tools/call":
        return call_tool(params)
    if method in ("tasks/get", "tasks/update", "tasks/cancel"):
        return task_request(method, params)
    raise Refused(-32601, f"Method not found: {method}")


def write(message: Dict[str, Any]) -> None:
    with out_lock:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()


def reply(message: Dict[str, Any]) -> Dict[str, Any]:
    """The answer to one request."""
    params = message.get("params") or {}
    seen.append([message["method"], declares(params)])
    try:
        return {"jsonrpc": "2.0", "id": message["id"],
                "result": answer(message["method"], params)}
    except Refused as exc:
        return {"jsonrpc": "2.0", "id": message["id"], "error": exc.error}


def is_request(message: Any) -> bool:
    return isinstance(message, dict) and "id" in message and "method" in message


def main() -> None:
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if is_request(message):   # notifications and answers: nothing to do
            write(reply(message))


def header_mismatch(headers: Any, message: Dict[str, Any]) -> Optional[str]:
    """Why the routing headers disagree with the body (SEP-2243, SEP-2663), or None."""
    method, params = message.get("method"), message.get("params") or {}
    if headers.get("Mcp-Method") not in (None, method):
        return "Mcp-Method does not match the body"
    field = {"tools/call": "name", "tasks/get": "taskId", "tasks/update": "taskId",
             "tasks/cancel": "taskId"}.get(str(method))
    name = headers.get("Mcp-Name")
    if field and name is None and str(method).startswith("tasks/"):
        return "Mcp-Name is required on tasks/* requests"
    if field and name is not None and name.strip() != params.get(field):
        return "Mcp-Name does not match the body"
    return None


def serve_http(port: int) -> None:
    """The same server over a bare Streamable HTTP endpoint (for the conformance suite)."""
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            message = json.loads(body or b"null")
            if not is_request(message):
                self.send_response(202)
                self.end_headers()
                return
            why = header_mismatch(self.headers, message)
            status, out = (400, {"jsonrpc": "2.0", "id": message["id"], "error": {
                "code": -32020, "message": why}}) if why else (200, reply(message))
            data = json.dumps(out).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    print(f"PORT={httpd.server_address[1]}", flush=True)
    sys.stdin.read()   # until EOF
    httpd.shutdown()


if __name__ == "__main__":
    if sys.argv[1:2] == ["--http"]:
        serve_http(int(sys.argv[2]))
    else:
        main()
