# DeepfakeGenome: the four protocols at paper scale (GPU group, W&B) and the CPU claim check on the forgery zoo.
# Paper scale needs the DFG tree (or DF40, DFG_DATA_GROUP=data=df40) under $(DATA); open-set and retrieval need the
# unseen algorithms and distractors of your split: DFG_SPLIT='data.unseen=[...] data.distractors=[...] data.num_seen_algorithms=N'.
.PHONY: data-forgery-zoo claim-deepfakegenome reproduce-deepfakegenome-binary reproduce-deepfakegenome-closed_set \
        reproduce-deepfakegenome-open_set reproduce-deepfakegenome-retrieval

DFG_SEEDS ?= 0,1,2
DFG_SPLIT ?=
DFG_DATA_GROUP ?=

data-forgery-zoo: ## Build the 36-algorithm forgery zoo (DFG tree) in $(DATA)/forgery_zoo from the shared CIFAR subset (~20 s CPU)
	$(PY) scripts/data/make_forgery_zoo.py --out $(DATA)/forgery_zoo

claim-deepfakegenome: ## CPU claim check: 4 protocols x 2 backbones x 3 seeds on the forgery zoo -> experiments/deepfakegenome/{results,figures} (~8 min of one free core; ~22 min on a loaded one)
	OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 $(PY) -m experiments.deepfakegenome.claim --seeds 0 1 2

reproduce-deepfakegenome-binary: ## DFG binary detection (AUC/EER/AP/acc, seen+unseen), ResNet-50, 3 seeds (GPU group: 1 GPU each, W&B)
	$(TRAIN) -m experiment=deepfakegenome/dfg_binary seed=$(DFG_SEEDS) paths.data_dir=$(DATA) $(DFG_DATA_GROUP) $(DFG_SPLIT)

reproduce-deepfakegenome-closed_set: ## DFG closed-set attribution (acc, macro-F1), ResNet-50, 3 seeds (GPU group: 1 GPU each, W&B)
	$(TRAIN) -m experiment=deepfakegenome/dfg_closed_set seed=$(DFG_SEEDS) paths.data_dir=$(DATA) $(DFG_DATA_GROUP) $(DFG_SPLIT)

reproduce-deepfakegenome-open_set: ## DFG open-set attribution (AUROC, OSCR, clustering acc/NMI/ARI); needs DFG_SPLIT (GPU group: 1 GPU each, W&B)
	$(TRAIN) -m experiment=deepfakegenome/dfg_open_set seed=$(DFG_SEEDS) paths.data_dir=$(DATA) $(DFG_DATA_GROUP) $(DFG_SPLIT)

reproduce-deepfakegenome-retrieval: ## DFG retrieval attribution, ArcFace ResNet-50, K=1/5/10 (Rank-1/5, mAP, TPIR@FPIR); needs DFG_SPLIT (GPU group, W&B)
	$(TRAIN) -m experiment=deepfakegenome/dfg_retrieval seed=$(DFG_SEEDS) paths.data_dir=$(DATA) $(DFG_DATA_GROUP) $(DFG_SPLIT)
