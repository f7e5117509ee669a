"""Bad input ends a run with one clear line and a non-zero exit code, never a deep stack trace."""

from __future__ import annotations

import shutil

import pytest
import torch

from tests.core.cli import run_cli, small_run_args


def test_unknown_group_option_lists_valid_ones(tmp_path, cifar_folder):
    result = run_cli("reprolab-train", *small_run_args(tmp_path / "run", cifar_folder, "optimizer=nosuchopt"))
    assert result.returncode != 0
    assert "nosuchopt" in result.stderr
    assert "sgd" in result.stderr  # Hydra lists the available options of the group


def test_missing_dataset_names_the_fix(tmp_path):
    result = run_cli("reprolab-train", *small_run_args(tmp_path / "run", tmp_path / "nothing-here"))
    assert result.returncode == 2
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("error: data_dir") and "paths.data_dir" in last and "Traceback" not in result.stderr
    assert (tmp_path / "run" / "error.txt").read_text().startswith("DatasetNotFoundError")


def test_missing_cifar10_download_names_make_target(tmp_path):
    result = run_cli("reprolab-train", "experiment=cifar10/small_sgd_cpu", "data=cifar10", "data.download=false",
                     f"paths.data_dir={tmp_path}", f"hydra.run.dir={tmp_path / 'run'}", "print_config=false")
    assert result.returncode == 2
    assert "make data-cifar10" in result.stderr


def test_corrupt_image_is_named(tmp_path, cifar_folder):
    data = tmp_path / "data"
    shutil.copytree(cifar_folder, data)
    victim = sorted((data / "train" / "cat").iterdir())[0]
    victim.write_bytes(b"this is not a jpeg")
    result = run_cli("reprolab-train", *small_run_args(tmp_path / "run", data, "debug=limit",
                                                       "trainer.limit_train_batches=1.0", "trainer.max_epochs=1"))
    assert result.returncode == 2
    assert f"cannot read image '{victim}'" in result.stderr.strip().splitlines()[-1]


@pytest.mark.skipif(torch.cuda.is_available(), reason="needs a machine without CUDA")
def test_cuda_on_cpu_machine_fails_in_one_line(tmp_path, cifar_folder):
    result = run_cli("reprolab-train", *small_run_args(tmp_path / "run", cifar_folder, "device=gpu"))
    assert result.returncode == 2
    assert result.stderr.strip().splitlines()[-1] == (
        "error: device=gpu asks for CUDA, but this machine has no CUDA GPU; "
        "use device=cpu (or device=auto, which picks the GPU when there is one)"
    )


def test_nan_loss_stops_and_keeps_last_checkpoint(tmp_path, cifar_folder):
    run = tmp_path / "run"
    result = run_cli("reprolab-train", *small_run_args(
        run, cifar_folder, "debug=limit", "task._target_=tests.core.fakes.NaNAfterStepTask", "+task.nan_at_step=6"))
    assert result.returncode == 3, result.stderr[-2000:]
    message = result.stderr.strip().splitlines()[-1]
    assert "loss became nan at step 6" in message and "last.ckpt" in message
    ckpt = torch.load(run / "checkpoints" / "last.ckpt", weights_only=False)
    assert ckpt["global_step"] == 4  # end of the first epoch, before the NaN
    assert all(torch.isfinite(v).all() for v in ckpt["state_dict"].values() if v.is_floating_point())
    assert not (run / "metrics.json").exists()


def test_value_a_constructor_rejects_is_one_line(tmp_path, cifar_folder):
    result = run_cli("reprolab-train", *small_run_args(tmp_path / "run", cifar_folder, "+model.no_such_width=3"))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("error: model.no_such_width: ") and "takes no argument 'no_such_width'" in last
    assert (tmp_path / "run" / "error.txt").read_text().startswith("ConfigError")


def test_exception_chain_walks_causes_once_also_when_the_chain_loops():
    from reprolab.cli.errors import exception_chain

    inner, outer = KeyError("inner"), ValueError("outer")
    outer.__cause__ = inner
    inner.__context__ = outer   # a re-raise inside an except block can close the loop
    assert list(exception_chain(outer)) == [outer, inner]
    assert list(exception_chain(None)) == []
