"""The permission rule language: validating rules and matching them against calls.

A rule is plain JSON data, keys in snake_case.
This module owns what a valid rule is (:func:`compile_rule`,
raising :class:`RuleError` naming the rule's index and the offending key),
what the rules read in a call (:func:`gather`) and whether a rule fires on
a call (:meth:`Rule.fires`).  It holds no state and asks nobody anything:
:mod:`mcp_client.policy` owns the decision, the grants and the human.

The keys:

``tool`` (required)
    An exact tool name, or a prefix glob with one trailing ``*`` (``fs_*``,
    ``*``), matched against the name the policy sees.
``decision`` (required)
    ``allow``, ``ask`` or ``deny``.
``under``
    A directory.  Absolute, or relative to the tool's root.  The rule speaks
    only about calls whose locations (:mod:`mcp_client.argkeys`: ``path``,
    ``file``, ``edits[0].path``...) fall inside it, measured by
    :mod:`mcp_client.paths`.
``command``
    A program basename, exact or with one trailing ``*`` (``python*``);
    never a path (a ``/`` could never match, so it is refused).
``args``
    Words the argv must begin with, after the program, in order.  Needs ``command``.
``args_any``
    Words any one of which must appear anywhere in the argv.  Needs ``command``.
``exact``
    ``true``: the argv after the program is exactly ``args`` (nothing when
    there is no ``args``), not merely begins with it.  Needs ``command``.  An
    always- answer's suggested rule carries it, so a grant is never wider than
    the call it answered.
``check``
    A predicate the policy supplies (:data:`CHECKS`): ``read-only`` (the
    server annotated the tool ``readOnlyHint: true``; unknown when the
    provider has no ``tool_annotations``, it raised, or it knows nothing of
    the tool), ``inside-roots`` (every location is inside a configured root,
    after resolution against the tool's own; unknown for a call naming no
    location), ``recursive-delete``, ``pipes-to-shell``, ``force-push``,
    ``hard-reset``, ``discards-changes`` (see :mod:`mcp_client.policy._checks`
    for exactly what each recognises).
``host``
    An exact host (``docs.raku.org``) or a ``*.`` suffix glob (``*.raku.org``:
    a site *under* raku.org, not raku.org itself), against each of the call's
    URLs (``url``, ``urls``, ``uri``, ``endpoint``, ``baseUrl``..., nested too).
``note``
    Text for the human (shown in the question, and in a refusal).
``severity``
    ``normal`` (the default) or ``danger``: a danger rule that fires is asked
    about every time (the danger floor).  ``danger`` with ``allow`` is refused:
    it could only be honoured by not allowing.

Matching is three-valued and fails closed.  Each narrower on a rule gives
yes, no or unknown for the call, and they are ANDed (Kleene).  A narrower
looks at several items when the call has several (locations, simple
commands, URLs): an ``allow`` rule needs every item to be a definite yes,
while ``ask`` and ``deny`` need just one yes or unknown.  An ``allow`` fires
only on yes; ``ask`` and ``deny`` fire on yes or unknown.  A narrower with
nothing to read -- ``under`` on a call with no location argument, ``command``
on a call with no command, ``host`` on a call with no ``url`` -- is unknown,
so scope ``tool`` tightly: ``{"tool": "*", "decision": "deny", "command":
"rm"}`` refuses every call that has no command to read.  The command checks
(``recursive-delete``, ``pipes-to-shell``, ``force-push``, ``hard-reset``,
``discards-changes``) are *no* on a call with no command argument at all, and unknown on one whose
command cannot be read.  ``command``, ``args`` and ``args_any`` are judged
together on each simple command; ``check`` is judged on the whole call.

How ``command``, ``args`` and ``args_any`` meet a command
(:func:`mcp_client.policy._checks.match_command`): a program that matches
only when case is folded (``Curl`` for ``curl``) is unknown; git's own
options before the subcommand are skipped (``git -C . push`` is ``git
push``), and ``-c``, ``--config-env`` or an option git does not have is
unknown.  For an allow every word must be literal; for a deny or ask an
abbreviated long option (``--forc``), an ``--opt=value``, a short cluster
holding the letter (``-uf`` for ``-f``) is a match, and options before the
subcommand of another program are unknown (they may take a value).

The checks that lose work are one class, the *danger floor*: ``rm -rf``,
``git reset --hard`` and their other spellings -- ``tar --remove-files`` and
``zip -m`` (recursive-delete), ``git checkout -- .``, ``git checkout .``,
``git checkout -f``, ``git restore``, ``git switch -f``/``--discard-changes``,
``git stash drop``/``clear``, ``git branch -D``, ``git worktree remove -f``,
``git reset --merge`` (discards-changes), ``git clean -f`` (recursive-delete).
What is on it: a command that throws away work git cannot give back (changes
not committed, a stash, an unmerged branch), a tree of files, or what makes
the rest recoverable (``git reflog expire``, ``git prune``, ``git gc
--prune``).  What is not: ``git checkout -B``, ``git branch -f`` and ``git
reset --soft``/``--keep`` (the reflog keeps what they move; ``--keep``
refuses to touch local changes), and a
command that overwrites or destroys the files it names one by one (``mv -f``,
``cp``, ``> f``, ``truncate -s0 f``, ``shred f``, ``rm f``): those are writes to
named locations, judged by ``under``, the roots and other agents' leases like
any write.

What an output redirection of a command writes (``echo x > f``) is a
location of the call too: it meets ``under``, ``inside-roots`` and the
write-outside-roots floor; so is what a program that mostly reads writes by
an option or operand of its own (``sort -o F``, ``uniq IN OUT``, ``tar -x -C
D``, ``curl -O``: :mod:`mcp_client.policy._outputs`), read closed-world -- an
option the reader does not know on such a program is a location that cannot
be read.  A relative target is measured against the
call's working directory argument (``cwd``, ``workdir``...) or the tool's
root, and is unknown once the call changes directory (``cd``) or when it
is git's own state (a ``.git`` directory, a ``.gitconfig``).
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence
from urllib.parse import urlsplit

from . import _checks, _shell
from .. import argkeys
from ..exceptions import MCPClientError
from ..paths import (Location, Tri, check_root, contains, located, resolve, root_for, segments,
                     tri_all, tri_any, within_any)
from ._places import CWD_KEYS, commands_of, git_state, with_writes

__all__ = ["RuleError", "RULE_KEYS", "DECISIONS", "SEVERITIES", "CHECKS", "Rule", "compile_rule",
           "compile_rules", "Facts", "gather", "host_of", "check_roots", "CHECK_FUNCTIONS",
           "ANNOTATIONS_UNREAD"]

#: Every key a rule may carry, in the order a rendered rule shows them.
RULE_KEYS = ("tool", "decision", "under", "command", "args", "args_any", "exact", "check",
             "host", "note", "severity")
#: Decisions, weakest first: the strongest one that fires wins.
DECISIONS = ("allow", "ask", "deny")
SEVERITIES = ("normal", "danger")
#: Names ``check`` accepts.
CHECKS = ("read-only", "inside-roots", "recursive-delete", "pipes-to-shell", "force-push",
          "hard-reset", "discards-changes")
#: Longest URL text read at all (a common de facto limit of browsers and servers).
MAX_URL_CHARS = 8192

_LABEL = re.compile(r"^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?$")
_IPV4 = re.compile(r"^(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])$")
_IPV6 = re.compile(r"^[0-9a-f:.]+$")
_URL_SCHEMES = ("http", "https", "ws", "wss")


class RuleError(MCPClientError, ValueError):
    """A rule (or grant, or an answer's rule) that cannot be used.

    Attributes:
        index: the rule's position in its list (``None`` when the list itself
            is wrong).
        key: the offending key (``None`` when the rule as a whole is wrong).
        reason: what is wrong with it.
        where: what kind of list: ``"rule"``, ``"grant"`` or ``"answer rule"``.
    """

    def __init__(self, index: int | None, key: str | None, reason: str, *,
                 where: str = "rule") -> None:
        self.index = index
        self.key = key
        self.reason = reason
        self.where = where
        place = f"{where} {index}" if index is not None else f"{where}s"
        super().__init__(f"{place}: {key}: {reason}" if key else f"{place}: {reason}")

    def __reduce__(self) -> Any:
        return (_rebuild_rule_error, (self.index, self.key, self.reason, self.where))


def _rebuild_rule_error(index: int | None, key: str | None, reason: str,
                        where: str) -> RuleError:
    return RuleError(index, key, reason, where=where)


# -- validation ------------------------------------------------------------------------------


def _glob(value: Any, what: str) -> str:
    if not isinstance(value, str) or not value:
        raise ValueError(f"must be a non-empty string ({what}), not {value!r}")
    if "*" in value[:-1]:
        raise ValueError(f"only one trailing * is allowed ({what}), not {value!r}")
    return value


def _words(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not value:
        raise ValueError(f"must be a non-empty list of strings, not {value!r}")
    if not all(isinstance(word, str) and word for word in value):
        raise ValueError(f"every item must be a non-empty string, not {value!r}")
    return tuple(value)


def _host_pattern(value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise ValueError(f"must be a host or a *. suffix glob, not {value!r}")
    lowered = value.lower()
    glob = lowered.startswith("*.")
    host = _clean_host(lowered[2:] if glob else lowered)
    if host is None:
        raise ValueError(f"must be a host (docs.raku.org) or a *. suffix glob (*.raku.org), "
                         f"not {value!r}")
    return ("*." if glob else "") + host


def _under(value: Any) -> str:
    split = segments(value)
    if split is None:
        raise ValueError(f"must be a plain directory path (no '..', backslash, NUL, percent "
                         f"escape or leading ~), not {value!r}")
    if split[0]:
        return "/" + "/".join(split[1])
    return "/".join(split[1]) or "."


_CHECKERS: dict[str, Callable[[Any], Any]] = {
    "tool": lambda v: _glob(v, "a tool name, or a prefix ending in *"),
    "command": lambda v: _command_pattern(v),
    "args": _words,
    "args_any": _words,
    "under": _under,
    "host": _host_pattern,
}


def _command_pattern(value: Any) -> str:
    pattern = _glob(value, "a program basename, or a prefix ending in *")
    if "/" in pattern:
        raise ValueError(f"is matched against the program's basename, so a / could never "
                         f"match: {value!r}")
    return pattern


def _check_value(key: str, value: Any) -> Any:
    if key in _CHECKERS:
        return _CHECKERS[key](value)
    if key == "decision" and value not in DECISIONS:
        raise ValueError(f"must be one of {', '.join(DECISIONS)}, not {value!r}")
    if key == "check" and value not in CHECKS:
        close = difflib.get_close_matches(str(value), CHECKS, n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise ValueError(f"must be one of {', '.join(CHECKS)}, not {value!r}{hint}")
    if key == "severity" and value not in SEVERITIES:
        raise ValueError(f"must be one of {', '.join(SEVERITIES)}, not {value!r}")
    if key == "note" and not isinstance(value, str):
        raise ValueError(f"must be a string, not {value!r}")
    if key == "exact" and not isinstance(value, bool):
        raise ValueError(f"must be true or false, not {value!r}")
    return value


@dataclass(frozen=True)
class Rule:
    """A validated rule.

    Each rule key (``tool``, ``decision``, ``under``, ``command``, ``args``,
    ``args_any``, ``exact``, ``check``, ``host``, ``note``) is an attribute
    holding its validated value (``host`` lowercased, ``under`` normalised).

    Attributes:
        index: its position in the list it came from.
        source: a copy of the rule as given (plain data).
        danger: ``severity`` is ``danger``.
    """

    index: int
    source: dict[str, Any]
    tool: str
    decision: str
    under: str | None = None
    command: str | None = None
    args: tuple[str, ...] = ()
    args_any: tuple[str, ...] = ()
    exact: bool = False
    check: str | None = None
    host: str | None = None
    note: str | None = None
    danger: bool = False

    @property
    def narrowed(self) -> bool:
        """Whether anything but ``tool`` limits which calls it speaks about."""
        return any(value is not None for value in (self.under, self.command, self.check,
                                                   self.host))

    def names(self, tool: str) -> bool:
        """Whether this rule's ``tool`` pattern matches ``tool``."""
        return _glob_match(self.tool, tool)

    def fires(self, facts: Facts) -> bool:
        """Whether this rule has an opinion about the call ``facts`` describe."""
        if not self.names(facts.tool):
            return False
        every = self.decision == "allow"
        parts: list[Tri] = []
        if self.under is not None:
            parts.append(self._under(facts, every))
        if self.command is not None:
            command = self.command
            parts.append(_spread(facts.commands, every, lambda one: _checks.match_command(
                one, command, self.args, self.args_any, self.exact, every)))
        if self.check is not None:
            parts.append(CHECK_FUNCTIONS[self.check](facts))
        if self.host is not None:
            parts.append(_spread(facts.urls, every, self._host))
        value = tri_all(parts)
        return value is Tri.YES if every else value is not Tri.NO

    def _under(self, facts: Facts, every: bool) -> Tri:
        assert self.under is not None
        under = self.under
        directory = under if under.startswith("/") else resolve(under, facts.root)
        items = facts.locations
        if every:
            return _spread(items, every, lambda loc: contains(directory, loc.resolved))
        if facts.shadows:                   # a read-only tool's strays, to a deny or ask
            items = [*(items or []), *facts.shadows]
        runs = facts.commands is not None
        return _spread(items, every, lambda loc: contains(directory, loc.resolved)
                       | _reaches_into(directory, loc, runs))

    def _host(self, url: Any) -> Tri:
        assert self.host is not None
        host = host_of(url)
        if host is None:
            return Tri.UNKNOWN
        if self.host.startswith("*."):
            return Tri.YES if host.endswith(self.host[1:]) else Tri.NO
        return Tri.YES if host == self.host else Tri.NO


def _reaches_into(directory: str | None, location: Location, runs: bool) -> Tri:
    """To a deny or ask: a call naming a directory above the rule's (``fs_delete
    /srv/work`` beside a deny under ``/srv/work/secret``, a search of the root) may act
    on what is inside it, so it is unknown.  The directory a command runs in (``cwd``,
    ``git -C``) is not: running there touches nothing by itself."""
    if directory is None or location.resolved is None or location.key.startswith(
            ("git ", "redirect")) or (runs and location.key in CWD_KEYS):
        return Tri.NO
    inside = contains(location.resolved, directory)
    return Tri.NO if inside is Tri.NO else Tri.UNKNOWN


def _glob_match(pattern: str, name: str) -> bool:
    return name.startswith(pattern[:-1]) if pattern.endswith("*") else name == pattern


def _spread(items: Sequence[Any] | None, every: bool, test: Callable[[Any], Tri]) -> Tri:
    """A narrower over several items: all yes for an allow, any yes/unknown otherwise."""
    if items is None or not items:
        return Tri.UNKNOWN
    values = (test(item) for item in items)
    return tri_all(values) if every else tri_any(values)


def compile_rule(raw: Any, index: int, *, where: str = "rule",
                 decisions: Sequence[str] = DECISIONS,
                 default_decision: str | None = None) -> Rule:
    """Validate one rule.

    Args:
        raw: the rule, a mapping of the keys in :data:`RULE_KEYS`.
        index: its position, for the error message.
        where: ``"rule"``, ``"grant"`` or ``"answer rule"``, for the error message.
        decisions: the decisions allowed here (a grant is ``allow`` or ``deny``).
        default_decision: used when ``decision`` is absent (an answer's rule
            takes its decision from the answer); when given, a different
            ``decision`` in the rule is an error.

    Returns:
        The validated :class:`Rule`.

    Raises:
        RuleError: naming the index and the key at fault.
    """
    if not isinstance(raw, Mapping):
        raise RuleError(index, None, f"must be a mapping of rule keys, not {raw!r}", where=where)
    values: dict[str, Any] = {}
    for key, value in raw.items():
        if key not in RULE_KEYS:
            close = difflib.get_close_matches(str(key), RULE_KEYS, n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise RuleError(index, str(key), f"is not a rule key{hint}", where=where)
        try:
            values[key] = _check_value(key, value)
        except ValueError as exc:
            raise RuleError(index, key, str(exc), where=where) from None
    _whole(values, index, where, decisions, default_decision)
    source = json.loads(json.dumps(dict(raw)))
    source["decision"] = values["decision"]
    return Rule(index=index, source=source, tool=values["tool"],
                decision=values["decision"], under=values.get("under"),
                command=values.get("command"), args=values.get("args", ()),
                args_any=values.get("args_any", ()), exact=values.get("exact", False),
                check=values.get("check"),
                host=values.get("host"), note=values.get("note"),
                danger=values.get("severity") == "danger")


def _whole(values: dict[str, Any], index: int, where: str, decisions: Sequence[str],
           default_decision: str | None) -> None:
    """The checks that look at more than one key."""
    if "tool" not in values:
        raise RuleError(index, "tool", "is required", where=where)
    if default_decision is not None:
        if values.setdefault("decision", default_decision) != default_decision:
            raise RuleError(index, "decision", f"contradicts the answer: a rule remembered by "
                            f"this answer can only be {default_decision}", where=where)
    if "decision" not in values:
        raise RuleError(index, "decision", "is required", where=where)
    if values["decision"] not in decisions:
        raise RuleError(index, "decision", f"must be one of {', '.join(decisions)} here, "
                        f"not {values['decision']!r}", where=where)
    for key in ("args", "args_any", "exact"):
        if key in values and "command" not in values:
            raise RuleError(index, key, "needs a command as well", where=where)
    if values.get("severity") == "danger" and values["decision"] == "allow":
        raise RuleError(index, "severity", "danger cannot go with decision allow (a danger "
                        "rule is asked every time)", where=where)


def compile_rules(raw: Any, *, where: str = "rule", decisions: Sequence[str] = DECISIONS,
                  default_decision: str | None = None) -> list[Rule]:
    """Validate a list of rules, all or nothing (see :func:`compile_rule`).

    Raises:
        RuleError: the first unusable rule, or ``raw`` is not a list.
    """
    if raw is None:
        return []
    if not isinstance(raw, (list, tuple)):
        raise RuleError(None, None, f"must be a list of rules, not {type(raw).__name__}",
                        where=where)
    return [compile_rule(rule, index, where=where, decisions=decisions,
                         default_decision=default_decision) for index, rule in enumerate(raw)]


# -- facts about a call ---------------------------------------------------------------------

#: ``Facts.annotations`` when the provider could not say what the tool is.
ANNOTATIONS_UNREAD: dict[str, Any] = {"__unread__": True}


@dataclass(frozen=True)
class Facts:
    """Everything the rules read about one call, gathered once.

    Attributes:
        tool: the tool's name.
        arguments: the parsed arguments.
        root: the tool's root, or ``None``.
        roots: every configured root.
        locations: the call's locations (``None``: it names none).
        commands: its effective commands (``None``: it has no command).
        urls: its URL values (``None``: it has none).
        annotations: the server's annotations for the tool, ``None`` when it
            has none, :data:`ANNOTATIONS_UNREAD` when they could not be read.
        shadows: for a tool annotated ``readOnlyHint``, its strays (path-like
            strings under keys nobody knows), resolved: not locations to an
            allow or the floor, but a deny or ask ``under`` still sees them.
    """

    tool: str
    arguments: dict[str, Any]
    root: str | None
    roots: tuple[str, ...]
    locations: list[Location] | None
    commands: list[_shell.Command] | None
    urls: list[Any] | None
    annotations: Any
    shadows: tuple[Location, ...] = ()


def _read_only_notes(annotations: Any) -> bool:
    return isinstance(annotations, Mapping) and annotations is not ANNOTATIONS_UNREAD and \
        annotations.get("readOnlyHint") is True


def _urls(found: argkeys.Scan, strays: bool) -> list[Any] | None:
    """Every URL value; a stray or a walk cut short adds one that cannot be read."""
    urls = [value for _, value in found.urls]
    if strays:
        urls.extend(None for _ in found.strays)
    if not found.complete:
        urls.append(None)
    return urls or None


def gather(tool: str, arguments: dict[str, Any], roots: Mapping[str, str],
           annotations: Any) -> Facts:
    """Read what the rules need out of one call (roots already normalised).

    Locations, URLs and commands are read wherever :mod:`mcp_client.argkeys`
    finds them.  Unless the server annotated the tool ``readOnlyHint``, a
    string that looks like a path or a URL under a key nobody knows is one
    more location and one more URL, both unknown: an allow narrowed by
    ``under`` or ``host`` cannot fire on it.
    """
    root = root_for(roots, tool)
    found = argkeys.scan(arguments)
    strays = not _read_only_notes(annotations)
    commands = commands_of(arguments, found)
    named = git_state(located(found, root, strays=strays), strays)
    shadows = () if strays else tuple(
        Location(key, value, resolve(value, root)) for key, value in found.strays
        if "://" not in value or value[:5].lower() == "file:")
    return Facts(tool=tool, arguments=arguments, root=root, roots=tuple(roots.values()),
                 locations=with_writes(named, commands, arguments, root),
                 commands=commands, urls=_urls(found, strays), annotations=annotations,
                 shadows=shadows)


def check_roots(roots: Any) -> dict[str, str]:
    """Validate ``roots`` (tool-name prefix -> absolute directory) and normalise them.

    Raises:
        MCPClientError: naming the prefix whose root is unusable.
    """
    if roots is None:
        return {}
    if not isinstance(roots, Mapping):
        raise MCPClientError(f"roots must be a mapping of tool-name prefix to directory, "
                             f"not {type(roots).__name__}")
    checked = {}
    for prefix, root in roots.items():
        if not isinstance(prefix, str):
            raise MCPClientError(f"roots: the prefix {prefix!r} is not a string")
        try:
            checked[prefix] = check_root(root)
        except ValueError as exc:
            raise MCPClientError(f"roots: {prefix!r}: {exc}") from None
    return checked


def _clean_host(host: str) -> str | None:
    if host.endswith("."):
        host = host[:-1]
    if not host or not host.isascii():
        return None
    if ":" in host:
        return host if _IPV6.match(host) else None
    labels = host.split(".")
    if not all(_LABEL.match(label) for label in labels):
        return None
    numeric = labels[-1].isdigit() or labels[-1].startswith("0x")
    if numeric and not (len(labels) == 4 and all(_IPV4.match(label) for label in labels)):
        return None     # 2130706433, 0x7f.1, 127.1: one address, many spellings
    return host


def host_of(url: Any) -> str | None:
    """The host a URL names, lowercased, or ``None`` when it cannot be read plainly.

    Unknown: a non-string, a scheme other than http(s)/ws(s), no host, a
    userinfo part (``https://docs.raku.org@evil.example/``), a backslash,
    whitespace or control character anywhere, a percent escape or non-ASCII
    character in the host, a bad port, an IP address spelt any way but
    dotted-quad, an empty label.  One trailing dot is dropped (it is the same
    host).
    """
    if not isinstance(url, str) or not url or len(url) > MAX_URL_CHARS:
        return None
    if any(char == "\\" or ord(char) <= 0x20 or 0x7f <= ord(char) <= 0x9f for char in url):
        return None
    try:
        parts = urlsplit(url)
        parts.port
    except ValueError:
        return None
    if parts.scheme.lower() not in _URL_SCHEMES or "@" in parts.netloc or "%" in parts.netloc:
        return None
    return _clean_host(parts.hostname or "")


# -- the checks -----------------------------------------------------------------------------


def _read_only(facts: Facts) -> Tri:
    notes = facts.annotations
    if not isinstance(notes, Mapping) or notes is ANNOTATIONS_UNREAD:
        return Tri.UNKNOWN
    return Tri.YES if notes.get("readOnlyHint") is True else Tri.NO


def _inside_roots(facts: Facts) -> Tri:
    if not facts.locations:
        return Tri.UNKNOWN
    return tri_all(within_any(facts.roots, loc.resolved) for loc in facts.locations)


#: What each ``check`` name computes, over the facts of one call.
CHECK_FUNCTIONS: dict[str, Callable[[Facts], Tri]] = {
    "read-only": _read_only,
    "inside-roots": _inside_roots,
    "recursive-delete": lambda f: _checks.recursive_delete(f.tool, f.arguments, f.commands),
    "pipes-to-shell": lambda f: _checks.pipes_to_shell(f.commands),
    "force-push": lambda f: _checks.force_push(f.commands),
    "hard-reset": lambda f: _checks.hard_reset(f.commands),
    "discards-changes": lambda f: _checks.discards_changes(f.commands),
}
