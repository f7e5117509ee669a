# DegBins (guided depth SR with degradation-driven bins): data, paper-scale runs, CPU claim check.
.PHONY: data-nyuv2-dsr reproduce-degbins-nyuv2-x4 reproduce-degbins-nyuv2-x8 reproduce-degbins-nyuv2-x16 \
        reproduce-degbins-nyuv2 claim-degbins claim-degbins-long degbins-degradation \
        degbins-degradation-clean degbins-noise-batch degbins-position-x16 \
        degbins-degradation-b32

DEGBINS_SEEDS ?= 0
DEGBINS_HEADS ?= degbins,degbins_regression
DEGBINS_LONG_SEEDS ?= 0,1,2,3,4,5

data-nyuv2-dsr: ## Paper scale: NYU v2 labelled .mat -> DKN/SGNet arrays + all DCTNet RawDatasets into $(DATA) (~2.9 GB download, checksummed; the claim's subset is data-depth-sr)
	$(PY) scripts/data/prepare_depth_sr.py --data-dir $(DATA)

reproduce-degbins-nyuv2-x4: ## DegBins + regression baseline, NYU v2 x4, tested on NYU/Middlebury/Lu/RGB-D-D/real (1 GPU each, W&B)
	-$(TRAIN) -m experiment=degbins/nyuv2_x4 model=$(DEGBINS_HEADS) seed=$(DEGBINS_SEEDS) paths.data_dir=$(DATA) hydra.sweep.dir=logs/reproduce/degbins/nyuv2_x4
	$(TABLE) logs/reproduce/degbins/nyuv2_x4 --group-by data.scale model --name nyuv2_x4 --results experiments/degbins/RESULTS.md

reproduce-degbins-nyuv2-x8: ## same at x8 (1 GPU each, W&B)
	-$(TRAIN) -m experiment=degbins/nyuv2_x8 model=$(DEGBINS_HEADS) seed=$(DEGBINS_SEEDS) paths.data_dir=$(DATA) hydra.sweep.dir=logs/reproduce/degbins/nyuv2_x8
	$(TABLE) logs/reproduce/degbins/nyuv2_x8 --group-by data.scale model --name nyuv2_x8 --results experiments/degbins/RESULTS.md

reproduce-degbins-nyuv2-x16: ## same at x16 (1 GPU each, W&B)
	-$(TRAIN) -m experiment=degbins/nyuv2_x16 model=$(DEGBINS_HEADS) seed=$(DEGBINS_SEEDS) paths.data_dir=$(DATA) hydra.sweep.dir=logs/reproduce/degbins/nyuv2_x16
	$(TABLE) logs/reproduce/degbins/nyuv2_x16 --group-by data.scale model --name nyuv2_x16 --results experiments/degbins/RESULTS.md

reproduce-degbins-nyuv2: reproduce-degbins-nyuv2-x4 reproduce-degbins-nyuv2-x8 reproduce-degbins-nyuv2-x16 ## all three scales (GPU group)

DEGBINS_CLAIM = $(CPU1) $(TRAIN) -m print_config=false $(DATA_OVERRIDE)
DEGBINS_CLAIM_TABLE = --group-by data.scale model.head model.stages \
  --metric test/rmse_lu test/rmse_middlebury_heldout test/gain_lu test/gain_middlebury_heldout --curve val/rmse

claim-degbins: ## CPU claim check through the trainer: bins (1/2/3 stages) vs regression, x4/x8/x16, 200 steps, 3 seeds, Lu + held-out Middlebury -> RESULTS.md block + claims (8 CPU-min on 1 thread: 488 s measured on 2026-12-01)
	-$(DEGBINS_CLAIM) experiment=degbins/claim_cpu data.scale=4,8 model.head=bins model.stages=1,2,3 seed=0,1,2 \
	  hydra.sweep.dir=logs/claims/degbins/claim_bins
	-$(DEGBINS_CLAIM) experiment=degbins/claim_cpu data.scale=16 model.head=bins model.stages=1,2,3 seed=0,1,2 \
	  hydra.sweep.dir=logs/claims/degbins/claim_bins_x16
	-$(DEGBINS_CLAIM) experiment=degbins/claim_cpu data.scale=4,8,16 model.head=regression model.stages=1 seed=0,1,2 \
	  hydra.sweep.dir=logs/claims/degbins/claim_regression
	$(TABLE) logs/claims/degbins/claim_bins logs/claims/degbins/claim_bins_x16 logs/claims/degbins/claim_regression $(DEGBINS_CLAIM_TABLE) \
	  --name claim --results experiments/degbins/RESULTS.md
	$(CLAIMS) degbins

claim-degbins-long: ## The same at x8 with 4x the steps and 2x the batch, bins (1/3 stages) vs regression, 6 seeds -> RESULTS.md block + claims (~30 CPU-min on 1 thread)
	-$(DEGBINS_CLAIM) experiment=degbins/claim_cpu_long model.head=bins model.stages=1 seed=$(DEGBINS_LONG_SEEDS) \
	  hydra.sweep.dir=logs/claims/degbins/long_bins
	-$(DEGBINS_CLAIM) experiment=degbins/claim_cpu_long model.head=bins model.stages=3 seed=$(DEGBINS_LONG_SEEDS) \
	  hydra.sweep.dir=logs/claims/degbins/long_bins3
	-$(DEGBINS_CLAIM) experiment=degbins/claim_cpu_long model.head=regression model.stages=1 seed=$(DEGBINS_LONG_SEEDS) \
	  hydra.sweep.dir=logs/claims/degbins/long_regression
	$(TABLE) logs/claims/degbins/long_bins logs/claims/degbins/long_bins3 logs/claims/degbins/long_regression $(DEGBINS_CLAIM_TABLE) \
	  --name long --results experiments/degbins/RESULTS.md
	$(CLAIMS) degbins

# The degradation ablations: test sets of every metric, and the two arms (unconditioned; FiLM + degradation loss).
DEGBINS_TEST_SETS = lu_x4_n0 lu_x8_n0 lu_x16_n0 lu_x8_n0.02 middlebury_heldout_x4_n0 middlebury_heldout_x8_n0 middlebury_heldout_x16_n0 middlebury_heldout_x8_n0.02
define degbins_ablation  # $(1) preset, $(2) run-folder prefix
	-$(DEGBINS_CLAIM) experiment=degbins/$(1) model.degradation_condition=none model.estimate_degradation=false \
	  task.degradation_loss_weight=0 seed=0,1,2 hydra.sweep.dir=logs/claims/degbins/$(2)_none
	-$(DEGBINS_CLAIM) experiment=degbins/$(1) seed=0,1,2 hydra.sweep.dir=logs/claims/degbins/$(2)_film
endef

# One table per bin statistic (and RMSE / gain) of an ablation's two arms, then its gain per seed.
define degbins_ablation_tables  # $(1) run-folder prefix, $(2) statistics
$(foreach stat,$(2),
	$(TABLE) logs/claims/degbins/$(1)_none logs/claims/degbins/$(1)_film --group-by model.degradation_condition --no-curves \
	  --digits 6 --results experiments/degbins/RESULTS.md --name $(1)_$(stat) --metric $(addprefix test/$(stat)_,$(DEGBINS_TEST_SETS)))
	$(TABLE) logs/claims/degbins/$(1)_none logs/claims/degbins/$(1)_film --group-by model.degradation_condition seed \
	  --no-curves --digits 3 --results experiments/degbins/RESULTS.md --name $(1)_gain_per_seed --metric $(addprefix test/gain_,$(DEGBINS_TEST_SETS))
endef

degbins-degradation: ## issue 14 §5 ablation: mixed-degradation training (x4/x8/x16/noisy x8), bins unconditioned vs FiLM-conditioned + degradation loss, 3 seeds; bin width/spread/entropy/range, RMSE and gain (also per seed) per degradation -> RESULTS.md blocks (~20 CPU-min on 1 thread)
	$(call degbins_ablation,claim_mixed,degradation)
	$(call degbins_ablation_tables,degradation,bin_width bin_spread bin_entropy bin_range rmse gain)

degbins-degradation-clean: ## issue 14 §5 ablation without the noisy degradation: mixed x4/x8/x16 training (LR noise alone keeps the bins at their start), unconditioned vs FiLM + degradation loss, 3 seeds; bin width/spread/entropy/range and gain (also per seed) per degradation -> RESULTS.md blocks (~9 CPU-min on 1 thread)
	$(call degbins_ablation,claim_mixed_clean,degradation_clean)
	$(call degbins_ablation_tables,degradation_clean,bin_width bin_spread bin_entropy bin_range gain)

degbins-degradation-b32: ## issue 14 §5 ablation at batch 32 (noisy x8 alone learns there): the mixed x4/x8/x16/noisy x8 training of degbins-degradation with 4x the patches per step, same 800 steps; bin spread (primary)/width/entropy/range, RMSE, gain (also per seed), degradation-estimate error per degradation, and film - none RMSE paired by seed -> RESULTS.md blocks (~25 CPU-min on 1 thread)
	$(call degbins_ablation,claim_mixed_b32,degradation_b32)
	$(call degbins_ablation_tables,degradation_b32,bin_spread bin_width bin_entropy bin_range rmse gain degradation_error)
	$(TABLE) logs/claims/degbins/degradation_b32_none logs/claims/degbins/degradation_b32_film --group-by model.degradation_condition seed \
	  --no-curves --digits 5 --results experiments/degbins/RESULTS.md --name degradation_b32_spread_per_seed \
	  --metric $(addprefix test/bin_spread_,$(DEGBINS_TEST_SETS))
	$(CLAIMS) --file experiments/degbins/degradation_b32.yaml --no-write

# Why LR noise keeps the head at bicubic (RESULTS.md, "Why the noisy runs stay at their zero start"): noisy x8 alone at the
# long budget (800 steps), bins-3 and regression at batch 8, and bins-3 at batch 32 (same steps, 4x the patches per step).
DEGBINS_NOISY = $(DEGBINS_CLAIM) experiment=degbins/claim_cpu_long data.noise_std=0.02 seed=0,1,2
DEGBINS_NOISE_RUNS = $(addprefix logs/claims/degbins/noise_batch/,b8_bins b8_regression b32_bins)

degbins-noise-batch: ## noisy x8 (LR noise 0.02 in training and test), 800 steps: bins-3 and regression at batch 8, bins-3 at batch 32, 3 seeds; gain per run and mean -> RESULTS.md blocks (~18 CPU-min on 1 thread)
	-$(DEGBINS_NOISY) model.head=bins model.stages=3 hydra.sweep.dir=logs/claims/degbins/noise_batch/b8_bins
	-$(DEGBINS_NOISY) model.head=regression model.stages=1 hydra.sweep.dir=logs/claims/degbins/noise_batch/b8_regression
	-$(DEGBINS_NOISY) model.head=bins model.stages=3 data.batch_size=32 data.patches_per_epoch=25600 \
	  hydra.sweep.dir=logs/claims/degbins/noise_batch/b32_bins
	$(TABLE) $(DEGBINS_NOISE_RUNS) --group-by data.batch_size model.head --no-curves --digits 4 --name noise_batch \
	  --metric test/rmse_lu test/rmse_middlebury_heldout test/gain_lu test/gain_middlebury_heldout --results experiments/degbins/RESULTS.md
	$(TABLE) $(DEGBINS_NOISE_RUNS) --group-by data.batch_size model.head seed --no-curves --digits 3 --name noise_batch_per_seed \
	  --metric test/gain_lu test/gain_middlebury_heldout test/bin_range_lu test/bin_entropy_lu --results experiments/degbins/RESULTS.md

# The bins head's position input r/R against the default r/s at x16 (RESULTS.md, "Pre-registered before running: position
# input r/R at x16"): the bins-3 arm of claim_bins_x16 with model.position_input=r_over_R, paired by seed with the stored
# claim_bins_x16 runs; the same arm re-run with the default r/s checks that the stored runs still reproduce on this code.
DEGBINS_POSITION_X16 = $(DEGBINS_CLAIM) experiment=degbins/claim_cpu data.scale=16 model.head=bins model.stages=3 seed=0,1,2
DEGBINS_POSITION_RUNS = logs/claims/degbins/claim_bins_x16 logs/claims/degbins/position_r_over_R

degbins-position-x16: ## x16 bins-3 with the bounded position input r/R (claim_bins_x16 settings, 3 seeds) and a re-run of the default r/s; per seed and paired against the stored r/s runs -> RESULTS.md block + printed paired intervals (~2 CPU-min on 1 thread)
	-$(DEGBINS_POSITION_X16) model.position_input=r_over_R hydra.sweep.dir=logs/claims/degbins/position_r_over_R/r_over_R
	-$(DEGBINS_POSITION_X16) model.position_input=r_over_s hydra.sweep.dir=logs/claims/degbins/position_r_over_R/r_over_s_control
	$(TABLE) $(DEGBINS_POSITION_RUNS) --where model.stages=3 --group-by model.position_input seed --no-curves --digits 4 \
	  --name position_x16_per_seed --metric test/rmse_lu test/rmse_middlebury_heldout test/gain_lu test/gain_middlebury_heldout \
	  test/bin_range_lu test/bin_entropy_lu --results experiments/degbins/RESULTS.md
	$(CLAIMS) --file experiments/degbins/position_x16.yaml --no-write
