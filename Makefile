# The two README commands: `make demo` (set up, then train on real data) and `make test`.
# Each creates .venv on first use and installs what it needs into it.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test bench lint clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

demo: $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[examples]"
	$(BIN)/python examples/digits.py

test: $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[test,examples,dev]"
	$(BIN)/python -m pytest

bench: $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[test]"
	$(BIN)/python benchmarks/run.py

lint: $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	$(BIN)/ruff check src tests benchmarks examples

clean:
	rm -rf $(VENV) build src/*.egg-info digits_loss.png
