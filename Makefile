# histnorm: two set-up commands from a fresh clone (`make demo`, `make test`).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# Two install stamps: the package with its runtime dependencies (all `make demo` needs),
# then the test extras on top (pytest, ruff, mypy, the SDKs, pre-commit) for the rest.
RUNTIME := $(VENV)/.installed-runtime
STAMP := $(VENV)/.installed-test
# Where `make demo` writes the demo corpus's HTML report.
DEMO_REPORT := build/demo-report.html
# CrewAI pins openai<3 and openai-agents (in the test extra) needs openai>=3, so CrewAI
# cannot share .venv: tests/test_integration_crewai.py runs a real Crew in this venv.
CREWAI_VENV := .venv-crewai
CREWAI_STAMP := $(CREWAI_VENV)/.installed

.PHONY: demo test lint typecheck schema clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(RUNTIME): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet -e .
	touch $(RUNTIME)

$(STAMP): $(RUNTIME)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

$(CREWAI_STAMP): pyproject.toml
	$(PYTHON) -m venv $(CREWAI_VENV)
	$(CREWAI_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(CREWAI_VENV)/bin/python -m pip install --quiet -e . 'crewai>=1.15,<2'
	touch $(CREWAI_STAMP)

demo: $(RUNTIME)
	@echo '$$ histnorm lint fixtures/demo'
	@$(BIN)/histnorm lint fixtures/demo || test $$? -eq 1
	@echo
	@echo '$$ histnorm fix --diff fixtures/demo'
	@$(BIN)/histnorm fix --diff fixtures/demo || test $$? -eq 1
	@echo
	@echo '$$ histnorm lint --output-format html --output-file $(DEMO_REPORT) fixtures/demo'
	@mkdir -p $(dir $(DEMO_REPORT))
	@$(BIN)/histnorm lint --output-format html --output-file $(DEMO_REPORT) fixtures/demo \
		|| test $$? -eq 1
	@echo "Report written: $(abspath $(DEMO_REPORT)) (open it in a browser)"

# The suite starts histnorm in subprocesses too: each one loads compiled bytecode from
# build/pycache, even where PYTHONDONTWRITEBYTECODE is set (every process would compile
# every module from source), and the source tree stays free of __pycache__ folders.
# The tests run in one worker process per CPU (pytest-xdist). Every check runs, also after
# one fails; the target fails if any did.
test: $(STAMP) $(CREWAI_STAMP)
	@status=0; \
	PYTHONDONTWRITEBYTECODE= PYTHONPYCACHEPREFIX=$(CURDIR)/build/pycache \
		$(BIN)/python -m pytest -q -n auto || status=1; \
	$(BIN)/ruff check histnorm cli tests || status=1; \
	$(BIN)/ruff format --check histnorm cli tests || status=1; \
	$(BIN)/mypy || status=1; \
	exit $$status

lint: $(STAMP)
	$(BIN)/ruff check histnorm cli tests

typecheck: $(STAMP)
	$(BIN)/mypy

schema: $(RUNTIME)
	$(BIN)/histnorm schema --reference docs/config.md

clean:
	rm -rf $(VENV) $(CREWAI_VENV) .pytest_cache .mypy_cache .ruff_cache

# Performance benchmark (benchmarks/README.md): small sizes, a few minutes on two cores.
# The full run is `$(BIN)/python -m benchmarks` (sizes up to 512 MB; see --sizes).
.PHONY: bench
bench: $(STAMP)
	$(BIN)/python -m benchmarks --quick
	$(BIN)/python -m benchmarks.sessions
	$(BIN)/python -m benchmarks.instructions

# Mutation fuzzing (tests/fuzzing, README "Fuzzing"): damage every format's fixtures, the
# Claude Code session files and the JSONL files, fix them, and check fix's promises.
# `make test` runs 300 of these cases (tests/test_fuzz_mutations.py); this runs 1 000 000
# over FUZZ_JOBS processes. A failure prints `--seed S --case i` and writes its input to
# fuzz-failures/.
FUZZ_CASES ?= 1000000
FUZZ_JOBS ?= 2
FUZZ_SEED ?= 0
.PHONY: fuzz
fuzz: $(STAMP)
	PYTHONPATH=tests $(BIN)/python -m fuzzing --cases $(FUZZ_CASES) --jobs $(FUZZ_JOBS) \
		--seed $(FUZZ_SEED)
	HISTNORM_FUZZ_EXAMPLES=10000 $(BIN)/python -m pytest -q -p no:randomly \
		tests/test_fast_path.py::test_fast_path_on_fuzzed_damage
