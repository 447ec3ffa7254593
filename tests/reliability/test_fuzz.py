"""Properties over arbitrary input (hypothesis): protocol, stdio lines, SSE, paths, hosts, bridge.

Each property runs the ``ci`` profile's examples (300) by default and the ``long`` profile's
(5000) under ``--long`` (``tests/chaoskit.py``); those that start a process or a client per
batch of examples run fewer (:func:`examples`).  Reference implementations written here from
the specs (WHATWG event streams; newline framing) are the oracles, and "a server reads this
path or URL some other way" is modelled by :func:`readings`.
"""

from __future__ import annotations

import base64
import itertools
import json
import posixpath
import queue
import re
import unicodedata
from typing import Any, Callable, Iterable, Iterator
from urllib.parse import unquote, urlsplit

import urllib3
from hypothesis import example, given, settings
from hypothesis import strategies as st

from mcp_client import Client, MCPClientError, ProtocolError, protocol
from mcp_client._lines import LineBuffer
from mcp_client.provider import parse_arguments, read_call
from mcp_client.policy import Policy
from mcp_client.protocol import Kind
from mcp_client.policy.rules import compile_rule, gather
from mcp_client.sse import EventTooLarge, SSEEvent, SSEParser
from mcp_client.stdio import StdioTransport
from mcp_client.testing import Raw

from ..base import PYTHON, LeakCheckingTestCase, fake_server
from ..chaoskit import chaos, examples

# -- strategies ------------------------------------------------------------------------------

scalars = (st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20)
           | st.sampled_from(["2.0", "tools/call", "complete", "input_required", ""]))
KEYS = st.sampled_from(["jsonrpc", "id", "method", "params", "result", "error", "code",
                        "message", "data", "resultType", "ttlMs", "_meta", "inputRequests",
                        "requestState", "content", "structuredContent", "isError",
                        "supportedVersions"]) | st.text(max_size=8)
json_values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4)
                           | st.dictionaries(KEYS, inner, max_size=6), max_leaves=25)
messages = st.dictionaries(KEYS, json_values, max_size=6) | json_values


def nested(depth: int, leaf: Any = 0) -> Any:
    """``depth`` levels of alternating arrays and objects around ``leaf`` (no recursion)."""
    value = leaf
    for level in range(depth):
        value = [value] if level % 2 else {"k": value}
    return value


class Deep:
    """A value nested ``depth`` levels, built on demand (hypothesis cannot print one)."""

    def __init__(self, depth: int) -> None:
        self.depth = depth

    def __repr__(self) -> str:
        return f"nested({self.depth})"

    @staticmethod
    def unwrap(value: Any) -> Any:
        return nested(value.depth) if isinstance(value, Deep) else value


deep_values = st.integers(100, 900).map(Deep)


def chunked(data: bytes, cuts: Iterable[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts} | {0, len(data)})
    return [data[a:b] for a, b in zip(points, points[1:])]


cut_lists = st.lists(st.integers(0, 1 << 16), max_size=12)


# -- protocol --------------------------------------------------------------------------------

class ProtocolFuzzTest(LeakCheckingTestCase):
    @given(messages)
    def test_classify_reads_any_json_value(self, message: Any) -> None:
        kind = protocol.classify(message)
        if kind is Kind.INVALID:
            return
        assert isinstance(message, dict) and message["jsonrpc"] == "2.0"
        if kind is Kind.RESPONSE:
            self.assertIn("result", message)
            self.assertNotIn("error", message)
            self.assertIsInstance(message["id"], (str, int))
        elif kind is Kind.ERROR:
            code = message["error"]["code"]
            self.assertTrue(isinstance(code, int) and not isinstance(code, bool), code)
            self.assertIsInstance(protocol.error_from(message), ProtocolError)
        else:
            self.assertIsInstance(message["method"], str)
            self.assertEqual("id" in message, kind is Kind.REQUEST)

    @given(st.sampled_from(["tools/call", "tools/list", "server/discover", "resources/read"]),
           json_values | st.dictionaries(KEYS, json_values) | deep_values)
    @example("tools/list", {"tools": [], "ttlMs": float("inf")})
    @example("tools/list", {"ttlMs": 1e999, "resultType": "complete"})
    @example("tools/list", {"ttlMs": float("nan")})
    @example("tools/call", Deep(600))
    def test_shape_result_raises_only_protocol_errors(self, method: str, result: Any) -> None:
        """Regression: ``ttlMs: 1e999`` raised OverflowError out of every cacheable call."""
        result = Deep.unwrap(result)
        try:
            shaped = protocol.shape_result(method, result)
        except ProtocolError:
            return
        self.assertIn(shaped.result_type, ("complete", "input_required"))
        self.assertFalse(set(shaped.body) & set(protocol.BOOKKEEPING_KEYS))
        ttl = shaped.ttl_ms
        self.assertTrue(isinstance(ttl, int) and ttl >= 0, ttl)
        self.assertIsInstance(shaped.input_requests, dict)
        self.assertIn(type(shaped.request_state), (str, type(None)))
        self.assertIn(type(shaped.server_info), (dict, type(None)))
        self.assertIn(type(protocol.discover_versions(result)), (list, type(None)))

    def test_results_too_deep_to_copy_are_protocol_errors(self) -> None:
        """Regression: a 300-deep result crashed list_tools and the bridge with RecursionError."""
        fake = fake_server()
        fake.on("tools/list", {"tools": [{"name": "t", "inputSchema": nested(300)}],
                               "ttlMs": 60_000})
        fake.on("tools/call", {"content": [], "structuredContent": nested(300)})
        with Client(transport=fake) as client:
            with self.assertRaises(ProtocolError) as caught:
                client.list_tools()
            self.assertIn("levels deep", str(caught.exception))
            [entry] = client.execute_tool_calls([{"id": "1", "function": {"name": "t"}}])
            self.assertTrue(entry["is_error"])

    def test_any_result_is_a_value_or_a_typed_error(self) -> None:
        fake = fake_server()
        current: list[Any] = [None]
        for method in ("tools/list", "tools/call", "resources/read", "prompts/get"):
            fake.on(method, lambda request: Raw({"jsonrpc": "2.0", "result": current[0]}))
        calls: list[Callable[[Client], Any]] = [
            lambda c: c.list_tools(refresh=True), lambda c: c.call_tool("t", {}),
            lambda c: c.read_resource("res://x", refresh=True), lambda c: c.get_prompt("p"),
            lambda c: c.tools_for_llm()]

        @settings(max_examples=examples(100))
        @given(json_values | st.dictionaries(KEYS, json_values) | deep_values,
               st.sampled_from(calls))
        def check(result: Any, call: Callable[[Client], Any]) -> None:
            current[0] = Deep.unwrap(result)
            try:
                call(client)
            except MCPClientError:
                pass

        with Client(transport=fake, era="2026-07-28", on_warn=lambda text: None,
                    max_input_rounds=1) as client:
            check()


# -- stdio lines -----------------------------------------------------------------------------

def reference_lines(data: bytes, limit: int) -> tuple[list[bytes], list[int]]:
    """Newline framing of a whole stream: (lines kept, sizes of lines dropped)."""
    *complete, tail = data.split(b"\n")
    kept = [line for line in complete if len(line) <= limit]
    dropped = [len(line) + 1 for line in complete if len(line) > limit]
    if tail and len(tail) <= limit:
        kept.append(tail)
    elif tail:
        dropped.append(len(tail))
    return kept, dropped


line_bytes = st.lists(st.binary(max_size=80) | st.sampled_from(
    [b"\n", b"\r\n", b"\n\n", b"\xff\xfe", b"\xe2\x82", b"\xef\xbb\xbf", b"{}", b"x" * 300]),
    max_size=20).map(b"".join)


class LineFuzzTest(LeakCheckingTestCase):
    @given(line_bytes, cut_lists, st.integers(1, 200))
    def test_any_chunking_drops_and_keeps_the_same_lines(
            self, data: bytes, cuts: list[int], limit: int) -> None:
        dropped: list[int] = []
        buffer = LineBuffer(limit, on_drop=dropped.append)
        lines = [line for chunk in chunked(data, cuts) for line in buffer.feed(chunk)]
        lines += buffer.finish()
        self.assertEqual((lines, dropped), reference_lines(data, limit))
        self.assertLessEqual(buffer.pending, limit)

    @given(line_bytes, cut_lists, st.integers(1, 200))
    def test_any_chunking_cuts_long_lines_the_same_way(
            self, data: bytes, cuts: list[int], limit: int) -> None:
        buffer = LineBuffer(limit)
        lines = [line for chunk in chunked(data, cuts) for line in buffer.feed(chunk)]
        lines += buffer.finish()
        *complete, tail = data.split(b"\n")
        expected = [piece for line in complete + ([tail] if tail else [])
                    for piece in ([line[i:i + limit] for i in range(0, len(line), limit)]
                                  or [b""])]
        self.assertEqual(lines, expected)

    def replayer(self, limit: int) -> Callable[[bytes, list[int]], list[str]]:
        """A child that writes what it is told; returns what the reader made of it."""
        received: queue.Queue[dict[str, Any]] = queue.Queue()
        transport = StdioTransport(PYTHON, args=chaos("replay.py"), max_line_bytes=limit)
        self.addCleanup(transport.close)
        transport.start(received.put, lambda exc: None, lambda text: None)
        serials = itertools.count()

        def replay(data: bytes, cuts: list[int]) -> list[str]:
            serial = next(serials)
            transport.send({"write": base64.b64encode(data).decode(), "cuts": cuts,
                            "n": serial})
            got = []
            while (message := received.get(timeout=10)) != {"done": serial}:
                got.append(json.dumps(message))
            return got

        return replay

    def test_the_transport_reads_any_bytes(self) -> None:
        """A real child writes the bytes, in pieces; the reader delivers what framing says."""
        limit = 512
        replay = self.replayer(limit)
        payloads = line_bytes | st.lists(json_values.map(
            lambda v: json.dumps({"v": v}).encode()), max_size=5).map(b"\n".join)

        @settings(max_examples=examples(100))
        @given(payloads, cut_lists)
        @example(b'{"a": "caf\xc3\xa9\xff"}\r\n{"b": NaN}\n\xef\xbb\xbf{"c": 1}', [9, 10])
        def check(data: bytes, cuts: list[int]) -> None:
            self.assertEqual(replay(data, cuts), [json.dumps(m) for m in expected(data + b"\n")])

        def expected(data: bytes) -> Iterator[dict[str, Any]]:
            for line in reference_lines(data, limit)[0]:
                text = line.decode("utf-8", "replace").removeprefix("\ufeff")
                try:
                    value = json.loads(text)
                except (ValueError, RecursionError):
                    continue
                if isinstance(value, dict):
                    yield value

        check()

    def test_json_too_deep_to_parse_does_not_stop_the_reader(self) -> None:
        """Regression: a line of 100,000 ``[`` raised RecursionError and killed the reader."""
        replay = self.replayer(1 << 20)
        self.assertEqual(replay(b"[" * 100_000 + b'\n{"after": "deep"}', [4096]),
                         ['{"after": "deep"}'])
        self.assertEqual(replay(b'{"still": "reading"}', []), ['{"still": "reading"}'])


# -- server-sent events ----------------------------------------------------------------------

_LINE = re.compile(rb"([^\r\n]*)(\r\n|\r|\n)")


def reference_sse(data: bytes, limit: int) -> tuple[list[SSEEvent], bool]:
    """WHATWG "Interpreting an event stream" on the whole stream, and the size bound.

    Returns the events and whether some event (each line end counted as one byte) or the
    unfinished tail held more than ``limit`` bytes.
    """
    events: list[SSEEvent] = []
    data_lines: list[str] = []
    kind, last_id, retry, size, pos, first = "", None, None, 0, 0, True
    for match in _LINE.finditer(data):
        raw, pos = match.group(1), match.end()
        size += len(raw) + 1
        if size > limit:
            return events, True
        line = raw.decode("utf-8", "replace")
        if first:
            line, first = line.removeprefix("\ufeff"), False
        if not line:
            if data_lines:
                events.append(SSEEvent(kind or "message", "\n".join(data_lines), last_id, retry))
            data_lines, kind, size = [], "", 0
            continue
        name, colon, value = line.partition(":")
        value = value[1:] if colon and value.startswith(" ") else value
        if name == "data":
            data_lines.append(value)
        elif name == "event":
            kind = value
        elif name == "id" and "\0" not in value:
            last_id = value
        elif name == "retry" and 0 < len(value) <= 18 and all(c in "0123456789" for c in value):
            retry = int(value)
    return events, size + len(data) - pos > limit


def sse_text(events: list[tuple[str | None, list[str], str | None, int | None]],
             ends: list[str], comments: list[bool], bom: bool) -> bytes:
    out: list[str] = ["\ufeff"] if bom and events else []
    cycle = itertools.cycle(ends or ["\n"])

    def end() -> str:
        chosen = next(cycle)
        if chosen == "\n" and out and out[-1].endswith("\r"):
            chosen = "\r\n"   # a CR then an LF is one line end, not two
        return chosen

    for (kind, data, ident, retry), comment in zip(events, itertools.cycle(comments or [False])):
        if comment:
            out.append(": keep-alive" + end())
        if kind is not None:
            out.append(f"event: {kind}" + end())
        for line in data:
            out.append(f"data: {line}" + end())
        if ident is not None:
            out.append(f"id: {ident}" + end())
        if retry is not None:
            out.append(f"retry: {retry}" + end())
        out.append(end())
    return "".join(out).encode()


no_breaks = st.text(st.characters(blacklist_characters="\r\n\0",
                                  blacklist_categories=["Cs"]), max_size=15)
sse_events = st.lists(st.tuples(st.none() | no_breaks, st.lists(no_breaks, max_size=3),
                                st.none() | no_breaks, st.none() | st.integers(0, 10 ** 6)),
                      max_size=8)


class SSEFuzzTest(LeakCheckingTestCase):
    @given(sse_events, st.lists(st.sampled_from(["\n", "\r", "\r\n"]), max_size=4),
           st.lists(st.booleans(), max_size=3), st.booleans(), cut_lists)
    def test_any_split_of_a_valid_stream_yields_its_events(
            self, events: list[Any], ends: list[str], comments: list[bool], bom: bool,
            cuts: list[int]) -> None:
        data = sse_text(events, ends, comments, bom)
        expected, last_id, retry = [], None, None
        for kind, lines, ident, delay in events:
            last_id = ident if ident is not None else last_id
            retry = delay if delay is not None else retry
            if lines:
                expected.append(SSEEvent(kind or "message", "\n".join(lines), last_id, retry))
        parser = SSEParser()
        got = [event for chunk in chunked(data, cuts) for event in parser.feed(chunk)]
        self.assertEqual(got, expected)
        self.assertFalse(parser.pending)

    @given(st.binary(max_size=400) | line_bytes, cut_lists, st.integers(1, 300))
    @example(b"retry: " + b"9" * 5000 + b"\ndata: x\n\n", [], 100_000)
    @example(b"data: abcdefgh\r\n\n", [15], 16)
    @example(b"data: abcdefgh\r\n\n", [], 16)
    def test_any_bytes_any_split_match_the_standard(self, data: bytes, cuts: list[int],
                                                    limit: int) -> None:
        """Regression: a 5000-digit ``retry`` raised ValueError; a CRLF cut between chunks
        changed where the size bound fell."""
        expected, too_large = reference_sse(data, limit)
        parser = SSEParser(max_event_bytes=limit)
        got: list[SSEEvent] = []
        failed = False
        try:
            for chunk in chunked(data, cuts):
                got.extend(parser.feed(chunk))
        except EventTooLarge:
            failed = True
        self.assertEqual(failed, too_large)
        if failed:
            self.assertEqual(got, expected[:len(got)])
        else:
            self.assertEqual(got, expected)


# -- locations and hosts ---------------------------------------------------------------------

PATH_PIECES = ["work", "WORK", "Work", "a", "b.txt", "..", ".", "...", "%2e%2e", "%2E", "%2f",
               "%00", "%5c", "\0", "\\", "\\..\\", "/", "//", "~", "~1", ":", "c:", " ", "a.",
               "\uff0e\uff0e", "\uff0f", "\u2024\u2024", "\u2215", "\u200b", "\u0301",
               "\ufeff", "\u212a", "stra\u00dfe", "STRASSE", "\ufb01le", "srv", "etc",
               "\u00e9", "e\u0301"]
path_texts = st.lists(st.sampled_from(PATH_PIECES), max_size=8).map("".join) | st.lists(
    st.sampled_from(PATH_PIECES), max_size=6).map("/".join) | st.text(max_size=20)


def _windows(text: str) -> str:
    """Windows drops the dots and spaces that end a name (but ``.`` and ``..`` are kept)."""
    return "/".join(seg if seg in (".", "..") else seg.rstrip(". ")
                    for seg in text.replace("\\", "/").split("/"))


#: Ways a server might read a path that a lexical check does not: decoding percent escapes,
#: normalising Unicode, taking backslashes as separators, stopping at a NUL, dropping
#: Windows' trailing dots and spaces, expanding ``~``.
TRANSFORMS: list[Callable[[str], str]] = [
    unquote, lambda t: unicodedata.normalize("NFKC", t), lambda t: t.replace("\\", "/"),
    lambda t: t.split("\0")[0], _windows,
    lambda t: "/home/someone" + t[1:] if t.startswith("~") else t]


def readings(text: str, rounds: int = 3) -> set[str]:
    seen = {text}
    for _ in range(rounds):
        seen |= {transform(t) for t in seen for transform in TRANSFORMS}
    return seen


def surely_inside(text: str, root: str, directory: str) -> bool:
    """Whether every reading of ``text`` (relative to ``root``) is inside ``directory``,
    on a case-sensitive disk and on a case-insensitive one."""
    outer = [p for p in directory.split("/") if p]
    for reading in readings(text):
        full = posixpath.normpath(posixpath.join(root, reading))
        inner = [p for p in full.split("/") if p]
        if full.startswith("//") or len(inner) < len(outer):
            return False
        for fold in (False, True):
            head = inner[:len(outer)]
            if [p.casefold() if fold else p for p in head] != \
                    [p.casefold() if fold else p for p in outer]:
                return False
    return True


URL_PIECES = ["http", "https", "HTTPS", "ftp", "://", ":/", ":", ":///", "\\\\", "@", "user@",
              "docs.example.org@", "docs", "example", "org", "evil", "com", "EXAMPLE", ".", "..",
              "%2e", "\u3002", "\uff0e", "xn--e1a", "127", "0x7f", "1", ":443", ":99999", "[",
              "]", "::1", "/", "?", "#", "\\", "\t", " ", "\n", "example.org.", "-"]
url_texts = st.lists(st.sampled_from(URL_PIECES), max_size=12).map("".join) | st.builds(
    "{}://{}{}{}".format, st.sampled_from(["http", "https", "HTTP", "wss"]),
    st.sampled_from(["", "a@", "docs.example.org@", "x:y@"]),
    st.lists(st.sampled_from(["docs", "example", "org", "evil", "com", "", "%2e", "\u3002",
                              "EXAMPLE", "xn--e1a", "1"]), min_size=1, max_size=5).map(".".join),
    st.sampled_from(["", "/", ":443/x", ":0", "#@evil.com", "?.example.org", "\\@evil.com",
                     "/.example.org"]))


def hosts_read_by(url: str) -> Iterator[str]:
    """The host each of several URL parsers would connect to (those that read one at all)."""
    for parse in (lambda u: urllib3.util.parse_url(u).host, lambda u: urlsplit(u).hostname):
        try:
            host = parse(url)
        except ValueError:
            continue
        if host:
            yield host.lower().rstrip(".")


class LocationFuzzTest(LeakCheckingTestCase):
    @given(path_texts, st.sampled_from(["/srv/work", "work", "/srv/stra\u00dfe", "/"]))
    @example("work/../../etc/passwd", "work")
    @example("WORK/x", "/srv/work")
    @example("work/%2e%2e/%2e%2e/etc", "work")
    @example("work\\..\\..\\etc", "work")
    @example("work/\uff0e\uff0e/\uff0e\uff0e/etc", "work")
    def test_an_allow_under_fires_only_where_every_reading_agrees(self, path: str,
                                                                  under: str) -> None:
        rule = compile_rule({"tool": "fs_*", "decision": "allow", "under": under}, 0)
        facts = gather("fs_write", {"path": path, "source": [path]}, {"fs": "/srv"}, None)
        if rule.fires(facts):
            directory = under if under.startswith("/") else "/srv/" + under
            self.assertTrue(surely_inside(path, "/srv", directory), (path, under))

    @given(st.dictionaries(st.sampled_from(["path", "paths", "to", "from", "repo_path", "x"]),
                           json_values | path_texts | st.lists(path_texts, max_size=3),
                           max_size=4))
    def test_no_arguments_make_an_allow_fire_on_an_unknown_location(
            self, arguments: dict[str, Any]) -> None:
        rule = compile_rule({"tool": "fs_write", "decision": "allow", "under": "/srv"}, 0)
        facts = gather("fs_write", arguments, {"fs": "/srv"}, None)
        if rule.fires(facts):
            assert facts.locations is not None
            for location in facts.locations:
                self.assertIsNotNone(location.resolved, location)
                self.assertTrue(surely_inside(location.value, "/srv", "/srv"), location)

    @given(path_texts)
    def test_the_policy_forwards_only_what_is_surely_inside(self, path: str) -> None:
        forwarded: list[Any] = []

        class Provider:
            def tools_for_llm(self) -> list[Any]:
                return []

            def execute_tool_calls(self, calls: list[Any]) -> list[dict[str, Any]]:
                forwarded.extend(calls)
                return [{"role": "tool", "tool_call_id": c["id"], "content": "ok",
                         "is_error": False} for c in calls]

        policy = Policy(Provider(), roots={"fs": "/srv"},
                        rules=[{"tool": "fs_write", "decision": "allow", "under": "/srv/work"}])
        [entry] = policy.execute_tool_calls(
            [{"id": "1", "function": {"name": "fs_write", "arguments": {"path": path}}}])
        self.assertEqual(bool(forwarded), not entry["is_error"])
        if forwarded:
            self.assertTrue(surely_inside(path, "/srv", "/srv/work"), path)

    @given(url_texts | st.text(max_size=40))
    @example("https://docs.example.org@evil.com/")
    @example("https://evil.com\\@docs.example.org/")
    @example("https://evil.com\u3002docs.example.org/")
    @example("https://evil.com#@docs.example.org")
    def test_a_host_allow_fires_only_where_every_parser_agrees(self, url: str) -> None:
        for pattern, accepts in (("*.example.org", lambda h: h.endswith(".example.org")),
                                 ("docs.example.org", lambda h: h == "docs.example.org")):
            rule = compile_rule({"tool": "web_fetch", "decision": "allow", "host": pattern}, 0)
            if rule.fires(gather("web_fetch", {"url": url}, {}, None)):
                hosts = list(hosts_read_by(url))
                self.assertTrue(hosts and all(accepts(h) for h in hosts), (url, hosts))


# -- the bridge ------------------------------------------------------------------------------

class Hostile:
    """A tool call object whose every attribute raises."""

    def __getattr__(self, name: str) -> Any:
        raise RuntimeError(f"no {name} for you")


class HostileMapping(dict):  # type: ignore[type-arg]
    def keys(self) -> Any:
        raise RuntimeError("no keys")

    def __iter__(self) -> Any:
        raise RuntimeError("no iteration")


arguments = (json_values | st.text(max_size=30) | json_values.map(json.dumps)
             | st.sampled_from(["[" * 50_000, "{" * 50_000, '{"a": ' * 2000, " ", "null"])
             | st.just(HostileMapping(a=1)) | st.just(Hostile()))
tool_calls = st.one_of(
    json_values, st.just(Hostile()),
    st.fixed_dictionaries({"function": st.fixed_dictionaries(
        {"name": st.sampled_from(["echo", "files_read", "files.read", "nope", ""]) | json_values},
        optional={"arguments": arguments})},
        optional={"id": json_values, "type": st.sampled_from(["function", "other"]) | scalars}))


class BridgeFuzzTest(LeakCheckingTestCase):
    @given(arguments)
    def test_parse_arguments_raises_only_value_error(self, raw: Any) -> None:
        try:
            self.assertIsInstance(parse_arguments(raw), dict)
        except ValueError:
            pass

    def test_arguments_too_deep_or_unreadable_are_value_errors(self) -> None:
        """Regression: ``"[" * 100000`` raised RecursionError, a dict subclass RuntimeError."""
        for raw in ("[" * 100_000, '{"a":' * 100_000, HostileMapping(a=1)):
            with self.subTest(raw=type(raw).__name__), self.assertRaises(ValueError):
                parse_arguments(raw)

    @given(tool_calls)
    def test_read_call_never_raises(self, call: Any) -> None:
        """Regression: a call object whose attributes raise escaped read_call."""
        parts = read_call(call)
        self.assertEqual(parts.name is None, parts.problem is not None)

    def test_every_call_gets_one_entry(self) -> None:
        fake = fake_server()
        fake.on("tools/list", {"tools": [{"name": "echo"}, {"name": "files.read"}]})
        result: list[Any] = [{}]
        fake.on("tools/call", lambda request: Raw({"jsonrpc": "2.0", "result": result[0]}))

        @settings(max_examples=examples(150))
        @given(st.lists(tool_calls, max_size=4), json_values | st.dictionaries(KEYS, json_values))
        def check(calls: list[Any], answer: Any) -> None:
            result[0] = answer
            entries = client.execute_tool_calls(calls)
            self.assertEqual(len(entries), len(calls))
            for call, entry in zip(calls, entries):
                self.assertEqual(entry["role"], "tool")
                self.assertIsInstance(entry["content"], str)
                self.assertIsInstance(entry["is_error"], bool)
                ident = call.get("id") if isinstance(call, dict) else None
                if isinstance(ident, (str, int)) and not isinstance(ident, bool):
                    self.assertEqual(entry["tool_call_id"], ident)

        with Client(transport=fake, on_warn=lambda text: None, max_input_rounds=1) as client:
            check()
