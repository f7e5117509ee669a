"""The per-paper cost benchmark: its trainer arms compose to the plain loops' protocol, and the 'after' arm
chains the sweeps into one process."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import pytest

from reprolab.config import REPO_ROOT, compose

for name in ("claim_cost", "hetero_cost", "paper_cost"):
    spec = importlib.util.spec_from_file_location(name, REPO_ROOT / f"scripts/bench/{name}.py")
    sys.modules[name] = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sys.modules[name])
paper_cost = sys.modules["paper_cost"]
FMT = {"data": "/data", "cache": "/cache", "root": "/runs", "seeds": "0"}


@pytest.mark.parametrize("paper", sorted(paper_cost.SLICES))
def test_before_runs_one_process_per_sweep_and_after_chains_them(paper):
    sl = paper_cost.SLICES[paper]
    before = paper_cost.arm_commands("before", sl, FMT)
    (after,) = paper_cost.arm_commands("after", sl, FMT)
    assert len(before) == len(sl.sweeps) >= 2
    assert after[:4] == [sys.executable, str(paper_cost.STEP_COUNT), "-m", "reprolab.train"]
    assert after[4:] == [arg for cmd in before for arg in ["--next", *cmd[4:]]][1:]
    assert "{" not in " ".join(after).replace("${", "")  # every placeholder filled
    assert paper_cost.arm_commands("before", sl, FMT, chain_before=True) == [after]  # same commands, another tree


def test_deepfakegenome_trainer_arm_neither_validates_nor_checkpoints_like_the_plain_loop():
    sweep = paper_cost.SLICES["deepfakegenome"].sweeps[0]
    overrides = [o.format(**FMT).replace("experiment=deepfakegenome/zoo_binary_cpu,", "experiment=") for o in sweep]
    cfg = compose([o for o in overrides if not o.startswith("hydra.")])
    assert cfg.trainer.limit_val_batches == 0 and cfg.callbacks.model_checkpoint is None
    assert cfg.trainer.max_epochs == 15 and cfg.optimizer.lr == 2e-3 and cfg.optimizer.weight_decay == 5e-4


def test_step_count_counts_every_optimizer_step_of_the_child(tmp_path):
    counted = tmp_path / "steps.txt"
    code = ("import torch\nopt = torch.optim.SGD([torch.nn.Parameter(torch.ones(2))], lr=0.1)\n"
            "for _ in range(3):\n    opt.step()\n")
    for _ in range(2):  # one line per process, summed per arm
        subprocess.run([sys.executable, str(paper_cost.STEP_COUNT), "-c", code], check=True,
                       env={**os.environ, "REPROLAB_STEP_COUNT": str(counted)})
    assert paper_cost.read_steps(counted) == 6 and paper_cost.read_steps(tmp_path / "none.txt") == 0


def test_degradequery_seeds_reach_both_paths():
    sl = paper_cost.SLICES["degradequery"]
    (after,) = paper_cost.arm_commands("after", sl, {**FMT, "seeds": "0,1,2"})
    assert after.count("seed=0,1,2") == 2  # the pretraining and the fine-tuning sweeps
    (plain,) = paper_cost.arm_commands("plain", sl, {**FMT, "seeds": "0,1,2"})
    assert "seeds=(0,1,2,)" in plain[-1]


def test_cpu_per_step_is_printed_beside_the_totals(capsys):
    paper_cost.print_steps_table(["plain", "after"], {"plain": [10.0], "after": [12.0]}, {"plain": [1000], "after": [1200]})
    out = capsys.readouterr().out
    assert "| plain | 1000 | 10.00 ms | 1.000 |" in out and "| after | 1200 | 10.00 ms | 1.000 |" in out


def _jobs(sweep: list[str]) -> int:
    count = 1
    for override in sweep:
        if not override.startswith("hydra."):
            count *= len(override.split("=", 1)[1].split(","))
    return count


def test_apt_whole_slice_is_the_claim_targets_grid():
    """324 jobs like the plain grid, over the weightings `make claim-apt` sweeps (experiments/apt/targets.mk)."""
    sl = paper_cost.SLICES["apt-whole"]
    assert [_jobs(sweep) for sweep in sl.sweeps] == [12, 12, 12, 288]
    targets = (REPO_ROOT / "experiments/apt/targets.mk").read_text()
    weightings = next(line.split("?=")[1].strip() for line in targets.splitlines()
                      if line.startswith("APT_CLAIM_WEIGHTINGS"))
    assert f"task.weighting={weightings}" in sl.sweeps[-1]
    for weighting in weightings.split(","):
        assert f"'{weighting}'" in sl.plain
    assert "load_problems(['synthetic', 'digits', 'enb'], \"/data\")" in sl.plain.format(**FMT)


def test_degradequery_trainer_arms_start_from_an_empty_featurisation_cache_each_round():
    """Else the arm after the first reads the ECFP matrix the first one cached, which the plain loop never gets."""
    dq, dfg = paper_cost.SLICES["degradequery"], paper_cost.SLICES["deepfakegenome"]
    folders = {paper_cost.cache_dir(dq, "/tmp/x", arm, r) for arm in ("before", "after") for r in (0, 1)}
    assert len(folders) == 4
    assert paper_cost.cache_dir(dfg, "/tmp/x", "after", 1) == paper_cost.cache_dir(dfg, "/tmp/x", "before", 0)
