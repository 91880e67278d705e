# The two commands that matter:  make load report   and   make test
# Everything installs into .venv from the package registries; nothing else is assumed.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
KG     := $(BIN)/kg
STORE  ?= .kg/store

.PHONY: install load report test bench clean examples help browser

help:
	@echo "make load report   set up .venv, load examples/ into $(STORE), write the HTML report"
	@echo "make test          run the whole test suite"
	@echo "make examples      regenerate the example estate from examples/generate.py"
	@echo "make bench         benchmarks: BENCHMARKS.md (BENCH_ARGS=--with-1m adds 1M assertions)"
	@echo "make clean         remove the store, built reports and the venv"

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	@# a venv made before the distribution was named kg-evalgraph holds it as "kg": one kg at a time
	$(BIN)/python -m pip uninstall --quiet --yes kg >/dev/null 2>&1 || true
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@

install: $(VENV)/.installed

load: install
	$(KG) load --store $(STORE) examples/
	$(KG) stats --store $(STORE) --no-warnings

report: install
	$(KG) report --store $(STORE)

# The browser tests drive Debian's chromium; as root (CI) it is installed here, from Debian's packages.
browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else echo "chromium is missing: 'sudo apt-get install chromium' to run the browser tests (they skip without it)"; fi; }

# Virtuoso 7 (Debian's virtuoso-opensource) is the second remote engine the tests run the catalogue on;
# the script installs it as root and only prints a hint otherwise (its tests then skip).
test: install browser
	@sh scripts/install-virtuoso.sh
	$(BIN)/python -m pytest -q

# Benchmarks at 10k and 100k assertions (add BENCH_ARGS=--with-1m for 1M): BENCHMARKS.md, benchmarks/results.json
bench: install
	$(BIN)/python benchmarks/run.py $(BENCH_ARGS)

examples: install
	$(BIN)/python examples/generate.py

clean:
	rm -rf .kg build $(VENV)
