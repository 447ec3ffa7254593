"""What the shell reader knows about particular programs: names, options, what they run.

Pure tables and small functions for :mod:`mcp_client.policy._shell` (which
reads text into simple commands) and :mod:`mcp_client.policy._checks` (which
judges them).  Nothing here parses shell text; everything here answers a
question about one argv.

The rule it serves: a program whose behaviour depends on something this
module cannot follow -- inline code (``python3 -c``), an option that runs a
command (``tar --to-command``, ``rsync -e``, ``git rebase -x``), git
configuration given on the command line (``git -c``), a git subcommand that
is not a built-in (an alias, or a ``git-*`` program on ``PATH``), a runner
it cannot follow (``npx``, ``uv run``, ``docker exec``, ``tmux``) -- is
reported as such, so the reader can add an *unknown* command beside it.
Runners it can follow are read by :mod:`mcp_client.policy._runners`; a program
it does not know at all is not thereby harmless: :func:`suspect_commands`
names the words of its argv from which it may run ``rm``, ``git`` or a shell.
``sed`` scripts are read as GNU sed 4.9 reads them, in one linear pass.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Sequence

from . import _sed as sed
from ._getopt import abbreviates
from ._outputs import UNNAMED, outputs
from ._runners import MULTIPLEXERS, WRAPPERS

__all__ = ["program", "versionless", "fold", "SHELLS", "SHELL_C", "WRAPPERS", "RESERVED",
           "MULTIPLEXERS", "CHANGES_DIRECTORY", "dashed_git", "abbreviates", "long_options",
           "short_flag", "options", "git_split", "git_places", "GIT_SUBCOMMANDS", "GIT_SYNONYMS",
           "runs_unfollowed", "shell_text", "writes_of", "suspect_commands"]

_VERSION = re.compile(r"[0-9.]+$")

#: Programs that run code read from their standard input (names compared after
#: a trailing version number is dropped and case folded: ``python3.12``, ``PYPY3``);
#: ``at``, ``batch`` and ``crontab -`` run it later, ``script`` as a session.
SHELLS = frozenset({
    "sh", "bash", "rbash", "dash", "zsh", "rzsh", "ksh", "rksh", "mksh", "lksh", "oksh",
    "pdksh", "yash", "posh", "csh", "tcsh", "fish", "ash", "elvish", "xonsh", "nu", "osh",
    "ysh", "rc", "es", "busybox", "toybox", "python", "pypy", "perl", "ruby", "irb", "node",
    "nodejs", "deno", "bun", "php", "pwsh", "powershell", "cmd", "lua", "luajit", "tclsh",
    "wish", "expect", "osascript", "rscript", "r", "julia", "jshell", "scala", "groovy",
    "sqlite", "dc", "ed", "ex", "gdb", "at", "batch", "crontab", "script", "parallel", "ssh",
    "newgrp"})
#: Shells whose ``-c TEXT`` this reader follows.
SHELL_C = frozenset({"sh", "bash", "rbash", "dash", "zsh", "rzsh", "ksh", "rksh", "mksh",
                     "lksh", "oksh", "pdksh", "yash", "posh", "ash", "fish", "csh", "tcsh"})
#: Long options a POSIX-family shell takes without a value (bash's, zsh's common ones).
_SHELL_FLAGS = frozenset({"--login", "--noprofile", "--norc", "--posix", "--restricted",
                          "--verbose", "--noediting", "--debugger", "--dump-strings",
                          "--dump-po-strings", "--pretty-print", "--no-rcs", "--help",
                          "--version", "--private", "--no-config", "--interactive"})

#: Words that make the command position mean something else entirely, builtins that
#: change what later commands run (``hash -p``, ``export PATH=``, ``enable -f``,
#: ``source``, ``fc -e``, ``complete -C``, ``unalias``), and builtins that assign
#: variables, evaluate their words as arithmetic (an array subscript there runs
#: ``$(...)``: ``let 'x[$(cmd)]=1'``), run a callback (``mapfile -C``) or a command
#: (``jobs -x``), or write a file (``history -w``).
RESERVED = frozenset({"if", "then", "else", "elif", "fi", "do", "done", "while", "until",
                      "for", "case", "esac", "select", "function", "coproc", "{", "}", "!",
                      "[[", "]]", "alias", "su", "hash", "enable", "source", ".", "declare",
                      "typeset", "export", "readonly", "shopt", "fc", "complete", "compgen",
                      "compopt", "unalias", "let", "local", "mapfile", "readarray", "unset",
                      "getopts", "jobs", "history", "bind"})
#: Programs after which a relative path no longer means what it did.
CHANGES_DIRECTORY = frozenset({"cd", "pushd", "popd", "chdir"})

#: git's built-in subcommands (git 2.39-2.47).  Any other is an alias or a
#: ``git-*`` program found on ``PATH``: not something this reader can follow.
GIT_SUBCOMMANDS = frozenset("""
add am annotate apply archive backfill bisect blame branch bugreport bundle cat-file
check-attr check-ignore check-mailmap check-ref-format checkout checkout-index cherry
cherry-pick citool clean clone column commit commit-graph commit-tree config count-objects
credential describe diagnose diff diff-files diff-index diff-tree difftool fast-export
fast-import fetch fetch-pack filter-branch fmt-merge-msg for-each-ref for-each-repo
format-patch fsck gc get-tar-commit-id grep gui hash-object help hook index-pack init
instaweb interpret-trailers log ls-files ls-remote ls-tree mailinfo mailsplit maintenance
merge merge-base merge-file merge-tree mktag mktree multi-pack-index mv name-rev notes
pack-objects pack-refs prune prune-packed pull push range-diff read-tree rebase reflog
refs remote repack replace replay request-pull rerere reset restore rev-list rev-parse
revert rm send-email send-pack shortlog show show-branch show-index show-ref
sparse-checkout stage stash status stripspace submodule switch symbolic-ref tag unpack-objects
update-index update-ref update-server-info var verify-commit verify-pack verify-tag
version whatchanged worktree write-tree""".split())

#: git subcommands that do what another one does, under the other's name to a rule
#: or a check: ``git send-pack --force R main`` is a force push, ``git stage`` is ``git add``.
GIT_SYNONYMS = {"send-pack": "push", "stage": "add"}

#: git's options before the subcommand: without a value, and with one
#: (``-C dir`` or ``--git-dir=dir``).  ``-c``, ``--config-env`` and
#: ``--exec-path=`` change what runs; any other option is unknown.
_GIT_FLAGS = frozenset({"-p", "--paginate", "-P", "--no-pager", "--bare",
                        "--no-replace-objects", "--literal-pathspecs", "--glob-pathspecs",
                        "--noglob-pathspecs", "--icase-pathspecs", "--no-optional-locks",
                        "--no-advice", "--no-lazy-fetch", "--html-path", "--man-path",
                        "--info-path", "--exec-path", "-v", "--version", "-h", "--help"})
_GIT_VALUED = frozenset({"-C", "--git-dir", "--work-tree", "--namespace", "--super-prefix",
                         "--list-cmds", "--attr-source"})
_GIT_CONFIGURING = frozenset({"-c", "--config-env", "--exec-path"})

#: Options that make a program run a command or code this reader does not follow,
#: long ones matched as any prefix git and GNU getopt would accept.
_RUNS_OPTIONS: dict[str, tuple[tuple[str, ...], str]] = {
    # program: (long options, short option letters)
    "tar": (("--to-command", "--checkpoint-action", "--use-compress-program",
             "--rsh-command", "--info-script", "--new-volume-script"), "IF"),
    "rsync": (("--rsh", "--rsync-path"), "e"),
    "zip": (("--unzip-command",), "T"),       # (-TT CMD: -T's test command)
    "make": (("--eval",), ""),
    "vim": (("--cmd",), "c"), "vi": (("--cmd",), "c"), "nvim": (("--cmd",), "c"),
    "view": (("--cmd",), "c"), "ex": (("--cmd",), "c"),
    "python": ((), "c"), "pypy": ((), "c"),
    "perl": ((), "eE"), "ruby": ((), "e"), "lua": ((), "e"), "luajit": ((), "e"),
    "node": (("--eval", "--print"), "ep"), "nodejs": (("--eval", "--print"), "ep"),
    "bun": (("--eval", "--print"), "ep"), "php": ((), "rRBEF"), "osascript": ((), "e"),
    "rscript": (("--expr",), "e"), "julia": (("--eval", "--print"), "eE"), "expect": ((), "c"),
    "tclsh": ((), ""), "jshell": ((), ""), "script": (("--command",), "c"),
    # readers that run a program of the caller's choosing on what they read
    "rg": (("--pre",), ""), "sort": (("--compress-program",), ""),
    "man": (("--pager", "--html"), "PH"), "scp": ((), "So"), "sftp": ((), "SoD"),
    "wget": (("--use-askpass",), ""), "pandoc": (("--filter", "--lua-filter"), "FL"),
    "emacs": (("--eval", "--load", "--funcall"), "lf"),
    # runners of a command given by an option, or of commands in a file
    "dpkg-architecture": (("--command",), "c"), "at": ((), "f"), "batch": ((), "f"),
}
#: Pagers whose ``+COMMANDS`` word runs pager commands (``+!rm -rf x`` is a shell command).
_PAGERS = frozenset({"less", "more", "most"})
#: git subcommands with options that run a command.
_GIT_RUNS: dict[str, tuple[tuple[str, ...], str]] = {
    "push": (("--receive-pack", "--exec"), ""),
    "send-pack": (("--receive-pack", "--exec"), ""),
    "fetch": (("--upload-pack",), ""), "pull": (("--upload-pack",), ""),
    "clone": (("--upload-pack", "--template", "--config"), "uc"),
    "ls-remote": (("--upload-pack",), ""), "archive": (("--exec",), ""),
    "rebase": (("--exec",), "x"), "difftool": (("--extcmd",), "x"),
    "grep": (("--open-files-in-pager",), "O"), "submodule": (("foreach",), ""),
    "bisect": (("run",), ""),
    "config": (("--edit",), "e"), "init": (("--template",), ""),
    "instaweb": (("--httpd", "--browser"), ""),
    "send-email": (("--to-cmd", "--cc-cmd", "--sendmail-cmd", "--smtp-server"), ""),
}
#: Programs that run any argument at all as a command of their own language.
#: (``ssh HOST TEXT`` runs TEXT as shell on another machine.)
_ALWAYS_CODE = frozenset({"pwsh", "powershell", "cmd", "deno", "sqlite", "gdb", "dc", "ssh",
                          "crontab"})
#: Programs that run a command of their own or one named by their words, in a way this
#: reader does not follow, whatever they are given: package runners that fetch what they
#: run (``npx``), benchmark and session runners that take shell text (``hyperfine``),
#: daemons that start what their options name, ``sg`` (its command is one shell word) and
#: ``newgrp`` (a new shell).
_RUNS_ALWAYS = frozenset("""
npx uvx pnpx bunx hyperfine start-stop-daemon daemonize reptyr sg newgrp run-one runit
s6-setuidgid with-lock-ex rlwrap proot fakechroot schroot lxc-attach systemd-nspawn
nix-shell direnv flatpak-spawn distrobox-enter tsp pee lckdo cpulimit trickle aa-exec
sandbox-exec arch ccache sccache distcc icecc tini dumb-init gosu su-exec setuidgid
envdir softlimit setlock rr uftrace sshpass nocache torify mpirun mpiexec srun salloc
ifne heaptrack""".split())
#: Programs whose subcommand (any operand word, so a value of an option before it counts
#: too) runs a command: ``uv run CMD``, ``docker exec C CMD``, ``ip netns exec NS CMD``.
_RUNS_SUBCOMMANDS: dict[str, frozenset[str]] = {
    name: frozenset(words.split()) for name, words in {
        "uv": "run tool", "npm": "exec x explore", "pnpm": "dlx exec", "yarn": "dlx exec",
        "bun": "x exec", "pipx": "run runpip", "poetry": "run shell", "pdm": "run",
        "hatch": "run shell", "conda": "run", "mamba": "run", "micromamba": "run",
        "docker": "exec run create start compose container build buildx builder plugin",
        "podman": "exec run create start compose container build buildx play",
        "nerdctl": "exec run create start compose container build",
        "kubectl": "exec run debug plugin", "oc": "exec run debug rsh plugin",
        "ip": "netns exec -b -batch -force", "systemctl": "edit",
        "nix": "run develop shell", "machinectl": "shell login", "pueue": "add",
        "flatpak": "run", "snap": "run", "toolbox": "run", "devbox": "run",
        "vagrant": "ssh", "libtool": "--mode=execute --mode=exe", "sbatch": "--wrap",
    }.items()}
#: Programs that run commands for all but a few subcommands (the first word after the
#: program): ``tmux new-session CMD``, ``tmux send-keys``, ``screen CMD``, ``perf stat CMD``.
_SAFE_SUBCOMMANDS: dict[str, frozenset[str]] = {
    name: frozenset(words.split()) for name, words in {
        "tmux": "ls list-sessions list-windows list-panes list-clients list-buffers "
                "list-keys list-commands has-session has -V",
        "screen": "-ls -list -v --version",
        "perf": "list report annotate diff evlist version --version help buildid-list",
    }.items()}
#: ``make VAR=value``: a variable on the command line replaces the makefile's (``SHELL``,
#: ``CC``, any variable a recipe runs).
_MAKE_VARIABLE = re.compile(r"^[^-=\s][^=\s]*[:+?!]?=")
#: awk's program text may run commands or write files with these.
_AWK = frozenset({"awk", "gawk", "mawk", "nawk"})
_AWK_RUNS = ("system", "|", ">", "@load", "@include")


def program(argv: Sequence[str] | None) -> str | None:
    """The basename of the program ``argv`` runs, or ``None`` when it cannot be named.

    A program name with a backslash, a glob character (quoted or not), a
    trailing ``/``, a Windows executable suffix (``.exe``, ``.cmd``, ``.bat``,
    ``.com``), a ``{}`` placeholder, or characters that Unicode NFKC
    normalisation changes (fullwidth ``ｒｍ``) is unknown.
    """
    if not argv:
        return None
    head = argv[0]
    if not head or "\\" in head or any(char in head for char in "*?[") or head.endswith("/"):
        return None
    name = head.rsplit("/", 1)[-1]
    if name.lower().endswith((".exe", ".cmd", ".bat", ".com")) or "{}" in name:
        return None
    if unicodedata.normalize("NFKC", name) != name:
        return None
    return name


def dashed_git(name: str) -> str | None:
    """The git subcommand a dashed program runs (``git-push``, ``/usr/lib/git-core/git-reset``
    are ``git push`` and ``git reset``), compared case folded; ``None`` for any other."""
    folded = fold(name)
    sub = folded[4:] if folded.startswith("git-") else ""
    return sub if sub in GIT_SUBCOMMANDS else None


def versionless(name: str) -> str:
    """``name`` without a trailing version number (``python3.12`` is ``python``)."""
    return _VERSION.sub("", name) or name


def fold(word: str) -> str:
    """``word`` as a case-insensitive filesystem would see it (NFKC, case folded)."""
    return unicodedata.normalize("NFKC", word).casefold()


def options(argv: Sequence[str]) -> list[str]:
    """The option words of ``argv`` after the program (those before a ``--``)."""
    found = []
    for word in argv[1:]:
        if word == "--":
            break
        if word.startswith("-") and word != "-":
            found.append(word)
    return found


def long_options(argv: Sequence[str], names: Sequence[str], *, shortest: int = 1) -> bool:
    """Whether any option of ``argv`` abbreviates one of ``names``."""
    return any(abbreviates(word, names, shortest=shortest) for word in options(argv))


def short_flag(argv: Sequence[str], letters: str) -> bool:
    """Whether a short option (``-f``) or cluster (``-rf``) of ``argv`` holds one of ``letters``."""
    return any(not opt.startswith("--") and any(ch in opt[1:] for ch in letters)
               for opt in options(argv))


def git_split(argv: Sequence[str]) -> tuple[str | None, list[str], bool]:
    """``(subcommand, its arguments, doubtful)`` of a git argv, git's own options skipped.

    ``doubtful`` is true when an option before the subcommand changes what
    git runs (``-c``, ``--config-env``, ``--exec-path=``) or is not one of
    git's: the subcommand may then mean anything.
    """
    i, doubtful = 1, False
    while i < len(argv):
        word = argv[i]
        head, eq, _ = word.partition("=")
        if word in _GIT_FLAGS:
            i += 1
        elif head in _GIT_VALUED or head in _GIT_CONFIGURING:
            doubtful = doubtful or head in _GIT_CONFIGURING
            i += 1 if eq else 2
        elif word.startswith("-"):
            return None, [], True               # not git's: it may take a value, or anything
        else:
            return word, list(argv[i + 1:]), doubtful
    return None, [], doubtful


#: git's options that say which repository and work tree it reads (and so whose
#: configuration, hooks and attributes it runs).
_GIT_PLACES = frozenset({"-C", "--git-dir", "--work-tree"})


def git_places(argv: Sequence[str]) -> list[tuple[str, str]]:
    """``(option, directory)`` for each ``-C``, ``--git-dir`` and ``--work-tree`` of a git
    argv before its subcommand, in order (``-C`` values nest: each is relative to the one
    before).  A missing value is ``""``."""
    found: list[tuple[str, str]] = []
    i = 1
    while i < len(argv):
        word = argv[i]
        head, eq, value = word.partition("=")
        if word in _GIT_FLAGS:
            i += 1
            continue
        if head not in _GIT_VALUED and head not in _GIT_CONFIGURING:
            break
        if not eq:
            value = argv[i + 1] if i + 1 < len(argv) else ""
        if head in _GIT_PLACES and not (head == "-C" and eq):
            found.append((head, value))
        i += 1 if eq else 2
    return found


_SHELL_FILES = ("--rcfile", "--init-file", "--init-command")


def shell_text(argv: Sequence[str]) -> tuple[str | None, bool]:
    """What a shell argv runs: ``(TEXT, doubtful)`` for ``-c TEXT``; ``(None, doubtful)``
    for a script file or standard input.  ``doubtful`` when it also runs code this
    reader does not follow, or its options cannot be read: ``--rcfile F``,
    ``--init-file F``, fish's ``-C``/``--init-command``, an unknown long option, or
    ``-c`` with nothing after it."""
    has_c, doubtful = False, False
    fish = versionless(fold(program(argv) or "")) == "fish"
    i = 1
    while i < len(argv):
        word = argv[i]
        if word == "--":
            i += 1
            break
        if word in ("-", "+") or not word.startswith(("-", "+")):
            break
        head, eq, value = word.partition("=")
        if head == "--command" and fish:
            return (value, False) if eq else _word_after(argv, i)
        if head in _SHELL_FILES:
            doubtful = True
            i += 1 if eq else 2
            continue
        if word.startswith("--"):
            doubtful = doubtful or head not in _SHELL_FLAGS
        elif word in ("-o", "+o", "-O", "+O"):
            i += 1
        elif "C" in word[1:] and fish:
            doubtful = True
        elif "c" in word[1:]:
            has_c = True
        i += 1
    if not has_c:
        return None, doubtful
    text, missing = _word_after(argv, i - 1)
    return text, doubtful or missing


def _word_after(argv: Sequence[str], i: int) -> tuple[str | None, bool]:
    return (argv[i + 1], False) if i + 1 < len(argv) else (None, True)


def _runs_by_option(argv: Sequence[str], table: tuple[tuple[str, ...], str]) -> bool:
    names, letters = table
    if any(word in names for word in argv[1:] if not word.startswith("-")):
        return True                                     # ``submodule foreach``, ``bisect run``
    return long_options(argv, [n for n in names if n.startswith("--")]) or (
        bool(letters) and short_flag(argv, letters))


def runs_unfollowed(name: str, argv: Sequence[str]) -> bool:
    """Whether this command runs code or a command this reader does not follow.

    Inline code (``python3 -c``, ``perl -e``, ``node -e``, ``ruby -e``...),
    PowerShell or ``cmd`` given anything, a program that runs a command in a way this
    reader does not follow (``npx``, ``hyperfine``, ``docker exec``, ``uv run``,
    ``tmux new-session``, ``perf stat``, ``make VAR=``: see ``_RUNS_ALWAYS``,
    ``_RUNS_SUBCOMMANDS``, ``_SAFE_SUBCOMMANDS``), awk text that can run or write
    (``system``, ``|``, ``>``), an option that runs a command (see
    ``_RUNS_OPTIONS``), and for git: ``-c``/``--config-env``/``--exec-path=``
    or an unknown option before the subcommand, and subcommand options that
    run a command (``rebase -x``, ``push --receive-pack``, ``submodule
    foreach``...).
    """
    base = versionless(fold(name))
    if base in _ALWAYS_CODE:
        return len(argv) > 1
    if base in _RUNS_ALWAYS:
        return True
    if base in _RUNS_SUBCOMMANDS:
        return bool(set(argv[1:]) & _RUNS_SUBCOMMANDS[base]) or (
            base == "ip" and any(word.startswith("net") for word in argv[1:]))
    if base in _SAFE_SUBCOMMANDS:
        return len(argv) > 1 and argv[1] not in _SAFE_SUBCOMMANDS[base] or (
            base != "perf" and len(argv) == 1)
    if base == "make" and any(_MAKE_VARIABLE.match(word) for word in argv[1:]):
        return True
    if base in _AWK:
        return any(mark in word for word in argv[1:] for mark in _AWK_RUNS)
    if base == "git":
        sub, rest, doubtful = git_split(argv)
        if doubtful or sub == "filter-branch":
            return True
        return sub in _GIT_RUNS and _runs_by_option(["git"] + rest, _GIT_RUNS[sub])
    if base == "sed":
        return sed.runs(argv)
    if base in _PAGERS:
        return any(word.startswith("+") for word in argv[1:])
    table = _RUNS_OPTIONS.get(base)
    return table is not None and _runs_by_option(argv, table)


#: Programs known to take their operands as data, never as a command to run.
_DATA_OPERANDS = frozenset("""
ls cat grep egrep fgrep rg ag head tail wc pwd echo printf stat file du df which type
whereis whatis apropos man info help tldr true false test sort uniq cmp diff date whoami
id uname tree less more realpath readlink basename dirname sleep cut tr jq yq nl od xxd
hexdump md5sum sha1sum sha256sum sha512sum cksum b2sum column comm join paste fold fmt
rev tac seq yes hostname ps pgrep kill killall locale nproc uptime printenv sed awk gawk
mawk rm rmdir unlink shred mkdir touch mv cp ln install tee chmod chown chgrp truncate dd
tar zip unzip gzip gunzip bzip2 xz zstd git apt apt-get apt-cache dpkg dnf yum rpm brew
pip pip3 cd pushd popd hash command builtin exec""".split())
#: Programs whose name, as a later word of an unknown program's argv, is read as the
#: command that program may run (``mytool rm -rf d``): the ones the checks look for.
_RUN_SUSPECTS = frozenset({"rm", "rmdir", "unlink", "shred", "srm", "find", "rsync", "git",
                           "dd", "truncate", "mv", "eval"}) | SHELL_C | frozenset(WRAPPERS)


def suspect_commands(name: str, argv: Sequence[str]) -> list[int]:
    """The indices of the words of an unknown program's argv that name a program the
    checks look for (``rm``, ``git``, ``sh``, ``sudo``...): read from there, each may be
    a command the program runs (``setarch x86_64 rm -rf d``, ``mytool exec rm -rf d``).
    None for a program known to take its operands as data, or to run nothing but what
    the reader already follows."""
    base = versionless(fold(name))
    if base in _DATA_OPERANDS or base in WRAPPERS or base in SHELL_C or dashed_git(name):
        return []
    found = []
    for i, word in enumerate(argv[1:], 1):
        other = program([word])
        if other is not None and (versionless(fold(other)) in _RUN_SUSPECTS
                                  or dashed_git(other)):
            found.append(i)
    return found


def writes_of(name: str, argv: Sequence[str]) -> list[str]:
    """Files a command that is mostly a read writes by an option of its own: git's
    ``--output=F`` (``log``, ``diff``, ``show``...), ``format-patch -o DIR``,
    ``archive -o F`` and what ``init``/``clone``/``bundle create``/``worktree add``
    create (see :func:`_git_operand_writes`), find's
    ``-fprint F`` (``-fprint0``, ``-fprintf``, ``-fls``), the files ``sed -i`` edits,
    and what :func:`mcp_client.policy._outputs.outputs` reads in the argv of ``sort``,
    ``uniq``, ``xxd``, ``tar``, ``curl``, ``gzip``... (an output it cannot name is
    :data:`~mcp_client.policy._outputs.UNNAMED`)."""
    base = versionless(fold(name))
    named = outputs(fold(name), argv)
    if named is not None:
        return named
    if base == "find":
        return [argv[i + 1] if i + 1 < len(argv) else "" for i, word in enumerate(argv)
                if word in ("-fprint", "-fprint0", "-fprintf", "-fls")]
    if base == "sed":
        in_place = any(abbreviates(word, ["--in-place"]) or (
            not word.startswith("--") and "i" in word[1:]) for word in options(argv))
        # a backup suffix with a ``/`` (``-i'../*'``: ``*`` is the file's name) puts the
        # backup in another directory
        moved = any(abbreviates(word, ["--in-place"]) and "/" in word.partition("=")[2] or (
            not word.startswith("--") and "/" in word.partition("i")[2])
            for word in options(argv))
        return sed.scripts(argv)[1] + ([UNNAMED] if moved else []) if in_place else []
    if base != "git":
        return []
    sub, rest, _ = git_split(argv)
    found: list[str] = []
    for i, word in enumerate(rest):
        if word == "--":
            break
        following = rest[i + 1] if i + 1 < len(rest) else ""
        head, eq, value = word.partition("=")
        if head == "--output" or (sub == "format-patch" and abbreviates(
                head, ["--output-directory"], shortest=8)) or (
                sub in ("init", "clone") and head == "--separate-git-dir") or (
                sub == "checkout-index" and head == "--prefix"):
            found.append(value if eq else following)
        elif sub in ("format-patch", "archive") and word.startswith("-o") and \
                not word.startswith("--"):
            found.append(word[2:] or following)
    return found + _git_operand_writes(sub, rest)


#: git subcommands that create what their operands name: the words before those operands,
#: and how many operands lead them that name no place (``clone URL DIR``: the URL).
_GIT_CREATES = {"init": ((), 0), "bundle": (("create",), 0), "worktree": (("add",), 0),
                "clone": ((), 1), "submodule": (("add",), 1)}


def _git_operand_writes(sub: str | None, rest: Sequence[str]) -> list[str]:
    """What ``git init DIR``, ``git bundle create FILE``, ``git worktree add DIR``,
    ``git clone URL DIR`` and ``git submodule add URL DIR`` create: every operand (an
    option's value among them too, which can only add caution) after the leading ones."""
    if sub not in _GIT_CREATES:
        return []
    before, leading = _GIT_CREATES[sub]
    words = [word for word in rest if not word.startswith("-")]
    if list(words[:len(before)]) != list(before):
        return []
    return words[len(before) + leading:]
