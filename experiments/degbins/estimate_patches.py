"""Diagnostic (post hoc, no claim): does the degradation estimate fail because the test pools whole images?

    python -m experiments.degbins.estimate_patches logs/claims/degbins/degradation_b32_film [more folders] [--data-dir D]

The estimate ĉ is a linear read-out of Z averaged over the whole input (model.py). Training feeds it
`data.patch_size`² patches; the test feeds it whole images, whose pooled Z may differ. For every finished run with an
estimator below the folders: load its tested model (`reprolab.run.finished_model.load_run_model`), rebuild its test sets from its own
config (the same images and the same fixed LR noise), and compute, per test set × degradation, the mean over images of
‖ĉ − c‖ (code units) four ways:
- `whole`: ĉ from the whole image, as the test does; it must equal the run's logged `test/degradation_error_<set>`
  (checked to `TOLERANCE`, else ValueError);
- `tiles`: ĉ averaged over the non-overlapping `patch_size`² tiles that fit in the image (their LR tiles cut from the
  image's LR map, as training patches are);
- `edge tiles`: the same over the tiles whose HR depth range is ≥ `data.min_edge` (training redraws flatter patches);
  an image with no such tile is left out of this mean;
- `constant`: ĉ = the mean code of the training mix (`data.train_degradations`), for every image.
Prints one markdown table (mean ± std over runs per cell) and, per way, how many cells lie under `BAR` and how many of
the cells where `whole` is over it the way brings under it. Nothing is written.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from statistics import mean, stdev

import torch
from hydra.utils import instantiate
from torch import Tensor

from experiments.degbins.model import degradation_code
from reprolab.results.runs import find_runs
from reprolab.run.finished_model import load_run_model

BAR = 0.125  # pre-registered (RESULTS.md, session 7): half the smallest spacing between the four codes
TOLERANCE = 2e-6  # |whole − logged|: the same float32 forward, averaged over images by Lightning in float32
WAYS = ("whole", "tiles", "edge tiles", "constant")


def tiles(sample: dict, patch: int) -> tuple[Tensor, Tensor, Tensor]:
    """The non-overlapping patch × patch HR tiles of an image sample (row-major; a remainder at the right and bottom
    edges is left out) and their aligned LR tiles: rgb (T,3,P,P), lr (T,1,P/s,P/s), gt (T,1,P,P)."""
    scale = int(sample["degradation"][0])
    _, h, w = sample["gt"].shape
    if patch % scale:
        raise ValueError(f"patch size {patch} must be a multiple of the scale {scale}")
    if h < patch or w < patch:
        raise ValueError(f"image {h}x{w} is smaller than the {patch}px patch")
    corners = [(y, x) for y in range(0, h - patch + 1, patch) for x in range(0, w - patch + 1, patch)]
    lp = patch // scale
    return (torch.stack([sample["rgb"][:, y:y + patch, x:x + patch] for y, x in corners]),
            torch.stack([sample["lr"][:, y // scale:y // scale + lp, x // scale:x // scale + lp] for y, x in corners]),
            torch.stack([sample["gt"][:, y:y + patch, x:x + patch] for y, x in corners]))


def estimate(model: torch.nn.Module, rgb: Tensor, lr: Tensor, degradation: Tensor) -> Tensor:
    """(B, 2) degradation estimates ĉ of a batch, through the model's own forward (eval mode, no gradients)."""
    with torch.no_grad():
        return model(rgb, lr, degradation.expand(rgb.shape[0], 2))["degradation_estimate"]


def image_estimates(model: torch.nn.Module, sample: dict, patch: int, min_edge: float) -> dict[str, Tensor | None]:
    """ĉ (2,) of one test image: `whole` (as the test), `tiles` (mean over its patch tiles), `edge tiles` (mean over
    the tiles with depth range ≥ min_edge; None when there is none)."""
    degradation = sample["degradation"][None]
    whole = estimate(model, sample["rgb"][None], sample["lr"][None], degradation)[0]
    rgb, lr, gt = tiles(sample, patch)
    per_tile = estimate(model, rgb, lr, degradation)
    edged = (gt.amax((1, 2, 3)) - gt.amin((1, 2, 3))) >= min_edge
    return {"whole": whole, "tiles": per_tile.mean(0), "edge tiles": per_tile[edged].mean(0) if edged.any() else None}


def mean_code(degradations) -> Tensor:
    """The mean code of a training mix (each degradation equally likely per batch, `degrade.MixedPatchDataset`)."""
    return degradation_code(torch.tensor([[float(s), float(n)] for s, n in degradations])).mean(0)


def set_errors(model: torch.nn.Module, samples, patch: int, min_edge: float, constant: Tensor) -> dict[str, float]:
    """Mean over a test set's images of ‖ĉ − c‖, each way (edge tiles: over the images that have one)."""
    errors = {way: [] for way in WAYS}
    for sample in samples:
        code = degradation_code(sample["degradation"][None])[0]
        for way, c_hat in {**image_estimates(model, sample, patch, min_edge), "constant": constant}.items():
            if c_hat is not None:
                errors[way].append(float((c_hat - code).norm()))
    return {way: mean(values) if values else float("nan") for way, values in errors.items()}


def run_errors(run_dir: str | Path, data_dir: str | None = None) -> dict[str, dict[str, float]]:
    """test set name → way → mean error, for one finished run; `whole` checked against the run's logged value."""
    model, cfg = load_run_model(run_dir)
    if getattr(model, "estimator", None) is None:
        raise ValueError(f"run '{run_dir}' has no degradation estimate (model.estimate_degradation is false)")
    datamodule = instantiate(cfg.data, **({"data_dir": data_dir} if data_dir else {}))
    datamodule.setup("test")
    logged = json.loads((Path(run_dir) / "metrics.json").read_text())
    constant = mean_code(cfg.data.train_degradations or [[cfg.data.scale, cfg.data.noise_std]])
    out = {}
    for (name, _), dataset in zip(datamodule.conventions("test"), datamodule.test_sets, strict=True):
        out[name] = set_errors(model, dataset, int(cfg.data.patch_size), float(cfg.data.min_edge), constant)
        key = f"test/degradation_error_{name}"
        if abs(out[name]["whole"] - logged[key]) > TOLERANCE:
            raise ValueError(f"{run_dir}: whole-image error {out[name]['whole']:.8f} does not reproduce the logged "
                             f"{key} = {logged[key]:.8f}; the model, data or code differ from the run's")
    return out


def table(results: list[dict[str, dict[str, float]]]) -> list[str]:
    """Mean ± std over runs per test set × way, and the counts under the bar."""
    names = list(results[0])
    cells = {(n, w): [r[n][w] for r in results] for n in names for w in WAYS}
    summary = {k: (mean(v), stdev(v) if len(v) > 1 else 0.0) for k, v in cells.items()}
    lines = ["| test set | " + " | ".join(WAYS) + " |", "|---|" + "---|" * len(WAYS)]
    lines += [f"| {n} | " + " | ".join(f"{summary[n, w][0]:.4f} ± {summary[n, w][1]:.4f}" for w in WAYS) + " |"
              for n in names]
    over = [n for n in names if summary[n, "whole"][0] >= BAR]
    lines.append("")
    for way in WAYS:
        under = sum(summary[n, way][0] < BAR for n in names)
        fixed = sum(summary[n, way][0] < BAR for n in over)
        lines.append(f"- {way}: {under} of {len(names)} cells under {BAR}; {fixed} of the {len(over)} cells over it "
                     "with whole images brought under it")
    return lines


def report(folders: list[Path], data_dir: str | None = None) -> list[str]:
    runs = [r for r in find_runs(folders) if r.finished and r.get("model.estimate_degradation")]
    if not runs:
        raise ValueError(f"no finished run with a degradation estimate below {', '.join(map(str, folders))}")
    header = [f"{len(runs)} runs: " + ", ".join(f"{r.path} (seed {r.get('seed')})" for r in runs), ""]
    return header + table([run_errors(r.path, data_dir) for r in runs])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("folders", nargs="+", type=Path)
    p.add_argument("--data-dir", help="the data folder, when not the one the runs were given (paths.data_dir)")
    args = p.parse_args()
    print("\n".join(report(args.folders, args.data_dir)))


if __name__ == "__main__":
    main()
