# SkillSonar (NeurIPS 2026; guard text skill-sonar/Skill-Sonar): the CPU claim check on AgentDojo, paper scale.
.PHONY: claim-skillsonar table-skillsonar reproduce-skillsonar-llm reproduce-skillsonar-api reproduce-skillsonar

SKILLSONAR_CLAIMS := logs/claims/skillsonar
SKILLSONAR_SEEDS ?= 0,1,2
SKILLSONAR_SWEEP := print_config=false trainer.enable_progress_bar=false seed=$(SKILLSONAR_SEEDS)
SKILLSONAR_ARMS := none scanner runtime boundary confirm_all evolved greedy
SKILLSONAR_METRICS := test/asr test/benign_utility test/confirmations_per_task test/reward test/asr_if_confirm_passes \
  test/asr_if_confirm_blocks test/asr_plain test/asr_obfuscated test/asr_remote test/benign_utility_unconfirmed \
  test/replans_per_task test/guard_size

# $(1): the guard; $(2): its runs' folder under $(SKILLSONAR_CLAIMS); $(3): more overrides
define skillsonar_arm
	-$(CPU1) $(TRAIN) -m experiment=skillsonar/claim_cpu guard=$(1) $(3) $(SKILLSONAR_SWEEP) hydra.sweep.dir=$(SKILLSONAR_CLAIMS)/$(2)

endef
# leave-one-injection-family-out: egress out of the evolution, tested alone (v0 is not evolved: tested alone)
SKILLSONAR_FAMILY := data.exclude_family=egress data.test_family=egress

claim-skillsonar: ## none / scanner / runtime (v0) / task-boundary / confirm-all / MCTS-evolved / greedy guards, evolved on banking+slack, tested on travel+workspace, 3 seeds; then v0 and MCTS with egress attacks held out -> RESULTS.md + verdicts
	$(foreach arm,$(SKILLSONAR_ARMS),$(call skillsonar_arm,$(arm),$(arm)))
	$(foreach arm,evolved runtime,$(call skillsonar_arm,$(arm),family_$(arm),$(SKILLSONAR_FAMILY)))
	$(MAKE) table-skillsonar
	$(CLAIMS) skillsonar

table-skillsonar: ## RESULTS.md's claim table from the finished claim runs
	$(TABLE) $(SKILLSONAR_CLAIMS) --group-by arm data.test_family --metric $(SKILLSONAR_METRICS) --no-curves --name claim_cpu \
	  --results experiments/skillsonar/RESULTS.md

reproduce-skillsonar-llm: ## Qwen3-8B as the agent on the held-out suites, guard as a system-prompt skill (none / runtime / boundary text), 3 seeds (1 GPU, W&B)
	-$(TRAIN) -m experiment=skillsonar/llm_qwen3_8b task.guard=none,runtime,boundary seed=0,1,2 \
	  hydra.sweep.dir=logs/reproduce/skillsonar/llm
	$(TABLE) logs/reproduce/skillsonar/llm --group-by task.guard --metric test/asr test/benign_utility \
	  test/confirmations_per_task --no-curves --name llm_paper --results experiments/skillsonar/RESULTS.md

# An API-backed agent (OpenAI, or SKILLSONAR_API="task.agent.base_url=http://127.0.0.1:8000/v1 task.agent.model=<name>"
# for a local vLLM / llama.cpp / Ollama server): export OPENAI_API_KEY first. It costs money (README), needs no GPU,
# and is not in reproduce-skillsonar nor in the claim check.
SKILLSONAR_API ?=
reproduce-skillsonar-api: ## a chat-completions API as the agent (OPENAI_API_KEY; SKILLSONAR_API= for base_url/model), guard as a system-prompt skill: none / scanner / runtime / evolved, 3 seeds (no GPU; API cost)
	-$(TRAIN) -m experiment=skillsonar/api_agent guard=none,scanner,runtime,evolved seed=$(SKILLSONAR_SEEDS) $(SKILLSONAR_API) \
	  hydra.sweep.dir=logs/reproduce/skillsonar/api
	$(TABLE) logs/reproduce/skillsonar/api --group-by arm --metric test/asr test/benign_utility test/confirmations_per_task \
	  test/api_requests test/api_prompt_tokens test/api_completion_tokens --no-curves --name api_agent \
	  --results experiments/skillsonar/RESULTS.md

reproduce-skillsonar: reproduce-skillsonar-llm ## every paper-scale setting (GPU group)
