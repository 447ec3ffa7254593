"""What archivers and compressors write, for :mod:`mcp_client.policy._outputs`.

``tar -x`` writes into ``-C DIR`` or the working directory, ``tar -c -f A`` writes
``A`` (``gtar`` and ``bsdtar`` are read as tar), ``unzip`` into ``-d DIR``, ``zip A
F`` writes ``A`` (and deletes ``F`` with ``-m``), ``7z x -oDIR``, ``cpio -i`` into
``-D DIR``, ``ar x`` into the working directory, and ``gzip F`` replaces ``F`` with
``F.gz``.  Each function
here answers with the places one argv writes, read closed-world as
:mod:`mcp_client.policy._getopt` explains.  Pure.
"""

from __future__ import annotations

from typing import Callable, Mapping, Sequence

from ._getopt import UNNAMED, Spec, files, folder, outcome, parse

__all__ = ["ARCHIVERS", "COMPRESSORS", "compressed"]

_TAR = Spec("AcdrtuxzjJaZvkUmpoOhPWSsiGMlwBRnf:C:b:T:X:g:K:N:V:L:H:I:F:", (
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
    if len(argv) < 2 or argv[1].startswith("-") or not argv[1].isalnum():
        return list(argv)           # (a digit is a tape density: unknown to the table)
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
    parsed = parse(_TAR, _tar_argv(argv))
    archives = parsed.values("-f", "--file")
    writes: list[str] = []
    if parsed.has(*_TAR_ARCHIVE):
        writes += files(*archives)
    places = parsed.values("-C", "--directory")
    places += [place for place in parsed.values("--one-top-level") if place]
    if parsed.has(*_TAR_EXTRACT) and not parsed.has("-O", "--to-stdout"):
        writes += [folder(place) for place in places or ["."]]
        if parsed.has("-P", "--absolute-names") or (
                len(places) > 1 and not all(place.startswith("/") for place in places[1:])):
            writes.append(UNNAMED)
    writes += files(*parsed.values("-g", "--listed-incremental", "--index-file", "--volno-file"))
    if parsed.has("--remove-files"):
        writes += parsed.operands if not places else [UNNAMED]
    if parsed.has(*_TAR_UNFOLLOWED) or any(":" in archive.split("/", 1)[0]
                                           for archive in archives):
        writes.append(UNNAMED)
    return outcome(parsed, writes)


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
    writes = [folder(place) for place in places or ["."]]
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
    writes = files(*operands[:1])
    writes += files(*(value for letter, value in options if letter == "O"))
    writes += [folder(value) for letter, value in options if letter == "b" and value]
    if "m" in letters:
        writes += operands[1:] + ([UNNAMED] if "@" in letters else [])
    if "TT" in letters:
        writes.append(UNNAMED)
    return writes + [UNNAMED] if unknown else writes


_GZIP = Spec("acdfhklLnNqrtvV123456789S:b:p:", (
    "ascii", "stdout", "to-stdout", "decompress", "uncompress", "force", "help", "keep", "list",
    "license", "no-name", "name", "quiet", "recursive", "rsyncable", "suffix=", "synchronous",
    "test", "verbose", "version", "fast", "best", "processes=", "blocksize=", "independent"))
_BZIP2 = Spec("cdzfkstqvLV123456789", (
    "decompress", "compress", "keep", "force", "test", "stdout", "quiet", "verbose", "license",
    "version", "small", "fast", "best", "help"))
_XZ = Spec("zdtlkfcqvhHVe0123456789F:C:S:T:M:", (
    "compress", "decompress", "uncompress", "test", "list", "keep", "force", "stdout",
    "to-stdout", "single-stream", "no-sparse", "suffix=", "format=", "check=", "threads=",
    "memlimit=", "memlimit-compress=", "memlimit-decompress=", "memory=", "no-adjust",
    "quiet", "verbose", "help", "long-help", "version", "extreme", "fast", "best",
    "block-size=", "ignore-check", "robot", "files=", "files0="),
    writing=frozenset({"--files", "--files0"}))
_ZSTD = Spec("zdcflkqvhHVrt0123456789o:D:T:B:M:", (
    "compress", "decompress", "uncompress", "stdout", "force", "keep", "rm", "quiet", "verbose",
    "help", "version", "test", "list", "ultra", "long", "fast", "single-thread", "threads=",
    "adapt", "rsyncable", "no-progress", "progress", "sparse", "no-sparse", "check",
    "no-check", "output-dir-flat=", "output-dir-mirror=", "format=", "memory=",
    "content-size", "no-content-size", "exclude-compressed", "patch-from="),
    writing=frozenset({"--output-dir-flat", "--output-dir-mirror"}))
_LZ4 = Spec("zdcflkqvhHVmrt0123456789B:", (
    "compress", "decompress", "uncompress", "stdout", "to-stdout", "force", "keep", "rm",
    "quiet", "verbose", "help", "version", "test", "list", "multiple", "favor-decSpeed",
    "best", "fast", "content-size", "no-frame-crc", "sparse", "no-sparse", "frame-crc"),
    digits=True)
#: Each program, and how it reads: its option table and whether ``IN OUT`` is a pair.
_COMPRESSORS: dict[str, tuple[Spec, bool]] = {
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


def compressed(base: str, argv: Sequence[str]) -> list[str]:
    """gzip and its kin replace each operand (``-r``: everything under it) unless they write
    to standard output (``-c``, ``-l``, ``-t``); ``zstd -o F`` and ``--output-dir-*``;
    ``lz4 IN OUT``.  zstd takes the last of ``-c`` and ``-o F`` (``zstd -c f -o F`` writes
    ``F``), so ``-o F`` is written whatever else is given."""
    spec, pair = _COMPRESSORS[base]
    parsed = parse(spec, argv)
    operands = files(*parsed.operands)
    if parsed.has(*_TO_STDOUT):
        return outcome(parsed, files(*parsed.values("-o")))
    if pair and not parsed.has("-m", "--multiple") and len(operands) == 2:
        return outcome(parsed, operands[1:])
    writes = files(*parsed.values("-o"))
    writes += [folder(value) for value in parsed.values("--output-dir-flat", "--output-dir-mirror")]
    if not writes:
        recursive = parsed.has("-r", "--recursive")
        writes = [place for operand in operands
                  for place in ([folder(operand)] if recursive else _replaced(operand))]
    if parsed.has("--files", "--files0"):
        writes.append(UNNAMED)
    return outcome(parsed, writes)


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
    operands = [word for word in words if not word.startswith("-") or word == "-"]
    command = operands[0].lower() if operands else ""
    writes: list[str] = []
    if command in _SEVEN_ARCHIVE:
        writes += files(*operands[1:2])
    elif command in ("e", "x") and "-so" not in switches:
        writes += [folder(s[2:]) for s in switches if s.startswith("-o") and s[2:]] or ["./"]
    elif command not in _SEVEN_READS:
        writes.append(UNNAMED)
    writes += [folder(s[2:]) for s in switches if s.startswith("-w") and s[2:]]
    if "-sdel" in switches:
        writes += operands[2:] or [UNNAMED]
    if any(not s.startswith(_SEVEN_SWITCHES) or s.startswith("-spf") for s in switches):
        writes.append(UNNAMED)
    return writes


_CPIO = Spec("oipt0aAbBcdfklLmnrsSuvVD:F:O:I:H:C:E:M:R:W:", (
    "create", "extract", "pass-through", "list", "directory=", "file=", "format=", "io-size=",
    "pattern-file=", "owner=", "message=", "rsh-command=", "no-absolute-filenames",
    "absolute-filenames", "make-directories", "unconditional", "preserve-modification-time",
    "verbose", "dot", "reset-access-time", "swap", "swap-bytes", "swap-halfwords",
    "nonmatching", "link", "dereference", "numeric-uid-gid", "rename", "quiet", "sparse",
    "only-verify-crc", "to-stdout", "null", "append", "device-independent", "ignore-devno",
    "renumber-inodes", "warning=", "block-size=", "force-local", "no-preserve-owner", "help",
    "usage", "version"), writing=frozenset({"--directory", "--file", "--rsh-command",
                                            "--extract", "--create", "--pass-through",
                                            "--append", "--absolute-filenames"}))


def _cpio(argv: Sequence[str]) -> list[str]:
    """cpio writes its archive (``-o``/``-A``: ``-F``/``-O`` F), extracts into ``-D DIR``
    or the working directory (``-i``; GNU cpio keeps absolute names unless
    ``--no-absolute-filenames``, so they are unknown), and copies into the directory it
    is given (``-p DIR``).  Listing (``-t``), ``--to-stdout`` and ``--only-verify-crc``
    write nothing."""
    parsed = parse(_CPIO, argv)
    writes: list[str] = []
    if parsed.has("-o", "--create", "-A", "--append"):
        writes += files(*parsed.values("-F", "--file", "-O"))
    places = parsed.values("-D", "--directory")
    if parsed.has("-i", "--extract") and not parsed.has(
            "-t", "--list", "--to-stdout", "--only-verify-crc"):
        writes += [folder(place) for place in places or ["."]]
        if not parsed.has("--no-absolute-filenames"):
            writes.append(UNNAMED)
    if parsed.has("-p", "--pass-through"):
        writes += [folder(place) for place in parsed.operands[-1:]] or [UNNAMED]
    archives = parsed.values("-F", "--file", "-O", "-I")
    if parsed.has("--rsh-command") or any(":" in name.split("/", 1)[0] for name in archives):
        writes.append(UNNAMED)
    return outcome(parsed, writes)


_AR_OPERATIONS = "dmpqrstx"
_AR_MODIFIERS = "abciDfloNOPsSTuUvV"


def _ar(argv: Sequence[str]) -> list[str]:
    """``ar KEY ARCHIVE [MEMBER...]`` (the key with or without a dash): ``x`` extracts into
    the working directory (or ``--output DIR``; with ``P``, full path names: unknown),
    ``d``, ``m``, ``q``, ``r``, ``s`` write the archive, ``t`` and ``p`` only read.  A
    ``--`` option other than ``--output`` is unknown."""
    words = list(argv[1:])
    out: list[str] = []
    unknown = False
    while words and words[0].startswith("--"):
        head, eq, value = words.pop(0).partition("=")
        if head == "--output":
            out.append(value if eq else (words.pop(0) if words else ""))
        else:
            unknown = True
    if not words:
        return [UNNAMED] if unknown else []
    key, operands = words[0].lstrip("-"), words[1:]
    operation = [letter for letter in key if letter in _AR_OPERATIONS]
    unknown = unknown or len(operation) != 1 or any(
        letter not in _AR_OPERATIONS + _AR_MODIFIERS for letter in key)
    skip = sum(letter in "abiN" for letter in key)        # a relpos member, a count
    archive = operands[skip:skip + 1]
    writes: list[str] = []
    if "x" in operation:
        writes += [folder(place) for place in out or ["."]] + ([UNNAMED] if "P" in key else [])
    elif set(operation) & set("dmqrs"):
        writes += files(*archive)
    return writes + [UNNAMED] if unknown else writes


#: Archivers, by program name.
ARCHIVERS: Mapping[str, Callable[[Sequence[str]], list[str]]] = {
    "tar": _tar, "gtar": _tar, "bsdtar": _tar, "unzip": _unzip, "zip": _zip, "7z": _seven,
    "7za": _seven, "7zr": _seven, "7zz": _seven, "cpio": _cpio, "ar": _ar}
#: Compressors, by program name.
COMPRESSORS = frozenset(_COMPRESSORS)
