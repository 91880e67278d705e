"""The shipped notebook runs end to end in a real Jupyter kernel and shows what it promises."""
import shutil

import nbformat
from nbclient import NotebookClient

from tests.conftest import EXAMPLES, ROOT


def run_in_project(name: str, project, monkeypatch) -> list:
    """Runs notebooks/NAME in a real kernel inside a project laid out as the checkout is (kg.toml at
    the top, the notebook in notebooks/), with nothing in the environment naming a store; returns
    its code cells' outputs, after checking that none is an error."""
    for variable in ("KG_STORE", "KG_ENDPOINT", "KG_HOME"):
        monkeypatch.delenv(variable, raising=False)
    shutil.copy(ROOT / "kg.toml", project / "kg.toml")
    (project / "notebooks").mkdir()
    (project / "examples").symlink_to(EXAMPLES)
    notebook = nbformat.read(ROOT / "notebooks" / name, as_version=4)
    NotebookClient(notebook, timeout=300, kernel_name="python3",
                   resources={"metadata": {"path": str(project / "notebooks")}}).execute()
    outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.get("outputs", [])]
    assert not [o for o in outputs if o.output_type == "error"]
    return outputs


def test_explore_notebook_runs_in_a_real_kernel_on_the_projects_store(tmp_path, monkeypatch):
    # run from notebooks/, it must use the project's .kg/store
    outputs = run_in_project("explore.ipynb", tmp_path, monkeypatch)
    texts = "\n".join(o.get("data", {}).get("text/plain", "") for o in outputs)
    assert "loaded" in texts and "pass-at-k" in texts
    assert "cubby-routing" in texts and "capability" in texts and "mechanical" in texts
    assert "'params': {'k': 2}" in texts and f"'store': '{tmp_path / '.kg' / 'store'}'" in texts, texts[-600:]
    assert any("image/png" in o.get("data", {}) for o in outputs), "the chart was drawn"
    assert (tmp_path / ".kg" / "store").is_dir(), "the notebook used the project's store"
    assert not (tmp_path / "notebooks" / ".kg").exists(), "no second store beside the notebook"


def test_compare_notebook_draws_two_systems_per_grader_kind_with_the_clis_numbers(tmp_path, monkeypatch):
    import ast
    import json

    from tests.conftest import run_kg
    outputs = run_in_project("compare.ipynb", tmp_path, monkeypatch)
    assert sum("image/png" in o.get("data", {}) for o in outputs) == 1, "one figure, a panel per grader kind"
    printed = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    assert "not drawn:" in printed  # said, not drawn as 0
    refused = printed.split("refused cases, named")[1].splitlines()[0]
    assert "/intent/" in refused  # each case refused (graded against other gold) named; the rest drawn
    summary = ast.literal_eval(outputs[-1]["data"]["text/plain"])
    # the same rows `kg compare` prints for the two systems, on the store the notebook filled
    cli = run_kg("compare", "cubby@1.4.0", "cubby@1.5.0-rc1", "--format", "json", "--store", tmp_path / ".kg" / "store")
    expected = [(r["replay_set"].rsplit("/", 1)[-1], r["grader_kind"], r["status"], r["regressed"], r["improved"])
                for r in json.loads(cli.stdout)]
    assert [(r["replay_set_id"], r["grader_kind"], r["status"], r["regressed"], r["improved"]) for r in summary] \
        == expected and len(expected) == 6
    assert {r["grader_kind"] for r in summary} == {"human", "mechanical", "model"}
