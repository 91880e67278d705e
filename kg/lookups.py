"""What loaders ask of the store before they accept a file: is the set it names loaded, which
intents and descriptions does it have, which other source already holds an id. Plain SPARQL,
so the same checks run on a remote engine."""
from __future__ import annotations

import pyoxigraph as ox

from .loading import Context
from .spill import Keys


def owner(ctx: Context, subject: str, rdf_class: str) -> str | None:
    """The path of another source that already declares `subject` as an instance of the class."""
    return loaded_among(ctx, [subject], f"a {rdf_class}").get(subject)


def set_digest(ctx: Context, set_iri: str) -> str | None:
    rows = ctx.select("SELECT ?d WHERE { GRAPH ?g { ?set a apeval:ReplaySet ; apeval:setDigest ?d } "
                      "FILTER(?g != ?this_graph) } LIMIT 1", set=ox.NamedNode(set_iri))
    return rows[0][0].value if rows else None


def intents_of(ctx: Context, set_iri: str) -> set[str]:
    rows = ctx.select("SELECT ?i WHERE { GRAPH ?g { ?i apeval:inReplaySet ?set } FILTER(?g != ?this_graph) }",
                      set=ox.NamedNode(set_iri))
    return {r[0].value for r in rows}


def descriptions_of(ctx: Context, set_iri: str) -> set[str]:
    """Outcome descriptions registered by the gold of a replay set."""
    rows = ctx.select("""SELECT ?d WHERE { GRAPH ?g { ?record dcterms:references ?set ; dcterms:hasPart ?d .
                         ?d a apeval:OutcomeDescription } FILTER(?g != ?this_graph) }""", set=ox.NamedNode(set_iri))
    return {r[0].value for r in rows}


# Ids per VALUES block when asking which of a file's ids the store already holds. Up to about a
# thousand, Oxigraph looks each one up (13 ms for 1,000 on a 10k-assertion store); from some size
# between 1,000 and 1,700 it switches to a plan that reads every instance of the class in the store
# (0.5 s for 1,700, 1.7 s for 5,000), so a load would grow with the store instead of with the file.
VALUES_CHUNK = 1000


def loaded_among(ctx: Context, iris, shape: str, chunk: int = VALUES_CHUNK) -> dict[str, str]:
    """Which of these IRIs another source already holds in the given shape (predicate and object
    after ?s, e.g. "a earl:Assertion" or "kg:oracleType ?o"): IRI → that source's path. Asked for
    this file's ids only, in chunks, so the cost follows the file and not the size of the store."""
    found: dict[str, str] = {}
    wanted = sorted(set(iris))
    for start in range(0, len(wanted), chunk):
        values = " ".join(str(ox.NamedNode(i)) for i in wanted[start:start + chunk])
        rows = ctx.select(f"""SELECT ?s ?g ?path WHERE {{ VALUES ?s {{ {values} }} GRAPH ?g {{ ?s {shape} }}
                              FILTER(?g != ?this_graph) OPTIONAL {{ GRAPH <urn:kg:catalogue> {{ ?g kg:path ?path }} }} }}""")
        # a graph without a record (none that kg wrote) is named by itself
        found.update({s.value: (path or g).value for s, g, path in rows})
    return found


def loaded_into(ctx: Context, iris: Keys, shape: str, found: Keys) -> None:
    """loaded_among for keys kept on disk (kg/spill.py): what the store holds of them is added to
    `found` (IRI → the path of the source holding it), a chunk at a time."""
    for part in iris.chunks(VALUES_CHUNK):
        found.update(loaded_among(ctx, part, shape).items())


def path_of(ctx: Context, graph: ox.NamedNode) -> str:
    """The file a graph was loaded from, as the catalogue records it; a graph no record names (none
    that kg wrote) by its own name, as loaded_among names it."""
    rows = ctx.select("SELECT ?path WHERE { GRAPH <urn:kg:catalogue> { ?g kg:path ?path } }", g=graph)
    return rows[0][0].value if rows else graph.value


def set_prefixes(ctx: Context, set_iri: str) -> dict[str, str]:
    """The prefixes a replay set's file declared (as sh:declare), so lines that name the set may use them."""
    rows = ctx.select("""SELECT ?prefix ?ns WHERE { GRAPH ?g { ?set sh:declare [ sh:prefix ?prefix ; sh:namespace ?ns ] } }""",
                      set=ox.NamedNode(set_iri))
    return {r[0].value: r[1].value for r in rows}


def gold_owner(ctx: Context, set_iri: str) -> str | None:
    """The path of another source holding gold for the set."""
    rows = ctx.select("""SELECT ?path WHERE { GRAPH ?g { ?r a kg:CriterionRecord ; dcterms:references ?set }
                         FILTER(?g != ?this_graph) GRAPH <urn:kg:catalogue> { ?g kg:path ?path } } LIMIT 1""",
                      set=ox.NamedNode(set_iri))
    return rows[0][0].value if rows else None


def set_by_identifier(ctx: Context, set_id: str) -> str | None:
    """The IRI of the loaded replay set whose file named it `set_id`."""
    rows = ctx.select("SELECT ?set WHERE { GRAPH ?g { ?set a apeval:ReplaySet ; dcterms:identifier ?id ; "
                      "apeval:setDigest ?d } FILTER(?g != ?this_graph) } LIMIT 1", id=ox.Literal(set_id))
    return rows[0][0].value if rows else None


def pinned_set_digest(ctx: Context, set_iri: str, set_id: str, pinned: str, what: str) -> str | None:
    """The loaded digest of the replay set a file pins (gold, an experiment plan); a problem at
    /replaySet when the set is not loaded, at /setDigest when the file pins another version."""
    loaded = set_digest(ctx, set_iri)
    if loaded is None:
        ctx.problem("/replaySet", f'replay set "{set_id}" is not loaded',
                    "load its *.replayset.json first, or in the same command")
    elif loaded != pinned:
        ctx.problem("/setDigest", f"expected the loaded set's digest {loaded}, found {pinned}: "
                    f"this {what} was registered against another version of {set_id}",
                    f"register the {what} against the loaded version, or load the version it names")
    return loaded


def check_supersessions(ctx: Context, edges: list[tuple[str, str, str]], keys: dict[str, tuple[str, str, str]],
                        names: dict[str, str] | None = None) -> None:
    """Supersession is sound (issue 13): each (place, newer, older) a file states must correct an
    assertion of the same system, case and grader (`keys`: this file's assertions → (system, case,
    grader)); and following apeval:supersedes from it, through this file and what is loaded, must
    neither come back (a cycle would leave no current assertion, and every verdict of it would
    vanish) nor reach an assertion that is gone (a chain that ends nowhere). That the older one
    exists at all is each loader's own check, with the id as the file wrote it."""
    names = names or {}

    def name(a: str) -> str:
        return f'"{names[a]}"' if a in names else f"<{a}>"

    successors: dict[str, set[str]] = {}
    for _, newer, older in edges:
        successors.setdefault(newer, set()).add(older)
    loaded_keys: dict[str, tuple[tuple[str, str, str], str]] = {}
    todo = {older for _, _, older in edges if older not in keys}
    seen: set[str] = set()
    for _ in range(1000):  # a chain longer than this is not a correction history
        todo = {a for a in todo - seen if a not in keys}  # `keys` may look its assertions up as asked
        if not todo:
            break
        seen |= todo
        wanted = " ".join(str(ox.NamedNode(a)) for a in sorted(todo))
        for a, system, case, grader, path in ctx.select(f"""SELECT ?a ?system ?case ?grader ?path WHERE {{
                VALUES ?a {{ {wanted} }} GRAPH ?g {{ ?a earl:subject ?system }} GRAPH ?h {{ ?a earl:test ?case }}
                GRAPH ?i {{ ?a earl:assertedBy ?grader }} FILTER(?g != ?this_graph)
                OPTIONAL {{ GRAPH <urn:kg:catalogue> {{ ?g kg:path ?path }} }} }}"""):
            loaded_keys[a.value] = ((system.value, case.value, grader.value), (path or a).value)
        for a, b in ctx.select(f"""SELECT ?a ?b WHERE {{ VALUES ?a {{ {wanted} }}
                                   GRAPH ?g {{ ?a apeval:supersedes ?b }} FILTER(?g != ?this_graph) }}"""):
            successors.setdefault(a.value, set()).add(b.value)
        todo = {b for a in todo for b in successors.get(a, ())}

    what = ("system", "case", "grader")
    for place, newer, older in edges:
        mine = keys.get(newer)
        theirs = keys.get(older) or (loaded_keys[older][0] if older in loaded_keys else None)
        if mine and theirs and mine != theirs:
            differ = [f"{w} <{b}> there, <{a}> here" for w, a, b in zip(what, mine, theirs) if a != b]
            ctx.problem(place, f"assertion {name(newer)} supersedes {name(older)}, an assertion of another "
                        + " and ".join(w for w, a, b in zip(what, mine, theirs) if a != b) + ": " + "; ".join(differ),
                        "a correction supersedes an assertion of the same system, case and grader; "
                        "judge the other one with a new assertion of its own")

    reported: set[frozenset] = set()
    for place, newer, older in edges:
        # walk the chain from this edge: back to `newer` is a cycle; a link to nothing known is a dead end
        path, node, visited = [newer, older], older, {newer}
        while True:
            if node == newer:
                cycle = frozenset(path)
                if cycle not in reported:
                    reported.add(cycle)
                    ctx.problem(place, "a supersession cycle: " + " supersedes ".join(name(a) for a in path)
                                + "; none of them would be current, and their verdicts would vanish from every metric",
                                "a correction supersedes an earlier assertion, never one that supersedes it back; "
                                "remove one of the supersedes")
                break
            if node in visited:
                break  # a cycle that does not pass through this edge is reported from its own edges
            visited.add(node)
            if node not in keys and node not in loaded_keys:
                if node != older:  # the edge's own target is checked by the loader, with its id as written
                    ctx.problem(place, f"the supersession chain from {name(newer)} ends nowhere: "
                                + " supersedes ".join(name(a) for a in path) + f", and {name(node)} is not loaded",
                                "load the source that holds the missing assertion again, or supersede one that exists")
                break
            nexts = sorted(successors.get(node, ()))
            if not nexts:
                break
            node = nexts[0]
            path.append(node)


# apeval's selection outcomes (skos:definition in the T-box) and what each says of the gold:
# tp "The gold skill was selected", mis-sib "The gold skill's declared collision partner was selected
# instead", mis-far "Some other skill was selected" (other than the gold skill), miss "A skill was
# expected and none was selected" - each presupposes an expected skill; tn "No skill was expected and
# none was selected", spur "No skill was expected and one was selected" - each presupposes none.
NEEDS_GOLD_SKILL = {"tp", "mis-sib", "mis-far", "miss"}
NEEDS_NO_GOLD_SKILL = {"tn", "spur"}
SELECTION_NOTATIONS = {"so-tp": "tp", "so-tpAlt": "tp-alt", "so-misSib": "mis-sib", "so-misFar": "mis-far",
                       "so-miss": "miss", "so-tn": "tn", "so-spur": "spur", "so-undetected": "undetected"}


class GoldSkills:
    """Whether the loaded gold expects a skill of an intent: True, False, or None when no gold
    criterion states the intent's expected behaviour (nothing to check against). Asked once per intent."""

    def __init__(self, ctx: Context):
        self._ctx = ctx
        self._known: dict[str, tuple | None] = {}

    def expects(self, intent: str) -> tuple | None:
        """(expects a skill, the behaviour's notation) or None."""
        if intent not in self._known:
            rows = self._ctx.select("""SELECT ?behaviour ?skill WHERE { GRAPH ?g { ?intent apeval:expectedBehaviour ?behaviour
                                         OPTIONAL { ?intent apeval:expectedSkill ?skill } } }""",
                                    intent=ox.NamedNode(intent))
            if not rows:
                self._known[intent] = None
            else:
                behaviour = rows[0][0].value.rsplit("behaviour-", 1)[-1]
                self._known[intent] = (any(skill is not None for _, skill in rows), behaviour)
        return self._known[intent]


def check_selection(ctx: Context, gold: GoldSkills, place: str, intent: str, selection: str) -> None:
    """A selection outcome the loaded gold makes impossible is refused: a tn or spur on an intent that
    expects a skill, a tp, mis-sib, mis-far or miss on one that expects none (a decline case among them)."""
    expected = gold.expects(intent)
    if expected is None:
        return
    expects_skill, behaviour = expected
    if expects_skill and selection in NEEDS_NO_GOLD_SKILL:
        ctx.problem(place, f"selection outcome {selection} says no skill was expected, but the gold expects one "
                    f"of <{intent}>", "tp, tp-alt, mis-sib, mis-far or miss: compare the selected skill with the "
                    "gold's expectedSkill")
    elif not expects_skill and selection in NEEDS_GOLD_SKILL:
        ctx.problem(place, f"selection outcome {selection} needs a gold skill, but the gold expects none of "
                    f"<{intent}> (a {behaviour} case)", "tn when no skill was selected, spur (with chargedTo) "
                    "when one was")
