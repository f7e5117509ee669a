# DARSM (neural implicit ARSM trained a posteriori through a steady RANS solve): channel twin claims and paper scale.
.PHONY: claim-darsm claim-darsm-duct reproduce-darsm-channel reproduce-darsm-hills

DARSM_SEEDS ?= 0,1,2
DARSM_ARMS := adjoint unrolled offline baseline linear
DARSM_METRICS := test/u_rel_l2_unseen test/u_rel_l2_train test/re180/u_rel_l2 test/re360/u_rel_l2 test/re1800/u_rel_l2 test/solve_residual_max

# One claim sweep: $(1) the preset (darsm/<name>), $(2) the seeds, $(3) the sweep folder under logs/claims/darsm.
define darsm_sweep
	-$(CPU1) $(TRAIN) -m experiment=darsm/$(1) seed=$(2) print_config=false hydra.sweep.dir=logs/claims/darsm/$(3)

endef
DARSM_DUCT_ARMS := adjoint baseline linear
DARSM_DUCT_METRICS := test/u_rel_l2_unseen test/sec_rel_l2_unseen test/ar_3_ret_360/u_rel_l2 test/ar_14_ret_180/u_rel_l2 \
	test/ar_3_ret_360/sec_rel_l2 test/ar_14_ret_180/sec_rel_l2 test/u_rel_l2_train test/sec_rel_l2_train test/solve_residual_max
DARSM_DUCT_CORNER := test/corner_sign_match_unseen test/ar_1_ret_360/corner_flow test/ar_3_ret_360/corner_flow \
	test/ar_3_ret_360/corner_flow_dns test/ar_14_ret_180/corner_flow test/ar_14_ret_180/corner_flow_dns \
	test/ar_3_ret_360/vortex_offset test/ar_14_ret_180/vortex_offset
DARSM_DUCT_RUNS := $(foreach arm,$(DARSM_DUCT_ARMS),logs/claims/darsm/duct_$(arm))
claim-darsm: ## CPU claim check: channel twin (adjoint / unrolled / offline / baseline ARSM / linear EV) and the duct, 3 seeds each
	$(foreach arm,$(DARSM_ARMS),$(call darsm_sweep,channel_$(arm)_cpu,$(DARSM_SEEDS),$(arm)))
	$(TABLE) logs/claims/darsm --group-by setting --metric $(DARSM_METRICS) --name claim_cpu --results experiments/darsm/RESULTS.md
	$(MAKE) claim-darsm-duct
	$(MAKE) claim-darsm-fiml
	$(MAKE) claim-darsm-duct-unrolled

claim-darsm-duct: ## CPU claim check, duct only: adjoint (trained on AR 1) / baseline ARSM / linear EV, tested on AR 3 and 14.4 (needs the darsm extra)
	$(foreach arm,$(DARSM_DUCT_ARMS),$(call darsm_sweep,duct_$(arm)_cpu,$(DARSM_SEEDS),duct_$(arm)))
	$(TABLE) $(DARSM_DUCT_RUNS) --group-by setting --metric $(DARSM_DUCT_METRICS) --name duct_cpu --results experiments/darsm/RESULTS.md
	$(TABLE) $(DARSM_DUCT_RUNS) --group-by setting --metric $(DARSM_DUCT_CORNER) --no-curves --results experiments/darsm/RESULTS.md
	$(CLAIMS) darsm

reproduce-darsm-channel: ## Paper-scale channel: 256 nodes, train Re_tau 180/550, test 2000 and 5200, adjoint arm, 5 seeds (W&B)
	-$(TRAIN) -m experiment=darsm/channel_adjoint seed=0,1,2,3,4 hydra.sweep.dir=logs/reproduce/darsm/channel
	$(TABLE) logs/reproduce/darsm/channel --group-by setting --metric $(DARSM_METRICS) --name channel_paper --results experiments/darsm/RESULTS.md

# ---- grid convergence (sanity rows of claims.yaml) -------------------------------------------------------------
.PHONY: claim-darsm-grid
DARSM_GRID_SEEDS ?= 0,1
DARSM_GRID_METRICS := test/u_rel_l2_unseen test/sec_rel_l2_unseen test/u_rel_l2_train test/sec_rel_l2_train \
	test/ar_3_ret_360/u_rel_l2 test/ar_14_ret_180/u_rel_l2 test/ar_3_ret_360/sec_rel_l2 test/ar_14_ret_180/sec_rel_l2 \
	test/ar_1_ret_360/corner_flow test/ar_3_ret_360/corner_flow test/solve_residual_max

claim-darsm-grid: ## Grid convergence of the baseline ARSM: duct 16/24/32 (2 seeds) and 48 (1), channel 32/64/128 (2 seeds); sanity rows (minutes of CPU: RESULTS.md)
	-$(CPU1) $(TRAIN) -m experiment=darsm/duct_grid_cpu data.ny=16,24,32 seed=$(DARSM_GRID_SEEDS) print_config=false hydra.sweep.dir=logs/claims/darsm/duct_grid
	-$(CPU1) $(TRAIN) -m experiment=darsm/duct_grid_cpu data.ny=48 seed=0 print_config=false hydra.sweep.dir=logs/claims/darsm/duct_grid48
	-$(CPU1) $(TRAIN) -m experiment=darsm/channel_grid_cpu data.n=32,64,128 seed=$(DARSM_GRID_SEEDS) print_config=false hydra.sweep.dir=logs/claims/darsm/channel_grid
	$(TABLE) logs/claims/darsm/duct_grid logs/claims/darsm/duct_grid48 --group-by setting data.ny --metric $(DARSM_GRID_METRICS) --no-curves --results experiments/darsm/RESULTS.md
	$(TABLE) logs/claims/darsm/channel_grid --group-by setting data.n --metric test/u_rel_l2_unseen test/u_rel_l2_train test/re1800/u_rel_l2 test/solve_residual_max --no-curves --results experiments/darsm/RESULTS.md
	$(CLAIMS) darsm

# ---- duct at paper scale; McConkey et al.'s dataset -------------------------------------------------------------
.PHONY: reproduce-darsm-duct reproduce-darsm-duct-mcconkey data-mcconkey
DARSM_PAPER_SEEDS ?= 0,1,2,3,4
MCCONKEY_CASES ?= DUCT_1100 DUCT_1500 DUCT_2205 DUCT_2900 DUCT_3500 PHLL_case_1p0

reproduce-darsm-duct: ## Paper-scale duct: 64x64, adjoint on closure-challenge's AR 1, tested on AR 3 / 14.4, and the baseline ARSM; 5 seeds each (GPU, W&B)
	-$(TRAIN) -m experiment=darsm/duct_adjoint seed=$(DARSM_PAPER_SEEDS) hydra.sweep.dir=logs/reproduce/darsm/duct_adjoint
	-$(TRAIN) -m experiment=darsm/duct_adjoint task.mode=none trainer.max_epochs=1 setting=duct_baseline seed=$(DARSM_PAPER_SEEDS) hydra.sweep.dir=logs/reproduce/darsm/duct_baseline
	$(TABLE) logs/reproduce/darsm/duct_adjoint logs/reproduce/darsm/duct_baseline --group-by setting --metric $(DARSM_DUCT_METRICS) --name duct_paper --results experiments/darsm/RESULTS.md

reproduce-darsm-hills: ## Paper-scale duct -> hills: the 64x64 duct training, tested on the alpha-1.5 hills at 144x96; adjoint, baseline ARSM and linear EV, 5 seeds (GPU, W&B)
	-$(TRAIN) -m experiment=darsm/hills_adjoint seed=$(DARSM_PAPER_SEEDS) hydra.sweep.dir=logs/reproduce/darsm/hills_adjoint
	-$(TRAIN) -m experiment=darsm/hills_adjoint task.mode=none trainer.max_epochs=1 setting=hills_baseline seed=$(DARSM_PAPER_SEEDS) hydra.sweep.dir=logs/reproduce/darsm/hills_baseline
	-$(TRAIN) -m experiment=darsm/hills_adjoint task.mode=none task.closure=linear trainer.max_epochs=1 setting=hills_linear seed=$(DARSM_PAPER_SEEDS) hydra.sweep.dir=logs/reproduce/darsm/hills_linear
	$(TABLE) logs/reproduce/darsm/hills_adjoint logs/reproduce/darsm/hills_baseline logs/reproduce/darsm/hills_linear --group-by setting --metric $(DARSM_HILLS_METRICS) --name hills_paper --results experiments/darsm/RESULTS.md

reproduce-darsm-duct-mcconkey: ## Paper-scale duct on McConkey et al.'s square ducts (make data-mcconkey): train Re_b 1100/1500/2205, test 2900/3500; adjoint and baseline, 5 seeds (GPU, W&B)
	-$(TRAIN) -m experiment=darsm/duct_mcconkey_adjoint seed=$(DARSM_PAPER_SEEDS) hydra.sweep.dir=logs/reproduce/darsm/duct_mcconkey_adjoint
	-$(TRAIN) -m experiment=darsm/duct_mcconkey_adjoint task.mode=none trainer.max_epochs=1 setting=duct_mcconkey_baseline seed=$(DARSM_PAPER_SEEDS) hydra.sweep.dir=logs/reproduce/darsm/duct_mcconkey_baseline
	$(TABLE) logs/reproduce/darsm/duct_mcconkey_adjoint logs/reproduce/darsm/duct_mcconkey_baseline --group-by setting --metric test/u_rel_l2_unseen test/sec_rel_l2_unseen test/u_rel_l2_train test/sec_rel_l2_train test/solve_residual_max --name duct_mcconkey_paper --results experiments/darsm/RESULTS.md

data-mcconkey: ## McConkey et al. (2021) cases from Kaggle (kaggle CLI + API token) into $(DATA)/mcconkey: MCCONKEY_CASES's files only, shapes checked, MANIFEST.sha256
	$(PY) -m experiments.darsm.mcconkey_fetch --cases $(MCCONKEY_CASES) --data-dir $(DATA)

# FIML (Parish & Duraisamy 2016), the ML baseline: the inversion once (deterministic: beta starts at 1), then the
# network for beta and the predictive solves over 3 seeds, on the channel and the duct; the claims compare it with
# the adjoint and baseline arms of claim-darsm / claim-darsm-duct (run those first).
.PHONY: claim-darsm-fiml
DARSM_FIML_CASES := channel duct
DARSM_FIML_RUNS := logs/claims/darsm/channel_fiml_invert logs/claims/darsm/channel_fiml logs/claims/darsm/adjoint logs/claims/darsm/baseline
DARSM_FIML_DUCT_RUNS := logs/claims/darsm/duct_fiml_invert logs/claims/darsm/duct_fiml logs/claims/darsm/duct_adjoint logs/claims/darsm/duct_baseline

define darsm_fiml_case
	-$(CPU1) $(TRAIN) -m experiment=darsm/$(1)_fiml_invert_cpu seed=0 print_config=false hydra.sweep.dir=logs/claims/darsm/$(1)_fiml_invert 'hydra.sweep.subdir=$${seed}'
	-$(CPU1) $(TRAIN) -m experiment=darsm/$(1)_fiml_cpu seed=$(DARSM_SEEDS) print_config=false hydra.sweep.dir=logs/claims/darsm/$(1)_fiml

endef
claim-darsm-fiml: ## CPU claim check, FIML arm: invert beta (once), learn beta = net(features) and predict (3 seeds), channel and duct
	$(foreach case,$(DARSM_FIML_CASES),$(call darsm_fiml_case,$(case)))
	$(TABLE) $(DARSM_FIML_RUNS) --group-by setting --metric test/u_rel_l2_unseen test/u_rel_l2_train test/solve_residual_max --name fiml_channel_cpu --results experiments/darsm/RESULTS.md
	$(TABLE) $(DARSM_FIML_DUCT_RUNS) --group-by setting --metric $(DARSM_DUCT_METRICS) --name fiml_duct_cpu --results experiments/darsm/RESULTS.md
	$(CLAIMS) darsm

# FIML's two open choices on the channel (no claim): the prior weight lambda and the production term beta multiplies.
.PHONY: explore-darsm-fiml
DARSM_FIML_EXPLORE := logs/explore/darsm_fiml
DARSM_FIML_GRID := task.source=omega,k task.prior_weight=0,1e-4,1e-3,1e-2,1e-1
explore-darsm-fiml: ## EXPLORATORY, no claim: channel FIML over lambda (0..1e-1) x beta's term (omega, k), 3 seeds (260 CPU-s measured at 4857e5e) -> a RESULTS.md table
	-$(CPU1) $(TRAIN) -m experiment=darsm/channel_fiml_invert_cpu $(DARSM_FIML_GRID) seed=0 print_config=false \
	  hydra.sweep.dir=$(DARSM_FIML_EXPLORE)/invert 'hydra.sweep.subdir=$${task.source}_$${task.prior_weight}'
	-$(CPU1) $(TRAIN) -m experiment=darsm/channel_fiml_cpu $(DARSM_FIML_GRID) seed=$(DARSM_SEEDS) print_config=false \
	  'task.inversion_run=$(DARSM_FIML_EXPLORE)/invert/$${task.source}_$${task.prior_weight}' hydra.sweep.dir=$(DARSM_FIML_EXPLORE)/learn
	$(TABLE) $(DARSM_FIML_EXPLORE)/learn --group-by task.source task.prior_weight --metric test/u_rel_l2_unseen \
	  test/u_rel_l2_train test/solve_residual_max --name fiml_explore --results experiments/darsm/RESULTS.md

.PHONY: claim-darsm-duct-unrolled
claim-darsm-duct-unrolled: ## CPU claim check: the duct's unrolled-AD arm (10 PTC iterates per step), 3 seeds, against claim-darsm-duct's adjoint arm
	-$(CPU1) $(TRAIN) -m experiment=darsm/duct_unrolled_cpu seed=$(DARSM_SEEDS) print_config=false hydra.sweep.dir=logs/claims/darsm/duct_unrolled
	$(TABLE) logs/claims/darsm/duct_unrolled logs/claims/darsm/duct_adjoint --group-by setting --metric $(DARSM_DUCT_METRICS) --name duct_unrolled_cpu --results experiments/darsm/RESULTS.md
	$(CLAIMS) darsm

# Periodic hills (hills.py): the duct-trained closure (the duct claims' adjoint arm, retrained on new seeds) tested on
# closure-challenge's alpha = 1.5 hills, against the baseline ARSM and the linear eddy viscosity; never a challenge score.
.PHONY: claim-darsm-hills
DARSM_HILLS_SEEDS ?= 3,4,5
DARSM_HILLS_ARMS := adjoint baseline linear
DARSM_HILLS_METRICS := test/u_rel_l2_hills test/v_rel_l2_hills test/alpha_15_13929_2024/u_rel_l2 \
	test/alpha_15_13929_4048/u_rel_l2 test/alpha_15_13929_2024/v_rel_l2 test/alpha_15_13929_4048/v_rel_l2 \
	test/separation_error_hills test/reattachment_error_hills test/hills_converged test/hills_residual_max
DARSM_HILLS_BUBBLE := test/alpha_15_13929_2024/x_sep test/alpha_15_13929_2024/x_sep_dns test/alpha_15_13929_2024/x_reatt \
	test/alpha_15_13929_2024/x_reatt_dns test/alpha_15_13929_4048/x_sep test/alpha_15_13929_4048/x_sep_dns \
	test/alpha_15_13929_4048/x_reatt test/alpha_15_13929_4048/x_reatt_dns
DARSM_HILLS_RUNS := $(foreach arm,$(DARSM_HILLS_ARMS),logs/claims/darsm/hills_$(arm))
claim-darsm-hills: ## CPU claim check: trained on the AR-1 duct (adjoint, seeds 3-5), tested on the alpha-1.5 hills, vs the baseline ARSM and linear EV (needs the darsm extra; 1,268 CPU-s for 9 runs measured at 92934a6: ~21 CPU-min, beyond one core's 15)
	$(foreach arm,$(DARSM_HILLS_ARMS),$(call darsm_sweep,hills_$(arm)_cpu,$(DARSM_HILLS_SEEDS),hills_$(arm)))
	$(TABLE) $(DARSM_HILLS_RUNS) --group-by setting --metric $(DARSM_HILLS_METRICS) --name hills_cpu --results experiments/darsm/RESULTS.md
	$(TABLE) $(DARSM_HILLS_RUNS) --group-by setting --metric $(DARSM_HILLS_BUBBLE) --no-curves --results experiments/darsm/RESULTS.md
	$(CLAIMS) darsm
