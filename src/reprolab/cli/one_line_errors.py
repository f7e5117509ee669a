"""Scripts outside the trainer (the `make data-*` downloads) end a failure in one line, as `reprolab-train` does:
`with one_line_errors("NYUv2 download into data"): ...` prints `error: <what> failed (<cause>); <advice>`, exit 2."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

from reprolab.cli.errors import ReprolabError, one_line

OFFLINE_ADVICE = "without network, copy the folder from a machine that has it"


@contextmanager
def one_line_errors(what: str, advice: str = OFFLINE_ADVICE) -> Iterator[None]:
    """Our own errors as their line (their exit code); a network, file or library failure (URLError is an OSError,
    torchvision raises RuntimeError) as `<what> failed (<cause>); <advice>`, exit 2."""
    try:
        yield
    except ReprolabError as err:
        print(f"error: {one_line(err)}", file=sys.stderr)
        sys.exit(err.exit_code)
    except (OSError, RuntimeError) as err:
        print(f"error: {what} failed ({' '.join(str(err).split())}); {advice}", file=sys.stderr)
        sys.exit(2)
