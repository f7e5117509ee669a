"""Write run folders shaped like `reprolab-train`'s (`.hydra/`, metrics.json or error.txt, CSV log)
with chosen numbers, so the results tools are tested on exact values in milliseconds."""

from __future__ import annotations

import json
from pathlib import Path

from omegaconf import OmegaConf


def make_run(
    folder: Path,
    config: dict,
    metrics: dict | None = None,
    error: str | None = None,
    overrides: list[str] = (),
    choices: dict | None = None,
    curve: dict[str, list[tuple[int, float]]] | None = None,
) -> Path:
    hydra_dir = folder / ".hydra"
    hydra_dir.mkdir(parents=True)
    OmegaConf.save(OmegaConf.create(config), hydra_dir / "config.yaml")
    OmegaConf.save(OmegaConf.create(list(overrides)), hydra_dir / "overrides.yaml")
    OmegaConf.save(OmegaConf.create({"hydra": {"runtime": {"choices": choices or {}}}}), hydra_dir / "hydra.yaml")
    if metrics is not None:
        (folder / "metrics.json").write_text(json.dumps(metrics))
    if error is not None:
        (folder / "error.txt").write_text(error + "\n")
    if curve:
        names = sorted(curve)
        rows = ["epoch,step," + ",".join(names)]
        for name in names:
            for step, value in curve[name]:
                rows.append(f"0,{step}," + ",".join(str(value) if n == name else "" for n in names))
        (folder / "csv").mkdir()
        (folder / "csv" / "metrics.csv").write_text("\n".join(rows) + "\n")
    return folder


def make_sweep(root: Path, values: dict[str, dict[int, float]], paper: str = "toy") -> Path:
    """`root/<i>` runs of `-m optimizer=<name> seed=<s>`: values[name][seed] is test/acc."""
    i = 0
    for name, by_seed in values.items():
        for seed, acc in by_seed.items():
            make_run(
                root / str(i),
                config={"seed": seed, "paper": paper, "setting": "s", "optimizer": {"_target_": name, "lr": 0.1},
                        "paths": {"output_dir": "${hydra:runtime.output_dir}"}, "monitor": {"metric": "val/acc"}},
                metrics={"test/acc": acc, "val/acc": acc / 2, "seed": seed, "paper": paper, "setting": "s"},
                overrides=[f"optimizer={name}", f"seed={seed}", "paths.root_dir=/tmp/x"],
                choices={"optimizer": name, "experiment": f"{paper}/s"},
                curve={"val/acc": [(0, 0.0), (10, acc / 2)], "train/loss_step": [(s, 1.0 / (s + 1)) for s in range(10)]},
            )
            i += 1
    return root
