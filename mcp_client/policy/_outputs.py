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
agents' leases; :data:`UNNAMED` is a location that cannot be resolved.  Archivers and
compressors are in :mod:`mcp_client.policy._archives`, programs driven by a script or
their input in :mod:`mcp_client.policy._scripted`, the option reading in
:mod:`mcp_client.policy._getopt`.

Option tables come from the programs' manuals (GNU coreutils 9.x, GNU tar 1.35,
GNU patch 2.7, curl 8.x, GNU Wget 1.21, Info-ZIP zip 3.0 / unzip 6.0, gzip 1.12,
bzip2 1.0, xz 5.4, zstd 1.5, lz4 1.9, p7zip 16, tree 2.1, xxd 2024).  Pure: nothing
here runs or reads anything.
"""

from __future__ import annotations

from typing import Callable, Mapping, Sequence

from ._archives import ARCHIVERS, COMPRESSORS, compressed
from ._getopt import UNNAMED, Spec, files, folder, operands, outcome, parse
from ._scripted import SCRIPTED

__all__ = ["UNNAMED", "MODELED", "modeled", "outputs"]


# -- the coreutils and friends -------------------------------------------------------------------

_SORT = Spec("bdfgiMhnRrVk:t:cCmo:sS:T:uz", (
    "ignore-leading-blanks", "dictionary-order", "ignore-case", "general-numeric-sort",
    "ignore-nonprinting", "month-sort", "human-numeric-sort", "numeric-sort", "random-sort",
    "reverse", "version-sort", "sort=", "random-source=", "check", "merge", "stable",
    "unique", "zero-terminated", "debug", "help", "version", "key=", "field-separator=",
    "buffer-size=", "files0-from=", "parallel=", "batch-size=", "output=",
    "temporary-directory=", "compress-program="), digits=True,
    writing=frozenset({"--output", "--temporary-directory", "--compress-program"}))


def _sort(argv: Sequence[str]) -> list[str]:
    parsed = parse(_SORT, argv)
    writes = files(*parsed.values("-o", "--output"))
    writes += [folder(value) for value in files(*parsed.values("-T", "--temporary-directory"))]
    if parsed.has("--compress-program"):
        writes.append(UNNAMED)          # (it runs a program of the caller's choosing)
    return outcome(parsed, writes)


_UNIQ = Spec("cdDf:is:uw:z", (
    "count", "repeated", "all-repeated", "group", "ignore-case", "unique", "zero-terminated",
    "skip-fields=", "skip-chars=", "check-chars=", "help", "version"), digits=True)


def _second_operand(spec: Spec) -> Callable[[Sequence[str]], list[str]]:
    """``PROGRAM [IN [OUT]]``: the second operand is written (``uniq``)."""
    def one(argv: Sequence[str]) -> list[str]:
        parsed = parse(spec, argv)
        return outcome(parsed, files(*parsed.operands[1:2]))
    return one


_SHUF = Spec("ei:n:o:rz", ("echo", "input-range=", "head-count=", "output=", "random-source=",
                           "repeat", "zero-terminated", "help", "version"),
             writing=frozenset({"--output"}))
_ICONV = Spec("cf:lo:st:V", ("from-code=", "to-code=", "list", "output=", "silent", "verbose",
                             "help", "usage", "version"), writing=frozenset({"--output"}))
_SDIFF = Spec("abBdEHiI:lo:stw:WZ", (
    "output=", "ignore-case", "ignore-tab-expansion", "ignore-trailing-space",
    "ignore-space-change", "ignore-all-space", "ignore-blank-lines", "ignore-matching-lines=",
    "strip-trailing-cr", "text", "minimal", "left-column", "suppress-common-lines", "width=",
    "tabsize=", "expand-tabs", "speed-large-files", "help", "version", "diff-program="),
    writing=frozenset({"--output", "--diff-program"}))


def _output_option(spec: Spec, *runs: str) -> Callable[[Sequence[str]], list[str]]:
    """``-o F``/``--output=F`` is written (``shuf``, ``iconv``, ``sdiff``); ``runs``:
    options that run a program of the caller's choosing."""
    def one(argv: Sequence[str]) -> list[str]:
        parsed = parse(spec, argv)
        writes = files(*parsed.values("-o", "--output"))
        return outcome(parsed, writes + ([UNNAMED] if parsed.has(*runs) else []))
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
    writes = files(*operands[1:2])
    return writes + [UNNAMED] if unknown else writes


_TREE = Spec("adlfxpsugDFqNQvtcUrhCnASJXiRL:P:I:o:H:T:", (
    "help", "version", "inodes", "device", "noreport", "nolinks", "dirsfirst", "filesfirst",
    "charset=", "filelimit=", "si", "du", "prune", "timefmt=", "ignore-case", "matchdirs",
    "metafirst", "gitignore", "gitfile=", "info", "infofile=", "fromfile", "fromtabfile",
    "sort=", "hyperlink", "scheme=", "authority=", "opt-toggle", "condense", "octal"),
    glued=False)


def _tree(argv: Sequence[str]) -> list[str]:
    """``-o F`` is written; ``-R`` writes ``00Tree.html`` into every directory below each
    operand.  tree's own parser takes a value from the next word, never from the rest of
    a cluster."""
    parsed = parse(_TREE, argv)
    writes = files(*parsed.values("-o"))
    if parsed.has("-R"):
        writes += [folder(place) for place in parsed.operands or ["."]]
    return outcome(parsed, writes)


_SPLIT = Spec("a:b:C:del:n:t:ux", (
    "suffix-length=", "additional-suffix=", "bytes=", "line-bytes=", "lines=", "number=",
    "numeric-suffixes", "hex-suffixes", "elide-empty-files", "unbuffered", "separator=",
    "verbose", "filter=", "help", "version"), digits=True, writing=frozenset({"--filter"}))
_CSPLIT = Spec("b:f:kn:szq", (
    "suffix-format=", "prefix=", "keep-files", "suppress-matched", "digits=", "quiet", "silent",
    "elide-empty-files", "help", "version"), writing=frozenset({"--prefix"}))


def _split(argv: Sequence[str]) -> list[str]:
    """``split [IN [PREFIX]]`` writes ``PREFIX*`` (``x*`` by default); ``--filter`` runs a
    command instead."""
    parsed = parse(_SPLIT, argv)
    prefix = parsed.operands[1] if len(parsed.operands) > 1 else "x"
    unnamed = [UNNAMED] if parsed.has("--filter") else []
    return outcome(parsed, [prefix + "*"] + unnamed)


def _csplit(argv: Sequence[str]) -> list[str]:
    """``csplit -f PREFIX FILE PATTERN...`` writes ``PREFIX*`` (``xx*`` by default)."""
    parsed = parse(_CSPLIT, argv)
    prefixes = parsed.values("-f", "--prefix") or ["xx"]
    return outcome(parsed, [prefix + "*" for prefix in prefixes])


_PATCH = Spec("bB:cd:D:eEfF:g:i:lnNo:p:r:RstTuvV:x:Y:z:Z", (
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
    parsed = parse(_PATCH, argv)
    if parsed.has("--dry-run"):
        return outcome(parsed, [])
    directory = parsed.values("-d", "--directory")
    out = files(*parsed.values("-o", "--output"))
    if directory:
        writes = [folder(value) for value in directory]
    elif out:
        writes = out
    else:
        writes = [parsed.operands[0] + "*"] if parsed.operands else ["./"]
    writes += out + files(*parsed.values("-r", "--reject-file"))
    writes += [prefix + "*" for prefix in parsed.values("-B", "--prefix")]
    return outcome(parsed, writes)


# -- fetchers ------------------------------------------------------------------------------------

_CURL = Spec("#012346aA:b:Bc:C:d:D:e:E:fF:gGhH:iIjJkK:lLm:MnNo:OpP:qQ:r:RsSt:T:u:U:vVw:x:X:y:Y:"
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
    ``-K``/``--config`` file, or a ``--write-out`` with ``%output{`` (or read from a file,
    ``@F``), may name any file."""
    parsed = parse(_CURL, argv)
    writes = files(*parsed.values(*_CURL_FILES))
    saves = files(*parsed.values("--output-dir"))
    if parsed.has("-O", "--remote-name", "--remote-name-all") or saves:
        writes += [folder(place) for place in saves or ["."]]
    if parsed.has("-K", "--config") or any(
            "%output{" in value or value.startswith("@")
            for value in parsed.values("-w", "--write-out")):
        writes.append(UNNAMED)
    return outcome(parsed, writes)


_WGET = Spec("46A:a:bB:cdD:e:EFhHi:I:kKl:LmNn:o:O:pP:qQ:rR:St:T:U:vVw:xX:", (
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
    parsed = parse(_WGET, argv)
    document = parsed.values("-O", "--output-document")
    writes = files(*document)
    if not document and not parsed.has("--spider"):
        writes += [folder(place) for place in parsed.values("-P", "--directory-prefix") or ["."]]
    writes += files(*parsed.values("-o", "--output-file", "-a", "--append-output",
                                   "--save-cookies", "--rejected-log", "--hsts-file"))
    writes += [prefix + "*" for prefix in files(*parsed.values("--warc-file"))]
    if parsed.has("-b", "--background"):
        writes.append("wget-log*")
    writes += [place for command in parsed.values("-e", "--execute")
               for place in _wgetrc(command)]
    if parsed.has("--config"):
        writes.append(UNNAMED)
    return outcome(parsed, writes)


#: wgetrc commands (``wget -e NAME=VALUE``; case, ``-`` and ``_`` do not count) that
#: write a file or save into a directory.
_WGETRC_FILES = frozenset({"outputdocument", "logfile", "savecookies", "rejectedlog",
                           "hstsfile", "warcfile"})
_WGETRC_DIRS = frozenset({"dirprefix"})
#: Those known to write nothing.
_WGETRC_HARMLESS = frozenset({
    "robots", "tries", "timeout", "readtimeout", "connecttimeout", "dnstimeout", "wait",
    "waitretry", "randomwait", "useragent", "header", "checkcertificate", "httpsonly",
    "verbose", "quiet", "recursive", "reclevel", "noparent", "maxredirect", "limitrate",
    "continue", "timestamping", "contentdisposition", "serverresponse", "showprogress",
    "progress", "useproxy", "httpproxy", "httpsproxy", "noproxy", "retryconnrefused",
    "inet4only", "inet6only", "preferfamily", "compression", "iri", "localencoding",
    "remoteencoding", "restrictfilenames", "adjustextension", "convertlinks",
    "pagerequisites", "spanhosts", "domains", "excludedomains", "accept", "reject",
    "includedirectories", "excludedirectories", "cutdirs", "addhostdir", "dirstruct",
    "mirror", "noclobber", "httpuser", "httppassword", "user", "password", "cache",
    "cookies", "keepsessioncookies", "maxredirect", "quota", "debug", "trustservernames"})


def _wgetrc(command: str) -> list[str]:
    """What one ``wget -e`` command writes (unknown for a command not known harmless)."""
    name, _, value = command.partition("=")
    key = name.strip().lower().replace("_", "").replace("-", "")
    if key in _WGETRC_FILES:
        return files(value.strip())
    if key in _WGETRC_DIRS:
        return [folder(value.strip())]
    return [] if key in _WGETRC_HARMLESS else [UNNAMED]


# -- what is read leniently: every option reviewed, only these write -----------------------------

_LESS = Spec("b:h:j:k:o:O:p:P:t:T:x:y:z:#:D:", ("log-file=", "LOG-FILE="), lenient=True,
             writing=frozenset({"--log-file", "--LOG-FILE"}))


def _less(argv: Sequence[str]) -> list[str]:
    """less writes only its log: ``-o F``, ``-O F``, ``--log-file=F``, ``--LOG-FILE=F``."""
    parsed = parse(_LESS, argv)
    return outcome(parsed, files(*parsed.values("-o", "-O", "--log-file", "--LOG-FILE")))


_FILE = Spec("bcCdE:e:f:F:hiklLm:nNprsSvzZ0P:", ("compile", "magic-file="), lenient=True)


def _file(argv: Sequence[str]) -> list[str]:
    """``file -C`` compiles each ``-m`` magic file into ``FILE.mgc`` (``magic.mgc`` in the
    working directory without ``-m``); nothing else of file's writes."""
    parsed = parse(_FILE, argv)
    if not parsed.has("-C", "--compile"):
        return outcome(parsed, [])
    magic = [part for value in parsed.values("-m", "--magic-file") for part in value.split(":")]
    return outcome(parsed, [part + ".mgc" for part in magic] or ["magic.mgc"])


_PANDOC = Spec("f:r:t:w:o:d:F:L:M:V:D:H:B:A:c:T:", (
    "output=", "extract-media=", "log=", "defaults=", "filter=", "lua-filter=",
    "pdf-engine=", "pdf-engine-opt="), lenient=True,
    writing=frozenset({"--output", "--extract-media", "--log", "--defaults", "--filter",
                       "--lua-filter", "--pdf-engine", "--pdf-engine-opt"}))


def _pandoc(argv: Sequence[str]) -> list[str]:
    """``-o F``, ``--log=F`` and ``--extract-media=DIR``; a defaults file (``-d``) or a PDF
    engine of the caller's choosing is unknown."""
    parsed = parse(_PANDOC, argv)
    writes = files(*parsed.values("-o", "--output", "--log"))
    writes += [folder(value) for value in parsed.values("--extract-media")]
    if parsed.has("-d", "--defaults", "--pdf-engine", "--pdf-engine-opt", "-F", "--filter",
                  "-L", "--lua-filter"):
        writes.append(UNNAMED)
    return outcome(parsed, writes)


#: openssl options that name ``out`` but take no value.
_OPENSSL_FLAGS = frozenset({"-noout", "-pubout", "-pk7out", "-RSAPublicKey_out", "-text_out",
                            "-no_out", "-outform"})
#: openssl options that load code or a configuration that may (engines, providers).
_OPENSSL_LOADS = frozenset({"-engine", "-provider", "-provider-path", "-config",
                            "-CAcreateserial", "-keygen_engine", "-ssl_config"})


#: openssl options whose value is a file written, though their name has no ``out``.
_OPENSSL_WRITES = frozenset({"-writerand", "-CAserial", "-keylogfile", "-msgfile",
                             "-sess_file"})


def _openssl(argv: Sequence[str]) -> list[str]:
    """Every option whose name holds ``out`` (``-out``, ``-keyout``, ``-certout``,
    ``-sess_out``, ``-outdir``...) writes the next word, as do those of
    :data:`_OPENSSL_WRITES`; engines, providers and configuration files are unknown."""
    writes: list[str] = []
    for i, word in enumerate(argv[2:], 2):
        head = word.split("=", 1)[0]
        value = argv[i + 1] if i + 1 < len(argv) else ""
        if head in _OPENSSL_LOADS:
            writes.append(UNNAMED)
        elif head.startswith("-") and head not in _OPENSSL_FLAGS and (
                "out" in head or head in _OPENSSL_WRITES):
            writes += files(word.split("=", 1)[1] if "=" in word else value)
    return writes


def _dos2unix(argv: Sequence[str]) -> list[str]:
    """dos2unix converts its operands in place (``-n IN OUT`` writes OUT); ``-i`` only reports."""
    if any(word in ("-i", "--info") or word.startswith("--info=") for word in argv[1:]):
        return []
    return operands(argv, "cDf")


def _yq(argv: Sequence[str]) -> list[str]:
    """``yq -i``/``--inplace`` rewrites its files; ``-s``/``--split-exp`` writes files its
    expression names."""
    words = [word for word in argv[1:] if word.startswith("-") and not word.startswith("--")]
    longs = [word.split("=", 1)[0] for word in argv[1:] if word.startswith("--")]
    writes: list[str] = []
    if any("i" in word[1:] for word in words) or {"--inplace", "--in-place"} & set(longs):
        writes += operands(argv)
    if any("s" in word[1:] for word in words) or "--split-exp" in longs:
        writes.append(UNNAMED)
    return writes


_SCP = Spec("346ABCOpqRrsTvc:D:F:i:J:l:o:P:S:X:", writing=frozenset({"-S"}))


def _scp(argv: Sequence[str]) -> list[str]:
    """scp writes its last operand when that is a local path (``host:path`` is remote)."""
    parsed = parse(_SCP, argv)
    last = parsed.operands[-1:] if len(parsed.operands) > 1 else []
    local = [place for place in last if ":" not in place.split("/", 1)[0]]
    return outcome(parsed, files(*local) + ([UNNAMED] if parsed.has("-S") else []))


_BASE64 = Spec("bDdi:o:w:", ("decode", "ignore-garbage", "wrap=", "break=", "input=",
                             "output=", "help", "version"), lenient=True)


def _base64(argv: Sequence[str]) -> list[str]:
    """BSD base64's ``-o F``/``--output=F`` (GNU's writes only to standard output)."""
    parsed = parse(_BASE64, argv)
    return outcome(parsed, files(*parsed.values("-o", "--output")))


_MKTEMP = Spec("dqtup:", ("directory", "dry-run", "quiet", "suffix=", "tmpdir", "help",
                          "version"))


def _mktemp(argv: Sequence[str]) -> list[str]:
    """mktemp creates its template (``X``s replaced: ``T*``), in ``-p DIR``/``--tmpdir=DIR``;
    in ``$TMPDIR`` (``-t``, ``--tmpdir`` alone, or no template), which this reader cannot
    see; ``-u`` only prints a name.  In a directory the template is joined to it, so a
    template that climbs (``-p . ../x.XXX`` makes ``../x.abc``) is measured where it lands."""
    parsed = parse(_MKTEMP, argv)
    if parsed.has("-u", "--dry-run"):
        return outcome(parsed, [])
    places = [value for value in parsed.values("-p", "--tmpdir") if value]
    if places:
        names = [name.rstrip("X") + "*" for name in parsed.operands] or [""]
        return outcome(parsed, [folder(place) + name for place in places for name in names])
    if parsed.operands and not parsed.has("-t", "--tmpdir"):
        return outcome(parsed, [name.rstrip("X") + "*" for name in parsed.operands])
    return [UNNAMED]


def _xmllint(argv: Sequence[str]) -> list[str]:
    """xmllint writes ``-o F``/``--output F``; its ``--shell`` can write any file."""
    writes: list[str] = []
    for i, word in enumerate(argv[1:], 1):
        head, eq, value = word.partition("=")
        if head in ("-o", "--output", "-output"):
            writes += [value] if eq else argv[i + 1:i + 2]
        elif head in ("--shell", "-shell"):
            writes.append(UNNAMED)
    return files(*writes)


_READERS: Mapping[str, Callable[[Sequence[str]], list[str]]] = {
    "sort": _sort, "uniq": _second_operand(_UNIQ), "xxd": _xxd, "tree": _tree,
    "split": _split, "csplit": _csplit, "patch": _patch, "curl": _curl, "wget": _wget,
    "shuf": _output_option(_SHUF), "iconv": _output_option(_ICONV),
    "sdiff": _output_option(_SDIFF, "--diff-program"), "less": _less, "file": _file,
    "scp": _scp, "base64": _base64, "mktemp": _mktemp,
}
#: Programs whose writes :func:`outputs` names completely (a closed-world reading, or a
#: lenient one after every option was reviewed): the lease layer needs nothing more.
MODELED = frozenset(_READERS) | frozenset(ARCHIVERS) | COMPRESSORS
_OTHERS: Mapping[str, Callable[[Sequence[str]], list[str]]] = {
    "pandoc": _pandoc, "openssl": _openssl, "dos2unix": _dos2unix, "unix2dos": _dos2unix,
    "mac2unix": _dos2unix, "unix2mac": _dos2unix, "yq": _yq, "xmllint": _xmllint,
    **SCRIPTED,
}


def _known(name: str) -> str:
    """The table's name for ``name`` (a basename, case folded): itself, or without a
    trailing version (``shuf9``, ``tar1.35``; ``bzip2`` and ``lz4`` keep theirs)."""
    if name in MODELED or name in _OTHERS:
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
    if base in COMPRESSORS:
        return compressed(base, argv)
    reader = _READERS.get(base) or ARCHIVERS.get(base) or _OTHERS.get(base)
    return None if reader is None else reader(argv)
