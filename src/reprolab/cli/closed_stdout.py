"""A console script piped into a reader that stops early (`reprolab-eval --help | head -1`, `reprolab-train … | head`)
ends quietly, with the status a shell tool killed by SIGPIPE has (141), not a BrokenPipeError traceback, an
"unexpected error" line or a "--- Logging error ---" block per log record.

    @quiet_on_closed_stdout
    def main(argv=None) -> int: ...
"""

from __future__ import annotations

import functools
import logging
import os
import signal
import sys
from collections.abc import Callable
from typing import NoReturn, TypeVar

from reprolab.cli.errors import exception_chain

CLOSED_STDOUT_EXIT = 128 + signal.SIGPIPE  # 141
Main = TypeVar("Main", bound=Callable[..., object])


def exit_closed_stdout() -> NoReturn:
    """Point stdout at /dev/null (the interpreter's last flush of what is still buffered cannot fail again), exit 141."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout replaced by an object without a descriptor (a test's capture)
        pass
    finally:
        os.close(devnull)
    sys.exit(CLOSED_STDOUT_EXIT)


def _raise_closed_pipe(handler: logging.Handler, record: logging.LogRecord) -> None:
    """A console log handler (Hydra's, whose handlers are made anew for each job) lets a closed stdout's
    BrokenPipeError reach the code that logged, instead of printing "--- Logging error ---" and going on."""
    if isinstance(sys.exc_info()[1], BrokenPipeError):
        raise  # called inside the handler's `except`: the write's own error goes up to the code that logged
    logging.Handler.handleError(handler, record)


def is_closed_pipe(err: BaseException | None) -> bool:
    """Whether `err` is a BrokenPipeError, or wraps one (Hydra's instantiate wraps what a constructor raised)."""
    return any(isinstance(link, BrokenPipeError) for link in exception_chain(err))


def quiet_on_closed_stdout(main: Main) -> Main:
    """`main`, whose closed stdout (EPIPE, while it runs or at its final flush) ends it with exit 141 and no output."""

    @functools.wraps(main)
    def entry(*args, **kwargs):
        logging.StreamHandler.handleError = _raise_closed_pipe  # type: ignore[method-assign]
        try:
            try:
                return main(*args, **kwargs)
            finally:
                if "handleError" in vars(logging.StreamHandler):  # back to logging.Handler's, for in-process callers
                    del logging.StreamHandler.handleError
                sys.stdout.flush()  # what is still buffered fails here, not in the interpreter's shutdown
        except Exception as err:
            if is_closed_pipe(err):
                exit_closed_stdout()
            raise

    return entry  # type: ignore[return-value]
