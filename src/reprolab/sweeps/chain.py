"""Several `reprolab-train` calls in one process: `reprolab-train -m A=1,2 --next -m B=3 --next …`.

A claim that runs several sweeps (single-task then multi-task runs, pretraining then fine-tuning) paid the
interpreter, torch, Lightning and Hydra start-up (~5 s of CPU) once per sweep; chained, it pays them once.
Each part runs exactly as its own `reprolab-train` call would, in order (jobs of one sweep already share a
process, so a part sees no state a job would not); a failed part does not stop the next, as `make`'s `-`
prefix did, and the chain exits with the first non-zero code. The launcher is the process's: the first call's
`hydra/launcher=…` and `hydra.launcher.*=…` overrides (`make claim-<paper> JOBS=N`) apply to every call that sets none.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from hydra.core.global_hydra import GlobalHydra

SEPARATOR = "--next"


def split_calls(args: list[str]) -> list[list[str]]:
    """The argument lists of each call; an empty one (`--next` first, last or twice) is an error."""
    calls, current = [], []
    for arg in args:
        if arg == SEPARATOR:
            calls.append(current)
            current = []
        else:
            current.append(arg)
    calls.append(current)
    if any(not call for call in calls):
        raise ValueError(f"'{SEPARATOR}' separates two calls' arguments: none may be empty")
    launcher = [arg for arg in calls[0] if _names_launcher(arg)]
    return [call if any(map(_names_launcher, call)) else [*launcher, *call] for call in calls]


def _names_launcher(arg: str) -> bool:
    return arg.startswith(("hydra/launcher=", "hydra.launcher.", "+hydra.launcher.", "++hydra.launcher."))


def run_chain(main: Callable[[], None], argv: list[str]) -> int:
    """Run `main` once per call of `argv[1:]`, with `sys.argv` set to that call; the first non-zero exit code."""
    try:
        calls = split_calls(argv[1:])
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    first_failure = 0
    try:
        for call in calls:
            sys.argv = [argv[0], *call]
            GlobalHydra.instance().clear()
            try:
                main()
                code = 0
            except SystemExit as stop:
                code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
            if code and not first_failure:
                first_failure = code
    finally:
        sys.argv = argv
    return first_failure
