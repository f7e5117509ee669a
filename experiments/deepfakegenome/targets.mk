# DeepfakeGenome: the four protocols at paper scale (GPU group, W&B) and the CPU claim check on the forgery zoo.
# Paper scale needs the DFG tree (or DF40, DFG_DATA_GROUP=data=df40) under $(DATA); open-set and retrieval need the
# unseen algorithms and distractors of your split: DFG_SPLIT='data.unseen=[...] data.distractors=[...] data.num_seen_algorithms=N'.
.PHONY: data-forgery-zoo claim-deepfakegenome reproduce-deepfakegenome-binary reproduce-deepfakegenome-closed_set \
        reproduce-deepfakegenome-open_set reproduce-deepfakegenome-retrieval table-deepfakegenome

DFG_SEEDS ?= 0,1,2
DFG_SPLIT ?=
DFG_DATA_GROUP ?=

data-forgery-zoo: ## Build the 36-algorithm forgery zoo (DFG tree) in $(or $(REPROLAB_CACHE),.cache)/forgery_zoo from the shared CIFAR subset (~20 s CPU)
	$(PY) scripts/data/make_forgery_zoo.py --out $(or $(REPROLAB_CACHE),.cache)/forgery_zoo

DFG_RUNS := logs/claims/deepfakegenome
DFG_CLAIM_ARGS = print_config=false $(DATA_OVERRIDE)
claim-deepfakegenome: ## CPU claim check on the forgery zoo through reprolab-train: a binary detector and an ArcFace attributor (closed set, open set, retrieval K=1..20), small CNN and FFT spectrum, 3 seeds -> RESULTS.md blocks + verdicts (~3.3 CPU-min: 189 s user + 9 s sys at 5027fe6 on 2026-12-07, JOBS=2)
	-$(CPU1) $(TRAIN) -m seed=$(DFG_SEEDS) experiment=deepfakegenome/zoo_binary_cpu,deepfakegenome/zoo_binary_fft_cpu \
	  $(DFG_CLAIM_ARGS) hydra.sweep.dir=$(DFG_RUNS)/binary \
	  --next -m seed=$(DFG_SEEDS) experiment=deepfakegenome/zoo_attribution_cpu,deepfakegenome/zoo_attribution_fft_cpu \
	  $(DFG_CLAIM_ARGS) hydra.sweep.dir=$(DFG_RUNS)/attribution
	$(TABLE) $(DFG_RUNS)/binary --group-by model --metric test/seen/auc test/unseen/auc test/gap/auc test/seen/eer test/unseen/eer \
	  test/seen/acc --no-curves --name binary --results experiments/deepfakegenome/RESULTS.md
	$(TABLE) $(DFG_RUNS)/binary --group-by model --metric test/family/entire_face_synthesis/auc test/family/face_editing/auc \
	  test/family/face_reenactment/auc test/family/face_swap/auc test/family/text_to_image/auc --no-curves --name binary_family \
	  --results experiments/deepfakegenome/RESULTS.md
	$(TABLE) $(DFG_RUNS)/attribution --group-by model --metric test/closed/acc test/closed/macro_f1 test/closed/family_acc \
	  test/open/auroc test/open/oscr test/open/cluster_acc test/open/cluster_nmi test/open/cluster_ari --no-curves --name attribution \
	  --results experiments/deepfakegenome/RESULTS.md
	$(TABLE) $(DFG_RUNS)/attribution --group-by model --metric test/retrieval_k1/rank1 test/retrieval_k2/rank1 test/retrieval_k5/rank1 \
	  test/retrieval_k10/rank1 test/retrieval_k20/rank1 test/retrieval_k5/unseen_rank1 test/retrieval_k5/rank5 test/retrieval_k5/map \
	  test/retrieval_k5/tpir@fpir0.1 test/retrieval_k5/tpir@fpir0.01 --no-curves --name retrieval --results experiments/deepfakegenome/RESULTS.md
	$(CLAIMS) deepfakegenome

table-deepfakegenome: claim-deepfakegenome ## alias: the trainer-path tables are the claim check's

reproduce-deepfakegenome-binary: ## DFG binary detection (AUC/EER/AP/acc, seen+unseen), ResNet-50, 3 seeds (GPU group: 1 GPU each, W&B)
	-$(TRAIN) -m experiment=deepfakegenome/dfg_binary seed=$(DFG_SEEDS) paths.data_dir=$(DATA) $(DFG_DATA_GROUP) $(DFG_SPLIT) hydra.sweep.dir=logs/reproduce/deepfakegenome/dfg_binary
	$(TABLE) logs/reproduce/deepfakegenome/dfg_binary --group-by data model --name dfg_binary --results experiments/deepfakegenome/RESULTS.md

reproduce-deepfakegenome-closed_set: ## DFG closed-set attribution (acc, macro-F1), ResNet-50, 3 seeds (GPU group: 1 GPU each, W&B)
	-$(TRAIN) -m experiment=deepfakegenome/dfg_closed_set seed=$(DFG_SEEDS) paths.data_dir=$(DATA) $(DFG_DATA_GROUP) $(DFG_SPLIT) hydra.sweep.dir=logs/reproduce/deepfakegenome/dfg_closed_set
	$(TABLE) logs/reproduce/deepfakegenome/dfg_closed_set --group-by data model --name dfg_closed_set --results experiments/deepfakegenome/RESULTS.md

reproduce-deepfakegenome-open_set: ## DFG open-set attribution (AUROC, OSCR, clustering acc/NMI/ARI); needs DFG_SPLIT (GPU group: 1 GPU each, W&B)
	-$(TRAIN) -m experiment=deepfakegenome/dfg_open_set seed=$(DFG_SEEDS) paths.data_dir=$(DATA) $(DFG_DATA_GROUP) $(DFG_SPLIT) hydra.sweep.dir=logs/reproduce/deepfakegenome/dfg_open_set
	$(TABLE) logs/reproduce/deepfakegenome/dfg_open_set --group-by data model --name dfg_open_set --results experiments/deepfakegenome/RESULTS.md

reproduce-deepfakegenome-retrieval: ## DFG retrieval attribution, ArcFace ResNet-50, K=1/5/10 (Rank-1/5, mAP, TPIR@FPIR); needs DFG_SPLIT (GPU group, W&B)
	-$(TRAIN) -m experiment=deepfakegenome/dfg_retrieval seed=$(DFG_SEEDS) paths.data_dir=$(DATA) $(DFG_DATA_GROUP) $(DFG_SPLIT) hydra.sweep.dir=logs/reproduce/deepfakegenome/dfg_retrieval
	$(TABLE) logs/reproduce/deepfakegenome/dfg_retrieval --group-by data model --name dfg_retrieval --results experiments/deepfakegenome/RESULTS.md
