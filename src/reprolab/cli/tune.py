"""`reprolab-tune`: a fixed Optuna trial budget filled once, then the best trial's parameters handed to a
`reprolab-train` command (reprolab.sweeps.tuning holds the study checks)."""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from reprolab.cli.closed_stdout import quiet_on_closed_stdout
from reprolab.cli.parser import OneLineParser
from reprolab.sweeps.tuning import TuningError, best_overrides, fill_overrides, load_study


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    p = OneLineParser(prog="reprolab-tune", description=__doc__.split("(")[0].strip(),
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


@quiet_on_closed_stdout
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
        study = load_study(args.study)
        print(f"best of {args.trials} trials in {args.study}: trial {study.best_trial.number}, "
              f"{study.direction.name.lower()}d value {study.best_value:.4f}", flush=True)
    print(f"{args.step} {args.study}: {' '.join(extra)}", flush=True)
    if not args.command:
        return 0
    args.study.parent.mkdir(parents=True, exist_ok=True)  # where Optuna opens the database
    return subprocess.call([*args.command, *extra])

