# Delta-Adapter (arXiv 2605.07940): the CPU claim check (three stages through reprolab-train), paper scale.
.PHONY: claim-delta_adapter table-delta_adapter reproduce-delta_adapter-cifar10 reproduce-delta_adapter

DA_CLAIMS := logs/claims/delta_adapter
DA_SEEDS ?= 0,1,2
DA_SWEEP = print_config=false trainer.enable_progress_bar=false $(PARALLEL)
# in the order the claims need them (the two table-only ablations last)
DA_ARMS := delta_adapter/single_pair_cpu,delta_adapter/pair_of_pairs_cpu,delta_adapter/identity_cpu,delta_adapter/k1_cpu,delta_adapter/k64_cpu,delta_adapter/no_consistency_cpu,delta_adapter/target_visible_cpu,delta_adapter/k16_cpu,delta_adapter/no_layernorm_cpu
# test-time adaptation: the trained single_pair_cpu adapter of each seed reloaded (task.init_from), tested without and with TTA
DA_TTA_ARMS := delta_adapter/tta_off_cpu,delta_adapter/tta_cpu
DA_METRICS := $(foreach s,unseen seen,$(foreach m,psnr ssim dir_cos leakage pixel_leakage copy_psnr,test/$(s)/$(m)))
# stage 1 (encoder) and stage 2 (editor) are pre-trained once (seed 0) and frozen, like the paper's SigLIP and FLUX;
# the adapter arms read them from these folders (single_pair_cpu's task.encoder_from / editor_from) over $(DA_SEEDS). Every call names its launcher ($(PARALLEL) in
# DA_SWEEP) after its `-m`: the chain would put the first call's before the next call's `-m`, which argparse refuses.

claim-delta_adapter: ## encoder + identity DiT (1 seed, frozen), then 9 adapter arms (single-pair, pair-of-pairs, target-visible, no consistency, no LayerNorm, K=1/16/64, identity) x 3 seeds, then single-pair reloaded without/with test-time adaptation, in one reprolab-train process -> RESULTS.md + verdicts
	-$(CPU1) $(VENV)/bin/reprolab-train -m experiment=delta_adapter/encoder_cpu seed=0 $(DA_SWEEP) hydra.sweep.dir=$(DA_CLAIMS)/encoder hydra.sweep.subdir=seed0 \
	  --next -m experiment=delta_adapter/editor_cpu seed=0 $(DA_SWEEP) hydra.sweep.dir=$(DA_CLAIMS)/editor hydra.sweep.subdir=seed0 \
	  --next -m experiment=$(DA_ARMS) seed=$(DA_SEEDS) $(DA_SWEEP) \
	  hydra.sweep.dir=$(DA_CLAIMS)/adapter 'hydra.sweep.subdir=$${setting}-$${seed}' \
	  --next -m experiment=$(DA_TTA_ARMS) seed=$(DA_SEEDS) $(DA_SWEEP) \
	  hydra.sweep.dir=$(DA_CLAIMS)/tta 'hydra.sweep.subdir=$${setting}-$${seed}'
	$(MAKE) table-delta_adapter
	$(CLAIMS) delta_adapter

table-delta_adapter: ## RESULTS.md's claim table from the finished claim runs
	$(TABLE) $(DA_CLAIMS)/adapter --group-by setting --metric $(DA_METRICS) --no-curves --name claim_cpu \
	  --results experiments/delta_adapter/RESULTS.md
	$(TABLE) $(DA_CLAIMS)/tta --group-by setting --metric $(DA_METRICS) --no-curves --name tta_cpu \
	  --results experiments/delta_adapter/RESULTS.md

reproduce-delta_adapter-cifar10: ## Paper scale: the adapter into FLUX.1-Kontext-dev with SigLIP-so400m features on CIFAR-10 exemplar edits, 3 seeds (1 GPU, W&B)
	-$(TRAIN) -m experiment=delta_adapter/flux_kontext_cifar10 seed=$(DA_SEEDS) paths.data_dir=$(DATA) \
	  hydra.sweep.dir=logs/reproduce/delta_adapter/cifar10
	$(TABLE) logs/reproduce/delta_adapter/cifar10 --group-by setting --metric $(DA_METRICS) --no-curves --name cifar10_paper \
	  --results experiments/delta_adapter/RESULTS.md

reproduce-delta_adapter: reproduce-delta_adapter-cifar10 ## every paper-scale setting (GPU group)
