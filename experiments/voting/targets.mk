# Learned voting rules (issue 17): CPU claim check, paper-scale runs, PrefLib data.
.PHONY: claim-voting claim-voting-explore reproduce-voting-imitate reproduce-voting-finetune data-preflib

VOTING_SEEDS ?= 0,1,2
VOTING_CLAIMS := logs/claims/voting
VOTING_PAPER := logs/reproduce/voting
VOTING_TABLE_METRICS := test/acc test/params test/viol/condorcet test/viol/participation test/viol/pair test/viol/neutrality
VOTING_CLASSIC := $(foreach r,plurality borda copeland minimax black irv nanson,test/classic/$(r)/agree test/classic/$(r)/viol_pair)

claim-voting: ## CPU claim check: embedding MLPs (weighted majority, margins, tournament, rank positions) vs DeepSets on raw ballots (117k and equal-size 6k), Borda and Copeland, then axiom fine-tuning of the Borda MLP vs 7 classic rules, 3 seeds (549 CPU-s user+sys at 5027fe6 on 2026-12-07, JOBS=2) -> RESULTS.md + verdicts
	-$(CPU1) $(TRAIN) -m experiment=voting/imitate_cpu data.rule=borda,copeland seed=$(VOTING_SEEDS) print_config=false \
	  hydra.sweep.dir=$(VOTING_CLAIMS)/imitate 'hydra.sweep.subdir=$${data.rule}_$${seed}'
	-$(CPU1) $(TRAIN) -m experiment=voting/imitate_cpu data.rule=borda,copeland embedding=tournament,rank_position,margin \
	  seed=$(VOTING_SEEDS) print_config=false hydra.sweep.dir=$(VOTING_CLAIMS)/embeddings
	-$(CPU1) $(TRAIN) -m experiment=voting/raw_cpu,voting/raw_small_cpu data.rule=borda,copeland seed=$(VOTING_SEEDS) print_config=false \
	  hydra.sweep.dir=$(VOTING_CLAIMS)/raw
	-$(CPU1) $(TRAIN) -m experiment=voting/finetune_cpu seed=$(VOTING_SEEDS) print_config=false \
	  'task.init_from=$(VOTING_CLAIMS)/imitate/borda_$${seed}' hydra.sweep.dir=$(VOTING_CLAIMS)/finetune
	$(TABLE) $(VOTING_CLAIMS)/imitate $(VOTING_CLAIMS)/embeddings $(VOTING_CLAIMS)/raw --group-by data.rule setting model embedding \
	  --metric $(VOTING_TABLE_METRICS) --curve val/acc --name imitate --results experiments/voting/RESULTS.md
	$(TABLE) $(VOTING_CLAIMS)/imitate $(VOTING_CLAIMS)/finetune --where data.rule=borda embedding=pairwise --group-by experiment \
	  --metric $(VOTING_TABLE_METRICS) test/dominance_margin $(VOTING_CLASSIC) --curve val/loss --name finetune --results experiments/voting/RESULTS.md
	$(CLAIMS) voting

reproduce-voting-imitate: ## Paper scale (1 GPU, W&B): embedding MLPs and a Set Transformer on raw ballots, m=7, n=51, 500k profiles, all rules x embeddings
	-$(TRAIN) -m experiment=voting/imitate_gpu data.rule=plurality,borda,copeland,minimax embedding=pairwise,tournament,rank_position \
	  seed=$(VOTING_SEEDS) hydra.sweep.dir=$(VOTING_PAPER)/imitate 'hydra.sweep.subdir=$${data.rule}_$${embedding._target_}_$${seed}'
	-$(TRAIN) -m experiment=voting/raw_gpu data.rule=plurality,borda,copeland,minimax seed=$(VOTING_SEEDS) hydra.sweep.dir=$(VOTING_PAPER)/raw
	$(TABLE) $(VOTING_PAPER)/imitate $(VOTING_PAPER)/raw --group-by data.rule model embedding --metric $(VOTING_TABLE_METRICS) \
	  --name paper_imitate --results experiments/voting/RESULTS.md

reproduce-voting-finetune: ## Paper scale (1 GPU, W&B): fine-tune the paper-scale Borda MLPs with Condorcet + participation losses (needs reproduce-voting-imitate)
	-$(TRAIN) -m experiment=voting/finetune_gpu seed=$(VOTING_SEEDS) \
	  'task.init_from=$(VOTING_PAPER)/imitate/borda_experiments.voting.embeddings.PairwisePreferences_$${seed}' hydra.sweep.dir=$(VOTING_PAPER)/finetune
	$(TABLE) $(VOTING_PAPER)/finetune --group-by experiment --metric $(VOTING_TABLE_METRICS) test/dominance_margin $(VOTING_CLASSIC) \
	  --name paper_finetune --results experiments/voting/RESULTS.md

data-preflib: ## A few PrefLib elections (.soc) into $(DATA)/preflib; test on them with data.preflib_dir=$(DATA)/preflib (seconds)
	$(PY) -m experiments.voting.preflib --out $(DATA)/preflib

claim-voting-explore: ## Exploratory, not pre-registered (after claim-voting): the Borda MLP and its fine-tuning on the stacked weighted-majority + tournament embedding, 3 seeds (91 CPU-s measured) -> RESULTS.md
	-$(CPU1) $(TRAIN) -m experiment=voting/imitate_cpu data.rule=borda embedding=pairwise_tournament seed=$(VOTING_SEEDS) print_config=false \
	  hydra.sweep.dir=$(VOTING_CLAIMS)/explore_imitate 'hydra.sweep.subdir=$${data.rule}_$${seed}'
	-$(CPU1) $(TRAIN) -m experiment=voting/finetune_cpu embedding=pairwise_tournament seed=$(VOTING_SEEDS) print_config=false \
	  'task.init_from=$(VOTING_CLAIMS)/explore_imitate/borda_$${seed}' hydra.sweep.dir=$(VOTING_CLAIMS)/explore_finetune
	$(TABLE) $(VOTING_CLAIMS)/explore_imitate $(VOTING_CLAIMS)/explore_finetune --group-by experiment embedding \
	  --metric $(VOTING_TABLE_METRICS) test/dominance_margin --curve val/loss --name explore --results experiments/voting/RESULTS.md
