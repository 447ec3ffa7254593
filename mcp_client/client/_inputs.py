"""What a server may ask of the client: elicitation, sampling, roots, ping.

This module owns the client's answers to server input requests, in both eras
(2026-07-28 multi round-trip requests):

* **modern** -- ``inputRequests`` inside an ``input_required`` result; the
  answers go back as ``inputResponses`` on the retry (:meth:`Inputs.answer_round`);
* **legacy** -- real JSON-RPC requests from the server while a call is in
  flight, answered with a JSON-RPC result or error (:meth:`Inputs.answer_request`).

Each hook (``on_elicit``, ``on_elicit_url``, ``on_sample``, ``on_list_roots``) is called with
``{"method", "params"}`` and returns the result body.  Refusal is a first-class
answer: an unset hook, a hook that raises, or one that returns something that
is not a dict *declines* -- elicitation ``{"action": "decline"}``, roots
``{"roots": []}`` -- and a hook that raised is reported through ``on_warn``.
Sampling has no decline shape: rather than leave the key out and let the
round budget run, a declined sampling request here fails the call at once with
a :class:`ProtocolError` that says so (a real server re-asks forever); in
the legacy era it is the JSON-RPC error ``-1`` of the 2025-11-25 sampling spec.
A legacy request for a capability we did not declare, or an unknown method,
is answered ``-32601``.

Sampling with tools (2025-11-25 client/sampling): a request carrying ``tools`` or
``toolChoice`` reaches ``on_sample`` only when the client declared
``sampling: {"tools": {}}`` (``sampling_tools=True``); otherwise it is refused, as
the spec requires of a client without that capability -- ``-32602`` in the legacy
era, a failed call in the modern one.  The hook then sees ``params["tools"]`` (MCP
tool definitions: ``name``, ``description``, ``inputSchema``) and
``params["toolChoice"]`` (``{"mode": "auto" | "required" | "none"}``), and may answer
with ``tool_use`` content (``{"type": "tool_use", "id", "name", "input"}``, one block
or a list) and ``stopReason: "toolUse"``; the server runs the tools and asks again
with the ``tool_result`` blocks (``{"type": "tool_result", "toolUseId", "content"}``)
in ``params["messages"]``.

Elicitation is routed by its ``mode`` (2025-11-25 / 2026-07-28 client/elicitation):
``form`` (or no mode) to ``on_elicit``, ``url`` to ``on_elicit_url`` -- or to
``on_elicit`` when the ``client_capabilities`` override declares the url mode
without that hook.  A mode with no hook, an unknown mode, or a URL request with
no ``url`` is refused: in the legacy era with the spec's ``-32602`` (Invalid
params), in the modern era (which has no per-entry error) by declining, and
either way reported through ``on_warn``.  A URL-mode answer carries its
``action`` only: ``content`` has no place in it and is not sent.

An accepted elicitation is checked before it is sent: fields the hook left out
get the schema's defaults (SEP-1034), and content that does not satisfy
``requestedSchema`` (validated with ``jsonschema``, imported on first use, its
patterns in bounded time by :mod:`mcp_client.client._schema`: one that does not finish
is a failure) is reported and declined rather than sent.

Hooks run on whichever thread asks: the calling thread for a modern round (a
round with several entries answers them on one short-lived thread each), a
worker thread for legacy requests -- never the transport's reader thread.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping

from .. import protocol
from . import _schema
from ..cache import copy_json
from ..exceptions import ProtocolError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable
    Hook = Callable[[dict[str, Any]], Any]

__all__ = ["Inputs", "SAMPLING_DECLINED", "ELICIT", "SAMPLE", "ROOTS", "url_elicitation_hook"]

ELICIT = "elicitation/create"
SAMPLE = "sampling/createMessage"
ROOTS = "roots/list"
#: The legacy decline of a sampling request (2025-11-25 client/sampling).
SAMPLING_DECLINED = (-1, "User rejected sampling request")


class _Declined(Exception):
    """A hook refused (or failed); carries what to tell the caller."""


class _Invalid(_Declined):
    """A request this client cannot take (legacy: ``-32602``; modern: declined)."""


class Inputs:
    """Answers server input requests with the client's hooks.

    Args:
        hooks: method name -> hook (only the hooks that are set); the
            ``elicitation/create`` hook takes form mode.
        on_warn: told when a hook raises or returns something unusable.
        url_hook: the hook for URL-mode elicitation (None: refused).
    """

    def __init__(self, hooks: Mapping[str, Hook], on_warn: Callable[[str], None], *,
                 url_hook: Hook | None = None, sampling_tools: bool = False) -> None:
        self._hooks = dict(hooks)
        self._url_hook = url_hook
        self._warn = on_warn
        self._sampling_tools = sampling_tools

    # -- the modern era: one round of inputRequests --------------------------------

    def answer_round(self, method: str, requests: Mapping[str, Any]) -> dict[str, Any]:
        """Answer every entry of one ``inputRequests`` round (concurrently if several).

        Raises:
            ProtocolError: a sampling request was declined, or an entry asked
                for something this client does not know.
        """
        keys = list(requests)
        if len(keys) <= 1:
            return {key: self._answer_entry(method, key, requests[key]) for key in keys}
        answers: dict[str, Any] = {}
        errors: list[BaseException] = []
        lock = threading.Lock()

        def run(key: str) -> None:
            try:
                answer = self._answer_entry(method, key, requests[key])
            except BaseException as exc:  # handed to the calling thread below
                with lock:
                    errors.append(exc)
                return
            with lock:
                answers[key] = answer

        threads = [threading.Thread(target=run, args=(key,), name=f"mcp-client-input-{key}",
                                    daemon=True) for key in keys]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        if errors:
            raise errors[0]
        return {key: answers[key] for key in keys}

    def _answer_entry(self, method: str, key: str, request: Any) -> Any:
        if not isinstance(request, dict) or not isinstance(request.get("method"), str):
            raise ProtocolError(None, f"{method}: input request {key!r} is malformed", request)
        kind = request["method"]
        params = request.get("params")
        params = params if isinstance(params, dict) else {}
        if kind not in (ELICIT, SAMPLE, ROOTS):
            raise ProtocolError(None, f"{method}: the server asked for {kind!r}, which this "
                                "client does not provide", {"key": key})
        try:
            return self._fulfil(kind, params)
        except _Declined as declined:
            if kind == SAMPLE:
                raise ProtocolError(None, f"{method}: the server's sampling request was "
                                    f"declined ({declined}); the call cannot complete",
                                    {"key": key, "declined": SAMPLE}) from None
            return self._decline_body(kind)

    # -- the legacy era: server -> client requests -----------------------------------

    def answer_request(self, message: Mapping[str, Any]) -> dict[str, Any]:
        """The reply message to a legacy server request (never raises)."""
        ident, kind = message["id"], message["method"]
        params = message.get("params")
        params = params if isinstance(params, dict) else {}
        if kind == "ping":
            return protocol.response(ident, {})
        served = kind in self._hooks or (kind == ELICIT and self._url_hook is not None)
        if kind not in (ELICIT, SAMPLE, ROOTS) or not served:
            return protocol.error_response(ident, protocol.METHOD_NOT_FOUND,
                                           f"Method not found: {kind}")
        try:
            return protocol.response(ident, self._fulfil(kind, params))
        except _Invalid as invalid:
            return protocol.error_response(ident, protocol.INVALID_PARAMS, str(invalid))
        except _Declined:
            if kind == SAMPLE:
                return protocol.error_response(ident, *SAMPLING_DECLINED)
            return protocol.response(ident, self._decline_body(kind))

    # -- shared ------------------------------------------------------------------

    @staticmethod
    def _decline_body(kind: str) -> dict[str, Any]:
        return {"action": "decline"} if kind == ELICIT else {"roots": []}

    def _hook_for(self, kind: str, params: dict[str, Any]) -> Hook | None:
        """The hook that takes this request (elicitation: by its mode)."""
        if kind != ELICIT:
            return self._hooks.get(kind)
        mode = params.get("mode", "form")
        if mode not in ("form", "url"):
            raise self._invalid(f"unknown elicitation mode {mode!r}")
        hook = self._url_hook if mode == "url" else self._hooks.get(ELICIT)
        if hook is None:
            raise self._invalid(f"elicitation mode {mode!r} is not one this client declared")
        if mode == "url" and not isinstance(params.get("url"), str):
            raise self._invalid("a url-mode elicitation without a url")
        return hook

    def _invalid(self, reason: str, kind: str = ELICIT) -> _Invalid:
        self._warn(f"refused the server's {'sampling' if kind == SAMPLE else 'elicitation'} "
                   f"request: {reason}")
        return _Invalid(f"Invalid params: {reason}")

    def _fulfil(self, kind: str, params: dict[str, Any]) -> dict[str, Any]:
        if kind == SAMPLE and not self._sampling_tools and \
                ("tools" in params or "toolChoice" in params):
            raise self._invalid("a sampling request with tools, and this client did not "
                                "declare sampling.tools", kind)
        hook = self._hook_for(kind, params)
        if hook is None:
            raise _Declined("no hook is set")
        try:
            answer = hook({"method": kind, "params": copy_json(params)})
        except Exception as exc:
            self._warn(f"the {kind} hook raised {exc!r}; declining")
            raise _Declined(f"the hook raised {exc!r}") from None
        if not isinstance(answer, dict):
            self._warn(f"the {kind} hook returned {type(answer).__name__}, not a dict; "
                       "declining")
            raise _Declined("the hook returned no result")
        if kind == ELICIT:
            return self._checked_elicitation(params, answer)
        if kind == ROOTS and not isinstance(answer.get("roots"), list):
            self._warn("the roots hook returned no 'roots' list; declining")
            raise _Declined("no roots list")
        if kind == SAMPLE and ("content" not in answer or "role" not in answer):
            self._warn("the sampling hook returned no 'role' and 'content'; declining")
            raise _Declined("no message")
        return answer

    def _checked_elicitation(self, params: dict[str, Any],
                             answer: dict[str, Any]) -> dict[str, Any]:
        if answer.get("action") not in ("accept", "decline", "cancel"):
            self._warn(f"the elicitation hook answered action={answer.get('action')!r}; "
                       "declining")
            raise _Declined("no valid action")
        if params.get("mode", "form") == "url":   # the user's consent; no content
            return {"action": answer["action"]}
        if answer["action"] != "accept":
            return answer
        schema = params.get("requestedSchema")
        content = answer.get("content")
        content = dict(content) if isinstance(content, dict) else {}
        if isinstance(schema, dict):
            fill_defaults(schema, content)
            problem = validation_error(schema, content)
            if problem is not None:
                self._warn(f"the elicitation answer does not satisfy the requested schema "
                           f"({problem}); declining instead of sending it")
                raise _Declined("the answer did not satisfy the schema")
        return {**answer, "content": content}


def fill_defaults(schema: Mapping[str, Any], content: dict[str, Any]) -> None:
    """Give ``content`` the schema's ``default`` for each property it lacks (SEP-1034)."""
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return
    for name, prop in properties.items():
        if name not in content and isinstance(prop, dict) and "default" in prop:
            content[name] = copy_json(prop["default"])


def validation_error(schema: Mapping[str, Any], content: Any) -> str | None:
    """Why ``content`` does not satisfy ``schema``, or None if it does."""
    import jsonschema  # on first use: a client that never elicits never pays for it

    try:
        error = _schema.first_error(_schema.validator_for(dict(schema)), content)
    except jsonschema.exceptions.SchemaError as exc:
        return f"the requested schema itself is invalid: {exc.message}"
    return None if error is None else error.message


def url_elicitation_hook(opts: Mapping[str, Any], declared: Mapping[str, Any]) -> Hook | None:
    """The hook that answers URL-mode elicitation, or None.

    ``on_elicit_url``; else ``on_elicit`` when the declared capabilities (the
    ``client_capabilities`` override) name the url mode -- the older way for a
    caller whose ``on_elicit`` can open a browser.
    """
    if opts["on_elicit_url"] is not None:
        return opts["on_elicit_url"]  # type: ignore[no-any-return]
    modes = declared.get("elicitation")
    if opts["on_elicit"] is not None and isinstance(modes, Mapping) and "url" in modes:
        return opts["on_elicit"]  # type: ignore[no-any-return]
    return None
