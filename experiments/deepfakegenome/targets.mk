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

claim-deepfakegenome: ## CPU claim check: 4 protocols x 2 backbones x 3 seeds on the forgery zoo -> experiments/deepfakegenome/{results,figures} (~8 min of one free core; ~22 min on a loaded one)
	OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 $(PY) -m experiments.deepfakegenome.claim --seeds 0 1 2

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
table-deepfakegenome: ## Trainer-path tables on the forgery zoo: all four protocols, small CNN vs FFT spectrum, 3 seeds -> RESULTS.md blocks (~30 min of one core)
	-$(CPU1) $(TRAIN) -m experiment=deepfakegenome/zoo_binary_cpu model=dfg_small_cnn,spectrum_fft seed=$(DFG_SEEDS) \
	  print_config=false paths.data_dir=$(or $(SHARED_DATA),../shared/data) hydra.sweep.dir=logs/tables/deepfakegenome/zoo_binary
	$(TABLE) logs/tables/deepfakegenome/zoo_binary --group-by model \
	  --metric test/seen/auc test/unseen/auc test/gap/auc test/unseen/eer --curve val/auc --name zoo_binary \
	  --results experiments/deepfakegenome/RESULTS.md
	-$(CPU1) $(TRAIN) -m experiment=deepfakegenome/zoo_closed_set_cpu model=dfg_small_cnn,spectrum_fft seed=$(DFG_SEEDS) \
	  print_config=false paths.data_dir=$(or $(SHARED_DATA),../shared/data) hydra.sweep.dir=logs/tables/deepfakegenome/zoo_closed_set
	$(TABLE) logs/tables/deepfakegenome/zoo_closed_set --group-by model --name zoo_closed_set \
	  --results experiments/deepfakegenome/RESULTS.md
	-$(CPU1) $(TRAIN) -m experiment=deepfakegenome/zoo_open_set_cpu model=dfg_small_cnn,spectrum_fft seed=$(DFG_SEEDS) \
	  print_config=false paths.data_dir=$(or $(SHARED_DATA),../shared/data) hydra.sweep.dir=logs/tables/deepfakegenome/zoo_open_set
	$(TABLE) logs/tables/deepfakegenome/zoo_open_set --group-by model --metric test/closed/acc test/open/auroc test/open/oscr \
	  test/open/cluster_acc test/open/cluster_nmi test/open/cluster_ari --no-curves --results experiments/deepfakegenome/RESULTS.md
	-$(CPU1) $(TRAIN) -m experiment=deepfakegenome/zoo_retrieval_cpu model=dfg_small_cnn,spectrum_fft seed=$(DFG_SEEDS) \
	  print_config=false paths.data_dir=$(or $(SHARED_DATA),../shared/data) hydra.sweep.dir=logs/tables/deepfakegenome/zoo_retrieval
	$(TABLE) logs/tables/deepfakegenome/zoo_retrieval --group-by model --metric test/retrieval_k1/rank1 test/retrieval_k5/rank1 \
	  test/retrieval_k10/rank1 test/retrieval_k5/unseen_rank1 test/retrieval_k5/map test/retrieval_k5/tpir@fpir0.1 \
	  --no-curves --results experiments/deepfakegenome/RESULTS.md
