# Delightful Policy Gradient: the CPU claim check, the paper-scale runs, MNIST.
.PHONY: claim-delightful reproduce-delightful-mnist-stale reproduce-delightful-reversal-frictions data-mnist

DELIGHTFUL_CLAIMS := logs/claims/delightful
DELIGHTFUL_SWEEP := print_config=false trainer.enable_progress_bar=false
# the staleness ladder: 3,000 learner steps, so a staleness-1000 actor moves for the last 2,000 (issue 36)
DELIGHTFUL_LADDER := task.staleness=100,1000 trainer.max_steps=3000 seed=0,1,2,3,4

claim-delightful: ## DG vs REINFORCE/IW/IW-clipped/PPO/sign-blind on the digits bandit (staleness 0 and 100) and on reversal with four frictions, 3 seeds; staleness 100/1000 at 5 seeds (3,000 steps) and clipped IW at rho-bar 1 and 10 on both tasks, trainer sweeps -> RESULTS.md + claim verdicts (~26 CPU-min: 1,507 s user + 60 s sys at 5027fe6 on 2026-12-07, JOBS=2)
	-$(CPU1) $(TRAIN) -m experiment=delightful/digits_stale_cpu task.loss=reinforce,iw,iw_clipped,ppo,dg,sign_blind seed=0,1,2 \
	  $(DELIGHTFUL_SWEEP) hydra.sweep.dir=$(DELIGHTFUL_CLAIMS)/digits_stale
	-$(CPU1) $(TRAIN) -m experiment=delightful/digits_cpu task.loss=reinforce,dg seed=0,1,2 \
	  $(DELIGHTFUL_SWEEP) hydra.sweep.dir=$(DELIGHTFUL_CLAIMS)/digits_fresh
	-$(CPU1) $(TRAIN) -m experiment=delightful/reversal_frictions_cpu task.loss=reinforce,ppo,dg seed=0,1,2 \
	  $(DELIGHTFUL_SWEEP) hydra.sweep.dir=$(DELIGHTFUL_CLAIMS)/reversal_frictions
	-$(CPU1) $(TRAIN) -m experiment=delightful/digits_stale_cpu $(DELIGHTFUL_LADDER) task.loss=reinforce,dg,iw_clipped \
	  $(DELIGHTFUL_SWEEP) hydra.sweep.dir=$(DELIGHTFUL_CLAIMS)/digits_staleness
	-$(CPU1) $(TRAIN) -m experiment=delightful/digits_stale_cpu $(DELIGHTFUL_LADDER) task.loss=iw_clipped task.iw_clip=10 \
	  $(DELIGHTFUL_SWEEP) hydra.sweep.dir=$(DELIGHTFUL_CLAIMS)/digits_staleness_clip10
	-$(CPU1) $(TRAIN) -m experiment=delightful/reversal_frictions_cpu task.loss=iw_clipped task.iw_clip=1,10 seed=0,1,2 \
	  $(DELIGHTFUL_SWEEP) hydra.sweep.dir=$(DELIGHTFUL_CLAIMS)/reversal_frictions_iw
	$(TABLE) $(DELIGHTFUL_CLAIMS)/digits_stale $(DELIGHTFUL_CLAIMS)/digits_fresh --group-by task.staleness task.loss \
	  --metric test/error_pct --curve val/error_pct --name digits --results experiments/delightful/RESULTS.md
	$(TABLE) $(DELIGHTFUL_CLAIMS)/digits_staleness $(DELIGHTFUL_CLAIMS)/digits_staleness_clip10 --group-by task.staleness \
	  task.loss task.iw_clip --metric test/error_pct --no-curves --name digits_staleness --results experiments/delightful/RESULTS.md
	$(TABLE) $(DELIGHTFUL_CLAIMS)/reversal_frictions $(DELIGHTFUL_CLAIMS)/reversal_frictions_iw --group-by task.loss task.iw_clip \
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
