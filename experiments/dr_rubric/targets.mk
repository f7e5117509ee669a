# DR-rubric (issue 44): stage A (reward quality, test only) and stage B (GRPO per rubric) on the toy world; paper scale.
.PHONY: claim-dr_rubric table-dr_rubric reproduce-dr_rubric-qwen3_8b

DRR_SEEDS ?= 0,1,2
DRR_B_TURNS ?= 1,3,5        # stage B's DR-rubric arms
DRR_ROOT := logs/claims/dr_rubric
DRR_SWEEP := print_config=false trainer.enable_progress_bar=false
DRR_FROM_SFT := 'task.init_from=$(DRR_ROOT)/sft/$${seed}'
DRR_UNCHANGED := optimizer.lr=0.0 trainer.max_steps=1 trainer.val_check_interval=1 setting=grpo_start   # the warm start scored as it is

claim-dr_rubric: ## Stage A: 10 rubrics' reward quality (no RL); stage B: SFT warm start, then GRPO with the same 10 rubrics and the start, 3 seeds -> RESULTS.md + verdicts
	-$(CPU1) $(TRAIN) -m experiment=dr_rubric/quality_cpu rubric=generic,prompt_only,length_matched,oracle seed=$(DRR_SEEDS) \
	  $(DRR_SWEEP) hydra.sweep.dir=$(DRR_ROOT)/quality_baselines
	-$(CPU1) $(TRAIN) -m experiment=dr_rubric/quality_cpu rubric=dr_rubric rubric.turns=1,3,5 seed=$(DRR_SEEDS) \
	  $(DRR_SWEEP) hydra.sweep.dir=$(DRR_ROOT)/quality_dr
	-$(CPU1) $(TRAIN) -m experiment=dr_rubric/quality_cpu rubric=bootstrap rubric.iterations=1,2,3 seed=$(DRR_SEEDS) \
	  $(DRR_SWEEP) hydra.sweep.dir=$(DRR_ROOT)/quality_bootstrap
	-$(CPU1) $(TRAIN) -m experiment=dr_rubric/sft_cpu seed=$(DRR_SEEDS) $(DRR_SWEEP) \
	  hydra.sweep.dir=$(DRR_ROOT)/sft 'hydra.sweep.subdir=$${seed}'
	-$(CPU1) $(TRAIN) -m experiment=dr_rubric/grpo_cpu $(DRR_UNCHANGED) seed=$(DRR_SEEDS) $(DRR_SWEEP) $(DRR_FROM_SFT) \
	  hydra.sweep.dir=$(DRR_ROOT)/grpo_start
	-$(CPU1) $(TRAIN) -m experiment=dr_rubric/grpo_cpu rubric=dr_rubric rubric.turns=$(DRR_B_TURNS) seed=$(DRR_SEEDS) \
	  $(DRR_SWEEP) $(DRR_FROM_SFT) hydra.sweep.dir=$(DRR_ROOT)/grpo_dr
	-$(CPU1) $(TRAIN) -m experiment=dr_rubric/grpo_cpu rubric=prompt_only,length_matched,generic,oracle seed=$(DRR_SEEDS) \
	  $(DRR_SWEEP) $(DRR_FROM_SFT) hydra.sweep.dir=$(DRR_ROOT)/grpo_baselines
	-$(CPU1) $(TRAIN) -m experiment=dr_rubric/grpo_cpu rubric=bootstrap rubric.iterations=1,2,3 seed=$(DRR_SEEDS) \
	  $(DRR_SWEEP) $(DRR_FROM_SFT) hydra.sweep.dir=$(DRR_ROOT)/grpo_bootstrap
	$(MAKE) table-dr_rubric
	$(CLAIMS) dr_rubric

table-dr_rubric: ## The claim runs' tables (stage A: reward quality per rubric; stage B: oracle quality after GRPO) -> RESULTS.md
	$(TABLE) $(DRR_ROOT)/quality_baselines $(DRR_ROOT)/quality_dr $(DRR_ROOT)/quality_bootstrap \
	  --group-by rubric rubric.turns rubric.iterations --metric test/pairwise_agreement test/criteria_recall \
	  test/criteria_precision test/rubric_items test/search_queries --no-curves --name stage_a \
	  --results experiments/dr_rubric/RESULTS.md
	$(TABLE) $(DRR_ROOT)/grpo_start $(DRR_ROOT)/grpo_baselines $(DRR_ROOT)/grpo_dr $(DRR_ROOT)/grpo_bootstrap \
	  --group-by setting rubric rubric.turns rubric.iterations --metric test/reward test/coverage_f1 test/hallucination_rate \
	  test/rubric_reward test/completion_tokens --curve val/reward train/reward --name stage_b \
	  --results experiments/dr_rubric/RESULTS.md

reproduce-dr_rubric-qwen3_8b: ## Paper scale: GRPO on Qwen3-8B (bf16, LoRA, all GPUs of a node, W&B) with DR-rubric (T = 5) judged by Qwen3-8B over your search tool, 3 seeds
	-$(TRAIN) -m experiment=dr_rubric/qwen3_8b_grpo seed=$(DRR_SEEDS) hydra.sweep.dir=logs/reproduce/dr_rubric/qwen3_8b
	$(TABLE) logs/reproduce/dr_rubric/qwen3_8b --group-by setting --metric test/reward --curve val/reward \
	  --name dr_rubric_qwen3_8b --results experiments/dr_rubric/RESULTS.md
