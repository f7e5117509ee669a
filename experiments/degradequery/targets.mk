# DegradeQuery on PROTAC-8K: data, the full CPU table (main result, baselines, ablations), the trainer path.
.PHONY: data-protac8k reproduce-degradequery claim-degradequery reproduce-degradequery-trainer

DQ_DATA ?= $(if $(wildcard ../shared/data/protac-8k/protac8k.csv),../shared/data,$(DATA))
DQ_OUT ?= experiments/degradequery/results
DQ_ENV := OMP_NUM_THREADS=1 MKL_NUM_THREADS=1

data-protac8k: ## PROTAC-8K: download DegradeMaster's name.json (3.4 MB) and build $(DATA)/protac-8k/protac8k.csv (seconds)
	$(PY) scripts/data/prepare_protac8k.py --out $(DATA)/protac-8k

reproduce-degradequery: ## DegradeQuery full table: 7 models x official/scaffold/target-E3 splits + few-shot, 5 seeds (CPU, 1 thread: ~4 min CPU official + ~10 min ablations)
	$(DQ_ENV) $(PY) -m experiments.degradequery.claim --data-dir $(DQ_DATA) --out $(DQ_OUT)/official --splits official --no-few-shot
	$(DQ_ENV) $(PY) -m experiments.degradequery.claim --data-dir $(DQ_DATA) --out $(DQ_OUT)/ablations --splits scaffold target_e3
	$(PY) -m experiments.degradequery.report $(DQ_OUT)

claim-degradequery: reproduce-degradequery ## alias of reproduce-degradequery (the DegradeQuery claim check, CPU)

reproduce-degradequery-trainer: ## DegradeQuery main preset through reprolab-train, 5 seeds (CPU, ~1 CPU-min per seed)
	$(DQ_ENV) $(TRAIN) -m experiment=degradequery/main seed=0,1,2,3,4 paths.data_dir=$(DQ_DATA)
