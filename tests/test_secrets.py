"""Secrets and the environment: redacted URLs, explicit credentials, what a child inherits.

Every test here states a promise of the form "this secret never shows up there" or "this
credential is never replaced", checked against real HTTP servers on 127.0.0.1 and real child
processes reporting the environment they were given.
"""

from __future__ import annotations

from mcp_client.config import ConfigError, expand, load_config

from .base import LeakCheckingTestCase


class NestedDefaultTest(LeakCheckingTestCase):
    """``${A:-${B}}`` is expanded, or refused naming the key, never kept half-read."""

    ENV = {"B": "bee", "EMPTY": "", "SECRET": "hunter2-value"}

    def test_nested_defaults_are_expanded(self) -> None:
        cases = {
            "${A:-${B}}": "bee", "${B:-${A}}": "bee", "${A:-${EMPTY:-${B}}}": "bee",
            "x${A:-pre-${B}-post}y": "xpre-bee-posty", "${A:-${C:-lit}}": "lit",
            "${A:-$${B}}": "${B}", "${A:-{}}": "{}", "${A:-a}b}": "ab}",
            "${env:A:-${env:B}}": "bee",
        }
        for text, expanded in cases.items():
            with self.subTest(text):
                self.assertEqual(expand(text, self.ENV), expanded)

    def test_an_unset_inner_variable_is_an_error_only_when_needed(self) -> None:
        with self.assertRaises(ConfigError) as caught:
            expand("${A:-${C}}", self.ENV, key="args[0]")
        self.assertIn("C is not set", str(caught.exception))
        self.assertEqual(expand("${B:-${C}}", self.ENV), "bee")

    def test_malformed_nesting_names_the_key_and_echoes_no_value(self) -> None:
        for text in ("${A:-${B}", "Bearer hunter2-value ${A:-${B}", "${A:-${B:-${",
                     "${SECRET:-${B}", "${A:-" + "${A:-" * 20 + "x" + "}" * 21):
            config = {"mcpServers": {"s": {"command": "x", "env": {"TOKEN": text}}}}
            with self.subTest(text), self.assertRaises(ConfigError) as caught:
                load_config(config, environ=self.ENV)
            self.assertEqual((caught.exception.server, caught.exception.key), ("s", "env.TOKEN"))
            self.assertNotIn("hunter2", str(caught.exception))

    def test_disabled_entries_keep_malformed_text(self) -> None:
        self.assertEqual(expand("${A:-${B}", self.ENV, strict=False), "${A:-${B}")
        self.assertEqual(expand("${A:-${C}}", {}, strict=False), "${A:-${C}}")
