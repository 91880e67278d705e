"""The docs must say what kg does: the query reference is generated from the catalogue, and every
example in docs/formats.md, docs/anticipation.md and README.md that is a file to load or a command
is loaded or run here, with the real CLI, into a fresh store (issue 41: the `desk.earl.jsonl`
example was rejected as written)."""
import os
import re
import shlex
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from kg import catalogue
from tests.conftest import EXAMPLES, ROOT, run_kg

DOCS = ROOT / "docs"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.M | re.S)
NAMED = re.compile(r"^`([\w.-]+\.(?:json|jsonl|ttl))`")


def test_the_query_reference_is_not_stale():
    page = ROOT / "docs" / "queries.md"
    assert page.read_text() == catalogue.markdown(catalogue.load()), \
        "docs/queries.md is stale: run `kg queries --format markdown > docs/queries.md`"


def fences(doc: Path) -> list[dict]:
    """Every fenced block of a page: its language, text, the last non-blank line before it (where a
    file's name is given) and the heading it sits under."""
    text = doc.read_text()
    blocks = []
    for m in FENCE.finditer(text):
        before = text[:m.start()].rstrip("\n").splitlines()
        prev = next((line for line in reversed(before) if line.strip()), "")
        heading = next((line for line in reversed(before) if line.startswith("#") and " " in line), "")
        blocks.append({"lang": m.group(1), "body": m.group(2), "prev": prev, "heading": heading.lstrip("# "),
                       "line": text[:m.start()].count("\n") + 1})
    return blocks


def loads(result, *names):
    """Every named file loaded (the CLI's own report, one line per file)."""
    out = result.stdout + result.stderr
    for name in names:
        assert re.search(rf"^loaded\s+\S*{re.escape(name)} ", out, re.M), f"{name} did not load:\n{out}"


# ── docs/formats.md: the example estate ──
def formats_files() -> dict[str, str]:
    """The example files formats.md names (`desk.gold.json`: then its block), by name."""
    return {m.group(1): b["body"] for b in fences(DOCS / "formats.md") if (m := NAMED.match(b["prev"]))}


def unnamed(doc: str, needle: str) -> str:
    """The one json/jsonl block of a page that holds `needle`."""
    found = [b["body"] for b in fences(DOCS / doc) if b["lang"] in ("json", "jsonl") and needle in b["body"]]
    assert len(found) == 1, (doc, needle, len(found))
    return found[0]


# every json/jsonl block of the three pages is loaded by a test below, or is a fragment (an object
# cut with "…", not a file), or a command's output; a new example must be added here
FRAGMENT_NEEDLES = {"formats.md": ["sha256:b5eface3…"]}
LOADED_NEEDLES = {
    "formats.md": ['"id": "sit-3"', '"latency-ms": 812', '"id": "a-0001-fix"', '"id": "y1"'],
    "anticipation.md": ['"id": "ant41-e2-refusal"'],
}


def test_every_file_example_is_accounted_for():
    named = set(formats_files())
    assert named == {"desk.replayset.json", "desk.gold.json", "desk.situations.jsonl", "desk.earl.jsonl",
                     "report.ttl", "cubby.ttl"}, named
    for doc in ("formats.md", "anticipation.md"):
        for b in fences(DOCS / doc):
            if b["lang"] not in ("json", "jsonl") or NAMED.match(b["prev"]):
                continue
            needles = LOADED_NEEDLES.get(doc, []) + FRAGMENT_NEEDLES.get(doc, [])
            assert any(n in b["body"] for n in needles), \
                f"docs/{doc} line {b['line']}: an example no test loads; add it to tests/test_docs.py"
    readme_data = [b for b in fences(ROOT / "README.md") if b["lang"] in ("json", "jsonl", "turtle")]
    assert readme_data == [], "README.md has a data example no test loads"


def test_the_formats_estate_loads_as_written(tmp_path):
    """desk.replayset.json, desk.gold.json, desk.situations.jsonl, desk.earl.jsonl, report.ttl and
    cubby.ttl, as formats.md writes them, load into a fresh store, with the record example of
    "Delivered situations"."""
    estate = tmp_path / "evidence"
    estate.mkdir()
    files = formats_files()
    for name, body in files.items():
        (estate / name).write_text(body)
    (estate / "desk-records.situations.jsonl").write_text(unnamed("formats.md", '"id": "sit-3"'))
    result = run_kg("load", "--store", tmp_path / "store", estate)
    assert result.returncode == 0, result.stdout + result.stderr
    loads(result, *files, "desk-records.situations.jsonl")
    # what formats.md says of the EARL example: "one info in its catalogue record"
    stats = run_kg("query", "data-quality", "--store", tmp_path / "store", "--format", "csv")
    assert stats.returncode == 0, stats.stderr
    earl_rows = [line for line in stats.stdout.splitlines() if "desk.earl.jsonl" in line]
    assert [r for r in earl_rows if "several assertors" in r], stats.stdout


def test_the_rdf_each_example_becomes_is_what_kg_stores(tmp_path):
    """Each "The RDF it becomes" of formats.md is, triple for triple (blank nodes matched by
    isomorphism), the graph kg stores for the example above it, with /srv/evidence/ where the test
    wrote the files."""
    import pyoxigraph as ox
    import rdflib
    from rdflib.compare import graph_diff, to_isomorphic

    from kg import ingest
    from kg.store import Store
    estate = tmp_path / "evidence"
    estate.mkdir()
    files = formats_files()
    for name, body in files.items():
        (estate / name).write_text(body)
    store = Store(":memory:")
    ingest.ensure_vocabularies(store)
    assert all(o.status == "loaded" for o in ingest.load(store, [estate]))
    shown, last_named = {}, None
    for b in fences(DOCS / "formats.md"):
        if (m := NAMED.match(b["prev"])):
            last_named = m.group(1)
        elif b["heading"] == "The RDF it becomes" and b["lang"] == "turtle" and last_named not in shown:
            shown[last_named] = b["body"]
    assert set(shown) == set(files), set(files) - set(shown)
    for name, turtle in shown.items():
        doc = rdflib.Graph().parse(data=turtle.replace("file:///srv/evidence/", estate.resolve().as_uri() + "/"),
                                   format="turtle")
        text = "".join(f"{q.subject} {q.predicate} {q.object} .\n"
                       for q in store.ox.quads_for_pattern(None, None, None, ox.NamedNode((estate / name).resolve().as_uri())))
        stored = rdflib.Graph().parse(data=text, format="nt")
        _, only_doc, only_stored = graph_diff(to_isomorphic(doc), to_isomorphic(stored))
        assert not only_doc and not only_stored, \
            f"{name}: formats.md shows {sorted(only_doc)[:5]}, kg stores {sorted(only_stored)[:5]}"


def test_the_measurements_example_loads(tmp_path):
    estate = tmp_path / "evidence"
    estate.mkdir()
    files = formats_files()
    (estate / "desk.replayset.json").write_text(files["desk.replayset.json"])
    (estate / "measured.earl.jsonl").write_text(unnamed("formats.md", '"latency-ms": 812'))
    result = run_kg("load", "--store", tmp_path / "store", estate)
    assert result.returncode == 0, result.stdout + result.stderr
    loads(result, "measured.earl.jsonl")


def test_the_supersession_examples_do_what_formats_md_says(tmp_path):
    """"The proper correction is a new line, which loads as an addition" (over the examples'
    cubby-routing results); the cycle y1 <-> y2 is refused as a supersession cycle."""
    estate = tmp_path / "evidence"
    estate.mkdir()
    for name in ("cubby.ttl", "cubby-routing.replayset.json", "cubby-routing.gold.json",
                 "cubby-routing.situations.jsonl", "cubby-routing.earl.jsonl"):
        shutil.copy(EXAMPLES / name, estate / name)
    (estate / "fix.earl.jsonl").write_text(unnamed("formats.md", '"id": "a-0001-fix"'))
    result = run_kg("load", "--store", tmp_path / "store", estate)
    assert result.returncode == 0, result.stdout + result.stderr
    loads(result, "fix.earl.jsonl")
    (tmp_path / "mini.replayset.json").write_text(
        '{"replaySet": "mini", "version": 1, "suiteKind": "capability", "intents": '
        '[{"id": "i2", "split": "development", "bucket": "explicit", "message": "the set the example names"}]}')
    loads(run_kg("load", "--store", tmp_path / "store", tmp_path / "mini.replayset.json"), "mini.replayset.json")
    (tmp_path / "cycle.earl.jsonl").write_text(unnamed("formats.md", '"id": "y1"'))
    refused = run_kg("load", "--store", tmp_path / "store", tmp_path / "cycle.earl.jsonl")
    assert refused.returncode == 1
    assert 'a supersession cycle: "y1" supersedes "y2" supersedes "y1"' in refused.stderr, refused.stderr


def test_the_anticipation_example_verdict_loads(tmp_path):
    """docs/anticipation.md's criterion verdict, against the example declaration it names."""
    estate = tmp_path / "evidence"
    estate.mkdir()
    shutil.copy(EXAMPLES / "cubby-po-check.anticipation.json", estate)
    (estate / "verdict.earl.jsonl").write_text(unnamed("anticipation.md", '"id": "ant41-e2-refusal"').replace("\n", " ") + "\n")
    result = run_kg("load", "--store", tmp_path / "store", estate)
    assert result.returncode == 0, result.stdout + result.stderr
    loads(result, "cubby-po-check.anticipation.json", "verdict.earl.jsonl")


# ── README.md: the commands ──
# commands the test cannot run as written, each with why; every one must still be in README.md
NOT_RUN = {
    "make load report": "runs the whole setup (make); `kg load examples/` and `kg report` are run below",
    "make test": "the whole test suite",
    ". .venv/bin/activate": "the test runs kg from its own interpreter",
    "kg validate new-results.earl.jsonl": "names the reader's own file",
    "kg load --revise runs/day.earl.jsonl": "names the reader's own file",
    # the "Installing" blocks: tests/test_wheel.py runs them, as written, in fresh virtual environments
    "python -m pip install '.[inspect]'": "installs kg (tests/test_wheel.py)",
    "python -m pip install build && python -m build --wheel": "builds the wheel (tests/test_wheel.py)",
    "python -m pip install 'dist/kg_evalgraph-0.1.0-py3-none-any.whl[inspect]'": "installs the wheel (tests/test_wheel.py)",
    "kg load logs/": "names the reader's own folder",
    "kg serve": "a server that runs until stopped (tests/test_serve*)",
    "KG_ENDPOINT=http://127.0.0.1:7878 kg load examples/": "needs a SPARQL server",
}
# commands README.md shows that kg does not yet do as shown: each runs, and must still fail; when it
# passes, remove it here (the README was right all along)
NOT_YET: dict[str, int] = {}
# exit statuses a documented command may end with, as the README says
EXPECTED_STATUS = {"--fail-on-regression": (0, 4), "--fail-under": (0, 3)}


def readme_commands() -> list[str]:
    commands = []
    for b in fences(ROOT / "README.md"):
        if b["lang"] != "sh":
            continue
        for line in b["body"].splitlines():
            command = re.sub(r"\s+#.*$", "", line).strip()
            if command:
                commands.append(command)
    return commands


def test_not_run_is_not_stale():
    assert set(NOT_RUN) | set(NOT_YET) <= set(readme_commands()), \
        (set(NOT_RUN) | set(NOT_YET)) - set(readme_commands())


def test_the_readme_commands_run(tmp_path):
    """Each `kg` command of README.md's shell blocks, in order, in a folder holding a copy of
    examples/, against a fresh store: it exits as the README says (0, or the gate's status)."""
    shutil.copytree(EXAMPLES, tmp_path / "examples")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    kg = bin_dir / "kg"
    kg.write_text(f"#!/bin/sh\nexec {shlex.quote(sys.executable)} -m kg \"$@\"\n")
    kg.chmod(kg.stat().st_mode | stat.S_IEXEC)
    env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}", KG_STORE=str(tmp_path / "store"),
               PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    env.pop("KG_ENDPOINT", None)
    ran = 0
    for command in readme_commands():
        if command in NOT_RUN:
            continue
        assert command.startswith("kg "), f"README.md command neither run nor in NOT_RUN: {command}"
        result = subprocess.run(["sh", "-c", command], cwd=tmp_path, env=env, capture_output=True, text=True,
                                timeout=600)
        if command in NOT_YET:
            assert result.returncode == NOT_YET[command], \
                f"{command} now exits {result.returncode}: remove it from NOT_YET in tests/test_docs.py"
            continue
        allowed = next((s for flag, s in EXPECTED_STATUS.items() if flag in command), (0,))
        assert result.returncode in allowed, f"{command}: exit {result.returncode}\n{result.stdout}\n{result.stderr}"
        ran += 1
    assert ran >= 10, ran  # the README shows more than ten commands to run
