"""Claim check (CPU, one thread): do degradation-driven bins beat a plain regression head of equal size?

Plain PyTorch (no Lightning) because dozens of tiny runs dominate the budget otherwise. Protocol:
- train pool: the 45 RGB-D-D pairs of `depth-sr/RGBDD_subset` + 20 Middlebury images whose scenes are
  not in the held-out list (`MIDDLEBURY_HELDOUT`, 10 single-view scenes; no scene family is split);
- test: Lu (6, complete) and the 10 held-out Middlebury images, full resolution, at x4/x8/x16;
- for each scale and seed: bins head with 1, 2, 3 stages, the regression head (same backbone, equal
  parameter count), and bicubic; RMSE on the 0-255 scale with a 6-px border crop (`dsr_rmse`).
No validation split and no early stopping: every model is evaluated after its last step.

    python -m experiments.degbins.claim --out logs/claim-degbins  (or `make claim-degbins`)
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import torch

from experiments.degbins.degrade import CONVENTION_OF_KIND, PatchDataset, make_sample
from experiments.degbins.metrics import dsr_rmse
from experiments.degbins.model import DegBinsNet, bicubic_upsample, count_parameters, stage_loss
from experiments.degbins.sets import read_folder_set

MIDDLEBURY_HELDOUT = (1, 2, 6, 13, 14, 15, 21, 22, 24, 27)  # Aloe, Art, Books, Cones, Dolls, Flowerpots,
# Moebius, Monopoly, Reindeer, Teddy: scenes with one view in the set, so no family straddles the split.
VARIANTS = {"regression": ("regression", 1), "bins-1": ("bins", 1), "bins-2": ("bins", 2), "bins-3": ("bins", 3)}


@dataclass
class ClaimConfig:
    scales: tuple[int, ...] = (4, 8, 16)
    seeds: tuple[int, ...] = (0, 1, 2)
    variants: tuple[str, ...] = tuple(VARIANTS)
    steps: int = 200
    batch_size: int = 4
    patch: int = 64
    lr: float = 2e-3
    loss: str = "mse"  # L1 left the bins head at bicubic within a few hundred steps (README)
    min_edge: float = 0.05  # redraw patches whose depth range is below 5% of the normalised scale
    model: dict = field(default_factory=lambda: dict(channels=16, dilations=(1, 2, 4), num_bins=16,
                                                     residual_range=1.0, unshuffle=4))


def load_sets(root: Path) -> dict:
    """Raw pairs: the training pool and the two test sets."""
    train = read_folder_set(root / "RGBDD_subset", "rgbdd") + read_folder_set(
        root / "Middlebury", "middlebury", exclude=MIDDLEBURY_HELDOUT)
    return {"train": train, "lu": read_folder_set(root / "Lu", "lu"),
            "middlebury": read_folder_set(root / "Middlebury", "middlebury", include=MIDDLEBURY_HELDOUT)}


def samples_for(pairs, scale: int) -> list[dict]:
    return [make_sample(p, scale, CONVENTION_OF_KIND[p.name.split("/")[0]]) for p in pairs]


def train_model(train_samples: list[dict], scale: int, variant: str, seed: int, cfg: ClaimConfig) -> DegBinsNet:
    head, stages = VARIANTS[variant]
    torch.manual_seed(seed)
    model = DegBinsNet(head=head, stages=stages, **cfg.model)
    data = PatchDataset(train_samples, scale, cfg.patch, length=cfg.steps * cfg.batch_size, seed=seed,
                        min_edge=cfg.min_edge)
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=cfg.lr, total_steps=cfg.steps, pct_start=0.1)
    model.train()
    for step in range(cfg.steps):
        batch = [data[step * cfg.batch_size + i] for i in range(cfg.batch_size)]
        rgb, lr, gt = (torch.stack([b[k] for b in batch]) for k in ("rgb", "lr", "gt"))
        loss = stage_loss(model(rgb, lr)["depth"], gt, kind=cfg.loss)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        sched.step()
    return model.eval()


@torch.no_grad()
def evaluate(model: DegBinsNet | None, samples: list[dict], convention: str) -> list[float]:
    """Per-image RMSE; `model=None` is the bicubic baseline."""
    out = []
    for s in samples:
        rgb, lr, gt = s["rgb"][None], s["lr"][None], s["gt"][None]
        pred = bicubic_upsample(lr, gt.shape[-2:]) if model is None else model(rgb, lr)["depth"][-1]
        out.append(float(dsr_rmse(pred, gt, convention)[0]))
    return out


def run(root: Path, out_dir: Path, cfg: ClaimConfig, log=print) -> dict:
    torch.set_num_threads(1)
    out_dir.mkdir(parents=True, exist_ok=True)
    raw = load_sets(root)
    records, params = [], {}
    for scale in cfg.scales:
        train = samples_for(raw["train"], scale)
        tests = {name: samples_for(raw[name], scale) for name in ("lu", "middlebury")}
        for name, samples in tests.items():
            records.append(dict(scale=scale, variant="bicubic", seed=None, set=name,
                                rmse=evaluate(None, samples, name)))
        for seed in cfg.seeds:
            for variant in cfg.variants:
                t0, c0 = time.time(), time.process_time()
                model = train_model(train, scale, variant, seed, cfg)
                params[variant] = count_parameters(model)
                for name, samples in tests.items():
                    records.append(dict(scale=scale, variant=variant, seed=seed, set=name,
                                        rmse=evaluate(model, samples, name)))
                if seed == cfg.seeds[0] and variant in ("bins-3", "regression"):
                    torch.save(model.state_dict(), out_dir / f"x{scale}_{variant}_seed{seed}.pt")
                means = {r["set"]: np.mean(r["rmse"]) for r in records[-2:]}
                log(f"x{scale} {variant:10s} seed {seed}: lu {means['lu']:.3f} midd {means['middlebury']:.3f} "
                    f"({time.time() - t0:.0f}s wall, {time.process_time() - c0:.0f}s cpu)")
                (out_dir / "records.json").write_text(json.dumps(
                    dict(config=asdict(cfg), params=params, records=records), indent=1))
    return dict(config=asdict(cfg), params=params, records=records)


def summarise(records: list[dict]) -> dict:
    """{(set, scale, variant): (mean, std over seeds, n seeds)} of the per-set mean RMSE."""
    table: dict = {}
    for r in records:
        table.setdefault((r["set"], r["scale"], r["variant"]), []).append(float(np.mean(r["rmse"])))
    return {k: (float(np.mean(v)), float(np.std(v, ddof=1)) if len(v) > 1 else 0.0, len(v)) for k, v in table.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/data/depth-sr"))
    parser.add_argument("--out", type=Path, default=Path("logs/claim-degbins"))
    parser.add_argument("--steps", type=int, default=ClaimConfig.steps)
    parser.add_argument("--seeds", type=int, nargs="+", default=list(ClaimConfig.seeds))
    parser.add_argument("--scales", type=int, nargs="+", default=list(ClaimConfig.scales))
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=list(VARIANTS))
    parser.add_argument("--batch-size", type=int, default=ClaimConfig.batch_size)
    parser.add_argument("--patch", type=int, default=ClaimConfig.patch)
    args = parser.parse_args()
    cfg = ClaimConfig(steps=args.steps, seeds=tuple(args.seeds), scales=tuple(args.scales),
                      variants=tuple(args.variants), batch_size=args.batch_size, patch=args.patch)
    t0 = time.time()
    run(args.data, args.out, cfg)
    print(f"done in {time.time() - t0:.0f}s; records in {args.out / 'records.json'}")


if __name__ == "__main__":
    main()
