"""A fixed tuning budget over an Optuna study, run in two steps a make target can repeat safely:

    python -m reprolab.sweeps.tuning fill STUDY.db --trials N -- reprolab-train -m experiment=… hparams_search=… seed=S
    python -m reprolab.sweeps.tuning best STUDY.db --trials N -- reprolab-train -m experiment=… seed=0,1,2

`fill` runs the given `reprolab-train -m` (an Optuna search) for the trials the study still lacks, with the study's
storage, that count and a sweep folder of its own beside the database (`trials_<k>`, k the trials it held) appended,
and runs nothing once N trials have finished; so a rerun neither adds trials beyond the budget nor repeats one, and an
interrupted search resumes (the sampler seed is offset by the stored trials: `reprolab.sweeps.study_seed`). `best`
checks that exactly N trials finished (complete or failed) and runs the given command with the best trial's
parameters appended as overrides: the tuned configuration on the evaluation seeds. Nothing here trains; both steps
hand the work to `reprolab-train`.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from reprolab.cli.errors import ReprolabError


class TuningError(ReprolabError):
    """A study that is missing, holds another number of trials than the budget, or has no completed trial."""


def _storage(path: Path) -> str:
    return f"sqlite:///{path.resolve()}"


def _study(path: Path):
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    summaries = optuna.study.get_all_study_summaries(storage=_storage(path))
    if len(summaries) != 1:
        raise TuningError(f"{path} holds {len(summaries)} studies; keep one study per database")
    return optuna.load_study(study_name=summaries[0].study_name, storage=_storage(path))


def finished_trials(path: Path) -> int:
    """Trials of the study at `path` that finished (complete, failed or pruned); 0 when there is no database yet.
    A trial left running by a killed search is not counted: its budget is spent again."""
    if not path.is_file():
        return 0
    return sum(t.state.is_finished() for t in _study(path).get_trials(deepcopy=False))


def fill_overrides(path: Path, trials: int) -> list[str]:
    """The overrides that run the study's missing trials; empty when `trials` have finished."""
    done = finished_trials(path)
    if done > trials:
        raise TuningError(f"{path} holds {done} finished trials, more than the budget of {trials}; "
                          f"delete {path.parent} and rerun to tune with the registered budget")
    if done == trials:
        return []
    return [f"hydra.sweeper.storage={_storage(path)}", f"hydra.sweeper.n_trials={trials - done}",
            f"hydra.sweep.dir={path.resolve().parent / f'trials_{done:03d}'}"]


def best_overrides(path: Path, trials: int) -> list[str]:
    """The best completed trial's parameters as `key=value` overrides (sorted by key), once exactly `trials`
    trials have finished."""
    if not path.is_file():
        raise TuningError(f"no study at {path}; run the tuning step (`tuning fill`) first")
    done = finished_trials(path)
    if done != trials:
        raise TuningError(f"{path} holds {done} finished trials, the budget is {trials}; run the tuning step "
                          f"(`tuning fill`) to complete it, or delete {path.parent} if it holds more")
    study = _study(path)
    if not any(t.state.name == "COMPLETE" for t in study.get_trials(deepcopy=False)):
        raise TuningError(f"{path}: no trial completed (every one failed); read the trials' error.txt files")
    return [f"{key}={value!r}" for key, value in sorted(study.best_params.items())]


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    from reprolab.cli.parser import OneLineParser

    p = OneLineParser(prog="python -m reprolab.sweeps.tuning", description=__doc__.split("\n\n")[0],
                      usage="%(prog)s {fill,best} STUDY.db --trials N [-- COMMAND ...]")
    p.add_argument("step", choices=("fill", "best"), help="fill: run the missing trials; best: run the best trial's params")
    p.add_argument("study", type=Path, help="the study's SQLite database (one study)")
    p.add_argument("--trials", type=int, required=True, help="the registered number of trials")
    argv = list(argv)
    cut = argv.index("--") if "--" in argv else len(argv)
    args = p.parse_args(argv[:cut])
    args.command = argv[cut + 1:]  # after `--`: the reprolab-train command to run
    if args.trials < 1:
        p.error("--trials must be at least 1")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        extra = (fill_overrides if args.step == "fill" else best_overrides)(args.study, args.trials)
    except TuningError as err:
        print(f"error: {err}", file=sys.stderr)
        return err.exit_code
    if args.step == "fill" and not extra:
        print(f"{args.study}: {args.trials} of {args.trials} trials finished; nothing to run")
        return 0
    if args.step == "best":
        study = _study(args.study)
        print(f"best of {args.trials} trials in {args.study}: trial {study.best_trial.number}, "
              f"{study.direction.name.lower()}d value {study.best_value:.4f}", flush=True)
    print(f"{args.step} {args.study}: {' '.join(extra)}", flush=True)
    if not args.command:
        return 0
    args.study.parent.mkdir(parents=True, exist_ok=True)  # where Optuna opens the database
    return subprocess.call([*args.command, *extra])


if __name__ == "__main__":
    sys.exit(main())
