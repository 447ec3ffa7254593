"""JSON Schema checks of server-supplied schemas, in bounded time.

A server hands the client schemas to check values against: a tool's
``outputSchema`` (2025-11-25 / 2026-07-28 server/tools, "Output Schema") and an
elicitation's ``requestedSchema`` (client/elicitation).  Such a schema may hold
regular expressions -- ``pattern``, the keys of ``patternProperties``, a value
of ``format: regex`` -- and ``jsonschema`` runs them with Python's :mod:`re`,
which backtracks: ``^(a|a)*$`` against forty ``a`` and a ``b`` runs for days, and
holds the interpreter lock while it tries.  So every validator made here runs
each of those expressions in the ``regex`` package (a superset of :mod:`re`'s
syntax and meaning, so a schema means what it meant) with a timeout, all the
expressions of one validation sharing one budget (:data:`PATTERN_BUDGET`
seconds, or less when the caller has less left).  The keywords that apply
``patternProperties`` -- ``patternProperties``, ``additionalProperties``,
``unevaluatedProperties`` -- are replaced too, since ``jsonschema`` calls
:func:`re.search` for them directly.

Compiling is bounded too: ``regex`` unrolls counted repetitions, so
``(?:(?:a+){1000}){1000}`` -- 25 characters -- costs it 800 MiB.  A pattern is
first parsed by the standard library's own parser (:mod:`re`'s, which never
unrolls) and measured as ``regex`` would expand it; past
:data:`MAX_PATTERN_SIZE` it is not compiled.  A pattern that parser cannot read
is refused as it always was (``jsonschema`` checks ``format: regex`` with
:mod:`re`).

An expression that does not finish in the budget, or that is refused, ends
the whole validation as a failure (:func:`first_error` returns an
error saying so); it is never taken as a match nor as a mismatch, since either
answer could turn into a pass under ``not`` or ``anyOf``.

``jsonschema`` and ``regex`` are imported on first use: a client that never
checks a schema never pays for them.  Nothing here does I/O or keeps state but
compiled expressions and each thread's running budget.
"""

from __future__ import annotations

import functools
import importlib
import threading
import time
from typing import Any, Iterator

__all__ = ["PATTERN_BUDGET", "MAX_PATTERN_SIZE", "validator_for", "first_error",
           "format_checker"]

#: Seconds all the regular expressions of one validation may take together.  A
#: real pattern takes microseconds; a call's own budget (``request_timeout``,
#: 60 s) is far larger, and the hooks' time is not bounded by it at all.
PATTERN_BUDGET = 1.0
#: The largest pattern compiled, in characters and in the steps ``regex`` expands
#: it to: an atom is one, a counted repetition its body times its count (an open
#: one counts once).  10,000 steps compile in about 10 ms and 10 MiB; real
#: patterns are far smaller (dotted host labels,
#: ``^[a-z0-9]{1,63}(\.[a-z0-9]{1,63}){0,126}$``, come to about 8,100).
MAX_PATTERN_SIZE = 10_000
#: Compiled patterns kept, of at most :data:`_SMALL` steps each: a server cannot
#: fill the cache with big ones.
_COMPILED = 256
_SMALL = 1_000
_cache: dict[str, Any] = {}
_cache_lock = threading.Lock()

_state = threading.local()


class _Unchecked(Exception):
    """A regular expression that could not be applied: it ends the validation."""


def _compiled(pattern: str) -> Any:
    """``pattern`` compiled by ``regex``, if it is small enough (see :data:`MAX_PATTERN_SIZE`).

    Raises:
        ValueError: it is larger, or the standard parser cannot read it.
    """
    found = _cache.get(pattern)
    if found is not None:
        return found
    size = max(len(pattern), _size(pattern)) if len(pattern) <= MAX_PATTERN_SIZE \
        else len(pattern)
    if size > MAX_PATTERN_SIZE:
        raise ValueError(f"it expands to more than {MAX_PATTERN_SIZE} steps")
    import regex

    compiled = regex.compile(pattern)
    if size <= _SMALL:
        with _cache_lock:
            if len(_cache) >= _COMPILED:
                _cache.pop(next(iter(_cache)))
            _cache[pattern] = compiled
    return compiled


def _size(pattern: str) -> int:
    """The steps ``pattern`` unrolls to, by the standard library's parser of :mod:`re`."""
    import re

    try:
        parser: Any = importlib.import_module("re._parser")   # Python 3.11 on
    except ImportError:
        parser = importlib.import_module("sre_parse")
    try:
        return _steps(parser.parse(pattern), parser)
    except (re.error, RecursionError, OverflowError) as exc:
        raise ValueError(f"not a regular expression: {exc}") from None


def _steps(items: Any, parser: Any) -> int:
    """The steps of a parsed (sub)pattern; see :func:`_size`."""
    repeats = {getattr(parser, name, None) for name in
               ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT")} - {None}
    total = 0
    for op, value in items:
        if op in repeats:
            low, high, body = value
            total += max(low if high == parser.MAXREPEAT else high, 1) * _steps(body, parser)
            continue
        inner = [part for part in (value if isinstance(value, (tuple, list)) else (value,))
                 if isinstance(part, parser.SubPattern)]
        inner += [each for part in (value if isinstance(value, tuple) else ())
                  if isinstance(part, list) for each in part
                  if isinstance(each, parser.SubPattern)]   # a branch's alternatives
        total += max(1, sum(_steps(part, parser) for part in inner))
    return total


def _search(pattern: str, text: str) -> bool:
    """Whether ``pattern`` matches somewhere in ``text``, within the running budget."""
    import regex

    deadline = getattr(_state, "deadline", None)
    left = PATTERN_BUDGET if deadline is None else deadline - time.monotonic()
    if left <= 0:
        raise _Unchecked(f"the pattern {pattern[:80]!r} was not tried: the time for "
                         "the schema's patterns ran out")
    try:
        found = _compiled(pattern).search(text, timeout=left, concurrent=True)
    except TimeoutError:
        raise _Unchecked(f"the pattern {pattern[:80]!r} did not finish within "
                         f"{left:.2g}s") from None
    except (regex.error, ValueError, OverflowError, RecursionError) as exc:
        raise _Unchecked(f"the pattern {pattern[:80]!r} cannot be used ({exc})") from None
    return found is not None


def format_checker() -> Any:
    """A ``jsonschema.FormatChecker`` of every format, ``regex`` compiled by ``regex``."""
    import jsonschema
    import regex

    checker = jsonschema.FormatChecker(formats=jsonschema.FormatChecker.checkers)

    @checker.checks("regex", raises=(regex.error, ValueError, OverflowError, RecursionError))
    def _is_regex(instance: object) -> bool:
        return not isinstance(instance, str) or bool(_compiled(instance))

    return checker


def validator_for(schema: dict[str, Any], *, formats: bool = False) -> Any:
    """A checked validator for ``schema``: its ``$schema``'s draft (else 2020-12), bounded.

    Args:
        schema: the schema, a JSON object.
        formats: also assert ``format`` (by :func:`format_checker`); otherwise
            formats are annotations, as the drafts say by default.

    Raises:
        jsonschema.exceptions.SchemaError: ``schema`` is not valid in its draft
            (a pattern ``regex`` cannot compile included).
    """
    import jsonschema

    base = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    cls = _bounded(base)
    checker = format_checker()
    cls.check_schema(schema, format_checker=checker)
    return cls(schema, format_checker=checker if formats else None)


def first_error(validator: Any, instance: Any, *,
                budget: float | None = None) -> Any | None:
    """The most relevant error of ``instance`` under ``validator``, or None when it is valid.

    Args:
        validator: from :func:`validator_for`.
        instance: the value to check.
        budget: seconds the patterns may take (capped by :data:`PATTERN_BUDGET`).

    Returns:
        A ``jsonschema.exceptions.ValidationError`` or None.  A pattern that
        could not be applied in time is an error at the instance's root whose
        ``validator`` is ``"pattern"``.
    """
    import jsonschema

    seconds = PATTERN_BUDGET if budget is None else max(0.0, min(budget, PATTERN_BUDGET))
    outer = getattr(_state, "deadline", None)
    _state.deadline = time.monotonic() + seconds
    try:
        return jsonschema.exceptions.best_match(validator.iter_errors(instance))
    except _Unchecked as exc:
        return jsonschema.exceptions.ValidationError(str(exc), validator="pattern")
    finally:
        _state.deadline = outer


@functools.lru_cache(maxsize=None)
def _bounded(base: Any) -> Any:
    """``base`` (a draft's validator class) with every regular expression bounded."""
    import jsonschema

    ours = {"pattern": _pattern, "patternProperties": _pattern_properties,
            "additionalProperties": _additional_properties,
            "unevaluatedProperties": _unevaluated_properties}
    replaced = {keyword: ours[keyword] for keyword in ours if keyword in base.VALIDATORS}
    return jsonschema.validators.extend(base, replaced)  # type: ignore[no-untyped-call]


# -- the keywords (as jsonschema._keywords, with _search for re.search) ------------------

def _pattern(validator: Any, pattern: Any, instance: Any, schema: Any) -> Iterator[Any]:
    from jsonschema.exceptions import ValidationError

    if validator.is_type(instance, "string") and not _search(pattern, instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _pattern_properties(validator: Any, patterns: Any, instance: Any,
                        schema: Any) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            if _search(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _extras(instance: Any, schema: Any) -> list[str]:
    """The members of ``instance`` neither ``properties`` nor ``patternProperties`` cover."""
    properties = schema.get("properties", {})
    patterns = list(schema.get("patternProperties", {}))
    return [key for key in instance if key not in properties and
            not any(_search(pattern, key) for pattern in patterns)]


def _additional_properties(validator: Any, additional: Any, instance: Any,
                           schema: Any) -> Iterator[Any]:
    from jsonschema.exceptions import ValidationError

    if not validator.is_type(instance, "object"):
        return
    extras = _extras(instance, schema)
    if validator.is_type(additional, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], additional, path=extra)
    elif not additional and extras:
        listed = ", ".join(repr(each) for each in sorted(extras))
        if "patternProperties" in schema:
            verb = "does" if len(extras) == 1 else "do"
            patterns = ", ".join(repr(each) for each in sorted(schema["patternProperties"]))
            yield ValidationError(f"{listed} {verb} not match any of the regexes: {patterns}")
        else:
            verb = "was" if len(extras) == 1 else "were"
            yield ValidationError(f"Additional properties are not allowed "
                                  f"({listed} {verb} unexpected)")


def _unevaluated_properties(validator: Any, unevaluated: Any, instance: Any,
                            schema: Any) -> Iterator[Any]:
    from jsonschema.exceptions import ValidationError

    if not validator.is_type(instance, "object"):
        return
    evaluated = _evaluated_keys(validator, instance, schema)
    bad = [key for key in instance if key not in evaluated and
           next(validator.descend(instance[key], unevaluated, path=key, schema_path=key),
                None) is not None]
    if bad:
        listed = ", ".join(repr(each) for each in sorted(bad, key=str))
        verb = "was" if len(bad) == 1 else "were"
        if unevaluated is False:
            yield ValidationError(f"Unevaluated properties are not allowed "
                                  f"({listed} {verb} unexpected)")
        else:
            yield ValidationError(f"Unevaluated properties are not valid under the given "
                                  f"schema ({listed} {verb} unevaluated and invalid)")


def _evaluated_keys(validator: Any, instance: Any, schema: Any) -> set[str]:
    """The members some keyword of ``schema`` evaluated (jsonschema's own walk, bounded).

    As ``jsonschema._utils.find_evaluated_property_keys_by_schema``; a
    reference is followed through the validator's resolver as it does.
    """
    if validator.is_type(schema, "boolean"):
        return set()
    keys: set[str] = set()
    for keyword in ("$ref", "$dynamicRef"):
        if keyword in schema:
            resolved = validator._resolver.lookup(schema[keyword])
            keys |= _evaluated_keys(
                validator.evolve(schema=resolved.contents, _resolver=resolved.resolver),
                instance, resolved.contents)
    properties = schema.get("properties")
    if validator.is_type(properties, "object"):
        keys |= properties.keys() & instance.keys()
    for keyword in ("additionalProperties", "unevaluatedProperties"):
        if (subschema := schema.get(keyword)) is not None:
            keys |= {key for key, value in instance.items()
                     if _valid(validator.descend(value, subschema))}
    for pattern in schema.get("patternProperties", {}):
        keys |= {key for key in instance if _search(pattern, key)}
    for name, subschema in schema.get("dependentSchemas", {}).items():
        if name in instance:
            keys |= _evaluated_keys(validator, instance, subschema)
    for keyword in ("allOf", "oneOf", "anyOf"):
        for subschema in schema.get(keyword, []):
            if _valid(validator.descend(instance, subschema)):
                keys |= _evaluated_keys(validator, instance, subschema)
    if "if" in schema:
        if validator.evolve(schema=schema["if"]).is_valid(instance):
            keys |= _evaluated_keys(validator, instance, schema["if"])
            if "then" in schema:
                keys |= _evaluated_keys(validator, instance, schema["then"])
        elif "else" in schema:
            keys |= _evaluated_keys(validator, instance, schema["else"])
    return keys


def _valid(errors: Iterator[Any]) -> bool:
    return next(errors, None) is None
