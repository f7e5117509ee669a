"""Checkpoints load with weights_only=True: a pickled payload is refused in one line and never runs."""

from __future__ import annotations

import os

import pytest
import torch

from reprolab.cli.errors import CheckpointError
from reprolab.run.safe_load import check_checkpoint
from tests.core.cli import run_cli, small_run_args


class Payload:
    def __init__(self, target):
        self.target = target

    def __reduce__(self):
        return (os.system, (f"touch {self.target}",))


@pytest.fixture
def hostile(tmp_path):
    """A checkpoint inside a run folder whose unpickling would create `pwned`."""
    (tmp_path / ".hydra").mkdir()
    (tmp_path / ".hydra" / "config.yaml").write_text("seed: 0\n")
    (tmp_path / "checkpoints").mkdir()
    ckpt = tmp_path / "checkpoints" / "last.ckpt"
    torch.save({"state_dict": {}, "hyper_parameters": Payload(tmp_path / "pwned")}, ckpt)
    return ckpt


def damaged(tmp_path, kind):
    path = tmp_path / f"{kind}.ckpt"
    if kind == "truncated":
        torch.save({"state_dict": {"w": torch.ones(1000)}}, path)
        path.write_bytes(path.read_bytes()[:2000])
    elif kind == "random":
        path.write_bytes(os.urandom(4096))
    return path


def test_own_kind_of_checkpoint_loads(tmp_path):
    from omegaconf import OmegaConf
    path = tmp_path / "ok.ckpt"
    torch.save({"state_dict": {"w": torch.ones(2)}, "hyper_parameters": OmegaConf.create({"lr": 0.1, "p": [1]}),
                "dir": tmp_path}, path)
    check_checkpoint(path)


def test_payload_refused_in_process(hostile):
    with pytest.raises(CheckpointError, match="is not a plain checkpoint \\(it asks to run code: posix.system\\)"):
        check_checkpoint(hostile)
    assert not (hostile.parents[1] / "pwned").exists()


@pytest.mark.parametrize("kind", ["missing", "truncated", "random"])
def test_damaged_checkpoint_is_one_line(tmp_path, kind):
    with pytest.raises(CheckpointError) as caught:
        check_checkpoint(damaged(tmp_path, kind))
    assert "\n" not in str(caught.value) and ("does not exist" in str(caught.value) or "not a readable" in str(caught.value))


def assert_refused(result, ckpt):
    assert result.returncode == 2, result.stderr[-2000:]
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr[-2000:]
    assert "Traceback" not in result.stderr
    assert str(ckpt) in lines[0]


def test_eval_refuses_payload(hostile):
    result = run_cli("reprolab-eval", f"ckpt_path={hostile}")
    assert_refused(result, hostile)
    assert "asks to run code" in result.stderr
    assert not (hostile.parents[1] / "pwned").exists()


@pytest.mark.parametrize("kind", ["missing", "random"])
def test_eval_refuses_damaged(tmp_path, kind):
    ckpt = damaged(tmp_path, kind)
    assert_refused(run_cli("reprolab-eval", f"ckpt_path={ckpt}"), ckpt)


def test_train_resume_refuses_payload(hostile, tmp_path, cifar_folder):
    result = run_cli("reprolab-train", *small_run_args(tmp_path / "run", cifar_folder, "debug=fdr",
                                                       f"ckpt_path={hostile}"))
    assert_refused(result, hostile)
    assert not (hostile.parents[1] / "pwned").exists()


def test_train_resume_refuses_truncated(tmp_path, cifar_folder):
    ckpt = damaged(tmp_path, "truncated")
    assert_refused(run_cli("reprolab-train", *small_run_args(tmp_path / "run", cifar_folder, "debug=fdr",
                                                             f"ckpt_path={ckpt}")), ckpt)
