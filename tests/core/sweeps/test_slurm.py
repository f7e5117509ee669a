"""`hydra/launcher=slurm` offline: the sbatch script submitit would submit, sized from the device
group and the environment, captured just before `sbatch` would run."""

from __future__ import annotations

import pytest
from submitit.slurm.slurm import SlurmExecutor

from tests.core.sweeps.fake_train import run_train_cli
from tests.core.sweeps.test_multirun import sweep_args


class Submitted(Exception):
    """Stops the launcher where it would call sbatch."""


@pytest.fixture
def sbatch_scripts(monkeypatch):
    scripts: list[str] = []
    make_text = SlurmExecutor._make_submission_file_text

    def capture(self, command, uid):
        scripts.append(make_text(self, command, uid))
        raise Submitted

    monkeypatch.setattr(SlurmExecutor, "_make_submission_file_text", capture)
    monkeypatch.setattr(SlurmExecutor, "affinity", classmethod(lambda cls: 2))  # as if srun were on PATH
    for name in ("PARTITION", "ACCOUNT", "QOS", "TIMEOUT_MIN", "CPUS_PER_TASK"):
        monkeypatch.delenv(f"REPROLAB_SLURM_{name}", raising=False)
    return scripts


def sbatch_flags(script: str) -> dict[str, str]:
    flags = [line.removeprefix("#SBATCH --") for line in script.splitlines() if line.startswith("#SBATCH --")]
    return dict(f.split("=", 1) if "=" in f else (f, "") for f in flags)


def test_multinode_job_has_one_task_per_gpu_on_every_node(tmp_path, monkeypatch, sbatch_scripts):
    monkeypatch.setenv("REPROLAB_SLURM_PARTITION", "gpu-long")
    monkeypatch.setenv("REPROLAB_SLURM_ACCOUNT", "mylab")
    monkeypatch.setenv("REPROLAB_SLURM_TIMEOUT_MIN", "90")
    args = sweep_args(tmp_path, "hydra/launcher=slurm", "device=multinode", "device.devices=4",
                      "device.num_nodes=2", "seed=0,1")
    assert run_train_cli(monkeypatch, *args) == 1  # stopped at the sbatch call
    assert len(sbatch_scripts) == 1  # one array job for the two runs
    flags = sbatch_flags(sbatch_scripts[0])
    assert flags["partition"] == "gpu-long" and flags["account"] == "mylab" and flags["time"] == "90"
    assert flags["nodes"] == "2" and flags["gpus-per-node"] == "4" and flags["ntasks-per-node"] == "4"
    assert flags["array"].startswith("0-1")
    assert "srun" in sbatch_scripts[0]  # every task runs the job; Lightning reads SLURM's world size


def test_single_gpu_defaults(tmp_path, monkeypatch, sbatch_scripts):
    assert run_train_cli(monkeypatch, *sweep_args(tmp_path, "hydra/launcher=slurm", "device=gpu")) == 1
    flags = sbatch_flags(sbatch_scripts[0])
    assert (flags["nodes"], flags["gpus-per-node"], flags["ntasks-per-node"]) == ("1", "1", "1")
    assert flags["time"] == "1440" and flags["cpus-per-task"] == "8" and "partition" not in flags
    assert flags["signal"] == "USR2@120"  # what the requeue callback answers with last.ckpt (then submitit requeues)


def test_all_local_gpus_cannot_size_a_reservation(tmp_path, monkeypatch, sbatch_scripts, capsys):
    assert run_train_cli(monkeypatch, *sweep_args(tmp_path, "hydra/launcher=slurm", "device=ddp")) == 2
    assert sbatch_scripts == []  # refused before anything was submitted
    err = capsys.readouterr().err
    assert "gpus_per_node=-1" in err and "set device.devices=<GPUs per node>" in err


def test_cpu_runs_may_reserve_no_gpu(tmp_path, monkeypatch, sbatch_scripts):
    args = sweep_args(tmp_path, "hydra/launcher=slurm", "device=ddp_cpu", "hydra.launcher.gpus_per_node=null")
    assert run_train_cli(monkeypatch, *args) == 1
    flags = sbatch_flags(sbatch_scripts[0])
    assert flags["ntasks-per-node"] == "2" and "gpus-per-node" not in flags
