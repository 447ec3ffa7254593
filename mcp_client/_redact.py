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
``Bearer``/``Basic`` credential and the string value of a member whose name
says it is a secret (``"password"``, ``"api_key"``, ``"apiToken"``,
``"privateKey"``...), also when the text ends inside that value.
Strings in, strings out: no I/O, no logging.
"""

from __future__ import annotations

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
#: A JSON member name that says its string value is a secret: any ``*token*``
#: (``apiToken``, ``sessionToken``) but MCP's own ``progressToken``, which is no
#: credential and which a trace reader follows.
_SECRET_NAME = (
    r'"(?!progressToken")[A-Za-z0-9_.-]*(?:passw|secret|api[_-]?key|private[_-]?key|'
    r'access[_-]?key|token|authorization|cookie|credential|signature)[A-Za-z0-9_.-]*"')
#: A secret member's string value.
_SECRET_MEMBER = re.compile(rf'({_SECRET_NAME}\s*:\s*)"(?:[^"\\]|\\.)*"', re.IGNORECASE)
#: A secret member's string value that the text ends inside of (a window cut
#: before its closing quote): hidden to the end.
_SECRET_TAIL = re.compile(rf'({_SECRET_NAME}\s*:\s*)"(?:[^"\\]|\\.)*\\?\Z', re.IGNORECASE)


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
    text = _SECRET_MEMBER.sub(lambda m: f'{m.group(1)}"{MASK}"', text)
    # The text may be a window of a larger message, cut inside a secret's value.
    return _SECRET_TAIL.sub(lambda m: f'{m.group(1)}"{MASK}', text)


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
