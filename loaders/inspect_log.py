"""Inspect AI eval logs (`.eval` archives and `.json` logs, as `inspect eval` writes them), read with
the inspect_ai package's own log API (read_eval_log) → a replay set of the task's dataset and one EARL
assertion per sample, epoch and scorer. Needs the optional extra: [inspect] (README, "Installing"), or pip install inspect-ai beside kg.

- sample id → case; epoch → trial (epoch 1 → trial 0);
- each scorer → a grader (its name) with a kind: Inspect's built-in match-style scorers (match,
  includes, pattern, answer, choice, exact, f1, math) mechanical, model_graded_* model, a scorer whose
  metadata says {"kind": "human"} (or "grader_kind") human, --grader-kind NAME=KIND for any other,
  else none (the queries read it as undeclared, never as any declared kind);
- C → passed, I → failed, N (no answer) → failed, P (partial) → failed with "partial" in earl:info:
  Inspect's value_to_float makes P 0.5, below the 1.0 its pass_at_k reducer counts as correct, so kg
  counts it as Inspect's own reducers do; a number (or bool) passes at or above --threshold NAME=SCORE
  and fails below; without a threshold it is kept (rdf:value) as cantTell with no cause: excluded from
  every rate and counted beside (excluded_unexplained), never a pass or a fail;
- a sample error → cantTell caused by the environment; a sample error raised while scoring (its
  traceback passes through a scorer), or a scorer missing from a sample that other scorers scored →
  cantTell caused by the grader;
- the task and its dataset → a replay set (the task's name, or --replay-set) pinned by a digest of the
  dataset's name and location and the task's version, never of the samples run: a log of some of the
  samples (--limit, --sample-id, a cancelled run) is a run of the same set, with the other cases not
  run (kg/imported.py implied_set); the samples it ran are the set's cases it states; the model → the
  system (or --system);
- the log is one run (kg/imported.py): its eval id names the run, its creation time dates it;
  token usage and working time are kept as earl:info on each result until kg has run measurements."""
from __future__ import annotations

import re

from kg.imported import Run, implied_set
from kg.loading import Projection, loader
from kg.terms import XSD, Triples, decimal, literal

MECHANICAL = {"match", "includes", "pattern", "answer", "choice", "exact", "f1", "math", "multiple_choice"}
SCORING = re.compile(r"inspect_ai/scorer/|in score\b|in _score\b")


def looks_like_inspect(path, head: bytes) -> bool:
    if path.name.lower().endswith(".eval"):
        return head.startswith(b"PK")  # a zip archive (Inspect's .eval format)
    return head.lstrip().startswith(b"{") and b'"eval"' in head and b'"task_id"' in head and b'"run_id"' in head


def scorer_kind(name: str, metadata: dict | None, declared: dict) -> str | None:
    if name in declared:
        return declared[name]
    said = (metadata or {}).get("kind") or (metadata or {}).get("grader_kind")
    if said in ("mechanical", "model", "human"):
        return said
    base = name.rsplit("/", 1)[-1]
    if base.startswith("model_graded"):
        return "model"
    if base in MECHANICAL:
        return "mechanical"
    return None


@loader(kind="inspect", parse="bytes", patterns=("*.eval", "*.json"), shapes="earl.ttl", order=40,
        sniff=looks_like_inspect, options=("system", "replay_set", "grader_kind", "threshold"))
def read_inspect(source, ctx):
    try:
        from inspect_ai.log import read_eval_log
    except ImportError:
        ctx.problem("", "reading Inspect AI logs needs the inspect_ai package, which is not installed",
                    "pip install 'inspect-ai>=0.3.100' (what kg's optional extra [inspect] brings; or, in kg's clone, "
                    "python -m pip install '.[inspect]')")
        ctx.raise_if_problems()
    refuse_zip_bomb(source.path, ctx)
    try:
        log = read_eval_log(str(source.path))
    except Exception as err:  # a log inspect_ai itself cannot read
        for place, detail in unreadable(err):
            ctx.problem(place, f"inspect_ai cannot read this log: {detail}",
                        "check that it is a log written by `inspect eval` (a .eval archive or a .json log)")
        ctx.raise_if_problems()
    spec = log.eval
    samples = log.samples or []
    declared_kinds = ctx.options.get("grader_kind") or {}
    thresholds = ctx.options.get("threshold") or {}
    scorers: dict[str, dict | None] = {s.name: s.metadata for s in (getattr(spec, "scorers", None) or [])}
    for score in (log.results.scores if log.results else []):
        scorers.setdefault(score.name, score.metadata)
    for sample in samples:
        for name in (sample.scores or {}):
            scorers.setdefault(name, None)
    unknown = sorted((set(declared_kinds) | set(thresholds)) - set(scorers))
    if unknown:
        ctx.problem("", f"no scorer of this log is named {', '.join(unknown)} (its scorers: {', '.join(sorted(scorers)) or 'none'})",
                    "name a scorer of the log in --grader-kind and --threshold")
    if not scorers:
        ctx.problem("", "the log names no scorer, so no verdict can be read from it", "score the eval (inspect score)")
    ctx.raise_if_problems()

    dataset = spec.dataset
    ids = [str(i) for i in (dataset.sample_ids or [])] or sorted({str(s.id) for s in samples})
    set_id = ctx.options.get("replay_set") or spec.task
    t = Triples()
    version = getattr(spec, "task_version", None)
    implied = implied_set(ctx, t, set_id, ids + [str(s.id) for s in samples], place="/eval/dataset",
                          identity=dataset_identity(dataset, version),
                          title=f"{spec.task} on {dataset.name or dataset.location or 'its dataset'}",
                          version=version)
    if implied is None:
        ctx.raise_if_problems()
    _, cases = implied
    created = str(spec.created) if spec.created else None
    run = Run(ctx, t, ctx.options.get("system") or spec.model, spec.eval_id,
              date=created if created and "T" in created else None)
    for name, metadata in sorted(scorers.items()):
        run.grader(name, scorer_kind(name, metadata, declared_kinds), f"Inspect AI scorer {name}")
    for sample in samples:
        case_id, trial = str(sample.id), int(sample.epoch) - 1
        scores = sample.scores or {}
        usage = "; ".join(f"{model}: {u.input_tokens} tokens in, {u.output_tokens} out"
                          for model, u in (sample.model_usage or {}).items())
        times = f"working time {sample.working_time} s" if sample.working_time is not None else ""
        measured = "; ".join(x for x in (usage, times) if x)
        error = sample.error
        for name in sorted(scorers):
            score = scores.get(name)
            if score is None:
                if error is not None:
                    by_grader = bool(SCORING.search(error.traceback or "")) or bool(scores)
                    run.assert_(cases[case_id], case_id, trial, name, "cantTell",
                                cause="grader" if by_grader else "environment",
                                info=f"sample error: {error.message[:500]}", date=created)
                elif scores:
                    run.assert_(cases[case_id], case_id, trial, name, "cantTell", cause="grader",
                                info="this scorer gave no score where the others did", date=created)
                continue  # a sample no scorer scored and that did not fail was never scored: nothing to say
            outcome, info, value = judge(score.value, thresholds.get(name))
            explained = "; ".join(x for x in (info, measured) if x) or None
            run.assert_(cases[case_id], case_id, trial, name, outcome, info=explained, score=value, date=created)
    return Projection(t, pins=[])


def dataset_identity(dataset, task_version) -> dict:
    """What makes two logs runs of one replay set: the task's dataset (its name, and the last segment of
    its location: Inspect records a file's location relative to the folder `inspect eval` ran in, so
    one file run from two folders reads "data/x.jsonl" and "x.jsonl") and the task's version. Not the
    samples a run selected, nor the dataset's size: a run of some samples is a run of the same set."""
    location = str(dataset.location).replace("\\", "/").rstrip("/").rsplit("/", 1)[-1] if dataset.location else None
    return {"dataset": {"name": dataset.name, "location": location},
            "taskVersion": None if task_version is None else str(task_version)}


def judge(value, threshold: float | None) -> tuple[str, str | None, str | None]:
    """(outcome, note, rendered rdf:value) of one Inspect score value."""
    if value in ("C", "I", "P", "N"):
        return {"C": ("passed", None), "I": ("failed", None), "N": ("failed", "no answer (N)"),
                "P": ("failed", "partial (P): counted as not correct, as Inspect's pass_at_k counts it")}[value] \
            + (literal(value),)
    if isinstance(value, bool):
        value = int(value)
    if isinstance(value, (int, float)) and value == value:
        rendered = decimal(value) if abs(value) < 1e15 else literal(float(value))
        if threshold is None:
            return "cantTell", f"score {value}: no threshold is declared for this scorer (kg load --threshold)", rendered
        return ("passed" if value >= threshold else "failed"), f"score {value}, threshold {threshold}", rendered
    return "cantTell", f"score {str(value)[:200]!r} is neither C/I/P/N nor a number", literal(str(value)[:200])


# inspect_ai reads an .eval archive's members whole: a 6 MB archive holding a 6 GB member peaked at
# 5.4 GB before a MemoryError. A member is refused, from the archive's directory, before anything is
# decompressed, when it would unpack past this (an eval's largest member, a sample with its
# transcript, is some megabytes); Python's zipfile stops at the size a member declares, so a
# directory that lies about it cannot take more
MAX_MEMBER_BYTES = 512 << 20


def refuse_zip_bomb(path, ctx) -> None:
    import zipfile
    if not zipfile.is_zipfile(path):
        return
    with zipfile.ZipFile(path) as archive:
        for member in archive.infolist():
            if member.file_size > MAX_MEMBER_BYTES:
                ctx.problem(f"member {member.filename}",
                            f"it would unpack to {member.file_size:,} bytes from {member.compress_size:,} "
                            f"(more than the {MAX_MEMBER_BYTES >> 20} MiB kg reads of one member: a zip bomb, "
                            f"or no log inspect eval writes)", "load the log inspect eval wrote, unaltered")
    ctx.raise_if_problems()


def unreadable(err: Exception) -> list[tuple[str, str]]:
    """(place, what) for a log inspect_ai refuses: each field pydantic names (its JSON pointer in the
    log), else the error's own words."""
    errors = getattr(err, "errors", None)
    if callable(errors):
        try:
            found = [("/" + "/".join(str(part) for part in e.get("loc", ())),
                      "a required field is missing" if e.get("type") == "missing"
                      else f"{e.get('msg', 'invalid')} (found {str(e.get('input'))[:80]!r})") for e in errors()[:10]]
            if found:
                return found
        except Exception:
            pass
    return [("", f"{type(err).__name__}: {str(err)[:300]}")]
