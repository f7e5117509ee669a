"""`reprolab-train`'s real Hydra entry point (config tree, sweepers, launchers, callbacks, error
handling) driven in-process with `reprolab.cli.train.run` replaced by an instant stand-in, so sweep
mechanics are tested in seconds; the slow tests run the real trainer."""

from __future__ import annotations

import sys
from pathlib import Path

from hydra.core.global_hydra import GlobalHydra

import reprolab.cli.train as train
from reprolab.cli.errors import CorruptDataError
from reprolab.run.folder import write_metrics

FAIL_SEED_REPROLAB, FAIL_SEED_OTHER = 101, 102


def fake_test_acc(lr: float, seed: int) -> float:
    return 10.0 * lr + 0.1 * seed


def fake_run(cfg) -> dict:
    """Writes what a finished run leaves (metrics.json, a CSV curve) with known numbers; seeds
    101 and 102 fail, with a ReprolabError and with a plain RuntimeError."""
    if cfg.seed == FAIL_SEED_REPROLAB:
        raise CorruptDataError("image train/cat/7.jpg is truncated; re-extract the dataset")
    if cfg.seed == FAIL_SEED_OTHER:
        raise RuntimeError("CUDA out of memory (fake)\nsecond line of the traceback text")
    lr, seed, out = float(cfg.optimizer.lr), int(cfg.seed), Path(cfg.paths.output_dir)
    acc = fake_test_acc(lr, seed)
    csv = out / "csv" / "metrics.csv"
    csv.parent.mkdir(parents=True, exist_ok=True)
    rows = ["epoch,step,train/loss_step,val/acc,val/loss"]
    rows += [f"0,{s},{1.0 / (s + 1) + lr},," for s in range(4)]
    rows += [f"0,3,,{acc / 2},{1 - acc / 2}", f"1,7,,{acc},{1 - acc}"]
    csv.write_text("\n".join(rows) + "\n")
    metrics = {"val/acc": acc, "val/loss": 1 - acc, "test/acc": acc, "test/loss": 1 - acc,
               "seed": seed, "paper": cfg.paper, "setting": cfg.setting, "best_ckpt": None}
    write_metrics(out, metrics)
    return metrics


def run_train_cli(monkeypatch, *args: str) -> int:
    """`reprolab-train <args>` in this process with the stand-in run; returns the exit code."""
    monkeypatch.setattr(train, "run", lambda cfg, resolved=None: fake_run(cfg))  # fake_run looked up per job: tests replace it
    monkeypatch.setattr(sys, "argv", ["reprolab-train", *args])
    GlobalHydra.instance().clear()
    try:
        train.main()
        code = 0
    except SystemExit as exit_:
        code = exit_.code if isinstance(exit_.code, int) else 1
    finally:
        GlobalHydra.instance().clear()
    return code
