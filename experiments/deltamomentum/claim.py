"""DeltaMomentum claim checks 1–4 on CPU: seeds in, tables and figures out (`make claim-deltamomentum`).

    python -m experiments.deltamomentum.claim                    # all four, ~15 min of one core
    python -m experiments.deltamomentum.claim --only lm --quick  # one check, smoke-sized

Writes ``<out>/claim.json`` (every number), ``<out>/claim.md`` (the tables RESULTS.md quotes) and PNGs
under experiments/deltamomentum/figures/. Plain PyTorch loops (tiny models; see each claim_*.py).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path

import numpy as np
import torch

HERE = Path(__file__).resolve().parent
CHECKS = ("regression", "lm", "cifar", "mup", "lm_ablation")


def fmt(xs, digits=1) -> str:
    xs = [x for x in xs if math.isfinite(x)]
    if not xs:
        return "never"
    return f"{np.mean(xs):.{digits}f} ± {np.std(xs, ddof=1) if len(xs) > 1 else 0.0:.{digits}f}"


def run_regression(seeds, quick: bool, drift: float) -> tuple[dict, list[str]]:
    from experiments.deltamomentum.claim_regression import memory_horizons, tuned_steps

    kw = dict(max_steps=300 if quick else 2000, drift=drift)
    rows = {name: tuned_steps(name, seeds, **kw) for name in ("sgdm", "delta_sgd", "adamw", "delta_adamw")}
    horizons = memory_horizons(seeds, steps=60 if quick else 150)
    md = ["### 1. Anisotropic streaming linear regression (d = 32, λ over 3.5 decades, rotated, "
          f"batch 16, drift {drift})", "",
          "| optimizer | tuned lr | steps to 1% excess risk (mean ± std) | per seed |", "|---|---|---|---|"]
    for name, r in rows.items():
        md.append(f"| {name} | {r['lr']:g} | {fmt(r['steps'])} | {', '.join(f'{s:g}' for s in r['steps'])} |")
    for base, delta in (("sgdm", "delta_sgd"), ("adamw", "delta_adamw")):
        ratio = np.mean(rows[delta]["steps"]) / np.mean(rows[base]["steps"])
        md.append(f"\n{delta} needs {ratio:.2f}× the steps of {base} (mean over seeds, each at its tuned lr).")
    err = np.abs(np.array(horizons["measured"]) / np.array(horizons["tau"]) - 1)
    md += ["", f"Memory horizons (DeltaSGD, β = {horizons['beta']}, η·λmax = 0.8): measured Σₜ qᵢᵀMₜqᵢ "
           f"matches τᵢ = 1/((1−β)+ηλᵢ) within {100 * err.max():.1f}% (max over the 32 directions); "
           f"τ ranges {min(horizons['tau']):.2f}–{max(horizons['tau']):.2f} steps against the EMA's "
           f"{horizons['tau_ema']:.2f}. Figure: `figures/horizons.png`."]
    _plot_horizons(horizons)
    return {"steps": rows, "horizons": horizons}, md


def run_lm(seeds, quick: bool, data_dir: str, path: str = "tinyshakespeare/input.txt") -> tuple[dict, list[str]]:
    from experiments.deltamomentum.claim_lm import lm_data, lr_sweep

    dm = lm_data(data_dir, path)
    figure = "lm_curves.png" if path.startswith("tinyshakespeare") else f"lm_curves_{Path(path).parent.name}.png"
    lrs = [3e-3] if quick else [1e-3, 3e-3, 1e-2, 3e-2]
    res = lr_sweep(dm, seeds, lrs, steps=40 if quick else 240, eval_every=10)
    md = [f"### 2. Tiny Llama on `{path}` bytes (d 64, 2 layers, seq 64, batch 16, "
          f"{res['adamw']['runs'][lrs[0]][0]['steps'][-1]} steps, warm-up + cosine)", "",
          "| optimizer | lr | terminal val loss (mean ± std) |", "|---|---|---|"]
    for name in ("adamw", "delta_adamw"):
        for lr in lrs:
            best = " (best)" if lr == res[name]["best_lr"] else ""
            md.append(f"| {name} | {lr:g}{best} | {fmt([r['val'][-1] for r in res[name]['runs'][lr]], 4)} |")
    saved = res["steps_saved"]
    md += ["", f"Steps saved by DeltaAdamW at each optimizer's best lr: {fmt([100 * s for s in saved])}% "
           f"(per seed: {', '.join(f'{100 * s:.1f}%' for s in saved)}; paper at 67M: 31.35%). "
           f"Figure: `figures/{figure}`."]
    _plot_lm(res, figure)
    return res, md


def run_lm_ablation(seeds, quick: bool, data_dir: str, path: str) -> tuple[dict, list[str]]:
    from experiments.deltamomentum.claim_lm import ablation, lm_data

    dm = lm_data(data_dir, path)
    lr = 1e-2
    res = ablation(dm, seeds, lr, steps=40 if quick else 240, eval_every=40 if quick else 240)
    md = [f"### 2b. Open choices of DeltaAdamW on `{path}` (lr {lr:g}, otherwise as check 2)", "",
          "| variant | terminal val loss (mean ± std) | per seed |", "|---|---|---|"]
    for label, losses in res.items():
        md.append(f"| {label} | {fmt(losses, 4)} | {', '.join(f'{v:.3f}' for v in losses)} |")
    return res, md


def run_cifar(seeds, quick: bool, data_dir: str) -> tuple[dict, list[str]]:
    from experiments.deltamomentum.claim_cifar import compare, load_subset

    data = load_subset(Path(data_dir) / "cifar10-jpeg-subset")
    epochs = 1 if quick else 6
    res = compare(data, seeds, epochs=epochs, max_keys=8192)
    md = [f"### 3. CIFAR-10 subset (2,000 train / 1,000 test real images), ResNet-8 width 16, {epochs} epochs, "
          "lr 0.05 Nesterov, cosine", "", "| optimizer | test accuracy (mean ± std) | per seed |", "|---|---|---|"]
    for name, r in res.items():
        md.append(f"| {name} | {100 * r['mean']:.1f} ± {100 * r['std']:.1f}% | "
                  f"{', '.join(f'{100 * a:.1f}' for a in r['acc'])} |")
    return res, md


def run_mup(quick: bool, data_dir: str) -> tuple[dict, list[str]]:
    from experiments.deltamomentum.claim_lm import lm_data
    from experiments.deltamomentum.claim_mup import WIDTHS, best_eta, coordinate_check

    dm = lm_data(data_dir, seq_len=32, batch=8)
    widths = WIDTHS[:3] if quick else WIDTHS
    coords = coordinate_check(dm, widths=widths)
    etas = best_eta(dm, steps=10 if quick else 40, widths=widths)
    md = ["### 4. μP coordinate check (tiny Llama, base width 32, DeltaAdamW η = 0.5, lr 1e-2, 5 steps)", "",
          "| width | mean abs(h₀) | mean abs(h₅ − h₀) | mean abs(Δlogits) | λ̂max hidden keys | best η (40 steps) | "
          "loss at η = 0 / 0.25 / 0.5 / 1 |", "|---|---|---|---|---|---|---|"]
    for w in widths:
        c, e = coords[w], etas[w]
        md.append(f"| {w} | {c['h0']:.4f} | {c['dh']:.3f} | {c['dlogits']:.3f} | {c['lmax_hidden']:.1f} | "
                  f"{e['best_eta']:g} | {' / '.join(f'{v:.3f}' for v in e['losses'].values())} |")
    _plot_mup(coords, widths)
    return {"coords": coords, "best_eta": etas}, md


def _figure():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    (HERE / "figures").mkdir(exist_ok=True)
    return plt


def _plot_horizons(h):
    plt = _figure()
    fig, ax = plt.subplots(figsize=(5, 3.5))
    ax.plot(h["lambda"], h["tau"], "-", label="τᵢ = 1/((1−β)+ηλᵢ)")
    ax.errorbar(h["lambda"], h["measured"], yerr=h["measured_std"], fmt="o", ms=3, label="measured")
    ax.axhline(h["tau_ema"], ls="--", c="gray", label="EMA (η = 0)")
    ax.set(xscale="log", xlabel="key eigenvalue λᵢ", ylabel="memory horizon (steps)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(HERE / "figures/horizons.png", dpi=120)
    plt.close(fig)


def _plot_lm(res, figure: str = "lm_curves.png"):
    plt = _figure()
    fig, ax = plt.subplots(figsize=(5, 3.5))
    for name in ("adamw", "delta_adamw"):
        runs = res[name]["runs"][res[name]["best_lr"]]
        vals = np.array([r["val"] for r in runs])
        steps = runs[0]["steps"]
        ax.plot(steps, vals.mean(0), label=f"{name} lr {res[name]['best_lr']:g}")
        ax.fill_between(steps, vals.min(0), vals.max(0), alpha=0.2)
    ax.set(xlabel="step", ylabel="validation cross-entropy (nats/byte)", ylim=(None, 3.5))
    ax.legend()
    fig.tight_layout()
    fig.savefig(HERE / "figures" / figure, dpi=120)
    plt.close(fig)


def _plot_mup(coords, widths):
    plt = _figure()
    fig, axes = plt.subplots(1, 2, figsize=(8, 3.2))
    for key in ("h0", "dh", "dlogits"):
        axes[0].plot(widths, [coords[w][key] for w in widths], "o-", label=key)
    axes[0].set(xscale="log", yscale="log", xlabel="width", title="coordinate size (μP, DeltaAdamW)")
    axes[0].legend()
    axes[1].plot(widths, [coords[w]["lmax_hidden"] for w in widths], "o-")
    axes[1].set(xscale="log", yscale="log", xlabel="width", title="λ̂max of hidden key covariance")
    for ax in axes:
        ax.set_xticks(list(widths), [str(w) for w in widths])
        ax.minorticks_off()
    fig.tight_layout()
    fig.savefig(HERE / "figures/mup_coord_check.png", dpi=120)
    plt.close(fig)


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--only", default=",".join(CHECKS[:4]), help=f"comma list of {CHECKS}")
    p.add_argument("--seeds", default="0,1,2")
    p.add_argument("--quick", action="store_true", help="smoke-sized runs (tests)")
    p.add_argument("--lm-path", default="tinyshakespeare/input.txt",
                   help="text for check 2, under --data-dir (e.g. fineweb-edu-sample150/texts.jsonl)")
    p.add_argument("--drift", type=float, default=0.0, help="random-walk drift of w* in check 1")
    p.add_argument("--data-dir", default=os.environ.get("REPROLAB_SHARED_DATA", str(HERE.parents[1].parent
                                                                                    / "shared" / "data")))
    p.add_argument("--out", type=Path, default=HERE / "results")
    argv = sys.argv[1:] if argv is None else argv
    a = p.parse_args(argv)
    torch.set_num_threads(1)
    seeds = [int(s) for s in a.seeds.split(",")]
    a.out.mkdir(parents=True, exist_ok=True)
    results, md = {}, ["Command: `" + " ".join(["python -m experiments.deltamomentum.claim", *argv]) + "`"]
    for check in a.only.split(","):
        start = time.process_time()
        if check == "regression":
            results[check], lines = run_regression(seeds, a.quick, a.drift)
        elif check == "lm":
            results[check], lines = run_lm(seeds, a.quick, a.data_dir, a.lm_path)
        elif check == "cifar":
            results[check], lines = run_cifar(seeds, a.quick, a.data_dir)
        elif check == "lm_ablation":
            results[check], lines = run_lm_ablation(seeds, a.quick, a.data_dir, a.lm_path)
        elif check == "mup":
            results[check], lines = run_mup(a.quick, a.data_dir)
        else:
            raise SystemExit(f"unknown check {check!r}; choose from {CHECKS}")
        lines.append(f"\n(CPU time: {time.process_time() - start:.0f} s)")
        md += ["", *lines]
        print("\n".join(lines), flush=True)
    (a.out / "claim.json").write_text(json.dumps(results, indent=1, default=str))
    (a.out / "claim.md").write_text("\n".join(md) + "\n")
    print(f"tables: {a.out / 'claim.md'}; figures: {HERE / 'figures'}")


if __name__ == "__main__":
    main()
