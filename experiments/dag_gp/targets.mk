# Deep GPs over DAGs (issue 21): claim check on CPU and paper scale.
.PHONY: claim-dag_gp reproduce-dag_gp-chain reproduce-dag_gp-collider reproduce-dag_gp-sachs reproduce-dag_gp-forrester reproduce-dag_gp

DAG_GP_SEEDS ?= 0,1,2,3,4
DAG_GP_PAPER_SEEDS ?= 0,1,2,3,4,5,6,7,8,9
DAG_GP_FIT := test/nll test/nll_per_node test/rmse
DAG_GP_OUT := logs/claims/dag_gp

claim-dag_gp: ## CPU claim check: prior collapse (a), collider (b), Sachs (c), Forrester random and spread designs with AR1/NARGP (d), 5 seeds each (~11 CPU-min: 670 s user+sys at 5027fe6 on 2026-12-07, JOBS=2)
	-$(CPU1) $(TRAIN) -m experiment=dag_gp/chain_prior model.kernel=rbf,matern52,matern32 model.input_connections=false,true \
	  seed=$(DAG_GP_SEEDS) print_config=false logger=none hydra.sweep.dir=$(DAG_GP_OUT)/chain_prior
	-$(CPU1) $(TRAIN) -m experiment=dag_gp/collider_cpu model.structured=false,true seed=$(DAG_GP_SEEDS) \
	  print_config=false hydra.sweep.dir=$(DAG_GP_OUT)/collider
	-$(CPU1) $(TRAIN) -m experiment=dag_gp/sachs_cpu model=dag_gp_sachs,dag_gp_sachs_single,dag_gp_sachs_layered \
	  seed=$(DAG_GP_SEEDS) $(DATA_OVERRIDE) print_config=false hydra.sweep.dir=$(DAG_GP_OUT)/sachs
	-$(CPU1) $(TRAIN) -m experiment=dag_gp/forrester_cpu model=dag_gp_forrester,dag_gp_forrester_single,dag_gp_forrester_layered \
	  data.high_design=random seed=$(DAG_GP_SEEDS) print_config=false hydra.sweep.dir=$(DAG_GP_OUT)/forrester
	-$(CPU1) $(TRAIN) -m experiment=dag_gp/forrester_cpu model=dag_gp_forrester,dag_gp_forrester_single,dag_gp_forrester_layered \
	  seed=$(DAG_GP_SEEDS) print_config=false hydra.sweep.dir=$(DAG_GP_OUT)/forrester_spread
	-$(CPU1) $(TRAIN) -m experiment=dag_gp/forrester_cpu +model.node_kernels.high=ar1,nargp \
	  seed=$(DAG_GP_SEEDS) print_config=false hydra.sweep.dir=$(DAG_GP_OUT)/forrester_ar1_nargp
	$(TABLE) $(DAG_GP_OUT)/chain_prior --group-by model.kernel model.input_connections \
	  --metric test/survive_d1 test/survive_d2 test/survive_d5 test/survive_d10 --no-curves --name chain_prior_cpu --results experiments/dag_gp/RESULTS.md
	$(TABLE) $(DAG_GP_OUT)/collider --group-by model.structured --metric $(DAG_GP_FIT) test/latent_corr test/latent_abs_corr \
	  --name collider_cpu --results experiments/dag_gp/RESULTS.md
	$(TABLE) $(DAG_GP_OUT)/sachs --group-by model --metric $(DAG_GP_FIT) --name sachs_cpu --results experiments/dag_gp/RESULTS.md
	$(TABLE) $(DAG_GP_OUT)/forrester --group-by model --metric $(DAG_GP_FIT) --name forrester_random_cpu \
	  --results experiments/dag_gp/RESULTS.md
	$(TABLE) $(DAG_GP_OUT)/forrester_spread $(DAG_GP_OUT)/forrester_ar1_nargp --group-by model model.node_kernels.high \
	  --metric $(DAG_GP_FIT) --name forrester_spread_cpu --results experiments/dag_gp/RESULTS.md
	$(CLAIMS) dag_gp

reproduce-dag_gp-chain: ## Paper scale prior collapse: 200-point grid, 1000 draws, 10 seeds (CPU is enough)
	-$(TRAIN) -m experiment=dag_gp/chain_prior_paper model.kernel=rbf,matern52,matern32 model.input_connections=false,true \
	  seed=$(DAG_GP_PAPER_SEEDS) logger=none hydra.sweep.dir=logs/reproduce/dag_gp/chain_prior
	$(TABLE) logs/reproduce/dag_gp/chain_prior --group-by model.kernel model.input_connections \
	  --metric test/survive_d1 test/survive_d2 test/survive_d5 test/survive_d10 --no-curves --name chain_prior_paper --results experiments/dag_gp/RESULTS.md

reproduce-dag_gp-collider: ## Paper scale latent collider, mean-field vs structured (1 GPU, W&B)
	-$(TRAIN) -m experiment=dag_gp/collider model.structured=false,true seed=$(DAG_GP_PAPER_SEEDS) hydra.sweep.dir=logs/reproduce/dag_gp/collider
	$(TABLE) logs/reproduce/dag_gp/collider --group-by model.structured --metric $(DAG_GP_FIT) test/latent_abs_corr \
	  --name collider_paper --results experiments/dag_gp/RESULTS.md

reproduce-dag_gp-sachs: ## Paper scale Sachs: every row, 64 inducing points, DAG vs single GP vs layered deep GP (1 GPU, W&B)
	-$(TRAIN) -m experiment=dag_gp/sachs model=dag_gp_sachs,dag_gp_sachs_single,dag_gp_sachs_layered seed=$(DAG_GP_PAPER_SEEDS) \
	  $(DATA_OVERRIDE) hydra.sweep.dir=logs/reproduce/dag_gp/sachs
	$(TABLE) logs/reproduce/dag_gp/sachs --group-by model --metric $(DAG_GP_FIT) --name sachs_paper --results experiments/dag_gp/RESULTS.md

reproduce-dag_gp-forrester: ## Paper scale two-fidelity Forrester with AR1 / NARGP kernels (1 GPU, W&B)
	-$(TRAIN) -m experiment=dag_gp/forrester model=dag_gp_forrester,dag_gp_forrester_single,dag_gp_forrester_layered \
	  seed=$(DAG_GP_PAPER_SEEDS) hydra.sweep.dir=logs/reproduce/dag_gp/forrester
	-$(TRAIN) -m experiment=dag_gp/forrester +model.node_kernels.high=ar1,nargp seed=$(DAG_GP_PAPER_SEEDS) \
	  hydra.sweep.dir=logs/reproduce/dag_gp/forrester_ar1_nargp
	$(TABLE) logs/reproduce/dag_gp/forrester logs/reproduce/dag_gp/forrester_ar1_nargp --group-by model model.node_kernels.high \
	  --metric $(DAG_GP_FIT) --name forrester_paper --results experiments/dag_gp/RESULTS.md

reproduce-dag_gp: reproduce-dag_gp-chain reproduce-dag_gp-collider reproduce-dag_gp-sachs reproduce-dag_gp-forrester ## every paper-scale setting
