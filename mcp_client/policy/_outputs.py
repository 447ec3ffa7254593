"""What "read-only looking" programs write: output options and output operands, read closed-world.

``sort -o F``, ``uniq IN OUT``, ``xxd -r IN OUT``, ``tar -x -C DIR``, ``curl -O``,
``gzip F``... write a file or a directory that no redirection names.  For each program
listed in :data:`MODELED`, :func:`outputs` reads the argv the way the program's own
option parser does (GNU ``getopt_long``: clusters, glued values, ``--opt=value``,
unique prefixes of long options, options after operands) and answers with what it
writes:

* a file (``sort -o F`` is ``F``);
* a directory it writes into, spelt with a trailing ``/`` (``tar -x -C D`` is ``D/``;
  ``tar -x``, ``curl -O`` and ``wget URL`` write into the working directory, ``./``);
* a prefix with a ``*`` (``split F P`` writes ``Paa``, ``Pab``...: ``P*``; ``gzip F``
  replaces ``F`` with ``F.gz``: ``F`` and ``F*``), which :mod:`mcp_client.paths`
  measures as a glob;
* :data:`UNNAMED` when the argv cannot be read to the end: an option the table does not
  know (the closed world: it may be one that writes), an ambiguous abbreviation that
  could be a writing one, or an option that makes the output depend on something the
  reader cannot see (``curl -K FILE``, ``wget -e CMD``, ``tar -P``, ``split --filter``).

An empty list is a definite "writes nothing".  The callers turn every answer into a
location of the call (:func:`mcp_client.policy._places.with_writes`), so it meets a
rule's ``under``, the ``inside-roots`` check, the write-outside-roots floor and other
agents' leases; :data:`UNNAMED` is a location that cannot be resolved.

Option tables come from the programs' manuals (GNU coreutils 9.x, GNU tar 1.35,
GNU patch 2.7, curl 8.x, GNU Wget 1.21, Info-ZIP zip 3.0 / unzip 6.0, gzip 1.12,
bzip2 1.0, xz 5.4, zstd 1.5, lz4 1.9, p7zip 16, tree 2.1, xxd 2024).  Pure: nothing
here runs or reads anything.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

__all__ = ["UNNAMED", "MODELED", "modeled", "outputs"]

#: A write this reader cannot name (resolved to an unknown location).
UNNAMED = "<a file this reader cannot name>"


@dataclass(frozen=True)
class _Spec:
    """One program's options: ``short`` in getopt's spelling (a letter followed by ``:``
    takes a value), ``long`` names (ending in ``=`` when they take a value; any long
    option may carry an ``=value``).  ``glued``: a short option's value may follow it in
    the same word (``-o/x``); ``digits``: ``-NUM`` is an obsolete option; ``lenient``:
    an option not listed is harmless (every option of the program was reviewed and only
    the listed ones write)."""

    short: str
    long: tuple[str, ...] = ()
    glued: bool = True
    digits: bool = False
    lenient: bool = False
    writing: frozenset[str] = field(default_factory=frozenset)


@dataclass
class _Parsed:
    options: list[tuple[str, str]]
    operands: list[str]
    unknown: bool

    def has(self, *names: str) -> bool:
        return any(name in names for name, _ in self.options)

    def values(self, *names: str) -> list[str]:
        return [value for name, value in self.options if name in names]


def _long(spec: _Spec, word: str, argv: Sequence[str], i: int) -> tuple[str | None, str, int]:
    """``(--name, value, next index)`` of a long option; ``None`` when unknown or ambiguous
    (a prefix of several names)."""
    head, eq, value = word[2:].partition("=")
    names = sorted({name for name in spec.long if name.rstrip("=") == head})
    if not names and head.startswith("no-") and head[3:] in spec.long:
        names = [head]                  # --no-FLAG of a boolean (curl, wget, zstd)
    if not names and head:
        names = sorted({name for name in spec.long if name.startswith(head)})
    if len(names) != 1:
        return None, "", i
    name = names[0]
    if name.endswith("=") and not eq:
        value, i = (argv[i], i + 1) if i < len(argv) else ("", i)
    return "--" + name.rstrip("="), value, i


def _parse(spec: _Spec, argv: Sequence[str]) -> _Parsed:
    """Read ``argv`` as getopt_long would (options anywhere before ``--``)."""
    found = _Parsed([], [], False)
    i, ended = 1, False
    while i < len(argv):
        word = argv[i]
        i += 1
        if ended or word == "-" or not word.startswith("-"):
            found.operands.append(word)
        elif word == "--":
            ended = True
        elif word.startswith("--"):
            name, value, i = _long(spec, word, argv, i)
            if name is None:
                head = word[2:].split("=", 1)[0]
                candidates = [n for n in spec.long if n.startswith(head)] if head else []
                found.unknown = found.unknown or (not candidates and not spec.lenient) or any(
                    "--" + n.rstrip("=") in spec.writing for n in candidates)
            else:
                found.options.append((name, value))
        else:
            i = _cluster(spec, word, argv, i, found)
    return found


def _cluster(spec: _Spec, word: str, argv: Sequence[str], i: int, found: _Parsed) -> int:
    """Read one cluster of short options (``-uo F``, ``-uoF``); returns the next index."""
    j = 1
    while j < len(word):
        letter = word[j]
        at = spec.short.find(letter) if letter != ":" else -1
        if at < 0:
            if not (spec.digits and letter.isdigit()) and not spec.lenient:
                found.unknown = True
            j += 1
            continue
        if spec.short[at + 1:at + 2] != ":":
            found.options.append(("-" + letter, ""))
            j += 1
            continue
        value = word[j + 1:] if spec.glued else ""
        if not value:
            value, i = (argv[i], i + 1) if i < len(argv) else ("", i)
        found.options.append(("-" + letter, value))
        if spec.glued:
            break
        j += 1
    return i


def _files(*values: str) -> list[str]:
    """Named files, without ``-`` (standard output) and empty values (a missing one is
    the program's error)."""
    return [value for value in values if value and value != "-"]


def _dir(value: str) -> str:
    return value if value.endswith("/") else value + "/"


def _outcome(parsed: _Parsed, writes: list[str]) -> list[str]:
    return writes + [UNNAMED] if parsed.unknown else writes


# -- the coreutils and friends -------------------------------------------------------------------

_SORT = _Spec("bdfgiMhnRrVk:t:cCmo:sS:T:uz", (
    "ignore-leading-blanks", "dictionary-order", "ignore-case", "general-numeric-sort",
    "ignore-nonprinting", "month-sort", "human-numeric-sort", "numeric-sort", "random-sort",
    "reverse", "version-sort", "sort=", "random-source=", "check", "merge", "stable",
    "unique", "zero-terminated", "debug", "help", "version", "key=", "field-separator=",
    "buffer-size=", "files0-from=", "parallel=", "batch-size=", "output=",
    "temporary-directory=", "compress-program="), digits=True,
    writing=frozenset({"--output", "--temporary-directory", "--compress-program"}))


def _sort(argv: Sequence[str]) -> list[str]:
    parsed = _parse(_SORT, argv)
    writes = _files(*parsed.values("-o", "--output"))
    writes += [_dir(value) for value in _files(*parsed.values("-T", "--temporary-directory"))]
    if parsed.has("--compress-program"):
        writes.append(UNNAMED)          # (it runs a program of the caller's choosing)
    return _outcome(parsed, writes)


_UNIQ = _Spec("cdDf:is:uw:z", (
    "count", "repeated", "all-repeated", "group", "ignore-case", "unique", "zero-terminated",
    "skip-fields=", "skip-chars=", "check-chars=", "help", "version"), digits=True)


def _second_operand(spec: _Spec) -> Callable[[Sequence[str]], list[str]]:
    """``PROGRAM [IN [OUT]]``: the second operand is written (``uniq``)."""
    def one(argv: Sequence[str]) -> list[str]:
        parsed = _parse(spec, argv)
        return _outcome(parsed, _files(*parsed.operands[1:2]))
    return one


_SHUF = _Spec("ei:n:o:rz", ("echo", "input-range=", "head-count=", "output=", "random-source=",
                            "repeat", "zero-terminated", "help", "version"),
              writing=frozenset({"--output"}))
_ICONV = _Spec("cf:lo:st:V", ("from-code=", "to-code=", "list", "output=", "silent", "verbose",
                              "help", "usage", "version"), writing=frozenset({"--output"}))
_SDIFF = _Spec("abBdEHiI:lo:stw:WZ", (
    "output=", "ignore-case", "ignore-tab-expansion", "ignore-trailing-space",
    "ignore-space-change", "ignore-all-space", "ignore-blank-lines", "ignore-matching-lines=",
    "strip-trailing-cr", "text", "minimal", "left-column", "suppress-common-lines", "width=",
    "tabsize=", "expand-tabs", "speed-large-files", "help", "version", "diff-program="),
    writing=frozenset({"--output", "--diff-program"}))


def _output_option(spec: _Spec, *runs: str) -> Callable[[Sequence[str]], list[str]]:
    """``-o F``/``--output=F`` is written (``shuf``, ``iconv``, ``sdiff``); ``runs``:
    options that run a program of the caller's choosing."""
    def one(argv: Sequence[str]) -> list[str]:
        parsed = _parse(spec, argv)
        writes = _files(*parsed.values("-o", "--output"))
        return _outcome(parsed, writes + ([UNNAMED] if parsed.has(*runs) else []))
    return one


_XXD_VALUED = {"c": ("-c", "-cols"), "g": ("-g", "-groupsize"), "l": ("-l", "-len"),
               "o": ("-o", "-offset"), "s": ("-s", "-seek"), "n": ("-n", "-name"),
               "R": ("-R",)}
_XXD_FLAGS = "abCdeEhiprtuv"


def _xxd(argv: Sequence[str]) -> list[str]:
    """xxd reads its options itself: ``-c 16``, ``-c16``, ``-cols 16``; ``-r``, ``-rp``,
    ``-ps``, ``-revert``... (a word is one option, named by its first letter); the second
    operand is written."""
    operands: list[str] = []
    unknown = False
    i = 1
    while i < len(argv):
        word = argv[i]
        i += 1
        if operands or word == "-" or not word.startswith("-") or len(word) < 2:
            operands.append(word)
        elif word == "--":
            operands.extend(argv[i:])
            break
        elif word[1] in _XXD_VALUED:
            if word in _XXD_VALUED[word[1]]:
                i += 1                  # the value is the next word (it may be -10)
        elif word[1] not in _XXD_FLAGS:
            unknown = True
    writes = _files(*operands[1:2])
    return writes + [UNNAMED] if unknown else writes


_TREE = _Spec("adlfxpsugDFqNQvtcUrhCnASJXiRL:P:I:o:H:T:", (
    "help", "version", "inodes", "device", "noreport", "nolinks", "dirsfirst", "filesfirst",
    "charset=", "filelimit=", "si", "du", "prune", "timefmt=", "ignore-case", "matchdirs",
    "metafirst", "gitignore", "gitfile=", "info", "infofile=", "fromfile", "fromtabfile",
    "sort=", "hyperlink", "scheme=", "authority=", "opt-toggle", "condense", "octal"),
    glued=False)


def _tree(argv: Sequence[str]) -> list[str]:
    """``-o F`` is written; ``-R`` writes ``00Tree.html`` into every directory below each
    operand.  tree's own parser takes a value from the next word, never from the rest of
    a cluster."""
    parsed = _parse(_TREE, argv)
    writes = _files(*parsed.values("-o"))
    if parsed.has("-R"):
        writes += [_dir(place) for place in parsed.operands or ["."]]
    return _outcome(parsed, writes)


_SPLIT = _Spec("a:b:C:del:n:t:ux", (
    "suffix-length=", "additional-suffix=", "bytes=", "line-bytes=", "lines=", "number=",
    "numeric-suffixes", "hex-suffixes", "elide-empty-files", "unbuffered", "separator=",
    "verbose", "filter=", "help", "version"), digits=True, writing=frozenset({"--filter"}))
_CSPLIT = _Spec("b:f:kn:szq", (
    "suffix-format=", "prefix=", "keep-files", "suppress-matched", "digits=", "quiet", "silent",
    "elide-empty-files", "help", "version"), writing=frozenset({"--prefix"}))


def _split(argv: Sequence[str]) -> list[str]:
    """``split [IN [PREFIX]]`` writes ``PREFIX*`` (``x*`` by default); ``--filter`` runs a
    command instead."""
    parsed = _parse(_SPLIT, argv)
    prefix = parsed.operands[1] if len(parsed.operands) > 1 else "x"
    unnamed = [UNNAMED] if parsed.has("--filter") else []
    return _outcome(parsed, [prefix + "*"] + unnamed)


def _csplit(argv: Sequence[str]) -> list[str]:
    """``csplit -f PREFIX FILE PATTERN...`` writes ``PREFIX*`` (``xx*`` by default)."""
    parsed = _parse(_CSPLIT, argv)
    prefixes = parsed.values("-f", "--prefix") or ["xx"]
    return _outcome(parsed, [prefix + "*" for prefix in prefixes])


_PATCH = _Spec("bB:cd:D:eEfF:g:i:lnNo:p:r:RstTuvV:x:Y:z:Z", (
    "backup", "backup-if-mismatch", "no-backup-if-mismatch", "basename-prefix=", "prefix=",
    "context", "directory=", "ifdef=", "ed", "remove-empty-files", "force", "fuzz=", "get=",
    "help", "input=", "ignore-whitespace", "normal", "forward", "output=", "strip=", "posix",
    "quoting-style=", "reject-file=", "reverse", "silent", "quiet", "set-time", "set-utc",
    "batch", "unified", "version", "version-control=", "verbose", "suffix=", "dry-run",
    "merge", "binary", "follow-symlinks", "read-only=", "reject-format=", "debug="),
    writing=frozenset({"--output", "--reject-file", "--directory", "--prefix",
                       "--basename-prefix"}))


def _patch(argv: Sequence[str]) -> list[str]:
    """``patch [ORIG [PATCH]]``: ``-o F`` or else ``ORIG`` (and its ``.orig``/``.rej``:
    ``ORIG*``) or else the files the patch names, under the working directory or ``-d
    DIR``; ``-r F`` and ``-B PREFIX`` too.  ``--dry-run`` writes nothing."""
    parsed = _parse(_PATCH, argv)
    if parsed.has("--dry-run"):
        return _outcome(parsed, [])
    directory = parsed.values("-d", "--directory")
    out = _files(*parsed.values("-o", "--output"))
    if directory:
        writes = [_dir(value) for value in directory]
    elif out:
        writes = out
    else:
        writes = [parsed.operands[0] + "*"] if parsed.operands else ["./"]
    writes += out + _files(*parsed.values("-r", "--reject-file"))
    writes += [prefix + "*" for prefix in parsed.values("-B", "--prefix")]
    return _outcome(parsed, writes)


# -- fetchers ------------------------------------------------------------------------------------

_CURL = _Spec("#012346aA:b:Bc:C:d:D:e:E:fF:gGhH:iIjJkK:lLm:MnNo:OpP:qQ:r:RsSt:T:u:U:vVw:x:X:y:Y:"
              "z:Z", (
                  "abstract-unix-socket=", "alt-svc=", "anyauth", "append", "aws-sigv4=",
                  "basic", "ca-native", "cacert=", "capath=", "cert=", "cert-status",
                  "cert-type=", "ciphers=", "compressed", "compressed-ssh", "config=",
                  "connect-timeout=", "connect-to=", "continue-at=", "cookie=", "cookie-jar=",
                  "create-dirs", "create-file-mode=", "crlf", "crlfile=", "curves=", "data=",
                  "data-ascii=", "data-binary=", "data-raw=", "data-urlencode=", "digest",
                  "disable", "disable-eprt", "disable-epsv", "dns-servers=", "doh-url=",
                  "dump-header=", "etag-compare=", "etag-save=", "expect100-timeout=", "fail",
                  "fail-early", "fail-with-body", "false-start", "form=", "form-string=",
                  "ftp-pasv", "ftp-port=", "get", "globoff", "head", "header=", "help",
                  "hsts=", "http0.9", "http1.0", "http1.1", "http2", "http2-prior-knowledge",
                  "http3", "http3-only", "ignore-content-length", "include", "insecure",
                  "interface=", "ipv4", "ipv6", "json=", "junk-session-cookies",
                  "keepalive-time=", "key=", "key-type=", "libcurl=", "limit-rate=", "list-only",
                  "local-port=", "location", "location-trusted", "max-filesize=",
                  "max-redirs=", "max-time=", "negotiate", "netrc", "netrc-file=",
                  "netrc-optional", "next", "no-buffer", "no-keepalive", "no-progress-meter",
                  "no-sessionid", "noproxy=", "ntlm", "oauth2-bearer=", "output=",
                  "output-dir=", "parallel", "parallel-immediate", "parallel-max=", "pass=",
                  "path-as-is", "pinnedpubkey=", "post301", "post302", "post303",
                  "progress-bar", "proto=", "proto-default=", "proto-redir=", "proxy=",
                  "proxy-header=", "proxy-insecure", "proxy-user=", "quote=", "range=", "raw",
                  "referer=", "remote-header-name", "remote-name", "remote-name-all",
                  "remote-time", "request=", "resolve=", "retry=", "retry-all-errors",
                  "retry-connrefused", "retry-delay=", "retry-max-time=", "show-error",
                  "show-headers", "silent", "speed-limit=", "speed-time=", "ssl",
                  "ssl-reqd", "ssl-sessions=", "stderr=", "styled-output", "tcp-fastopen",
                  "tcp-nodelay", "time-cond=", "tls-max=", "tlsv1", "tlsv1.0", "tlsv1.1",
                  "tlsv1.2", "tlsv1.3", "trace=", "trace-ascii=", "trace-config=", "trace-ids",
                  "trace-time", "unix-socket=", "upload-file=", "url=", "url-query=",
                  "user=", "user-agent=", "variable=", "verbose", "version", "write-out=",
                  "xattr"),
              writing=frozenset({"--output", "--dump-header", "--cookie-jar", "--trace",
                                 "--trace-ascii", "--stderr", "--libcurl", "--etag-save",
                                 "--hsts", "--alt-svc", "--ssl-sessions", "--output-dir",
                                 "--remote-name", "--remote-name-all", "--config",
                                 "--remote-header-name"}))
#: curl options whose value is a file it writes (``-`` is standard output).
_CURL_FILES = ("-o", "--output", "-D", "--dump-header", "-c", "--cookie-jar", "--trace",
               "--trace-ascii", "--stderr", "--libcurl", "--etag-save", "--hsts", "--alt-svc",
               "--ssl-sessions")


def _curl(argv: Sequence[str]) -> list[str]:
    """curl's output files (:data:`_CURL_FILES`), and with ``-O``/``--remote-name(-all)``
    the directory it saves into (``--output-dir``, or the working directory).  A
    ``-K``/``--config`` file, or a ``--write-out`` with ``%output{``, may name any file."""
    parsed = _parse(_CURL, argv)
    writes = _files(*parsed.values(*_CURL_FILES))
    folder = _files(*parsed.values("--output-dir"))
    if parsed.has("-O", "--remote-name", "--remote-name-all") or folder:
        writes += [_dir(place) for place in folder or ["."]]
    if parsed.has("-K", "--config") or any(
            "%output{" in value for value in parsed.values("-w", "--write-out")):
        writes.append(UNNAMED)
    return _outcome(parsed, writes)


_WGET = _Spec("46A:a:bB:cdD:e:EFhHi:I:kKl:LmNn:o:O:pP:qQ:rR:St:T:U:vVw:xX:", (
    "accept=", "accept-regex=", "adjust-extension", "append-output=", "ask-password",
    "auth-no-challenge", "background", "backup-converted", "backups=", "base=", "bind-address=",
    "body-data=", "body-file=", "ca-certificate=", "ca-directory=", "certificate=",
    "certificate-type=", "check-certificate", "config=", "connect-timeout=", "content-disposition",
    "content-on-error", "continue", "convert-links", "cut-dirs=", "debug", "default-page=",
    "delete-after", "directory-prefix=", "dns-timeout=", "domains=", "exclude-directories=",
    "exclude-domains=", "execute=", "follow-ftp", "follow-tags=", "force-directories",
    "force-html", "header=", "help", "host-directories", "hsts-file=", "html-extension",
    "http-password=", "http-user=", "https-only", "ignore-case", "ignore-length",
    "ignore-tags=", "include-directories=", "inet4-only", "inet6-only", "input-file=",
    "keep-session-cookies", "level=", "limit-rate=", "load-cookies=", "max-redirect=",
    "method=", "mirror", "no-check-certificate", "no-clobber", "no-directories",
    "no-host-directories", "no-parent", "no-proxy", "no-verbose", "output-document=",
    "output-file=", "page-requisites", "password=", "post-data=", "post-file=",
    "prefer-family=", "private-key=", "progress=", "proxy-password=", "proxy-user=", "quiet",
    "quota=", "random-wait", "read-timeout=", "recursive", "referer=", "reject=",
    "reject-regex=", "rejected-log=", "relative", "retry-connrefused", "save-cookies=",
    "save-headers", "secure-protocol=", "server-response", "show-progress", "span-hosts",
    "spider", "timeout=", "timestamping", "tries=", "trust-server-names", "user=",
    "user-agent=", "verbose", "version", "wait=", "waitretry=", "warc-file="),
    writing=frozenset({"--output-document", "--output-file", "--append-output",
                       "--directory-prefix", "--save-cookies", "--warc-file", "--rejected-log",
                       "--hsts-file", "--execute", "--config", "--background"}))


def _wget(argv: Sequence[str]) -> list[str]:
    """What Wget saves: ``-O F``, or else into ``-P DIR`` or the working directory (not with
    ``--spider``); its logs (``-o``, ``-a``, ``wget-log*`` in the background), cookies,
    WARC and HSTS files.  ``-e``/``--execute`` and ``--config`` may set any of them."""
    parsed = _parse(_WGET, argv)
    document = parsed.values("-O", "--output-document")
    writes = _files(*document)
    if not document and not parsed.has("--spider"):
        writes += [_dir(place) for place in parsed.values("-P", "--directory-prefix") or ["."]]
    writes += _files(*parsed.values("-o", "--output-file", "-a", "--append-output",
                                    "--save-cookies", "--rejected-log", "--hsts-file"))
    writes += [prefix + "*" for prefix in _files(*parsed.values("--warc-file"))]
    if parsed.has("-b", "--background"):
        writes.append("wget-log*")
    if parsed.has("-e", "--execute", "--config"):
        writes.append(UNNAMED)
    return _outcome(parsed, writes)


# -- archives and compressors --------------------------------------------------------------------

_TAR = _Spec("AcdrtuxzjJaZvkUmpoOhPWSsiGMlwBRnf:C:b:T:X:g:K:N:V:L:H:I:F:", (
    "append", "create", "extract", "get", "list", "update", "catenate", "concatenate", "diff",
    "compare", "delete", "test-label", "file=", "directory=", "verbose", "gzip", "gunzip",
    "ungzip", "bzip2", "xz", "lzma", "lzip", "lzop", "zstd", "auto-compress", "compress",
    "uncompress", "keep-old-files", "keep-newer-files", "keep-directory-symlink",
    "skip-old-files", "overwrite", "overwrite-dir", "no-overwrite-dir", "touch",
    "preserve-permissions", "same-permissions", "no-same-permissions", "same-owner",
    "no-same-owner", "numeric-owner", "preserve-order", "same-order", "to-stdout",
    "dereference", "hard-dereference", "verify", "sparse", "ignore-zeros", "wildcards",
    "no-wildcards", "wildcards-match-slash", "no-wildcards-match-slash", "anchored",
    "no-anchored", "ignore-case", "no-ignore-case", "recursion", "no-recursion", "null",
    "no-null", "unquote", "no-unquote", "totals", "show-transformed-names",
    "show-stored-names", "one-file-system", "exclude-vcs", "exclude-vcs-ignores",
    "exclude-backups", "exclude-caches", "exclude-caches-all", "exclude-caches-under",
    "exclude-ignore=", "exclude-ignore-recursive=", "exclude-tag=", "exclude-tag-all=",
    "exclude-tag-under=", "warning=", "strip-components=", "transform=", "xform=",
    "exclude=", "exclude-from=", "files-from=", "owner=", "group=", "mode=", "mtime=",
    "newer=", "newer-mtime=", "after-date=", "format=", "sort=", "blocking-factor=",
    "record-size=", "listed-incremental=", "incremental", "remove-files", "unlink-first",
    "recursive-unlink", "absolute-names", "acls", "no-acls", "xattrs", "no-xattrs",
    "selinux", "no-selinux", "force-local", "level=", "label=", "utc", "full-time",
    "index-file=", "one-top-level", "backup", "suffix=", "occurrence", "check-links",
    "ignore-failed-read", "restrict", "block-number", "checkpoint", "help", "usage",
    "version", "show-defaults", "quiet", "interactive", "confirmation", "posix", "old-archive",
    "portability", "numeric-owner", "delay-directory-restore", "no-delay-directory-restore",
    "read-full-records", "starting-file=", "seek", "no-seek", "atime-preserve",
    "clamp-mtime", "pax-option=", "group-map=", "owner-map=", "hole-detection=",
    "ignore-command-error", "no-ignore-command-error", "null", "mtime=", "to-command=",
    "use-compress-program=", "rsh-command=", "info-script=", "new-volume-script=",
    "checkpoint-action=", "multi-volume", "tape-length=", "volno-file="),
    writing=frozenset({"--file", "--directory", "--listed-incremental", "--index-file",
                       "--absolute-names", "--to-command", "--use-compress-program",
                       "--rsh-command", "--info-script", "--new-volume-script",
                       "--checkpoint-action", "--volno-file", "--remove-files",
                       "--one-top-level", "--create", "--extract", "--append", "--update",
                       "--catenate", "--concatenate", "--delete"}))
_TAR_VALUED = frozenset(letter for letter, after in zip(_TAR.short, _TAR.short[1:] + " ")
                        if after == ":")
_TAR_ARCHIVE = ("-c", "--create", "-r", "--append", "-u", "--update", "-A", "--catenate",
                "--concatenate", "--delete")
_TAR_EXTRACT = ("-x", "--extract", "--get")
_TAR_UNFOLLOWED = ("-I", "-F", "--to-command", "--use-compress-program", "--rsh-command",
                   "--info-script", "--new-volume-script", "--checkpoint-action")


def _tar_argv(argv: Sequence[str]) -> list[str]:
    """tar's old style (``tar xfC A DIR``: a first word of letters whose values follow in
    order) as separate options."""
    if len(argv) < 2 or argv[1].startswith("-") or not argv[1].isalpha():
        return list(argv)
    words, rest = [argv[0]], list(argv[2:])
    for letter in argv[1]:
        words.append("-" + letter)
        if letter in _TAR_VALUED and rest:
            words.append(rest.pop(0))
    return words + rest


def _tar(argv: Sequence[str]) -> list[str]:
    """The archive (``-f``) when tar writes one; the directory it extracts into (``-C``, or
    the working directory; nothing with ``-O``); ``-g`` and ``--index-file``; the files
    ``--remove-files`` deletes.  ``-P`` (absolute names on extraction), an archive on
    another host (``-f host:file``), more than one ``-C`` with a relative one, or an
    option that runs a program, is unknown."""
    parsed = _parse(_TAR, _tar_argv(argv))
    archives = parsed.values("-f", "--file")
    writes: list[str] = []
    if parsed.has(*_TAR_ARCHIVE):
        writes += _files(*archives)
    places = parsed.values("-C", "--directory")
    if parsed.has(*_TAR_EXTRACT) and not parsed.has("-O", "--to-stdout"):
        writes += [_dir(place) for place in places or ["."]]
        if parsed.has("-P", "--absolute-names") or (
                len(places) > 1 and not all(place.startswith("/") for place in places[1:])):
            writes.append(UNNAMED)
    writes += _files(*parsed.values("-g", "--listed-incremental", "--index-file"))
    if parsed.has("--remove-files"):
        writes += parsed.operands if not places else [UNNAMED]
    if parsed.has(*_TAR_UNFOLLOWED) or any(":" in archive.split("/", 1)[0]
                                           for archive in archives):
        writes.append(UNNAMED)
    return _outcome(parsed, writes)


_UNZIP_FLAGS = "abBcCDfhjKlLMnNopqstTuUvVWXz$"
_UNZIP_READS = frozenset("lvtzpcZ")


def _unzip(argv: Sequence[str]) -> list[str]:
    """unzip extracts into ``-d DIR`` or the working directory; ``-l``, ``-v``, ``-t``,
    ``-z``, ``-p``, ``-c`` and zipinfo mode (``-Z``) only read.  ``-:`` (keep ``..``
    in names) and any letter it does not know are unknown."""
    letters: set[str] = set()
    places: list[str] = []
    unknown = False
    i = 1
    while i < len(argv):
        word = argv[i]
        i += 1
        if not word.startswith("-") or word == "-":
            continue
        if word[1:2] == "Z":
            return []
        if word[1:2] == "x":
            while i < len(argv) and not argv[i].startswith("-"):
                i += 1                  # the names after -x are exclusions
            continue
        for j, letter in enumerate(word[1:], 1):
            if letter in "dPIO":
                value = word[j + 1:]
                if not value:
                    value, i = (argv[i], i + 1) if i < len(argv) else ("", i)
                if letter == "d":
                    places.append(value)
                break
            letters.add(letter)
            unknown = unknown or letter not in _UNZIP_FLAGS
    if letters & _UNZIP_READS and not unknown:
        return []
    writes = [_dir(place) for place in places or ["."]]
    return writes + [UNNAMED] if unknown else writes


_ZIP_WORDS = frozenset({"FS", "FF", "AC", "AS", "MM", "nw", "sf", "so", "sp", "su", "sv", "ws",
                        "dc", "dd", "dg", "dv", "db", "la", "li", "ic", "ll", "lu"})
_ZIP_VALUED = frozenset({"b", "n", "O", "P", "s", "t", "tt", "Z", "ds", "du", "lf", "Y"})
_ZIP_FLAGS = "0123456789aAcCdDeEfFgGhHjJkKlLmoqrRSTuvVwXyz$@"
_ZIP_LONG = {"--move": "m", "--recurse-paths": "r", "--output-file": "O", "--temp-path": "b",
             "--quiet": "q", "--junk-paths": "j", "--update": "u", "--freshen": "f",
             "--filesync": "FS", "--delete": "d", "--symlinks": "y", "--encrypt": "e",
             "--test": "T", "--verbose": "v", "--exclude": "x", "--include": "i",
             "--recurse-patterns": "R", "--no-extra": "X", "--latime": "o"}


def _zip_words(argv: Sequence[str]) -> tuple[list[tuple[str, str]], list[str], bool]:
    """``(options, operands, unknown)`` of a zip argv (zip's own parser: ``-rq``, ``-FS``,
    ``-O F``, ``-x`` / ``-i`` followed by names)."""
    found: list[tuple[str, str]] = []
    operands: list[str] = []
    unknown = False
    i = 1
    while i < len(argv):
        word = argv[i]
        i += 1
        if word == "-" or not word.startswith("-"):
            operands.append(word)
            continue
        name = _ZIP_LONG.get(word.split("=", 1)[0])
        if word.startswith("--"):
            unknown = unknown or name is None
            names = [name] if name else []
        elif word[1:] in _ZIP_WORDS or word[1:] in _ZIP_VALUED:
            names = [word[1:]]
        else:
            names = list(word[1:])
            unknown = unknown or any(letter not in _ZIP_FLAGS and letter not in _ZIP_VALUED
                                     for letter in names)
        for letter in names:
            value = ""
            if letter in _ZIP_VALUED:
                value = word.split("=", 1)[1] if "=" in word else ""
                if not value:
                    value, i = (argv[i], i + 1) if i < len(argv) else ("", i)
            elif letter in ("x", "i"):
                while i < len(argv) and not argv[i].startswith("-"):
                    i += 1
            found.append((letter, value))
    return found, operands, unknown


def _zip(argv: Sequence[str]) -> list[str]:
    """The zip file (the first operand), ``-O F``, the temporary directory ``-b DIR``, and
    with ``-m`` the files it moves in (deleted afterwards); ``-m`` with ``-@`` (names from
    standard input) is unknown."""
    options, operands, unknown = _zip_words(argv)
    letters = {letter for letter, _ in options}
    writes = _files(*operands[:1])
    writes += _files(*(value for letter, value in options if letter == "O"))
    writes += [_dir(value) for letter, value in options if letter == "b" and value]
    if "m" in letters:
        writes += operands[1:] + ([UNNAMED] if "@" in letters else [])
    if "TT" in letters:
        writes.append(UNNAMED)
    return writes + [UNNAMED] if unknown else writes


_GZIP = _Spec("acdfhklLnNqrtvV123456789S:b:p:", (
    "ascii", "stdout", "to-stdout", "decompress", "uncompress", "force", "help", "keep", "list",
    "license", "no-name", "name", "quiet", "recursive", "rsyncable", "suffix=", "synchronous",
    "test", "verbose", "version", "fast", "best", "processes=", "blocksize=", "independent"))
_BZIP2 = _Spec("cdzfkstqvLV123456789", (
    "decompress", "compress", "keep", "force", "test", "stdout", "quiet", "verbose", "license",
    "version", "small", "fast", "best", "help"))
_XZ = _Spec("zdtlkfcqvhHVe0123456789F:C:S:T:M:", (
    "compress", "decompress", "uncompress", "test", "list", "keep", "force", "stdout",
    "to-stdout", "single-stream", "no-sparse", "suffix=", "format=", "check=", "threads=",
    "memlimit=", "memlimit-compress=", "memlimit-decompress=", "memory=", "no-adjust",
    "quiet", "verbose", "help", "long-help", "version", "extreme", "fast", "best",
    "block-size=", "ignore-check", "robot", "files=", "files0="),
    writing=frozenset({"--files", "--files0"}))
_ZSTD = _Spec("zdcflkqvhHVrt0123456789o:D:T:B:M:", (
    "compress", "decompress", "uncompress", "stdout", "force", "keep", "rm", "quiet", "verbose",
    "help", "version", "test", "list", "ultra", "long", "fast", "single-thread", "threads=",
    "adapt", "rsyncable", "no-progress", "progress", "sparse", "no-sparse", "check",
    "no-check", "output-dir-flat=", "output-dir-mirror=", "format=", "memory=",
    "content-size", "no-content-size", "exclude-compressed", "patch-from="),
    writing=frozenset({"--output-dir-flat", "--output-dir-mirror"}))
_LZ4 = _Spec("zdcflkqvhHVmrt0123456789B:", (
    "compress", "decompress", "uncompress", "stdout", "to-stdout", "force", "keep", "rm",
    "quiet", "verbose", "help", "version", "test", "list", "multiple", "favor-decSpeed",
    "best", "fast", "content-size", "no-frame-crc", "sparse", "no-sparse", "frame-crc"),
    digits=True)
#: Each program, and how it reads: its option table and whether ``IN OUT`` is a pair.
_COMPRESSORS: dict[str, tuple[_Spec, bool]] = {
    "gzip": (_GZIP, False), "gunzip": (_GZIP, False), "pigz": (_GZIP, False),
    "unpigz": (_GZIP, False), "bzip2": (_BZIP2, False), "bunzip2": (_BZIP2, False),
    "xz": (_XZ, False), "unxz": (_XZ, False), "lzma": (_XZ, False), "unlzma": (_XZ, False),
    "zstd": (_ZSTD, False), "unzstd": (_ZSTD, False), "lz4": (_LZ4, True),
    "unlz4": (_LZ4, True)}
_TO_STDOUT = ("-c", "--stdout", "--to-stdout", "-l", "--list", "-t", "--test")
_SUFFIXES = (".gz", ".z", ".tgz", ".bz2", ".tbz", ".tbz2", ".xz", ".txz", ".lzma", ".zst",
             ".lz4", ".Z")


def _replaced(operand: str) -> list[str]:
    """What compressing or decompressing ``operand`` in place writes: it, ``it*`` (the
    ``.gz`` beside it) and, for a compressed name, ``stem*`` (what it unpacks to)."""
    found = [operand, operand + "*"]
    for suffix in _SUFFIXES:
        if operand.endswith(suffix) and len(operand) > len(suffix):
            found.append(operand[:-len(suffix)] + "*")
    return found


def _compressor(base: str, argv: Sequence[str]) -> list[str]:
    """gzip and its kin replace each operand (``-r``: everything under it) unless they write
    to standard output (``-c``, ``-l``, ``-t``); ``zstd -o F`` and ``--output-dir-*``;
    ``lz4 IN OUT``."""
    spec, pair = _COMPRESSORS[base]
    parsed = _parse(spec, argv)
    operands = _files(*parsed.operands)
    if parsed.has(*_TO_STDOUT):
        return _outcome(parsed, [])
    if pair and not parsed.has("-m", "--multiple") and len(operands) == 2:
        return _outcome(parsed, operands[1:])
    writes = _files(*parsed.values("-o"))
    writes += [_dir(value) for value in parsed.values("--output-dir-flat", "--output-dir-mirror")]
    if not writes:
        recursive = parsed.has("-r", "--recursive")
        writes = [place for operand in operands
                  for place in ([_dir(operand)] if recursive else _replaced(operand))]
    if parsed.has("--files", "--files0"):
        writes.append(UNNAMED)
    return _outcome(parsed, writes)


_SEVEN_READS = frozenset({"l", "t", "h", "i", "b"})
_SEVEN_ARCHIVE = frozenset({"a", "d", "u", "rn"})
_SEVEN_SWITCHES = ("-o", "-w", "-so", "-si", "-sdel", "-y", "-r", "-p", "-t", "-m", "-bb",
                   "-bs", "-bt", "-bd", "-x", "-i", "-ao", "-an", "-ai", "-ax", "-mmt", "-mx",
                   "-v", "-ssc", "-scs", "-scc", "-slt", "-sns", "-snh", "-snl", "-stl",
                   "-sse", "-ssw", "-spe", "-sccUTF")


def _seven(argv: Sequence[str]) -> list[str]:
    """``7z a|u|d|rn ARCHIVE`` writes the archive; ``7z e|x`` extracts into ``-oDIR`` or the
    working directory (nothing with ``-so``); ``-sdel`` deletes the files it added;
    ``-wDIR`` is a working directory.  ``-spf`` (absolute paths) and any switch it does
    not know are unknown."""
    words = list(argv[1:])
    switches = [word for word in words if word.startswith("-") and word != "-"]
    operands = [word for word in words if word not in switches]
    command = operands[0].lower() if operands else ""
    writes: list[str] = []
    if command in _SEVEN_ARCHIVE:
        writes += _files(*operands[1:2])
    elif command in ("e", "x") and "-so" not in switches:
        writes += [_dir(s[2:]) for s in switches if s.startswith("-o") and s[2:]] or ["./"]
    elif command not in _SEVEN_READS:
        writes.append(UNNAMED)
    writes += [_dir(s[2:]) for s in switches if s.startswith("-w") and s[2:]]
    if "-sdel" in switches:
        writes += operands[2:] or [UNNAMED]
    if any(not s.startswith(_SEVEN_SWITCHES) or s.startswith("-spf") for s in switches):
        writes.append(UNNAMED)
    return writes


# -- what is read leniently: every option reviewed, only these write -----------------------------

_LESS = _Spec("b:h:j:k:o:O:p:P:t:T:x:y:z:#:D:", ("log-file=", "LOG-FILE="), lenient=True,
              writing=frozenset({"--log-file", "--LOG-FILE"}))


def _less(argv: Sequence[str]) -> list[str]:
    """less writes only its log: ``-o F``, ``-O F``, ``--log-file=F``, ``--LOG-FILE=F``."""
    parsed = _parse(_LESS, argv)
    return _outcome(parsed, _files(*parsed.values("-o", "-O", "--log-file", "--LOG-FILE")))


_FILE = _Spec("bcCdE:e:f:F:hiklLm:nNprsSvzZ0P:", ("compile", "magic-file="), lenient=True)


def _file(argv: Sequence[str]) -> list[str]:
    """``file -C`` compiles each ``-m`` magic file into ``FILE.mgc`` (``magic.mgc`` in the
    working directory without ``-m``); nothing else of file's writes."""
    parsed = _parse(_FILE, argv)
    if not parsed.has("-C", "--compile"):
        return _outcome(parsed, [])
    magic = [part for value in parsed.values("-m", "--magic-file") for part in value.split(":")]
    return _outcome(parsed, [part + ".mgc" for part in magic] or ["magic.mgc"])


_PANDOC = _Spec("f:r:t:w:o:d:F:L:M:V:D:H:B:A:c:T:", (
    "output=", "extract-media=", "log=", "defaults=", "filter=", "lua-filter=",
    "pdf-engine=", "pdf-engine-opt="), lenient=True,
    writing=frozenset({"--output", "--extract-media", "--log", "--defaults", "--filter",
                       "--lua-filter", "--pdf-engine", "--pdf-engine-opt"}))


def _pandoc(argv: Sequence[str]) -> list[str]:
    """``-o F``, ``--log=F`` and ``--extract-media=DIR``; a defaults file (``-d``) or a PDF
    engine of the caller's choosing is unknown."""
    parsed = _parse(_PANDOC, argv)
    writes = _files(*parsed.values("-o", "--output", "--log"))
    writes += [_dir(value) for value in parsed.values("--extract-media")]
    if parsed.has("-d", "--defaults", "--pdf-engine", "--pdf-engine-opt", "-F", "--filter",
                  "-L", "--lua-filter"):
        writes.append(UNNAMED)
    return _outcome(parsed, writes)


#: openssl options that name ``out`` but take no value.
_OPENSSL_FLAGS = frozenset({"-noout", "-pubout", "-pk7out", "-RSAPublicKey_out", "-text_out",
                            "-no_out", "-outform"})
#: openssl options that load code or a configuration that may (engines, providers).
_OPENSSL_LOADS = frozenset({"-engine", "-provider", "-provider-path", "-config",
                            "-CAcreateserial", "-keygen_engine", "-ssl_config"})


def _openssl(argv: Sequence[str]) -> list[str]:
    """Every option whose name holds ``out`` (``-out``, ``-keyout``, ``-certout``,
    ``-sess_out``, ``-outdir``...) writes the next word, as do ``-writerand`` and
    ``-CAserial``; engines, providers and configuration files are unknown."""
    writes: list[str] = []
    for i, word in enumerate(argv[2:], 2):
        head = word.split("=", 1)[0]
        value = argv[i + 1] if i + 1 < len(argv) else ""
        if head in _OPENSSL_LOADS:
            writes.append(UNNAMED)
        elif head.startswith("-") and head not in _OPENSSL_FLAGS and (
                "out" in head or head in ("-writerand", "-CAserial")):
            writes += _files(word.split("=", 1)[1] if "=" in word else value)
    return writes


def _operands_written(argv: Sequence[str], valued: str = "") -> list[str]:
    """Every word that is not an option nor an option's value (``valued`` short letters)."""
    found: list[str] = []
    skip = False
    for word in argv[1:]:
        if skip:
            skip = False
        elif word.startswith("-") and word != "-":
            skip = len(word) == 2 and word[1] in valued
        else:
            found.append(word)
    return _files(*found)


def _dos2unix(argv: Sequence[str]) -> list[str]:
    """dos2unix converts its operands in place (``-n IN OUT`` writes OUT); ``-i`` only reports."""
    if any(word in ("-i", "--info") or word.startswith("--info=") for word in argv[1:]):
        return []
    return _operands_written(argv, "cDf")


def _yq(argv: Sequence[str]) -> list[str]:
    """``yq -i``/``--inplace`` rewrites its files; ``-s``/``--split-exp`` writes files its
    expression names."""
    words = [word for word in argv[1:] if word.startswith("-") and not word.startswith("--")]
    longs = [word.split("=", 1)[0] for word in argv[1:] if word.startswith("--")]
    writes: list[str] = []
    if any("i" in word[1:] for word in words) or {"--inplace", "--in-place"} & set(longs):
        writes += _operands_written(argv)
    if any("s" in word[1:] for word in words) or "--split-exp" in longs:
        writes.append(UNNAMED)
    return writes


def _every_operand(argv: Sequence[str]) -> list[str]:
    """Programs whose outputs are operands among their inputs (``ffmpeg -i IN OUT``,
    ``convert IN OUT``, ``mogrify`` in place): every operand counts as written."""
    return _operands_written(argv)


_READERS: Mapping[str, Callable[[Sequence[str]], list[str]]] = {
    "sort": _sort, "uniq": _second_operand(_UNIQ), "xxd": _xxd, "tree": _tree,
    "split": _split, "csplit": _csplit, "patch": _patch, "curl": _curl, "wget": _wget,
    "tar": _tar, "unzip": _unzip, "zip": _zip, "7z": _seven, "7za": _seven, "7zr": _seven,
    "7zz": _seven, "shuf": _output_option(_SHUF), "iconv": _output_option(_ICONV),
    "sdiff": _output_option(_SDIFF, "--diff-program"), "less": _less, "file": _file,
}
#: Programs whose writes :func:`outputs` names completely (a closed-world reading, or a
#: lenient one after every option was reviewed): the lease layer needs nothing more.
MODELED = frozenset(_READERS) | frozenset(_COMPRESSORS)
_OTHERS: Mapping[str, Callable[[Sequence[str]], list[str]]] = {
    "pandoc": _pandoc, "openssl": _openssl, "dos2unix": _dos2unix, "unix2dos": _dos2unix,
    "mac2unix": _dos2unix, "unix2mac": _dos2unix, "yq": _yq, "ffmpeg": _every_operand,
    "convert": _every_operand, "magick": _every_operand, "mogrify": _every_operand,
    "gm": _every_operand,
}


def _known(name: str) -> str:
    """The table's name for ``name`` (a basename, case folded): itself, or without a
    trailing version (``shuf9``, ``tar1.35``; ``bzip2`` and ``lz4`` keep theirs)."""
    if name in _COMPRESSORS or name in _READERS or name in _OTHERS:
        return name
    return name.rstrip("0123456789.") or name


def modeled(name: str) -> bool:
    """Whether :func:`outputs` names everything the program ``name`` writes (:data:`MODELED`)."""
    return _known(name) in MODELED


def outputs(name: str, argv: Sequence[str]) -> list[str] | None:
    """What ``argv`` (run as the program ``name``: its basename, case folded) writes by an
    output option or operand of its own; ``None`` for a program this module does not
    know."""
    base = _known(name)
    if base in _COMPRESSORS:
        return _compressor(base, argv)
    reader = _READERS.get(base) or _OTHERS.get(base)
    return None if reader is None else reader(argv)
