"""An IRI parameter as a person gives it: the id kg prints (`cubby-routing`, `cubby@1.4.0`), a prefixed
name as `--columns` and `--wide` print it (`id:replayset/cubby-routing`), or the full IRI. Each is
checked against the store before the query runs: a value that names nothing there is refused with
the nearest names, never run as a filter that matches nothing and answers zeros.

What a parameter may name is known from its name (a `system` is an earl:TestSubject, a `replay_set`
an apeval:ReplaySet, ...); a parameter of another name may name any subject or graph of the store.
"""
from __future__ import annotations

import difflib
from urllib.parse import unquote

import pyoxigraph as ox

# parameter name -> (the pattern its ?s must match, what it is called)
KINDS = {
    "system": ("?s a earl:TestSubject", "system"),
    "baseline": ("?s a earl:TestSubject", "system"),
    "candidate": ("?s a earl:TestSubject", "system"),
    "replay_set": ("?s a apeval:ReplaySet", "replay set"),
    "case": ("?assertion earl:test ?s", "case"),
    "plan": ("?s a apeval:ExperimentPlan", "experiment plan"),
}
ANYTHING = ("?s ?p ?o", "resource")
SHOWN = 8  # nearest names a refusal lists


class UnknownId(ValueError):
    """A value that names nothing of its kind in the store (or several): a usage error."""


def looks_like_iri(value: str) -> bool:
    return "://" in value or value.startswith(("urn:", "file:"))


def _expanded(value: str, prefixes: dict[str, str]) -> str | None:
    prefix, sep, local = value.partition(":")
    if sep and prefix in prefixes and not local.startswith("//"):
        return prefixes[prefix] + local
    return None


def _short(iri: str) -> str:
    return unquote(iri.rstrip("/#").replace("#", "/").rsplit("/", 1)[-1])


def resolve(store, param: str, value: str, prefixes: dict[str, str]) -> str:
    """The IRI `value` names as the `param` parameter; UnknownId when it names none or several."""
    pattern, what = KINDS.get(param, ANYTHING)
    iri = value if looks_like_iri(value) else _expanded(value, prefixes)
    if iri is not None:
        try:
            node = ox.NamedNode(iri)
        except ValueError as err:
            raise UnknownId(f"{param}={value!r} is not an IRI kg can read ({err})") from None
        if store.ask(f"ASK {{ GRAPH ?g {{ {pattern} }} }}", s=node) or \
                (pattern == ANYTHING[0] and store.ask("ASK { GRAPH ?s { ?x ?y ?z } }", s=node)):
            return iri
    else:
        rows = store.select(f"SELECT DISTINCT ?s WHERE {{ GRAPH ?g {{ {pattern} }} GRAPH ?h {{ ?s dcterms:identifier ?id }} }}",
                            id=ox.Literal(value))
        if len(rows) == 1:
            return rows[0][0].value
        if len(rows) > 1:
            listed = ", ".join(sorted(r[0].value for r in rows)[:SHOWN])
            raise UnknownId(f"{param}={value!r} is the id of {len(rows)} {what}s ({listed}): give the one meant by its IRI")
        if pattern != ANYTHING[0]:  # the short id a table prints: the IRI's last segment
            tails = [s for s in _known(store, pattern) if _short(s) == value]
            if len(tails) == 1:
                return tails[0]
            if tails:
                raise UnknownId(f"{param}={value!r} ends {len(tails)} {what}s' IRIs ({', '.join(sorted(tails)[:SHOWN])}): "
                                f"give the one meant by its IRI")
    raise UnknownId(_nothing(store, param, value, pattern, what, prefixes))


def _known(store, pattern: str) -> list[str]:
    return [r[0].value for r in store.select(f"SELECT DISTINCT ?s WHERE {{ GRAPH ?g {{ {pattern} }} FILTER(isIRI(?s)) }}")]


def _nothing(store, param: str, value: str, pattern: str, what: str, prefixes: dict[str, str]) -> str:
    """The refusal: nothing of this kind has that name; the nearest names that exist."""
    head = f"no {what} {value!r} is loaded (by IRI, prefixed name or id; parameter {param})"
    if pattern == ANYTHING[0]:
        return head + " (give the IRI or id kg prints for it)"
    known = _known(store, pattern)
    ids = {r[0].value for r in store.select(
        f"SELECT DISTINCT ?id WHERE {{ GRAPH ?g {{ {pattern} }} GRAPH ?h {{ ?s dcterms:identifier ?id }} }}")}
    names = sorted(ids | {_short(s) for s in known})
    wanted = _short(value) if (looks_like_iri(value) or _expanded(value, prefixes)) else value
    near = difflib.get_close_matches(wanted, names, n=SHOWN, cutoff=0.4) or names[:SHOWN]
    if not names:
        return head + f" (none is loaded)"
    more = f", of {len(names)}" if len(names) > len(near) else ""
    return head + f"; the nearest: {', '.join(near)}{more}"
