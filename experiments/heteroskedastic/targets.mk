# Post-hoc heteroskedastic regression (Jordahn et al. 2026): CPU claim check over 5 data sets x 10 splits.
.PHONY: claim-heteroskedastic table-heteroskedastic reproduce-heteroskedastic-qm9

HETERO_SEEDS ?= 0,1,2,3,4,5,6,7,8,9
HETERO_DATA ?= hetero_energy,hetero_concrete,hetero_mcycle,hetero_diabetes,hetero_synthetic
HETERO_ROOT ?= logs/claims/heteroskedastic
HETERO_ARGS = data=$(HETERO_DATA) seed=$(HETERO_SEEDS) print_config=false $(DATA_OVERRIDE)
HETERO_POSTHOC = heteroskedastic/posthoc_cpu,heteroskedastic/posthoc_last_cpu,heteroskedastic/posthoc_bootstrap_cpu,heteroskedastic/homoskedastic_cpu
HETERO_END_TO_END = heteroskedastic/mve_cpu,heteroskedastic/beta_nll_cpu,heteroskedastic/beta_nll_1_cpu,heteroskedastic/faithful_cpu

claim-heteroskedastic: ## CPU claim check: mean MLP -> post-hoc heads (all/last layers, 5-head bootstrap ensemble, constant) vs MVE, beta-NLL 0.5/1, Faithful (on the train split, and on train + hold-out); 5 data sets x 10 splits (13.8 CPU-min: 812 s user + 15 s sys at 5027fe6 on 2026-12-07, JOBS=2; see RESULTS.md)
	-$(CPU1) $(TRAIN) -m experiment=heteroskedastic/mean_cpu $(HETERO_ARGS) hydra.sweep.dir=$(HETERO_ROOT)/mean 'hydra.sweep.subdir=$${data.name}-$${seed}'
	-$(CPU1) $(TRAIN) -m experiment=$(HETERO_POSTHOC) $(HETERO_ARGS) ++mean_runs=$(HETERO_ROOT)/mean hydra.sweep.dir=$(HETERO_ROOT)/posthoc
	-$(CPU1) $(TRAIN) -m experiment=$(HETERO_END_TO_END) $(HETERO_ARGS) hydra.sweep.dir=$(HETERO_ROOT)/end_to_end
	-$(CPU1) $(TRAIN) -m experiment=$(HETERO_END_TO_END) $(HETERO_ARGS) ++data.fit_on=train_holdout hydra.sweep.dir=$(HETERO_ROOT)/end_to_end_same_rows
	$(MAKE) table-heteroskedastic
	$(CLAIMS) heteroskedastic

table-heteroskedastic: ## The claim runs' table (mean +- std over splits, per data set and method) -> RESULTS.md (seconds)
	$(TABLE) $(HETERO_ROOT)/posthoc $(HETERO_ROOT)/end_to_end $(HETERO_ROOT)/end_to_end_same_rows --group-by data setting data.fit_on \
	  --metric test/rmse test/nll test/calibration_error test/sigma_rmse --no-curves --name claim --results experiments/heteroskedastic/RESULTS.md

HETERO_QM9_SEEDS ?= 0,1,2
HETERO_QM9 = logs/reproduce/heteroskedastic
reproduce-heteroskedastic-qm9: ## QM9 HOMO, MPNN mean -> post-hoc heads (all/last/none, ensemble); MVE, beta-NLL, Faithful; 3 seeds (1 GPU each, W&B)
	-$(TRAIN) -m experiment=heteroskedastic/qm9_mean seed=$(HETERO_QM9_SEEDS) paths.data_dir=$(DATA) hydra.sweep.dir=$(HETERO_QM9)/qm9_mean 'hydra.sweep.subdir=qm9-$${seed}'
	-$(TRAIN) -m experiment=heteroskedastic/qm9_posthoc task.layers=all,last,none seed=$(HETERO_QM9_SEEDS) paths.data_dir=$(DATA) \
	  ++mean_runs=$(HETERO_QM9)/qm9_mean hydra.sweep.dir=$(HETERO_QM9)/qm9_posthoc
	-$(TRAIN) -m experiment=heteroskedastic/qm9_posthoc task.ensemble=true seed=$(HETERO_QM9_SEEDS) paths.data_dir=$(DATA) \
	  ++mean_runs=$(HETERO_QM9)/qm9_mean hydra.sweep.dir=$(HETERO_QM9)/qm9_posthoc_ensemble
	-$(TRAIN) -m experiment=heteroskedastic/qm9_mve,heteroskedastic/qm9_beta_nll,heteroskedastic/qm9_faithful seed=$(HETERO_QM9_SEEDS) \
	  paths.data_dir=$(DATA) hydra.sweep.dir=$(HETERO_QM9)/qm9_end_to_end
	$(TABLE) $(HETERO_QM9)/qm9_posthoc $(HETERO_QM9)/qm9_posthoc_ensemble $(HETERO_QM9)/qm9_end_to_end --group-by setting task.layers task.ensemble \
	  --metric test/rmse test/nll test/calibration_error --no-curves --name qm9 --results experiments/heteroskedastic/RESULTS.md
