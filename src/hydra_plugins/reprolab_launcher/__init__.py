"""Hydra finds launchers only in the `hydra_plugins` namespace: `hydra/launcher=parallel` names this class, whose
whole behaviour is `reprolab.sweeps.launcher.ParallelLauncher`'s."""

from reprolab.sweeps.launcher import ParallelLauncher as _Parallel


class ParallelLauncher(_Parallel):
    """A sweep's jobs on every core (`hydra.launcher.n_jobs`; null: one per core)."""
