# DARSM (neural implicit ARSM trained a posteriori through a steady RANS solve): channel twin claims and paper scale.
.PHONY: claim-darsm reproduce-darsm-channel

DARSM_SEEDS ?= 0,1,2
DARSM_ARMS := adjoint unrolled offline baseline linear
DARSM_METRICS := test/u_rel_l2_unseen test/u_rel_l2_train test/re180/u_rel_l2 test/re360/u_rel_l2 test/re1800/u_rel_l2 test/solve_residual_max

define darsm_arm
	-$(CPU1) $(TRAIN) -m experiment=darsm/channel_$(1)_cpu seed=$(DARSM_SEEDS) print_config=false hydra.sweep.dir=logs/claims/darsm/$(1)

endef
claim-darsm: ## CPU claim check: channel twin, adjoint / unrolled / offline / baseline ARSM / linear eddy viscosity, 3 seeds each
	$(foreach arm,$(DARSM_ARMS),$(call darsm_arm,$(arm)))
	$(TABLE) logs/claims/darsm --group-by setting --metric $(DARSM_METRICS) --name claim_cpu --results experiments/darsm/RESULTS.md
	$(CLAIMS) darsm

reproduce-darsm-channel: ## Paper-scale channel: 256 nodes, train Re_tau 180/550, test 2000 and 5200, adjoint arm, 5 seeds (W&B)
	-$(TRAIN) -m experiment=darsm/channel_adjoint seed=0,1,2,3,4 hydra.sweep.dir=logs/reproduce/darsm/channel
	$(TABLE) logs/reproduce/darsm/channel --group-by setting --metric $(DARSM_METRICS) --name channel_paper --results experiments/darsm/RESULTS.md
