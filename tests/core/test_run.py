"""A real short run: metrics.json, checkpoints, the sweep value, and reprolab-eval on its checkpoint."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from reprolab.cli.train import run, sweep_value
from reprolab.config.compose import compose
from tests.core.cli import run_cli, small_run_args


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory, cifar_folder):
    run_dir = tmp_path_factory.mktemp("run")
    result = run_cli("reprolab-train", *small_run_args(run_dir, cifar_folder, "debug=limit"))
    assert result.returncode == 0, result.stderr[-3000:]
    return run_dir


def test_run_folder_holds_results(finished_run):
    metrics = json.loads((finished_run / "metrics.json").read_text())
    assert 0.0 <= metrics["test/acc"] <= 1.0 and metrics["test/loss"] > 0
    assert metrics["seed"] == 0 and metrics["paper"] == "cifar10" and metrics["setting"] == "small_sgd_cpu"
    assert "best/val/acc" in metrics and metrics["best_ckpt"].endswith(".ckpt")
    assert (finished_run / "checkpoints" / "last.ckpt").exists()
    assert (finished_run / ".hydra" / "config.yaml").exists()
    assert (finished_run / "csv" / "metrics.csv").read_text().count("\n") > 2


def test_eval_reproduces_test_metrics_of_best_checkpoint(finished_run):
    metrics = json.loads((finished_run / "metrics.json").read_text())
    result = run_cli("reprolab-eval", f"ckpt_path={metrics['best_ckpt']}", "device=cpu")
    assert result.returncode == 0, result.stderr[-3000:]
    best = Path(metrics["best_ckpt"])
    evaluated = json.loads((finished_run / "eval" / best.stem / "metrics.json").read_text())
    assert evaluated["test/acc"] == pytest.approx(metrics["test/acc"], abs=1e-6)
    assert evaluated["test/loss"] == pytest.approx(metrics["test/loss"], rel=1e-5)
    assert (finished_run / "eval" / best.stem / "eval.log").read_text().count("\n") >= 1  # Lightning's records
    output = result.stdout + result.stderr
    assert "LeafSpec" not in output and "dirpath has changed" not in output and "litlogger" not in output


def test_eval_writes_one_folder_per_checkpoint(finished_run):
    best = Path(json.loads((finished_run / "metrics.json").read_text())["best_ckpt"])
    last = finished_run / "checkpoints" / "last.ckpt"
    result = run_cli("reprolab-eval", f"ckpt_path={last}", "data.eval_batch_size=64")
    assert result.returncode == 0, result.stderr[-3000:]
    outputs = {p.parent.name: json.loads(p.read_text()) for p in (finished_run / "eval").glob("*/metrics.json")}
    assert outputs["last"]["ckpt_path"] == str(last)
    if best.stem in outputs:  # written by the test above when it ran first; never overwritten by this one
        assert outputs[best.stem]["ckpt_path"] == str(best)
    saved = yaml.safe_load((finished_run / "eval" / "last" / ".hydra" / "overrides.yaml").read_text())
    assert "data.eval_batch_size=64" in saved and "experiment=cifar10/small_sgd_cpu" in saved  # the run's first


def test_eval_rejects_unknown_group_option(finished_run):
    result = run_cli("reprolab-eval", f"ckpt_path={finished_run / 'checkpoints' / 'last.ckpt'}", "device=tpu9")
    assert result.returncode == 2
    assert "'tpu9' is not an option of group 'device'" in result.stderr and "'cpu'" in result.stderr


def test_in_process_run_returns_sweep_value(tmp_path, cifar_folder):
    cfg = compose(["experiment=cifar10/small_sgd_cpu", f"data.data_dir={cifar_folder}", "debug=fdr",
                   "logger=none", "model=mlp", "optimizer.lr=0.01"], output_dir=tmp_path)
    metrics = run(cfg)
    assert set(metrics) >= {"test/acc", "test/loss", "seed"}
    assert sweep_value(cfg, {"best/val/acc": 0.25}) == 0.25
    assert sweep_value(cfg, {"val/acc": 0.25, "best/val/acc": 0.5}) == 0.5  # the best, not the last epoch's
    assert sweep_value(cfg, {"val/acc": 0.25}) == 0.25


def test_eval_group_swap_composes_the_option_with_its_defaults(tmp_path):
    from omegaconf import OmegaConf

    from reprolab.cli.eval import load_eval_config

    (tmp_path / ".hydra").mkdir()
    OmegaConf.save(compose(["experiment=cifar10/small_sgd_cpu"], output_dir=tmp_path), tmp_path / ".hydra" / "config.yaml")
    (tmp_path / "checkpoints").mkdir()
    (tmp_path / "checkpoints" / "last.ckpt").write_bytes(b"")
    cfg = load_eval_config(str(tmp_path / "checkpoints" / "last.ckpt"), ["device=ddp", "data.batch_size=8"])
    # device=ddp inherits accelerator/precision from the gpu group through its own defaults list
    assert (cfg.device.name, cfg.device.accelerator, cfg.device.strategy) == ("ddp", "gpu", "ddp")
    assert cfg.device.precision == "bf16-mixed" and cfg.data.batch_size == 8
    assert cfg.paths.output_dir == str(tmp_path / "eval" / "last")
