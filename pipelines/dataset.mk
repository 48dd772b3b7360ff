# The dataset pipeline as file targets: each stage's tables are the targets of the rule that
# runs it, with the tables it reads and its binary as prerequisites, so `make` reruns a
# stage only when something it depends on changed (a newer input table, a rebuilt binary,
# an edited sources file). Included by the Makefile; the variables are set there.
#
#   D        the dataset directory (data/<NAME>)
#   SRC      the sources file crawl reads
#   SRC_DEPS more files whose change means crawling again (the fixture projects for the demo)
#   MODELS   the runs: each is solved, executed and scored; a run's model spec is
#            $(MODEL_<run>) when set (e.g. MODEL_gpt=openai:gpt-4.1-mini@https://api.openai.com/v1),
#            else the run's name (oracle, null, mutant)
#   JOBS     parallel jobs of the stages that take --jobs
#   CUTOFF   the cutoff (YYYY-MM-DD): crawl dates each function's code against the versions
#            before it, score splits before/after it, publish (make quarterly) keeps only
#            tasks of code newer than it
#   CRAWL_ARGS, SYNTH_ARGS, REPO_TESTS_ARGS, MASK_ARGS, SLICE_ARGS, SOLVE_ARGS, EXEC_ARGS
#            more options for crawl (--history N), synthesize-tests, execute --repo-tests,
#            mask, slice, solve, execute
#
# Each stage's wall time is appended to $(D)/timings.tsv (scripts/timed.sh).

.DELETE_ON_ERROR:

TIMED = bash scripts/timed.sh $(D)/timings.tsv

$(D)/repos.parquet $(D)/files.parquet &: $(SRC) $(SRC_DEPS) $(BIN)/crawl
	@mkdir -p $(D)
	$(TIMED) crawl --ok 1 -- $(BIN)/crawl --data $(D) --sources $(SRC) --cache .cache/sdists $(if $(CUTOFF),--since $(CUTOFF)) $(CRAWL_ARGS)

$(D)/modules.parquet $(D)/functions.parquet $(D)/references.parquet &: $(D)/repos.parquet $(D)/files.parquet $(BIN)/resolve
	$(TIMED) resolve -- $(BIN)/resolve --data $(D) --jobs $(JOBS)

$(D)/classifications.parquet: $(D)/functions.parquet $(D)/references.parquet $(BIN)/classify
	$(TIMED) classify -- $(BIN)/classify --data $(D)

$(D)/function_tasks.parquet $(D)/test_cases.parquet &: $(D)/classifications.parquet $(BIN)/synthesize-tests
	$(TIMED) synthesize-tests -- $(BIN)/synthesize-tests --data $(D) --jobs $(JOBS) $(SYNTH_ARGS)

# The repositories' own test suites (lines each test executes), then completion tasks (spans
# those tests execute, judged by them) and assertion tasks (their assertions' values,
# recorded on the program and on mutants of it). A repository whose environment fails or that has no
# tests is reported (exit 1) and gives no completion task; the others go on (mask exits 1
# when no span is executed by a passing test: a dataset of function tasks only).
$(D)/repo_tests.parquet: $(D)/repos.parquet $(D)/files.parquet $(BIN)/execute
	$(TIMED) repo-tests --ok 1 -- $(BIN)/execute --data $(D) --repo-tests --jobs $(JOBS) $(REPO_TESTS_ARGS)

# mask writes both families of the repositories' own code and tests: completion tasks and
# assertion tasks (these run the tests again in the sandbox, with mutants).
$(D)/completion_tasks.parquet $(D)/assertion_tasks.parquet &: $(D)/repo_tests.parquet $(D)/functions.parquet $(BIN)/mask
	$(TIMED) mask --ok 1 -- $(BIN)/mask --data $(D) --jobs $(JOBS) $(MASK_ARGS)

$(D)/validations.parquet: $(D)/function_tasks.parquet $(D)/test_cases.parquet $(D)/completion_tasks.parquet $(D)/assertion_tasks.parquet $(BIN)/execute
	$(TIMED) validate -- $(BIN)/execute --data $(D) --validate --jobs $(JOBS) $(EXEC_ARGS)

# The difficulty of every valid task: the dynamic slice of the execution that judges it
# (ESV, MCL, DFI), traced in the sandbox.
$(D)/slices.parquet: $(D)/validations.parquet $(BIN)/slice
	$(TIMED) slice --ok 1 -- $(BIN)/slice --data $(D) --jobs $(JOBS) $(SLICE_ARGS)

# A run: the model's answers, then their executions.
$(D)/runs/%/candidates.parquet: $(D)/validations.parquet $(BIN)/solve
	$(TIMED) solve:$* -- $(BIN)/solve --data $(D) --run $* --model '$(or $(MODEL_$*),$*)' $(SOLVE_ARGS)

$(D)/runs/%/executions.parquet: $(D)/runs/%/candidates.parquet $(BIN)/execute
	$(TIMED) execute:$* -- $(BIN)/execute --data $(D) --run $* --jobs $(JOBS) $(EXEC_ARGS)

# Scores of every run and one report comparing them.
$(D)/report.html: $(foreach m,$(MODELS),$(D)/runs/$(m)/executions.parquet) $(D)/slices.parquet $(BIN)/score
	$(TIMED) score -- $(BIN)/score --data $(D) $(addprefix --run ,$(MODELS)) $(if $(CUTOFF),--cutoff $(CUTOFF)) --report $@

# Intermediate files of pattern rules are kept: they are the dataset.
.SECONDARY:
