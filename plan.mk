# Measured compute of every reproduce-* target (src/reprolab/plan/compute.py, plan_jobs.py, plan_measure.py, plan_counters.py, plan_report.py): `make plan` writes plan.json and PLAN.md,
# `make help` prints them (its last line runs `reprolab.plan.compute --help-lines`).
.PHONY: plan help-plan

plan: ## Measure every reproduce-* target on CPU (params, FLOPs/step, memory, steps, hours on one H100/H200) -> plan.json, PLAN.md (~30–45 min of one core; longer on a loaded machine)
	$(CPU1) $(PY) -m reprolab.plan.compute --data-dir $(DATA)

help-plan: ## Each reproduce target's measured compute, read from plan.json
	@$(PY) -m reprolab.plan.compute --help-lines
