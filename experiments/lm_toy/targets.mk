# The language-model policy task's toy (issue 37): the CPU claim check and the paper-scale Qwen3-8B preset.
.PHONY: claim-lm_toy reproduce-lm_toy-qwen3_8b

LM_TOY_SEEDS ?= 0,1,2
LM_TOY_CLAIMS := logs/claims/lm_toy
LM_TOY_SWEEP := print_config=false trainer.enable_progress_bar=false
LM_TOY_UNCHANGED := optimizer.lr=0.0 trainer.max_steps=1 trainer.val_check_interval=1   # a policy scored as it is: one step at lr 0

claim-lm_toy: ## Small byte-level LM: SFT warm start, then GRPO on the digit-sum reward vs its start (lr 0) and vs more SFT, 3 seeds -> RESULTS.md + verdicts
	-$(CPU1) $(TRAIN) -m experiment=lm_toy/sft_cpu trainer.max_steps=40,340 seed=$(LM_TOY_SEEDS) $(LM_TOY_SWEEP) \
	  hydra.sweep.dir=$(LM_TOY_CLAIMS)/sft 'hydra.sweep.subdir=$${trainer.max_steps}_$${seed}'
	-$(CPU1) $(TRAIN) -m experiment=lm_toy/grpo_cpu seed=$(LM_TOY_SEEDS) $(LM_TOY_SWEEP) \
	  'task.init_from=$(LM_TOY_CLAIMS)/sft/40_$${seed}' hydra.sweep.dir=$(LM_TOY_CLAIMS)/grpo
	-$(CPU1) $(TRAIN) -m experiment=lm_toy/grpo_cpu optimizer.lr=0.0003 seed=$(LM_TOY_SEEDS) $(LM_TOY_SWEEP) \
	  'task.init_from=$(LM_TOY_CLAIMS)/sft/40_$${seed}' hydra.sweep.dir=$(LM_TOY_CLAIMS)/grpo_lr3e-4
	-$(CPU1) $(TRAIN) -m experiment=lm_toy/grpo_cpu $(LM_TOY_UNCHANGED) seed=$(LM_TOY_SEEDS) $(LM_TOY_SWEEP) \
	  'task.init_from=$(LM_TOY_CLAIMS)/sft/40_$${seed}' hydra.sweep.dir=$(LM_TOY_CLAIMS)/start
	-$(CPU1) $(TRAIN) -m experiment=lm_toy/grpo_cpu $(LM_TOY_UNCHANGED) setting=sft_more_eval seed=$(LM_TOY_SEEDS) $(LM_TOY_SWEEP) \
	  'task.init_from=$(LM_TOY_CLAIMS)/sft/340_$${seed}' hydra.sweep.dir=$(LM_TOY_CLAIMS)/sft_more_eval
	$(TABLE) $(LM_TOY_CLAIMS)/start $(LM_TOY_CLAIMS)/grpo $(LM_TOY_CLAIMS)/grpo_lr3e-4 $(LM_TOY_CLAIMS)/sft_more_eval --group-by setting optimizer.lr --metric test/reward \
	  --curve val/reward --name lm_toy --results experiments/lm_toy/RESULTS.md
	$(CLAIMS) lm_toy

reproduce-lm_toy-qwen3_8b: ## Paper scale of the policy task: GRPO on Qwen3-8B (bf16, LoRA, all GPUs of a node, W&B), the toy reward, 3 seeds
	-$(TRAIN) -m experiment=lm_toy/qwen3_8b_grpo seed=$(LM_TOY_SEEDS) hydra.sweep.dir=logs/reproduce/lm_toy/qwen3_8b
	$(TABLE) logs/reproduce/lm_toy/qwen3_8b --group-by setting --metric test/reward --curve val/reward \
	  --name lm_toy_qwen3_8b --results experiments/lm_toy/RESULTS.md
