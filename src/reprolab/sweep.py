"""The Hydra callback of every multirun: `<sweep>/sweep_report.json`, kept current at a bounded cost.

`SweepReport` rescans the whole sweep folder after each job, which reads every run's config: O(n²)
over a sweep, about a tenth of a second per run folder per job on a small CPU sweep. Here the report is
rewritten after a failed job, after any job when `report_interval_s` has passed since the last write,
and when the sweep ends.
"""

from __future__ import annotations

import time
from typing import Any

from hydra.core.utils import JobReturn, JobStatus
from omegaconf import DictConfig

from reprolab.results.sweep_report import SweepReport


class Sweep(SweepReport):
    def __init__(self, report_interval_s: float = 30.0):
        self.report_interval_s = report_interval_s
        self._reported_at = time.monotonic()

    def on_job_end(self, config: DictConfig, job_return: JobReturn, **kwargs: Any) -> None:
        failed = job_return.status == JobStatus.FAILED
        if failed or time.monotonic() - self._reported_at >= self.report_interval_s:
            super().on_job_end(config, job_return, **kwargs)
            self._reported_at = time.monotonic()
