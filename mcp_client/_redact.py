"""URLs as they may be shown: with their credentials and query values hidden.

A URL often carries a secret: ``https://user:password@host/`` or
``https://host/mcp?token=...`` are how many hosted MCP servers are reached.
Whatever this package renders -- an exception's text, a ``repr()``, a log
record, the failure a :class:`~mcp_client.registry.Registry` lists, the tool
message a model reads -- shows a URL through :func:`redact_url`, and text
written by foreign code about one (a ``requests`` error, a ``urllib3`` log
line) through :func:`redact_text`.  The URL itself is kept intact wherever it
is *used*.

What is hidden: the userinfo (``user:password@`` becomes ``***@``), every
query value (``?token=abc&x=1`` becomes ``?token=***&x=***``; a parameter
without ``=`` is hidden whole, since it may be the token itself; an empty value
stays empty) and the fragment.  Scheme, host, port and path are kept: they are
what a reader needs to tell which server failed.

The wire trace (logger ``mcp_client.wire``) shows more than URLs, so two more
rules serve it: :func:`redact_header` hides the value of a header that carries
credentials (``Authorization: Bearer ***``, ``Cookie: ***``), and
:func:`redact_payload` hides, in a message's text, its URLs' secrets, a
``Bearer``/``Basic`` credential and the value of a member whose name says it is
a secret (``"password"``, ``"api_key"``, ``"apiToken"``, ``"privateKey"``,
``"credentials"``...) whatever that value is -- a string, an object, an array, a
number, a boolean: it becomes ``"***"``.  Names are judged as JSON reads them
(``"pass\\u0077ord"`` is a password) in any naming style; MCP's own
``progressToken`` and ``maxTokens`` are no credentials and are shown.  The text
is scanned, not parsed, so a window cut from a larger message works too: a
secret value the text ends inside is hidden to the end.
Strings in, strings out: no I/O, no logging.
"""

from __future__ import annotations

import json
import re
from urllib.parse import urlsplit

__all__ = ["redact_url", "redact_text", "redact_header", "redact_payload", "MASK"]

#: What a hidden part is replaced with.
MASK = "***"
#: A URL inside free text: a scheme, ``://`` and everything up to whitespace or a quote.
_URL_IN_TEXT = re.compile(r"\b[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"<>]+")
#: Punctuation that ends a sentence rather than a URL ("cannot reach http://h/mcp: ...").
_TRAILING = ".,:;!?)]}"
#: Headers whose whole value is a credential (RFC 9110 §11.6, RFC 6265).
_SECRET_HEADERS = {"authorization", "proxy-authorization", "cookie", "set-cookie"}
#: Words that make any other header (``X-API-Key``, ``X-Auth-Token``,
#: ``Ocp-Apim-Subscription-Key``, ``X_API_KEY``) a credential too.  Any "key" is
#: hidden: a header that merely names a key costs a trace reader little.
_SECRET_WORDS = ("token", "secret", "passw", "key", "credential", "signature")
#: A credential after its scheme, in free text.
_CREDENTIAL = re.compile(r"\b(Bearer|Basic|Token)(\s+)[A-Za-z0-9._~+/=-]+", re.IGNORECASE)
#: Words that make a JSON member name a secret's (searched in the decoded name,
#: case aside): any ``*token*`` (``apiToken``, ``sessionToken``), ``*passw*``,
#: ``*secret*``, ``api_key``/``apiKey``/``api-key``...
_SECRET_NAME = re.compile(
    r"passw|passphrase|pwd|secret|api[_-]?key|private[_-]?key|access[_-]?key|token|"
    r"authorization|cookie|credential|signature", re.IGNORECASE)
#: MCP's own members that match a word above but hold no credential and that a
#: trace reader follows (2025-11-25 / 2026-07-28: progress, sampling).
_NOT_SECRET = frozenset({"progressToken", "maxTokens"})
#: A JSON string, from its opening quote (linear: the two branches never overlap).
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
#: What a scalar value (number, ``true``...) runs until.
_SCALAR_END = re.compile(r"[,}\]\s]")
#: The next bracket or string in a nested value.
_NESTED = re.compile(r'[\[\]{}"]')


def redact_url(url: str) -> str:
    """``url`` with its userinfo, query values and fragment hidden.

    Also works on a reference without scheme and host (``/mcp?token=abc``), as
    HTTP libraries log them.  Never raises: text that is not a URL at all is
    returned with everything after a ``@``-ended prefix, a ``?`` or a ``#``
    hidden.
    """
    try:
        parts = urlsplit(url)
    except ValueError:   # e.g. an unbalanced "[" in the host: hide what could be secret
        return _rough(url)
    out = f"{parts.scheme}:" if parts.scheme else ""
    if parts.netloc or url[len(out):].startswith("//"):
        netloc = parts.netloc
        if "@" in netloc:
            netloc = f"{MASK}@{netloc.rpartition('@')[2]}"
        out += f"//{netloc}"
    out += parts.path
    if parts.query:
        out += "?" + _redact_query(parts.query)
    if parts.fragment:
        out += f"#{MASK}"
    return out


def redact_text(text: str, *urls: str) -> str:
    """``text`` with every URL in it shown by :func:`redact_url`.

    Args:
        text: foreign text, such as an exception message from ``requests``.
        *urls: URLs the text may quote in part -- ``urllib3`` writes only the
            path and query (``with url: /mcp?token=abc``) -- whose query
            string and userinfo are hidden wherever they appear.
    """
    text = _URL_IN_TEXT.sub(_redact_match, text)
    for url in urls:
        try:
            parts = urlsplit(url)
        except ValueError:
            continue
        if parts.query:
            text = text.replace(f"?{parts.query}", f"?{_redact_query(parts.query)}")
        userinfo = parts.netloc.rpartition("@")[0]
        if userinfo:
            text = text.replace(f"{userinfo}@", f"{MASK}@")
    return text


def redact_header(name: str, value: str) -> str:
    """The value of header ``name`` as it may be shown.

    ``Authorization`` and ``Proxy-Authorization`` keep their scheme
    (``Bearer ***``); cookies and any header whose name speaks of a token, a
    secret, a password, a key, a credential or a signature are hidden whole; a ``Location``
    or ``Link`` is shown through :func:`redact_url`/:func:`redact_text`; any
    other value is kept.
    """
    lowered = name.lower()
    if lowered in ("authorization", "proxy-authorization"):
        scheme, space, _ = value.strip().partition(" ")
        return f"{scheme} {MASK}" if space else MASK
    if lowered in _SECRET_HEADERS or any(word in lowered for word in _SECRET_WORDS):
        return MASK
    if lowered in ("location", "content-location"):
        return redact_url(value)
    return redact_text(value) if "://" in value else value


def redact_payload(text: str) -> str:
    """A message's text as the wire trace shows it (see the module docstring)."""
    if "://" in text:
        text = redact_text(text)
    text = _CREDENTIAL.sub(lambda m: f"{m.group(1)}{m.group(2)}{MASK}", text)
    return _mask_members(text)


def _is_secret_name(name: str) -> bool:
    """Whether a JSON member called ``name`` (as decoded) holds a secret."""
    return name not in _NOT_SECRET and _SECRET_NAME.search(name) is not None


def _mask_members(text: str) -> str:
    """``text`` with the value of each secret-named member replaced by ``"***"``.

    One pass over the text's strings: a string followed by ``:`` is a member
    name.  The text may be a window of a larger message: a value it ends inside
    is hidden to the end (a string as ``"***``, anything else as ``***``).
    """
    out: list[str] = []
    done = at = 0
    while (quote := text.find('"', at)) >= 0:
        string = _STRING.match(text, quote)
        if string is None:   # the text ends inside a string
            break
        at = string.end()
        colon = _skip_space(text, at)
        if colon >= len(text) or text[colon] != ":" or not _is_secret_name(_decoded(string[0])):
            continue
        start = _skip_space(text, colon + 1)
        if start >= len(text):
            break
        end = _value_end(text, start)
        whole = end is not None
        out.append(text[done:start])
        out.append(f'"{MASK}"' if whole else f'"{MASK}' if text[start] == '"' else MASK)
        done = at = end if end is not None else len(text)
    out.append(text[done:])
    return "".join(out)


def _skip_space(text: str, at: int) -> int:
    while at < len(text) and text[at] in " \t\r\n":
        at += 1
    return at


def _decoded(literal: str) -> str:
    """A JSON string literal's text (its raw inside when its escapes are not JSON's)."""
    try:
        return str(json.loads(literal))
    except ValueError:
        return literal[1:-1]


def _value_end(text: str, start: int) -> int | None:
    """Where the JSON value at ``start`` ends; None when the text ends inside it."""
    if text[start] == '"':
        string = _STRING.match(text, start)
        return None if string is None else string.end()
    if text[start] not in "[{":
        scalar = _SCALAR_END.search(text, start)
        return len(text) if scalar is None else scalar.start()
    depth = 0
    at = start
    while (mark := _NESTED.search(text, at)) is not None:
        char = mark[0]
        if char == '"':
            string = _STRING.match(text, mark.start())
            if string is None:
                return None
            at = string.end()
            continue
        depth += 1 if char in "[{" else -1
        at = mark.end()
        if depth == 0:
            return at
    return None


def _redact_match(match: re.Match[str]) -> str:
    found = match.group(0)
    kept = len(found.rstrip(_TRAILING))
    return redact_url(found[:kept]) + found[kept:]


def _redact_query(query: str) -> str:
    items = []
    for item in query.split("&"):
        name, equals, value = item.partition("=")
        if not equals:
            items.append(MASK if item else "")
        else:
            items.append(f"{name}={MASK}" if value else f"{name}=")
    return "&".join(items)


def _rough(text: str) -> str:
    scheme, sep, rest = text.partition("://")
    if sep and "@" in rest.split("/", 1)[0]:
        rest = f"{MASK}@{rest.split('@', 1)[1]}"
    head = scheme + sep + rest
    for mark in "?#":
        if mark in head:
            head = head.split(mark, 1)[0] + mark + MASK
    return head
