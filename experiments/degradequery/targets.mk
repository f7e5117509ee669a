# DegradeQuery on PROTAC-8K: data, the claim check through reprolab-train (networks and forests in one sweep), paper-scale presets.
.PHONY: data-protac8k claim-degradequery claim-degradequery-official claim-degradequery-holdouts table-degradequery reproduce-degradequery \
        reproduce-degradequery-main reproduce-degradequery-main_gin reproduce-degradequery-main_sequences reproduce-degradequery-no_pretrain reproduce-degradequery-molecule_only reproduce-degradequery-scaffold reproduce-degradequery-target_e3

DQ_DATA ?= $(if $(wildcard ../shared/data/protac-8k/protac8k.csv),../shared/data,$(DATA))
DQ_ENV := OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
DQ_SEEDS ?= 0,1,2,3,4
DQ_HOLDOUT_SEEDS ?= 0,1,2
DQ_HOLDOUT_SPLITS ?= target_e3,scaffold
DQ_RUNS := logs/claims/degradequery
# the official-split arms: the paper's model, its ablation and baselines (networks, then scikit-learn models)
DQ_OFFICIAL := degradequery/main,degradequery/no_pretrain,degradequery/molecule_only,degradequery/rf_tuple,degradequery/gbm_tuple,degradequery/rf_molecule
# the holdout arms, each on the scaffold and the (target, E3) holdout (data.split)
DQ_HOLDOUT := degradequery/main,degradequery/no_pretrain,degradequery/molecule_only,degradequery/rf_molecule

data-protac8k: ## PROTAC-8K: download DegradeMaster's name.json (3.4 MB) and build $(DATA)/protac-8k/protac8k.csv (seconds)
	$(PY) scripts/data/prepare_protac8k.py --out $(DATA)/protac-8k

claim-degradequery-official: ## DegradeQuery claim, official split: 6 arms (3 networks, 3 sklearn models) x 5 seeds through reprolab-train -> its RESULTS.md block
	-$(DQ_ENV) $(TRAIN) -m seed=$(DQ_SEEDS) experiment=$(DQ_OFFICIAL) print_config=false paths.data_dir=$(DQ_DATA) \
	  hydra.sweep.dir=$(DQ_RUNS)/official
	$(TABLE) $(DQ_RUNS)/official --group-by setting --metric test/auroc test/accuracy test/f1_macro test/precision test/recall \
	  --no-curves --name official --results experiments/degradequery/RESULTS.md

claim-degradequery-holdouts: ## DegradeQuery claim, scaffold and (target, E3) holdouts: 4 arms x 2 splits x 3 seeds -> its RESULTS.md block
	-$(DQ_ENV) $(TRAIN) -m seed=$(DQ_HOLDOUT_SEEDS) ++data.split=$(DQ_HOLDOUT_SPLITS) experiment=$(DQ_HOLDOUT) print_config=false \
	  paths.data_dir=$(DQ_DATA) hydra.sweep.dir=$(DQ_RUNS)/holdouts
	$(TABLE) $(DQ_RUNS)/holdouts --group-by data.split setting --metric test/auroc test/accuracy test/f1_macro \
	  --no-curves --name holdouts --results experiments/degradequery/RESULTS.md

claim-degradequery: claim-degradequery-official claim-degradequery-holdouts ## DegradeQuery claim check (CPU, one thread): the two sweeps above, then the verdicts of claims.yaml
	$(CLAIMS) degradequery

table-degradequery: claim-degradequery-official ## alias: the official-split table is part of the claim check

# One reprolab-train sweep per preset (conf/experiment/degradequery/<setting>.yaml) into a fixed folder, then its table.
define dq_reproduce
	-$(DQ_ENV) $(TRAIN) -m experiment=degradequery/$(1) seed=$(DQ_SEEDS) print_config=false paths.data_dir=$(DQ_DATA) \
	  hydra.sweep.dir=logs/reproduce/degradequery/$(1)
	$(TABLE) logs/reproduce/degradequery/$(1) --group-by setting --name $(1) --results experiments/degradequery/RESULTS.md
endef
reproduce-degradequery: claim-degradequery ## alias: the benchmark is CPU-sized; the paper-scale run is the claim check
reproduce-degradequery-main: ## DegradeQuery (ECFP encoder, counterfactual pretraining), official split, 5 seeds (CPU)
	$(call dq_reproduce,main)
reproduce-degradequery-main_gin: ## the GIN-encoder option, official split, 5 seeds (CPU)
	$(call dq_reproduce,main_gin)
reproduce-degradequery-main_sequences: ## ID embeddings + sequence features, official split, 5 seeds (CPU)
	$(call dq_reproduce,main_sequences)
reproduce-degradequery-no_pretrain: ## ablation without counterfactual pretraining, official split, 5 seeds (CPU)
	$(call dq_reproduce,no_pretrain)
reproduce-degradequery-molecule_only: ## molecule-only network, official split, 5 seeds (CPU)
	$(call dq_reproduce,molecule_only)
reproduce-degradequery-scaffold: ## ablation: Murcko-scaffold holdout, 5 seeds (CPU)
	$(call dq_reproduce,scaffold)
reproduce-degradequery-target_e3: ## ablation: (target, E3) pair holdout, 5 seeds (CPU)
	$(call dq_reproduce,target_e3)
