"""`make plan`: the compute of every `reproduce-*` target, measured from its composed config, not written by hand.

For each `reprolab-train` job a target runs (`make -n`), the preset is composed as the target composes it,
its datamodule made fake (`reprolab.data.fake`: the paper's sample shapes and split sizes), and one real
optimizer step runs through the Lightning trainer on CPU at micro-batches of 2 and 4 samples, under torch's
FLOP counter (forward, backward and optimizer step), an aten-op counter (eager kernel launches) and a
saved-tensor hook (activations kept for backward). Both grow linearly in the batch, so two points give
the cost at the paper's micro-batch; times the accumulation it is one optimizer step. The estimate:

    step time = max(FLOPs / (peak × MFU), ops × LAUNCH_S)    hours = steps × step time × runs
    memory    = parameters + gradients (fp32) + optimizer state (measured) + activations (× BF16_ACTIVATIONS in bf16)

Peaks are NVIDIA's dense (no sparsity) H100 SXM / H200 SXM numbers for the precision the preset runs in.
Not counted: validation and test passes, data loading (DFG's JPEG decoding may bound it), the CUDA
context and allocator slack (~1-2 GB), and per-method extra passes of swept keys other than the first value.
A target that needs a make variable from its user (DFG's open-set split) is measured with a stand-in (`reprolab.plan.jobs.MAKE_VARS`).
"""

from __future__ import annotations

import argparse
import gc
import json
import logging
import math
import subprocess
import sys
import tempfile
from pathlib import Path

from reprolab.config.compose import REPO_ROOT, compose
from reprolab.plan.jobs import reproduce_targets, target_jobs
from reprolab.plan.measure import DATA_DIR, measure_run, measure_step, takes_no_step
from reprolab.plan.report import help_line, markdown, print_help_lines

# Dense tensor-core peaks, FLOP/s (NVIDIA H100 / H200 SXM datasheets; the two share the GH100 compute, the H200
# adds memory: 141 GB HBM3e at 4.8 TB/s against 80 GB HBM3 at 3.35 TB/s).
GPUS = {"H100": {"bf16": 989.4e12, "tf32": 494.7e12, "fp32": 66.9e12, "memory_gb": 80},
        "H200": {"bf16": 989.4e12, "tf32": 494.7e12, "fp32": 66.9e12, "memory_gb": 141}}
MFU = 0.40  # large dense models in eager bf16 reach ~35-50 % of peak; small ones are bounded by LAUNCH_S instead
MEASURE_BATCHES = (2, 4)  # two micro-batches (not 1: BatchNorm refuses a single sample in training)
# 370M Llama, sequence 1,024: ~6 GB of parameters, gradients and AdamW state before activations; no BatchNorm.
MEASURE_AT = {"deltamomentum/fineweb_370m_adamw": (1, 2), "deltamomentum/fineweb_370m_delta": (1, 2)}
# Overrides of the measured step only, shrinking a once-per-fit pass outside the step window that neither the step nor
# the paper's step count (composed without them) depends on: the post-hoc stage's latents over its hold-out (~11k QM9
# graphs through the frozen MPNN, ~10 min of one core per pass, four passes per measurement).
STEP_ONLY = {"heteroskedastic/qm9_posthoc": ["data.holdout_fraction=0.01"]}
LAUNCH_S = 10e-6  # eager PyTorch: one aten op is one kernel launch, ~5-20 µs of host time each
BF16_ACTIVATIONS = 0.5  # fallback only (CPU bf16 autocast step failed): fp32 bytes × 0.5, an assumption
METHOD = "v3: step-only ops; activations measured under CPU bf16 autocast for bf16 presets; no-step jobs run whole"
# -- one measured step ------------------------------------------------------------------------------------

def paper_schedule(preset: str, overrides: list[str]) -> dict:
    """Micro-batch, accumulation, precision and optimizer steps of the paper run (split sizes from the fake data)."""
    from hydra.utils import instantiate

    from reprolab.data.fake import fake_config

    cfg = compose([f"experiment={preset}", *overrides, "logger=none", *DATA_DIR], output_dir=tempfile.mkdtemp())
    accumulate = int(cfg.trainer.get("accumulate_grad_batches") or 1)
    micro = cfg.data.get("batch_size")
    steps = int(cfg.trainer.get("max_steps") or -1)
    source = "trainer.max_steps"
    if steps <= 0:
        datamodule = instantiate(fake_config(cfg).data)
        datamodule.setup("fit")
        batches = len(datamodule.train_dataloader())
        limit = cfg.trainer.get("limit_train_batches")
        if isinstance(limit, int):
            batches = min(batches, limit)
        elif isinstance(limit, float):
            batches = int(batches * limit)
        steps = int(cfg.trainer.max_epochs) * math.ceil(batches / accumulate)
        source = f"{cfg.trainer.max_epochs} epochs × {math.ceil(batches / accumulate)} steps"
    return {"micro_batch": int(micro) if micro else 1, "accumulate": accumulate, "steps": steps,
            "steps_from": source, "precision": str(cfg.device.precision), "device": str(cfg.device.name),
            "matmul_precision": str(cfg.device.get("matmul_precision", "highest"))}


def peak_kind(precision: str, matmul_precision: str) -> str:
    if "bf16" in precision or precision.startswith("16"):
        return "bf16"
    return "tf32" if matmul_precision in ("high", "medium") else "fp32"


def estimate(one: dict, two: dict, paper: dict, batches: tuple[int, int] = (1, 2),
             activation_factor: float = 1.0) -> dict:
    """The paper step from measurements `one`, `two` at micro-batches `batches` (cost = fixed + per-sample × batch);
    `activation_factor` scales the measured activation bytes (1: measured in the run's own precision)."""
    def at(key: str, batch: int) -> float:
        per_sample = (two[key] - one[key]) / (batches[1] - batches[0])
        return max(one[key] - per_sample * batches[0], 0) + max(per_sample, 0) * batch

    b, acc = paper["micro_batch"], paper["accumulate"]
    kind = peak_kind(paper["precision"], paper["matmul_precision"])
    flops = at("flops", b) * acc
    activations = at("activation_bytes", b) * activation_factor
    memory = 2 * one["param_bytes"] + one["optimizer_state_bytes"] + activations
    out = {"params": one["params"], "flops_per_step": flops, "peak_kind": kind, "memory_gb": memory / 1e9,
           "activation_gb": activations / 1e9, "ops_per_step": one["ops"] * acc}
    for gpu, spec in GPUS.items():
        step_s = max(flops / (spec[kind] * MFU), out["ops_per_step"] * LAUNCH_S)
        out[f"step_s_{gpu}"] = step_s
        out[f"hours_{gpu}"] = paper["steps"] * step_s / 3600
        out[f"fits_{gpu}"] = memory / 1e9 < spec["memory_gb"]
    return out


def activation_method(paper: dict) -> str:
    return "measured, CPU bf16 autocast" if peak_kind(paper["precision"], paper["matmul_precision"]) == "bf16" \
        else "measured, fp32"


def measure_step_freed(preset: str, overrides: list[str], batch: int, precision: str | None = None) -> dict:
    """`measure_step`, its trainer's reference cycles collected before the next measurement allocates: the first
    step's model and optimizer state are freed (370M DeltaAdamW: peak RSS 12.6 GB; without it, killed at 18.8 GB)."""
    try:
        return measure_step(preset, overrides, batch, precision)
    finally:
        gc.collect()


def plan_job(preset: str, overrides: list[str]) -> dict:
    try:
        if takes_no_step(preset, overrides):
            return {"preset": preset, "overrides": overrides, **measure_run(preset, overrides)}
        paper = paper_schedule(preset, overrides)
        batches, step_overrides = MEASURE_AT.get(preset, MEASURE_BATCHES), [*overrides, *STEP_ONLY.get(preset, [])]
        method, factor = activation_method(paper), 1.0
        precision = "bf16-mixed" if method.endswith("autocast") else None
        try:
            one, two = (measure_step_freed(preset, step_overrides, b, precision) for b in batches)
        except Exception as err:  # noqa: BLE001 — an op without a CPU bf16 kernel: fp32 bytes, halved, and said so
            if not precision:
                raise
            method, factor = f"fp32 × {BF16_ACTIVATIONS} (assumed: CPU bf16 step failed: {type(err).__name__})", BF16_ACTIVATIONS
            one, two = (measure_step_freed(preset, step_overrides, b) for b in batches)
    except Exception as err:  # noqa: BLE001 — a job that cannot be measured is reported, the others go on
        cause = err.__cause__ or err  # a constructor's own error, not Hydra's wrapper of it
        return {"preset": preset, "overrides": overrides, "error": f"{type(cause).__name__}: {str(cause).splitlines()[0][:200]}"}
    return {"preset": preset, "overrides": overrides, **paper, **estimate(one, two, paper, batches, factor),
            "measure_batches": list(batches), "activation_method": method, **({"step_only": STEP_ONLY[preset]} if preset in STEP_ONLY else {}),
            "activation_bytes_by_dtype": two["activation_bytes_by_dtype"], "measure_cpu_s": one["cpu_s"] + two["cpu_s"]}


def plan_job_isolated(preset: str, overrides: list[str], timeout_s: int) -> dict:
    """`plan_job` in a fresh process (its memory returns when it ends; a job killed for memory or time is reported)."""
    cmd = [sys.executable, "-m", "reprolab.plan.compute", "--job", preset, *overrides, *(["--data-dir", DATA_DIR[0].split("=", 1)[1]] if DATA_DIR else [])]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        return {"preset": preset, "overrides": overrides, "error": f"measurement ran past {timeout_s} s"}
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        return {"preset": preset, "overrides": overrides,
                "error": f"measurement exited {done.returncode}: {(done.stderr.strip().splitlines() or [''])[-1][:200]}"}
    return json.loads(lines[-1])


def summarise(jobs: list[dict]) -> dict:
    done = [j for j in jobs if "error" not in j]
    gpu, cpu = [j for j in done if "cpu_s_per_run" not in j], [j for j in done if "cpu_s_per_run" in j]
    return {"jobs": jobs, "runs": sum(j["runs"] for j in jobs),
            **{f"gpu_hours_{g}": sum(j["runs"] * j[f"hours_{g}"] for j in gpu) for g in GPUS},
            "cpu_hours": sum(j["runs"] * j["cpu_s_per_run"] for j in cpu) / 3600,
            "max_memory_gb": max((j["memory_gb"] for j in gpu), default=None), "complete": len(done) == len(jobs),
            "stale": any("stale" in j for j in jobs)}


STALE = ("measured by an earlier `make plan` (activations: fp32 bytes × 0.5; ops before 8bb0166 could include the "
         "datamodule set-up); rerun make plan")


def assumptions() -> dict:
    return json.loads(json.dumps({"method": METHOD, "mfu": MFU, "launch_s_per_op": LAUNCH_S,
                                  "bf16_activation_factor_fallback": BF16_ACTIVATIONS,
                                  "measure_batches": MEASURE_BATCHES, "measure_at": MEASURE_AT, "gpus": GPUS}))


def known_jobs(files: list[Path]) -> tuple[dict, dict]:
    """(measured, stale): the jobs of plan files measured as now (or failed when measured as now), and those
    measured another way."""
    measured, stale, failed, now = {}, {}, {}, assumptions()
    for plan_file in [f for f in files if f.is_file()]:
        plan = json.loads(plan_file.read_text())
        for job in (j for e in plan["targets"].values() for j in e["jobs"]):
            key, entry = (job["preset"], tuple(job["overrides"])), {k: v for k, v in job.items() if k != "runs"}
            if "error" in job:
                if plan.get("assumptions") == now:
                    failed[key] = entry
            elif plan.get("assumptions") == now and "stale" not in job:
                measured[key] = entry
            else:
                stale.setdefault(key, {**entry, "stale": entry.get("stale", STALE)})
    return measured, {**failed, **stale}


def build_plan(targets: list[str], out: Path, timeout_s: int = 1800, merge: tuple[Path, ...] = (),
               measure: bool = True) -> dict:
    """Measure every job of `targets` (each distinct one once; those measured as now in `out/plan.json` or a
    `merge` file are kept) and write plan.json after each job, so an interrupted plan resumes where it stopped.
    Until a job is measured again, its number from an earlier method stays, flagged `stale`."""
    plan_file = out / "plan.json"
    measured, stale = known_jobs([plan_file, *merge])

    def fill(job: dict) -> dict:
        key = (job["preset"], tuple(job["overrides"]))
        return {**job, **(measured.get(key) or stale.get(key) or {"error": "not measured yet (run make plan)"})}

    old = json.loads(plan_file.read_text())["targets"] if plan_file.is_file() else {}
    plan = {"assumptions": assumptions(), "targets": {
        t: summarise([fill({k: j[k] for k in ("preset", "overrides", "runs")}) for j in e["jobs"]]) for t, e in old.items()}}
    def write(target: str | None = None, jobs: list[dict] = ()) -> None:
        if target:
            plan["targets"][target] = summarise([fill(j) for j in jobs])
        plan["targets"] = dict(sorted(plan["targets"].items()))
        plan_file.write_text(json.dumps(plan, indent=1, default=str) + "\n")

    for target in targets:
        jobs = target_jobs(target)
        for job in jobs:
            key = (job["preset"], tuple(job["overrides"]))
            if measure and key not in measured:
                print(f"measuring {job['preset']} {' '.join(job['overrides'])}", file=sys.stderr, flush=True)
                measured[key] = plan_job_isolated(*key, timeout_s=timeout_s)
                write(target, jobs)
        write(target, jobs)
    write()
    return plan


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Measured compute of every reproduce-* target → plan.json, PLAN.md")
    parser.add_argument("targets", nargs="*", help="reproduce targets (default: all)")
    parser.add_argument("--out", type=Path, default=REPO_ROOT)
    parser.add_argument("--help-lines", action="store_true", help="print the `make help` block from plan.json")
    parser.add_argument("--data-dir", help="paths.data_dir for the datamodules that have no fake (CPU-sized local data)")
    parser.add_argument("--job", action="store_true", help="measure one job: targets = preset, then its overrides")
    parser.add_argument("--timeout", type=int, default=1800, help="seconds per measured job")
    parser.add_argument("--merge", type=Path, nargs="+", default=[], help="other plan.json files whose jobs to keep")
    parser.add_argument("--no-measure", action="store_true", help="only assemble plan.json/PLAN.md from what is measured")
    args = parser.parse_args(argv)
    if args.data_dir:
        DATA_DIR[:] = [f"paths.data_dir={args.data_dir}"]
    if args.help_lines:
        print_help_lines(args.out / "plan.json")
        return 0
    logging.getLogger("lightning.pytorch").setLevel(logging.ERROR)
    if args.job:
        print(json.dumps(plan_job(args.targets[0], args.targets[1:]), default=str))
        return 0
    plan = build_plan(args.targets or reproduce_targets(), args.out, args.timeout, tuple(args.merge), not args.no_measure)
    (args.out / "PLAN.md").write_text(markdown(plan, "make plan", list(GPUS)))
    for target, entry in plan["targets"].items():
        print(f"{target:40s} {help_line(target, entry)}")
    return 0 if all(e["complete"] for e in plan["targets"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
