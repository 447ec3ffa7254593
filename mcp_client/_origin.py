"""Where a request to a URL goes, as the library that sends it reads the URL.

Every decision of the form "may this request go there, with these
credentials?" -- a redirect followed, an HTTP+SSE ``endpoint`` event adopted,
a bearer token presented, an authorization server contacted -- compares
*origins*.  :func:`urllib.parse.urlsplit` and the libraries that send
(requests prepares the URL, urllib3 parses it again and connects) do not read
every URL alike: urllib3 ends the authority at a backslash where ``urlsplit``
reads on, so ``http://evil:1\\@server:2/`` is ``server:2`` to ``urlsplit`` and
``evil:1`` to the socket; ``urlsplit`` silently drops tabs and line breaks
that urllib3 refuses; requests IDNA-encodes a host ``urlsplit`` keeps as
given.  Deciding with one parser and sending with another lets a URL pass the
check and go elsewhere.

So :func:`connect_origin` answers with what is actually connected to: the URL
goes through requests' ``PreparedRequest.prepare_url`` and then
``urllib3.util.parse_url`` -- the two steps a request takes -- and the
scheme, host and port come from there.  Before that, a URL whose authority
(everything between ``scheme://`` and the first ``/``, ``?`` or ``#``) holds
a backslash, whitespace or a control character is refused outright, as is
one with userinfo (``user@``) where the caller does not accept it: those are
the places where parsers disagree, and no endpoint needs them.

:func:`host_kind` says what a host is -- loopback, private, link-local, a
cloud metadata service... -- by its spelling alone, the one judgement every
"only on loopback" or "never the metadata service" rule asks for.

Pure functions over strings; requests and urllib3 are imported on first use
(never by ``import mcp_client``).  Nothing here does I/O or resolves a name.
"""

from __future__ import annotations

import functools
import ipaddress
import re
import socket
from urllib.parse import urljoin

__all__ = ["UnsafeURL", "authority_of", "connect_origin", "same_origin", "resolve",
           "host_kind"]

#: ``scheme://`` and the authority after it, up to the first ``/``, ``?`` or ``#``
#: (RFC 3986 §3.2): the widest reading any of the parsers in play gives it.
_AUTHORITY = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*)://([^/?#]*)", re.ASCII)
#: Characters refused in an authority: a backslash, whitespace and controls
#: (what ``urlsplit`` and urllib3 read differently, or one drops silently).
_REFUSED = re.compile(r"[\\\x00-\x20\x7f-\xa0\u1680\u2000-\u200b\u2028\u2029\u202f\u205f"
                      r"\u3000\ufeff]")
#: What ``urljoin`` changes in a reference a server sent (``Location``, ``endpoint``)
#: without a word: it drops tabs and line breaks anywhere and strips controls and
#: spaces at either end (a space inside a path is kept, and requests encodes it).
_DROPPED = re.compile(r"[\t\r\n]|^[\x00-\x20]|[\x00-\x20]$")
_DEFAULT_PORTS = {"http": 80, "https": 443}


class UnsafeURL(ValueError):
    """A URL refused before anything is sent to it.

    Attributes:
        rule: which rule refused it, in a few words (``a backslash in the
            authority``, ``userinfo in the authority``, ...).
    """

    def __init__(self, rule: str) -> None:
        super().__init__(rule)
        self.rule = rule


def authority_of(url: str, *, userinfo: bool = False) -> tuple[str, str]:
    """``(scheme, authority)`` of ``url`` as the widest parser reads them, checked.

    Args:
        url: an absolute URL.
        userinfo: whether a ``user[:password]@`` may precede the host.

    Raises:
        UnsafeURL: not ``scheme://authority``, or the authority holds a
            backslash, whitespace, a control character or (unless
            ``userinfo``) an ``@``.
    """
    if not isinstance(url, str):
        raise UnsafeURL("not a string")
    found = _AUTHORITY.match(url)
    if found is None:
        raise UnsafeURL("not of the form scheme://host")
    scheme, authority = found.group(1).lower(), found.group(2)
    bad = _REFUSED.search(authority)
    if bad is not None:
        what = "a backslash" if bad.group() == "\\" else "whitespace or a control character"
        raise UnsafeURL(f"{what} in the authority")
    if "@" in authority and not userinfo:
        raise UnsafeURL("userinfo in the authority")
    return scheme, authority


@functools.lru_cache(maxsize=256)
def connect_origin(url: str, *, userinfo: bool = False) -> tuple[str, str, int]:
    """``(scheme, host, port)`` that requests and urllib3 connect to for ``url``.

    The scheme is lower case; the host as urllib3 holds it (lower case,
    IDNA-encoded, an IPv6 literal in brackets); the port a number, the
    scheme's default when the URL names none (so ``http://h/`` and
    ``http://h:80/`` are one origin).

    Args:
        url: an absolute ``http://`` or ``https://`` URL.
        userinfo: whether a ``user[:password]@`` may precede the host.

    Raises:
        UnsafeURL: :func:`authority_of` refuses it, it is not ``http`` or
            ``https``, requests or urllib3 cannot parse it, it has no host
            or a port out of range, or preparing it changed its scheme.
    """
    scheme, _ = authority_of(url, userinfo=userinfo)
    if scheme not in _DEFAULT_PORTS:
        raise UnsafeURL(f"the scheme {scheme!r} is not http or https")
    from requests.models import PreparedRequest
    from urllib3.util import parse_url

    request = PreparedRequest()
    try:
        request.prepare_url(url, None)
        parsed = parse_url(str(request.url))
    except ValueError as exc:   # requests' InvalidURL, urllib3's LocationParseError
        raise UnsafeURL(f"not a URL requests can send to ({type(exc).__name__})") from None
    host = (parsed.host or "").lower()
    if not host:
        raise UnsafeURL("no host")
    sent_scheme = (parsed.scheme or "").lower()
    if sent_scheme != scheme:
        raise UnsafeURL("the scheme reads differently once prepared")
    port = parsed.port if parsed.port is not None else _DEFAULT_PORTS[scheme]
    if not 0 < port < 65536:
        raise UnsafeURL("a port out of range")
    return scheme, host, port


def same_origin(url: str, base: str) -> str | None:
    """None when ``url`` goes where ``base`` goes; else the rule that says it does not.

    ``url`` is a target the *server* chose (a redirect's ``Location``, an
    ``endpoint`` event), so it may carry no userinfo -- unless it is the
    very authority of ``base`` (a relative reference keeps it), the URL the
    caller configured, which may.  Never raises.
    """
    try:
        kept = authority_of(url, userinfo=True)[1] == authority_of(base, userinfo=True)[1]
        target = connect_origin(url, userinfo=kept)
    except UnsafeURL as exc:
        return exc.rule
    try:
        mine = connect_origin(base, userinfo=True)
    except UnsafeURL as exc:
        return f"the configured URL is refused: {exc.rule}"
    return None if target == mine else "another origin (scheme, host, port)"


def resolve(base: str, reference: str) -> str:
    """``reference`` (a redirect's ``Location``, an ``endpoint`` event) made absolute.

    Raises:
        UnsafeURL: ``reference`` holds a tab or a line break, or starts or
            ends with whitespace or a control character, which
            :func:`urllib.parse.urljoin` would drop or strip unseen.
    """
    if _DROPPED.search(reference):
        raise UnsafeURL("whitespace or a control character in the URL")
    return urljoin(base, reference)


# -- what a host is ------------------------------------------------------------------

#: Cloud metadata services by name (GCP, AWS, Azure/OpenStack, Alibaba, Oracle, DigitalOcean).
_METADATA_NAMES = frozenset({"metadata.google.internal", "metadata.goog", "metadata",
                             "instance-data", "instance-data.ec2.internal",
                             "metadata.azure.internal", "metadata.oraclecloud.com",
                             "metadata.platformequinix.com", "metadata.tencentyun.com"})
#: Cloud metadata services by address (AWS IPv4 and IPv6, Alibaba; 169.254/16 is link-local).
_METADATA_ADDRESSES = frozenset(ipaddress.ip_address(a) for a in (
    "169.254.169.254", "169.254.170.2", "fd00:ec2::254", "100.100.100.200", "192.0.0.192"))
#: Suffixes of names that only a private network answers for (RFC 6762, RFC 8375, ICANN 2024).
_PRIVATE_SUFFIXES = (".internal", ".local", ".home.arpa")
_NUMERIC = re.compile(r"[0-9a-fx.]+", re.ASCII)
_NAT64 = ipaddress.ip_network("64:ff9b::/96")


def _address_kind(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str:
    if address in _METADATA_ADDRESSES:
        return "metadata"
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:   # the socket reaches the IPv4 address itself
            return _address_kind(address.ipv4_mapped)
        relayed = address.sixtofour or (
            ipaddress.IPv4Address(int(address) & 0xFFFFFFFF) if address in _NAT64 else None)
        if relayed is not None:   # a gateway reaches it: never loopback, at best private
            kind = _address_kind(relayed)
            if kind != "public":
                return "private" if kind == "loopback" else kind
    if address.is_loopback:
        return "loopback"
    if address.is_link_local:
        return "link-local"
    if address.is_unspecified or address.is_multicast or address.is_reserved:
        return "unusable"
    # fec0::/10, the site-local range unique local addresses replaced (RFC 3879):
    # deprecated, yet still routed inside some sites, and is_global calls it global.
    if not address.is_global or getattr(address, "is_site_local", False):
        return "private"
    return "public"


def host_kind(host: str) -> str:
    """What ``host`` (as :func:`~mcp_client._origin.connect_origin` gives it) is.

    One of ``metadata``, ``link-local``, ``unusable``, ``loopback``,
    ``private`` and ``public``; a name is judged by its spelling alone.
    """
    bare = host[1:-1].split("%", 1)[0] if host.startswith("[") else host
    bare = bare.lower().rstrip(".")
    try:
        return _address_kind(ipaddress.ip_address(bare))
    except ValueError:
        pass
    if _NUMERIC.fullmatch(bare):
        try:   # what the resolver makes of 2852039166, 0xa9fea9fe, 127.1 ...
            return _address_kind(ipaddress.IPv4Address(socket.inet_aton(bare)))
        except OSError:
            pass
    if bare in _METADATA_NAMES:
        return "metadata"
    if bare == "localhost" or bare.endswith(".localhost"):
        return "loopback"
    if bare.endswith(_PRIVATE_SUFFIXES):
        return "private"
    return "public"
