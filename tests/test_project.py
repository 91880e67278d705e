"""A user's project folder (kg.toml, or KG_HOME) extends the built-in catalogue with its own
queries, loaders, shapes and report pages, and every command and kg.open() finds one store the same
way: --store/--endpoint, KG_ENDPOINT, KG_STORE, kg.toml's store, then .kg/store from here upward."""
import json
import os
import re
import shutil
from pathlib import Path

import pytest

import kg
from kg import catalogue
from kg.errors import NoStore, StoreUnavailable, UsageError
from tests.conftest import EXAMPLES, ROOT, run_kg

NOTE_LOADER = '''"""A project's own format: *.notes.json, a list of notes."""
from kg.loading import Projection, loader


@loader(kind="note", parse="json", patterns=("*.notes.json",), schema="note.schema.json", shapes="note.ttl")
def read_notes(source, ctx):
    lines = [f'<urn:note:{n["id"]}> <http://www.w3.org/2000/01/rdf-schema#label> "{n["text"]}" .'
             for n in source.json()]
    return Projection("\\n".join(lines) + "\\n")
'''
NOTE_SCHEMA = {"type": "array", "items": {"type": "object", "required": ["id", "text"],
                                          "properties": {"id": {"type": "string"}, "text": {"type": "string"}}}}
NOTE_SHAPES = """@prefix sh: <http://www.w3.org/ns/shacl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
<urn:shape:note> a sh:NodeShape ; sh:targetSubjectsOf rdfs:label ;
  sh:property [ sh:path rdfs:label ; sh:minLength 3 ; sh:message "a note says at least 3 characters" ] .
"""
NOTES_QUERY = """#+ summary: the project's notes
#+ columns:
#+   note: a note
#+   text: what it says
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
SELECT ?note ?text WHERE { ?note rdfs:label ?text FILTER(STRSTARTS(STR(?note), "urn:note:")) } ORDER BY ?note
"""
NOTES_PAGE = """{#- nav: 90 Notes -#}
{% extends "_base.html" %}
{% from "_table.html" import table with context %}
{% block title %}Notes{% endblock %}
{% block main %}<h1>Our notes</h1>{{ table(query("notes")) }}{% endblock %}
"""


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A project folder with kg.toml and one of each kind of file, and a subfolder to work in."""
    for name in ("KG_STORE", "KG_ENDPOINT", "KG_HOME"):
        monkeypatch.delenv(name, raising=False)
    root = tmp_path / "project"
    for folder in ("queries", "loaders", "shapes", "reports/pages", "data", "notebooks"):
        (root / folder).mkdir(parents=True)
    (root / "kg.toml").write_text("")
    (root / "loaders" / "notes.py").write_text(NOTE_LOADER)
    (root / "loaders" / "note.schema.json").write_text(json.dumps(NOTE_SCHEMA))
    (root / "shapes" / "note.ttl").write_text(NOTE_SHAPES)
    (root / "queries" / "notes.rq").write_text(NOTES_QUERY)
    (root / "reports" / "pages" / "notes.html").write_text(NOTES_PAGE)
    (root / "data" / "ours.notes.json").write_text(json.dumps([{"id": "a", "text": "first note"},
                                                               {"id": "b", "text": "second note"}]))
    return root


def test_a_projects_files_extend_the_builtins_from_any_subfolder(project):
    sub = project / "notebooks"
    listed = run_kg("queries", cwd=sub)
    assert listed.returncode == 0, listed.stderr
    assert "notes" in listed.stdout and "pass-at-k" in listed.stdout and not listed.stderr
    kinds = run_kg("load", "--kinds", cwd=sub)
    assert "note" in kinds.stdout.split() and "replayset" in kinds.stdout

    loaded = run_kg("load", project / "data", EXAMPLES / "cubby-routing.replayset.json", cwd=sub)
    assert loaded.returncode == 0, loaded.stderr
    assert "ours.notes.json (note, 2 triples)" in loaded.stdout
    assert (project / ".kg" / "store").is_dir() and not (sub / ".kg").exists(), \
        "the store is made beside kg.toml, not in the folder the command ran from"

    notes = run_kg("query", "notes", "--format", "json", cwd=sub)
    assert notes.returncode == 0, notes.stderr
    assert [r["text"] for r in json.loads(notes.stdout)] == ["first note", "second note"]

    report = run_kg("report", "--out", project / "site", cwd=sub)
    assert report.returncode == 0, report.stderr
    page = (project / "site" / "notes.html").read_text()
    assert "Our notes" in page and "second note" in page
    assert 'href="notes.html"' in (project / "site" / "index.html").read_text()
    assert (project / "site" / "results.html").exists(), "the built-in pages are still there"


def test_a_project_file_named_like_a_builtin_replaces_it_and_says_so(project):
    builtin_query = ROOT / "queries" / "sets" / "replay-sets.rq"
    mine = project / "queries" / "replay-sets.rq"
    mine.write_text(builtin_query.read_text().replace("#+ summary: ", "#+ summary: OURS ", 1))
    builtin_shapes = ROOT / "shapes" / "replayset.ttl"
    (project / "shapes" / "replayset.ttl").write_text(builtin_shapes.read_text() + "\n# our copy\n")

    listed = run_kg("queries", cwd=project)
    assert listed.returncode == 0
    assert "OURS" in listed.stdout
    assert f"kg: warning: {mine} overrides the built-in {builtin_query}" in listed.stderr

    loaded = run_kg("load", EXAMPLES / "cubby-routing.replayset.json", cwd=project)
    assert loaded.returncode == 0, loaded.stderr
    assert f"{project / 'shapes' / 'replayset.ttl'} overrides the built-in {builtin_shapes}" in loaded.stderr


def test_an_unchanged_copy_of_a_builtin_is_no_override_to_warn_about(project):
    shutil.copy(ROOT / "queries" / "sets" / "replay-sets.rq", project / "queries")
    listed = run_kg("queries", cwd=project)
    assert listed.returncode == 0 and "overrides" not in listed.stderr


def test_kg_home_names_the_project_folder_instead_of_kg_toml(project, tmp_path):
    (project / "kg.toml").unlink()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert "notes" not in run_kg("queries", cwd=elsewhere).stdout.split()
    listed = run_kg("queries", cwd=elsewhere, env={"KG_HOME": str(project)})
    assert listed.returncode == 0 and "notes" in listed.stdout.split()
    wrong = run_kg("queries", cwd=elsewhere, env={"KG_HOME": str(tmp_path / "nope")})
    assert wrong.returncode == 2 and "KG_HOME is" in wrong.stderr and "not a folder" in wrong.stderr


def test_kg_toml_store_names_the_store_relative_to_its_folder(project):
    (project / "kg.toml").write_text('store = "var/kgstore"\n')
    loaded = run_kg("load", EXAMPLES / "cubby-routing.replayset.json", cwd=project / "notebooks")
    assert loaded.returncode == 0, loaded.stderr
    assert (project / "var" / "kgstore").is_dir() and not (project / ".kg").exists()
    assert run_kg("stats", cwd=project / "data").returncode == 0


def test_a_wrong_kg_toml_says_which_key_and_what_it_knows(project):
    (project / "kg.toml").write_text('stor = ".kg/store"\n')
    done = run_kg("stats", cwd=project)
    assert done.returncode == 2
    assert f"{project / 'kg.toml'}: unknown key(s) stor (kg.toml knows store:" in done.stderr
    (project / "kg.toml").write_text('store = \n')
    done = run_kg("stats", cwd=project)
    assert done.returncode == 2 and "not valid TOML" in done.stderr and "Traceback" not in done.stderr


def test_the_store_is_found_upward_and_the_order_is_flag_endpoint_env_toml(project, tmp_path):
    first, second = tmp_path / "first", tmp_path / "second"
    assert run_kg("load", "--store", first, EXAMPLES / "cubby-routing.replayset.json").returncode == 0
    assert run_kg("load", "--store", second, EXAMPLES / "cubby-regression.replayset.json").returncode == 0
    (project / "kg.toml").write_text(f'store = "{first}"\n')

    def sets(*args, env=None):
        done = run_kg("query", "replay-sets", "--format", "json", *args, cwd=project / "data", env=env)
        assert done.returncode == 0, done.stderr
        return [r["replay_set_id"] for r in json.loads(done.stdout)]
    assert sets() == ["cubby-routing"]                                     # kg.toml
    assert sets(env={"KG_STORE": str(second)}) == ["cubby-regression"]     # KG_STORE beats kg.toml
    unreachable = {"KG_ENDPOINT": "http://127.0.0.1:9/", "KG_STORE": str(second)}
    assert sets("--store", first, env=unreachable) == ["cubby-routing"]    # --store beats KG_ENDPOINT
    refused = run_kg("stats", cwd=project, env=unreachable)                 # KG_ENDPOINT beats KG_STORE
    assert refused.returncode == 1 and "127.0.0.1:9" in refused.stderr

    (project / "kg.toml").write_text("")
    shutil.copytree(second, project / ".kg" / "store")
    assert sets() == ["cubby-regression"]                                  # .kg/store found upward


@pytest.mark.parametrize("args", [
    ["stats"], ["query", "pass-at-k"], ["report"], ["report", "coverage", "--history", "h"],
    ["validate", EXAMPLES / "cubby-routing.replayset.json"], ["sparql", "SELECT * WHERE { ?s ?p ?o }"],
])
def test_a_command_that_reads_never_creates_a_store(args, tmp_path):
    done = run_kg(*args, cwd=tmp_path)
    created = [p for p in tmp_path.rglob("*") if ".kg" in p.parts]
    assert not created, f"kg {args[0]} created {created}"
    if args[0] == "validate":  # with no store, a file is validated against nothing loaded: that is fine
        assert done.returncode == 0, done.stderr
        return
    assert done.returncode == 1, (done.returncode, done.stderr)
    assert f"there is no store at {tmp_path / '.kg' / 'store'}" in done.stderr
    assert "load something first (kg load PATH)" in done.stderr and "Traceback" not in done.stderr


def test_a_store_path_that_is_a_file_is_refused_with_a_fix(tmp_path):
    (tmp_path / "store").write_text("not a store")
    for args in (["stats"], ["load", EXAMPLES / "cubby-routing.replayset.json"]):
        done = run_kg(*args, "--store", tmp_path / "store")
        assert done.returncode == 1 and "Traceback" not in done.stderr
        assert f"{tmp_path / 'store'} is a file, not a store: a store is a folder" in done.stderr


def test_store_and_endpoint_together_are_a_usage_error(tmp_path):
    done = run_kg("stats", "--store", tmp_path / "s", "--endpoint", "http://127.0.0.1:9")
    assert done.returncode == 2 and "give --store or --endpoint, not both" in done.stderr


def test_a_mistyped_query_name_suggests_close_names(tmp_path):
    done = run_kg("query", "pass-at-j", "--store", tmp_path / "s")
    assert done.returncode == 2
    assert "no query named 'pass-at-j'; did you mean pass-at-k?" in done.stderr
    assert not (tmp_path / "s").exists()
    described = run_kg("queries", "replay-set")
    assert described.returncode == 2 and "did you mean replay-sets?" in described.stderr


# ── the Python API resolves the store the same way ──
def test_kg_open_finds_the_projects_store_from_a_subfolder(project, monkeypatch):
    monkeypatch.chdir(project / "notebooks")
    g = kg.open()
    g.load(EXAMPLES / "cubby-routing.replayset.json")
    assert (project / ".kg" / "store").is_dir() and not (project / "notebooks" / ".kg").exists()
    assert g.where.path == str(project / ".kg" / "store") and g.where.chosen_by == "default"
    del g


def test_kg_open_read_only_never_creates_a_store(tmp_path, monkeypatch):
    for name in ("KG_STORE", "KG_ENDPOINT", "KG_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(NoStore, match="there is no store at .*: load something first"):
        kg.open(read_only=True)
    assert not (tmp_path / ".kg").exists()


def test_kg_open_refuses_a_file_for_a_store(tmp_path):
    (tmp_path / "f").write_text("")
    with pytest.raises(StoreUnavailable, match="is a file, not a store"):
        kg.open(tmp_path / "f")


def test_dataframes_say_what_made_them(tmp_path):
    g = kg.open(":memory:")
    g.load(EXAMPLES)
    frame = g.query("pass-at-k", k=2)
    assert frame.attrs["query"] == "pass-at-k" and frame.attrs["params"] == {"k": 2}
    # the text that ran: k bound (by substitution, kg/catalogue/binding.py bind), no free ?k left in its code
    sparql = frame.attrs["sparql"]
    assert sparql == catalogue.load()["pass-at-k"].bound_text({"k": 2})
    assert "?k" in catalogue.code_only(catalogue.load()["pass-at-k"].text) and not re.search(r"\?k\b", catalogue.code_only(sparql))
    assert frame.attrs["store"] == ":memory:" and frame.attrs["endpoint"] is None
    assert frame.attrs["at"].endswith("+00:00")
    ad_hoc = g.sparql("SELECT ?s WHERE { ?s ?p ?o } LIMIT 1")
    assert ad_hoc.attrs["query"] is None and ad_hoc.attrs["sparql"].startswith("SELECT ?s")


def test_a_wrong_query_name_in_python_suggests_close_names():
    g = kg.open(":memory:")
    with pytest.raises(catalogue.UnknownQuery) as caught:
        g.query("pass-at-j")
    assert str(caught.value) == "no query named 'pass-at-j'; did you mean pass-at-k? (g.queries() lists them)"
    assert isinstance(caught.value, LookupError) and not isinstance(caught.value, KeyError)


def test_kg_open_honours_kg_endpoint(monkeypatch, tmp_path):
    from tests.remote.conftest import OXIGRAPH, OxigraphServer
    if not Path(OXIGRAPH).exists():
        pytest.skip("the oxigraph server binary (PyPI package `oxigraph`) is not installed")
    server = OxigraphServer(tmp_path / "oxigraph").start()
    try:
        monkeypatch.setenv("KG_ENDPOINT", server.url)
        monkeypatch.setenv("KG_STORE", str(tmp_path / "never"))  # KG_ENDPOINT comes first
        g = kg.open()
        assert type(g.store).__name__ == "RemoteStore" and g.where.chosen_by == "KG_ENDPOINT"
        g.load(EXAMPLES / "cubby-routing.replayset.json")
        frame = g.query("replay-sets")
        assert list(frame["replay_set_id"]) == ["cubby-routing"]
        assert frame.attrs["endpoint"] == server.url and frame.attrs["store"] is None
        assert not (tmp_path / "never").exists()
    finally:
        server.stop()
