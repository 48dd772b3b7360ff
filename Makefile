# freshbench: build, test, demo and benchmark.
#   make demo    the pipeline on the bundled fixtures, from crawl to a report of the reference solvers
#                (function tasks, and completion tasks judged by the fixtures' own tests)
#   make dataset SOURCES=file.toml NAME=q4   the same chain on any sources into data/NAME
#                (MODELS="oracle null mutant memorized gpt" MODEL_gpt=openai:...@URL, CUTOFF=YYYY-MM-DD, JOBS=2)
#   make quarterly QUARTER=2026q4 CUTOFF=...  the quarter's dataset, then a dated snapshot (publish)
#   make test    every test (Rust workspace, fixture projects' own suites, the worker's Python tests)
#   make bench   throughput figures, each against an alternative measured in the same run
#                (the completion judge: its tests against the whole suite per answer, on data/real;
#                slicing: traced runs against the same runs untraced, on data/real)
#                (resolve vs the ast module; sandboxed calls vs a fresh python per call;
#                synthesize-tests' coverage vs Hypothesis' st.from_type, SYNTH_CALLS calls each,
#                with and without observed seeds, on every SYNTH_TUNING and SYNTH_HELDOUT list
#                (~1 h in all) or the first SYNTH_LIMIT candidates of each)
#   make real    the pipeline on real projects from the package registry (network)
#   make real-tests  their own test suites, in their environments, in the sandbox
#   make real-completion  completion tasks from those suites: mask, validate, reference solvers, figures
#   make real-assertion   assertion tasks from those suites: mask, validate, oracle/null/memorized, figures
#   make real-synth  function tasks from 14 real projects (SYNTH_SOURCES) into data/synth, with figures

SHELL := /bin/bash
.DEFAULT_GOAL := help

CARGO   ?= cargo
PY      := .tools/venv/bin/python
BIN     := target/debug
RBIN    := target/release
DEMO    ?= data/demo
REAL    ?= data/real
SOURCES ?= pipelines/sources/real-2026q4.toml
BENCH   ?= data/bench
SYNTH   ?= data/synth
SYNTH_CALLS ?= 200
SYNTH_LIMIT ?=
# Other --seed values the synthesize-tests runs are repeated with, for the spread chance gives.
SYNTH_SEEDS ?= 1 2
SYNTH_SOURCES ?= pipelines/sources/synth-2026q4.toml
# synthesize-tests' corpora for make bench, as DIR:SOURCES: the tuning lists (looked at while
# improving it), then the held-out ones (measured, never looked at).
SYNTH_TUNING ?= $(SYNTH):$(SYNTH_SOURCES) data/synth-b:pipelines/sources/synth-tuning-b.toml \
  data/synth-c:pipelines/sources/synth-tuning-c.toml data/synth-d:pipelines/sources/synth-tuning-d.toml \
  data/synth-e:pipelines/sources/synth-tuning-e.toml data/synth-f:pipelines/sources/synth-tuning-f.toml \
  data/synth-g:pipelines/sources/synth-tuning-g.toml data/synth-h:pipelines/sources/synth-tuning-h.toml \
  data/synth-i:pipelines/sources/synth-tuning-i.toml
SYNTH_HELDOUT ?= data/heldout:pipelines/sources/synth-heldout.toml \
  data/heldout-b:pipelines/sources/synth-heldout-b.toml
JOBS    ?= 2
STAGES  := crawl resolve classify execute synthesize-tests mask slice solve score publish
# query (DataFusion, a long first build) is built by `make test` and `cargo build -p query`,
# not by `make demo`, which does not need it.
MODELS  ?= oracle null mutant memorized

.PHONY: help setup setup-tools setup-image test-image setup-browser setup-datasets build demo dataset pipeline quarterly observed test test-prepare test-build test-rust test-fixtures test-python bench real real-tests real-completion real-assertion real-synth tables-doc fmt lint clean

help:
	@sed -n 's/^#   //p' Makefile

## clippy lints the workspace while it builds (clippy-driver as the workspace's compiler), so
## the dependencies are compiled once, not again in check mode; every build of make uses it,
## so they share one set of artifacts. `make lint` is the lint build alone.
CLIPPY_DRIVER = $(shell rustup which clippy-driver 2>/dev/null || command -v clippy-driver)
LINTED = $(if $(CLIPPY_DRIVER),RUSTC_WORKSPACE_WRAPPER=$(CLIPPY_DRIVER))

## Python tools (uv, coverage, pytest, pyarrow, hypothesis, ruff) into .tools/venv, and the
## docker backend's image where a Docker engine answers; quick when done.
setup: setup-tools setup-image

setup-tools:
	@bash scripts/setup-tools.sh

## The docker backend's image (execute --build-image), built only when its recipe changed.
setup-image: setup-tools
	@CARGO=$(CARGO) bash scripts/setup-image.sh

build:
	$(LINTED) $(CARGO) build $(addprefix -p ,$(STAGES)) --bins

## The pipeline's file targets (pipelines/dataset.mk): a stage reruns only when what it reads changed.
D        ?= data/$(NAME)
NAME     ?= dataset
SRC      ?= $(SOURCES)
SRC_DEPS ?=
CUTOFF   ?=
include pipelines/dataset.mk

# The fixture projects: editing one means crawling them again.
FIXTURE_FILES := $(shell find data/fixtures -type f -not -path '*/__pycache__/*' -not -path '*/.pytest_cache/*' -not -name '*.pyc' 2>/dev/null)

demo: setup build
	@$(MAKE) --no-print-directory pipeline D=$(DEMO) SRC=data/fixtures/sources.toml SRC_DEPS="$(FIXTURE_FILES)"
	@echo "== report: $(DEMO)/report.html (open it in a browser); stage times: $(DEMO)/timings.tsv"

## The whole chain on SOURCES into data/NAME: crawl to report (make dataset SOURCES=file.toml NAME=q4).
dataset: setup build
	@$(MAKE) --no-print-directory pipeline D=data/$(NAME) SRC=$(SOURCES)
	@echo "== report: data/$(NAME)/report.html; stage times: data/$(NAME)/timings.tsv"

pipeline: $(D)/report.html

## The quarterly release: the quarter's sources, a validated dataset, runs, a dated snapshot.
QUARTER  ?= 2026q4
quarterly: setup build
	@$(MAKE) --no-print-directory pipeline D=data/$(QUARTER) SRC=pipelines/sources/real-$(QUARTER).toml CUTOFF=$(CUTOFF)
	$(BIN)/publish --data data/$(QUARTER) --out data/snapshots --name freshbench-$(QUARTER) --quarter $(QUARTER) $(if $(CUTOFF),--cutoff $(CUTOFF)) --export jsonl
	@echo "== snapshot in data/snapshots/ (check it: publish --verify FOLDER)"

## Every test: the workspace built with clippy's lints (any warning fails) beside the Python
## tools' setup, then the Rust tests and each fixture project's own suite.
test:
	@$(MAKE) --no-print-directory -j4 test-prepare
	@$(MAKE) --no-print-directory test-image
	@$(MAKE) --no-print-directory test-rust test-fixtures test-python

test-prepare: test-build setup-tools setup-browser setup-datasets

## The docker backend's image, by the execute binary test-build made (no second build).
test-image:
	@NO_BUILD=1 bash scripts/setup-image.sh

## Headless Chromium (Debian's package) for the report's browser test; skipped with a reason where impossible.
setup-browser:
	@bash scripts/setup-browser.sh

## The Hugging Face datasets library in .tools/datasets-venv, for the snapshot read-back test.
setup-datasets:
	@bash scripts/setup-datasets.sh


test-build:
	@test -n "$(CLIPPY_DRIVER)" || { echo "make test: clippy-driver not found; run rustup component add clippy" >&2; exit 2; }
	@mkdir -p target
	@set -o pipefail; $(LINTED) $(CARGO) build --workspace --all-targets 2>&1 | tee target/lint.log
	@if grep -q '^warning' target/lint.log; then echo "make test: the build has warnings (clippy pedantic is part of the tests): fix them" >&2; exit 1; fi

test-rust:
	PUBLISH_TEST_PYTHON=$(CURDIR)/.tools/datasets-venv/bin/python $(LINTED) $(CARGO) test --workspace --no-fail-fast

## Each fixture project's own test suite must pass: later stages run them as real suites.
test-fixtures:
	@for d in data/fixtures/*/; do \
	  [ -d "$$d/tests" ] || continue; \
	  echo "== pytest $$d"; \
	  (cd "$$d" && ../../../$(PY) -m pytest -q -p no:cacheprovider) || exit 1; \
	done

## The worker's own Python: ruff, then its tests (the runner's modules, the runner driven as a
## subprocess, the slicer on hand-checked programs).
test-python:
	@echo "== ruff + pytest stages/execution/python"
	$(PY) -m ruff check stages/execution/python
	$(PY) -m pytest -q -p no:cacheprovider stages/execution/python/tests

## Regenerates schemas/TABLES.md from the code.
tables-doc:
	UPDATE_TABLES=1 $(CARGO) test -p schemas --test contract tables_doc_matches_code

bench: setup
	$(CARGO) build --release -p crawl -p resolve -p classify -p execution -p execute -p synthesize-tests -p solve --bins
	@echo "== resolve against the ast module"
	bash scripts/bench-resolve.sh $(BENCH)
	@echo "== code age: crawl + resolve with the cutoff's baseline releases against without"
	bash scripts/bench-code-age.sh $(BENCH)
	@echo "== execute: calls through one sandboxed worker against a fresh python per call, and through the docker backend against the process backend"
	$(RBIN)/execute-bench
	@echo "== execute --run: a run's candidates through the sandbox against a fresh python per candidate"
	bash scripts/bench-candidates.sh $(SYNTH)
	@echo "== completion judge: the tests that execute the span against the whole suite, per answer"
	$(CARGO) build --release -p mask --bins
	BIN=$(RBIN) bash scripts/bench-judge.sh $(REAL)
	@echo "== the slicer: tracing against an empty tracer, its analysis against shipping the graph"
	$(PY) scripts/bench-slicer.py
	@echo "== slice: each valid task traced and sliced against the same runs without the tracer"
	$(CARGO) build --release -p slice --bins
	$(RBIN)/slice --data $(REAL) --force --jobs $(JOBS) -q; test $$? -le 1
	$(PY) scripts/slice-report.py $(REAL)
	@held=; kind=tuning; for pair in $(SYNTH_TUNING) held-out $(SYNTH_HELDOUT); do \
	  if [ "$$pair" = held-out ]; then held=1; kind="held out: measured, never tuned on"; continue; fi; \
	  d=$${pair%%:*}; src=$${pair#*:}; \
	  echo "== synthesize-tests with and without the observed seeds, against Hypothesis (st.from_type): branch coverage for $(SYNTH_CALLS) calls, on $$src ($$kind)"; \
	  $(MAKE) --no-print-directory observed D=$$d SRC=$$src BIN=$(RBIN) || exit $$?; \
	  HELD_OUT=$$held BIN=$(RBIN) CALLS=$(SYNTH_CALLS) LIMIT=$(SYNTH_LIMIT) SEEDS="$(SYNTH_SEEDS)" bash scripts/bench-synth.sh $$d || exit $$?; \
	done

real: setup build
	@mkdir -p $(REAL)
	$(BIN)/crawl --data $(REAL) --sources $(SOURCES) --cache .cache/sdists; test $$? -le 1
	$(BIN)/resolve --data $(REAL)
	$(BIN)/classify --data $(REAL)
	$(PY) scripts/dataset-report.py $(REAL)

## Function tasks from real projects: crawl, resolve, classify, synthesize-tests, figures.
real-synth: setup build
	@mkdir -p $(SYNTH)
	$(BIN)/crawl --data $(SYNTH) --sources $(SYNTH_SOURCES) --cache .cache/sdists; test $$? -le 1
	$(BIN)/resolve --data $(SYNTH)
	$(BIN)/classify --data $(SYNTH)
	$(BIN)/synthesize-tests --data $(SYNTH) --jobs $(JOBS)
	$(PY) scripts/synth-report.py $(SYNTH)

## A corpus for synthesize-tests' figures (D, from the sources file SRC): crawled and resolved
## once, classified on every run, and its projects' own tests run (execute --repo-tests), which records the
## arguments they call the functions with (observed_calls); a rerun redoes only what changed.
observed: setup
	@test -n "$(D)" -a -n "$(SRC)" || { echo "make observed: give D=DIR SRC=SOURCES.toml" >&2; exit 2; }
	@mkdir -p $(D)
	@if [ ! -f $(D)/references.parquet ]; then \
	  $(BIN)/crawl -q --data $(D) --sources $(SRC) --cache .cache/sdists; rc=$$?; [ $$rc -le 1 ] || exit $$rc; \
	  $(BIN)/resolve -q --data $(D) || exit $$?; \
	fi
	@# Classified again each time (seconds): a new classify rule must reach the candidates measured.
	$(BIN)/classify -q --data $(D) > /dev/null
	$(BIN)/execute -q --data $(D) --repo-tests --jobs $(JOBS); test $$? -le 1

## Each real repository's own tests, run twice in the sandbox, into repo_tests (minutes).
real-tests: real
	$(BIN)/execute --data $(REAL) --repo-tests

## Assertion tasks from the real repositories' own tests: mask (values recorded in the
## sandbox, mutated variants), validation, the reference solvers, figures.
real-assertion: real-tests
	$(BIN)/mask --data $(REAL) --family assertion --jobs $(JOBS) $(MASK_ARGS); test $$? -le 1
	$(BIN)/execute --data $(REAL) --validate --jobs $(JOBS); test $$? -le 1
	for m in oracle null memorized; do \
	  $(BIN)/solve --data $(REAL) --run $$m --model $$m --family assertion && \
	  $(BIN)/execute --data $(REAL) --run $$m --jobs $(JOBS) || exit 1; \
	done
	$(PY) scripts/assertion-report.py $(REAL)

## Completion tasks from the real repositories' own tests: mask, validation, the reference
## solvers on them, figures (scripts/completion-report.py).
real-completion: real-tests
	$(BIN)/mask --data $(REAL) $(MASK_ARGS); test $$? -le 1
	$(BIN)/execute --data $(REAL) --validate --jobs $(JOBS); test $$? -le 1
	for m in oracle null mutant; do \
	  $(BIN)/solve --data $(REAL) --run $$m --model $$m --family completion && \
	  $(BIN)/execute --data $(REAL) --run $$m --jobs $(JOBS) || exit 1; \
	done
	$(PY) scripts/completion-report.py $(REAL)

fmt:
	$(CARGO) fmt --all

lint: test-build

clean:
	rm -rf $(DEMO) $(REAL) $(BENCH) $(SYNTH)
