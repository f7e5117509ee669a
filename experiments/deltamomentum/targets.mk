# DeltaMomentum (DeltaSGD / DeltaAdamW): paper-scale runs, the CPU claim check, data, benchmark.
.PHONY: data-fineweb-edu reproduce-deltamomentum-fineweb-67m reproduce-deltamomentum-fineweb-370m \
        reproduce-deltamomentum-cifar10 claim-deltamomentum bench-deltamomentum table-deltamomentum

FINEWEB_TOKENS ?= 3000000000

data-fineweb-edu: ## Stream + GPT-2-tokenize FineWeb-Edu sample-10BT into $(DATA)/fineweb_edu (resumable; ~3B tokens, ~1 h on 16 cores, 6 GB)
	$(PY) scripts/data/prepare_fineweb_edu.py --out $(DATA)/fineweb_edu --max-tokens $(FINEWEB_TOKENS)

reproduce-deltamomentum-fineweb-67m: ## AdamW vs DeltaAdamW, Llama 67M on FineWeb-Edu, 1.4B tokens each (1 GPU, W&B; ~2×3 h on one H100)
	-$(TRAIN) experiment=deltamomentum/fineweb_67m_adamw paths.data_dir=$(DATA) hydra.run.dir=logs/reproduce/deltamomentum/fineweb_67m/adamw
	-$(TRAIN) experiment=deltamomentum/fineweb_67m_delta paths.data_dir=$(DATA) hydra.run.dir=logs/reproduce/deltamomentum/fineweb_67m/delta
	$(TABLE) logs/reproduce/deltamomentum/fineweb_67m --group-by optimizer --name fineweb_67m --results experiments/deltamomentum/RESULTS.md --curve val/loss

reproduce-deltamomentum-fineweb-370m: ## AdamW vs DeltaAdamW, Llama 370M on FineWeb-Edu, 7.3B tokens each (1 GPU, W&B; ~2×30 h on one H100, use device=ddp)
	-$(TRAIN) experiment=deltamomentum/fineweb_370m_adamw paths.data_dir=$(DATA) hydra.run.dir=logs/reproduce/deltamomentum/fineweb_370m/adamw
	-$(TRAIN) experiment=deltamomentum/fineweb_370m_delta paths.data_dir=$(DATA) hydra.run.dir=logs/reproduce/deltamomentum/fineweb_370m/delta
	$(TABLE) logs/reproduce/deltamomentum/fineweb_370m --group-by optimizer --name fineweb_370m --results experiments/deltamomentum/RESULTS.md --curve val/loss

reproduce-deltamomentum-cifar10: ## SGD-m vs DeltaSGD, ResNet-18 on CIFAR-10, 200 epochs, 3 seeds each (1 GPU, W&B; ~6×1 h)
	-$(TRAIN) -m experiment=cifar10/resnet18_sgd seed=0,1,2 paths.data_dir=$(DATA) hydra.sweep.dir=logs/reproduce/deltamomentum/cifar10/sgd
	-$(TRAIN) -m experiment=deltamomentum/cifar10_resnet18_delta_sgd seed=0,1,2 paths.data_dir=$(DATA) hydra.sweep.dir=logs/reproduce/deltamomentum/cifar10/delta_sgd
	$(TABLE) logs/reproduce/deltamomentum/cifar10 --group-by optimizer --name cifar10 --results experiments/deltamomentum/RESULTS.md --metric test/acc test/loss val/steps_saved_pct

claim-deltamomentum: ## CPU claim checks 1-4 (regression, tiny LM on Shakespeare + FineWeb-Edu docs, CIFAR subset, muP) -> experiments/deltamomentum/results (~13 min of one core)
	OMP_NUM_THREADS=1 $(PY) -m experiments.deltamomentum.claim
	OMP_NUM_THREADS=1 $(PY) -m experiments.deltamomentum.claim --only lm --lm-path fineweb-edu-sample150/texts.jsonl --out experiments/deltamomentum/results/lm_fineweb

bench-deltamomentum: ## DeltaAdamW/AdamW whole-step and optimizer-step time ratios + FLOP overhead (~2 min CPU)
	OMP_NUM_THREADS=1 $(PY) scripts/bench/delta_step.py
	OMP_NUM_THREADS=1 $(PY) scripts/bench/delta_step.py --d-model 256 --n-layer 4 --seq-len 128 --batch 8
table-deltamomentum: ## Trainer-path tables: tiny LM AdamW vs DeltaAdamW over a 4-point lr grid (steps saved at equal and at best lr) and CIFAR subset SGD-m vs DeltaSGD, 3 seeds -> RESULTS.md blocks (~50 min of one core)
	-$(CPU1) $(TRAIN) -m experiment=deltamomentum/lm_tiny_adamw,deltamomentum/lm_tiny_delta optimizer.lr=1e-3,3e-3,1e-2,3e-2 seed=0,1,2 trainer.val_check_interval=20 \
	  print_config=false paths.data_dir=$(or $(SHARED_DATA),../shared/data) hydra.sweep.dir=logs/tables/deltamomentum/lm_tiny
	$(TABLE) logs/tables/deltamomentum/lm_tiny --group-by optimizer optimizer.lr \
	  --metric best/val/loss val/steps_saved_pct val/steps_saved_best_lr_pct --curve val/loss --name lm_tiny --results experiments/deltamomentum/RESULTS.md
	-$(CPU1) $(TRAIN) -m experiment=cifar10/small_sgd_cpu,deltamomentum/cifar10_small_delta_sgd_cpu seed=0,1,2 \
	  print_config=false paths.data_dir=$(or $(SHARED_DATA),../shared/data)/cifar10-jpeg-subset hydra.sweep.dir=logs/tables/deltamomentum/cifar_small
	$(TABLE) logs/tables/deltamomentum/cifar_small --group-by optimizer \
	  --metric test/acc test/loss val/steps_saved_pct --curve val/loss --name cifar_small --results experiments/deltamomentum/RESULTS.md
