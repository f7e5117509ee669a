# DeltaMomentum (DeltaSGD / DeltaAdamW): paper-scale runs, the CPU claim check, data, benchmark.
.PHONY: data-fineweb-edu reproduce-deltamomentum-fineweb-67m reproduce-deltamomentum-fineweb-370m \
        reproduce-deltamomentum-cifar10 claim-deltamomentum bench-deltamomentum bench-deltamomentum-67m \
        table-deltamomentum \
        figures-deltamomentum claim-deltamomentum-drift claim-deltamomentum-ablation claim-deltamomentum-tuned

FINEWEB_TOKENS ?= 3000000000

data-fineweb-edu: ## Stream + GPT-2-tokenize FineWeb-Edu sample-10BT into $(DATA)/fineweb_edu (resumable; ~3B tokens, ~1 h on 16 cores, 6 GB)
	$(PY) scripts/data/prepare_fineweb_edu.py --out $(DATA)/fineweb_edu --max-tokens $(FINEWEB_TOKENS)

reproduce-deltamomentum-fineweb-67m: ## AdamW vs DeltaAdamW, Llama 67M on FineWeb-Edu, 1.4B tokens each (1 GPU, W&B)
	-$(TRAIN) experiment=deltamomentum/fineweb_67m_adamw paths.data_dir=$(DATA) hydra.run.dir=logs/reproduce/deltamomentum/fineweb_67m/adamw
	-$(TRAIN) experiment=deltamomentum/fineweb_67m_delta paths.data_dir=$(DATA) hydra.run.dir=logs/reproduce/deltamomentum/fineweb_67m/delta
	$(TABLE) logs/reproduce/deltamomentum/fineweb_67m --group-by optimizer --name fineweb_67m --results experiments/deltamomentum/RESULTS.md --curve val/loss

reproduce-deltamomentum-fineweb-370m: ## AdamW vs DeltaAdamW, Llama 370M on FineWeb-Edu, 7.3B tokens each (1 GPU, W&B; use device=ddp)
	-$(TRAIN) experiment=deltamomentum/fineweb_370m_adamw paths.data_dir=$(DATA) hydra.run.dir=logs/reproduce/deltamomentum/fineweb_370m/adamw
	-$(TRAIN) experiment=deltamomentum/fineweb_370m_delta paths.data_dir=$(DATA) hydra.run.dir=logs/reproduce/deltamomentum/fineweb_370m/delta
	$(TABLE) logs/reproduce/deltamomentum/fineweb_370m --group-by optimizer --name fineweb_370m --results experiments/deltamomentum/RESULTS.md --curve val/loss

reproduce-deltamomentum-cifar10: ## SGD-m vs DeltaSGD, ResNet-18 on CIFAR-10, 200 epochs, 3 seeds each (1 GPU, W&B)
	-$(TRAIN) -m experiment=cifar10/resnet18_sgd seed=0,1,2 paths.data_dir=$(DATA) hydra.sweep.dir=logs/reproduce/deltamomentum/cifar10/sgd
	-$(TRAIN) -m experiment=deltamomentum/cifar10_resnet18_delta_sgd seed=0,1,2 paths.data_dir=$(DATA) hydra.sweep.dir=logs/reproduce/deltamomentum/cifar10/delta_sgd
	$(TABLE) logs/reproduce/deltamomentum/cifar10 --group-by optimizer --name cifar10 --results experiments/deltamomentum/RESULTS.md --metric test/acc test/loss val/steps_saved_pct

DM_RUNS := logs/claims/deltamomentum
DM_TABLE := $(TABLE) --results experiments/deltamomentum/RESULTS.md

claim-deltamomentum: ## CPU claims 1-4 through reprolab-train (regression steps-to-target, with a drifting target too, tiny LM on TinyShakespeare + FineWeb-Edu docs, CIFAR subset, muP coordinate check), 3 seeds -> RESULTS.md blocks + verdicts
	-$(CPU1) $(TRAIN) -m experiment=deltamomentum/regression_sgdm,deltamomentum/regression_delta_sgd optimizer.lr=0.02,0.05,0.1,0.2,0.5,1.0,2.0,4.0 seed=0,1,2 hydra.sweep.dir=$(DM_RUNS)/regression_sgd
	-$(CPU1) $(TRAIN) -m experiment=deltamomentum/regression_adamw,deltamomentum/regression_delta_adamw optimizer.lr=0.003,0.01,0.03,0.1,0.3,1.0 seed=0,1,2 hydra.sweep.dir=$(DM_RUNS)/regression_adam
	-$(CPU1) $(TRAIN) -m experiment=deltamomentum/lm_tiny_adamw,deltamomentum/lm_tiny_delta optimizer.lr=1e-3,3e-3,1e-2,3e-2 seed=0,1,2 hydra.sweep.dir=$(DM_RUNS)/lm_tiny
	-$(CPU1) $(TRAIN) -m experiment=deltamomentum/lm_fineweb_adamw,deltamomentum/lm_fineweb_delta optimizer.lr=1e-3,3e-3,1e-2,3e-2 seed=0,1,2 hydra.sweep.dir=$(DM_RUNS)/lm_fineweb
	-$(CPU1) $(TRAIN) -m experiment=deltamomentum/cifar_small_sgd,deltamomentum/cifar_small_delta_sgd seed=0,1,2 hydra.sweep.dir=$(DM_RUNS)/cifar_small
	-$(CPU1) $(TRAIN) -m experiment=deltamomentum/mup_coord_check model.d_model=32,64,128,256,512 optimizer.eta=0,0.25,0.5,1 hydra.sweep.dir=$(DM_RUNS)/mup
	$(MAKE) claim-deltamomentum-drift
	$(MAKE) table-deltamomentum
	$(CLAIMS) deltamomentum

table-deltamomentum: ## RESULTS.md blocks from the runs of claim-deltamomentum (no training)
	$(DM_TABLE) $(DM_RUNS)/regression_sgd --group-by optimizer optimizer.lr --metric val/steps_to_target --no-curves --name regression_sgd
	$(DM_TABLE) $(DM_RUNS)/regression_adam --group-by optimizer optimizer.lr --metric val/steps_to_target --no-curves --name regression_adam
	$(DM_TABLE) $(DM_RUNS)/lm_tiny --group-by optimizer optimizer.lr --metric val/loss val/steps_saved_pct val/steps_saved_best_lr_pct --curve val/loss --name lm_tiny
	$(DM_TABLE) $(DM_RUNS)/lm_fineweb --group-by optimizer optimizer.lr --metric val/loss val/steps_saved_pct val/steps_saved_best_lr_pct --curve val/loss --name lm_fineweb
	$(DM_TABLE) $(DM_RUNS)/cifar_small --group-by optimizer --metric test/acc test/loss val/steps_saved_pct --curve val/loss --name cifar_small
	$(DM_TABLE) $(DM_RUNS)/mup --group-by model.d_model optimizer.eta --metric coord/h0 coord/dh coord/dlogits coord/lmax_hidden coord/max_abs_log2_ratio val/loss --no-curves --name mup

# ++: data.stream exists only once the swept preset is composed (Hydra checks overrides before the sweep)
DM_DRIFT := ++data.stream.drift=0.002
DM_ABL := $(DM_RUNS)/lm_tiny_ablation
DM_ABL_SWEEP := optimizer.lr=1e-2 seed=0,1,2

claim-deltamomentum-drift: ## (part of claim-deltamomentum) Claim 1 with a drifting target (w* a random walk, data.stream.drift=0.002): same presets, lr grids, seeds -> RESULTS.md blocks + verdicts
	-$(CPU1) $(TRAIN) -m experiment=deltamomentum/regression_sgdm,deltamomentum/regression_delta_sgd $(DM_DRIFT) optimizer.lr=0.02,0.05,0.1,0.2,0.5,1.0,2.0,4.0 seed=0,1,2 hydra.sweep.dir=$(DM_RUNS)/regression_drift_sgd
	-$(CPU1) $(TRAIN) -m experiment=deltamomentum/regression_adamw,deltamomentum/regression_delta_adamw $(DM_DRIFT) optimizer.lr=0.003,0.01,0.03,0.1,0.3,1.0 seed=0,1,2 hydra.sweep.dir=$(DM_RUNS)/regression_drift_adam
	$(DM_TABLE) $(DM_RUNS)/regression_drift_sgd --group-by optimizer optimizer.lr --metric val/steps_to_target --no-curves --name regression_drift_sgd
	$(DM_TABLE) $(DM_RUNS)/regression_drift_adam --group-by optimizer optimizer.lr --metric val/steps_to_target --no-curves --name regression_drift_adam
	$(CLAIMS) deltamomentum

claim-deltamomentum-ablation: ## Exploratory (no claim): DeltaAdamW's open choices on the tiny LM (η 0.25/0.5/1, gated, κ = 1−β+η, eta_scale=trace) vs AdamW, TinyShakespeare, lr 1e-2, 3 seeds
	-$(CPU1) $(TRAIN) -m experiment=deltamomentum/lm_tiny_adamw $(DM_ABL_SWEEP) hydra.sweep.dir=$(DM_ABL)/adamw
	-$(CPU1) $(TRAIN) -m experiment=deltamomentum/lm_tiny_delta optimizer.eta=0.25,0.5,1.0 $(DM_ABL_SWEEP) hydra.sweep.dir=$(DM_ABL)/eta
	-$(CPU1) $(TRAIN) -m experiment=deltamomentum/lm_tiny_delta optimizer.gated=true $(DM_ABL_SWEEP) hydra.sweep.dir=$(DM_ABL)/gated
	-$(CPU1) $(TRAIN) -m experiment=deltamomentum/lm_tiny_delta optimizer.kappa=1-beta+eta $(DM_ABL_SWEEP) hydra.sweep.dir=$(DM_ABL)/kappa
	-$(CPU1) $(TRAIN) -m experiment=deltamomentum/lm_tiny_delta optimizer.eta_scale=trace $(DM_ABL_SWEEP) hydra.sweep.dir=$(DM_ABL)/trace
	$(DM_TABLE) $(DM_ABL) --group-by optimizer optimizer.eta optimizer.gated optimizer.kappa optimizer.eta_scale --metric val/loss val/steps_saved_pct --no-curves --name lm_tiny_ablation

figures-deltamomentum: ## Analyses that are not training: muP coordinate figure from the runs, memory-horizon impulse response (composes experiment=deltamomentum/horizons)
	$(CPU1) $(PY) -m experiments.deltamomentum.coord_check $(DM_RUNS)/mup
	$(CPU1) $(PY) -m experiments.deltamomentum.horizons

bench-deltamomentum: ## DeltaAdamW/AdamW per-step CPU-time overhead vs the analytic FLOP one at three shapes, with its spread over rounds (~3 min CPU)
	OMP_NUM_THREADS=1 $(PY) scripts/bench/delta_step.py --shape 64,2,64,16 --shape 128,2,64,8 --shape 256,4,128,8

bench-deltamomentum-67m: ## The same at the 67M preset's real shapes (full model, 1x1024-token micro-batches, fp32 CPU, ~3 GB, ~8 min CPU), composed at 524,288 tokens/step
	OMP_NUM_THREADS=1 $(PY) scripts/bench/delta_step.py --preset fineweb_67m --steps 4 --rounds 7 --warmup 2

# Claim 2 under an equal tuning budget (issue 36; README, "Claim 2, tuned"): one Optuna TPE study per optimizer over
# the same space (conf/hparams_search/deltamomentum_lm_tiny.yaml: lr, beta2, warm-up, weight decay), the same
# sampler seed and DM_TRIALS trials, on tuning seed DM_TUNE_SEED; then each study's best trial on the evaluation
# seeds, and the trivial arm (eta 0 at DeltaAdamW's tuned config) beside it. A rerun adds no trial (tuning fill).
DM_TUNE := $(DM_RUNS)/lm_tiny_tune
DM_TRIALS := 40
DM_TUNE_SEED := 100
DM_EVAL_SEEDS := 0,1,2,3,4
DM_TUNING := $(CPU1) $(VENV)/bin/reprolab-tune

claim-deltamomentum-tuned: ## Claim 2 with equal tuning (beside claim-deltamomentum, not in it): TPE 40 trials each for AdamW and DeltaAdamW over lr, beta2, warm-up, wd on seed 100, then the best of each (+ eta 0 trivial arm) on seeds 0-4 -> RESULTS.md block + verdicts (14.2 CPU-min measured, 95 runs)
	-$(DM_TUNING) fill $(DM_TUNE)/adamw/study.db --trials $(DM_TRIALS) -- $(TRAIN) -m experiment=deltamomentum/lm_tiny_adamw hparams_search=deltamomentum_lm_tiny seed=$(DM_TUNE_SEED)
	-$(DM_TUNING) fill $(DM_TUNE)/delta/study.db --trials $(DM_TRIALS) -- $(TRAIN) -m experiment=deltamomentum/lm_tiny_delta hparams_search=deltamomentum_lm_tiny seed=$(DM_TUNE_SEED)
	-$(DM_TUNING) best $(DM_TUNE)/adamw/study.db --trials $(DM_TRIALS) -- $(TRAIN) -m experiment=deltamomentum/lm_tiny_adamw seed=$(DM_EVAL_SEEDS) hydra.sweep.dir=$(DM_RUNS)/lm_tiny_tuned/adamw
	-$(DM_TUNING) best $(DM_TUNE)/delta/study.db --trials $(DM_TRIALS) -- $(TRAIN) -m experiment=deltamomentum/lm_tiny_delta optimizer.eta=0.5,0.0 seed=$(DM_EVAL_SEEDS) hydra.sweep.dir=$(DM_RUNS)/lm_tiny_tuned/delta
	$(DM_TABLE) $(DM_RUNS)/lm_tiny_tuned --group-by optimizer optimizer.eta --metric val/loss val/steps_saved_tuned_pct --curve val/loss --name lm_tiny_tuned
	$(CLAIMS) deltamomentum
