# DegBins (guided depth SR with degradation-driven bins): data, paper-scale runs, CPU claim check.
.PHONY: data-depth-sr reproduce-degbins-nyuv2-x4 reproduce-degbins-nyuv2-x8 reproduce-degbins-nyuv2-x16 \
        reproduce-degbins-nyuv2 claim-degbins claim-degbins-long table-degbins table-degbins-long

DEGBINS_SEEDS ?= 0
DEGBINS_HEADS ?= degbins,degbins_regression
DEGBINS_LONG_SEEDS ?= 0,1,2,3,4,5

data-depth-sr: ## NYU v2 labelled .mat -> DKN/SGNet arrays + DCTNet RawDatasets into $(DATA) (~2.9 GB download, checksummed)
	$(PY) scripts/data/prepare_depth_sr.py --data-dir $(DATA)

reproduce-degbins-nyuv2-x4: ## DegBins + regression baseline, NYU v2 x4, tested on NYU/Middlebury/Lu/RGB-D-D/real (1 GPU each, W&B; est. ~10 h per run)
	-$(TRAIN) -m experiment=degbins/nyuv2_x4 model=$(DEGBINS_HEADS) seed=$(DEGBINS_SEEDS) paths.data_dir=$(DATA) hydra.sweep.dir=logs/reproduce/degbins/nyuv2_x4
	$(TABLE) logs/reproduce/degbins/nyuv2_x4 --group-by data.scale model --name nyuv2_x4 --results experiments/degbins/RESULTS.md

reproduce-degbins-nyuv2-x8: ## same at x8 (1 GPU each, W&B; est. ~10 h per run)
	-$(TRAIN) -m experiment=degbins/nyuv2_x8 model=$(DEGBINS_HEADS) seed=$(DEGBINS_SEEDS) paths.data_dir=$(DATA) hydra.sweep.dir=logs/reproduce/degbins/nyuv2_x8
	$(TABLE) logs/reproduce/degbins/nyuv2_x8 --group-by data.scale model --name nyuv2_x8 --results experiments/degbins/RESULTS.md

reproduce-degbins-nyuv2-x16: ## same at x16 (1 GPU each, W&B; est. ~10 h per run)
	-$(TRAIN) -m experiment=degbins/nyuv2_x16 model=$(DEGBINS_HEADS) seed=$(DEGBINS_SEEDS) paths.data_dir=$(DATA) hydra.sweep.dir=logs/reproduce/degbins/nyuv2_x16
	$(TABLE) logs/reproduce/degbins/nyuv2_x16 --group-by data.scale model --name nyuv2_x16 --results experiments/degbins/RESULTS.md

reproduce-degbins-nyuv2: reproduce-degbins-nyuv2-x4 reproduce-degbins-nyuv2-x8 reproduce-degbins-nyuv2-x16 ## all three scales (GPU group)

claim-degbins: ## CPU claim check: bins (1/2/3 stages) vs regression vs bicubic, Lu + held-out Middlebury, x4/x8/x16, 3 seeds (~10 CPU-min on 1 thread; ~25 min wall on a busy box); results in logs/claim-degbins
	OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 $(PY) -m experiments.degbins.claim --out logs/claim-degbins
	$(PY) -m experiments.degbins.report logs/claim-degbins

claim-degbins-long: ## CPU claim check with 4x steps and 2x batch at x8, all heads, 3 seeds (~22 min wall, 1 thread); results in logs/claim-degbins-long
	OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 $(PY) -m experiments.degbins.claim --out logs/claim-degbins-long --scales 8 --steps 800 --batch-size 8
	$(PY) -m experiments.degbins.report logs/claim-degbins-long
table-degbins: ## Trainer-path table with the claim protocol: x8, bins (1/2/3 stages) vs regression, 200 steps, 3 seeds, Lu + held-out Middlebury -> RESULTS.md block (~5 min of one core)
	-$(CPU1) $(TRAIN) -m experiment=degbins/claim_cpu model.head=bins model.stages=1,2,3 seed=0,1,2 \
	  print_config=false paths.data_dir=$(or $(SHARED_DATA),../shared/data) hydra.sweep.dir=logs/tables/degbins/x8_bins
	-$(CPU1) $(TRAIN) -m experiment=degbins/claim_cpu model.head=regression model.stages=1 seed=0,1,2 \
	  print_config=false paths.data_dir=$(or $(SHARED_DATA),../shared/data) hydra.sweep.dir=logs/tables/degbins/x8_regression
	$(TABLE) logs/tables/degbins/x8_bins logs/tables/degbins/x8_regression --group-by data.scale model.head model.stages \
	  --metric test/rmse_lu test/rmse_middlebury_heldout test/gain_lu test/gain_middlebury_heldout --curve val/rmse --name x8 --results experiments/degbins/RESULTS.md
table-degbins-long: ## The same with claim-degbins-long's budget: 800 steps of batch 8, bins (1/3 stages) vs regression, 6 seeds -> RESULTS.md block (~30 min of one core)
	-$(CPU1) $(TRAIN) -m experiment=degbins/claim_cpu model.head=bins model.stages=1,3 seed=$(DEGBINS_LONG_SEEDS) data.batch_size=8 \
	  data.patches_per_epoch=6400 print_config=false paths.data_dir=$(or $(SHARED_DATA),../shared/data) hydra.sweep.dir=logs/tables/degbins/x8_long_bins
	-$(CPU1) $(TRAIN) -m experiment=degbins/claim_cpu model.head=regression model.stages=1 seed=$(DEGBINS_LONG_SEEDS) data.batch_size=8 \
	  data.patches_per_epoch=6400 print_config=false paths.data_dir=$(or $(SHARED_DATA),../shared/data) hydra.sweep.dir=logs/tables/degbins/x8_long_regression
	$(TABLE) logs/tables/degbins/x8_long_bins logs/tables/degbins/x8_long_regression --group-by data.scale model.head model.stages \
	  --metric test/rmse_lu test/rmse_middlebury_heldout test/gain_lu test/gain_middlebury_heldout --curve val/rmse --name x8_long --results experiments/degbins/RESULTS.md
