# The two README commands: `make demo` (set up, then train on real data) and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: setup demo test bench lint clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

setup: $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[test,examples,dev]"

demo: setup
	$(BIN)/python examples/digits.py

test: setup
	$(BIN)/python -m pytest

bench: setup
	OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 $(BIN)/python benchmarks/run.py

lint: setup
	$(BIN)/ruff check src tests benchmarks examples

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info
