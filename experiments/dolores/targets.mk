# DOLORES (issue 45): decomposed scaffolds vs monolithic reasoning at a matched token budget.
.PHONY: claim-dolores data-phantomwiki reproduce-dolores-phantomwiki-qwen3_8b reproduce-dolores-phantomwiki-qwen3_32b

# protocol 4 (claims.yaml): new seeds; 0-2 were looked at in the reader pilots and protocols 1-2, 3-5 in protocol 3
DOLORES_SEEDS ?= 6,7,8
DOLORES_CLAIMS := logs/claims/dolores
DOLORES_SWEEP := print_config=false trainer.enable_progress_bar=false
DOLORES_READER := 'task.init_from=$(DOLORES_CLAIMS)/reader/$${seed}'
DOLORES_ARMS := decomposed monolithic sequential nomodel majority_matched best_matched
PW_SIZE ?= 50
PW_SEED ?= 1
DOLORES_PAPER_ARMS := task.scaffold=monolithic,sequential,decomposed,majority,best data.seed=1,2,3

claim-dolores: ## Small word-level reader trained on 1-hop QA, then 6 inference scaffolds (token-matched majority/best@k) on a 50-person universe, 3 seeds -> RESULTS.md + verdicts (748 CPU-s, 18 min wall with JOBS=2, measured at a57bbb6)
	-$(CPU1) $(TRAIN) -m experiment=dolores/reader_cpu seed=$(DOLORES_SEEDS) $(DOLORES_SWEEP) \
	  hydra.sweep.dir=$(DOLORES_CLAIMS)/reader 'hydra.sweep.subdir=$${seed}'
	-$(CPU1) $(TRAIN) -m experiment=dolores/decomposed_cpu seed=$(DOLORES_SEEDS) $(DOLORES_SWEEP) $(DOLORES_READER) hydra.sweep.dir=$(DOLORES_CLAIMS)/decomposed
	-$(CPU1) $(TRAIN) -m experiment=dolores/monolithic_cpu seed=$(DOLORES_SEEDS) $(DOLORES_SWEEP) $(DOLORES_READER) hydra.sweep.dir=$(DOLORES_CLAIMS)/monolithic
	-$(CPU1) $(TRAIN) -m experiment=dolores/sequential_cpu seed=$(DOLORES_SEEDS) $(DOLORES_SWEEP) $(DOLORES_READER) hydra.sweep.dir=$(DOLORES_CLAIMS)/sequential
	-$(CPU1) $(TRAIN) -m experiment=dolores/nomodel_cpu seed=$(DOLORES_SEEDS) $(DOLORES_SWEEP) $(DOLORES_READER) hydra.sweep.dir=$(DOLORES_CLAIMS)/nomodel
	-$(CPU1) $(TRAIN) -m experiment=dolores/majority_matched_cpu seed=$(DOLORES_SEEDS) $(DOLORES_SWEEP) $(DOLORES_READER) hydra.sweep.dir=$(DOLORES_CLAIMS)/majority_matched
	-$(CPU1) $(TRAIN) -m experiment=dolores/best_matched_cpu seed=$(DOLORES_SEEDS) $(DOLORES_SWEEP) $(DOLORES_READER) hydra.sweep.dir=$(DOLORES_CLAIMS)/best_matched
	-$(CPU1) $(TRAIN) -m experiment=dolores/decomposed_cpu setting=decomposed_untrained seed=$(DOLORES_SEEDS) $(DOLORES_SWEEP) \
	  hydra.sweep.dir=$(DOLORES_CLAIMS)/untrained
	$(TABLE) $(addprefix $(DOLORES_CLAIMS)/,$(DOLORES_ARMS) untrained) --group-by setting \
	  --metric test/f1_hop1 test/f1_hop2 test/f1_hop3 test/f1_hop4 test/f1_hop5 test/f1_hop3plus test/tokens_hop3plus test/premature \
	  --no-curves --name dolores --results experiments/dolores/RESULTS.md
	$(CLAIMS) dolores

data-phantomwiki: ## PhantomWiki universe PW_SIZE (50/500/5000), PW_SEED (1-3): both configs from HF kilian-group/phantom-wiki-v1, saved to the data folder
	$(PY) -m experiments.dolores.phantomwiki --data-dir $(or $(DATA),$(shell $(PY) -m reprolab.config.paths)) --size $(PW_SIZE) --seed $(PW_SEED)

reproduce-dolores-phantomwiki-qwen3_8b: ## Paper scale: the scaffolds on PhantomWiki size 50 with Qwen3-8B (1 GPU, bf16, W&B), the three universes
	-$(TRAIN) -m experiment=dolores/phantomwiki_qwen3_8b $(DOLORES_PAPER_ARMS) hydra.sweep.dir=logs/reproduce/dolores/phantomwiki_qwen3_8b
	$(TABLE) logs/reproduce/dolores/phantomwiki_qwen3_8b --group-by task.scaffold --metric test/f1 test/f1_hop3plus test/tokens \
	  --no-curves --name dolores_phantomwiki_qwen3_8b --results experiments/dolores/RESULTS.md

reproduce-dolores-phantomwiki-qwen3_32b: ## Paper scale: the same on Qwen3-32B (1 GPU of 80 GB+, bf16, W&B)
	-$(TRAIN) -m experiment=dolores/phantomwiki_qwen3_32b $(DOLORES_PAPER_ARMS) hydra.sweep.dir=logs/reproduce/dolores/phantomwiki_qwen3_32b
	$(TABLE) logs/reproduce/dolores/phantomwiki_qwen3_32b --group-by task.scaffold --metric test/f1 test/f1_hop3plus test/tokens \
	  --no-curves --name dolores_phantomwiki_qwen3_32b --results experiments/dolores/RESULTS.md
