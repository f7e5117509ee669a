"""Optimizers and schedules any paper may use, plus the builders the shared Task calls."""

from reprolab.optim.build import build_optimizer, build_scheduler, param_groups

__all__ = ["build_optimizer", "build_scheduler", "param_groups"]
