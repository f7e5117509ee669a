"""The plan against the GPU: measured step time and peak memory of the 67M preset over `make plan`'s prediction.

`gpu_check.py` runs two arms, the paper's 67M AdamW and DeltaAdamW presets (`fineweb_67m`, `fineweb_67m_delta`:
each on `+data/fake=on`, a few optimizer steps at the paper's micro-batch and accumulation), and prints
`measured / predicted` for both; a ratio far from 1 says which assumption of src/reprolab/plan/compute.py (MFU, launch
count, activation bytes) to revisit. Their step-time ratio is DeltaAdamW's realised overhead at the paper's shape,
next to the paper's 7.3 % (issue 14 §3).
"""

from __future__ import annotations

import json
from pathlib import Path

PRESET = "deltamomentum/fineweb_67m_adamw"
ARM = "fineweb_67m"
PLAN_ARMS = {ARM: PRESET, "fineweb_67m_delta": "deltamomentum/fineweb_67m_delta"}  # arm name → paper preset
PAPER_DELTA_OVERHEAD_67M = 0.073  # the paper's realised DeltaAdamW step-time overhead at 67M


def arm_overrides(steps: int = 4, preset: str = PRESET) -> list[str]:
    """A 67M preset as planned (micro-batch 64 × 8 accumulated, bf16), `steps` optimizer steps, no eval."""
    return [f"experiment={preset}", "+data/fake=on", "data.num_workers=2", f"trainer.max_steps={steps}",
            "test_after_fit=false", "+callbacks.step_timer.warmup_steps=1",
            "+callbacks.peak_memory._target_=reprolab.callbacks.peak_memory.PeakMemory"]


def gpu_key(device_name: str) -> str:
    return "H200" if "H200" in device_name.upper() else "H100"


def predicted(plan: dict, gpu: str, preset: str = PRESET) -> dict:
    """plan.json's step time (s per optimizer step) and memory (GB) for `preset` on `gpu`."""
    for entry in plan["targets"].values():
        for job in entry["jobs"]:
            if job["preset"] == preset and "error" not in job:
                return {"step_s": job[f"step_s_{gpu}"], "memory_gb": job["memory_gb"], "accumulate": job["accumulate"]}
    raise KeyError(f"plan.json has no measured job for {preset}; run `make plan`")


def compare(arm: dict, plan: dict, device_name: str, preset: str = PRESET) -> dict:
    """measured / predicted for the optimizer step time and the peak memory (None where the arm lacks a number).

    StepTimer's `perf/step_ms` is the median micro-batch, so one optimizer step is that × the accumulation."""
    pred = predicted(plan, gpu_key(device_name), preset)
    out = {"preset": preset, "gpu": gpu_key(device_name), "predicted_step_s": pred["step_s"], "predicted_memory_gb": pred["memory_gb"]}
    if arm.get("perf/step_ms"):
        out["measured_step_s"] = arm["perf/step_ms"] / 1000 * pred["accumulate"]
        out["step_time_ratio"] = out["measured_step_s"] / pred["step_s"]
    if arm.get("perf/peak_memory_gb"):
        out["measured_memory_gb"] = arm["perf/peak_memory_gb"]
        out["memory_ratio"] = out["measured_memory_gb"] / pred["memory_gb"]
    return out


def report(comparison: dict) -> str:
    def ratio(key: str) -> str:
        return f"{comparison[key]:.2f}" if key in comparison else "n/a"

    return (f"plan vs {comparison['gpu']} ({comparison.get('preset', PRESET)}): step time measured/predicted = {ratio('step_time_ratio')} "
            f"(predicted {comparison['predicted_step_s']:.3f} s), peak memory measured/predicted = "
            f"{ratio('memory_ratio')} (predicted {comparison['predicted_memory_gb']:.2f} GB)")


def load_plan(path: Path) -> dict | None:
    return json.loads(path.read_text()) if path.is_file() else None


def delta_overhead(results: dict) -> str | None:
    """DeltaAdamW's step-time overhead over AdamW at the 67M paper shape, beside the paper's realised 7.3 %."""
    a, d = (results.get(arm, {}).get("perf/step_ms") for arm in PLAN_ARMS)
    if not (a and d):
        return None
    return (f"67M DeltaAdamW / AdamW step time = {d / a:.3f} (overhead {100 * (d / a - 1):.1f} %; "
            f"the paper's realised {100 * PAPER_DELTA_OVERHEAD_67M:.1f} %)")
