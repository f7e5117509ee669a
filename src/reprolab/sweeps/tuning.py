"""A fixed tuning budget over an Optuna study, run in two steps a make target can repeat safely:

    reprolab-tune fill STUDY.db --trials N -- reprolab-train -m experiment=… hparams_search=… seed=S
    reprolab-tune best STUDY.db --trials N -- reprolab-train -m experiment=… seed=0,1,2

`fill` runs the given `reprolab-train -m` (an Optuna search) for the trials the study still lacks, with the study's
storage, that count and a sweep folder of its own beside the database (`trials_<k>`, k the trials it held) appended,
and runs nothing once N trials have finished; so a rerun neither adds trials beyond the budget nor repeats one, and an
interrupted search resumes (the sampler seed is offset by the stored trials: `reprolab.sweeps.study_seed`). `best`
checks that exactly N trials finished (complete or failed) and runs the given command with the best trial's
parameters appended as overrides: the tuned configuration on the evaluation seeds. Nothing here trains; both steps
hand the work to `reprolab-train` (the command line: `reprolab.cli.tune`).
"""

from __future__ import annotations

from pathlib import Path

from reprolab.cli.errors import ReprolabError


class TuningError(ReprolabError):
    """A study that is missing, holds another number of trials than the budget, or has no completed trial."""


def storage_url(path: Path) -> str:
    return f"sqlite:///{path.resolve()}"


def load_study(path: Path):
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    summaries = optuna.study.get_all_study_summaries(storage=storage_url(path))
    if len(summaries) != 1:
        raise TuningError(f"{path} holds {len(summaries)} studies; keep one study per database")
    return optuna.load_study(study_name=summaries[0].study_name, storage=storage_url(path))


def finished_trials(path: Path) -> int:
    """Trials of the study at `path` that finished (complete, failed or pruned); 0 when there is no database yet.
    A trial left running by a killed search is not counted: its budget is spent again."""
    if not path.is_file():
        return 0
    return sum(t.state.is_finished() for t in load_study(path).get_trials(deepcopy=False))


def fill_overrides(path: Path, trials: int) -> list[str]:
    """The overrides that run the study's missing trials; empty when `trials` have finished."""
    done = finished_trials(path)
    if done > trials:
        raise TuningError(f"{path} holds {done} finished trials, more than the budget of {trials}; "
                          f"delete {path.parent} and rerun to tune with the registered budget")
    if done == trials:
        return []
    return [f"hydra.sweeper.storage={storage_url(path)}", f"hydra.sweeper.n_trials={trials - done}",
            f"hydra.sweep.dir={path.resolve().parent / f'trials_{done:03d}'}"]


def best_overrides(path: Path, trials: int) -> list[str]:
    """The best completed trial's parameters as `key=value` overrides (sorted by key), once exactly `trials`
    trials have finished."""
    if not path.is_file():
        raise TuningError(f"no study at {path}; run the tuning step (`reprolab-tune fill`) first")
    done = finished_trials(path)
    if done != trials:
        raise TuningError(f"{path} holds {done} finished trials, the budget is {trials}; run the tuning step "
                          f"(`reprolab-tune fill`) to complete it, or delete {path.parent} if it holds more")
    study = load_study(path)
    if not any(t.state.name == "COMPLETE" for t in study.get_trials(deepcopy=False)):
        raise TuningError(f"{path}: no trial completed (every one failed); read the trials' error.txt files")
    return [f"{key}={value!r}" for key, value in sorted(study.best_params.items())]
