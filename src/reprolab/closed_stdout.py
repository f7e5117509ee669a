"""A console script piped into a reader that stops early (`reprolab-eval --help | head -1`) ends quietly, with the
status a shell tool killed by SIGPIPE has (141), not a BrokenPipeError traceback or an "unexpected error" line.

    @quiet_on_closed_stdout
    def main(argv=None) -> int: ...
"""

from __future__ import annotations

import functools
import os
import signal
import sys
from collections.abc import Callable
from typing import TypeVar

CLOSED_STDOUT_EXIT = 128 + signal.SIGPIPE  # 141
Main = TypeVar("Main", bound=Callable[..., object])


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so the interpreter's last flush of what is still buffered cannot fail again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout replaced by an object without a descriptor (a test's capture)
        pass
    finally:
        os.close(devnull)


def quiet_on_closed_stdout(main: Main) -> Main:
    """`main`, whose closed stdout (EPIPE, while it runs or at its final flush) ends it with exit 141 and no output."""

    @functools.wraps(main)
    def entry(*args, **kwargs):
        try:
            try:
                return main(*args, **kwargs)
            finally:
                sys.stdout.flush()  # what is still buffered fails here, not in the interpreter's shutdown
        except BrokenPipeError:
            _silence_stdout()
            sys.exit(CLOSED_STDOUT_EXIT)

    return entry  # type: ignore[return-value]
