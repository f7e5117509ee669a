"""Tables and the figure of the claim check, from the records `claim.py` wrote.

    python -m experiments.degbins.report logs/claim-degbins
prints the markdown table (mean +- std over seeds of the per-set mean RMSE) and writes
`figures/claim_x8_lu.png`: LR input, prediction, |error| and bin-probability entropy on one Lu image.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import torch

from experiments.degbins.claim import VARIANTS, ClaimConfig, load_sets, samples_for, summarise
from experiments.degbins.model import DegBinsNet

FIGURES = Path(__file__).resolve().parent / "figures"
ORDER = ("bicubic", "regression", "bins-1", "bins-2", "bins-3")
SET_TITLES = {"lu": "Lu (6)", "middlebury": "Middlebury held-out (10)"}


def table(records: list[dict]) -> str:
    stats = summarise(records)
    scales = sorted({r["scale"] for r in records})
    lines = []
    for name, title in SET_TITLES.items():
        lines += [f"**{title}**, RMSE on the 0-255 scale (lower is better)", "",
                  "| method | " + " | ".join(f"x{s}" for s in scales) + " |",
                  "|---|" + "---|" * len(scales)]
        for variant in ORDER:
            cells = []
            for s in scales:
                if (name, s, variant) not in stats:
                    cells.append("-")
                    continue
                mean, std, n = stats[(name, s, variant)]
                cells.append(f"{mean:.3f}" if variant == "bicubic" else f"{mean:.3f} ± {std:.3f} (n={n})")
            lines.append(f"| {variant} | " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)


def delta_table(records: list[dict]) -> str:
    """RMSE minus bicubic RMSE (same images), mean +- std over seeds, to 4 decimals: how far each head moved."""
    bicubic = {(r["set"], r["scale"]): float(np.mean(r["rmse"])) for r in records if r["variant"] == "bicubic"}
    shifted = [dict(r, rmse=[float(np.mean(r["rmse"])) - bicubic[(r["set"], r["scale"])]])
               for r in records if r["variant"] != "bicubic"]
    stats = summarise(shifted)
    scales = sorted({r["scale"] for r in records})
    lines = ["| set | method | " + " | ".join(f"x{s}" for s in scales) + " |", "|---|---|" + "---|" * len(scales)]
    for name in SET_TITLES:
        for variant in ORDER[1:]:
            cells = [f"{stats[(name, s, variant)][0]:+.4f} ± {stats[(name, s, variant)][1]:.4f}"
                     if (name, s, variant) in stats else "-" for s in scales]
            lines.append(f"| {name} | {variant} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def wins(records: list[dict]) -> str:
    """How often (per scale, set and seed) each bins variant beats regression trained with the same seed."""
    by_key = {(r["set"], r["scale"], r["variant"], r["seed"]): float(np.mean(r["rmse"])) for r in records}
    out = []
    for variant in ("bins-1", "bins-2", "bins-3"):
        pairs = [(v, by_key[(s, sc, "regression", seed)]) for (s, sc, var, seed), v in by_key.items()
                 if var == variant and (s, sc, "regression", seed) in by_key]
        better = sum(v < reg for v, reg in pairs)
        if not pairs:
            continue
        out.append(f"{variant} < regression in {better}/{len(pairs)} (set, scale, seed) cells")
    return "; ".join(out)


@torch.no_grad()
def figure(results: Path, data: Path, scale: int = 8, image: int = 0,
           models: tuple = (("regression", 0), ("bins-3", 0)), name: str | None = None) -> Path:
    """LR / prediction / |error| / entropy rows for `models` ((variant, seed) with saved state dicts)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cfg = ClaimConfig(**{k: v for k, v in json.loads((results / "records.json").read_text())["config"].items()
                         if k in ("model",)})
    sample = samples_for([load_sets(data)["lu"][image]], scale)[0]
    rgb, lr, gt = sample["rgb"][None], sample["lr"][None], sample["gt"][None]
    rows = []
    for variant, seed in models:
        head, stages = VARIANTS[variant]
        model = DegBinsNet(head=head, stages=stages, **cfg.model)
        model.load_state_dict(torch.load(results / f"x{scale}_{variant}_seed{seed}.pt", weights_only=True))
        rows.append((f"{variant} seed {seed}", model.eval()(rgb, lr)))
    up = rows[0][1]["up"]
    fig, axes = plt.subplots(2, 4, figsize=(16, 6.4))
    err_max = float((up - gt).abs().quantile(0.999)) * 255
    for row, (variant, out) in zip(axes, rows, strict=True):
        pred = out["depth"][-1]
        panels = [(f"LR input (x{scale}, nearest)", lr[0, 0], "viridis", None),
                  (f"{variant} prediction", pred[0, 0], "viridis", None),
                  (f"|error| x255 ({variant})", (pred - gt).abs()[0, 0] * 255, "magma", (0, err_max)),
                  ("bin entropy (nats)", out["entropy"][0, 0] if "entropy" in out else None, "cividis", None)]
        for ax, (title, img, cmap, lim) in zip(row, panels, strict=True):
            ax.axis("off")
            if img is None:
                ax.set_title("regression: no bins")
                continue
            shown = ax.imshow(img.numpy(), cmap=cmap, interpolation="nearest",
                              vmin=None if lim is None else lim[0], vmax=None if lim is None else lim[1])
            ax.set_title(title)
            fig.colorbar(shown, ax=ax, fraction=0.035)
    fig.suptitle(f"Lu image {image + 1}, x{scale} (claim-check models)")
    fig.tight_layout()
    FIGURES.mkdir(exist_ok=True)
    path = FIGURES / (name or f"claim_x{scale}_lu.png")
    fig.savefig(path, dpi=80)
    return path


def main() -> None:
    results = Path(sys.argv[1] if len(sys.argv) > 1 else "logs/claim-degbins")
    data = Path(sys.argv[2] if len(sys.argv) > 2 else "../shared/data/depth-sr")
    payload = json.loads((results / "records.json").read_text())
    print(table(payload["records"]))
    print(delta_table(payload["records"]))
    print()
    print(wins(payload["records"]))
    print("parameters:", payload["params"])
    print("figure:", figure(results, data))


if __name__ == "__main__":
    main()
