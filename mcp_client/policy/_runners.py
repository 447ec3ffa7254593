"""Programs that run another program: how each one's argv reads, option by option.

``nice -n 10 make``, ``timeout -s KILL 5 git push``, ``setarch x86_64 -R rm -rf d`` run a
command given as the rest of their argv.  The shell reader
(:mod:`mcp_client.policy._shell`) judges that command too, so a rule about ``rm`` or
the danger floor sees ``rm -rf`` behind any of them, and an allow of the runner never
allows what it runs.  Reading the runner's own options right is the whole difficulty: an
option that takes a value (``nice -n 10``) must not be taken for the command, and one
that changes what runs (``sudo -s``, ``env -S``, ``env -C DIR``) must not be ignored.

Closed-world: a :class:`Runner` lists every option this module knows, and any other
option -- one the program may read with a value, or one added in a later version -- makes
the reading fail (:func:`read_runner` returns ``None``: unknown).  The argv is read by
the one getopt reader (:mod:`mcp_client.policy._getopt`), strictly and up to the first
operand: long options by a unique prefix, an ambiguous prefix unknown.

Pure tables and one function; nothing here parses shell text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Sequence

from . import _getopt as getopt

__all__ = ["Runner", "RunnerReading", "WRAPPERS", "MULTIPLEXERS", "WATCH", "read_runner"]


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


@dataclass(frozen=True)
class Runner:
    """How one runner's argv reads: options, then ``operands`` words, then the command.

    Every option field is a set of option names as written (``-n``, ``--adjustment``).

    Attributes:
        flags: options without a value.
        valued: options with a value (``-n 10``, ``-n10``, ``--adjustment=10``).
        pairs: long options with two values (``bwrap --bind SRC DEST``).
        attached: short options whose value, when there is one, is attached (``xargs -i``).
        operands: words after the options and before the command (``timeout 5``).
        operands_first: the operands may come before the options (``setarch ARCH -R``).
        writes: options whose value is a file the runner writes (``strace -o F``).
        writes_operands: its operands are files it creates (``flock F``).
        assigns: options that change the environment of what it runs (``env -u``).
        none: options after which no command is run (``command -v``, ``ionice -p``).
        text: options whose value is shell text it runs (``flock -c``, ``su -c``).
        unknown: options that make it run what this module does not follow (``sudo -s``).
        digits: ``-N`` for a number is an option (``nice -10``).
        any_long: any other ``--name[=value]`` is an option without a separate value.
        doubt: what it runs sees other files or another root (``chroot``, ``bwrap``): the
            command is read, and an unknown beside it says its paths may mean others.
        needs_command: with no command it runs a shell or waits for one: unknown.
        multiplexer: with no command it still runs something (``busybox``, ``parallel``).
        dash: a lone ``-`` is an option (``env -`` is ``env -i``).
        requires: one of these options must be given, or the argv reads another way
            (``runuser -u USER CMD``; without ``-u`` its words go to a shell).
    """

    flags: frozenset[str] = frozenset()
    valued: frozenset[str] = frozenset()
    pairs: frozenset[str] = frozenset()
    attached: frozenset[str] = frozenset()
    operands: int = 0
    operands_first: bool = False
    writes: frozenset[str] = frozenset()
    writes_operands: bool = False
    assigns: frozenset[str] = frozenset()
    none: frozenset[str] = frozenset()
    text: frozenset[str] = frozenset()
    unknown: frozenset[str] = frozenset()
    digits: bool = False
    any_long: bool = False
    doubt: bool = False
    needs_command: bool = False
    multiplexer: bool = False
    dash: bool = False
    requires: frozenset[str] = frozenset()


def _runner(flags: str = "", valued: str = "", **extra: object) -> Runner:
    """A :class:`Runner` from space-separated option names (``"-a -b --long"``)."""
    sets = {key: _names(value) for key, value in extra.items() if isinstance(value, str)}
    plain = {key: value for key, value in extra.items() if not isinstance(value, str)}
    return Runner(flags=_names(flags), valued=_names(valued), **sets, **plain)  # type: ignore


#: Every runner this module reads, by program basename.  Options and operands are those
#: of GNU coreutils 9, util-linux 2.39, sudo 1.9, findutils 4.9, strace 6 and the
#: programs' own manuals; an option missing here is unknown, never skipped.
WRAPPERS: dict[str, Runner] = {
    "sudo": _runner(
        "-A -b -E -H -n -P -S -N --askpass --background --set-home "
        "--non-interactive --preserve-groups --stdin --no-update",
        "-C -D -g -h -p -r -t -T -U -u --close-from --chdir --group --host --prompt --role "
        "--type --command-timeout --other-user --user",
        unknown="-s -i -e -l -v -k -K -V -R -D --shell --login --edit --list --validate "
                "--reset-timestamp --remove-timestamp --version --chroot --chdir",
        attached="--preserve-env", needs_command=True),
    "doas": _runner("-n", "-u -C", unknown="-s -L -C", needs_command=True),
    "pkexec": _runner("--disable-internal-agent --keep-cwd", "--user", needs_command=True),
    "nohup": _runner(),
    "time": _runner("-a -p -q -v --append --portability --quiet --verbose", "-f -o --format "
                    "--output", writes="-o --output"),
    "command": _runner("-p -v -V", none="-v -V"),
    "exec": _runner("-c -l", "-a"),
    "builtin": _runner(),
    "xargs": _runner(
        "-0 -r -t -p -x -o --null --no-run-if-empty --verbose --interactive --exit "
        "--open-tty", "-I -d -E -n -L -P -s -a --delimiter --max-args --max-procs "
        "--max-chars --arg-file --process-slot-var",
        attached="-i -l -e --replace --eof --max-lines", assigns="--process-slot-var"),
    "setsid": _runner("-c -f -w --ctty --fork --wait"),
    "stdbuf": _runner("", "-i -o -e --input --output --error"),
    "nice": _runner("", "-n --adjustment", digits=True),
    "ionice": _runner("-t --ignore", "-c -n -p -P -u --class --classdata --pid --pgid --uid",
                      none="-p -P -u --pid --pgid --uid"),
    "env": _runner("-i -0 -v --ignore-environment --null --debug", "-u --unset",
                   assigns="-u --unset", unknown="-S -C --split-string --chdir "
                   "--block-signal --default-signal --ignore-signal --list-signal-handling",
                   dash=True),
    "strace": _runner(
        "-c -C -d -D -f -F -h -i -k -n -q -r -t -T -v -V -w -x -y -Y -z -Z --follow-forks "
        "--summary-only --summary --quiet --no-abbrev --syscall-times --timestamps "
        "--output-separately --instruction-pointer --stack-trace --decode-fds --seccomp-bpf",
        "-a -b -e -I -O -P -s -S -u -U -X -o --trace --signal --status --abbrev --verbose "
        "--raw --read --write --trace-path --string-limit --summary-sort-by --user "
        "--summary-columns --const-print-style --output --columns --decode-pids",
        attached="--quiet",
        writes="-o --output", assigns="-E --env", none="-p --attach",
        unknown="-E -p --env --attach --daemonize -A"),
    "ltrace": _runner("-b -c -C -f -h -i -r -S -t -T -V --demangle --help --version",
                      "-a -A -D -e -F -l -L -n -o -s -u -w -x --align --indent --library "
                      "--output", writes="-o --output", unknown="-p"),
    "unbuffer": _runner("-p"),
    "fakeroot": _runner("-u -v --unknown-is-real --version", "-l -b -i --lib --faked "
                        "--fd-base", unknown="-s", needs_command=True),
    "torsocks": _runner("-q -d -i --quiet --debug --isolate", "-u -p -a -P --user --pass "
                        "--address --port", unknown="--shell"),
    "proxychains": _runner("-q", "-f"),
    "proxychains4": _runner("-q", "-f"),
    "caffeinate": _runner("-d -i -m -s -u", "-t -w"),
    "catchsegv": _runner(),
    "valgrind": _runner("-q -v --quiet --verbose", any_long=True,
                        writes="--log-file --xml-file", unknown="--db-command --vgdb-prefix "
                        "--log-socket --extra-debuginfo-path --suppressions --run-libc-freeres"),
    "eatmydata": _runner(),
    "chronic": _runner("-e -v"),
    "faketime": _runner("-m -f --exclude-monotonic", operands=1, needs_command=True),
    "setarch": _runner("-v -R -F -Z -L -X -B -I -S -T -3 --verbose --addr-no-randomize "
                       "--fdpic-funcptrs --mmap-page-zero --addr-compat-layout "
                       "--read-implies-exec --32bit --short-inode --whole-seconds "
                       "--sticky-timeouts --3gb --4gb --uname-2.6 --bsd", operands=1,
                       operands_first=True, needs_command=True),
    "linux32": _runner("-v -R -F -Z -L -X -B -I -S -T -3 --verbose --addr-no-randomize "
                       "--uname-2.6", needs_command=True),
    "linux64": _runner("-v -R -F -Z -L -X -B -I -S -T -3 --verbose --addr-no-randomize "
                       "--uname-2.6", needs_command=True),
    "choom": _runner("", "-n -p --adjust --pid", none="-p --pid", needs_command=True),
    "ssh-agent": _runner("-c -s -D -d", "-a -E -O -P -t", writes="-a", none="-k"),
    "entr": _runner("-a -c -d -n -p -r -z", unknown="-s", needs_command=True),
    "runuser": _runner("-m -p -f --preserve-environment", "-u -g -G -w --user --group "
                       "--supp-group --whitelist-environment", text="-c --command",
                       unknown="-s -l -P --shell --login --pty --session-command",
                       requires="-u --user", needs_command=True),
    "systemd-run": _runner(
        "--user --system --scope --no-ask-password --wait --collect -G -t --pty -P --pipe "
        "-q --quiet -r --remain-after-exit --no-block --send-sighup -d --same-dir",
        "-p --property -u --unit --description --slice --uid --gid --nice "
        "--service-type -H --host -M --machine --working-directory",
        assigns="-E --setenv", unknown="-E --setenv -S --shell --on-active --on-boot "
        "--on-startup --on-unit-active --on-unit-inactive --on-calendar --on-clock-change "
        "--on-timezone-change --path-property --socket-property --timer-property",
        doubt=True, needs_command=True),
    "xvfb-run": _runner("-a -l --auto-servernum --listen-tcp", "-n -p -s -f -e -w "
                        "--server-num --xauth-protocol --server-args --auth-file "
                        "--error-file --wait", writes="-e --error-file -f --auth-file"),
    "dbus-run-session": _runner("", "--config-file", unknown="--dbus-daemon"),
    "dbus-launch": _runner("--exit-with-session --exit-with-x11 --sh-syntax --csh-syntax "
                           "--auto-syntax --close-stderr", "--config-file",
                           unknown="--binary-syntax --autolaunch"),
    "numactl": _runner("-a -l -s -H --all --localalloc --show --hardware", any_long=True,
                       valued="-i -N -m -C -p -b -w --interleave --cpunodebind "
                       "--membind --physcpubind --preferred --preferred-many --weighted"),
    "runcon": _runner("-c --compute", "-u -r -t -l --user --role --type --range",
                      operands=0),
    "cgexec": _runner("--sticky", "-g"),
    "chpst": _runner("-v -P -0 -1 -2", "-u -U -b -n -l -L -m -d -o -p -f -c -r -t",
                     unknown="-e -/ -C"),
    "timeout": _runner("-v --preserve-status --foreground --verbose", "-s -k --signal "
                       "--kill-after", operands=1),
    "flock": _runner("-s -x -u -n -o -e -F --shared --exclusive --unlock --nonblock "
                     "--nb --close --no-fork --verbose", "-w -E --timeout --wait "
                     "--conflict-exit-code", text="-c --command", operands=1,
                     writes_operands=True, needs_command=True),
    "taskset": _runner("-a --all-tasks -c --cpu-list", operands=1, unknown="-p --pid"),
    "chrt": _runner("-a -b -d -f -i -o -r -R -v -m --all-tasks --batch --deadline --fifo "
                    "--idle --other --rr --reset-on-fork --verbose --max", "-T -P -D "
                    "--sched-runtime --sched-period --sched-deadline", operands=1,
                    unknown="-p --pid"),
    "prlimit": _runner("--noheadings --raw --verbose", any_long=True, unknown="-p --pid "
                       "--output"),
    "chroot": _runner("--skip-chdir", "--userspec --groups", operands=1, doubt=True,
                      needs_command=True),
    "nsenter": _runner(
        "-a -m -u -i -n -p -C -U -T -F -Z --all --mount --uts --ipc --net --pid --cgroup "
        "--user --time --no-fork --preserve-credentials --follow-context --user-parent",
        "-t -S -G -r -w --target --setuid --setgid --root --wd --env", doubt=True,
        needs_command=True),
    "unshare": _runner(
        "-m -u -i -n -p -U -C -T -f -r -c --mount --uts --ipc --net --pid --user --cgroup "
        "--time --fork --map-root-user --map-current-user --kill-child --mount-proc "
        "--mount-binfmt --keep-caps", "-R -w -S -G --root --wd --setuid --setgid "
        "--propagation --setgroups --map-user --map-group --map-users --map-groups "
        "--map-auto --monotonic --boottime", doubt=True, needs_command=True),
    "setpriv": _runner("-d --dump --clear-groups --init-groups --keep-groups "
                       "--no-new-privs --reset-env", "--inh-caps --ambient-caps "
                       "--bounding-set --ruid --euid --rgid --egid --reuid --regid "
                       "--groups --securebits --pdeathsig --selinux-label --apparmor-profile "
                       "--landlock-access --landlock-rule", needs_command=True),
    "firejail": _runner("-q", any_long=True, unknown="--shell --output --output-stderr "
                        "--join --join-or-start --build --env --tracelog --trace --debug "
                        "--profile --include --private-home", doubt=True,
                        needs_command=True),
    "bwrap": _runner(
        "--unshare-all --share-net --unshare-user --unshare-user-try --unshare-ipc "
        "--unshare-pid --unshare-net --unshare-uts --unshare-cgroup --unshare-cgroup-try "
        "--die-with-parent --as-pid-1 --new-session --clearenv --disable-userns "
        "--assert-userns-disabled",
        "--uid --gid --hostname --proc --dev --tmpfs --mqueue --dir --remount-ro --cap-add "
        "--cap-drop --perms --size --unsetenv --lock-file --sync-fd --block-fd "
        "--userns-block-fd --info-fd --json-status-fd --seccomp --add-seccomp-fd --exec-label "
        "--file-label --userns --userns2 --pidns --argv0 --chdir",
        pairs="--bind --bind-try --dev-bind --dev-bind-try --ro-bind --ro-bind-try "
              "--symlink --file --bind-data --ro-bind-data --chmod --setenv",
        assigns="--setenv --unsetenv --clearenv", unknown="--args --chdir --argv0",
        doubt=True, needs_command=True),
    "busybox": _runner(multiplexer=True),
    "toybox": _runner(multiplexer=True),
    "parallel": _runner(multiplexer=True),
}
#: ``watch``'s options; the rest of its argv is shell text, or an argv with ``-x``.
WATCH = _runner("-b -c -C -e -g -p -t -w -x --beep --color --no-color --errexit --chgexit "
                "--precise --no-title --no-wrap --no-linewrap --exec", "-n -q --interval "
                "--equexit", attached="-d --differences")
#: Wrappers that still run something when given no command: multi-call binaries
#: (``busybox rm -rf x`` runs ``rm``) and ``parallel``, which reads commands from its input.
MULTIPLEXERS = frozenset(name for name, spec in WRAPPERS.items() if spec.multiplexer)


@dataclass
class RunnerReading:
    """What :func:`read_runner` found in one runner's argv.

    Attributes:
        command: the argv it runs (empty when none).
        writes: files its own options or operands write.
        texts: shell text it runs (``flock F -c TEXT``).
        assigned: it changes the environment of what it runs.
        runs: false when an option says it runs no command (``command -v``).
        seen: the options given, by name, with their values (``None`` for none).
    """

    command: list[str] = field(default_factory=list)
    writes: list[str] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    assigned: bool = False
    runs: bool = True
    seen: dict[str, str | None] = field(default_factory=dict)


class _Unknown(Exception):
    """The argv uses an option this module does not know."""


def _valued(spec: Runner, name: str) -> bool:
    return name in spec.valued or name in spec.writes or name in spec.text or (
        name in spec.assigns and name not in spec.flags)


@lru_cache(maxsize=None)
def _getopt_spec(spec: Runner) -> getopt.Spec:
    """``spec`` as the getopt reader reads it: every option it lists (the ones it refuses
    too, which :func:`_take` answers), options up to the first operand, strictly."""
    known = (spec.flags | spec.valued | spec.pairs | spec.attached | spec.unknown | spec.none
             | spec.text | spec.assigns | spec.writes)
    short = "".join(name[1] + (":" if _valued(spec, name) else "::" if name in spec.attached
                               else "")
                    for name in sorted(known) if not name.startswith("--"))
    longs = tuple(name[2:] + ("=" if _valued(spec, name) and name not in spec.pairs else "")
                  for name in sorted(known) if name.startswith("--"))
    return getopt.Spec(short, longs, stop=True, strict=True, numbers=spec.digits,
                       any_long=spec.any_long, dash=spec.dash, pairs=spec.pairs,
                       optional=frozenset(name for name in spec.attached
                                          if name.startswith("--")))


def _take(spec: Runner, name: str, value: str | None, found: RunnerReading) -> None:
    if name in spec.unknown:
        raise _Unknown
    found.seen[name] = value
    if name in spec.writes and value is not None:
        if value.startswith(("|", "!")):
            raise _Unknown                      # strace -o '|CMD' pipes into a command
        found.writes.append(value)
    if name in spec.assigns:
        found.assigned = True
    if name in spec.none:
        found.runs = False
    if name in spec.text:
        if value is None:
            raise _Unknown
        found.texts.append(value)


def _options(spec: Runner, argv: Sequence[str], i: int, found: RunnerReading) -> int:
    """Read options from ``argv[i]`` on; return the index of the first word after them."""
    parsed = getopt.parse(_getopt_spec(spec), argv, i)
    if parsed.unknown:
        raise _Unknown
    for name, value in parsed.options:
        _take(spec, name, value, found)
    return parsed.end


def read_runner(spec: Runner, argv: Sequence[str]) -> RunnerReading | None:
    """How a runner read by ``spec`` reads ``argv``: the command it runs, what it writes,
    the text it runs; ``None`` when an option or the shape is one this module does not
    know, and when it would run a command it was not given (``sudo`` alone)."""
    found = RunnerReading()
    try:
        i, operands = 1, []
        if spec.operands_first and len(argv) > 1 and not argv[1].startswith("-"):
            i, operands = 2, [argv[1]]
        i = _options(spec, argv, i, found)
        need = spec.operands - len(operands)
        operands += list(argv[i:i + need])
        rest = list(argv[i + need:])
        if rest and rest[0] in spec.text:
            _options(spec, rest, 0, found)      # flock FILE -c TEXT
            rest = []
        elif rest and rest[0].startswith("-") and rest[0] != "-":
            return None                         # an option after the operands
    except _Unknown:
        return None
    if spec.requires and not spec.requires & set(found.seen):
        return None
    if spec.writes_operands:
        found.writes.extend(operands)
    if not found.runs:
        return found
    if len(operands) < spec.operands:
        return None
    found.command = rest
    if not rest and not found.texts and spec.needs_command:
        return None
    return found
