"""The shipped notebook runs end to end in a real Jupyter kernel and shows what it promises."""
import os

import nbformat
import pytest
from nbclient import NotebookClient

from tests.conftest import ROOT


def test_explore_notebook_runs_in_a_real_kernel(tmp_path, monkeypatch):
    monkeypatch.setenv("KG_STORE", str(tmp_path / "store"))
    notebook = nbformat.read(ROOT / "notebooks" / "explore.ipynb", as_version=4)
    NotebookClient(notebook, timeout=300, kernel_name="python3",
                   resources={"metadata": {"path": str(ROOT / "notebooks")}}).execute()
    outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.get("outputs", [])]
    assert not [o for o in outputs if o.output_type == "error"]
    texts = "\n".join(o.get("data", {}).get("text/plain", "") for o in outputs)
    assert "loaded" in texts and "pass-at-k" in texts
    assert "cubby-routing" in texts and "capability" in texts and "mechanical" in texts
    assert any("image/png" in o.get("data", {}) for o in outputs), "the chart was drawn"
    assert (tmp_path / "store").exists(), "the notebook used the store KG_STORE names"
