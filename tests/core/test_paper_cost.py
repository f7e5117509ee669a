"""The per-paper cost benchmark: its trainer arms compose to the plain loops' protocol, and the 'after' arm
chains the sweeps into one process."""

from __future__ import annotations

import importlib.util
import sys

import pytest

from reprolab.config import REPO_ROOT, compose

for name in ("claim_cost", "hetero_cost", "paper_cost"):
    spec = importlib.util.spec_from_file_location(name, REPO_ROOT / f"scripts/bench/{name}.py")
    sys.modules[name] = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sys.modules[name])
paper_cost = sys.modules["paper_cost"]
FMT = {"data": "/data", "cache": "/cache", "root": "/runs"}


@pytest.mark.parametrize("paper", sorted(paper_cost.SLICES))
def test_before_runs_one_process_per_sweep_and_after_chains_them(paper):
    sl = paper_cost.SLICES[paper]
    before = paper_cost.arm_commands("before", sl, FMT)
    (after,) = paper_cost.arm_commands("after", sl, FMT)
    assert len(before) == len(sl.sweeps) >= 2
    assert after[3:] == [arg for cmd in before for arg in ["--next", *cmd[3:]]][1:]
    assert "{" not in " ".join(after).replace("${", "")  # every placeholder filled
    assert paper_cost.arm_commands("before", sl, FMT, chain_before=True) == [after]  # same commands, another tree


def test_deepfakegenome_trainer_arm_neither_validates_nor_checkpoints_like_the_plain_loop():
    sweep = paper_cost.SLICES["deepfakegenome"].sweeps[0]
    overrides = [o.format(**FMT).replace("experiment=deepfakegenome/zoo_binary_cpu,", "experiment=") for o in sweep]
    cfg = compose([o for o in overrides if not o.startswith("hydra.")])
    assert cfg.trainer.limit_val_batches == 0 and cfg.callbacks.model_checkpoint is None
    assert cfg.trainer.max_epochs == 15 and cfg.optimizer.lr == 2e-3 and cfg.optimizer.weight_decay == 5e-4
