"""Ctrl-C ends `reprolab-train` in one line and exit 130, inside a fit or outside it: finished runs keep their
metrics.json, and rerunning the same command finishes what is missing (a `-m` sweep skips and resumes jobs)."""

from __future__ import annotations

import signal
import sys

INTERRUPTED_LINE = ("error: interrupted (Ctrl-C); finished runs keep their metrics.json: rerun the same command "
                    "(a -m sweep skips finished jobs and resumes killed ones)")
_SEEN = {"sigint": False}


def _note_sigint(signum, frame):
    _SEEN["sigint"] = True
    raise KeyboardInterrupt


def watch_sigint() -> None:
    """Record a Ctrl-C before raising it: Lightning turns one inside a fit into its own shutdown and `exit(1)`.
    Left alone where the shell made Ctrl-C ignored (a background job)."""
    _SEEN["sigint"] = False
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _note_sigint)


def was_interrupted(stop: BaseException) -> bool:
    """Whether `stop` (a KeyboardInterrupt, or the SystemExit(1) Lightning raises after one) comes from Ctrl-C."""
    return isinstance(stop, KeyboardInterrupt) or (isinstance(stop, SystemExit) and stop.code == 1 and _SEEN["sigint"])


def exit_interrupted() -> None:
    print(INTERRUPTED_LINE, file=sys.stderr)
    sys.exit(130)
