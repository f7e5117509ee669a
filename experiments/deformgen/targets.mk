# DeformGen (arXiv 2606.25939): the CPU claim check on the planar rope, the released datasets, paper scale.
.PHONY: claim-deformgen claim-deformgen-act claim-deformgen-warp table-deformgen-warp table-deformgen table-deformgen-act act-deformgen data-deformgen reproduce-deformgen-rope reproduce-deformgen-rope-act \
  reproduce-deformgen-rope-dp dp-deformgen reproduce-deformgen

DEFORMGEN_CLAIMS := logs/claims/deformgen
DEFORMGEN_SEEDS ?= 0,1,2
DEFORMGEN_METRICS := test/success_drag test/success_impulse test/success_grid test/success_mean test/n_demos \
  test/accept_rate test/fp_drag test/fp_impulse test/fp_grid
DEFORMGEN_ARMS := source smg dgstar dg noise dg_k5

# One claim sweep: $(1) the preset, $(2) the seeds, $(3) the sweep folder.
define deformgen_sweep
	-$(CPU1) $(TRAIN) -m experiment=deformgen/$(1) print_config=false trainer.enable_progress_bar=false seed=$(2) \
	  hydra.sweep.dir=$(3)

endef
# ACT as the policy: the pre-registered ACT claims read seeds 3-5 only (0-2 were an exploratory run, act-deformgen).
DEFORMGEN_ACT_SEEDS := 3,4,5
DEFORMGEN_ACT_ARMS := source dg smg
claim-deformgen: ## 1 Source / SMG* / DG* / DG / per-particle noise / DG manip_k=5 on the planar rope (MLP, seeds 0-2), closed-loop on 3 shared test sets -> RESULTS.md + claim verdicts (~40 CPU-s a run, ~12 CPU-min for 18 runs, measured at f431ebf)
	$(foreach arm,$(DEFORMGEN_ARMS),$(call deformgen_sweep,$(arm)_cpu,$(DEFORMGEN_SEEDS),$(DEFORMGEN_CLAIMS)/$(arm)))
	$(MAKE) table-deformgen
	$(CLAIMS) deformgen

claim-deformgen-act: ## The ACT claims (1 Source / DG / SMG* with ACT, seeds 3-5; 2194 CPU-s (37 CPU-min, 53 min wall on the shared machine) measured at e11ee2a: beyond one core's 15 min, so not part of claim-deformgen), their table and every verdict
	$(foreach arm,$(DEFORMGEN_ACT_ARMS),$(call deformgen_sweep,$(arm)_act_cpu,$(DEFORMGEN_ACT_SEEDS),$(DEFORMGEN_CLAIMS)/act_$(arm)))
	$(MAKE) table-deformgen-act
	$(CLAIMS) deformgen

table-deformgen: ## RESULTS.md's claim table from the finished claim runs
	$(TABLE) $(DEFORMGEN_CLAIMS) --group-by setting --metric $(DEFORMGEN_METRICS) --name claim_cpu \
	  --results experiments/deformgen/RESULTS.md

table-deformgen-act: ## RESULTS.md's ACT claim table from the finished ACT claim runs
	$(TABLE) $(DEFORMGEN_CLAIMS)/act_source $(DEFORMGEN_CLAIMS)/act_dg $(DEFORMGEN_CLAIMS)/act_smg --group-by setting \
	  --metric $(DEFORMGEN_METRICS) --name claim_act_cpu --results experiments/deformgen/RESULTS.md

# DG against its two one-seed arms as claims (per-particle noise, manip_k 5), new seeds 3-5 with DG's own runs; kept
# out of logs/claims/deformgen so the MLP claim table (seeds 0-2) does not mix them in.
DEFORMGEN_WARP := logs/claims/deformgen_warp
DEFORMGEN_WARP_ARMS := dg noise dg_k5
DEFORMGEN_WARP_SEEDS := 3,4,5
claim-deformgen-warp: ## DG (released manip_k 99999) vs DG manip_k 5 and vs per-particle noise (MLP, seeds 3-5; 9 runs of ~40 CPU-s), their table and every verdict
	$(foreach arm,$(DEFORMGEN_WARP_ARMS),$(call deformgen_sweep,$(arm)_cpu,$(DEFORMGEN_WARP_SEEDS),$(DEFORMGEN_WARP)/$(arm)))
	$(MAKE) table-deformgen-warp
	$(CLAIMS) deformgen

table-deformgen-warp: ## RESULTS.md's table of the DG / noise / DG manip_k 5 claim runs (seeds 3-5)
	$(TABLE) $(DEFORMGEN_WARP) --group-by setting --metric $(DEFORMGEN_METRICS) --name claim_warp_cpu \
	  --results experiments/deformgen/RESULTS.md

DEFORMGEN_ACT := logs/explore/deformgen_act
DEFORMGEN_MLP := logs/explore/deformgen_mlp
ACT_SEEDS ?= 0
ACT_SUBDIR := 'hydra.sweep.subdir=$${setting}_s$${seed}'  # one folder per arm and seed: a later seed never lands on an earlier one
act-deformgen: ## EXPLORATORY, no claim: ACT and the MLP as the policy on the 1 Source and DG arms (seeds ACT_SEEDS) -> two tables
	-$(CPU1) $(TRAIN) -m experiment=deformgen/source_act_cpu,deformgen/dg_act_cpu print_config=false \
	  trainer.enable_progress_bar=false seed=$(ACT_SEEDS) hydra.sweep.dir=$(DEFORMGEN_ACT) $(ACT_SUBDIR)
	-$(CPU1) $(TRAIN) -m experiment=deformgen/source_cpu,deformgen/dg_cpu print_config=false \
	  trainer.enable_progress_bar=false seed=$(ACT_SEEDS) hydra.sweep.dir=$(DEFORMGEN_MLP) $(ACT_SUBDIR)
	$(TABLE) $(DEFORMGEN_ACT) --group-by setting --metric $(DEFORMGEN_METRICS) --name act_explore \
	  --results experiments/deformgen/RESULTS.md
	$(TABLE) $(DEFORMGEN_MLP) --group-by setting --metric $(DEFORMGEN_METRICS) --name mlp_explore \
	  --results experiments/deformgen/RESULTS.md

DEFORMGEN_DP := logs/explore/deformgen_dp
DP_SEEDS ?= 0
dp-deformgen: ## EXPLORATORY, no claim: Diffusion Policy as the policy on the 1 Source and DG arms (seeds DP_SEEDS) -> a table
	-$(CPU1) $(TRAIN) -m experiment=deformgen/source_dp_cpu,deformgen/dg_dp_cpu print_config=false \
	  trainer.enable_progress_bar=false seed=$(DP_SEEDS) hydra.sweep.dir=$(DEFORMGEN_DP) $(ACT_SUBDIR)
	$(TABLE) $(DEFORMGEN_DP) --group-by setting --metric $(DEFORMGEN_METRICS) --name dp_explore \
	  --results experiments/deformgen/RESULTS.md

data-deformgen: ## Download the released rope datasets (train1000_{yawonly,txy,gridrigid}) from HF Zili2002/DeformGen-Datasets into $(DATA)/deformgen
	for mode in yawonly txy gridrigid; do \
	  $(PY) -c "import huggingface_hub as h; h.snapshot_download('Zili2002/DeformGen-Datasets', repo_type='dataset', local_dir='$(DATA)/deformgen', allow_patterns=['rope/train1000_$$mode/*'])" || exit 1; \
	done

reproduce-deformgen-rope: ## Paper scale on the released rope demos: DG / DG* / SMG* state->action policies, 3 seeds (1 GPU, W&B; held-out action MSE)
	-$(TRAIN) -m experiment=deformgen/rope_dg,deformgen/rope_dgstar,deformgen/rope_smg seed=0,1,2 \
	  paths.data_dir=$(DATA) data.download=true hydra.sweep.dir=logs/reproduce/deformgen/rope
	$(TABLE) logs/reproduce/deformgen/rope --group-by setting --metric test/action_mse --name rope_paper \
	  --results experiments/deformgen/RESULTS.md

reproduce-deformgen-rope-act: ## Paper scale with ACT (the paper's sizes) as the policy on the released rope DG demos, 3 seeds (1 GPU, W&B; held-out first-action MSE, comparable with the MLP's)
	-$(TRAIN) -m experiment=deformgen/rope_dg_act seed=0,1,2 \
	  paths.data_dir=$(DATA) data.download=true hydra.sweep.dir=logs/reproduce/deformgen/rope_act
	$(TABLE) logs/reproduce/deformgen/rope_act --group-by setting --metric test/action_mse test/chunk_l1 --name rope_act_paper \
	  --results experiments/deformgen/RESULTS.md

reproduce-deformgen-rope-dp: ## Paper scale with Diffusion Policy (the paper's CNN config) as the policy on the released rope DG demos, 3 seeds (1 GPU, W&B; held-out MSE of the current frame's denoised action, comparable with the MLP's)
	-$(TRAIN) -m experiment=deformgen/rope_dg_dp seed=0,1,2 \
	  paths.data_dir=$(DATA) data.download=true hydra.sweep.dir=logs/reproduce/deformgen/rope_dp
	$(TABLE) logs/reproduce/deformgen/rope_dp --group-by setting --metric test/action_mse test/chunk_l1 --name rope_dp_paper \
	  --results experiments/deformgen/RESULTS.md

reproduce-deformgen: reproduce-deformgen-rope reproduce-deformgen-rope-act reproduce-deformgen-rope-dp ## every paper-scale setting (GPU group)
