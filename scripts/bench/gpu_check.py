"""The GPU device group checked end to end through `reprolab-train`, with throughput, in one script.

    python scripts/bench/gpu_check.py --out "$OUT"          # on a CUDA machine (a few minutes)
    python scripts/bench/gpu_check.py --out /tmp/x --smoke  # the same arms, tiny and on CPU (tests the script)

Arms (each a fresh `reprolab-train` process on generated data, so nothing needs downloading):
ResNet-18 on 32x32 images with `device=gpu` in fp32 (TF32 matmuls), bf16-mixed, bf16 + `device.compile=true`,
and `device=ddp` on one GPU (NCCL initialised, DDP wrapping); a Llama 67M on random bytes with AdamW and
DeltaAdamW (bf16); the paper's 67M AdamW and DeltaAdamW presets as planned (gpu_check_plan.py). Each arm's metrics.json carries `perf/*` from `reprolab.callbacks.StepTimer`; the script
writes `<out>/gpu_check.json` and prints the throughput ratios side by side (bf16/fp32, compile/bf16,
DDP/plain, DeltaAdamW/AdamW). A failing arm is recorded with its error line; the others still run.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gpu_check_plan import PLAN_ARMS, arm_overrides, compare, delta_overhead, load_plan, report  # noqa: E402

TRAIN = [sys.executable, "-m", "reprolab.cli.train"]
COMMON = ["logger=csv", "print_config=false", "trainer.enable_progress_bar=false", "trainer.max_epochs=1",
          "+trainer.limit_val_batches=2", "+trainer.limit_test_batches=2", "trainer.log_every_n_steps=10",
          "+callbacks.step_timer._target_=reprolab.callbacks.StepTimer"]


def make_images(root: Path, per_class: int) -> Path:
    """An ImageFolder tree (train/, test/; 10 classes) of random 32x32 PNGs."""
    rng = np.random.default_rng(0)
    for split, n in (("train", per_class), ("test", max(per_class // 5, 2))):
        for c in range(10):
            folder = root / split / f"class{c}"
            folder.mkdir(parents=True, exist_ok=True)
            for i in range(n):
                Image.fromarray(rng.integers(0, 256, (32, 32, 3), dtype=np.uint8)).save(folder / f"{i}.png")
    return root


def make_text(path: Path, n_bytes: int) -> Path:
    rng = np.random.default_rng(0)
    words = ["".join(map(chr, rng.integers(97, 123, rng.integers(2, 9)))) for _ in range(2000)]
    text = " ".join(rng.choice(words, n_bytes // 5))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text[:n_bytes])
    return path


def arms(images: Path, text: Path, smoke: bool) -> dict[str, list[str]]:
    steps = 4 if smoke else 60
    vision = ["experiment=cifar10/resnet18_sgd", "data=cifar10_folder", f"paths.data_dir={images}",
              f"+trainer.limit_train_batches={steps}", f"data.batch_size={8 if smoke else 256}", "data.num_workers=4"]
    lm = ["experiment=deltamomentum/lm_tiny_adamw", f"paths.data_dir={text.parent}", f"data.path={text.name}",
          "trainer.max_steps=" + str(steps), "trainer.val_check_interval=" + str(steps), "scheduler.warmup_steps=2"]
    if smoke:
        vision += ["model=resnet_small", "device=cpu", "data.num_workers=0", "+callbacks.step_timer.warmup_steps=1"]
        lm += ["+callbacks.step_timer.warmup_steps=1"]
        lm += ["data.seq_len=32", "data.batch_size=2"]
        return {"fp32": [*vision, "device.precision=32-true"], "bf16": [*vision, "device.precision=bf16-mixed"],
                "adamw": lm, "delta_adamw": [*lm, "optimizer=delta_adamw", "optimizer.lr=3e-3"]}
    lm += ["model=llama_67m", "device=gpu", "data.seq_len=1024", "data.batch_size=16"]
    return {
        "fp32": [*vision, "device.precision=32-true"],
        "bf16": vision,
        "bf16_compile": [*vision, "device.compile=true"],
        "ddp_1gpu": [*vision, "device=ddp", "device.devices=1"],
        "adamw": lm,
        "delta_adamw": [*lm, "optimizer=delta_adamw", "optimizer.lr=3e-3"],
        # the paper's 67M presets as planned, compared with plan.json below
        **{arm: arm_overrides(preset=preset) for arm, preset in PLAN_ARMS.items()},
    }


def fresh_run_dir(out: Path, name: str) -> Path:
    """`<out>/runs/<name>`, an earlier check's run moved to `<name>-<time>` first: reprolab-train never runs into a
    folder that holds a finished run."""
    run_dir = out / "runs" / name
    if run_dir.exists():
        run_dir.rename(run_dir.with_name(f"{name}-{time.strftime('%Y%m%d-%H%M%S', time.localtime(run_dir.stat().st_mtime))}"))
    return run_dir


def run_arm(name: str, overrides: list[str], out: Path, timeout: int) -> dict:
    run_dir = fresh_run_dir(out, name)
    cmd = [*TRAIN, *overrides, *COMMON, f"hydra.run.dir={run_dir}"]
    start = time.time()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        rc, tail = proc.returncode, (proc.stderr or proc.stdout).strip().splitlines()[-3:]
    except subprocess.TimeoutExpired:
        rc, tail = 124, [f"timed out after {timeout} s"]
    metrics_file = run_dir / "metrics.json"
    metrics = json.loads(metrics_file.read_text()) if metrics_file.is_file() else {}
    perf = {k: v for k, v in metrics.items() if k.startswith("perf/")}
    return {"arm": name, "rc": rc, "wall_s": round(time.time() - start, 1), **perf,
            **({} if rc == 0 else {"error": " | ".join(tail)}), "overrides": overrides}


def ratios(results: dict[str, dict]) -> dict[str, float]:
    def rate(name: str) -> float | None:
        r = results.get(name, {})
        return r.get("perf/tokens_per_s") or r.get("perf/samples_per_s")

    pairs = {"bf16 / fp32": ("bf16", "fp32"), "compile / bf16": ("bf16_compile", "bf16"),
             "ddp(1 GPU) / plain": ("ddp_1gpu", "bf16"), "DeltaAdamW / AdamW": ("delta_adamw", "adamw")}
    return {label: rate(a) / rate(b) for label, (a, b) in pairs.items() if rate(a) and rate(b)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(os.environ.get("OUT", "logs/gpu_check")))
    parser.add_argument("--smoke", action="store_true", help="tiny CPU version of every arm that runs on CPU")
    parser.add_argument("--timeout", type=int, default=240, help="seconds per arm")
    args = parser.parse_args()
    data = args.out / "data"
    images = make_images(data / "images", 4 if args.smoke else 1600)
    text = make_text(data / "text" / "random.txt", 200_000 if args.smoke else 5_000_000)
    results = {}
    for name, overrides in arms(images, text, args.smoke).items():
        results[name] = run_arm(name, overrides, args.out, args.timeout)
        r = results[name]
        rate = r.get("perf/tokens_per_s") or r.get("perf/samples_per_s")
        print(f"{name:14s} rc={r['rc']} step={r.get('perf/step_ms', float('nan')):.1f} ms rate={rate} "
              f"{r.get('error', '')}", flush=True)
    summary = {"results": results, "ratios": ratios(results), "smoke": args.smoke}
    try:
        import torch

        summary["device"] = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "cpu"
    except Exception as err:  # the report still gets written
        summary["device"] = f"unknown ({err})"
    plan = load_plan(Path(__file__).resolve().parents[2] / "plan.json")
    if plan is not None:
        summary["plan_check"] = {arm: compare(results[arm], plan, summary["device"], preset)
                                 for arm, preset in PLAN_ARMS.items() if arm in results}
    summary["delta_overhead_67m"] = delta_overhead(results)
    (args.out / "gpu_check.json").write_text(json.dumps(summary, indent=1))
    for label, value in summary["ratios"].items():
        print(f"{label:20s} {value:.3f}")
    for comparison in summary.get("plan_check", {}).values():
        print(report(comparison))
    if summary["delta_overhead_67m"]:
        print(summary["delta_overhead_67m"])
    return 0 if all(r["rc"] == 0 for r in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
