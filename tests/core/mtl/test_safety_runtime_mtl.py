"""The MTL engine's own backward passes still meet the core's non-finite-loss guard; DDP is refused."""

from __future__ import annotations

import pytest
import torch

from reprolab.cli.errors import NonFiniteLossError
from reprolab.mtl.architectures import MLPHardSharing
from reprolab.mtl.engine import MTLBackward, task_losses
from reprolab.mtl.weightings import build_weighting
from tests.core.cli import run_cli

SYNTHETIC = ["experiment=apt/claim_synthetic", "print_config=false", "trainer.max_steps=50"]
CHECKPOINTS = ["trainer.limit_val_batches=1", "trainer.val_check_interval=4", "trainer.enable_checkpointing=true",
               "+callbacks.model_checkpoint={_target_:lightning.pytorch.callbacks.ModelCheckpoint,"
               "dirpath:${paths.output_dir}/checkpoints,monitor:val/loss,filename:'best-{step}'}",
               "+callbacks.last_checkpoint={_target_:reprolab.callbacks.LastCheckpoint,"
               "dirpath:${paths.output_dir}/checkpoints,write_interval_s:0}"]


def error_line(result) -> str:
    """The last stderr line, which must be the one error line (Lightning's own warnings may precede it)."""
    assert "Traceback" not in result.stderr, result.stderr[-3000:]
    line = result.stderr.strip().splitlines()[-1]
    assert line.startswith("error: "), result.stderr[-3000:]
    return line


@pytest.mark.parametrize("weighting", ["ew", "pcgrad"])  # the loss-based and the Jacobian path
def test_the_engine_hands_the_losses_to_the_hook_before_any_backward(weighting):
    torch.manual_seed(0)
    model = MLPHardSharing(4, [8], [1, 1])
    seen = []

    def guard(losses):
        seen.append(losses.detach().clone())
        raise NonFiniteLossError("stop")

    engine = MTLBackward(build_weighting(weighting, 2), model.shared_parameters(), model.task_specific_parameters(),
                         before_backward=guard)
    losses = task_losses([o.mean() * torch.nan for o in model(torch.randn(3, 4))])
    with pytest.raises(NonFiniteLossError):
        engine(losses)
    assert torch.isnan(seen[0]).all() and seen[0].shape == (2,)
    assert all(p.grad is None for p in model.parameters())


def test_nan_targets_stop_the_run_with_exit_3_instead_of_looping(tmp_path):
    """Before the hook the step was skipped, global_step stayed 0 and a max_steps run never ended."""
    data = "data.problem._target_=tests.core.mtl.nan_fakes.synthetic_with_nan_targets"
    result = run_cli("reprolab-train", *SYNTHETIC, data, f"hydra.run.dir={tmp_path}", timeout=900)
    assert result.returncode == 3
    assert "loss became [" in error_line(result) and ", nan] at step 0" in error_line(result)
    assert (tmp_path / "error.txt").read_text().startswith("NonFiniteLossError: loss became")
    assert not (tmp_path / "metrics.json").exists()


def test_nan_at_step_10_keeps_the_checkpoints_of_the_validation_at_step_8(tmp_path):
    task = ["task._target_=tests.core.mtl.nan_fakes.NaNTargetsAfterStepTask", "+task.nan_at_step=10"]
    result = run_cli("reprolab-train", *SYNTHETIC, *task, *CHECKPOINTS, f"hydra.run.dir={tmp_path}", timeout=900)
    assert result.returncode == 3
    assert "at step 10" in error_line(result) and "last good checkpoint is" in error_line(result)
    last = torch.load(tmp_path / "checkpoints" / "last.ckpt", weights_only=True)
    assert last["global_step"] == 8
    weights = [v.reshape(-1) for v in last["state_dict"].values() if torch.is_tensor(v) and v.is_floating_point()]
    assert torch.isfinite(torch.cat(weights)).all()


def test_more_than_one_process_is_refused_before_set_up(tmp_path):
    result = run_cli("reprolab-train", *SYNTHETIC, "device=ddp_cpu", f"hydra.run.dir={tmp_path}", timeout=900)
    assert result.returncode == 2
    line = error_line(result)
    assert "MTLTask runs on one process only" in line and "device=ddp_cpu starts 2" in line
    assert "Initializing distributed" not in result.stderr + result.stdout
    assert (tmp_path / "error.txt").read_text().startswith("ConfigError:")
