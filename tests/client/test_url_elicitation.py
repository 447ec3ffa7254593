"""URL-mode elicitation (2025-11-25 and 2026-07-28 client/elicitation) against a real SDK
server in both eras: the ``on_elicit_url`` hook, the declared ``url`` mode, refusal without
the hook, ``-32042`` and ``notifications/elicitation/complete``."""

from __future__ import annotations

import json
import os
import pickle
import queue
import threading
import unittest
from typing import Any, Callable

from mcp_client import Client, ProtocolError
from mcp_client.client._inputs import ELICIT, Inputs
from mcp_client.exceptions import URLElicitationRequired
from mcp_client.protocol import META_CLIENT_CAPABILITIES
from mcp_client.testing import FakeTransport
from mcp_client.types import Notification, text_of

from ..base import ClientCase, fake_server

ERAS = ("auto", "legacy")
MODERN, LEGACY = "2026-07-28", "2025-11-25"
URL = "https://accounts.example.com/connect?session=42"


def recorder(seen: list[dict[str, Any]], action: str) -> Callable[[dict[str, Any]], Any]:
    """A hook that keeps each request and answers ``action``."""
    def hook(request: dict[str, Any]) -> dict[str, Any]:
        seen.append(request)
        return {"action": action}
    return hook


class InteractiveCase(ClientCase):
    script = "interactive_server.py"

    def declared(self, client: Client) -> Any:
        return json.loads(client.call_tool("declared")["structuredContent"]["result"])


def _decline(request: dict[str, Any]) -> dict[str, Any]:
    return {"action": "decline"}


#: Client options and the ``elicitation`` capability they declare.
DECLARED: dict[str, tuple[dict[str, Any], Any]] = {
    "url only": ({"on_elicit_url": _decline}, {"url": {}}),
    "both": ({"on_elicit": _decline, "on_elicit_url": _decline}, {"form": {}, "url": {}}),
    "form only": ({"on_elicit": _decline}, {"form": {}}),
    "override": ({"on_elicit": _decline, "client_capabilities": {
        "elicitation": {"form": {}, "url": {}}}}, {"form": {}, "url": {}}),
}


class CapabilityTest(InteractiveCase):
    def test_the_url_mode_is_declared_by_its_hook(self) -> None:
        """What each set of hooks declares, as sent: a scripted server is enough."""
        for era in ERAS:
            for name, (options, wanted) in DECLARED.items():
                with self.subTest(era=era, case=name):
                    fake = fake_server({"tools": {}})
                    fake.on("initialize", {
                        "protocolVersion": LEGACY, "capabilities": {"tools": {}},
                        "serverInfo": {"name": "fake", "version": "1"}})
                    client = ClientCase.connect(self, fake, era=era, **options)
                    self.assertEqual(client.declared_capabilities["elicitation"], wanted)
                    self.assertEqual(client.era, "legacy" if era == "legacy" else "modern")
                    if era == "legacy":
                        sent = fake.requests("initialize")[0]["params"]["capabilities"]
                    else:
                        sent = fake.requests("server/discover")[0]["params"]["_meta"][
                            META_CLIENT_CAPABILITIES]
                    self.assertEqual(sent["elicitation"], wanted)
                    client.close()

    def test_a_real_server_reads_the_declared_modes(self) -> None:
        """The SDK server sees what was declared, in both eras."""
        for era, name in zip(ERAS, ("url only", "both")):
            with self.subTest(era=era, case=name):
                options, wanted = DECLARED[name]
                client = self.connect(era=era, **options)
                self.assertEqual(self.declared(client), wanted)
                client.close()

    def test_the_hook_must_be_callable(self) -> None:
        from mcp_client import MCPClientError

        with self.assertRaisesRegex(MCPClientError, "on_elicit_url must be callable"):
            Client(transport=FakeTransport(), on_elicit_url="yes")


class URLModeTest(InteractiveCase):
    def test_a_url_elicitation_reaches_its_hook_in_both_eras(self) -> None:
        for era in ERAS:
            with self.subTest(era=era):
                asked: list[dict[str, Any]] = []
                forms: list[dict[str, Any]] = []

                def hook(request: dict[str, Any]) -> dict[str, Any]:
                    asked.append(request)
                    # content has no place in a URL-mode answer: it is not sent
                    return {"action": "accept", "content": {"secret": "x"}}

                client = self.connect(era=era, on_elicit_url=hook,
                                      on_elicit=recorder(forms, "cancel"))
                text = text_of(client.call_tool("connect", {"service": "git"}))
                [request] = asked
                self.assertEqual(request["method"], ELICIT)
                self.assertEqual(request["params"]["mode"], "url")
                self.assertEqual(request["params"]["url"], URL)
                self.assertEqual(request["params"]["message"], "Connect your git account")
                self.assertEqual(forms, [])
                if era == "legacy":
                    self.assertEqual(request["params"]["elicitationId"], "connect-git")
                    self.assertEqual(text, "action=accept")
                else:
                    self.assertEqual(text, "action=accept state=connect:git content=None")
                client.close()

    def test_without_the_hook_a_url_elicitation_is_refused(self) -> None:
        for era in ERAS:
            with self.subTest(era=era):
                forms: list[dict[str, Any]] = []
                client = self.connect(era=era, on_elicit=recorder(forms, "accept"))
                if era == "legacy":   # 2025-11-25: -32602 for a mode the client did not declare
                    with self.assertRaises(ProtocolError) as caught:   # (the SDK passes it on)
                        client.call_tool("connect", {"service": "git"})
                    self.assertEqual(caught.exception.code, -32602)
                    self.assertIn("'url'", caught.exception.message)
                else:   # 2026-07-28 has no error for one entry of a round: declined
                    result = client.call_tool("connect", {"service": "git"})
                    self.assertEqual(text_of(result),
                                     "action=decline state=connect:git content=None")
                self.assertEqual(forms, [])   # the form hook never sees a URL it cannot open
                self.assertIn("refused the server's elicitation", self.warnings[0])
                client.close()

    def test_the_override_hands_url_requests_to_on_elicit(self) -> None:
        asked: list[dict[str, Any]] = []
        client = self.connect(era="legacy", on_elicit=recorder(asked, "accept"),
                              client_capabilities={"elicitation": {"url": {}, "form": {}}})
        self.assertEqual(text_of(client.call_tool("connect", {"service": "hg"})),
                         "action=accept")
        self.assertEqual([r["params"]["mode"] for r in asked], ["url"])

    def test_a_hook_that_fails_declines(self) -> None:
        def broken(request: dict[str, Any]) -> dict[str, Any]:
            raise RuntimeError("no browser")

        for era in ERAS:
            # one server per era: the hook the client calls is swapped between calls
            current: list[Callable[[dict[str, Any]], Any]] = []
            client = self.connect(era=era, on_elicit_url=lambda r: current[0](r))
            for hook in (broken, lambda r: {"action": "sure"}, lambda r: None):
                with self.subTest(era=era, hook=hook):
                    current[:] = [hook]
                    del self.warnings[:]
                    text = text_of(client.call_tool("connect", {"service": "git"}))
                    self.assertTrue(text.startswith("action=decline"), text)
                    self.assertTrue(self.warnings, "the failure was not reported")
            client.close()

    def test_the_completion_notification_is_on_the_stream(self) -> None:
        client = self.connect(era="legacy", on_elicit_url=lambda r: {"action": "accept"})
        seen: queue.Queue[Notification] = queue.Queue()
        client.notifications.subscribe(
            lambda n: seen.put(n) if n["method"] == "notifications/elicitation/complete" else None)
        client.call_tool("connect", {"service": "git"})
        self.assertEqual(seen.get(timeout=30)["params"], {"elicitationId": "connect-git"})


class RequiredErrorTest(InteractiveCase):
    def test_minus_32042_is_a_typed_error_in_both_eras(self) -> None:
        for era in ERAS:
            with self.subTest(era=era):
                client = self.connect(era=era)
                with self.assertRaises(URLElicitationRequired) as caught:
                    client.call_tool("files", {"service": f"svn-{era}"})
                error = caught.exception
                self.assertIsInstance(error, ProtocolError)
                self.assertEqual(error.code, -32042)
                self.assertEqual(error.method, "tools/call")
                self.assertEqual(error.elicitations, [{
                    "mode": "url", "message": f"Authorize access to your svn-{era} files",
                    "url": URL, "elicitationId": f"files-svn-{era}"}])
                copy = pickle.loads(pickle.dumps(error))
                self.assertEqual((type(copy), copy.elicitations),
                                 (URLElicitationRequired, error.elicitations))
                # the server's state moved on "out of band": the retry succeeds
                self.assertEqual(text_of(client.call_tool("files", {"service": f"svn-{era}"})),
                                 f"svn-{era}: a.txt, b.txt")
                client.close()

    def test_a_malformed_minus_32042_keeps_only_url_elicitations(self) -> None:
        from mcp_client import protocol

        entries = [{"mode": "form", "message": "x"}, "junk",
                   {"mode": "url", "url": URL, "message": "go"}]
        error = protocol.error_from({"jsonrpc": "2.0", "id": 1, "error": {
            "code": -32042, "message": "needs auth", "data": {"elicitations": entries}}},
            "tools/call")
        self.assertIsInstance(error, URLElicitationRequired)
        assert isinstance(error, URLElicitationRequired)
        self.assertEqual(error.elicitations, [{"mode": "url", "url": URL, "message": "go"}])
        bare = protocol.error_from({"jsonrpc": "2.0", "id": 1, "error": {
            "code": -32042, "message": "needs auth"}})
        self.assertEqual(bare.elicitations, [])   # type: ignore[attr-defined]


def _ignore(text: str) -> None:
    pass


class InputsTest(ClientCase):
    """The routing itself, with no server: modes, malformed requests, concurrency."""

    def test_routing_by_mode(self) -> None:
        calls: list[str] = []
        lock = threading.Lock()

        def hook(name: str) -> Any:
            def answer(request: dict[str, Any]) -> dict[str, Any]:
                with lock:
                    calls.append(name)
                return {"action": "accept", "content": {}}
            return answer

        inputs = Inputs({ELICIT: hook("form")}, _ignore, url_hook=hook("url"))
        url = {"method": ELICIT, "params": {"mode": "url", "url": URL, "message": "m"}}
        form = {"method": ELICIT, "params": {"message": "m", "requestedSchema": {
            "type": "object", "properties": {}}}}
        self.assertEqual(inputs.answer_round("tools/call", {"a": url, "b": form}),
                         {"a": {"action": "accept"}, "b": {"action": "accept", "content": {}}})
        self.assertEqual(sorted(calls), ["form", "url"])
        warnings: list[str] = []
        only_form = Inputs({ELICIT: hook("form")}, warnings.append)
        self.assertEqual(only_form.answer_round("tools/call", {"a": url}),
                         {"a": {"action": "decline"}})
        self.assertIn("url", warnings[0])
        legacy = only_form.answer_request({"id": 7, "method": ELICIT, "params": url["params"]})
        self.assertEqual(legacy["error"]["code"], -32602)
        no_url = {"id": 8, "method": ELICIT, "params": {"mode": "url", "message": "m"}}
        self.assertEqual(inputs.answer_request(no_url)["error"]["code"], -32602)
        only_url = Inputs({}, _ignore, url_hook=hook("url"))
        self.assertEqual(only_url.answer_request({"id": 9, "method": ELICIT,
                                                  "params": form["params"]})["error"]["code"],
                         -32602)
        self.assertEqual(Inputs({}, _ignore).answer_request(
            {"id": 10, "method": ELICIT, "params": url["params"]})["error"]["code"], -32601)


EVERYTHING = os.environ.get("MCP_SERVER_EVERYTHING")
NODE = os.environ.get("MCP_NODE", "node")


@unittest.skipUnless(EVERYTHING and os.path.exists(EVERYTHING),
                     "MCP_SERVER_EVERYTHING does not name server-everything's entry script "
                     "(and MCP_NODE the node binary); .ci/run sets both")
class EverythingURLTest(ClientCase):
    """server-everything offers trigger-url-elicitation only to a client declaring url mode."""

    def test_both_paths_of_its_url_elicitation_tool(self) -> None:
        asked: list[dict[str, Any]] = []
        client = Client.connect_stdio(NODE, args=[str(EVERYTHING), "stdio"], request_timeout=30,
                                      on_elicit_url=recorder(asked, "accept"))
        self.addCleanup(client.close)
        self.assertIn("trigger-url-elicitation", [tool["name"] for tool in client.list_tools()])
        result = client.call_tool("trigger-url-elicitation", {
            "url": "https://example.com/connect", "elicitationId": "e-1"})
        self.assertIn("User completed the URL elicitation flow", text_of(result))
        self.assertEqual(asked[0]["params"], {
            "mode": "url", "url": "https://example.com/connect", "elicitationId": "e-1",
            "message": "Please open the link to complete this action."})
        with self.assertRaises(URLElicitationRequired) as caught:
            client.call_tool("trigger-url-elicitation", {"url": "https://example.com/2",
                                                         "errorPath": True})
        [wanted] = caught.exception.elicitations
        self.assertEqual(wanted["url"], "https://modelcontextprotocol.io")
        self.assertTrue(wanted["elicitationId"])

    def test_a_client_without_the_hook_is_not_offered_it(self) -> None:
        client = Client.connect_stdio(NODE, args=[str(EVERYTHING), "stdio"], request_timeout=30,
                                      on_elicit=recorder([], "decline"))
        self.addCleanup(client.close)
        self.assertNotIn("trigger-url-elicitation",
                         [tool["name"] for tool in client.list_tools()])
