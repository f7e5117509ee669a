"""`reprolab-eval ckpt_path=<run>/checkpoints/<file>.ckpt [key=value | group=option ...]`.

Rebuilds the run from the config saved next to the checkpoint (`<run>/.hydra/config.yaml`), applies
the overrides (a config group swap such as `device=cpu` or a value such as `data.batch_size=64`), tests
the checkpoint and writes `<run>/eval/metrics.json`.
"""

from __future__ import annotations

import sys
from pathlib import Path

import lightning as L
import yaml
from hydra.utils import instantiate
from omegaconf import DictConfig, OmegaConf, open_dict

from reprolab.config import CONF_DIR, compose_group
from reprolab.errors import ConfigError, ReprolabError, one_line
from reprolab.run_folder import as_floats, merge_results, write_metrics
from reprolab.safe_load import check_checkpoint
from reprolab.train import build_task
from reprolab.trainer import build_trainer


def run_dir_of(ckpt_path: Path) -> Path:
    for folder in ckpt_path.resolve().parents:
        if (folder / ".hydra" / "config.yaml").exists():
            return folder
    raise ConfigError(f"no .hydra/config.yaml above '{ckpt_path}'; evaluate a checkpoint inside its run folder")


def apply_override(cfg: DictConfig, override: str) -> None:
    key, _, value = override.partition("=")
    group_file = CONF_DIR / key / f"{value}.yaml"
    if "." not in key and (CONF_DIR / key).is_dir():
        if not group_file.exists():
            options = sorted(p.stem for p in (CONF_DIR / key).glob("*.yaml"))
            raise ConfigError(f"'{value}' is not an option of group '{key}'; choose one of {options}")
        cfg[key] = compose_group(key, value)
    else:
        OmegaConf.update(cfg, key, yaml.safe_load(value), force_add=True)


def load_eval_config(ckpt_path: str, overrides: list[str]) -> DictConfig:
    ckpt = Path(ckpt_path)
    if not ckpt.is_file():
        raise ConfigError(f"checkpoint '{ckpt_path}' does not exist")
    run_dir = run_dir_of(ckpt)
    cfg = OmegaConf.load(run_dir / ".hydra" / "config.yaml")
    for override in overrides:
        apply_override(cfg, override)
    with open_dict(cfg):
        cfg.paths.output_dir = str(run_dir / "eval")
        cfg.logger = None
        cfg.ckpt_path = str(ckpt)
    return cfg


def evaluate(cfg: DictConfig) -> dict[str, float]:
    L.seed_everything(cfg.seed, workers=True)
    datamodule = instantiate(cfg.data)
    task = build_task(cfg)
    trainer = build_trainer(cfg)
    results = trainer.test(task, datamodule=datamodule, ckpt_path=cfg.ckpt_path, weights_only=True)
    metrics = as_floats(merge_results(results))
    write_metrics(cfg.paths.output_dir, {**metrics, "ckpt_path": cfg.ckpt_path})
    return metrics


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    ckpt = [a.partition("=")[2] for a in args if a.startswith("ckpt_path=")]
    try:
        if not ckpt:
            raise ConfigError("usage: reprolab-eval ckpt_path=<run>/checkpoints/<name>.ckpt [overrides]")
        check_checkpoint(ckpt[0])  # before anything is built: refuse a pickle that asks to run code
        cfg = load_eval_config(ckpt[0], [a for a in args if not a.startswith("ckpt_path=")])
        metrics = evaluate(cfg)
    except ReprolabError as err:
        print(f"error: {one_line(err)}", file=sys.stderr)
        sys.exit(err.exit_code)
    print(f"metrics written to {Path(cfg.paths.output_dir) / 'metrics.json'}: {metrics}")


if __name__ == "__main__":
    main()
