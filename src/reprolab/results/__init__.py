"""Results from runs on disk: discovery, seed aggregation, markdown tables, curves, sweep reports."""

from reprolab.results.aggregate import Cell, Row, aggregate, default_group_by, default_metrics
from reprolab.results.runs import Run, find_runs, load_run

__all__ = ["Cell", "Row", "Run", "aggregate", "default_group_by", "default_metrics", "find_runs", "load_run"]
