"""Shell text split into simple commands: words, operators and redirections.

The lexing half of :mod:`mcp_client.policy._shell`: :func:`lex` splits text into
words and operator strings the way a POSIX shell does (quotes and backslashes
removed, see that module's docstring), and :func:`split` groups them into simple
commands ``(argv, piped, writes)``.  Both raise :class:`Unreadable` for syntax
they do not follow (expansions, here-documents, brace expansion ...), so the
caller answers unknown.  Linear in the text: every regular expression here matches
without backtracking.  Pure: strings in, lists out.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import Sequence

__all__ = ["MAX_WORDS", "Unreadable", "Word", "Simple", "has_bad_char", "lex", "split"]

#: Most words, operators and quoted parts of words read from one text (or words of one
#: argv); more is unknown.  A command an agent writes has tens; this bound, with
#: :data:`~mcp_client.policy._shell.MAX_COMMAND_CHARS` and
#: :data:`~mcp_client.policy._shell.MAX_DEPTH`, keeps a decision to milliseconds.
MAX_WORDS = 4096

_OPERATORS = (";;&", "&>>", "<<<", "<<-", ";;", ";&", "&&", "||", "|&", "&>", ">>", ">&", "<&",
              ">|", "<>", "<<", "<(", ">(", ";", "&", "|", "(", ")", "<", ">", "\n")
_OPERATOR_CHARS = frozenset(";&|()<>\n")
_OPERATOR = re.compile("|".join(map(re.escape, _OPERATORS)))   # (longest first)
_SEPARATORS = frozenset({";", "&", "&&", "||", "\n", "(", ")", ";;", ";&", ";;&"})
_PIPES = frozenset({"|", "|&"})
_REDIRECTS = frozenset({"<", ">", ">>", ">&", "<&", ">|", "<>", "&>", "&>>"})
_READS = frozenset({"<", "<&"})
#: Targets that are no file at all: writing to them changes nothing.
_NOWHERE = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/fd/1", "/dev/fd/2"})
_FD = re.compile(r"^([0-9]+-?|-)$")
#: One part of a word: a run of unquoted characters (backslash escapes among them), a
#: single-quoted string, or a double-quoted one without an expansion.  Every alternative
#: and every repeated item starts with a character no other one can, so a match never
#: backtracks: reading is linear in the text.
_WORD_PART = re.compile(r"(?:[^ \t;&|()<>\n$`\\'\"]|\\[\s\S])+|'[^']*'"
                        r'|"(?:[^"$`\\]|\\[\s\S])*"')
#: A backslash and what it escapes; text up to a backslash, and the character it escapes.
_ESCAPED = re.compile(r"\\[\s\S]")
_ESCAPE_PIECES = re.compile(r"([^\\]*)(?:\\([\s\S]))?")


class Unreadable(Exception):
    """The text uses shell syntax this reader does not follow."""


@dataclass
class Word:
    parts: list[str] = field(default_factory=list)
    bare_parts: list[str] = field(default_factory=list)   # unquoted characters, for braces
    touches_operator: bool = False
    text: str = ""
    bare: str = ""


def _bad_char(char: str) -> bool:
    category = unicodedata.category(char)
    return (category == "Cc" and char not in "\t\n") or category in ("Cf", "Cs")


def has_bad_char(text: str) -> bool:
    """Control, format or surrogate characters (``\\t`` and ``\\n`` are fine)."""
    if text.replace("\t", " ").replace("\n", " ").isprintable():
        return False                            # (every bad character is unprintable)
    return any(map(_bad_char, set(text)))


def lex(text: str) -> list[Word | str]:
    """Split shell text into words and operator strings; raise when unreadable, and past
    :data:`MAX_WORDS` words, operators and quoted parts.  Linear: each run of characters
    is taken by one match."""
    tokens: list[Word | str] = []
    word: Word | None = None
    i, size, pieces = 0, len(text), 0
    while i < size:
        char = text[i]
        if char in " \t":
            word, i = None, i + 1
            continue
        pieces += 1
        if pieces > MAX_WORDS:
            raise Unreadable
        if char in _OPERATOR_CHARS:
            if text.startswith("((", i):
                raise Unreadable               # arithmetic: ``(( a[$(cmd)] ))`` runs cmd
            op = _OPERATOR.match(text, i).group()  # type: ignore[union-attr]
            if word is not None:
                word.touches_operator = True
            tokens.append(op)
            word, i = None, i + len(op)
            continue
        if word is None:
            word = Word()
            tokens.append(word)
        i = _lex_word_part(text, i, word)
    for token in tokens:
        if isinstance(token, Word):
            token.text, token.bare = "".join(token.parts), "".join(token.bare_parts)
    return tokens


def _lex_word_part(text: str, i: int, word: Word) -> int:
    """Read one part of a word at ``i``: a run of unquoted characters (backslash escapes
    among them), a single-quoted string or a double-quoted one, each in one match."""
    part = _WORD_PART.match(text, i)
    if part is None:                # an expansion, an unterminated quote, a last backslash
        raise Unreadable
    chunk = part.group()
    if chunk[0] == "'":
        word.parts.append(chunk[1:-1])
    elif chunk[0] == '"':
        inside = chunk[1:-1]
        word.parts.append(_unescape_double(inside) if "\\" in inside else inside)
    elif "\\" in chunk:
        word.parts.append(_unescape(chunk))
        word.bare_parts.append(_ESCAPED.sub("\0", chunk))
    else:
        word.parts.append(chunk)
        word.bare_parts.append(chunk)
    return part.end()


def _unescape(chunk: str) -> str:
    """An unquoted run without its backslashes; a backslash-newline goes whole (every
    newline in such a run is escaped, so dropping the pairs first is exact)."""
    return "".join(plain + escaped for plain, escaped
                   in _ESCAPE_PIECES.findall(chunk.replace("\\\n", "")))


def _unescape_double(inside: str) -> str:
    """Double-quoted text without the backslashes that escape ``$ ` " \\`` or a newline."""
    return "".join(plain + (escaped if escaped in '$`"\\' else "" if escaped == "\n"
                            else "\\" + escaped)
                   for plain, escaped in _ESCAPE_PIECES.findall(inside))


def _has_braces(bare: str) -> bool:
    """Brace expansion in a word's unquoted characters: a ``{`` closed by a ``}`` with a
    ``,`` or ``..`` between them and no other brace.  Linear (a split, then one partition
    per ``{``), where the regular expression it replaces backtracked quadratically."""
    if "{" not in bare:
        return False
    for segment in bare.split("{")[1:]:
        inside, close, _ = segment.partition("}")
        if close and ("," in inside or ".." in inside):
            return True
    return False


Simple = tuple[list[str], bool, tuple[str, ...]]


def split(tokens: Sequence[Word | str]) -> list[Simple]:
    """Group tokens into simple commands ``(argv, piped, writes)``."""
    simple: list[Simple] = []
    argv: list[str] = []
    writes: list[str] = []
    piped = False
    for i, token in enumerate(tokens):
        if isinstance(token, Word):
            if i and isinstance(tokens[i - 1], str) and tokens[i - 1] in _REDIRECTS:
                _redirect(str(tokens[i - 1]), token, writes)
                continue                        # a redirection's target
            if _has_braces(token.bare):
                raise Unreadable
            if not (token.touches_operator and token.text.isdigit() and token.bare == token.text
                    and i + 1 < len(tokens) and _is_op(tokens[i + 1], _REDIRECTS)):
                argv.append(token.text)         # (not the io number of 2>&1)
        elif token in _REDIRECTS:
            if i + 1 >= len(tokens) or not isinstance(tokens[i + 1], Word):
                raise Unreadable
        elif token in _SEPARATORS or token in _PIPES:
            if argv or writes:
                simple.append((argv, piped, tuple(writes)))
            elif token in _PIPES or piped:
                raise Unreadable
            argv, writes, piped = [], [], token in _PIPES
        else:
            raise Unreadable       # here-documents, here-strings, process substitution
    if argv or writes:
        simple.append((argv, piped, tuple(writes)))
    elif piped:
        raise Unreadable
    return simple


def _redirect(operator: str, target: Word, writes: list[str]) -> None:
    """Record the file an output redirection writes (none for a descriptor or /dev/null)."""
    if _has_braces(target.bare) or not target.text:
        raise Unreadable
    if operator in _READS or (operator == ">&" and _FD.match(target.text)):
        return
    if operator == ">&" and target.text.isdigit():
        return
    if target.text not in _NOWHERE:
        writes.append(target.text)


def _is_op(token: Word | str, group: frozenset[str]) -> bool:
    return isinstance(token, str) and token in group
