# Delightful Policy Gradient: the CPU claim check, the paper-scale runs, MNIST.
.PHONY: claim-delightful reproduce-delightful-mnist-stale reproduce-delightful-reversal-frictions data-mnist

DELIGHTFUL_CLAIMS := logs/claims/delightful
DELIGHTFUL_SWEEP := print_config=false trainer.enable_progress_bar=false

claim-delightful: ## DG vs REINFORCE/IW/IW-clipped/PPO/sign-blind on the digits bandit (staleness 0 and 100) and on reversal with four frictions, 3 seeds, trainer sweeps -> RESULTS.md + claim verdicts (~9 CPU-min on 1 thread: 528 s measured on 2026-12-01)
	-$(CPU1) $(TRAIN) -m experiment=delightful/digits_stale_cpu task.loss=reinforce,iw,iw_clipped,ppo,dg,sign_blind seed=0,1,2 \
	  $(DELIGHTFUL_SWEEP) hydra.sweep.dir=$(DELIGHTFUL_CLAIMS)/digits_stale
	-$(CPU1) $(TRAIN) -m experiment=delightful/digits_cpu task.loss=reinforce,dg seed=0,1,2 \
	  $(DELIGHTFUL_SWEEP) hydra.sweep.dir=$(DELIGHTFUL_CLAIMS)/digits_fresh
	-$(CPU1) $(TRAIN) -m experiment=delightful/reversal_frictions_cpu task.loss=reinforce,ppo,dg seed=0,1,2 \
	  $(DELIGHTFUL_SWEEP) hydra.sweep.dir=$(DELIGHTFUL_CLAIMS)/reversal_frictions
	$(TABLE) $(DELIGHTFUL_CLAIMS)/digits_stale $(DELIGHTFUL_CLAIMS)/digits_fresh --group-by task.staleness task.loss \
	  --metric test/error_pct --curve val/error_pct --name digits --results experiments/delightful/RESULTS.md
	$(TABLE) $(DELIGHTFUL_CLAIMS)/reversal_frictions --group-by task.loss \
	  --metric test/seq_error_pct test/longest_solved --curve val/seq_error_pct --name reversal_frictions --results experiments/delightful/RESULTS.md
	$(CLAIMS) delightful

data-mnist: ## Download MNIST into $(DATA)/mnist with torchvision (~60 MB)
	$(PY) -m reprolab.data.torchvision_download MNIST $(DATA)/mnist

reproduce-delightful-mnist-stale: ## MNIST bandit, staleness 100, all six arms, 3 seeds (1 GPU, W&B; 18 runs)
	-$(TRAIN) -m experiment=delightful/mnist_stale task.loss=reinforce,iw,iw_clipped,ppo,dg,sign_blind seed=0,1,2 \
	  paths.data_dir=$(DATA) data.download=true hydra.sweep.dir=logs/reproduce/delightful/mnist_stale
	$(TABLE) logs/reproduce/delightful/mnist_stale --group-by task.loss --metric test/error_pct --curve val/error_pct \
	  --name mnist_stale --results experiments/delightful/RESULTS.md

reproduce-delightful-reversal-frictions: ## Reversal up to length 16, all four frictions, REINFORCE/PPO/IW/DG, 3 seeds (1 GPU, W&B; 12 runs)
	-$(TRAIN) -m experiment=delightful/reversal_frictions task.loss=reinforce,ppo,iw_clipped,dg seed=0,1,2 \
	  hydra.sweep.dir=logs/reproduce/delightful/reversal_frictions
	$(TABLE) logs/reproduce/delightful/reversal_frictions --group-by task.loss --metric test/seq_error_pct test/longest_solved \
	  --curve val/seq_error_pct --name reversal_frictions_paper --results experiments/delightful/RESULTS.md
