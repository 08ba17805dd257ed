# The README's two commands: `make demo` (set up, then train on real data) and `make test`
# (set up, then the test suite against PyTorch 2.13 and the documentation build).
# Each creates .venv on first use and installs what it needs into it; an install is redone only
# when pyproject.toml has changed since (a stamp file in .venv records the last one).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PIP := $(BIN)/python -m pip install --progress-bar on

.PHONY: demo test docs bench lint clean

$(BIN)/python:
	@echo "==> Creating the virtual environment $(VENV) (once)"
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --upgrade --progress-bar on pip

# One stamp per set of extras, newer than pyproject.toml once that set is installed.
$(VENV)/.installed-examples: pyproject.toml | $(BIN)/python
	@echo "==> Installing dyngrad (editable) with the examples' extras: scikit-learn, tqdm, matplotlib"
	$(PIP) -e ".[examples]"
	@touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	@echo "==> Installing dyngrad (editable) with the test, docs, examples and dev extras"
	@echo "    (PyTorch 2.13.0 is the test oracle: the first install downloads it and takes a few minutes)"
	$(PIP) -e ".[test,docs,examples,dev,viz]"
	@touch $@ $(VENV)/.installed-examples

demo: $(VENV)/.installed-examples
	$(BIN)/python examples/digits.py

test: $(VENV)/.installed-test
	$(BIN)/python -m pytest
	@$(MAKE) --no-print-directory docs

docs: $(VENV)/.installed-test
	@echo "==> Building the documentation site into build/site (mkdocs, warnings are errors)"
	$(BIN)/mkdocs build --strict  # not --quiet: it hides the warnings that --strict turns into errors

bench: $(VENV)/.installed-test
	$(BIN)/python benchmarks/run.py

lint: $(VENV)/.installed-test
	$(BIN)/ruff check src tests benchmarks examples

clean:
	rm -rf $(VENV) build src/*.egg-info
