"""kg as a user gets it: installed by the README's own commands ("Installing", run literally, each
block in a fresh virtual environment, from a clean copy of this checkout), with its [inspect] extra,
run from a folder that is not the checkout (no access to the checkout or to this venv's packages).
The wheel must carry the whole built-in catalogue — queries, loaders, shapes, report templates,
vocabularies — and give the same numbers as the checkout does.

About two minutes: most of it is pip installing pandas, matplotlib and pyoxigraph into the new venv
(from pip's cache when warm). `make test` runs it; `pytest -m "not wheel"` leaves it out."""
import json
import os
import re
import shutil
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
    wheels = list(out.glob("kg_evalgraph-*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0], done.stdout + done.stderr


def readme_install_blocks() -> list[str]:
    """The shell blocks of the README's "Installing" section, as written there."""
    text = (ROOT / "README.md").read_text()
    section = text[text.index("\n## Installing\n"):]
    section = section[:section.index("\n## ", 1)]
    blocks = re.findall(r"```sh\n(.*?)```", section, re.S)
    assert len(blocks) == 2, "the README installs from a clone, or from a wheel built from one"
    return blocks


def clean_copy(destination: Path) -> Path:
    """This checkout as a clone holds it: no store, venv, build output or caches."""
    shutil.copytree(ROOT, destination, ignore=shutil.ignore_patterns(
        ".git", ".venv", ".kg", "build", "dist", "__pycache__", "*.egg-info", ".pytest_cache", "artefacts"))
    return destination


def run_readme_block(block: str, home: Path, name: str) -> Path:
    """One block of the README run by bash, line by line as written, in the clone's folder with a fresh
    venv active (its bin first on PATH, VIRTUAL_ENV set, as `. venv/bin/activate` leaves them)."""
    env_dir = home / f"venv-{name}"
    venv.create(env_dir, with_pip=True)  # not --system-site-packages: that would hide a missing file
    clone = clean_copy(home / f"clone-{name}")
    env = _clean_env() | {"PATH": f"{env_dir / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}",
                          "VIRTUAL_ENV": str(env_dir)}
    done = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", block], cwd=clone, env=env,
                          capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, f"README block failed:\n{block}\n" + done.stdout[-3000:] + done.stderr[-3000:]
    return env_dir


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """The README's wheel block: build the wheel in the clone, install it with its extra into a fresh
    venv; and a work folder outside the checkout."""
    home = tmp_path_factory.mktemp("user")
    env_dir = run_readme_block(readme_install_blocks()[1], home, "wheel")
    work = home / "work"
    work.mkdir()
    return env_dir, work


def test_the_readme_s_clone_install_installs_kg_with_its_extra(tmp_path):
    block = readme_install_blocks()[0]
    assert "'.[inspect]'" in block and "kg --version" in block
    env_dir = run_readme_block(block, tmp_path, "clone")
    python = str(env_dir / "bin" / "python")
    checked = subprocess.run([python, "-c", "import importlib.metadata as m, kg, inspect_ai; "
                              "print(m.version('kg-evalgraph'), kg.__file__)"],
                             cwd=tmp_path, env=_clean_env(), capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr
    version, module = checked.stdout.split()
    assert version == tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert module.startswith(str(env_dir)), "kg must come from the venv, not from the clone"


def test_the_readme_names_a_distribution_that_is_this_project():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["name"] == "kg-evalgraph", "`kg` on PyPI is another project (KEGG from the command line)"
    wheel = f"dist/{project['name'].replace('-', '_')}-{project['version']}-py3-none-any.whl"
    blocks = readme_install_blocks()
    assert wheel in blocks[1], f"the README's wheel block must name {wheel}"
    assert f"kg, version {project['version']}" in blocks[0]
    text = (ROOT / "README.md").read_text()
    assert not re.search(r"pip install '?kg\[", text), "pip install 'kg[…]' would install the other project"


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
    assert version.returncode == 0 and version.stdout.strip() == f"kg, version {expected}", version.stdout
    extra = subprocess.run([str(env_dir / "bin" / "python"), "-c", "import inspect_ai"], cwd=work, env=_clean_env())
    assert extra.returncode == 0, "the README's wheel line installs the [inspect] extra"

    listed = kg(installed, "queries")
    assert listed.returncode == 0, listed.stderr
    shipped = len(list((ROOT / "queries").rglob("*.rq")))
    assert f"({shipped} queries;" in listed.stdout and "pass-at-k" in listed.stdout

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
