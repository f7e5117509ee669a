# Deep-Koopman-KANDy (KAN encoders for deep Koopman operators + post-hoc symbolic readout): claim check and paper scale.
.PHONY: claim-koopman reproduce-koopman-lorenz reproduce-koopman-maps reproduce-koopman

KOOPMAN_SEEDS ?= 0,1,2,3,4
KOOPMAN_PAPER_SEEDS ?= 0,1,2,3,4,5,6,7,8,9
KOOPMAN_METRICS := readout/jaccard readout/recall readout/full_recall readout/n_active readout/heldout_r2 \
  readout/low_order_fraction readout/inner_spearman readout/inner_gradient_alignment readout/closure_residual koopman/pred_rel edmd/pred_rel

claim-koopman: ## CPU claim check: KAN vs MLP encoder, SINDy, EDMD (re-lifted and linear) on Lorenz, KAN on Ikeda, standard and cat maps, 5 seeds each, then the readout (7.8 CPU-min: 471 s user+sys at 5027fe6 on 2026-12-07, JOBS=2)
	-$(CPU1) $(TRAIN) -m experiment=koopman/lorenz_kan_cpu seed=$(KOOPMAN_SEEDS) print_config=false hydra.sweep.dir=logs/claims/koopman/lorenz_kan
	-$(CPU1) $(TRAIN) -m experiment=koopman/lorenz_mlp_cpu seed=$(KOOPMAN_SEEDS) print_config=false hydra.sweep.dir=logs/claims/koopman/lorenz_mlp
	-$(CPU1) $(TRAIN) -m experiment=koopman/ikeda_kan_cpu seed=$(KOOPMAN_SEEDS) print_config=false hydra.sweep.dir=logs/claims/koopman/ikeda_kan
	-$(CPU1) $(TRAIN) -m experiment=koopman/standard_kan_cpu seed=$(KOOPMAN_SEEDS) print_config=false hydra.sweep.dir=logs/claims/koopman/standard_kan
	-$(CPU1) $(TRAIN) -m experiment=koopman/cat_kan_cpu seed=$(KOOPMAN_SEEDS) print_config=false hydra.sweep.dir=logs/claims/koopman/cat_kan
	-$(CPU1) $(TRAIN) -m experiment=koopman/lorenz_sindy_cpu seed=$(KOOPMAN_SEEDS) print_config=false hydra.sweep.dir=logs/claims/koopman/lorenz_sindy
	-$(CPU1) $(TRAIN) -m experiment=koopman/lorenz_edmd_cpu seed=$(KOOPMAN_SEEDS) print_config=false hydra.sweep.dir=logs/claims/koopman/lorenz_edmd
	-$(CPU1) $(TRAIN) -m experiment=koopman/lorenz_edmd_linear_cpu seed=$(KOOPMAN_SEEDS) print_config=false hydra.sweep.dir=logs/claims/koopman/lorenz_edmd_linear
	$(CPU1) $(PY) -m experiments.koopman.readout logs/claims/koopman
	$(TABLE) logs/claims/koopman --group-by setting --metric $(KOOPMAN_METRICS) --name claim_cpu --results experiments/koopman/RESULTS.md
	$(CLAIMS) koopman

reproduce-koopman-lorenz: ## Paper scale on Lorenz: KAN vs MLP encoder, 10 seeds, then the readout (1 GPU, W&B)
	-$(TRAIN) -m experiment=koopman/lorenz_kan,koopman/lorenz_mlp seed=$(KOOPMAN_PAPER_SEEDS) hydra.sweep.dir=logs/reproduce/koopman/lorenz
	$(PY) -m experiments.koopman.readout logs/reproduce/koopman/lorenz
	$(TABLE) logs/reproduce/koopman/lorenz --group-by setting --metric $(KOOPMAN_METRICS) --name lorenz_paper --results experiments/koopman/RESULTS.md

reproduce-koopman-maps: ## Paper scale on the Ikeda, standard and cat maps, 10 seeds, then the readout (1 GPU, W&B)
	-$(TRAIN) -m experiment=koopman/ikeda_kan,koopman/standard_kan,koopman/cat_kan seed=$(KOOPMAN_PAPER_SEEDS) hydra.sweep.dir=logs/reproduce/koopman/maps
	$(PY) -m experiments.koopman.readout logs/reproduce/koopman/maps
	$(TABLE) logs/reproduce/koopman/maps --group-by setting --metric $(KOOPMAN_METRICS) --name maps_paper --results experiments/koopman/RESULTS.md

reproduce-koopman: reproduce-koopman-lorenz reproduce-koopman-maps ## every paper-scale setting (GPU group)
