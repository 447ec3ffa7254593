"""The command-shaped questions the policy asks, over the commands a call would run.

:func:`recursive_delete`, :func:`force_push`, :func:`hard_reset`,
:func:`discards_changes` and :func:`pipes_to_shell` are the built-in checks (and the
danger floor);
:func:`match_command` is how a rule's ``command``/``args``/``args_any``/``exact``
meet one simple command.  Input is what :mod:`mcp_client.policy._shell`
read; every answer is three-valued and fails closed:

* an unreadable command (``argv is None``) is unknown;
* a program or option that matches only when case is folded (``RM -rf``,
  ``GIT push``, ``git reset --HARD``) is unknown: case-insensitive
  filesystems run ``RM`` as ``rm``;
* long options are matched as git and GNU getopt read them, by any unique
  prefix (``git push --force-w``, ``git reset --har``, ``rm --rec``); a
  prefix that is ambiguous is the program's error, so it counts as a match;
* a git subcommand that is not a built-in (an alias, a ``git-*`` program),
  and a ``git config`` that writes, are unknown to the git checks.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Iterable, Mapping, Sequence

from ..paths import Tri, tri_all, tri_any
from ._programs import (GIT_SUBCOMMANDS, SHELLS, abbreviates, fold, git_split, long_options,
                        options, program, short_flag, versionless)
from ._shell import Command

__all__ = ["recursive_delete", "force_push", "hard_reset", "discards_changes", "pipes_to_shell",
           "match_command"]

#: A per-command test: the program's basename and the argv, to YES/NO/UNKNOWN.
_Test = Callable[[str, Sequence[str]], Tri]


def _over(commands: Iterable[Command], test: _Test) -> Tri:
    """Kleene OR of ``test`` over ``commands``; an unreadable command is UNKNOWN, and a
    spelling that is dangerous only once the program, a subcommand or a long option is
    case folded is UNKNOWN too."""
    def one(command: Command) -> Tri:
        name = program(command.argv)
        if command.argv is None or name is None:
            return Tri.UNKNOWN
        found = test(name, command.argv)
        folded = [word if _is_short(word) else fold(word) for word in command.argv]
        if found is Tri.NO and folded != list(command.argv):
            return test(versionless(folded[0].rsplit("/", 1)[-1]), folded) & Tri.UNKNOWN
        return found
    return tri_any(one(command) for command in commands)


def _is_short(word: str) -> bool:
    """A short option keeps its case when folding: ``-C`` and ``-c`` are different options."""
    return word.startswith("-") and not word.startswith("--")


def _yes(flag: bool) -> Tri:
    return Tri.YES if flag else Tri.NO


def _git(test: Callable[[str | None, list[str]], Tri]) -> _Test:
    """A git test on ``(subcommand, its arguments)``, made UNKNOWN-at-least when git's
    options before the subcommand change what runs or the subcommand is not a built-in
    (an alias, a ``git-*`` program): a visible YES stays YES."""
    def one(name: str, argv: Sequence[str]) -> Tri:
        if name != "git":
            return Tri.NO
        sub, rest, doubtful = git_split(argv)
        found = test(sub, rest)
        if doubtful or (sub is not None and sub not in GIT_SUBCOMMANDS) or (
                sub == "config" and not set(rest) & _CONFIG_READS):
            return found | Tri.UNKNOWN      # (a config write changes what a later git does)
        return found
    return one


#: ``git config`` words that make it a read.
_CONFIG_READS = frozenset({"--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list",
                           "-l", "get", "list", "--get-color", "--get-colorbool"})


_DELETERS = frozenset({"rm", "rmdir", "unlink", "shred", "srm"})
_FIND_EXEC = ("-exec", "-execdir", "-ok", "-okdir")
_RSYNC_DELETES = ("--delete", "--delete-before", "--delete-during", "--delete-delay",
                  "--delete-after", "--delete-excluded", "--delete-missing-args", "--del",
                  "--remove-source-files", "--force")


def _deletes_recursively(name: str, argv: Sequence[str]) -> Tri:
    lowered = [word.lower() for word in argv[1:]]
    if name == "rm":
        return _yes(long_options(argv, ["--recursive"]) or short_flag(argv, "rR"))
    if name == "find":
        return _yes("-delete" in argv or any(
            word in _FIND_EXEC and program(argv[i + 1:i + 2]) in _DELETERS
            for i, word in enumerate(argv)))
    if name == "rsync":
        return _yes(long_options(argv, _RSYNC_DELETES)
                    or any(opt.startswith("--del") for opt in options(argv)))
    if name.lower() in ("rd", "rmdir", "del", "erase"):
        return _yes("/s" in lowered)
    if name.lower() in ("remove-item", "ri"):
        return _yes(any(word == "-r" or word.startswith("-rec") for word in lowered))
    if name == "git":
        return _git(_git_deletes)(name, argv)
    return _archives_and_deletes(name, argv)


def _archives_and_deletes(name: str, argv: Sequence[str]) -> Tri:
    """Archivers that delete what they pack: ``tar --remove-files`` (and
    ``--recursive-unlink``, which empties a directory before extracting over it),
    ``zip -m``/``--move``, ``7z -sdel``."""
    if name == "tar":
        return _yes(long_options(argv, ["--remove-files", "--recursive-unlink"], shortest=3))
    if name == "zip":
        return _yes(long_options(argv, ["--move"], shortest=2) or short_flag(argv, "m"))
    if versionless(name) in ("7z", "7za", "7zr", "7zz"):
        return _yes(any(word.lower() == "-sdel" for word in argv[1:]))
    return Tri.NO


def _in_force(rest: Sequence[str], name: str, letter: str = "", *, valued: str = "",
              valued_long: Sequence[str] = (), shortest: int = 1) -> bool:
    """Whether the git option ``name`` (or its short ``letter``) that makes a subcommand
    harmless (``clean -n``, ``rm --cached``) is in force at the end of ``rest``.  git reads
    options in order, so a later ``--no-NAME`` (abbreviated too: ``--no-d``) undoes it; a
    letter inside a short option's value is no option (``clean -en`` is ``-e n``), nor is
    the value of a long one (``--exclude -n``).  Words after ``--`` are operands."""
    on = False
    words = iter(rest)
    for word in words:
        if word == "--":
            break
        if word.startswith("--"):
            head = word.split("=", 1)[0]
            if head.startswith("--no-") and name.startswith("--" + head[5:]):
                on = False
            elif abbreviates(word, [name], shortest=shortest):
                on = True
            elif "=" not in word and abbreviates(word, valued_long):
                next(words, None)
        elif word.startswith("-") and word != "-":
            for at, ch in enumerate(word[1:], 1):
                if ch in valued:
                    if at == len(word) - 1:
                        next(words, None)
                    break
                on = on or ch == letter
    return on


def _git_deletes(sub: str | None, rest: list[str]) -> Tri:
    here = ["git"] + rest
    if sub == "rm":
        return _yes(short_flag(here, "r"))
    dry = _in_force(rest, "--dry-run", "n", valued="e", valued_long=["--exclude"], shortest=2)
    return _yes(sub == "clean" and not dry)


#: Words in a tool's name that make it a deleting tool (``fs_delete``, ``removeDir``).
_DELETE_WORDS = frozenset({"delete", "remove", "rm", "rmdir", "rmtree", "unlink", "purge",
                           "erase", "destroy", "wipe", "del"})
_FALSY = (None, False, 0, "", "false", "False", "no", "0")


def _tool_words(tool: str) -> set[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", tool)
    return {word.lower() for word in re.split(r"[^A-Za-z0-9]+", spaced) if word}


def recursive_delete(tool: str, arguments: Mapping[str, Any],
                     commands: list[Command] | None) -> Tri:
    """A recursive delete: ``rm -r``/``-R``/``--recursive`` (in any cluster, any
    abbreviation), ``find -delete`` (and ``-exec rm -r``), ``git clean`` (not a dry
    run), ``git rm -r``, ``rsync --delete*``/``--del``/``--remove-source-files``,
    an archiver that deletes what it packs (``tar --remove-files`` -- ``tar cf
    /dev/null --remove-files DIR`` is ``rm -r DIR`` --, ``tar --recursive-unlink``,
    ``zip -m``, ``7z -sdel``), ``rd /s``, ``Remove-Item -Recurse``, or a deleting
    tool (its name has a word like delete/remove/rm) called with a true ``recursive``.

    Returns:
        ``NO`` for a call with no command and no such tool; ``UNKNOWN`` when a
        command cannot be read.
    """
    if _tool_words(tool) & _DELETE_WORDS and "recursive" in arguments:
        flag = arguments["recursive"]
        if isinstance(flag, list) or isinstance(flag, dict) or flag not in _FALSY:
            return Tri.YES
    return Tri.NO if commands is None else _over(commands, _deletes_recursively)


#: git push options that overwrite or remove what the remote has.
_PUSH_DESTROYS = ("--force", "--force-with-lease", "--force-if-includes", "--mirror",
                  "--delete", "--prune")


def _pushes_by_force(sub: str | None, rest: list[str]) -> Tri:
    if sub != "push":
        return Tri.NO
    here = ["git"] + rest
    if long_options(here, _PUSH_DESTROYS) or short_flag(here, "fd"):
        return Tri.YES
    # (any position: with --repo=R the first word is already a refspec)
    return _yes(any(word.startswith(("+", ":")) for word in rest if not word.startswith("-")))


def force_push(commands: list[Command] | None) -> Tri:
    """A push that overwrites or removes remote history: ``git push`` with
    ``--force``/``-f``, ``--force-with-lease``, ``--force-if-includes``,
    ``--mirror``, ``--delete``/``-d``, ``--prune`` (any abbreviation), a
    ``+refspec`` or a ``:ref`` (git's global options such as ``-C dir`` skipped;
    ``-c``, ``--config-env``, an unknown global option or a subcommand that is not
    a built-in is unknown)."""
    return Tri.NO if commands is None else _over(commands, _git(_pushes_by_force))


def _resets_hard(sub: str | None, rest: list[str]) -> Tri:
    return _yes(sub == "reset" and long_options(["git"] + rest, ["--hard"]))


def hard_reset(commands: list[Command] | None) -> Tri:
    """``git reset --hard`` (or ``--har``, ``--h``; unknown as :func:`force_push` is)."""
    return Tri.NO if commands is None else _over(commands, _git(_resets_hard))


#: What a git subcommand's options are, for :func:`discards_changes`: short letters without
#: a value, short letters with one, long options (``=``: with a value), and the options
#: that discard.  Names from git 2.39-2.47's manual pages.
_GitOptions = tuple[str, str, tuple[str, ...], frozenset[str]]
_CHECKOUT: _GitOptions = ("fpmqdlt", "bB", (
    "--force", "--patch", "--merge", "--ours", "--theirs", "--conflict=",
    "--pathspec-from-file=", "--pathspec-file-nul", "--ignore-skip-worktree-bits", "--overlay",
    "--no-overlay", "--quiet", "--progress", "--no-progress", "--guess", "--no-guess",
    "--detach", "--recurse-submodules", "--no-recurse-submodules", "--overwrite-ignore",
    "--no-overwrite-ignore", "--ignore-other-worktrees", "--track", "--no-track", "--orphan="),
    frozenset({"-f", "-p", "-m", "--force", "--patch", "--merge", "--ours", "--theirs",
               "--conflict", "--pathspec-from-file", "--pathspec-file-nul",
               "--ignore-skip-worktree-bits", "--overlay", "--no-overlay"}))
_SWITCH: _GitOptions = ("fdmqt", "cC", (
    "--create=", "--force-create=", "--orphan=", "--detach", "--guess", "--no-guess", "--force",
    "--discard-changes", "--merge", "--conflict=", "--quiet", "--progress", "--no-progress",
    "--track", "--no-track", "--recurse-submodules", "--no-recurse-submodules",
    "--ignore-other-worktrees"), frozenset({"-f", "--force", "--discard-changes"}))
#: Subcommands whose force option throws local changes or unmerged work away.
_FORCED = {"worktree": ("remove",), "rm": (), "checkout-index": (),
           "submodule": ("deinit", "update")}


def _git_words(rest: Sequence[str], table: _GitOptions) -> tuple[set[str], list[str], Tri]:
    """``(options, operands, doubt)`` of a subcommand's arguments: options by their names
    (a unique long prefix is the option; an ambiguous one counts as every option it may
    be); ``doubt`` is UNKNOWN when an option is not in ``table``, else NO.  ``--`` and
    the words after it are operands."""
    flags, valued, longs, _ = table
    found: set[str] = set()
    operands: list[str] = []
    known = Tri.NO
    words = iter(rest)
    for word in words:
        if word == "--":
            operands.append(word)
            operands.extend(words)
        elif word.startswith("--"):
            head = word.split("=", 1)[0]
            names = [name for name in longs if name.rstrip("=") == head] or [
                name for name in longs if name.startswith(head)]
            known = known if names else Tri.UNKNOWN
            found.update(name.rstrip("=") for name in names)
            if len(names) == 1 and names[0].endswith("=") and "=" not in word:
                next(words, None)
        elif word.startswith("-") and word != "-":
            for at, letter in enumerate(word[1:], 1):
                found.add("-" + letter)
                if letter in valued:
                    if at == len(word) - 1:
                        next(words, None)
                    break
                known = known if letter in flags else Tri.UNKNOWN
        else:
            operands.append(word)
    return found, operands, known


def _checkout_discards(rest: Sequence[str]) -> Tri:
    """``git checkout`` overwrites work-tree changes when forced, given paths (after ``--``,
    or beside a revision), or in a mode that rewrites files (``-p``, ``-m``, ``--ours``...);
    a single operand may be a branch or a file, so it is unknown (``git switch`` is the
    spelling that never restores a file)."""
    found, words, known = _git_words(rest, _CHECKOUT)
    dashed = "--" in words
    operands = words[:words.index("--")] if dashed else words
    if found & _CHECKOUT[3] or words[len(operands) + 1:]:
        return Tri.YES                  # forced, a mode that rewrites, or paths after --
    if len(operands) > 1:
        return Tri.YES                  # REV PATH...
    creates = bool(found & {"-b", "-B", "--orphan", "--detach", "-d"})
    if not operands or creates or dashed or operands[0] == "-":
        return known                    # a branch to switch to (``main --``: not a path)
    if operands[0] == "." or operands[0].startswith(("./", ":", "../")):
        return Tri.YES                  # no branch is spelt so (git check-ref-format)
    return Tri.UNKNOWN                  # a branch, or a file to restore


def _git_discards(sub: str | None, rest: list[str]) -> Tri:
    here = ["git"] + rest
    words = [word for word in rest if not word.startswith("-")]
    if sub == "checkout":
        return _checkout_discards(rest)
    if sub == "switch":
        found, _, known = _git_words(rest, _SWITCH)
        return Tri.YES if found & _SWITCH[3] else known
    if sub == "restore":        # the work tree unless only --staged/-S is asked for
        staged = _in_force(rest, "--staged", "S", valued="s", shortest=3, valued_long=[
            "--source", "--conflict", "--pathspec-from-file"])
        tree = long_options(here, ["--worktree"]) or short_flag(here, "W")
        return _yes(tree or not staged)
    if sub == "stash":
        return _yes(words[:1] in (["drop"], ["clear"]))
    if sub == "reset":
        return _yes(long_options(here, ["--merge"], shortest=2))
    if sub == "branch":
        force = long_options(here, ["--force"]) or short_flag(here, "f")
        return _yes(short_flag(here, "DMC") or (force and (
            long_options(here, ["--delete", "--move", "--copy"], shortest=2)
            or short_flag(here, "dmc"))))
    if sub == "read-tree":
        return _yes(long_options(here, ["--reset"]))
    return _git_drops_history(sub, here, words)


def _git_drops_history(sub: str | None, here: list[str], words: list[str]) -> Tri:
    """What drops the reflog or unreachable objects -- what makes ``checkout -B`` and
    ``branch -f`` recoverable -- and what resets like ``reset --merge``: ``git reflog
    expire``/``delete``/``drop``, ``git prune`` (not ``-n``), ``git gc --prune``, ``git
    update-ref -d``, ``git merge``/``cherry-pick``/``revert``/``am --abort``; and the
    force options of ``worktree remove``, ``rm``, ``checkout-index``, ``submodule``."""
    if sub == "reflog":
        return _yes(words[:1] in (["expire"], ["delete"], ["drop"]))
    if sub == "prune":
        return _yes(not _in_force(here[1:], "--dry-run", "n", valued_long=["--expire"]))
    if sub == "gc":
        return _yes(long_options(here, ["--prune"], shortest=2))
    if sub == "update-ref":
        return _yes(short_flag(here, "d") or long_options(here, ["--delete"]))
    if sub in ("merge", "cherry-pick", "revert", "am"):
        return _yes(long_options(here, ["--abort"]))
    if sub in _FORCED and (not _FORCED[sub] or words[:1] in [[w] for w in _FORCED[sub]]):
        cached = sub == "rm" and _in_force(here[1:], "--cached",
                                           valued_long=["--pathspec-from-file"])
        return _yes(not cached and (long_options(here, ["--force"]) or short_flag(here, "f")))
    return Tri.NO


def discards_changes(commands: list[Command] | None) -> Tri:
    """A command that throws away uncommitted or unmerged work (git; unknown as
    :func:`force_push` is): ``git checkout`` with ``-f``, paths (``-- .``, ``.``, ``REV
    PATH``), ``-p``, ``-m``, ``--ours``/``--theirs`` (one bare operand -- a branch or a
    file -- is unknown); ``git restore`` of the work tree (not ``--staged`` alone);
    ``git switch -f``/``--discard-changes``; ``git stash drop``/``clear``; ``git reset
    --merge`` (it drops staged changes); ``git branch -D``/``-M``/``-C`` (or ``-d -f``);
    ``git worktree remove -f``; ``git rm -f`` (not ``--cached``); ``git checkout-index
    -f``; ``git read-tree --reset``; ``git submodule deinit -f``/``update -f``; and what
    drops what the reflog keeps or resets like ``reset --merge`` (``git reflog
    expire``/``delete``, ``git prune``, ``git gc --prune``, ``git update-ref -d``, ``git
    merge --abort``...)."""
    return Tri.NO if commands is None else _over(commands, _git(_git_discards))


#: Words that name a command's standard input as a file.
_STDIN_FILES = frozenset({"-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"})


def _is_shell(name: str, argv: Sequence[str]) -> Tri:
    if versionless(name).lower() in SHELLS or name in (".", "source", "eval"):
        return Tri.YES
    return Tri.UNKNOWN if _script_from_stdin(argv) else Tri.NO


def _script_from_stdin(argv: Sequence[str]) -> bool:
    """A program told to read a file from its standard input: ``make -f -``, ``awk -f-``,
    ``sed --file=-``, ``vim -s /dev/stdin``.  Whether that file is code (a makefile's
    recipes, awk's ``system``) or data is the program's business, so it is unknown.
    A lone ``-`` counts only as an option's value (``cat -`` reads data)."""
    for i, word in enumerate(argv[1:], 1):
        value = word.partition("=")[2] if word.startswith("--") else \
            word[2:] if word.startswith("-") and len(word) > 2 else ""
        if value in _STDIN_FILES or (word in _STDIN_FILES and word != "-"):
            return True
        if word == "-" and i > 1 and argv[i - 1].startswith("-") and argv[i - 1] != "-":
            return True
    return False


def pipes_to_shell(commands: list[Command] | None) -> Tri:
    """Something piped into a shell or interpreter: a command whose standard
    input is a pipe runs one of :data:`~mcp_client.policy._programs.SHELLS`
    (``curl -s URL | sh``, ``wget -O- URL | sudo bash``, ``cat x | python3``,
    ``| toybox sh``), or (unknown) reads a file from that pipe (``| make -f -``,
    ``| vim -s /dev/stdin``).  Any unreadable command in the call is unknown: it may hide
    a pipe."""
    if commands is None:
        return Tri.NO
    found = _over([command for command in commands if command.piped], _is_shell)
    unread = any(program(command.argv) is None for command in commands)
    return found | (Tri.UNKNOWN if unread else Tri.NO)


# -- a rule's command narrowers ---------------------------------------------------------------


def _glob(pattern: str, name: str) -> Tri:
    """A program glob: YES on a match, UNKNOWN on one only once case is folded."""
    def match(pat: str, text: str) -> bool:
        return text.startswith(pat[:-1]) if pat.endswith("*") else text == pat
    if match(pattern, name):
        return Tri.YES
    return Tri.UNKNOWN if match(fold(pattern), fold(name)) else Tri.NO


def _word(wanted: str, word: str, every: bool) -> Tri:
    """One word of a rule against one of the argv: exact is YES.  For a deny or ask
    (``every`` false), an abbreviation (``--forc`` for ``--force``), a ``--opt=value``,
    a short cluster holding the letter (``-uf`` for ``-f``) is YES, a case-folded
    match UNKNOWN."""
    if word == wanted:
        return Tri.YES
    if every:
        return Tri.NO
    if wanted.startswith("--") and len(wanted) > 2 and abbreviates(word, [wanted]):
        return Tri.YES
    if (len(wanted) == 2 and wanted[0] == "-" and wanted[1] != "-" and word.startswith("-")
            and not word.startswith("--") and wanted[1] in word[1:]):
        return Tri.YES
    return Tri.UNKNOWN if fold(word) == fold(wanted) else Tri.NO


def _words_after(name: str, argv: Sequence[str], every: bool) -> tuple[list[str], Tri]:
    """The argv after the program that ``args`` is matched against, and a doubt: git's
    own options are skipped (unknown ones and ``-c`` are a doubt); for another
    program, options before a subcommand are a doubt to a deny or ask."""
    words = list(argv[1:])
    if versionless(fold(name)) == "git" and words and words[0].startswith("-"):
        sub, rest, doubtful = git_split(argv)
        if doubtful:
            return words, Tri.UNKNOWN
        return ([sub] + rest if sub is not None else []), Tri.YES
    return words, Tri.YES


#: Directories whose programs are the ones their basenames name.
_SYSTEM_BIN = frozenset({"/bin", "/usr/bin", "/usr/local/bin", "/sbin", "/usr/sbin",
                         "/usr/local/sbin", "/opt/homebrew/bin"})


def match_command(command: Command, pattern: str, args: Sequence[str],
                  args_any: Sequence[str], exact: bool, every: bool) -> Tri:
    """Whether one simple command is the rule's ``command`` with its ``args`` (a prefix
    of the argv after the program, or all of it when ``exact``) and one of its
    ``args_any``.  ``every`` is true for an allow: only literal words count, and a
    program named by a path outside the system's bin directories is unknown."""
    name = program(command.argv)
    if command.argv is None or name is None:
        return Tri.UNKNOWN
    found = _glob(pattern, name)
    head = command.argv[0]
    if every and "/" in head and head.rsplit("/", 1)[0] not in _SYSTEM_BIN:
        found = found & Tri.UNKNOWN     # ./ls, /tmp/x/ls: named ls, but which program?
    if found is Tri.NO:
        return Tri.NO
    words, doubt = _words_after(name, command.argv, every)
    if args or exact:
        found = found & doubt & _prefix(args, words, exact, every)
    if args_any:
        found = found & tri_any(_word(wanted, word, every) for wanted in args_any
                                for word in command.argv[1:])
    return found


def _prefix(args: Sequence[str], words: Sequence[str], exact: bool, every: bool) -> Tri:
    if len(words) < len(args) or (exact and len(words) != len(args)):
        return Tri.NO
    found = tri_all(_word(wanted, word, every) for wanted, word in zip(args, words))
    if found is Tri.NO and not every and args and not args[0].startswith("-") and words \
            and words[0].startswith("-"):
        return Tri.UNKNOWN      # options before the subcommand: they may take a value
    return found
