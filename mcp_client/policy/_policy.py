"""Permissions: a provider that decides, call by call, what the layer below may run.

:class:`Policy` wraps a provider (anything with ``tools_for_llm()`` and
``execute_tool_calls(calls)``) and is one, so it stacks anywhere a provider
goes.  :class:`Grants` (:mod:`mcp_client.policy._grants`) is the
book of remembered answers that many policies, and with a store many
processes, can share.  The rule language
lives in :mod:`mcp_client.policy.rules`, location logic in :mod:`mcp_client.paths`,
command reading in :mod:`mcp_client.policy._shell`.  This module owns the decision
and the one seam to the human; it never touches the filesystem and
starts no thread.

How one call is decided, failing closed at every step:

1. A call is read once, by the :class:`~mcp_client.provider.Layer` a policy
   is, and its arguments parsed once, with the reader and parser every
   provider shares (:mod:`mcp_client.provider`, via :mod:`mcp_client.policy._calls`).
   A call that cannot be read is refused as every provider refuses one
   (:func:`~mcp_client.provider.refuse_unreadable`: ``malformed tool call:
   ...``), arguments that are not a JSON object in the parser's words
   (``fs_write: arguments are not valid JSON ...``); neither is forwarded:
   nothing unreadable is judged, let alone run.
2. Every rule whose ``tool`` matches is evaluated (no ``rules=`` means
   :meth:`Policy.default_rules`, which allow only tools the server annotated
   ``readOnlyHint: true`` and the lease tools; ``rules=[]`` means none); the strongest decision that
   fires wins (deny > ask > allow), so order never matters.  A deny refuses.
3. The *danger floor*: a fired ``severity: "danger"`` rule, or a built-in
   floor item that is yes or unknown -- ``recursive-delete``, ``force-push``,
   ``hard-reset``, ``discards-changes``, ``pipes-to-shell`` and
   ``write-outside-roots`` (a call
   that is not a read and names a location that is not definitely inside a
   configured root; with no roots, every such location is outside every
   root) -- means the call is asked about every time.
4. An allow that fired (and no ask, no floor) forwards the call.
5. Otherwise -- an ask fired, or no rule matched -- the grants are consulted:
   this policy's own, then the shared book, as rules with the same
   strongest-wins order.  A deny grant refuses (deny beats ask, and the
   floor too: it only ever refuses).  An allow grant forwards only a call
   that no ask rule matched and that is not on the floor (ask beats allow):
   an explicit ask rule keeps asking.
6. Otherwise the human is asked through ``on_ask``; headless (no
   ``on_ask``), the call is refused with a message saying nobody was there to
   ask.  Under the ask lock the grants are read once more, so a question
   answered "always" on another thread is not asked twice.

Allowed calls are forwarded to the inner provider as one batch, in call
order, with the arguments *as this policy parsed them* (a dict), so the layer
below runs exactly what was judged.  Refused calls are answered in place with
``{"role": "tool", "tool_call_id", "content", "is_error": True}``, the
content starting ``"refused by policy: "`` and saying why (which rule, the
user, nobody to ask...).  ``calls`` that is not a list is a programming
error, raised as :class:`~mcp_client.exceptions.MCPClientError` like every
other provider in this package does; nothing about a single call raises.

The permission question handed to ``on_ask`` is a plain dict::

    {"kind": "permission", "tool": "fs_write",
     "arguments": {...},            # parsed, a copy
     "call": {...},                 # the call as given, a copy
     "rule": {...} | None,          # the rule that provoked it (danger first, then ask)
     "rule_index": 3 | None,
     "why": "rule 3 asks: writes need a look",
     "danger": False,               # on the danger floor
     "asks_every_time": False,      # floor or an ask rule: an allow grant cannot silence it
     "floor": [{"check": "recursive-delete", "value": "yes"}],   # or "unknown"
     "locations": [{"key": "path", "value": "a.txt", "resolved": "/srv/work/a.txt"}],
     "suggestion": "/srv/work" | None,
     "suggested_rule": {"tool": "fs_write", "under": "/srv/work"} | None,
     "answers": ["allow-once", "deny-once", "always-allow", "always-deny"]}

``suggestion`` is the deepest directory containing everything the call
touches (:func:`mcp_client.paths.common_directory`: a path contributes its
parent unless it ends in ``/``); ``None`` when the call names no location or
one that cannot be read.  ``suggested_rule`` is what an always- answer without
a rule remembers, never wider than the call: the tool, narrowed by ``under:
suggestion``, by the program of a single readable command with all its words
and ``exact`` (``git`` ``push origin main``, and nothing more), and by the
exact host of the call's URLs; ``None`` when one of those cannot be read,
and then an always- answer must bring its own ``rule`` or ``rules``.
A server's elicitation, forwarded by :attr:`Policy.elicit_hook`, reaches the
same ``on_ask`` as the client's request dict (``{"method":
"elicitation/create", "params": ...}``; no ``kind`` key) and is answered with
an ElicitResult.

The answer is ``"allow-once"``, ``"deny-once"``, ``"always-allow"`` or
``"always-deny"``, or a dict ``{"action": ..., "rule": {...}}`` /
``{"action": ..., "rules": [...]}`` (always- only).  An answer's rules may
omit ``decision``; each is validated like a rule, all or nothing.  Anything
else -- an unknown action or key, a rule that does not validate, ``on_ask``
raising -- refuses the call and remembers nothing.

Threads: decisions run on the caller's thread; many may run at once.  Every
question (permission or elicitation) goes through one non-reentrant
``threading.Lock`` with no timeout -- the book's, when ``grants_store`` is
given (one book is one human), else the policy's own; a book kept in a store
adds its question lease, so one question is open at a time across every
process sharing the book.  A shared book that cannot be read or written fails
closed: the call is refused, saying which book (an elicitation is declined).
A human deliberating stalls every waiting batch; a UI that wants a deadline imposes it inside the
callback.  An ``on_ask`` (or ``on_grant``, which runs under the same lock
while its call is still being decided) that dispatches a policy-mediated call
which has to ask, from inside the callback, would wait on its own question for
ever: on the same thread, that inner question is refused instead (an
elicitation is declined) and the warning says why.  From another thread the
lock cannot tell, and it waits: treat both callbacks as leaves.

``cancel_tool_calls(ids)`` (:meth:`Layer.cancel_tool_calls
<mcp_client.provider.Layer.cancel_tool_calls>`) reaches the calls in flight
below; a call still waiting on ``on_ask`` is not interrupted, and nothing
remembers its id: if the human allows it, it is sent.

What no rule reads: the ``reason`` argument a :mod:`mcp_client.reasons` layer
below adds is shown to the human (it is in the question's arguments and call)
but is never a location, a command or a URL -- machine policy does not
consume a model's account of its own intentions.
"""

from __future__ import annotations

import copy
import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence, cast

from ._asking import ANSWERS, interpret, suggested_rule
from ._book import GrantBookError
from ._calls import parse_arguments, shown
from ._grants import Grants
from .._options import unknown_option
from ..exceptions import MCPClientError
from ..paths import Tri, common_directory
from ..provider import (CallParts, Layer, call_meta, declared_name, error_message,
                        refuse_unreadable)
from .rules import (ANNOTATIONS_UNREAD, CHECK_FUNCTIONS, Facts, Rule, RuleError, check_roots,
                    compile_rules, gather)

if TYPE_CHECKING:
    from ..types import ToolDeclaration, ToolMessage
    from ._tracing import DecisionSpans

__all__ = ["Policy", "Grants", "ANSWERS", "LEASE_TOOLS", "FLOOR_CHECKS", "REFUSED"]

log = logging.getLogger(__name__)

#: The lease layer's tools (:mod:`mcp_client.leases`): bookkeeping, counted as reads.
LEASE_TOOLS = ("lock_acquire", "lock_release")
#: The built-in danger floor, in the order a question lists it.
FLOOR_CHECKS = ("recursive-delete", "force-push", "hard-reset", "discards-changes",
                "pipes-to-shell", "write-outside-roots")
#: How every refusal's content starts.
REFUSED = "refused by policy"

_OPTIONS = ("rules", "roots", "on_ask", "on_grant", "grants", "grants_store", "tracer_provider")


_NESTED = ("it was asked from inside on_ask or on_grant, which are still waiting for an "
           "earlier answer on this thread, and a question cannot wait on itself")


@dataclass
class _Outcome:
    """What was decided about one call: forward it, or answer it with ``content``."""

    allow: bool
    content: str = ""


@dataclass
class _Static:
    """What the static rules (and the floor) said about a call."""

    deny: Rule | None = None
    allow: bool = False
    danger: bool = False
    sticky: bool = False
    provoking: Rule | None = None
    floor: list[dict[str, str]] = field(default_factory=list)


class Policy(Layer):
    """A provider that decides what its inner provider may run (see the module docstring).

    Args:
        provider: the inner provider (``tools_for_llm``, ``execute_tool_calls``).
        rules: rules (:mod:`mcp_client.policy.rules`); ``None`` (the default) is
            :meth:`default_rules` -- only tools annotated ``readOnlyHint`` and
            the lease tools go through, everything else is asked about -- and
            ``[]`` is no rules at all, so every call is asked about.
        roots: tool-name prefix -> the server's directory (absolute), e.g.
            ``{"fs": "/srv"}`` (:func:`mcp_client.paths.root_for`).
        on_ask: ``on_ask(question) -> answer``; ``None`` makes the policy
            headless (every ask is refused).
        on_grant: ``on_grant(grants)``, told the whole (copied) grant set
            when an always- answer adds to it; an exception in it is logged
            and swallowed.
        grants: this policy's own grants from a previous session.
        grants_store: a shared :class:`Grants` book.
        tracer_provider: an OpenTelemetry ``TracerProvider`` (extra ``[otel]``): each
            decision is a span ``policy {tool}`` with ``mcp.policy.decision`` and, for a
            refusal, ``mcp.policy.reason`` (:mod:`._tracing`).

    Raises:
        RuleError: a rule or grant that does not validate (index and key named).
        MCPClientError: an unknown option, a provider without the two
            methods, a non-callable hook, unusable roots.
    """

    def __init__(self, provider: Any, *, rules: Sequence[Mapping[str, Any]] | None = None,
                 roots: Mapping[str, str] | None = None,
                 on_ask: Callable[[dict[str, Any]], Any] | None = None,
                 on_grant: Callable[[list[dict[str, Any]]], Any] | None = None,
                 grants: Sequence[Mapping[str, Any]] | None = None,
                 grants_store: Grants | None = None, tracer_provider: Any = None,
                 **unknown: Any) -> None:
        for name in unknown:
            raise unknown_option(name, _OPTIONS)
        super().__init__(provider)
        if tracer_provider is not None and not callable(getattr(tracer_provider, "get_tracer",
                                                                None)):
            raise MCPClientError("tracer_provider must be an OpenTelemetry TracerProvider")
        self._spans: DecisionSpans | None = None
        if tracer_provider is not None:   # only when asked: no opentelemetry otherwise
            from . import _tracing

            self._spans = _tracing.DecisionSpans(tracer_provider)
        for name, hook in (("on_ask", on_ask), ("on_grant", on_grant)):
            if hook is not None and not callable(hook):
                raise MCPClientError(f"{name} must be callable or None")
        if grants_store is not None and not isinstance(grants_store, Grants):
            raise MCPClientError("grants_store must be a mcp_client.policy.Grants")
        self._rules = compile_rules(self.default_rules() if rules is None else rules)
        self._roots = check_roots(roots)
        self._on_ask = on_ask
        self._on_grant = on_grant
        self._own = Grants(grants)
        self._store = grants_store
        self._book = grants_store if grants_store is not None else self._own
        self._ask_lock = self._book._ask_lock

    # -- the public surface ---------------------------------------------------------------

    @staticmethod
    def default_rules() -> list[dict[str, Any]]:
        """Reads go through; everything else asks (a fresh list each call).

        A *read* is a call to a tool the server annotated ``readOnlyHint:
        true`` (the ``read-only`` check), or to the lease layer's
        ``lock_acquire`` / ``lock_release``.  Nothing else is allowed, and
        there is deliberately no ``{"tool": "*", "decision": "ask"}``: a call
        no rule matches is asked about anyway, while an ask rule that fires
        beats every allow grant (ask > allow), so it would mean "keep asking"
        and no always-allow answer could ever take effect.
        """
        return [
            {"tool": "*", "decision": "allow", "check": "read-only",
             "note": "reads go through: the server annotated the tool readOnlyHint"},
            {"tool": "lock_acquire", "decision": "allow",
             "note": "taking a file lease changes nothing on disk"},
            {"tool": "lock_release", "decision": "allow",
             "note": "releasing a file lease changes nothing on disk"},
        ]

    @property
    def interactive(self) -> bool:
        """Whether there is somebody to ask (``on_ask`` was given)."""
        return self._on_ask is not None

    @property
    def grants(self) -> list[dict[str, Any]]:
        """The effective grants as plain data: this policy's own, then the shared book's."""
        shared = self._store.grants if self._store is not None else []
        return self._own.grants + shared

    @property
    def elicit_hook(self) -> Callable[[dict[str, Any]], Any]:
        """A callable to pass as a client's ``on_elicit``: the server's question goes
        to ``on_ask`` through the same lock as permission questions.  Headless it
        declines (``{"action": "decline"}``)."""
        return self._elicit

    def tools_for_llm(self) -> list[ToolDeclaration]:
        """The inner provider's declarations, without tools a rule denies outright
        (a ``deny`` rule with no narrower but ``tool``)."""
        return [declaration for declaration in self.provider.tools_for_llm()
                if not self._hidden(declaration)]

    def handle_calls(self, calls: list[Any], parts: list[CallParts]) -> list[ToolMessage]:
        """Decide each call, forward the allowed ones as one batch, refuse the rest in place.

        :meth:`~mcp_client.provider.Layer.execute_tool_calls` (the layer's)
        has refused the calls it could not read and raised for ``calls`` that
        is not a list; nothing about a single call raises.

        Returns:
            One result per call, in call order.
        """
        results: list[ToolMessage | None] = [None] * len(calls)
        forward: list[tuple[int, CallParts, dict[str, Any]]] = []
        metas: dict[int, dict[str, Any] | None] = {}
        for position, (call, part) in enumerate(zip(calls, parts)):
            results[position] = refuse_unreadable(part)   # the Layer's already were
            if results[position] is not None or part.name is None:
                continue
            name = part.name
            try:
                arguments, outcome = self._decide(call, part, name) if self._spans is None \
                    else self._spans.decide(lambda: self._decide(call, part, name), name)
            except Exception as exc:        # a bug here must still refuse, not raise
                log.exception("the policy could not decide a call")
                arguments, outcome = None, _Outcome(
                    False, f"{REFUSED}: the policy could not decide ({type(exc).__name__}: "
                    f"{exc}).")
            if outcome.allow and arguments is not None:
                forward.append((position, part, arguments))
                metas[position] = call_meta(call)
            else:
                results[position] = _refusal(part.ident, outcome.content)
        for position, result in zip([p for p, _, _ in forward], self._forward(forward, metas)):
            results[position] = result
        return [result if result is not None else _refusal("", f"{REFUSED}: no result.")
                for result in results]

    def __repr__(self) -> str:
        mode = "interactive" if self.interactive else "headless"
        shared = " shared-book" if self._store is not None else ""
        try:
            grants: int | str = len(self.grants)
        except GrantBookError:          # a shared book that is unavailable right now
            grants = "?"
        return (f"<Policy rules={len(self._rules)} roots={len(self._roots)} "
                f"grants={grants}{shared} {mode}>")

    # -- deciding -------------------------------------------------------------------------

    def _decide(self, call: Any, part: CallParts,
                name: str) -> tuple[dict[str, Any] | None, _Outcome]:
        """Whether to forward ``call`` (read as ``part``, naming ``name``), and with which
        arguments: the ones judged."""
        arguments, why = parse_arguments(part.arguments)
        if arguments is None:
            return None, _Outcome(False, f"{name}: {why}")
        facts = gather(name, arguments, self._roots, self._annotations(name))
        static = self._static(facts)
        if static.deny is not None:
            return arguments, _Outcome(False, _denied_by(name, static.deny))
        if static.allow:
            return arguments, _Outcome(True)
        granted = self._granted(facts, static.sticky)
        if granted is not None:
            return arguments, granted
        if self._on_ask is None:
            return arguments, _Outcome(False, f"{REFUSED}: {name} needs a human's "
                                       f"permission ({_why(static)}), and there was nobody "
                                       "to ask: this policy has no on_ask.")
        if not self._ask_lock.enter():
            log.warning("refused %s: %s", name, _NESTED)
            return arguments, _Outcome(False, f"{REFUSED}: {name} needs a human's "
                                       f"permission ({_why(static)}), but {_NESTED}.")
        try:
            granted = self._granted(facts, static.sticky)
            if granted is not None:
                return arguments, granted
            return arguments, self._ask(call, part, facts, static)
        finally:
            self._ask_lock.leave()

    def _annotations(self, name: str) -> Any:
        try:
            found = self.tool_annotations(name)
        except Exception:
            log.debug("tool_annotations(%r) failed", name, exc_info=True)
            return ANNOTATIONS_UNREAD
        return copy.deepcopy(found) if isinstance(found, Mapping) else None

    def _static(self, facts: Facts) -> _Static:
        fired = [rule for rule in self._rules if rule.fires(facts)]
        static = _Static(floor=_floor(facts))
        static.deny = next((rule for rule in fired if rule.decision == "deny"), None)
        dangers = [rule for rule in fired if rule.danger]
        asks = [rule for rule in fired if rule.decision == "ask"]
        static.danger = bool(dangers or static.floor)
        static.sticky = static.danger or bool(asks)
        static.provoking = next(iter(dangers or asks), None)
        static.allow = not static.danger and not asks and any(
            rule.decision == "allow" for rule in fired)
        return static

    def _granted(self, facts: Facts, sticky: bool) -> _Outcome | None:
        book = self._own.rules() + (self._store.rules() if self._store is not None else [])
        fired = [rule for rule in book if rule.fires(facts)]
        denied = next((rule for rule in fired if rule.decision == "deny"), None)
        if denied is not None:
            note = f" ({denied.note})" if denied.note else ""
            return _Outcome(False, f"{REFUSED}: {facts.tool} is denied by a remembered "
                                   f"grant{note}.")
        if not sticky and any(rule.decision == "allow" for rule in fired):
            return _Outcome(True)
        return None

    def _hidden(self, declaration: Any) -> bool:
        name = declared_name(declaration)
        return name is not None and any(
            rule.decision == "deny" and not rule.narrowed and rule.names(name)
            for rule in self._rules)

    # -- asking ---------------------------------------------------------------------------

    def _ask(self, call: Any, part: CallParts, facts: Facts, static: _Static) -> _Outcome:
        """Put the question to ``on_ask`` and act on the answer (the ask lock is held)."""
        assert self._on_ask is not None
        question = _question(shown(call, part), facts, static)
        try:
            answer = self._on_ask(copy.deepcopy(question))
        except Exception as exc:
            log.warning("on_ask raised %s: %s", type(exc).__name__, exc)
            return _Outcome(False, f"{REFUSED}: asking for permission to run {facts.tool} "
                                   f"failed ({type(exc).__name__}: {exc}), so it was not run.")
        try:
            action, remember = interpret(answer, question["suggested_rule"])
        except (RuleError, ValueError) as exc:
            return _Outcome(False, f"{REFUSED}: the answer about {facts.tool} could not be "
                                   f"used ({exc}), so it was not run and nothing was "
                                   "remembered.")
        try:
            added = bool(remember) and self._book.add(remember, question=question)
        except GrantBookError as exc:
            log.warning("the answer about %s was not remembered: %s", facts.tool, exc)
            return _Outcome(False, f"{REFUSED}: the answer about {facts.tool} could not be "
                                   f"remembered ({exc}), so it was not run.")
        if added:
            self._tell_grant()
        if action in ("allow-once", "always-allow"):
            return _Outcome(True)
        return _Outcome(False, f"{REFUSED}: the user denied this call to {facts.tool}.")

    def _tell_grant(self) -> None:
        if self._on_grant is None:
            return
        try:
            self._on_grant(self.grants)
        except Exception:
            log.warning("on_grant raised; the grant stands", exc_info=True)

    def _elicit(self, request: dict[str, Any]) -> Any:
        if self._on_ask is None:
            return {"action": "decline"}
        try:
            entered = self._ask_lock.enter()
        except GrantBookError as exc:
            log.warning("declined an elicitation: %s", exc)
            return {"action": "decline"}
        if not entered:
            log.warning("declined an elicitation: %s", _NESTED)
            return {"action": "decline"}
        try:
            return self._on_ask(request)
        finally:
            self._ask_lock.leave()

    # -- forwarding -----------------------------------------------------------------------

    def _forward(self, batch: list[tuple[int, CallParts, dict[str, Any]]],
                 metas: Mapping[int, dict[str, Any] | None]) -> list[ToolMessage]:
        if not batch:
            return []
        calls = [_outgoing(part, arguments, metas.get(position))
                 for position, part, arguments in batch]
        try:
            answered = self.provider.execute_tool_calls(calls)
            results = list(answered) if isinstance(answered, (list, tuple)) else None
        except Exception as exc:
            log.warning("the inner provider raised %s: %s", type(exc).__name__, exc)
            return [_refusal(part.ident, f"{part.name} failed: the provider raised "
                                         f"{type(exc).__name__}: {exc}")
                    for _, part, _ in batch]
        if results is None or len(results) != len(calls):
            got = "not a list" if results is None else f"{len(results)} results"
            return [_refusal(part.ident, f"{part.name} failed: the provider answered "
                                         f"{len(calls)} calls with {got}")
                    for _, part, _ in batch]
        return [cast("ToolMessage", result) if isinstance(result, dict) else
                _refusal(part.ident, f"{part.name} failed: the provider's result was not a dict")
                for result, (_, part, _) in zip(results, batch)]


# -- pieces with no state -----------------------------------------------------------------------


def _refusal(call_id: Any, content: str) -> ToolMessage:
    return error_message(call_id, content)


def _denied_by(tool: str, rule: Rule) -> str:
    note = f" ({rule.note})" if rule.note else ""
    return f"{REFUSED}: {tool} is denied by rule {rule.index}{note}."


def _why(static: _Static) -> str:
    rule = static.provoking
    note = f": {rule.note}" if rule is not None and rule.note else ""
    if rule is not None and rule.danger:
        return f"rule {rule.index} marks it dangerous{note}"
    if static.floor:
        items = ", ".join(item["check"] + ("" if item["value"] == "yes" else " (unreadable)")
                          for item in static.floor)
        return f"it is on the danger floor: {items}"
    if rule is not None:
        return f"rule {rule.index} asks{note}"
    return "no rule allows it"


def _floor(facts: Facts) -> list[dict[str, str]]:
    values = {name: CHECK_FUNCTIONS[name](facts) for name in FLOOR_CHECKS[:-1]}
    values["write-outside-roots"] = _writes_outside(facts)
    return [{"check": name, "value": "yes" if values[name] is Tri.YES else "unknown"}
            for name in FLOOR_CHECKS if values[name] is not Tri.NO]


def _writes_outside(facts: Facts) -> Tri:
    """A call that is not a read, naming a location not definitely inside a root."""
    if facts.locations is None or facts.tool in LEASE_TOOLS:
        return Tri.NO
    if CHECK_FUNCTIONS["read-only"](facts) is Tri.YES:
        return Tri.NO
    inside = CHECK_FUNCTIONS["inside-roots"](facts)
    return {Tri.YES: Tri.NO, Tri.NO: Tri.YES, Tri.UNKNOWN: Tri.UNKNOWN}[inside]


def _question(call: dict[str, Any], facts: Facts, static: _Static) -> dict[str, Any]:
    rule = static.provoking
    locations = facts.locations or []
    return {
        "kind": "permission",
        "tool": facts.tool,
        "arguments": copy.deepcopy(facts.arguments),
        "call": call,   # shown(): already a detached copy
        "rule": copy.deepcopy(rule.source) if rule is not None else None,
        "rule_index": rule.index if rule is not None else None,
        "why": _why(static),
        "danger": static.danger,
        "asks_every_time": static.sticky,
        "floor": copy.deepcopy(static.floor),
        "locations": [{"key": loc.key, "value": copy.deepcopy(loc.value),
                       "resolved": loc.resolved} for loc in locations],
        "suggestion": common_directory(locations),
        "suggested_rule": suggested_rule(facts),
        "answers": list(ANSWERS),
    }


def _outgoing(part: CallParts, arguments: dict[str, Any],
              meta: dict[str, Any] | None) -> dict[str, Any]:
    """The call to forward, carrying the arguments exactly as they were judged, and the
    call's request ``_meta`` (a lease's fence, a view's mark: the provider contract's)."""
    call: dict[str, Any] = {"id": part.ident, "type": "function",
                            "function": {"name": part.name, "arguments": arguments}}
    if meta is not None:
        call["_meta"] = meta
    return call
