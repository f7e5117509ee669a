# APT (MTL weightings x {Adam, Muon} x {plain, APT}): data, paper-scale multiruns, CPU claim check, benchmark.
.PHONY: data-apt-nyuv2 data-apt-cityscapes data-apt-celeba data-apt-qm9 reproduce-apt-nyuv2 reproduce-apt-cityscapes \
        reproduce-apt-celeba reproduce-apt-qm9 claim-apt bench-apt

# Override on the command line, e.g. `make reproduce-apt-nyuv2 APT_METHODS=ew,pcgrad APT_SEEDS=0`.
APT_METHODS ?= ew,uw,dwa,rlw,gradnorm,mgda,pcgrad,gradvac,graddrop,imtl,cagrad,nashmtl,alignedmtl,famo,dbmtl,fairgrad
APT_OPTIMIZERS ?= adam,apt_adam,muon,apt_muon
APT_SEEDS ?= 0,1,2
APT_SWEEP = task.weighting=$(APT_METHODS) optimizer=$(APT_OPTIMIZERS) seed=$(APT_SEEDS) paths.data_dir=$(DATA)

data-apt-nyuv2: ## MTAN pre-processed NYUv2 into $(DATA)/nyuv2 + MANIFEST.sha256 (~3 GB download)
	$(PY) scripts/data/prepare_nyuv2_mtl.py --data-dir $(DATA)

data-apt-cityscapes: ## MTAN pre-processed Cityscapes: needs ARCHIVE=<zip from the MTAN README>
	$(PY) scripts/data/prepare_cityscapes_mtl.py --data-dir $(DATA) --archive $(ARCHIVE)

data-apt-celeba: ## CelebA via torchvision (MD5-checked; ~1.4 GB)
	$(PY) scripts/data/prepare_celeba.py --data-dir $(DATA)

data-apt-qm9: ## QM9 via PyTorch Geometric (~0.5 GB, ~10 min processing)
	$(PY) scripts/data/prepare_qm9.py --data-dir $(DATA)

reproduce-apt-nyuv2: ## 16 methods x {adam,apt_adam,muon,apt_muon} x 3 seeds, SegNet-MTAN 200 epochs (1 GPU each, W&B)
	-$(TRAIN) -m experiment=apt/nyuv2 $(APT_SWEEP) hydra.sweep.dir=logs/reproduce/apt/nyuv2
	$(TABLE) logs/reproduce/apt/nyuv2 --group-by task.weighting optimizer --name nyuv2 --results experiments/apt/RESULTS.md

reproduce-apt-cityscapes: ## same grid on Cityscapes seg/depth, SegNet-MTAN 200 epochs (1 GPU each, W&B)
	-$(TRAIN) -m experiment=apt/cityscapes $(APT_SWEEP) hydra.sweep.dir=logs/reproduce/apt/cityscapes
	$(TABLE) logs/reproduce/apt/cityscapes --group-by task.weighting optimizer --name cityscapes --results experiments/apt/RESULTS.md

reproduce-apt-celeba: ## same grid on CelebA 40 attributes, ResNet-18, 15 epochs (1 GPU each, W&B; gradient methods pay 40 backward passes)
	-$(TRAIN) -m experiment=apt/celeba $(APT_SWEEP) hydra.sweep.dir=logs/reproduce/apt/celeba
	$(TABLE) logs/reproduce/apt/celeba --group-by task.weighting optimizer --name celeba --results experiments/apt/RESULTS.md

reproduce-apt-qm9: ## same grid on QM9 11 targets, MPNN 300 epochs (1 GPU each, W&B)
	-$(TRAIN) -m experiment=apt/qm9 $(APT_SWEEP) hydra.sweep.dir=logs/reproduce/apt/qm9
	$(TABLE) logs/reproduce/apt/qm9 --group-by task.weighting optimizer --name qm9 --results experiments/apt/RESULTS.md

APT_CLAIM_WEIGHTINGS ?= ew,pcgrad,mgda,imtl,dbmtl,alignedmtl,rlw,famo
APT_CLAIM_SEEDS ?= 0,1,2
APT_CLAIM_NEXT = -m print_config=false $(DATA_OVERRIDE)
APT_CLAIM = $(CPU1) $(TRAIN) $(APT_CLAIM_NEXT)
APT_CLAIM_TABLE = $(TABLE) logs/claims/apt/mtl logs/claims/apt/stl_synthetic logs/claims/apt/stl_digits logs/claims/apt/stl_enb --group-by task.single_task task.weighting optimizer --no-curves \
  --results experiments/apt/RESULTS.md

claim-apt: ## CPU claim check through the trainer: 8 weightings x {adam,apt_adam,muon,apt_muon} x 3 seeds on synthetic/digits/ENB2012 + single-task runs -> RESULTS.md blocks + claims (~7.3 CPU-min: 430 s user + 8 s sys at 5027fe6 on 2026-12-07, JOBS=2)
	-$(APT_CLAIM) experiment=apt/claim_synthetic task.single_task=task0,task1 optimizer=adam,muon seed=$(APT_CLAIM_SEEDS) hydra.sweep.dir=logs/claims/apt/stl_synthetic \
	  --next $(APT_CLAIM_NEXT) experiment=apt/claim_digits task.single_task=left,right optimizer=adam,muon seed=$(APT_CLAIM_SEEDS) hydra.sweep.dir=logs/claims/apt/stl_digits \
	  --next $(APT_CLAIM_NEXT) experiment=apt/claim_enb task.single_task=heating,cooling optimizer=adam,muon seed=$(APT_CLAIM_SEEDS) hydra.sweep.dir=logs/claims/apt/stl_enb \
	  --next $(APT_CLAIM_NEXT) task.weighting=$(APT_CLAIM_WEIGHTINGS) experiment=apt/claim_synthetic,apt/claim_digits,apt/claim_enb \
	  optimizer=adam,apt_adam,muon,apt_muon seed=$(APT_CLAIM_SEEDS) hydra.sweep.dir=logs/claims/apt/mtl
	$(APT_CLAIM_TABLE) --where setting=claim_synthetic --metric test/task0 test/task1 test/delta_m_own_stl train/update_share train/momentum_input_share --name claim_synthetic
	$(APT_CLAIM_TABLE) --where setting=claim_digits --metric test/left_acc test/right_acc test/delta_m_own_stl train/update_share train/momentum_input_share --name claim_digits
	$(APT_CLAIM_TABLE) --where setting=claim_enb --metric test/heating test/cooling test/delta_m_own_stl train/update_share train/momentum_input_share --name claim_enb
	$(CLAIMS) apt

apt-share: ## the update-share diagnostic (issue 14 §4): EW/PCGrad x {adam,apt_adam,muon,apt_muon} x 3 seeds on ENB2012, logged every 5 steps -> RESULTS.md block (~45 CPU-s on 1 thread)
	-$(APT_CLAIM) experiment=apt/claim_enb task.weighting=ew,pcgrad optimizer=adam,apt_adam,muon,apt_muon seed=$(APT_CLAIM_SEEDS) \
	  trainer.log_every_n_steps=5 hydra.sweep.dir=logs/claims/apt/share
	$(TABLE) logs/claims/apt/share --group-by task.weighting optimizer --metric train/update_share_mean \
	  train/momentum_input_share_mean test/heating test/cooling --no-curves --name share_enb --results experiments/apt/RESULTS.md

bench-apt: ## EW / PCGrad / CAGrad / Nash-MTL step time vs T backward passes + one step (~3 min CPU)
	OMP_NUM_THREADS=1 $(PY) scripts/bench/mtl_overhead.py --model mlp
	OMP_NUM_THREADS=1 $(PY) scripts/bench/mtl_overhead.py --model mtan --batch 2 --reps 10
