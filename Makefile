# histnorm: two set-up commands from a fresh clone (`make demo`, `make test`).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint typecheck schema clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	@echo '$$ histnorm lint fixtures/demo'
	@$(BIN)/histnorm lint fixtures/demo || test $$? -eq 1
	@echo
	@echo '$$ histnorm fix --diff fixtures/demo'
	@$(BIN)/histnorm fix --diff fixtures/demo || test $$? -eq 1

test: $(STAMP)
	$(BIN)/python -m pytest -q
	$(BIN)/ruff check histnorm cli tests
	$(BIN)/ruff format --check histnorm cli tests
	$(BIN)/mypy

lint: $(STAMP)
	$(BIN)/ruff check histnorm cli tests

typecheck: $(STAMP)
	$(BIN)/mypy

schema: $(STAMP)
	$(BIN)/histnorm schema

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache

# Performance benchmark (benchmarks/README.md): small sizes, a few minutes on two cores.
# The full run is `$(BIN)/python -m benchmarks` (sizes up to 512 MB; see --sizes).
.PHONY: bench
bench: $(STAMP)
	$(BIN)/python -m benchmarks --quick

# Mutation fuzzing (tests/test_fuzz_mutations.py): damage every valid format fixture and
# check that `fix` repairs it; and that plain shapes keep their promises on the damage
# (tests/test_shape.py). `make test` runs 40 and 100 examples; this runs 100 000 each.
.PHONY: fuzz
fuzz: $(STAMP)
	HISTNORM_FUZZ_EXAMPLES=100000 $(BIN)/python -m pytest -q -p no:randomly \
		tests/test_fuzz_mutations.py tests/test_shape.py::test_shape_promises_on_fuzzed_damage
