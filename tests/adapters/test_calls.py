"""``mcp_client.adapters._calls``: the tools and the one call every framework adapter uses."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from mcp_client import MCPClientError
from mcp_client.adapters import _calls

from ..base import LeakCheckingTestCase


class Recorder:
    """A provider that answers every call with its arguments, and records what it saw."""

    def __init__(self, *, hold: threading.Event | None = None) -> None:
        self.calls: list[Any] = []
        self.cancelled: list[Any] = []
        self.started = threading.Event()
        self.hold = hold

    def tools_for_llm(self) -> list[Any]:
        return [{"type": "function", "function": {
                    "name": "look", "description": "Looks.",
                    "parameters": {"type": "object", "properties": {"q": {"type": "string"}}}}},
                {"type": "function", "function": {"name": "bare"}},
                {"type": "retrieval"}, "not a declaration",
                {"type": "function", "function": {"name": ""}}]

    def tool_annotations(self, name: str) -> Any:
        return {"readOnlyHint": True} if name == "look" else None

    def execute_tool_calls(self, calls: list[Any]) -> list[Any]:
        self.calls.extend(calls)
        self.started.set()
        if self.hold is not None:
            self.hold.wait(10)
        return [{"role": "tool", "tool_call_id": c["id"], "content": "saw " + repr(
            c["function"]["arguments"]), "is_error": False, "structured_content": {"n": 1}}
                for c in calls]

    def cancel_tool_calls(self, ids: list[Any]) -> int:
        self.cancelled.extend(ids)
        if self.hold is not None:
            self.hold.set()
        return 1


class CatalogueTest(LeakCheckingTestCase):
    def test_function_declarations_only_with_schemas_copied(self) -> None:
        provider = Recorder()
        tools = _calls.catalogue(provider)
        self.assertEqual([t.name for t in tools], ["look", "bare"])
        self.assertEqual(tools[0].description, "Looks.")
        self.assertTrue(tools[0].read_only)
        self.assertFalse(tools[1].read_only)
        self.assertEqual(tools[1].parameters, {"type": "object", "properties": {}})
        self.assertEqual(tools[1].description, "")
        tools[0].parameters["properties"].clear()           # a copy: the provider keeps its own
        self.assertIn("q", _calls.catalogue(provider)[0].parameters["properties"])

    def test_not_a_provider(self) -> None:
        with self.assertRaisesRegex(MCPClientError, "takes a provider"):
            _calls.catalogue(object())


class CallTest(LeakCheckingTestCase):
    def test_one_call_is_a_batch_of_one_with_a_fresh_id(self) -> None:
        provider = Recorder()
        outcome = _calls.call(provider, "look", {"q": "x"})
        self.assertEqual(outcome, _calls.Outcome("saw {'q': 'x'}", False, {"n": 1}))
        _calls.call(provider, "look", None)
        first, second = provider.calls
        self.assertTrue(first["id"].startswith("adapter-"))
        self.assertNotEqual(first["id"], second["id"])
        self.assertEqual(second["function"], {"name": "look", "arguments": {}})

    def test_a_provider_that_breaks_its_contract_is_an_mcp_client_error(self) -> None:
        class Raising(Recorder):
            def execute_tool_calls(self, calls: list[Any]) -> list[Any]:
                raise KeyError("inside")

        class Silent(Recorder):
            def execute_tool_calls(self, calls: list[Any]) -> list[Any]:
                return []

        with self.assertRaisesRegex(MCPClientError, "raised KeyError"):
            _calls.call(Raising(), "look", {})
        with self.assertRaisesRegex(MCPClientError, "did not answer"):
            _calls.call(Silent(), "look", {})

    def test_async_call_runs_on_a_thread_that_ends_with_it(self) -> None:
        provider = Recorder()
        outcome = asyncio.run(_calls.call_async(provider, "look", '{"q": "y"}'))
        self.assertEqual(outcome.text, "saw '{\"q\": \"y\"}'")

    def test_an_async_error_reaches_the_awaiter(self) -> None:
        class Silent(Recorder):
            def execute_tool_calls(self, calls: list[Any]) -> list[Any]:
                return []

        with self.assertRaises(MCPClientError):
            asyncio.run(_calls.call_async(Silent(), "look", {}))

    def test_cancelling_the_task_cancels_the_call_by_its_id(self) -> None:
        provider = Recorder(hold=threading.Event())

        async def main() -> None:
            task = asyncio.ensure_future(_calls.call_async(provider, "look", {}))
            started = await asyncio.get_running_loop().run_in_executor(
                None, provider.started.wait, 10)
            self.assertTrue(started)
            task.cancel()
            with self.assertRaises(asyncio.CancelledError):
                await task

        asyncio.run(main())
        self.assertEqual(provider.cancelled, [provider.calls[0]["id"]])
