"""BaseStore: what every store offers, embedded or remote — the catalogue graph of source records,
the store's settings and the derived layers' upkeep, in plain SPARQL."""
from __future__ import annotations

import sys
import time
from datetime import datetime, timezone

import pyoxigraph as ox

from .. import layers
from ..terms import CATALOGUE_GRAPH, DEFAULT_BASE, KG, literal
from .record import SourceRecord


class BaseStore:
    """What every store offers, embedded or remote: the catalogue graph (the sources' records) read
    and written in plain SPARQL. A subclass supplies select/ask/update and how a source's graph is
    put in place. (Named for what it is, a store's base: "catalogue" is the catalogue of queries,
    kg/catalogue.py, and the graph of source records.)"""

    path: str = ""
    # what a loader's check found in the sources loaded before it, for one `kg load` (ingest.load sets
    # a dict, None otherwise): an answer that sources added cannot make untrue, kept so that a folder
    # of many small files does not ask it once per file (loaders/earl_jsonl.py refuse_other_kind);
    # emptied when a file replaces a source, whose old triples the answer may rest on
    checked: dict | None = None

    def select(self, query: str, **bindings) -> list[tuple]:
        raise NotImplementedError

    def ask(self, query: str, **bindings) -> bool:
        raise NotImplementedError

    def source_sha256(self, graph: str) -> str | None:
        rows = self.select(f"SELECT ?sha WHERE {{ GRAPH <{CATALOGUE_GRAPH}> {{ ?g kg:sha256 ?sha }} }}",
                           g=ox.NamedNode(graph))
        return rows[0][0].value if rows else None

    def sources(self) -> list[SourceRecord]:
        rows = self.select(f"""
            SELECT ?g ?path ?kind ?sha ?loader ?triples ?at (GROUP_CONCAT(DISTINCT ?pin; separator=" ") AS ?pins)
            WHERE {{ GRAPH <{CATALOGUE_GRAPH}> {{
                ?g a kg:Source ; kg:path ?path ; kg:kind ?kind ; kg:sha256 ?sha ; kg:loader ?loader ;
                   void:triples ?triples ; prov:generatedAtTime ?at .
                OPTIONAL {{ ?g kg:pins ?pin }} }} }}
            GROUP BY ?g ?path ?kind ?sha ?loader ?triples ?at ORDER BY ?kind ?path""")
        warnings = self.warnings()
        return [SourceRecord(graph=g.value, path=path.value, kind=kind.value, sha256=sha.value,
                             loader=loader.value, triples=int(triples.value),
                             pins=pins.value.split() if pins and pins.value else [],
                             warnings=warnings.get(g.value, []), loaded_at=at.value)
                for g, path, kind, sha, loader, triples, at, pins in rows]

    def warnings(self) -> dict[str, list[dict]]:
        rows = self.select(f"""
            SELECT ?g ?focus ?path ?message ?severity ?shape ?value WHERE {{ GRAPH <{CATALOGUE_GRAPH}> {{
                ?g kg:validationReport/sh:result ?r . ?r sh:resultMessage ?message ; sh:resultSeverity ?severity .
                OPTIONAL {{ ?r sh:focusNode ?focus }} OPTIONAL {{ ?r sh:resultPath ?path }}
                OPTIONAL {{ ?r sh:sourceShape ?shape }} OPTIONAL {{ ?r sh:value ?value }} }} }}
            ORDER BY ?g ?message ?focus""")
        out: dict[str, list[dict]] = {}
        for g, focus, path, message, severity, shape, value in rows:
            out.setdefault(g.value, []).append({
                "focus": str(focus) if focus else None, "path": path.value if path else None,
                "message": message.value, "severity": severity.value,
                "shape": shape.value if shape else None, "value": str(value) if value else None})
        return out

    def derived(self) -> list[dict]:
        """The derived layers: each one's name, graph, rule file, nodes and triples, and whether it
        was made with the rules kg has now."""
        current = self.setting("layerVersion") == layers.version()
        found = []
        for layer in layers.load():
            rows = self.select(f"SELECT (COUNT(*) AS ?triples) (COUNT(DISTINCT ?s) AS ?nodes) "
                               f"WHERE {{ GRAPH <{layer.graph}> {{ ?s ?p ?o }} }}")
            triples, nodes = (int(v.value) if v is not None else 0 for v in rows[0])
            found.append({"name": layer.name, "graph": layer.graph, "rules": str(layer.path),
                          "nodes": nodes, "triples": triples, "current": current})
        return found

    def setting(self, name: str) -> str | None:
        """A store-wide value kg keeps on the catalogue graph's own node (kg:mintingBase, ...)."""
        rows = self.select(f"SELECT ?v WHERE {{ GRAPH <{CATALOGUE_GRAPH}> {{ <{CATALOGUE_GRAPH}> kg:{name} ?v }} }}")
        return rows[0][0].value if rows else None

    def set_setting(self, name: str, value) -> None:
        node, prop = f"<{CATALOGUE_GRAPH}>", f"<{KG}{name}>"
        self.update(f"DELETE WHERE {{ GRAPH {node} {{ {node} {prop} ?v }} }} ;\n"
                    f"INSERT DATA {{ GRAPH {node} {{ {node} {prop} {literal(value)} }} }}")

    def minting_base(self) -> str:
        return self.setting("mintingBase") or DEFAULT_BASE

    def check_minting_base(self, base: str) -> None:
        """A later load must use the base the first one fixed, or ids would mint twice."""
        current = self.setting("mintingBase")
        if current is not None and current != base:
            from ..errors import UsageError
            raise UsageError(f"this store mints IRIs under {current}, not {base}; "
                             f"use that base, or `kg reset` to start again")

    def fix_minting_base(self, base: str) -> None:
        """Records the base with the first file written (not before: a first load whose files were
        all rejected must leave no base behind, or a mistyped --base would be fixed for good)."""
        self.check_minting_base(base)
        if self.setting("mintingBase") is None:
            self.set_setting("mintingBase", base)

    def update(self, text: str) -> None:
        raise NotImplementedError

    def drop_source(self, graph: str) -> bool:
        """A source withdrawn (kg/withdrawals.py): its graph, its record and the verdicts made of it
        go in one update, which keeps what it withdrew readable in the catalogue graph."""
        if self.source_sha256(graph) is None:
            return False
        self.update(layers.around(f"DROP SILENT GRAPH <{graph}> ;\n" + _withdraw(self, graph), before=[graph]))
        return True

    def erase_source(self, graph: str) -> list[str]:
        """kg erase: the source withdrawn if it is loaded, then the words its revisions and withdrawals
        kept removed for good, leaving a kg:Erasure (kg/withdrawals.py). The digests erased."""
        from .. import withdrawals
        if self.source_sha256(graph) is not None:
            self.drop_source(graph)
        update, digests = withdrawals.erasure(self, graph, datetime.now(timezone.utc).isoformat(timespec="seconds"))
        if update:
            self.update(update)
        return digests

    def graph_ntriples(self, graph: str) -> str:
        return "".join(f"{s} {pr} {o} .\n" for s, pr, o in
                       self.select("SELECT ?s ?p ?o WHERE { GRAPH ?g { ?s ?p ?o } }", g=ox.NamedNode(graph)))

    def flush(self) -> None:
        pass

    # ── derived layers (kg/layers.py) ──
    def rebuild_layers(self) -> None:
        """Makes every derived layer anew from the sources (a store of an older kg, or data put in
        by hand, as the golden tests do): every source's keys marked, then derived a chunk at a time."""
        self.update(layers.rebuilding())
        self.derive_touched()

    def derive_touched(self, change: str = "") -> None:
        """Derives every touched key, a chunk per transaction, then `change` with the last one. The
        derive steps run at least once even when no key is touched: a rule over sources of any kind
        (the plans layer's pins) is recomputed on every write."""
        self.update(layers.derive_chunk())
        while self.ask(layers.touched_query()):
            self.update(layers.derive_chunk())
        self.update(layers.finish(change))

    def layers_current(self) -> bool:
        scratch = " ".join(f"<{g}>" for g in layers.scratch())
        return (self.setting("layerVersion") == layers.version()
                and not self.ask(f"ASK {{ VALUES ?g {{ {scratch} }} GRAPH ?g {{ ?s ?p ?o }} }}"))

    def _has_assertions(self) -> bool:
        return self.ask("ASK { GRAPH ?g { ?a earl:result ?r } }")

    def _layers_stale(self) -> bool:
        if self.layers_current():
            return False
        return self.setting("layerVersion") is not None or self._has_assertions()

    def ensure_layers(self) -> bool:
        """Rebuilds the derived layers when they were made with other rules (or a write was cut short
        between its steps, which only a remote store can show); True when it did, with a notice."""
        if not self._layers_stale():
            return False
        started = time.monotonic()
        # the layers read the scheme of verdict statuses from the store's vocabulary: brought up to date first
        from ..ingest import ensure_vocabularies
        ensure_vocabularies(self)
        self.rebuild_layers()
        sys.stderr.write(f"kg: the derived layers of {self.path} were made by another version of kg (or none): "
                         f"rebuilt from its sources in {time.monotonic() - started:.1f} s\n")
        return True


def _withdraw(store: BaseStore, graph: str) -> str:
    """The update that takes a source's record out and keeps its withdrawal (kg/withdrawals.py)."""
    from .. import withdrawals
    kept = withdrawals.record(store, graph, datetime.now(timezone.utc).isoformat(timespec="seconds"))
    insert = f"INSERT DATA {{ GRAPH <{CATALOGUE_GRAPH}> {{\n{kept}}} }} ;\n" if kept else ""
    return insert + _delete_record(graph)


def _delete_record(graph: str) -> str:
    return (f"DELETE {{ GRAPH <{CATALOGUE_GRAPH}> {{ ?s ?p ?o }} }} WHERE {{ GRAPH <{CATALOGUE_GRAPH}> {{ ?s ?p ?o "
            f'FILTER(?s = <{graph}> || STRSTARTS(STR(?s), "{graph}#")) }} }}')
