# DeepArrhythmia: the CPU claim check (leave one record out on the tpcp subset), the PhysioNet download, paper scale.
.PHONY: claim-deeparrhythmia table-deeparrhythmia data-deeparrhythmia-physionet reproduce-deeparrhythmia-ds2 \
  reproduce-deeparrhythmia-cross reproduce-deeparrhythmia-agent

ARR_ROOT ?= logs/claims/deeparrhythmia
ARR_SEEDS ?= 0,1,2
ARR_RECORDS ?= 100,105,106,108,114,116,119,121,123,200
ARR_ARMS = $(subst $(eval) ,$(comma),$(addprefix deeparrhythmia/,$(addsuffix _cpu,beat_cnn rr beat_rr rhythm context rich bigru router)))
comma := ,

claim-deeparrhythmia: ## 8 arms x 10 held-out records x 3 seeds (240 trainer runs) -> RESULTS.md + verdicts (1 thread)
	-$(CPU1) $(TRAIN) -m experiment=$(ARR_ARMS) ++data.test_record=$(ARR_RECORDS) seed=$(ARR_SEEDS) print_config=false \
	  $(DATA_OVERRIDE) hydra.sweep.dir=$(ARR_ROOT)/loro
	$(MAKE) table-deeparrhythmia
	$(CLAIMS) deeparrhythmia

table-deeparrhythmia: ## The claim runs' tables (mean +- std over held-out records x seeds, per arm) -> RESULTS.md (seconds)
	$(TABLE) $(ARR_ROOT)/loro --group-by setting --metric test/macro_f1 test/v_f1 test/v_sensitivity test/v_ppv \
	  test/confounder_not_v --no-curves --name loro --results experiments/deeparrhythmia/RESULTS.md
	$(TABLE) $(ARR_ROOT)/loro --where setting=router --group-by setting --metric test/macro_f1 test/minimal/macro_f1 \
	  test/rich/macro_f1 test/oracle/macro_f1 test/rich_fraction test/threshold --no-curves --name router \
	  --results experiments/deeparrhythmia/RESULTS.md
	$(TABLE) $(ARR_ROOT)/loro --where data.test_record=100 --group-by setting --metric test/atrial_not_v test/v_f1 \
	  --no-curves --name record100 --results experiments/deeparrhythmia/RESULTS.md
	$(PY) -m experiments.deeparrhythmia.per_record $(ARR_ROOT)/loro --results experiments/deeparrhythmia/RESULTS.md

data-deeparrhythmia-physionet: ## MIT-BIH, SVDB and INCART (WFDB, ~200 MB) from PhysioNet via wfdb into $(DATA)/physionet
	$(PY) -m experiments.deeparrhythmia.download mitdb svdb incartdb $(if $(filter command line,$(origin DATA)),--data-dir $(DATA))

ARR_PAPER = logs/reproduce/deeparrhythmia
reproduce-deeparrhythmia-ds2: ## DS1 -> DS2 (de Chazal), AAMI classes: de Chazal-style, context, BiGRU, router, 3 seeds (1 GPU each, W&B)
	-$(TRAIN) -m experiment=deeparrhythmia/ds2_beat_rr,deeparrhythmia/ds2_rr,deeparrhythmia/ds2_context,deeparrhythmia/ds2_rich,deeparrhythmia/ds2_bigru,deeparrhythmia/ds2_router \
	  seed=0,1,2 paths.data_dir=$(DATA) hydra.sweep.dir=$(ARR_PAPER)/ds2
	$(TABLE) $(ARR_PAPER)/ds2 --group-by setting --metric test/macro_f1 test/v_f1 test/confounder_not_v --no-curves \
	  --name ds2 --results experiments/deeparrhythmia/RESULTS.md

reproduce-deeparrhythmia-cross: ## Train on all of MIT-BIH DS1, test on SVDB and INCART (cross-database), 3 seeds (1 GPU each, W&B)
	-$(TRAIN) -m experiment=deeparrhythmia/ds2_context,deeparrhythmia/ds2_beat_rr,deeparrhythmia/ds2_bigru,deeparrhythmia/ds2_router \
	  '++data.test_records=[svdb:*],[incartdb:*]' seed=0,1,2 paths.data_dir=$(DATA) hydra.sweep.dir=$(ARR_PAPER)/cross
	$(TABLE) $(ARR_PAPER)/cross --group-by setting data.test_records --metric test/macro_f1 test/v_f1 --no-curves \
	  --name cross --results experiments/deeparrhythmia/RESULTS.md

reproduce-deeparrhythmia-agent: ## The agentic VLM on DS2 segments: minimal vs rich tool evidence, confidence-routed (1 GPU, W&B)
	-$(TRAIN) -m experiment=deeparrhythmia/agent_vlm task.evidence=minimal,rich,confidence model.local_files_only=false paths.data_dir=$(DATA) \
	  hydra.sweep.dir=$(ARR_PAPER)/agent
	$(TABLE) $(ARR_PAPER)/agent --group-by task.evidence --metric test/macro_f1 test/v_f1 --no-curves --name agent \
	  --results experiments/deeparrhythmia/RESULTS.md
