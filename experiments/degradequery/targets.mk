# DegradeQuery on PROTAC-8K: data, the full CPU table (main result, baselines, ablations), the trainer path.
.PHONY: data-protac8k reproduce-degradequery claim-degradequery reproduce-degradequery-trainer table-degradequery \
        reproduce-degradequery-main reproduce-degradequery-main_gin reproduce-degradequery-main_sequences reproduce-degradequery-no_pretrain reproduce-degradequery-molecule_only reproduce-degradequery-scaffold reproduce-degradequery-target_e3

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

DQ_SEEDS ?= 0,1,2,3,4
# One reprolab-train sweep per preset (conf/experiment/degradequery/<setting>.yaml) into a fixed folder, then its table.
define dq_reproduce
	-$(DQ_ENV) $(TRAIN) -m experiment=degradequery/$(1) seed=$(DQ_SEEDS) print_config=false paths.data_dir=$(DQ_DATA) \
	  hydra.sweep.dir=logs/reproduce/degradequery/$(1)
	$(TABLE) logs/reproduce/degradequery/$(1) --group-by setting --name $(1) --results experiments/degradequery/RESULTS.md
endef
reproduce-degradequery-main: ## DegradeQuery (ECFP encoder, counterfactual pretraining), official split, through reprolab-train, 5 seeds (CPU, ~2 CPU-min per seed)
	$(call dq_reproduce,main)
reproduce-degradequery-main_gin: ## the GIN-encoder option, official split, through reprolab-train, 5 seeds (CPU, ~5 CPU-min per seed)
	$(call dq_reproduce,main_gin)
reproduce-degradequery-main_sequences: ## ID embeddings + sequence features, official split, through reprolab-train, 5 seeds (CPU, ~2 CPU-min per seed)
	$(call dq_reproduce,main_sequences)
reproduce-degradequery-no_pretrain: ## ablation without counterfactual pretraining, official split, through reprolab-train, 5 seeds (CPU, ~2 CPU-min per seed)
	$(call dq_reproduce,no_pretrain)
reproduce-degradequery-molecule_only: ## molecule-only baseline, official split, through reprolab-train, 5 seeds (CPU, ~2 CPU-min per seed)
	$(call dq_reproduce,molecule_only)
reproduce-degradequery-scaffold: ## ablation: Murcko-scaffold holdout, through reprolab-train, 5 seeds (CPU, ~2 CPU-min per seed)
	$(call dq_reproduce,scaffold)
reproduce-degradequery-target_e3: ## ablation: (target, E3) pair holdout, through reprolab-train, 5 seeds (CPU, ~2 CPU-min per seed)
	$(call dq_reproduce,target_e3)
reproduce-degradequery-trainer: reproduce-degradequery-main ## alias of reproduce-degradequery-main
table-degradequery: ## Trainer-path table: DegradeQuery vs no pretraining vs molecule-only, official split, 5 seeds -> RESULTS.md block (~20 min of one core)
	-$(DQ_ENV) $(TRAIN) -m experiment=degradequery/main,degradequery/no_pretrain,degradequery/molecule_only seed=0,1,2,3,4 \
	  print_config=false paths.data_dir=$(DQ_DATA) hydra.sweep.dir=logs/tables/degradequery/official
	$(TABLE) logs/tables/degradequery/official --group-by setting \
	  --metric test/auroc test/accuracy test/f1_macro --curve val/auroc --name official --results experiments/degradequery/RESULTS.md
