# reprolab: `make help` lists every target with its expected compute.
SHELL := /bin/bash
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
TRAIN := $(VENV)/bin/reprolab-train
TABLE := $(VENV)/bin/reprolab-table
CLAIMS := $(VENV)/bin/reprolab-claims
CPU1 := OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
DATA ?= data
export PYTHONUNBUFFERED := 1
# A claim's sweeps run JOBS jobs at a time (hydra/launcher=parallel: forked warm workers, one thread each under CPU1);
# JOBS=1: one after another (Hydra's basic launcher). Paper-scale reproduce targets never run jobs side by side.
JOBS ?= $(shell nproc 2>/dev/null || echo 1)
PARALLEL = $(if $(filter-out 1,$(JOBS)),hydra/launcher=parallel hydra.launcher.n_jobs=$(JOBS))
claim-% demo: TRAIN = $(VENV)/bin/reprolab-train $(PARALLEL)

.DEFAULT_GOAL := help
.PHONY: help install test test-slow fuzz-config lint demo demo-cifar10 clean data-cifar10 bench-trainer bench-sweep bench-claims gpu-check reproduce-cifar10 tables scorecard claim-all dashboards wandb-sync reproduce-all

help: ## List every target; then each reproduce target's compute, measured by `make plan` (PLAN.md)
	@c=''; e=''; if [ -t 1 ]; then c='\033[36m'; e='\033[0m'; fi; \
	  targets=$$(grep -hE '^[a-zA-Z0-9_%-]+:.*## ' $(MAKEFILE_LIST) | sort -u); \
	  { for first in install demo test help; do echo "$$targets" | grep -E "^$$first:"; done; \
	    echo "$$targets" | grep -vE '^(install|demo|test|help):'; } | \
	  awk -v c="$$c" -v e="$$e" 'BEGIN {FS = ":.*## "}; {printf "  %s%-38s%s %s\n", c, $$1, e, $$2}'
	@$(PY) -m reprolab.plan.compute --help-lines

install: ## Create .venv and install reprolab with dev tools and every paper's extra (torch 2.14.1, torchvision 0.29.1)
	test -x $(PY) || python3 -m venv $(VENV)
	$(PIP) install -q --upgrade pip setuptools wheel
	$(PIP) install -q torch==2.14.1 torchvision==0.29.1
	$(PIP) install -q -e '.[dev,all]'
	$(PIP) install -q --no-deps 'bfcl-eval==2026.3.23'   # trustee: BFCL's backends and checker; its wheel pins numpy 1.26 (kept out)

TEST_WORKERS ?= auto
TEST_XDIST = $(shell $(PY) -c "import xdist" 2>/dev/null && echo "-n $(TEST_WORKERS) --maxprocesses 8 --dist worksteal")
test: ## Default test suite (CPU, < 15 min on 2 cores): one pytest-xdist worker per core (TEST_WORKERS=0: one process)
	@test -n "$(TEST_XDIST)" || echo "pytest-xdist is not installed ('make install' adds it): the tests run in one process"
	$(VENV)/bin/pytest -q --durations=25 $(TEST_XDIST)

test-slow: ## Slow tests too: DDP on CPU, resume, sweeps (~20 min on 2 cores)
	$(VENV)/bin/pytest -q -m 'slow'

fuzz-config: N ?= 500
fuzz-config: SEED ?= 0
fuzz-config: ## Fuzz the CPU presets' configs: N drawn overrides (seed SEED) end in a run or one error line, never a traceback or exit 1 (N=500: 9-12 min on 2 cores)
	$(CPU1) $(PY) scripts/fuzz_config.py --n $(N) --seed $(SEED) --jobs 2 --json logs/fuzz-config/seed$(SEED).json

lint: ## ruff
	$(VENV)/bin/ruff check src experiments scripts tests

demo: ## A real small claim end to end, offline, no dataset needed (~30 s of one core; JOBS=N jobs at a time, default one per core): DeltaMomentum's SGD-m vs DeltaSGD on an anisotropic regression stream, 8 lrs x 3 seeds, its table and verdict
	-$(CPU1) $(TRAIN) -m experiment=deltamomentum/regression_sgdm,deltamomentum/regression_delta_sgd \
	  optimizer.lr=0.02,0.05,0.1,0.2,0.5,1.0,2.0,4.0 seed=0,1,2 logger=csv hydra.sweep.dir=logs/demo/regression_sgd
	$(TABLE) logs/demo/regression_sgd --group-by optimizer optimizer.lr --metric val/steps_to_target --no-curves --out logs/demo/table.md
	$(CLAIMS) deltamomentum --claim regression_delta_sgd_fewer_steps --runs-root logs/demo
	@echo "runs: logs/demo/regression_sgd/*; table: logs/demo/table.md; the claim is regression_delta_sgd_fewer_steps of experiments/deltamomentum/claims.yaml"

demo-cifar10: ## Small CIFAR-10 run end to end on CPU on the data folder's 3k-image subset (~1 min; `make data-cifar10-jpeg-subset` fetches it; a rerun skips the finished run)
	$(TRAIN) -m experiment=cifar10/small_sgd_cpu trainer.max_epochs=3 hydra.sweep.dir=logs/demo/cifar10
	$(VENV)/bin/reprolab-table logs/demo/cifar10 --out logs/demo/cifar10/table.md --figures logs/demo/cifar10/figures
	@echo "results: logs/demo/cifar10/0/metrics.json and table.md; plots: logs/demo/cifar10/figures/*.png"

data-cifar10: ## Download CIFAR-10 into $(DATA)/cifar10 (170 MB)
	$(PY) -m reprolab.data.torchvision_download CIFAR10 $(DATA)/cifar10

bench-trainer: ## Lightning vs plain-PyTorch loop overhead ratio (~2 min CPU)
	$(PY) scripts/bench/trainer_overhead.py

bench-sweep: ## A sweep of ~10 s jobs (8 seeds of cifar10/small_sgd_cpu, 4 epochs) serial vs JOBS=2, side by side: wall and CPU ratios, metrics compared (~5 min)
	$(PY) scripts/bench/sweep_parallel.py --jobs 2

bench-claims: ## Whole targets serial vs JOBS=2, side by side: make demo, claim-degbins, claim-deltamomentum (wall, CPU, claims vs the committed ones; ~1.5 h)
	$(PY) scripts/bench/claim_parallel.py $(or $(TARGETS),demo claim-degbins claim-deltamomentum) --jobs 2

gpu-check: ## The GPU device group end to end (fp32, bf16, compile, DDP; AdamW vs DeltaAdamW, both 67M presets against the plan) with throughput ratios -> logs/gpu_check/gpu_check.json (1 GPU, ~6 min)
	$(PY) scripts/bench/gpu_check.py --out logs/gpu_check

reproduce-cifar10: ## CIFAR-10 ResNet-18 SGD baseline, 200 epochs (1 GPU)
	$(TRAIN) experiment=cifar10/resnet18_sgd paths.data_dir=$(DATA)

tables: ## Refresh every generated table (and its figures) in experiments/*/RESULTS.md, every paper's claim verdicts and REPRODUCTIONS.md from the runs under logs/ (seconds, CPU)
	$(TABLE) --refresh
	$(CLAIMS) --all --scorecard

scorecard: ## Evaluate every paper's claims.yaml on its runs (kept as recorded where the runs are absent) and write REPRODUCTIONS.md (seconds)
	$(CLAIMS) --all --scorecard

CLAIM_TARGETS = $(sort $(shell grep -hoE '^claim-[A-Za-z0-9_]+:' $(wildcard experiments/*/targets.mk) | tr -d ':'))
claim-all: ## Every paper's claim check in turn (reprolab-train sweeps, RESULTS.md blocks, verdicts), then REPRODUCTIONS.md (~2.1 h of one core: the eleven claim-<paper> runs took 7,660 s of CPU in all on 2026-12-01)
	-$(MAKE) --keep-going $(CLAIM_TARGETS)
	$(CLAIMS) --scorecard

dashboards: ## Write every paper's W&B workspace spec to logs/dashboards/ (offline, seconds); WANDB_MODE=online WANDB_ENTITY=<you> saves them
	for paper in $$($(VENV)/bin/reprolab-dashboard --list); do $(VENV)/bin/reprolab-dashboard $$paper || exit 1; done

wandb-sync: ## Upload every offline W&B run under logs/ (needs `wandb login` and network; minutes)
	@runs=$$(find logs -type d -name 'offline-run-*' -path '*/wandb/*' 2>/dev/null | sort); \
	if [ -z "$$runs" ]; then echo "no offline W&B runs under logs/"; else $(VENV)/bin/wandb sync $$runs; fi

REPRODUCE_TARGETS = $(sort $(filter-out reproduce-all,$(shell grep -hoE '^reproduce-[A-Za-z0-9_.-]+:' $(MAKEFILE_LIST) | tr -d ':')))
reproduce-all: ## Every reproduce-<paper>-<setting> target in turn, going on past failures (GPU machine; the sum of their computes)
	$(MAKE) --keep-going $(REPRODUCE_TARGETS)

clean: ## Remove caches and local run folders (keeps .venv and data)
	rm -rf .pytest_cache .ruff_cache logs outputs multirun
	find . -name __pycache__ -type d -prune -exec rm -rf {} +

include data.mk
include plan.mk
include $(wildcard experiments/*/targets.mk)
