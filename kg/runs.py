"""Shared by the JSON Lines loaders (situations, EARL results): every row names a replay set,
an intent, a run, a system and a trial. The set and the intent must be loaded; a row's CURIEs
resolve with its own "prefixes" or else with the prefixes its replay set's file declared."""
from __future__ import annotations

from .loading import Context
from .lookups import intents_of, set_by_identifier, set_prefixes
from .terms import Minter, Triples, declare, iri, literal, p


class RunRows:
    def __init__(self, ctx: Context):
        self.ctx = ctx
        self.plain = Minter(ctx.base, {}, declared_by="the line or its replay set")
        self._sets: dict[str, tuple[str, set[str], dict[str, str]] | None] = {}

    def minter(self, row: dict) -> Minter:
        set_info = self._set(row["replaySet"]) if row.get("replaySet") else None
        prefixes = dict(set_info[2]) if set_info else {}
        prefixes.update(row.get("prefixes") or {})
        return Minter(self.ctx.base, prefixes, "neither the line nor its replay set") if prefixes else self.plain

    def _set(self, set_id: str):
        """A row names its set by the id the replay-set file gave (plain, IRI or CURIE as written)."""
        if set_id not in self._sets:
            set_iri = set_by_identifier(self.ctx, set_id)
            self._sets[set_id] = None if set_iri is None else \
                (set_iri, intents_of(self.ctx, set_iri), set_prefixes(self.ctx, set_iri))
        return self._sets[set_id]

    def set_iri(self, row: dict) -> str | None:
        info = self._set(row["replaySet"]) if row.get("replaySet") else None
        return info[0] if info else None

    def intent(self, line: int, row: dict, mint: Minter) -> str | None:
        """The intent's IRI, or None (with a problem) when its set or the intent is not loaded.
        A row with no replaySet names a test of no loaded set (e.g. an external suite)."""
        if not row.get("replaySet"):
            return self.ctx.mint(f"line {line}, /intent", lambda: mint.iri(row["intent"], "test"))
        info = self._set(row["replaySet"])
        if info is None:
            self.ctx.problem(f"line {line}, /replaySet", f'replay set "{row["replaySet"]}" is not loaded',
                             "load its *.replayset.json first, or in the same command")
            return None
        set_iri, intents, _ = info
        i_iri = self.ctx.mint(f"line {line}, /intent",
                              lambda: mint.iri(row["intent"], "replayset", row["replaySet"], "intent"))
        if i_iri is not None and i_iri not in intents:
            self.ctx.problem(f"line {line}, /intent",
                             f'intent "{row["intent"]}" is not in the loaded replay set "{row["replaySet"]}"',
                             "check the id against the set's intents")
            return None
        return i_iri

    def run(self, t: Triples, line: int, row: dict, mint: Minter, intent_iri: str) -> tuple[str, str] | None:
        """Writes the run (a prov:Activity that used the intent, by the system, at a trial); returns
        (run IRI, system IRI)."""
        system = self.ctx.mint(f"line {line}, /system", lambda: mint.iri(row["system"], "system"))
        run = self.ctx.mint(f"line {line}, /run", lambda: mint.iri(row["run"], "run")) if row.get("run") else None
        if system is None:
            return None
        declare(t, system, "earl:TestSubject", row["system"])
        if run is not None:
            r = iri(run)
            declare(t, run, "prov:Activity", row["run"])
            t.add(r, p("prov:used"), iri(intent_iri))
            t.add(r, p("prov:wasAssociatedWith"), iri(system))
            t.add(r, p("apeval:trialIndex"), literal(int(row.get("trial") or 0)))
        return run, system
