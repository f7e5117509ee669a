# DeltaMomentum (DeltaSGD / DeltaAdamW): paper-scale runs, the CPU claim check, data, benchmark.
.PHONY: data-fineweb-edu reproduce-deltamomentum-fineweb-67m reproduce-deltamomentum-fineweb-370m \
        reproduce-deltamomentum-cifar10 claim-deltamomentum bench-deltamomentum

FINEWEB_TOKENS ?= 3000000000

data-fineweb-edu: ## Stream + GPT-2-tokenize FineWeb-Edu sample-10BT into $(DATA)/fineweb_edu (resumable; ~3B tokens, ~1 h on 16 cores, 6 GB)
	$(PY) scripts/data/prepare_fineweb_edu.py --out $(DATA)/fineweb_edu --max-tokens $(FINEWEB_TOKENS)

reproduce-deltamomentum-fineweb-67m: ## AdamW vs DeltaAdamW, Llama 67M on FineWeb-Edu, 1.4B tokens each (1 GPU, W&B; ~2×3 h on one H100)
	$(TRAIN) experiment=deltamomentum/fineweb_67m_adamw paths.data_dir=$(DATA)
	$(TRAIN) experiment=deltamomentum/fineweb_67m_delta paths.data_dir=$(DATA)

reproduce-deltamomentum-fineweb-370m: ## AdamW vs DeltaAdamW, Llama 370M on FineWeb-Edu, 7.3B tokens each (1 GPU, W&B; ~2×30 h on one H100, use device=ddp)
	$(TRAIN) experiment=deltamomentum/fineweb_370m_adamw paths.data_dir=$(DATA)
	$(TRAIN) experiment=deltamomentum/fineweb_370m_delta paths.data_dir=$(DATA)

reproduce-deltamomentum-cifar10: ## SGD-m vs DeltaSGD, ResNet-18 on CIFAR-10, 200 epochs, 3 seeds each (1 GPU, W&B; ~6×1 h)
	$(TRAIN) -m experiment=cifar10/resnet18_sgd seed=0,1,2 paths.data_dir=$(DATA)
	$(TRAIN) -m experiment=deltamomentum/cifar10_resnet18_delta_sgd seed=0,1,2 paths.data_dir=$(DATA)

claim-deltamomentum: ## CPU claim checks 1-4 (regression, tiny LM on Shakespeare + FineWeb-Edu docs, CIFAR subset, muP) -> experiments/deltamomentum/results (~13 min of one core)
	OMP_NUM_THREADS=1 $(PY) -m experiments.deltamomentum.claim
	OMP_NUM_THREADS=1 $(PY) -m experiments.deltamomentum.claim --only lm --lm-path fineweb-edu-sample150/texts.jsonl --out experiments/deltamomentum/results/lm_fineweb

bench-deltamomentum: ## DeltaAdamW/AdamW whole-step and optimizer-step time ratios + FLOP overhead (~2 min CPU)
	OMP_NUM_THREADS=1 $(PY) scripts/bench/delta_step.py
	OMP_NUM_THREADS=1 $(PY) scripts/bench/delta_step.py --d-model 256 --n-layer 4 --seq-len 128 --batch 8
