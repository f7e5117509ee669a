"""One measured CPU step of a composed preset for `make plan` (`reprolab.plan.compute`): FLOPs, aten ops, activation bytes
by dtype and optimizer state; or, for a job that takes no optimizer step, the CPU time of one whole run."""

from __future__ import annotations

import os
import tempfile
import time

import torch

from reprolab.config.compose import compose
from reprolab.plan.counters import CountStepOps, saved_bytes_hook

CPU_STEP = ["device=cpu", "logger=none", "callbacks=none", "print_config=false", "test_after_fit=false",
            *(f"++trainer.{k}={v}" for k, v in {
                "max_epochs": 1, "max_steps": 1, "limit_train_batches": 1, "limit_val_batches": 0,
                "num_sanity_val_steps": 0, "val_check_interval": "null", "check_val_every_n_epoch": 1,
                "accumulate_grad_batches": 1, "enable_progress_bar": "false", "enable_model_summary": "false",
                "enable_checkpointing": "false"}.items())]
DATA_DIR: list[str] = []  # `paths.data_dir=...` for datamodules without a fake that read small local data (--data-dir)
# task keys naming an earlier stage's run: None = start from initial weights; "init" = a stand-in checkpoint of the
# preset's own model at initialisation (a task that needs the file: the frozen mean network of the post-hoc stage)
EARLIER_STAGE = {"init_from": None, "pretrained_ckpt": None, "mean_ckpt": "init"}


def without_earlier_stage(cfg, folder: str) -> None:
    """Point the task's `EARLIER_STAGE` keys at initial weights (the measured compute is the same)."""
    from hydra.utils import instantiate

    for key, stand_in in EARLIER_STAGE.items():
        if cfg.task.get(key) is None:
            continue
        if stand_in == "init":
            torch.manual_seed(0)
            weights = {f"model.{k}": v for k, v in instantiate(cfg.model).state_dict().items()}
            stand_in = os.path.join(folder, "initial_weights.ckpt")
            torch.save({"state_dict": weights}, stand_in)
        cfg.task[key] = stand_in


def step_config(preset: str, overrides: list[str], batch: int, precision: str | None = None):
    """The composed, faked config of one measured CPU step at micro-batch `batch` (bf16 autocast if `precision`)."""
    from omegaconf import open_dict

    from reprolab.data.fake import fake_config, set_batch_size

    folder = tempfile.mkdtemp()
    cfg = fake_config(compose([f"experiment={preset}", *overrides, *CPU_STEP, *DATA_DIR], output_dir=folder))
    with open_dict(cfg):
        set_batch_size(cfg.data, batch)
        cfg.callbacks = {}  # a preset's own callbacks (early stopping on a validation metric) outlive `callbacks=none`
        without_earlier_stage(cfg, folder)
        if precision:
            cfg.device.precision = precision
    return cfg


def measure_step(preset: str, overrides: list[str], batch: int, precision: str | None = None) -> dict:
    """FLOPs, aten ops, activation and optimizer-state bytes of one optimizer step at micro-batch `batch`;
    `precision="bf16-mixed"` runs it under Lightning's CPU bf16 autocast (activation bytes as autocast keeps them)."""
    from hydra.utils import instantiate

    from reprolab.cli.train import build_task
    from reprolab.run.trainer import build_trainer

    cfg = step_config(preset, overrides, batch, precision)
    torch.manual_seed(0)
    datamodule, task, trainer = instantiate(cfg.data), build_task(cfg), build_trainer(cfg)
    ops = CountStepOps()
    trainer.callbacks.append(ops)
    saved: dict = {}
    start = time.process_time()
    with torch.autograd.graph.saved_tensors_hooks(saved_bytes_hook(saved, task.parameters()), lambda t: t):
        trainer.fit(task, datamodule=datamodule)
    if trainer.global_step != 1:
        raise RuntimeError(f"{preset}: the measured fit took {trainer.global_step} optimizer steps, not 1")
    params = {id(p): p for p in task.parameters()}
    optimizers = trainer.optimizers
    state = sum(t.nbytes for opt in optimizers for s in opt.state.values() for t in s.values() if torch.is_tensor(t))
    by_dtype: dict[str, int] = {}
    for nbytes, dtype in saved.values():
        by_dtype[dtype] = by_dtype.get(dtype, 0) + nbytes
    return {"flops": ops.flops.get_total_flops(), "ops": ops.counter.ops, "activation_bytes": sum(by_dtype.values()),
            "activation_bytes_by_dtype": by_dtype, "params": sum(p.numel() for p in params.values()),
            "param_bytes": sum(p.numel() * p.element_size() for p in params.values()),
            "optimizer_state_bytes": state, "cpu_s": round(time.process_time() - start, 1)}


def takes_no_step(preset: str, overrides: list[str]) -> bool:
    """A scikit-learn estimator or an analysis that refuses optimizer steps (trainer.max_steps=0)."""
    cfg = compose([f"experiment={preset}", *overrides, "logger=none", *DATA_DIR], output_dir=tempfile.mkdtemp())
    return str(cfg.task.get("_target_", "")).endswith("SklearnEstimatorTask") or cfg.trainer.get("max_steps") == 0


def measure_run(preset: str, overrides: list[str]) -> dict:
    """Process CPU time (user + sys, children included) and peak RSS of one whole run on CPU, data faked."""
    import resource

    from reprolab.cli.train import run
    from reprolab.data.fake import fake_config

    folder = tempfile.mkdtemp()
    cfg = fake_config(compose([f"experiment={preset}", *overrides, "device=cpu", "logger=none", "print_config=false",
                               *DATA_DIR], output_dir=folder))
    before = [resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
    run(cfg)
    after = [resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
    cpu_s = sum(a.ru_utime + a.ru_stime - b.ru_utime - b.ru_stime for a, b in zip(after, before, strict=True))
    return {"runs_on": "cpu", "cpu_s_per_run": round(cpu_s, 1), "rss_gb": after[0].ru_maxrss * 1024 / 1e9,
            "measure_cpu_s": round(cpu_s, 1)}
