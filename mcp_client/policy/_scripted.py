"""What programs driven by a script or by their input write, for :mod:`._outputs`.

awk writes what its program says (the reader's runs check looks at the text) and what
gawk's ``-o``/``-p``/``-d`` name, and runs code from ``-f``/``-E``/``-i``/``-l``; a
vi-family editor or ``ed`` may write every file it is given and runs the keys or
commands of its input; ``perl -i``/``ruby -i`` rewrite their files; ``sftp``, ``ftp``,
``lftp``, ``tftp`` and ``socat`` write what their input or addresses say; ``ffmpeg``
and ImageMagick write operands among their inputs.  Each answers as
:func:`mcp_client.policy._outputs.outputs` does, :data:`UNNAMED` for what cannot be
named.  Pure.
"""

from __future__ import annotations

from typing import Callable, Mapping, Sequence

from ._getopt import UNNAMED, files, operands

__all__ = ["SCRIPTED"]


#: awk options with a value in the next word (or glued), and gawk's that write a file,
#: with the file each writes when given none.
_AWK_VALUED = frozenset("FvfEeil")
_AWK_WRITES = {"o": "awkprof.out", "p": "awkprof.out", "d": "awkvars.out"}
_AWK_LONG_WRITES = {"--pretty-print": "o", "--profile": "p", "--dump-variables": "d"}
#: awk options that run code from a file or a library (``-f``, ``-E``, ``-i``, ``-l``).
_AWK_LOADS = frozenset("fEil")
_AWK_LONG_LOADS = ("--file", "--exec", "--include", "--load")


def _awk(argv: Sequence[str]) -> list[str]:
    """gawk's ``-o``/``--pretty-print``, ``-p``/``--profile`` and ``-d``/``--dump-variables``
    write a file (``awkprof.out``, ``awkvars.out`` when none is glued on); a program read
    from a file (``-f``, ``-E``, mawk's ``-W exec``) or a library loaded (``-i``, ``-l``)
    is unknown, as is gawk's debugger (``-D``, ``--debug``); ``-W NAME=VALUE`` is read as
    ``--NAME=VALUE``; long options by any prefix, as gawk takes them."""
    writes: list[str] = []
    i = 1
    while i < len(argv):
        word = argv[i]
        i += 1
        if word == "--" or not word.startswith("-") or word == "-":
            break                       # the program text, then its operands
        head, eq, value = word.partition("=")
        if word.startswith("--"):
            # gawk takes any unique prefix (``--dump=F``, ``--prof=F``); an ambiguous one
            # is its error, so a prefix of a writing option is read as writing.
            letters = [letter for name, letter in _AWK_LONG_WRITES.items()
                       if name.startswith(head) and len(head) > 2]
            if any(name.startswith(head) and len(head) > 3 for name in _AWK_LONG_LOADS) or (
                    len(head) > 2 and "--debug".startswith(head)):
                writes.append(UNNAMED)
            elif letters:
                writes.append(value if eq else _AWK_WRITES[letters[0]])
            continue
        letter = word[1]
        if letter == "W":               # -W name[=value]: a long option, POSIX style
            value = word[2:] or (argv[i] if i < len(argv) else "")
            i += 0 if word[2:] else 1
            writes += _awk(["awk", "--" + value, "--"])
            continue
        if letter == "D":
            writes.append(UNNAMED)      # gawk's debugger: commands (``save F``) from input
        elif letter in _AWK_WRITES:
            writes.append(word[2:] or _AWK_WRITES[letter])
        elif letter in _AWK_VALUED:
            writes += [UNNAMED] if letter in _AWK_LOADS else []
            i += 0 if word[2:] else 1
    return files(*writes)


#: vi-family options whose value is code or keys to replay (``-c``, ``--cmd``, ``-S``,
#: ``-s``, ``-u``...), or a file they write (``-w``, ``-W``, ``-i`` viminfo).
_VIM_UNFOLLOWED = frozenset({"-c", "--cmd", "-S", "-s", "-u", "-U", "-w", "-W", "-i",
                             "--startuptime", "-T", "--remote-send", "--remote-expr"})
_VIM_VALUED = frozenset({"-t", "-q", "-r", "-L", "-d", "-V", "--servername", "--listen"})


def _editor(argv: Sequence[str]) -> list[str]:
    """A vi-family editor may write every file it is given (``:w``), and it runs what its
    input says -- keys, or ex commands with ``-e``/``-es`` (``vim -es f < cmds``): that
    is always an unknown write, as is a ``+COMMAND`` word or an option that runs
    commands, replays keys or writes a file of its own (:data:`_VIM_UNFOLLOWED`)."""
    writes: list[str] = [UNNAMED]
    skip = False
    for word in argv[1:]:
        head = word.split("=", 1)[0]
        if skip:
            skip = False
        elif word.startswith("+") or head in _VIM_UNFOLLOWED or (
                not word.startswith("--") and word[:2] in _VIM_UNFOLLOWED and len(word) > 2):
            writes.append(UNNAMED)
        elif head in _VIM_VALUED:
            skip = "=" not in word and len(word) == len(head)
        elif not word.startswith("-") or word == "-":
            writes.append(word)
    return files(*writes)


def _in_place(argv: Sequence[str]) -> list[str]:
    """``perl -i``/``ruby -i`` (``-pi``, ``-i.bak``) rewrite every file they are given (the
    script among them, which can only add caution)."""
    for word in argv[1:]:
        if word == "--" or not word.startswith("-"):
            break
        if not word.startswith("--") and "i" in word[1:].split("I", 1)[0] and not any(
                letter in word[1:word.find("i")] for letter in "eElmMIx0"):
            return operands(argv, "eElmMIx")
    return []


def _from_input(argv: Sequence[str]) -> list[str]:
    """Programs that run the commands their input or arguments hold, and may write any
    local file by them (``sftp``/``ftp`` ``get``, ``lftp -c``, ``socat`` file
    addresses): always a write this reader cannot name."""
    return [UNNAMED]


def _every_operand(argv: Sequence[str]) -> list[str]:
    """Programs whose outputs are operands among their inputs (``ffmpeg -i IN OUT``,
    ``convert IN OUT``, ``mogrify`` in place): every operand counts as written."""
    return operands(argv)


#: Programs whose writes follow a script, their input or their operands, by name.
SCRIPTED: Mapping[str, Callable[[Sequence[str]], list[str]]] = {
    "ffmpeg": _every_operand, "convert": _every_operand, "magick": _every_operand,
    "mogrify": _every_operand, "gm": _every_operand, "awk": _awk, "gawk": _awk,
    "mawk": _awk, "nawk": _awk, "vim": _editor, "vi": _editor, "nvim": _editor,
    "view": _editor, "ex": _editor, "vimdiff": _editor, "rvim": _editor, "ed": _editor,
    "red": _editor, "perl": _in_place, "ruby": _in_place, "sftp": _from_input,
    "ftp": _from_input, "lftp": _from_input, "tftp": _from_input, "socat": _from_input,
}
