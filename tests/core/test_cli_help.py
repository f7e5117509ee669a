"""`reprolab-train --help` and `reprolab-eval --help` say how to call them before Hydra's group and config listing."""

from __future__ import annotations

from tests.core.cli import run_cli


def test_train_help_starts_with_the_usage_and_lists_the_presets():
    proc = run_cli("reprolab-train", "--help")
    lines = proc.stdout.splitlines()
    assert proc.returncode == 0 and lines[0].startswith("reprolab-train: train one run")
    assert "reprolab-train experiment=<paper>/<setting> debug=fdr" in proc.stdout
    assert any(line.startswith("experiment/apt: ") and "claim_enb" in line for line in lines)
    assert "is powered by Hydra" not in proc.stdout and "`error: <cause>; <what to do>`" in proc.stdout


def test_train_help_with_a_preset_shows_that_preset_composed():
    proc = run_cli("reprolab-train", "--help", "experiment=apt/claim_enb")
    assert proc.returncode == 0 and "_target_: experiments.apt.problems.enb" in proc.stdout


def test_eval_help_names_ckpt_path_and_where_the_metrics_go():
    proc = run_cli("reprolab-eval", "--help")
    lines = proc.stdout.splitlines()
    assert proc.returncode == 0 and lines[0].startswith("reprolab-eval: test a checkpoint")
    assert "reprolab-eval ckpt_path=<run>/checkpoints/last.ckpt" in proc.stdout
    assert "<run>/eval/<checkpoint stem>/metrics.json" in lines[0]
