"""Where a `reprolab-train` call's CPU time goes: exclusive process time per phase, in this one process.

    python scripts/bench/phase_cost.py -m experiment=apt/claim_enb seed=0,1,2 … [--next -m …]

Runs the call as `reprolab-train` would, with the phases below timed by `time.process_time` (user+sys of this
process; a phase's time excludes the phases nested in it), and prints them with the total. `imports` is the
import of `reprolab.train` (torch, Lightning, Hydra); `hydra: rest` is Hydra's own work around the jobs (the sweep's
start, each job's config copies, `HydraConfig` set-up, run folder lock); `fit: rest` is Lightning's loop around
`training_step` (data fetching, hooks, logging, per-epoch set-up) and each fit's set-up; `training_step` is the
LightningModule's own step (for a manual-optimisation task such as APT's: forward, backward and optimizer step).
"""

from __future__ import annotations

import atexit
import functools
import sys
import time

START = time.process_time()


class Phases:
    """Exclusive process time per label: a wrapped call's time, less that of the wrapped calls inside it."""

    def __init__(self, clock=time.process_time):
        self.clock, self.spent, self._stack = clock, {}, []

    def wrap(self, owner, name: str, label: str) -> None:
        fn = getattr(owner, name)

        @functools.wraps(fn)
        def timed(*args, **kwargs):
            now = self.clock()
            if self._stack:
                outer = self._stack[-1]
                self.spent[outer[0]] = self.spent.get(outer[0], 0.0) + now - outer[1]
            self._stack.append([label, now])
            try:
                return fn(*args, **kwargs)
            finally:
                end = self.clock()
                inner, started = self._stack.pop()
                self.spent[inner] = self.spent.get(inner, 0.0) + end - started
                if self._stack:
                    self._stack[-1][1] = end

        setattr(owner, name, timed)


def instrument(phases: Phases) -> None:
    """Wrap the phases of a `reprolab-train` call (after `reprolab.train` is imported)."""
    import hydra.core.utils as hydra_utils
    import lightning.pytorch.trainer.trainer as lightning_trainer
    from hydra._internal.config_loader_impl import ConfigLoaderImpl

    import reprolab.run_builder as run_builder
    import reprolab.train as train
    import reprolab.trainer as trainer_module

    train.compose_once()  # installed now, so that the wraps below sit on top of it
    for owner, name, label in [
        (train, "hydra_main", "hydra: rest"), (hydra_utils, "configure_log", "hydra: job logging set-up"),
        (ConfigLoaderImpl, "load_sweep_config", "compose (per job)"), (train, "check_config", "check_config"),
        (train, "resume_or_skip", "resume_or_skip"), (train, "run", "run: rest"),
        (train, "build_run", "build_run: rest"), (run_builder, "instantiate", "instantiate data/model/task"),
        (run_builder, "build_trainer", "build_trainer: rest"), (trainer_module, "log_config", "log_config"),
        (trainer_module, "build_loggers", "build_loggers"), (trainer_module, "build_callbacks", "build_callbacks"),
        (lightning_trainer.Trainer, "fit", "fit: rest"), (lightning_trainer.Trainer, "test", "test"),
        (train, "write_metrics", "write_metrics"),
    ]:
        phases.wrap(owner, name, label)
    from lightning.pytorch import LightningModule

    original = LightningModule.__init_subclass__

    def wrap_training_step(cls, **kwargs):  # every task class: its own training_step
        original(**kwargs)
        if "training_step" in cls.__dict__:
            phases.wrap(cls, "training_step", "training_step")

    LightningModule.__init_subclass__ = classmethod(wrap_training_step)
    for cls in _subclasses(LightningModule):  # tasks imported already
        if "training_step" in cls.__dict__:
            phases.wrap(cls, "training_step", "training_step")


def _subclasses(cls) -> list:
    found = []
    for sub in cls.__subclasses__():
        found += [sub, *_subclasses(sub)]
    return found


def report(phases: Phases, imports: float, total: float) -> str:
    rows = [("imports (reprolab.train)", imports), *sorted(phases.spent.items(), key=lambda kv: -kv[1])]
    rows.append(("other", total - imports - sum(phases.spent.values())))
    lines = [f"{label:32s} {seconds:7.2f} s" for label, seconds in rows]
    return "\n".join([*lines, f"{'total (process_time)':32s} {total:7.2f} s"])


def main() -> None:
    import reprolab.train as train

    imports = time.process_time() - START
    phases = Phases()
    instrument(phases)
    atexit.register(lambda: print(report(phases, imports, time.process_time()), file=sys.stderr))
    sys.argv = ["reprolab-train", *sys.argv[1:]]
    train.main()


if __name__ == "__main__":
    main()
