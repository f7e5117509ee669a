"""`reprolab-train`: compose → print → seed → instantiate → fit → test best → metrics.json.

    reprolab-train experiment=cifar10/small_sgd_cpu optimizer=adamw device=gpu
"""

from __future__ import annotations

import json
import os
import signal
import sys
from contextlib import nullcontext
from pathlib import Path

import hydra
import lightning as L
from hydra.core.hydra_config import HydraConfig
from hydra.errors import HydraException, InstantiationException
from hydra.types import RunMode
from lightning.fabric.utilities.rank_zero import rank_zero_only
from lightning.pytorch.utilities.exceptions import SIGTERMException
from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException

from reprolab.config import CONF_DIR
from reprolab.device import check_device, check_world_size
from reprolab.errors import ConfigError, ReprolabError, RunFolderBusyError, from_instantiation, one_line
from reprolab.loggers import finish_loggers
from reprolab.provenance import git_commit
from reprolab.rich_tree import print_config_tree
from reprolab.run_builder import build_run, build_task  # noqa: F401 - build_task: importable from here as before
from reprolab.run_folder import (
    as_floats,
    lock_run_folder,
    mask_saved_config,
    merge_results,
    write_error,
    write_metrics,
)
from reprolab.safe_load import check_checkpoint
from reprolab.sweep import decide_job, record_decision
from reprolab.sweep_compose import compose_once


def check_resume(cfg: DictConfig) -> None:
    """Refuse a missing, damaged or code-running `ckpt_path` before any set-up."""
    if cfg.get("ckpt_path"):
        check_checkpoint(cfg.ckpt_path)


def fit(cfg: DictConfig, trainer: L.Trainer, task: L.LightningModule, datamodule) -> dict[str, float]:
    trainer.fit(task, datamodule=datamodule, ckpt_path=cfg.get("ckpt_path"), weights_only=True)
    metrics = {k: v for k, v in as_floats(trainer.callback_metrics).items() if not k.startswith("test/")}
    ckpt = trainer.checkpoint_callback
    if ckpt is not None and ckpt.best_model_score is not None:
        metrics[f"best/{ckpt.monitor}"] = float(ckpt.best_model_score)
    return metrics


def test_best(trainer: L.Trainer, task: L.LightningModule, datamodule) -> tuple[dict[str, float], str | None]:
    """Test the best checkpoint by the monitor (the final weights when there is none, e.g. fast_dev_run)."""
    ckpt = trainer.checkpoint_callback
    best = ckpt.best_model_path if ckpt is not None and ckpt.best_model_path else None
    results = trainer.test(task, datamodule=datamodule, ckpt_path=best, weights_only=True)
    return as_floats(merge_results(results)), best


def run(cfg: DictConfig) -> dict[str, float]:
    """Train and test one configuration; returns the metrics also written to `metrics.json`."""
    check_resume(cfg)
    datamodule, task, trainer = build_run(cfg)
    metrics = fit(cfg, trainer, task, datamodule)
    if cfg.get("test_after_fit", True):
        test_metrics, best = test_best(trainer, task, datamodule)
        metrics.update(test_metrics)
        metrics["best_ckpt"] = best
    metrics.update({"seed": cfg.seed, "paper": cfg.get("paper"), "setting": cfg.get("setting"), "git_commit": git_commit()})
    if trainer.is_global_zero:
        write_metrics(cfg.paths.output_dir, metrics)
    finish_loggers(trainer.loggers)
    return metrics


def sweep_value(cfg: DictConfig, metrics: dict) -> float | None:
    """The number a sweeper optimises: the best value of `optimized_metric` over the run (its `best/` entry,
    what the tested checkpoint scored), else its last value when no best was tracked."""
    name = cfg.get("optimized_metric")
    if not name:
        return None
    value = metrics.get(f"best/{name}", metrics.get(name))
    return None if value is None else float(value)


def _in_multirun() -> bool:
    return HydraConfig.initialized() and HydraConfig.get().mode == RunMode.MULTIRUN


def resume_or_skip(cfg: DictConfig) -> dict | None:
    """In a multirun: the recorded metrics of a job already finished with this config (skip it), else
    None after pointing `ckpt_path` at the job's own `last.ckpt` when it has one (resume) or clearing
    what another config left in its folder (start). `resume=false` starts every job fresh."""
    if not _in_multirun():
        return None
    decision, path = decide_job(cfg, cfg.paths.output_dir, resume=cfg.get("resume", True))
    record_decision(cfg.paths.output_dir, decision)
    if decision == "skipped":
        print(f"skipped: {path} holds this config's metrics")
        return json.loads(path.read_text())
    if decision == "resumed" and not cfg.get("ckpt_path"):
        cfg.ckpt_path = str(path)
        print(f"resuming from {path}")
    return None


def run_until_sigterm(cfg: DictConfig) -> dict[str, float]:
    """`run`; a SIGTERM (Lightning stops at the next step, checkpoints get written) exits 143, not 0, and the
    requeue signal (callbacks/requeue.py: last.ckpt of that step written) exits 128 + its number (SIGUSR2: 140)."""
    try:
        return run(cfg)
    except SIGTERMException as stop:
        signum = getattr(stop, "signum", signal.SIGTERM)  # RequeueRequested: the scheduler's requeue signal
        last = Path(cfg.paths.output_dir) / "checkpoints" / "last.ckpt"
        print(f"stopped by {signal.Signals(signum).name}; resume with ckpt_path={last} (a -m sweep rerun into the same folder "
              "resumes by itself)", file=sys.stderr)
        sys.exit(128 + signum)


def hold_run_folder(cfg: DictConfig):
    """The run folder's lock; a folder another run writes to ends this one with one line (no error.txt there).
    A DDP rank that rank 0 launched into rank 0's folder runs under rank 0's lock."""
    if rank_zero_only.rank != 0:
        return nullcontext()
    try:
        return lock_run_folder(cfg.paths.output_dir)
    except RunFolderBusyError as err:
        if _in_multirun():
            raise
        print(f"error: {one_line(err)}", file=sys.stderr)
        sys.exit(err.exit_code)


def mask_hydra_files() -> None:
    """No secret passed as an override stays in plain text in the run folder's `.hydra/`."""
    if HydraConfig.initialized() and HydraConfig.get().output_subdir is not None:
        runtime = HydraConfig.get().runtime
        mask_saved_config(Path(runtime.output_dir) / HydraConfig.get().output_subdir)


@hydra.main(version_base="1.3", config_path=str(CONF_DIR), config_name="train")
def hydra_main(cfg: DictConfig) -> float | None:
    with hold_run_folder(cfg):
        mask_hydra_files()
        return _main(cfg)


def check_config(cfg: DictConfig) -> None:
    """Every interpolation resolves and the device exists: checked before the tree is printed or anything built."""
    try:
        OmegaConf.to_container(cfg, resolve=True)
    except OmegaConfBaseException as err:
        raise ConfigError(f"{one_line(err)}; fix that override, or pick a group option this preset can use") from None
    check_device(cfg.device)
    check_world_size(cfg)


def _main(cfg: DictConfig) -> float | None:
    try:
        check_config(cfg)
        if cfg.get("print_config", True):
            print_config_tree(cfg)
        done = resume_or_skip(cfg)
        return sweep_value(cfg, done if done is not None else run_until_sigterm(cfg))
    except (ReprolabError, InstantiationException) as caught:
        err = from_instantiation(caught)  # a constructor that rejected a config value → ConfigError
        if not isinstance(err, ReprolabError):
            raise
        write_error(cfg.paths.output_dir, f"{type(err).__name__}: {one_line(err)}")
        if _in_multirun():  # the sweeper records the failure and goes on with the other runs
            if err is caught:
                raise
            raise err from caught
        print(f"error: {one_line(err)}", file=sys.stderr)
        sys.exit(err.exit_code)


_OURS = "REPROLAB_SET_HYDRA_FULL_ERROR"


def main() -> None:
    """`reprolab-train`: Hydra's own config errors (unknown key, bad override, unresolvable interpolation) end
    with one line and exit 2, anything unexpected with one line and exit 1; `HYDRA_FULL_ERROR=1` shows the traceback."""
    compose_once()
    ours = os.environ.get(_OURS) == "1"  # a DDP rank started by a run that set HYDRA_FULL_ERROR itself
    if os.environ.get("HYDRA_FULL_ERROR") == "1" and not ours:
        hydra_main()
        return
    os.environ.update({"HYDRA_FULL_ERROR": "1", _OURS: "1"})  # let Hydra's exceptions reach us instead of printing them
    try:
        hydra_main()
    except (HydraException, OmegaConfBaseException) as err:
        text = " ".join(str(err).split("Config search path")[0].split())  # Hydra's advice (the options of a group, `+key=`) is on later lines
        print(f"error: {text}; see `reprolab-train --help` or the group's options under conf/", file=sys.stderr)
        sys.exit(2)
    except Exception as err:  # noqa: BLE001 — a bug, not bad input: one line, the traceback on request
        print(f"error: unexpected {type(err).__name__}: {one_line(err)}; rerun with HYDRA_FULL_ERROR=1 for the "
              "traceback", file=sys.stderr)
        sys.exit(1)
    finally:
        for name in ("HYDRA_FULL_ERROR", _OURS):  # in-process callers (tests, notebooks) keep their environment
            os.environ.pop(name, None)


if __name__ == "__main__":
    main()
