# DegradeQuery on PROTAC-8K: data, the claim check through reprolab-train (networks and forests in one sweep), paper-scale presets.
.PHONY: data-protac8k pretrain-degradequery pretrain-degradequery-official pretrain-degradequery-holdouts claim-degradequery claim-degradequery-official claim-degradequery-holdouts table-degradequery reproduce-degradequery \
        claim-degradequery-protocol claim-degradequery-refit pretrain-degradequery-refit claim-degradequery-search pretrain-degradequery-grid claim-degradequery-netgrid \
        reproduce-degradequery-main reproduce-degradequery-main_gin reproduce-degradequery-main_sequences reproduce-degradequery-no_pretrain reproduce-degradequery-molecule_only reproduce-degradequery-scaffold reproduce-degradequery-target_e3

DQ_ENV := OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
DQ_SEEDS ?= 0,1,2,3,4
DQ_HOLDOUT_SEEDS ?= 0,1,2
DQ_HOLDOUT_SPLITS ?= target_e3,scaffold
DQ_RUNS := logs/claims/degradequery
DQ_TRAIN = $(DQ_ENV) $(TRAIN)
# Each sweep's arguments after `-m` (DQ_*_ARGS), so a target runs a stage-1 sweep and the sweeps that read it in one
# process (`reprolab-train -m A --next -m B`, src/reprolab/sweeps/chain.py: start-up and the ECFP matrix paid once; a
# failed part does not stop the next) and claim-degradequery chains them all.
# stage 1 (counterfactual pretraining, preset $(1)) over seeds $(2) and splits $(3): one run per split and seed in
# $(DQ_RUNS)/$(1)/<split>-<seed>, where the fine-tuning presets read it (`pretrain_run`)
dq_pretrain_args = experiment=degradequery/$(1) seed=$(2) ++data.split=$(3) print_config=false $(DATA_OVERRIDE) \
  hydra.sweep.dir=$(DQ_RUNS)/$(1) 'hydra.sweep.subdir=$${data.split}-$${seed}'
define dq_pretrain
	-$(DQ_TRAIN) -m $(call dq_pretrain_args,$(1),$(2),$(3))
endef
# the official-split arms: the paper's model, its ablation and baselines (networks, then scikit-learn models)
DQ_OFFICIAL := degradequery/main,degradequery/no_pretrain,degradequery/molecule_only,degradequery/rf_tuple,degradequery/gbm_tuple,degradequery/rf_molecule
# protocol ablations of the scikit-learn baselines (each changes one choice of rf_tuple / gbm_tuple back)
DQ_PROTOCOL := degradequery/rf_tuple_carve,degradequery/rf_tuple_dedup,degradequery/rf_tuple_300,degradequery/rf_tuple_all_names,degradequery/gbm_tuple_carve
# search arms toward issue 14's 0.92 goal (chosen among, with rf_tuple / gbm_tuple, on cv/auroc only)
DQ_SEARCH := degradequery/lgbm_tuple,degradequery/vote_tuple,degradequery/lgbm_tuple_tables,degradequery/xgb_tuple,degradequery/cat_tuple,degradequery/stack_tuple,degradequery/lgbm_tuple_parts
# the holdout arms, each on the scaffold and the (target, E3) holdout (data.split)
DQ_HOLDOUT := degradequery/main,degradequery/no_pretrain,degradequery/molecule_only,degradequery/rf_molecule

data-protac8k: data-protac-8k ## PROTAC-8K (the old name of data-protac-8k, data.mk)

pretrain-degradequery-official: ## stage 1: counterfactual pretraining on the official split's corpus, 5 seeds -> $(DQ_RUNS)/pretrain/official-<seed>
	$(call dq_pretrain,pretrain,$(DQ_SEEDS),official)

pretrain-degradequery-holdouts: ## stage 1 on each holdout's corpus, 3 seeds -> $(DQ_RUNS)/pretrain/<split>-<seed>
	$(call dq_pretrain,pretrain,$(DQ_HOLDOUT_SEEDS),$(DQ_HOLDOUT_SPLITS))

pretrain-degradequery: pretrain-degradequery-official pretrain-degradequery-holdouts ## stage 1 for every claim split and seed

DQ_OFFICIAL_PRETRAIN_ARGS = $(call dq_pretrain_args,pretrain,$(DQ_SEEDS),official)
DQ_OFFICIAL_ARGS = seed=$(DQ_SEEDS) experiment=$(DQ_OFFICIAL) print_config=false $(DATA_OVERRIDE) \
  hydra.sweep.dir=$(DQ_RUNS)/official 'hydra.sweep.subdir=$${setting}-$${seed}'
DQ_OFFICIAL_TABLE = $(TABLE) $(DQ_RUNS)/official --group-by setting --metric test/auroc test/accuracy test/accuracy_at_threshold \
  test/oracle_accuracy cv/auroc test/f1_macro --no-curves --name official --results experiments/degradequery/RESULTS.md
claim-degradequery-official: ## DegradeQuery claim, official split: stage 1 (5 seeds), then 6 arms (3 networks, 3 sklearn models) x 5 seeds, in one reprolab-train process -> its RESULTS.md block
	-$(DQ_TRAIN) -m $(DQ_OFFICIAL_PRETRAIN_ARGS) --next -m $(DQ_OFFICIAL_ARGS)
	$(DQ_OFFICIAL_TABLE)

DQ_PROTOCOL_ARGS = seed=$(DQ_SEEDS) experiment=$(DQ_PROTOCOL) print_config=false $(DATA_OVERRIDE) \
  hydra.sweep.dir=$(DQ_RUNS)/protocol 'hydra.sweep.subdir=$${setting}-$${seed}'
DQ_PROTOCOL_TABLE = $(TABLE) $(DQ_RUNS)/protocol --group-by setting --metric test/auroc test/accuracy --no-curves \
  --name protocol --results experiments/degradequery/RESULTS.md
claim-degradequery-protocol: ## the sklearn baselines' protocol, one choice changed back at a time: 5 ablation arms x 5 seeds -> its RESULTS.md block
	-$(DQ_TRAIN) -m $(DQ_PROTOCOL_ARGS)
	$(DQ_PROTOCOL_TABLE)

DQ_REFIT_PRETRAIN_ARGS = $(call dq_pretrain_args,pretrain_refit,$(DQ_SEEDS),official)
pretrain-degradequery-refit: ## stage 1 of select-then-refit: pretraining on the corpus of the split without a carve, 5 seeds -> $(DQ_RUNS)/pretrain_refit/official-<seed>
	-$(DQ_TRAIN) -m $(DQ_REFIT_PRETRAIN_ARGS)

DQ_REFIT_ARGS = seed=$(DQ_SEEDS) experiment=degradequery/main_refit print_config=false $(DATA_OVERRIDE) \
  hydra.sweep.dir=$(DQ_RUNS)/refit 'hydra.sweep.subdir=$${setting}-$${seed}'
DQ_REFIT_TABLE = $(TABLE) $(DQ_RUNS)/refit --group-by setting --metric test/auroc test/accuracy test/oracle_accuracy \
  refit/epochs --no-curves --name refit --results experiments/degradequery/RESULTS.md
claim-degradequery-refit: claim-degradequery-official ## select-then-refit: the epoch count of each seed's carve-select `main` run (claim-degradequery-official), refit on every training triplet after its own stage 1, 5 seeds (one process)
	-$(DQ_TRAIN) -m $(DQ_REFIT_PRETRAIN_ARGS) --next -m $(DQ_REFIT_ARGS)
	$(DQ_REFIT_TABLE)

DQ_HOLDOUT_PRETRAIN_ARGS = $(call dq_pretrain_args,pretrain,$(DQ_HOLDOUT_SEEDS),$(DQ_HOLDOUT_SPLITS))
DQ_HOLDOUT_ARGS = seed=$(DQ_HOLDOUT_SEEDS) ++data.split=$(DQ_HOLDOUT_SPLITS) experiment=$(DQ_HOLDOUT) print_config=false \
  $(DATA_OVERRIDE) hydra.sweep.dir=$(DQ_RUNS)/holdouts 'hydra.sweep.subdir=$${data.split}/$${setting}-$${seed}'
DQ_HOLDOUT_TABLE = $(TABLE) $(DQ_RUNS)/holdouts --group-by data.split setting --metric test/auroc test/accuracy test/f1_macro \
  --no-curves --name holdouts --results experiments/degradequery/RESULTS.md
claim-degradequery-holdouts: ## DegradeQuery claim, scaffold and (target, E3) holdouts: stage 1, then 4 arms x 2 splits x 3 seeds, in one process -> its RESULTS.md block
	-$(DQ_TRAIN) -m $(DQ_HOLDOUT_PRETRAIN_ARGS) --next -m $(DQ_HOLDOUT_ARGS)
	$(DQ_HOLDOUT_TABLE)

claim-degradequery: ## DegradeQuery claim check (CPU, one thread): every sweep of the claim-degradequery-* targets in one reprolab-train process (each stage 1 before the sweeps that read it; a failed part does not stop the rest), their tables, then the verdicts of claims.yaml
	-$(DQ_TRAIN) -m $(DQ_OFFICIAL_PRETRAIN_ARGS) --next -m $(DQ_OFFICIAL_ARGS) \
	  --next -m $(DQ_HOLDOUT_PRETRAIN_ARGS) --next -m $(DQ_HOLDOUT_ARGS) \
	  --next -m $(DQ_PROTOCOL_ARGS) \
	  --next -m $(DQ_REFIT_PRETRAIN_ARGS) --next -m $(DQ_REFIT_ARGS) \
	  --next -m $(DQ_SEARCH_ARGS) \
	  --next -m $(DQ_GRID_PRETRAIN_ARGS) --next -m $(DQ_NETGRID_ARGS)
	$(DQ_OFFICIAL_TABLE)
	$(DQ_HOLDOUT_TABLE)
	$(DQ_PROTOCOL_TABLE)
	$(DQ_REFIT_TABLE)
	$(DQ_SEARCH_TABLE)
	$(DQ_NETGRID_TABLE)
	$(CLAIMS) degradequery

table-degradequery: claim-degradequery-official ## alias: the official-split table is part of the claim check

# One reprolab-train sweep per preset (conf/experiment/degradequery/<setting>.yaml) into a fixed folder, then its table.
define dq_reproduce
	-$(DQ_ENV) $(TRAIN) -m experiment=degradequery/$(1) seed=$(DQ_SEEDS) print_config=false $(DATA_OVERRIDE) \
	  hydra.sweep.dir=logs/reproduce/degradequery/$(1)
	$(TABLE) logs/reproduce/degradequery/$(1) --group-by setting --name $(1) --results experiments/degradequery/RESULTS.md
endef
reproduce-degradequery: claim-degradequery ## alias: the benchmark is CPU-sized; the paper-scale run is the claim check
reproduce-degradequery-main: ## DegradeQuery (ECFP encoder, counterfactual pretraining), official split, 5 seeds (CPU)
	$(call dq_pretrain,pretrain,$(DQ_SEEDS),official)
	$(call dq_reproduce,main)
reproduce-degradequery-main_gin: ## the GIN-encoder option, official split, 5 seeds (CPU)
	$(call dq_pretrain,pretrain_gin,$(DQ_SEEDS),official)
	$(call dq_reproduce,main_gin)
reproduce-degradequery-main_sequences: ## ID embeddings + sequence features, official split, 5 seeds (CPU)
	$(call dq_pretrain,pretrain_sequences,$(DQ_SEEDS),official)
	$(call dq_reproduce,main_sequences)
reproduce-degradequery-no_pretrain: ## ablation without counterfactual pretraining, official split, 5 seeds (CPU)
	$(call dq_reproduce,no_pretrain)
reproduce-degradequery-molecule_only: ## molecule-only network, official split, 5 seeds (CPU)
	$(call dq_reproduce,molecule_only)
reproduce-degradequery-scaffold: ## ablation: Murcko-scaffold holdout, 5 seeds (CPU)
	$(call dq_pretrain,pretrain,$(DQ_SEEDS),scaffold)
	$(call dq_reproduce,scaffold)
reproduce-degradequery-target_e3: ## ablation: (target, E3) pair holdout, 5 seeds (CPU)
	$(call dq_pretrain,pretrain,$(DQ_SEEDS),target_e3)
	$(call dq_reproduce,target_e3)

DQ_SEARCH_ARGS = seed=$(DQ_SEEDS) experiment=$(DQ_SEARCH) print_config=false $(DATA_OVERRIDE) \
  hydra.sweep.dir=$(DQ_RUNS)/search 'hydra.sweep.subdir=$${setting}-$${seed}'
DQ_SEARCH_TABLE = $(TABLE) $(DQ_RUNS)/search --group-by setting --metric cv/auroc test/auroc test/accuracy cv/threshold \
  test/accuracy_at_threshold test/oracle_accuracy --no-curves --name search --results experiments/degradequery/RESULTS.md
claim-degradequery-search: ## toward the 0.92 goal, chosen on CV only: LightGBM, molecule tables, a soft vote, XGBoost / CatBoost grids, a stack, 5 seeds -> its RESULTS.md block
	-$(DQ_TRAIN) -m $(DQ_SEARCH_ARGS)
	$(DQ_SEARCH_TABLE)

# The network's grid (issue 14 §2), chosen on the validation carve only: width x dropout x with/without pretraining;
# early stopping on validation AUROC chooses the epoch count. Measured ~6 CPU-min for 5 seeds (RESULTS.md).
DQ_GRID_SEEDS ?= 0,1,2,3,4
DQ_GRID_HIDDEN ?= 256,512
DQ_GRID_DROPOUT ?= 0.1,0.3
DQ_GRID_PRETRAIN_ARGS = experiment=degradequery/pretrain model.hidden=$(DQ_GRID_HIDDEN) seed=$(DQ_GRID_SEEDS) print_config=false \
  $(DATA_OVERRIDE) hydra.sweep.dir=$(DQ_RUNS)/pretrain_grid 'hydra.sweep.subdir=h$${model.hidden}/$${data.split}-$${seed}'
pretrain-degradequery-grid: ## stage 1 for the network grid: pretraining per width, 5 seeds -> $(DQ_RUNS)/pretrain_grid/h<hidden>/official-<seed>
	-$(DQ_TRAIN) -m $(DQ_GRID_PRETRAIN_ARGS)

DQ_NETGRID_ARGS = seed=$(DQ_GRID_SEEDS) experiment=degradequery/net_grid,degradequery/net_grid_nopt \
  model.hidden=$(DQ_GRID_HIDDEN) model.dropout=$(DQ_GRID_DROPOUT) print_config=false $(DATA_OVERRIDE) \
  hydra.sweep.dir=$(DQ_RUNS)/netgrid 'hydra.sweep.subdir=$${grid_point}-$${seed}'
DQ_NETGRID_TABLE = $(TABLE) $(DQ_RUNS)/netgrid --group-by grid_point --metric best/val/auroc test/auroc test/accuracy \
  test/accuracy_at_threshold test/oracle_accuracy --no-curves --name netgrid --results experiments/degradequery/RESULTS.md
claim-degradequery-netgrid: ## the network grid (hidden x dropout x pretraining), chosen on validation: stage 1 per width, then the grid, 5 seeds, in one process -> its RESULTS.md block
	-$(DQ_TRAIN) -m $(DQ_GRID_PRETRAIN_ARGS) --next -m $(DQ_NETGRID_ARGS)
	$(DQ_NETGRID_TABLE)
