"""Names a model API accepts: the rule, the rewriting, collisions, the way back."""

from __future__ import annotations

from mcp_client.names import LLM_NAME, NameMap, clean, fit, hashed, is_llm_name

from ..base import LeakCheckingTestCase

LONG = "read_the_complete_quarterly_financial_statements_of_every_subsidiary_in_the_group"


def simple(*names: str) -> NameMap[str]:
    return NameMap((name, name, name) for name in names)


class RuleTest(LeakCheckingTestCase):
    def test_what_a_model_api_accepts(self) -> None:
        for name in ("a", "echo", "git_log", "fs-read", "A9", "x" * 64):
            self.assertTrue(is_llm_name(name), name)
        refused: list[object] = ["", "files.read", "x" * 65, "a b", "naïve", "a\n", "a/b",
                                 None, 3]
        for thing in refused:
            self.assertFalse(is_llm_name(thing), thing)

    def test_clean_and_fit(self) -> None:
        self.assertEqual(clean("files.read_text"), "files_read_text")
        self.assertEqual(clean("héllo wörld"), "h_llo_w_rld")
        self.assertEqual(clean(""), "tool")
        self.assertEqual(fit("a.b", "a.b"), "a_b")
        shortened = fit(LONG, LONG)
        self.assertEqual(len(shortened), 64)
        self.assertTrue(shortened.startswith(LONG[:55] + "_"))

    def test_the_hash_is_stable_across_processes(self) -> None:
        # A golden value: the same catalogue gives the same names on every run.
        self.assertEqual(hashed(LONG, LONG),
                         "read_the_complete_quarterly_financial_statements_of_eve_dde51b48")


class NameMapTest(LeakCheckingTestCase):
    def test_acceptable_names_are_kept_and_the_rest_round_trip(self) -> None:
        names = simple("echo", "files.read_text", LONG, "ünïcode")
        published = [names.name_for(key) for key in names]
        self.assertEqual(published[:2], ["echo", "files_read_text"])
        for key, name in zip(names, published):
            assert name is not None
            self.assertRegex(name, LLM_NAME)
            self.assertEqual(names.key_for(name), key)
        self.assertIsNone(names.key_for("nope"))
        self.assertEqual(len(names), 4)

    def test_a_real_name_wins_over_a_rewritten_one(self) -> None:
        for order in (("a.b", "a_b"), ("a_b", "a.b")):
            with self.subTest(order):
                names = simple(*order)
                self.assertEqual(names.name_for("a_b"), "a_b")
                rewritten = names.name_for("a.b")
                self.assertEqual(rewritten, hashed("a.b", "a.b"))
                assert rewritten is not None
                self.assertEqual(names.key_for(rewritten), "a.b")

    def test_two_rewritten_names_colliding_are_never_merged(self) -> None:
        names = simple("a.b", "a/b", "a b")
        published = {names.name_for(k) for k in ("a.b", "a/b", "a b")}
        self.assertEqual(len(published), 3)
        self.assertEqual(names.name_for("a.b"), "a_b")   # first come, first served
        for key in ("a.b", "a/b", "a b"):
            name = names.name_for(key)
            assert name is not None
            self.assertEqual(names.key_for(name), key)

    def test_priority_order_decides_between_equal_names(self) -> None:
        names = NameMap([(("fs_ext", "read"), "fs_ext_read", "1"),
                         (("fs", "ext_read"), "fs_ext_read", "2")])
        self.assertEqual(names.name_for(("fs_ext", "read")), "fs_ext_read")
        self.assertEqual(names.name_for(("fs", "ext_read")), hashed("fs_ext_read", "2"))

    def test_a_key_given_twice_keeps_its_first_entry(self) -> None:
        names = NameMap([("k", "first", "k"), ("k", "second", "k")])
        self.assertEqual(names.name_for("k"), "first")
        self.assertIsNone(names.key_for("second"))

    def test_the_same_entries_give_the_same_map(self) -> None:
        entries = ["x.y", "x_y", LONG, LONG + "_2", "z"]
        first, second = simple(*entries), simple(*entries)
        self.assertEqual([first.name_for(k) for k in entries],
                         [second.name_for(k) for k in entries])
        self.assertIn("<NameMap 5 names, 3 rewritten>", repr(first))
