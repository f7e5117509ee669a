"""A job refused because another run holds its folder writes no `error.txt` there: the folder and its
result belong to the other run (a stale error beside that run's metrics would mark it failed)."""

from __future__ import annotations

from hydra.core.utils import JobReturn, JobStatus
from hydra.types import RunMode
from omegaconf import OmegaConf

from reprolab.cli.errors import RunFolderBusyError
from reprolab.results.runs import FAILED, FINISHED, load_run
from reprolab.results.sweep_report import SweepReport


def job_end(run_dir, error) -> None:
    config = OmegaConf.create({"hydra": {"runtime": {"output_dir": str(run_dir)}, "mode": RunMode.RUN}})
    ret = JobReturn()
    ret.status, ret._return_value = JobStatus.FAILED, error
    SweepReport().on_job_end(config, ret)


def test_busy_folder_gets_no_error_file_but_other_failures_do(tmp_path):
    busy, broken = tmp_path / "busy", tmp_path / "broken"
    for run in (busy, broken):
        (run / ".hydra").mkdir(parents=True)
        (run / ".hydra" / "config.yaml").write_text("seed: 0\n")
    (busy / "metrics.json").write_text('{"test/auroc": 0.9}')
    job_end(busy, RunFolderBusyError(f"run folder '{busy}' is in use by another run (pid 1)"))
    assert not (busy / "error.txt").exists() and load_run(busy).status == FINISHED
    job_end(broken, RuntimeError("boom"))
    assert (broken / "error.txt").read_text() == "RuntimeError: boom\n" and load_run(broken).status == FAILED
