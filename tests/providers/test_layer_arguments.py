"""Bad arguments to the lease and unknown-keys layers: an InvalidArgument, at the call.

Each is an :class:`~mcp_client.exceptions.MCPClientError` naming the argument,
what was passed and what it must be -- and still the ``ValueError`` or
``TypeError`` those checks raised before.
"""

from __future__ import annotations

import math
import pickle
import unittest
from typing import Any, Callable

from mcp_client import InvalidArgument, MCPClientError
from mcp_client.leases import Hold, LeaseTable, Leases
from mcp_client.unknown_keys import UnknownKeys


class Inner:
    def tools_for_llm(self) -> list[dict[str, Any]]:
        return []

    def execute_tool_calls(self, calls: list[Any]) -> list[dict[str, Any]]:
        return []


class InvalidArgumentTest(unittest.TestCase):
    def test_it_is_a_client_error_a_value_error_and_a_type_error(self) -> None:
        error = InvalidArgument("agent_id", "", "must be a non-empty string")
        self.assertIsInstance(error, MCPClientError)
        self.assertIsInstance(error, ValueError)
        self.assertIsInstance(error, TypeError)
        self.assertEqual((error.argument, error.value, error.reason),
                         ("agent_id", "", "must be a non-empty string"))
        self.assertEqual(str(error), "agent_id must be a non-empty string, not ''")
        copy = pickle.loads(pickle.dumps(error))
        self.assertEqual((type(copy), copy.argument, copy.value, copy.reason, str(copy)),
                         (InvalidArgument, "agent_id", "", "must be a non-empty string",
                          str(error)))

    def test_a_long_value_is_cut_in_the_message_and_kept_whole(self) -> None:
        value = "x" * 500
        error = InvalidArgument("agent_id", value, "must be short")
        self.assertLess(len(str(error)), 100)
        self.assertIs(error.value, value)


class ArgumentCase(unittest.TestCase):
    def assert_invalid(self, make: Callable[[], object], argument: str, value: Any,
                       reason: str) -> None:
        with self.assertRaises(InvalidArgument) as caught:
            make()
        error = caught.exception
        self.assertIs(type(error), InvalidArgument)
        self.assertEqual(error.argument, argument)
        self.assertEqual(error.reason, reason)
        if isinstance(value, float) and math.isnan(value):
            self.assertTrue(math.isnan(error.value))
        else:
            self.assertEqual(error.value, value)


class LeaseTableArgumentsTest(ArgumentCase):
    REASON = "must be a positive number of seconds"

    def test_default_ttl(self) -> None:
        for value in (0, -1, math.inf, math.nan, True, "300", None):
            with self.subTest(value=value):
                self.assert_invalid(lambda: LeaseTable(value),  # type: ignore[arg-type]
                                    "default_ttl", value, self.REASON)
        self.assertEqual(LeaseTable(0.5).default_ttl, 0.5)

    def test_clock(self) -> None:
        self.assert_invalid(lambda: LeaseTable(clock=5), "clock",  # type: ignore[arg-type]
                            5, "must be callable")

    def test_try_acquire(self) -> None:
        table = LeaseTable()
        self.assert_invalid(lambda: table.try_acquire("", ["/p"], 10), "holder", "",
                            "must be a non-empty string")
        self.assert_invalid(lambda: table.try_acquire("a", "/p", 10), "wanted", "/p",
                            "must be a list of path strings")
        mixed: list[Any] = ["/p", 3]
        self.assert_invalid(lambda: table.try_acquire("a", mixed, 10), "wanted", mixed,
                            "must be a list of path strings")
        self.assert_invalid(lambda: table.try_acquire("a", ["/p"], 0), "ttl", 0, self.REASON)
        self.assertEqual(table.snapshot(), [])

    def test_release_and_hold(self) -> None:
        table = LeaseTable()
        self.assert_invalid(lambda: table.release(None, None),  # type: ignore[arg-type]
                            "holder", None, "must be a non-empty string")
        self.assert_invalid(lambda: table.release("a", "/p"), "released", "/p",
                            "must be a list of path strings")
        self.assert_invalid(lambda: table.release_holder(""), "agent_id", "",
                            "must be a non-empty string")
        self.assert_invalid(lambda: table.hold("a", "/p", strict=False), "places", "/p",
                            "must be a list of path strings")
        self.assert_invalid(lambda: table.end_hold("/p"),  # type: ignore[arg-type]
                            "held", "/p", "must be a Hold from hold()")
        held = table.hold("a", ["/p"], strict=False)
        assert isinstance(held, Hold)
        table.end_hold(held)
        self.assertEqual(table.holds(), [])


class LeasesArgumentsTest(ArgumentCase):
    def make(self, **options: Any) -> Leases:
        arguments: dict[str, Any] = {"table": LeaseTable(), "agent_id": "a"}
        arguments.update(options)
        return Leases(Inner(), **arguments)

    def test_table_and_agent_id(self) -> None:
        self.assert_invalid(lambda: self.make(table={}), "table", {}, "must be a LeaseTable")
        for value in ("", None, 7):
            with self.subTest(value=value):
                self.assert_invalid(lambda: self.make(agent_id=value), "agent_id", value,
                                    "must be a non-empty string")

    def test_roots(self) -> None:
        self.assert_invalid(lambda: self.make(roots=["/srv"]), "roots", ["/srv"],
                            "must be a mapping of tool-name prefix to directory")
        self.assert_invalid(lambda: self.make(roots={"fs": "relative"}), "roots",
                            {"fs": "relative"},
                            "must map each prefix to a plain absolute path ('fs': 'relative')")
        self.assertEqual(self.make(roots={"fs": "/srv//work/"}).roots, {"fs": "/srv/work"})

    def test_hooks_must_be_callable(self) -> None:
        for hook in ("concurrent", "on_wait_begin", "on_wait_end", "cancelled"):
            with self.subTest(hook=hook):
                self.assert_invalid(lambda: self.make(**{hook: 2}), hook, 2,
                                    "must be callable or None")

    def test_enforced_tools(self) -> None:
        self.assert_invalid(lambda: self.make(enforced_tools="fs_write"), "enforced_tools",
                            "fs_write", "must be a list of tool-name strings")
        self.assert_invalid(lambda: self.make(enforced_tools=["fs_write", None]),
                            "enforced_tools", ["fs_write", None],
                            "must be a list of tool-name strings")
        self.assertEqual(self.make(enforced_tools=("w",)).enforced_tools, frozenset({"w"}))


class UnknownKeysArgumentsTest(ArgumentCase):
    def test_on_warn_must_be_callable(self) -> None:
        self.assert_invalid(lambda: UnknownKeys(Inner(), None),  # type: ignore[arg-type]
                            "on_warn", None, "must be callable")
        self.assertIsInstance(UnknownKeys(Inner(), print), UnknownKeys)


if __name__ == "__main__":
    unittest.main()
