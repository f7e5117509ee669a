# Deep Minds and Shallow Probes: the CPU claim check and the paper-scale (MNIST, GPU) transfer.
.PHONY: claim-probes reproduce-probes-mnist-transfer

PROBES_CLAIMS := logs/claims/probes
PROBES_SWEEP := print_config=false trainer.enable_progress_bar=false
PROBES_SUBDIR := 'hydra.sweep.subdir=$${setting}_seed$${seed}'

claim-probes: ## Probe hierarchy vs controls on synthetic representations (affine maps), two digits MLPs and monitor transfer through the probe-visible quotient, 3 seeds, trainer sweeps -> RESULTS.md + claim verdicts (~3.5 min of one core)
	-$(CPU1) $(TRAIN) -m experiment=probes/synthetic_cpu data.task=xor,circle,parity model=probe_linear,probe_quadratic,probe_cp \
	  data.affine=true seed=0,1,2 $(PROBES_SWEEP) hydra.sweep.dir=$(PROBES_CLAIMS)/tasks
	-$(CPU1) $(TRAIN) -m experiment=probes/synthetic_cpu data.task=halfspace model=probe_linear,probe_l1,probe_relu \
	  data.affine=false,true seed=0,1,2 $(PROBES_SWEEP) hydra.sweep.dir=$(PROBES_CLAIMS)/invariance_halfspace
	-$(CPU1) $(TRAIN) -m experiment=probes/synthetic_cpu data.task=circle model=probe_quadratic,probe_cp,probe_stumps,probe_relu \
	  data.affine=false,true seed=0,1,2 $(PROBES_SWEEP) hydra.sweep.dir=$(PROBES_CLAIMS)/invariance_circle
	-$(CPU1) $(TRAIN) -m experiment=probes/digits_source_a_cpu seed=0,1,2 $(PROBES_SWEEP) \
	  hydra.sweep.dir=$(PROBES_CLAIMS)/sources $(PROBES_SUBDIR)
	-$(CPU1) $(TRAIN) -m experiment=probes/digits_source_b_cpu seed=1,2,3 $(PROBES_SWEEP) \
	  hydra.sweep.dir=$(PROBES_CLAIMS)/sources $(PROBES_SUBDIR)
	-$(CPU1) $(TRAIN) -m experiment=probes/transfer_cpu data.target=quotient,full data.n_pairs=25,50,100,200 seed=0,1,2 \
	  $(PROBES_SWEEP) hydra.sweep.dir=$(PROBES_CLAIMS)/transfer
	-$(CPU1) $(TRAIN) -m experiment=probes/transfer_cpu data.target=full model=probe_map_procrustes data.n_pairs=200 seed=0,1,2 \
	  $(PROBES_SWEEP) hydra.sweep.dir=$(PROBES_CLAIMS)/transfer_procrustes
	$(TABLE) $(PROBES_CLAIMS)/tasks --group-by data.task model --metric test/auroc --no-curves \
	  --name tasks --results experiments/probes/RESULTS.md
	$(TABLE) $(PROBES_CLAIMS)/invariance_halfspace $(PROBES_CLAIMS)/invariance_circle --group-by data.task model data.affine \
	  --metric test/auroc --no-curves --name invariance --results experiments/probes/RESULTS.md
	$(TABLE) $(PROBES_CLAIMS)/sources --group-by setting --metric test/acc --no-curves \
	  --name sources --results experiments/probes/RESULTS.md
	$(TABLE) $(PROBES_CLAIMS)/transfer $(PROBES_CLAIMS)/transfer_procrustes --group-by data.target model data.n_pairs \
	  --metric test/auroc_covered test/oracle_covered test/gap_covered test/auroc_uncovered test/oracle_uncovered test/gap_uncovered test/source_uncovered \
	  --no-curves --name transfer --results experiments/probes/RESULTS.md
	$(CLAIMS) probes

reproduce-probes-mnist-transfer: ## MNIST MLPs A (3×512) and B (3×384) and monitor transfer through A's quotient vs full state, 3 seeds (1 GPU, W&B; ~10 min)
	-$(TRAIN) -m experiment=probes/mnist_source_a seed=0,1,2 paths.data_dir=$(DATA) data.download=true \
	  hydra.sweep.dir=logs/reproduce/probes/sources $(PROBES_SUBDIR)
	-$(TRAIN) -m experiment=probes/mnist_source_b seed=1,2,3 paths.data_dir=$(DATA) data.download=true \
	  hydra.sweep.dir=logs/reproduce/probes/sources $(PROBES_SUBDIR)
	-$(TRAIN) -m experiment=probes/mnist_transfer data.target=quotient,full seed=0,1,2 paths.data_dir=$(DATA) \
	  hydra.sweep.dir=logs/reproduce/probes/transfer
	$(TABLE) logs/reproduce/probes/transfer --group-by data.target --metric test/auroc_covered test/gap_covered \
	  test/auroc_uncovered test/gap_uncovered --no-curves --name mnist_transfer --results experiments/probes/RESULTS.md
