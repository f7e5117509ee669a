# Deep Minds and Shallow Probes: the CPU claim check and the paper-scale (MNIST, GPU) transfer.
.PHONY: claim-probes reproduce-probes-mnist-transfer

PROBES_CLAIMS := logs/claims/probes
PROBES_SWEEP := print_config=false trainer.enable_progress_bar=false
PROBES_SUBDIR := 'hydra.sweep.subdir=$${setting}_seed$${seed}'

claim-probes: ## Probe hierarchy vs controls (CART trees, L1, ReLU features) on synthetic representations under affine maps, two digits MLPs, monitor transfer through the probe-visible quotient vs full-state ridge/Procrustes/CCA and the labelled oracle (3 seeds), and between wide MLPs (2×1024, 2×768) vs full-state ridge with alpha by leave-one-out (5 seeds), trainer sweeps -> RESULTS.md + claim verdicts (~6.8 CPU-min: 387 s user + 22 s sys at 5027fe6 on 2026-12-07, JOBS=2)
	-$(CPU1) $(TRAIN) -m experiment=probes/synthetic_cpu data.task=xor,circle,parity model=probe_linear,probe_quadratic,probe_cp \
	  data.affine=true seed=0,1,2 $(PROBES_SWEEP) hydra.sweep.dir=$(PROBES_CLAIMS)/tasks
	-$(CPU1) $(TRAIN) -m experiment=probes/synthetic_cpu data.task=halfspace model=probe_linear,probe_l1,probe_relu \
	  data.affine=false,true seed=0,1,2 $(PROBES_SWEEP) hydra.sweep.dir=$(PROBES_CLAIMS)/invariance_halfspace
	-$(CPU1) $(TRAIN) -m experiment=probes/synthetic_cpu data.task=circle model=probe_quadratic,probe_cp,probe_relu \
	  data.affine=false,true seed=0,1,2 $(PROBES_SWEEP) hydra.sweep.dir=$(PROBES_CLAIMS)/invariance_circle
	-$(CPU1) $(TRAIN) -m experiment=probes/synthetic_tree_cpu data.task=circle data.affine=false,true seed=0,1,2 \
	  $(PROBES_SWEEP) hydra.sweep.dir=$(PROBES_CLAIMS)/invariance_circle_tree
	-$(CPU1) $(TRAIN) -m experiment=probes/digits_source_a_cpu seed=0,1,2 $(PROBES_SWEEP) \
	  hydra.sweep.dir=$(PROBES_CLAIMS)/sources $(PROBES_SUBDIR)
	-$(CPU1) $(TRAIN) -m experiment=probes/digits_source_b_cpu seed=1,2,3 $(PROBES_SWEEP) \
	  hydra.sweep.dir=$(PROBES_CLAIMS)/sources $(PROBES_SUBDIR)
	-$(CPU1) $(TRAIN) -m experiment=probes/transfer_cpu model.target=quotient,full data.n_pairs=25,50,100,200 seed=0,1,2 \
	  $(PROBES_SWEEP) hydra.sweep.dir=$(PROBES_CLAIMS)/transfer
	-$(CPU1) $(TRAIN) -m experiment=probes/transfer_cpu model.target=full model/alignment=procrustes,cca data.n_pairs=200 seed=0,1,2 \
	  $(PROBES_SWEEP) hydra.sweep.dir=$(PROBES_CLAIMS)/transfer_baselines
	-$(CPU1) $(TRAIN) -m experiment=probes/transfer_cpu model=probe_oracle data.n_pairs=null seed=0,1,2 \
	  $(PROBES_SWEEP) hydra.sweep.dir=$(PROBES_CLAIMS)/oracle
	-$(CPU1) $(TRAIN) -m experiment=probes/transfer_cpu model=probe_source model.target=quotient,full seed=0,1,2 \
	  $(PROBES_SWEEP) hydra.sweep.dir=$(PROBES_CLAIMS)/source
	-$(CPU1) $(TRAIN) -m experiment=probes/digits_wide_source_a_cpu seed=1,2,3,4,5 $(PROBES_SWEEP) \
	  hydra.sweep.dir=$(PROBES_CLAIMS)/sources $(PROBES_SUBDIR)
	-$(CPU1) $(TRAIN) -m experiment=probes/digits_wide_source_b_cpu seed=2,3,4,5,6 $(PROBES_SWEEP) \
	  hydra.sweep.dir=$(PROBES_CLAIMS)/sources $(PROBES_SUBDIR)
	-$(CPU1) $(TRAIN) -m experiment=probes/transfer_wide_cpu model.target=quotient,full model/alignment=ridge,ridge_cv \
	  data.n_pairs=50,200 seed=1,2,3,4,5 $(PROBES_SWEEP) hydra.sweep.dir=$(PROBES_CLAIMS)/transfer_wide
	-$(CPU1) $(TRAIN) -m experiment=probes/transfer_wide_cpu model.target=full model.alignment.alpha_per_target=true \
	  data.n_pairs=50,200 seed=1,2,3,4,5 $(PROBES_SWEEP) hydra.sweep.dir=$(PROBES_CLAIMS)/transfer_wide_per_output
	-$(CPU1) $(TRAIN) -m experiment=probes/transfer_wide_cpu model=probe_oracle data.n_pairs=null seed=1,2,3,4,5 \
	  $(PROBES_SWEEP) hydra.sweep.dir=$(PROBES_CLAIMS)/transfer_wide_oracle
	$(TABLE) $(PROBES_CLAIMS)/tasks --group-by data.task model --metric test/auroc --no-curves \
	  --name tasks --results experiments/probes/RESULTS.md
	$(TABLE) $(PROBES_CLAIMS)/invariance_halfspace $(PROBES_CLAIMS)/invariance_circle $(PROBES_CLAIMS)/invariance_circle_tree \
	  --group-by data.task model data.affine --metric test/auroc --no-curves --name invariance --results experiments/probes/RESULTS.md
	$(TABLE) $(PROBES_CLAIMS)/sources --group-by setting --metric test/acc --no-curves \
	  --name sources --results experiments/probes/RESULTS.md
	$(TABLE) $(PROBES_CLAIMS)/transfer $(PROBES_CLAIMS)/transfer_baselines $(PROBES_CLAIMS)/oracle $(PROBES_CLAIMS)/source \
	  --group-by model model.target model/alignment data.n_pairs --metric test/auroc_covered test/auroc_uncovered \
	  --no-curves --name transfer --results experiments/probes/RESULTS.md
	$(TABLE) $(PROBES_CLAIMS)/transfer_wide $(PROBES_CLAIMS)/transfer_wide_per_output $(PROBES_CLAIMS)/transfer_wide_oracle \
	  --group-by model model.target model/alignment model.alignment.alpha_per_target data.n_pairs \
	  --metric test/auroc_covered test/auroc_uncovered --no-curves --name transfer_wide --results experiments/probes/RESULTS.md
	$(CLAIMS) probes

reproduce-probes-mnist-transfer: ## MNIST MLPs A (3×512) and B (3×384) and monitor transfer through A's quotient vs full state, 3 seeds (1 GPU, W&B)
	-$(TRAIN) -m experiment=probes/mnist_source_a seed=0,1,2 paths.data_dir=$(DATA) data.download=true \
	  hydra.sweep.dir=logs/reproduce/probes/sources $(PROBES_SUBDIR)
	-$(TRAIN) -m experiment=probes/mnist_source_b seed=1,2,3 paths.data_dir=$(DATA) data.download=true \
	  hydra.sweep.dir=logs/reproduce/probes/sources $(PROBES_SUBDIR)
	-$(TRAIN) -m experiment=probes/mnist_transfer model.target=quotient,full seed=0,1,2 paths.data_dir=$(DATA) \
	  hydra.sweep.dir=logs/reproduce/probes/transfer
	-$(TRAIN) -m experiment=probes/mnist_transfer model=probe_oracle data.n_pairs=null seed=0,1,2 paths.data_dir=$(DATA) \
	  hydra.sweep.dir=logs/reproduce/probes/oracle
	$(TABLE) logs/reproduce/probes/transfer logs/reproduce/probes/oracle --group-by model model.target --metric test/auroc_covered \
	  test/auroc_uncovered --no-curves --name mnist_transfer --results experiments/probes/RESULTS.md
