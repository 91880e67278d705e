"""kg as a user gets it: the wheel built from this checkout, installed with its dependencies into a
fresh virtual environment (no access to the checkout or to this venv's packages), run from a folder
that is not the checkout. It must carry the whole built-in catalogue — queries, loaders, shapes,
report templates, vocabularies — and give the same numbers as the checkout does.

About two minutes: most of it is pip installing pandas, matplotlib and pyoxigraph into the new venv
(from pip's cache when warm). `make test` runs it; `pytest -m "not wheel"` leaves it out."""
import json
import os
import re
import subprocess
import sys
import tomllib
import venv
import zipfile
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, ROOT, run_kg

pytestmark = pytest.mark.wheel
CATALOGUE = ("queries", "loaders", "shapes", "reports")


def _clean_env() -> dict:
    # nothing may point the installed kg back at the checkout or at a store outside the test
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("KG_") and k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    return env


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The wheel (built via the sdist, so the sdist is proved to carry the folders too) and the build's log."""
    out = tmp_path_factory.mktemp("dist")
    done = subprocess.run([sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)],
                          capture_output=True, text=True, env=_clean_env(), timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    wheels = list(out.glob("kg-*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0], done.stdout + done.stderr


@pytest.fixture(scope="module")
def installed(built, tmp_path_factory):
    """A fresh venv with only the wheel and its dependencies, and a work folder outside the checkout."""
    home = tmp_path_factory.mktemp("user")
    env_dir = home / "venv"
    venv.create(env_dir, with_pip=True)  # not --system-site-packages: that would hide a missing file
    done = subprocess.run([str(env_dir / "bin" / "python"), "-m", "pip", "install", "--quiet", str(built[0])],
                          capture_output=True, text=True, env=_clean_env(), timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    work = home / "work"
    work.mkdir()
    return env_dir, work


def kg(installed, *args):
    env_dir, work = installed
    return subprocess.run([str(env_dir / "bin" / "kg"), *map(str, args)], cwd=work, env=_clean_env(),
                          capture_output=True, text=True, timeout=600)


def test_the_build_lists_every_folder_it_ships(built):
    # setuptools warns of a data folder missing from `packages`; a new catalogue folder must be added there
    assert "absent from the `packages` configuration" not in built[1], \
        "add the folder named in the warning to [tool.setuptools] packages in pyproject.toml"


def test_the_wheel_carries_every_catalogue_file_and_vocabulary(built):
    names = set(zipfile.ZipFile(built[0]).namelist())
    expected = {f"kg/builtin/{p.relative_to(ROOT)}" for folder in CATALOGUE
                for p in (ROOT / folder).rglob("*") if p.is_file() and "__pycache__" not in p.parts}
    expected |= {f"kg/vocab/{p.name}" for p in (ROOT / "kg" / "vocab").glob("*.ttl")}
    assert len(expected) > 70  # the catalogue as it is now; a glob that finds nothing would pass below
    missing = sorted(expected - names)
    assert not missing, f"the wheel lacks {missing}: add their patterns to [tool.setuptools.package-data]"


def test_installed_kg_runs_from_any_folder_with_the_builtin_catalogue(installed):
    env_dir, work = installed
    where = subprocess.run([str(env_dir / "bin" / "python"), "-c", "import kg, kg.paths; print(kg.__file__); "
                            "print(kg.paths.builtin())"], cwd=work, env=_clean_env(), capture_output=True, text=True)
    module, builtin = where.stdout.split()
    assert module.startswith(str(env_dir)) and builtin.startswith(str(env_dir)), where.stdout + where.stderr

    version = kg(installed, "--version")
    expected = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert version.returncode == 0 and version.stdout.strip().endswith(expected), version.stdout

    listed = kg(installed, "queries")
    assert listed.returncode == 0, listed.stderr
    shipped = len(list((ROOT / "queries").rglob("*.rq")))
    assert f"({shipped} rows)" in listed.stdout and "pass-at-k" in listed.stdout

    loaded = kg(installed, "load", EXAMPLES)
    assert loaded.returncode == 0, loaded.stderr
    files = sum(1 for p in EXAMPLES.iterdir() if p.is_file() and p.suffix != ".py")
    assert f"load: {files} loaded" in loaded.stdout + loaded.stderr
    assert (work / ".kg" / "store").is_dir()

    answer = kg(installed, "query", "pass-at-k", "-p", "k=2", "--format", "json")
    assert answer.returncode == 0, answer.stderr
    checkout_store = work.parent / "checkout-store"
    assert run_kg("load", "--store", checkout_store, EXAMPLES).returncode == 0
    checkout = run_kg("query", "pass-at-k", "-p", "k=2", "--format", "json", "--store", checkout_store)
    rows = json.loads(answer.stdout)
    assert rows and rows == json.loads(checkout.stdout)

    report = kg(installed, "report")
    assert report.returncode == 0, report.stderr
    pages = {p.name for p in (ROOT / "reports" / "pages").glob("*.html")}
    written = {p.name for p in (work / "build" / "report").glob("*.html")}
    assert pages <= written, f"pages missing from the installed report: {sorted(pages - written)}"
    assert re.search(r"report written: .*index\.html", report.stdout)
