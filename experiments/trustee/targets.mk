# TRUSTEE (issue 43): the CPU claim check (arms a-f at equal environment steps, 3 seeds) and the paper-scale preset.
.PHONY: claim-trustee claim-trustee-noise reproduce-trustee-qwen3_8b reproduce-trustee-qwen3_8b-simulated

TRUSTEE_SEEDS ?= 0,1,2
TRUSTEE_CLAIMS := logs/claims/trustee
TRUSTEE_SWEEP := print_config=false trainer.enable_progress_bar=false
TRUSTEE_WARM := 'task.init_from=$(TRUSTEE_CLAIMS)/sft/200_$${seed}'
TRUSTEE_SCORE := optimizer.lr=0.0 trainer.max_steps=1 trainer.val_check_interval=1   # a policy scored as it is
TRUSTEE_NOISE ?= 0.3
TRUSTEE_NOISY = environment.tool_lie=$(TRUSTEE_NOISE) environment.user_lie=$(TRUSTEE_NOISE) environment.judge_flip=$(TRUSTEE_NOISE)

claim-trustee: ## TRUSTEE, tiny LM on BFCL's file system: curriculum vs uniform, static set, SFT, oracle, exact judge (25 steps each from one warm start), 3 seeds; BFCL's checker on 30 held-out multi_turn_base tasks -> RESULTS.md + verdicts
	-$(CPU1) $(TRAIN) -m experiment=trustee/sft_cpu seed=$(TRUSTEE_SEEDS) $(TRUSTEE_SWEEP) \
	  hydra.sweep.dir=$(TRUSTEE_CLAIMS)/sft 'hydra.sweep.subdir=$${trainer.max_steps}_$${seed}'
	-$(CPU1) $(TRAIN) -m experiment=trustee/curriculum_cpu seed=$(TRUSTEE_SEEDS) $(TRUSTEE_SWEEP) $(TRUSTEE_WARM) hydra.sweep.dir=$(TRUSTEE_CLAIMS)/curriculum
	-$(CPU1) $(TRAIN) -m experiment=trustee/curriculum_cpu $(TRUSTEE_SCORE) setting=start_eval seed=$(TRUSTEE_SEEDS) $(TRUSTEE_SWEEP) \
	  $(TRUSTEE_WARM) hydra.sweep.dir=$(TRUSTEE_CLAIMS)/start
	-$(CPU1) $(TRAIN) -m experiment=trustee/sft_cpu trainer.max_steps=25 trainer.val_check_interval=25 seed=$(TRUSTEE_SEEDS) $(TRUSTEE_SWEEP) \
	  '+task.init_from=$(TRUSTEE_CLAIMS)/sft/200_$${seed}' hydra.sweep.dir=$(TRUSTEE_CLAIMS)/sft_more_train 'hydra.sweep.subdir=$${seed}'
	-$(CPU1) $(TRAIN) -m experiment=trustee/curriculum_cpu $(TRUSTEE_SCORE) setting=sft_more_eval seed=$(TRUSTEE_SEEDS) $(TRUSTEE_SWEEP) \
	  'task.init_from=$(TRUSTEE_CLAIMS)/sft_more_train/$${seed}' hydra.sweep.dir=$(TRUSTEE_CLAIMS)/sft_more
	-$(CPU1) $(TRAIN) -m experiment=trustee/uniform_cpu seed=$(TRUSTEE_SEEDS) $(TRUSTEE_SWEEP) $(TRUSTEE_WARM) hydra.sweep.dir=$(TRUSTEE_CLAIMS)/uniform
	-$(CPU1) $(TRAIN) -m experiment=trustee/oracle_cpu seed=$(TRUSTEE_SEEDS) $(TRUSTEE_SWEEP) $(TRUSTEE_WARM) hydra.sweep.dir=$(TRUSTEE_CLAIMS)/oracle
	-$(CPU1) $(TRAIN) -m experiment=trustee/static_cpu seed=$(TRUSTEE_SEEDS) $(TRUSTEE_SWEEP) $(TRUSTEE_WARM) hydra.sweep.dir=$(TRUSTEE_CLAIMS)/static
	-$(CPU1) $(TRAIN) -m experiment=trustee/exact_judge_cpu seed=$(TRUSTEE_SEEDS) $(TRUSTEE_SWEEP) $(TRUSTEE_WARM) hydra.sweep.dir=$(TRUSTEE_CLAIMS)/exact_judge
	$(TABLE) $(TRUSTEE_CLAIMS)/start $(TRUSTEE_CLAIMS)/curriculum $(TRUSTEE_CLAIMS)/uniform $(TRUSTEE_CLAIMS)/static \
	  $(TRUSTEE_CLAIMS)/sft_more $(TRUSTEE_CLAIMS)/oracle $(TRUSTEE_CLAIMS)/exact_judge --group-by setting \
	  --metric test/reward val/reward train/true_success train/judge_agreement train/tool_calls_total --no-curves \
	  --name trustee --results experiments/trustee/RESULTS.md
	$(CLAIMS) trustee

claim-trustee-noise: ## TRUSTEE at a higher noise (ε = u = η = TRUSTEE_NOISE, 0.3): the whole pipeline (warm start, curriculum, SFT arm), 3 seeds
	-$(CPU1) $(TRAIN) -m experiment=trustee/sft_cpu seed=$(TRUSTEE_SEEDS) $(TRUSTEE_SWEEP) $(TRUSTEE_NOISY) \
	  hydra.sweep.dir=$(TRUSTEE_CLAIMS)/noise/sft 'hydra.sweep.subdir=$${seed}'
	-$(CPU1) $(TRAIN) -m experiment=trustee/curriculum_cpu setting=curriculum_noisy seed=$(TRUSTEE_SEEDS) $(TRUSTEE_SWEEP) $(TRUSTEE_NOISY) \
	  'task.init_from=$(TRUSTEE_CLAIMS)/noise/sft/$${seed}' hydra.sweep.dir=$(TRUSTEE_CLAIMS)/noise/curriculum
	-$(CPU1) $(TRAIN) -m experiment=trustee/sft_cpu trainer.max_steps=25 trainer.val_check_interval=25 seed=$(TRUSTEE_SEEDS) $(TRUSTEE_SWEEP) \
	  $(TRUSTEE_NOISY) '+task.init_from=$(TRUSTEE_CLAIMS)/noise/sft/$${seed}' hydra.sweep.dir=$(TRUSTEE_CLAIMS)/noise/sft_more_train 'hydra.sweep.subdir=$${seed}'
	-$(CPU1) $(TRAIN) -m experiment=trustee/curriculum_cpu $(TRUSTEE_SCORE) setting=sft_more_noisy_eval seed=$(TRUSTEE_SEEDS) $(TRUSTEE_SWEEP) \
	  $(TRUSTEE_NOISY) 'task.init_from=$(TRUSTEE_CLAIMS)/noise/sft_more_train/$${seed}' hydra.sweep.dir=$(TRUSTEE_CLAIMS)/noise/sft_more
	$(TABLE) $(TRUSTEE_CLAIMS)/noise/curriculum $(TRUSTEE_CLAIMS)/noise/sft_more --group-by setting environment.judge_flip \
	  --metric test/reward train/true_success --no-curves --name trustee_noise --results experiments/trustee/RESULTS.md
	$(CLAIMS) trustee

reproduce-trustee-qwen3_8b: ## Paper scale: Qwen3-8B policy (bf16, LoRA, all GPUs of a node, W&B) on the same environment, adaptive curriculum, 3 seeds
	-$(TRAIN) -m experiment=trustee/qwen3_8b_curriculum seed=$(TRUSTEE_SEEDS) hydra.sweep.dir=logs/reproduce/trustee/qwen3_8b
	$(TABLE) logs/reproduce/trustee/qwen3_8b --group-by setting --metric test/reward --no-curves \
	  --name trustee_qwen3_8b --results experiments/trustee/RESULTS.md

reproduce-trustee-qwen3_8b-simulated: ## Paper scale with the paper's simulator: Qwen3-8B as policy AND as task writer, tool, user and judge (its base weights, LoRA off), one GPU, W&B, 3 seeds; the judge audited against BFCL's checkers
	-$(TRAIN) -m experiment=trustee/qwen3_8b_simulated seed=$(TRUSTEE_SEEDS) hydra.sweep.dir=logs/reproduce/trustee/qwen3_8b_simulated
	$(TABLE) logs/reproduce/trustee/qwen3_8b_simulated --group-by setting --metric test/reward train/true_success \
	  train/judge_agreement_run train/judge_false_pass_run train/sim_judge_unparsed --no-curves \
	  --name trustee_qwen3_8b_simulated --results experiments/trustee/RESULTS.md
