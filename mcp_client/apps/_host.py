"""The host side of a view's JSON-RPC: :class:`AppBridge`.

A view (the ``ui://`` HTML of a tool, in a sandboxed iframe) talks to its
host over ``postMessage`` in a small JSON-RPC dialect (SEP-1865,
2026-01-26, "Communication Protocol").  :class:`AppBridge` is that host's
backend, dicts in and dicts out: the page relays each message the view
posts to :meth:`AppBridge.handle` and posts back what it returns.  It does
no rendering and owns no iframe, no socket and no thread.

Decisions:

* ``tools/call`` reaches only a tool of the bridge's own client (its own
  server) whose ``visibility`` includes ``"app"``; anything else is a JSON-RPC
  error and never leaves the host (SEP-1865, "Visibility").  With a
  ``provider`` the call goes *through* it, as a batch of one carrying an
  :class:`~mcp_client.apps.AppCall` (see :mod:`._origin`), so a
  :class:`~mcp_client.policy.Policy` judges it by the tool's name like any
  call; a refusal is a JSON-RPC error (code -32000, the refusal's text), and the
  server never sees the call.  The view gets the ``CallToolResult`` as
  :meth:`Client.call_tool <mcp_client.Client.call_tool>` returns it
  (``content`` blocks, ``structuredContent``, ``isError``), which the client
  left on the mark -- not the model's text entry; the result's own ``_meta``
  is protocol bookkeeping the client keeps from every caller, so it is not
  there.  A provider that does not end in that client gives back only its
  entry (text and ``structured_content``), rebuilt as a result.
* ``resources/read`` reads any resource of the same server (the spec does not
  narrow it to ``ui://``); nothing else is proxied.
* ``ui/message`` and ``ui/open-link`` go to the ``on_message`` /
  ``on_open_link`` hooks; without a hook, or when the hook does not return
  True, they are refused (-32000): a view opens no link and writes nothing into
  a conversation unless the host says so.
* Notifications from the view (``ui/notifications/initialized``,
  ``ui/notifications/size-changed``, ``notifications/message``) are answered
  with None and recorded (:attr:`AppBridge.initialized`, :attr:`AppBridge.size`,
  :attr:`AppBridge.notifications`) for the page; so are answers the view
  sends to the host's requests.
* A message that is not a JSON-RPC 2.0 request or notification is -32600, an
  unknown method -32601, bad params -32602; nothing raises out of
  :meth:`AppBridge.handle`.
"""

from __future__ import annotations

import logging
import threading
from typing import Any, Callable, Mapping, Protocol

from .. import protocol
from .._version import __version__
from ..exceptions import MCPClientError, ProtocolError
from ..provider import flatten_content
from ._origin import APP_CALL, AppCall
from ._view import PROTOCOL_VERSION, app_may_call

__all__ = ["AppBridge", "AppClient", "REFUSED"]

log = logging.getLogger(__name__)

#: The JSON-RPC code of a request the host refuses (SEP-1865 uses -32000,
#: "implementation-defined", for a denied ``ui/open-link`` or ``ui/message``).
REFUSED = -32000
#: How many of the view's notifications are kept for the page to read.
KEPT_NOTIFICATIONS = 100


class AppClient(Protocol):
    """What the bridge uses of a :class:`~mcp_client.Client`."""

    def list_tools(self) -> list[Any]: ...

    def call_tool(self, name: str, arguments: Mapping[str, Any] | None = None) -> Any: ...

    def read_resource(self, uri: str) -> Any: ...


class _Refusal(Exception):
    """A request answered with a JSON-RPC error (inside :meth:`AppBridge.handle` only)."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class AppBridge:
    """The host's answers to one tool's view.

    Args:
        client: the :class:`~mcp_client.Client` of the tool's server.
        tool_name: the server's name of the tool whose view this is.
        provider: the provider a view's ``tools/call`` goes through (a
            :class:`~mcp_client.policy.Policy` over ``client``, a Registry
            holding it, ...), so it is judged like any call, under the name
            the provider's ``app_tool_name(client, tool)`` gives (a
            registry's prefixed name; the tool's own name when the provider
            cannot say); None calls ``client`` directly.
        on_message: ``on_message(params)`` for ``ui/message`` (``{"role",
            "content"}``); True accepts it.  None refuses every one.
        on_open_link: ``on_open_link(url)`` for ``ui/open-link``; True means the
            link was opened.  None refuses every one.
        host_context: keys merged over the ``hostContext`` that
            ``ui/initialize`` answers (``theme``, ``displayMode``, ``locale``, ...).

    Every method may be called from any thread.
    """

    def __init__(self, client: Any, tool_name: str, *, provider: Any = None,
                 on_message: Callable[[dict[str, Any]], Any] | None = None,
                 on_open_link: Callable[[str], Any] | None = None,
                 host_context: Mapping[str, Any] | None = None) -> None:
        if not isinstance(tool_name, str) or not tool_name:
            raise MCPClientError(f"AppBridge needs a tool name, not {tool_name!r}")
        for label, hook in (("on_message", on_message), ("on_open_link", on_open_link)):
            if hook is not None and not callable(hook):
                raise MCPClientError(f"{label} must be callable, not {hook!r}")
        if provider is not None and not callable(getattr(provider, "execute_tool_calls", None)):
            raise MCPClientError(f"provider must have execute_tool_calls(calls), not "
                                 f"{type(provider).__name__}")
        self.client = client
        self.tool_name = tool_name
        self.provider = provider
        self._on_message = on_message
        self._on_open_link = on_open_link
        self._host_context = dict(host_context or {})
        self._lock = threading.Lock()
        self._calls = 0
        #: True once the view sent ``ui/notifications/initialized``.
        self.initialized = False
        #: The view's last ``ui/notifications/size-changed`` params (``width``, ``height``).
        self.size: dict[str, Any] | None = None
        #: The view's ``ui/initialize`` params (``appInfo``, ``appCapabilities``, ...).
        self.app: dict[str, Any] | None = None
        #: The last notifications (and answers) the view sent, oldest first (at most
        #: ``KEPT_NOTIFICATIONS``, 100).
        self.notifications: list[dict[str, Any]] = []

    def __repr__(self) -> str:
        state = "initialized" if self.initialized else "new"
        return f"<AppBridge {self.tool_name!r} {state} calls={self._calls}>"

    # -- what the host sends the view ----------------------------------------------------

    def tool_input(self, arguments: Mapping[str, Any] | None) -> dict[str, Any]:
        """The ``ui/notifications/tool-input`` notification: the tool's arguments."""
        return protocol.notification("ui/notifications/tool-input",
                                     {"arguments": dict(arguments or {})})

    def tool_result(self, result: Mapping[str, Any]) -> dict[str, Any]:
        """The ``ui/notifications/tool-result`` notification: the ``CallToolResult``.

        Args:
            result: the result as :meth:`Client.call_tool <mcp_client.Client.call_tool>`
                returned it (passed on whole, ``structuredContent`` included),
                or a provider's ``{"role": "tool", ...}`` entry, which is
                rebuilt as a result from its text and ``structured_content``.
        """
        return protocol.notification("ui/notifications/tool-result", _as_result(result))

    # -- what the view sends -------------------------------------------------------------

    def handle(self, message: Any) -> dict[str, Any] | None:
        """Answer one message the view posted.

        Returns:
            the JSON-RPC response to a request (``result`` or ``error``), or
            None for a notification (or an answer the view sent).  Never raises.
        """
        kind = _kind(message)
        if kind in ("notification", "answer"):
            self._note(message)
            return None
        ident = _ident(message)
        if kind != "request":
            return protocol.error_response(ident, protocol.INVALID_REQUEST,
                                           f"not a JSON-RPC 2.0 request: {kind}")
        try:
            result = self._answer(message["method"], message.get("params") or {})
        except _Refusal as exc:
            return protocol.error_response(ident, exc.code, exc.message)
        except ProtocolError as exc:
            code = exc.code if isinstance(exc.code, int) else protocol.INTERNAL_ERROR
            return protocol.error_response(ident, code, exc.message)
        except Exception as exc:   # the view gets an answer, whatever broke
            if not isinstance(exc, MCPClientError):
                log.exception("answering the view's %s failed", message["method"])
            return protocol.error_response(ident, protocol.INTERNAL_ERROR,
                                           f"{type(exc).__name__}: {exc}")
        return protocol.response(message["id"], result)

    def _note(self, message: dict[str, Any]) -> None:
        method, params = message.get("method"), message.get("params")
        with self._lock:
            self.notifications.append(message)
            del self.notifications[:-KEPT_NOTIFICATIONS]
            if method == "ui/notifications/initialized":
                self.initialized = True
            elif method == "ui/notifications/size-changed" and isinstance(params, dict):
                self.size = dict(params)

    def _answer(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        if method == "ui/initialize":
            return self._initialize(params)
        if method == "ping":
            return {}
        if method == "tools/call":
            return self._call(params)
        if method == "resources/read":
            uri = params.get("uri")
            if not isinstance(uri, str) or not uri:
                raise _Refusal(protocol.INVALID_PARAMS, "resources/read needs a uri")
            return dict(self.client.read_resource(uri))
        if method == "ui/message":
            return self._hooked(self._on_message, dict(params), "the host takes no message "
                                "from this view")
        if method == "ui/open-link":
            url = params.get("url")
            if not isinstance(url, str) or not url.lower().startswith(("https://", "http://")):
                raise _Refusal(protocol.INVALID_PARAMS, "ui/open-link needs an http(s) url")
            return self._hooked(self._on_open_link, url, "link opening denied")
        if method == "ui/request-display-mode":
            return {"mode": self._context()["displayMode"]}   # the one mode there is
        raise _Refusal(protocol.METHOD_NOT_FOUND, f"method not found: {method}")

    @staticmethod
    def _hooked(hook: Callable[[Any], Any] | None, value: Any, refusal: str) -> dict[str, Any]:
        if hook is None:
            raise _Refusal(REFUSED, refusal)
        try:
            accepted = hook(value)
        except Exception as exc:
            log.warning("a view hook raised %s: %s", type(exc).__name__, exc)
            raise _Refusal(REFUSED, f"{refusal} ({type(exc).__name__})") from None
        if accepted is not True:
            raise _Refusal(REFUSED, refusal)
        return {}

    def _tool(self, name: str) -> dict[str, Any] | None:
        for tool in self.client.list_tools():
            if isinstance(tool, dict) and tool.get("name") == name:
                return tool
        return None

    def _context(self) -> dict[str, Any]:
        context: dict[str, Any] = {"theme": "light", "displayMode": "inline",
                                   "availableDisplayModes": ["inline"]}
        context.update(self._host_context)
        return context

    def _initialize(self, params: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            self.app = dict(params)
        context = self._context()
        tool = self._tool(self.tool_name)
        if tool is not None and "toolInfo" not in context:
            context["toolInfo"] = {"tool": tool}
        capabilities: dict[str, Any] = {"serverTools": {}, "serverResources": {}, "logging": {}}
        if self._on_open_link is not None:
            capabilities["openLinks"] = {}
        if self._on_message is not None:
            capabilities["message"] = {}
        return {"protocolVersion": PROTOCOL_VERSION,
                "hostInfo": {"name": "mcp_client", "version": __version__},
                "hostCapabilities": capabilities, "hostContext": context}

    def _call(self, params: dict[str, Any]) -> dict[str, Any]:
        name, arguments = params.get("name"), params.get("arguments")
        if not isinstance(name, str) or not name:
            raise _Refusal(protocol.INVALID_PARAMS, "tools/call needs a tool name")
        if arguments is not None and not isinstance(arguments, dict):
            raise _Refusal(protocol.INVALID_PARAMS, "tools/call arguments must be an object")
        tool = self._tool(name)
        if tool is None:
            raise _Refusal(protocol.INVALID_PARAMS, f"unknown tool: {name} (a view calls "
                           "only the tools of its own server)")
        if not app_may_call(tool):
            raise _Refusal(REFUSED, f"{name} is not callable by the app (its visibility "
                           "leaves out \"app\")")
        with self._lock:
            self._calls += 1
            number = self._calls
        if self.provider is None:
            return dict(self.client.call_tool(name, arguments or {}))
        return self._through(name, arguments or {}, number)

    def _through(self, name: str, arguments: dict[str, Any], number: int) -> dict[str, Any]:
        mark = AppCall(self.client, name)
        ask = getattr(self.provider, "app_tool_name", None)
        published = ask(self.client, name) if callable(ask) else None
        call = {"id": f"app-{number}", "type": "function",
                "function": {"name": published if isinstance(published, str) else name,
                             "arguments": arguments},
                "_meta": {APP_CALL: mark}}
        entries = self.provider.execute_tool_calls([call])
        entry = entries[0] if isinstance(entries, list) and len(entries) == 1 else None
        if not isinstance(entry, Mapping):
            raise _Refusal(protocol.INTERNAL_ERROR, f"{name}: the provider answered out of shape")
        if mark.result is not None:
            return dict(mark.result)
        if entry.get("is_error") is True:   # refused (or failed) before the server answered
            raise _Refusal(REFUSED, str(entry.get("content") or f"{name} was refused"))
        return _as_result(entry)


def _kind(message: Any) -> str:
    """``request``, ``notification``, ``answer``, or what is wrong with ``message``."""
    if not isinstance(message, dict):
        return f"a {type(message).__name__}, not an object"
    if message.get("jsonrpc") != "2.0":
        return "jsonrpc is not \"2.0\""
    method, has_id = message.get("method"), "id" in message
    ident = message.get("id")
    if has_id and (isinstance(ident, bool) or not isinstance(ident, (str, int))):
        return "its id is not a string or an integer"
    if method is None and has_id and ("result" in message or "error" in message):
        return "answer"
    if not isinstance(method, str) or not method:
        return "it names no method"
    if "params" in message and not isinstance(message["params"], dict):
        return "its params are not an object"
    return "request" if has_id else "notification"


def _ident(message: Any) -> str | int | None:
    """The message's id when it has a usable one (an error answer names it), else None."""
    ident = message.get("id") if isinstance(message, dict) else None
    return ident if isinstance(ident, (str, int)) and not isinstance(ident, bool) else None


def _as_result(result: Mapping[str, Any]) -> dict[str, Any]:
    """A ``CallToolResult`` from a result (kept whole) or a provider's entry (rebuilt)."""
    if result.get("role") != "tool":
        return dict(result)
    rebuilt: dict[str, Any] = {"content": [{"type": "text",
                                            "text": flatten_content(result.get("content"))
                                            if not isinstance(result.get("content"), str)
                                            else result["content"]}]}
    if "structured_content" in result:
        rebuilt["structuredContent"] = result["structured_content"]
    if result.get("is_error") is True:
        rebuilt["isError"] = True
    return rebuilt
