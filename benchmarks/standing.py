"""Where kg stands against each benchmark target still in force: the first screen of BENCHMARKS.md.

Each target's latest figure is kept in benchmarks/standing.json with the commit and date it was
measured at, whether it is met and, where it is missed, why (one line, written by whoever measured
it). `make bench` (benchmarks/run.py) measures what it can and replaces those figures with its own;
the others - measured by hand (a file into the 1M store, a folder of small files) - stay as they
were, with their own commit and date, until someone measures them again and edits the JSON.

    python benchmarks/standing.py            # print the table (markdown)
"""
from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
STANDING = HERE / "standing.json"
GIB = 2 ** 30


def _size(results, label):
    return results.get("sizes", {}).get(label)


def _get(d, *keys):
    for k in keys:
        if not isinstance(d, dict) or d.get(k) is None:
            return None
        d = d[k]
    return d


def _step(results, series):
    return _get(results, "growth", series, "steps", "100k→1m")


def _ratio(label, key, floor):
    def measure(results):
        value = _get(_size(results, label), "ingest", key)
        return None if value is None else (f"{value:.1%} of raw `bulk_load`", value >= floor)
    return measure


def _seconds(label, path, ceiling):
    def measure(results):
        value = _get(_size(results, label), *path)
        return None if value is None else (f"{value:,.0f} s", value <= ceiling)
    return measure


def _rss(label, *paths):
    def measure(results):
        values = [v for v in (_get(_size(results, label), *p) for p in paths) if v is not None]
        return None if not values else (f"{max(values) / GIB:.2f} GiB", max(values) < 2 * GIB)
    return measure


def _load_1m(results):
    values = [v for v in (_get(_size(results, "1m"), "ingest", k, "seconds") for k in ("kg", "kg_novalidate")) if v]
    return None if not values else (f"{min(values):,.0f} s ({min(values) / 60:.0f} min)", min(values) <= 900)


def _exponent(series, ceiling):
    def measure(results):
        value = _step(results, series)
        return None if value is None else (f"{value:.2f}", value <= ceiling)
    return measure


def _pandas(label):
    def measure(results):
        value = _get(_size(results, label), "catalogue", "pandas", "ratio_kg_vs_pandas")
        return None if value is None else (f"{value:.2f}× pandas", value <= 1.0)
    return measure


def _validation(label):
    def measure(results):
        value = _get(_size(results, label), "ingest", "validation_overhead")
        return None if value is None else (f"+{value:.0%}", value <= 1.0)
    return measure


def _bare(label):
    def measure(results):
        value = _get(_size(results, label), "catalogue", "ratio_kg_vs_bare")
        return None if value is None else (f"{value:.2f}×", value <= 1.3)
    return measure


def _rss_growth(results):
    values = [_step(results, s) for s in ("load_rss", "report_rss")]
    return None if None in values else (" · ".join(f"{v:.2f}" for v in values), max(values) <= 0.3)


def _rdflib(results):
    value = _get(_size(results, "100k"), "catalogue", "rdflib", "speedup_kg_vs_rdflib")
    return None if value is None else (f"{value:.1f}×", value >= 20)


# (id, issue, target, how make bench measures it - None: by hand, see the figure's note)
TARGETS = [
    ("load-novalidate-100k", 40, "`kg load --no-validate` ≥ 50% of raw `bulk_load` speed, 100k", _ratio("100k", "ratio_kg_novalidate_vs_raw", 0.5)),
    ("load-validate-100k", 40, "`kg load` (validating) ≥ 40% of raw `bulk_load` speed, 100k", _ratio("100k", "ratio_kg_vs_raw", 0.4)),
    ("load-novalidate-1m", 40, "`kg load --no-validate` ≥ 50% of raw `bulk_load` speed, 1M", _ratio("1m", "ratio_kg_novalidate_vs_raw", 0.5)),
    ("load-validate-1m", 40, "`kg load` (validating) ≥ 40% of raw `bulk_load` speed, 1M", _ratio("1m", "ratio_kg_vs_raw", 0.4)),
    ("load-1m", 40, "the 1M estate loads in ≤ 15 min", _load_1m),
    ("earl-file-1m", 40, "one 3k-assertion EARL file into the 1M store ≤ 5 s", None),
    ("drop-file-1m", 40, "`kg drop` of that file ≤ 5 s", None),
    ("small-files", 40, "10,000 one-run files load in ≤ 2 min, RSS < 1 GiB, store ≤ a one-file load's", None),
    ("rss-load-1m", 40, "peak RSS of the load at 1M < 2 GiB", _rss("1m", ("ingest", "kg", "rss"), ("ingest", "kg_novalidate", "rss"))),
    ("rss-query-1m", 40, "peak RSS of every catalogue query, `kg query --format csv` to a file, at 1M < 2 GiB", None),
    ("rss-report-1m", 40, "peak RSS of the first report at 1M < 2 GiB", _rss("1m", ("report", "rss"))),
    ("rss-growth", 40, "RSS growth 100k → 1M, exponent ≤ 0.3 (load · report)", _rss_growth),
    ("catalogue-1m", 40, "whole catalogue at 1M ≤ 600 s", _seconds("1m", ("catalogue", "kg", "seconds"), 600)),
    ("catalogue-growth", 40, "whole catalogue growth 100k → 1M, exponent ≤ 1.10", _exponent("catalogue_seconds", 1.10)),
    ("report-1m", 40, "first report at 1M ≤ 600 s", _seconds("1m", ("report", "seconds"), 600)),
    ("report-unchanged", 40, "unchanged report ≤ 10 s", None),
    ("pandas-100k", 40, "pass-at-k + judge-kind-metrics ≤ 1× pandas, 100k", _pandas("100k")),
    ("pandas-1m", 40, "pass-at-k + judge-kind-metrics ≤ 1× pandas, 1M", _pandas("1m")),
    ("validation-overhead", 6, "validation adds at most as much again, 100k", _validation("100k")),
    ("catalogue-vs-bare", 6, "catalogue through kg within 1.3× of the same SPARQL on bare pyoxigraph, 100k", _bare("100k")),
    ("rdflib-100k", 6, "kg ≥ 20× faster than rdflib, 100k", _rdflib),
    ("load-growth", 6, "load growth 100k → 1M, exponent ≤ 1.15", _exponent("load_seconds", 1.15)),
    ("report-growth", 6, "report growth 100k → 1M, exponent ≤ 1.15", _exponent("report_seconds", 1.15)),
]


def load(path: Path = STANDING) -> dict:
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def update(results: dict, path: Path = STANDING) -> dict:
    """The figures `results` (a make bench run) measured replace the kept ones - unless a kept one is
    newer (a run that merges older sizes must not undo a later measurement by hand)."""
    standing = load(path)
    commit = str(_get(results, "machine", "git_commit") or "")[:7]
    date = str(results.get("finished_at", ""))[:10]
    for key, _, _, measure in TARGETS:
        found = measure(results) if measure else None
        if found is None:
            continue
        kept = standing.get(key, {})
        if kept.get("date", "") > date:
            continue
        figure, met = found
        standing[key] = {"figure": figure, "met": met, "commit": commit, "date": date,
                         "why": "" if met else kept.get("why", "not yet explained: see the run's figures below")}
    path.write_text(json.dumps(standing, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return standing


def markdown(standing: dict | None = None) -> list[str]:
    standing = load() if standing is None else standing
    lines = ["## Where kg stands today", "",
             "Every target still in force (issues 40 and 6), with its latest figure, the commit and date it was",
             "measured at, and where it is missed, why. Generated from `benchmarks/standing.json` by",
             "`benchmarks/standing.py`: `make bench` replaces the figures it measures; the ones it does not measure",
             "(marked *not in make bench*) keep theirs until someone measures them and edits the JSON. How each",
             "figure was taken: `benchmarks/HISTORY.md` (newest first).", "",
             "| target | issue | figure | measured | met | where missed: why |", "|---|---|---|---|---|---|"]
    for key, issue, target, measure in TARGETS:
        s = standing.get(key)
        if s is None:
            lines.append(f"| {target} | {issue} | not measured | — | — | |")
            continue
        met = "—" if s.get("met") is None else ("met" if s["met"] else "**missed**")
        how = "" if measure else " *not in make bench*"
        when = f"{s.get('commit') or '—'} · {s.get('date') or '—'}{how}"
        lines.append(f"| {target} | {issue} | {s['figure']} | {when} | {met} | {s.get('why', '')} |")
    return lines


if __name__ == "__main__":
    print("\n".join(markdown()))
